//! A run's T records written again with corrected statistics, the rest of the run as it is
//! (format upgrades: the statistics a T record keeps are sums made when it was built).

use tabiya_store::{ReadTx, WriteTx};

use super::encoder::{Emitted, RunEncoder};
use super::record::{TRecord, decode_external_postings, decode_t_block};
use super::{BLOCKS, POSTINGS, RunDir, block_key, postings_key, put_run};
use crate::{Error, Result};

/// Reads every T record of run `dir` from `read` (the state before `w`), lets `fix` correct
/// it (it returns whether it changed anything; the record's postings are loaded, long lists
/// included), and writes the run's T blocks again in `w`, with its directory, streaming (the
/// old blocks are read from `read`, so the new ones may take their keys). Long postings
/// lists stay as they are. Returns how many records changed.
pub(crate) fn rewrite_t_records(
    read: &ReadTx,
    w: &WriteTx,
    dir: &RunDir,
    fix: &mut dyn FnMut(&mut TRecord) -> Result<bool>,
) -> Result<u64> {
    let blocks = read.table(BLOCKS)?;
    let postings = read.table(POSTINGS)?;
    let mut changed = 0u64;
    let mut old_bytes = 0u64;
    let mut new_bytes = 0u64;
    let mut new_dir = dir.clone();
    new_dir.t_first.clear();
    let mut enc = RunEncoder::default();
    let mut emitted = Vec::new();
    let mut bt = w.table(BLOCKS)?;
    let mut put = |emitted: &mut Vec<Emitted>, new_dir: &mut RunDir| -> Result<()> {
        for e in emitted.drain(..) {
            if let Emitted::TBlock(first, b) = e {
                let idx = new_dir.t_first.len() as u32;
                new_dir.t_first.push(first);
                new_bytes += b.len() as u64;
                bt.put(&block_key(dir.id, b'T', idx), &b)?;
            }
        }
        Ok(())
    };
    for b in 0..dir.t_first.len() as u32 {
        let block = blocks
            .get(&block_key(dir.id, b'T', b))?
            .ok_or_else(|| Error::Corrupt(format!("missing index block {}/T/{b}", dir.id)))?;
        old_bytes += block.len() as u64;
        for mut rec in decode_t_block(&block)? {
            if rec.postings.is_none() {
                let data = postings
                    .get(&postings_key(dir.id, rec.key))?
                    .ok_or_else(|| Error::Corrupt(format!("missing postings of run {}", dir.id)))?;
                rec.postings = Some(decode_external_postings(&data, rec.n_postings)?);
            }
            if fix(&mut rec)? {
                changed += 1;
            }
            enc.push_record(&rec, &mut |e| emitted.push(e));
        }
        put(&mut emitted, &mut new_dir)?;
    }
    enc.finish(&mut |e| emitted.push(e));
    put(&mut emitted, &mut new_dir)?;

    let from = block_key(dir.id, b'T', new_dir.t_first.len() as u32);
    let to = block_key(dir.id, b'T', u32::MAX);
    bt.remove_range(&from, &to)?;
    bt.remove(&to)?;
    drop(bt);
    new_dir.bytes = (dir.bytes + new_bytes).saturating_sub(old_bytes);
    put_run(w, dir.id, &new_dir)?;
    Ok(changed)
}
