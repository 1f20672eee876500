//! Writing an index run into its tables, from memory or streamed (a merge).

use tabiya_store::{TableMut, WriteTx};

use super::build::Singles;
use super::encoder::{Emitted, RunEncoder};
use super::record::{SEntry, TRecord};
use super::{BLOCKS, POSTINGS, RunDir, SKETCHES, block_key, postings_key, put_run, run_key};
use crate::Result;
use crate::hll::Hll;

/// Writes a run block by block as records and entries arrive.
pub(crate) struct RunWriter<'t> {
    blocks: TableMut<'t>,
    postings: TableMut<'t>,
    enc: RunEncoder,
    dir: RunDir,
    pending: Vec<Emitted>,
}

impl<'t> RunWriter<'t> {
    pub fn new(w: &'t WriteTx, run_id: u32, games: u64) -> Result<RunWriter<'t>> {
        Ok(RunWriter {
            blocks: w.table(BLOCKS)?,
            postings: w.table(POSTINGS)?,
            enc: RunEncoder::default(),
            dir: RunDir {
                id: run_id,
                games,
                ..Default::default()
            },
            pending: Vec::new(),
        })
    }

    fn drain(&mut self) -> Result<()> {
        let id = self.dir.id;
        for e in self.pending.drain(..) {
            match e {
                Emitted::TBlock(first, b) => {
                    let idx = self.dir.t_first.len() as u32;
                    self.dir.t_first.push(first);
                    self.dir.bytes += b.len() as u64;
                    self.blocks.put(&block_key(id, b'T', idx), &b)?;
                }
                Emitted::SBlock(first, b) => {
                    let idx = self.dir.s_first.len() as u32;
                    self.dir.s_first.push(first);
                    self.dir.bytes += b.len() as u64;
                    self.blocks.put(&block_key(id, b'S', idx), &b)?;
                }
                Emitted::Postings(key, p) => {
                    self.dir.bytes += p.len() as u64;
                    self.postings.put(&postings_key(id, key), &p)?;
                }
            }
        }
        Ok(())
    }

    /// T records must come in key order.
    pub fn record(&mut self, rec: &TRecord) -> Result<()> {
        let pending = &mut self.pending;
        self.enc.push_record(rec, &mut |e| pending.push(e));
        self.drain()
    }

    /// S entries must come in (prefix, game) order.
    pub fn single(&mut self, e: SEntry) -> Result<()> {
        let pending = &mut self.pending;
        self.enc.push_single(e, &mut |e| pending.push(e));
        if !self.pending.is_empty() {
            self.drain()?;
        }
        Ok(())
    }

    /// Flushes the last blocks and returns the run's directory (not yet written).
    pub fn finish(mut self) -> Result<RunDir> {
        let pending = &mut self.pending;
        self.enc.finish(&mut |e| pending.push(e));
        self.drain()?;
        self.dir.t_records = self.enc.t_records;
        self.dir.s_entries = self.enc.s_entries;
        Ok(self.dir)
    }
}

/// A run's blocks encoded in memory, ready to write.
pub(crate) struct EncodedRun {
    emitted: Vec<Emitted>,
    t_records: u64,
    s_entries: u64,
}

/// Encodes a run on two threads: the T records and the first half of the S entries on
/// one, the other half (from a prefix boundary: a block never splits a prefix) on the
/// other. Each half's last block may be short; nothing else differs from one encoder.
pub(crate) fn encode_run(records: &[TRecord], singles: &Singles) -> EncodedRun {
    let mut cut = singles.len() / 2;
    while cut > 0 && cut < singles.len() && singles.prefix_at(cut) == singles.prefix_at(cut - 1) {
        cut += 1;
    }
    let part = |records: &[TRecord], singles: &mut dyn Iterator<Item = SEntry>| {
        let mut enc = RunEncoder::default();
        let mut out = Vec::new();
        for r in records {
            enc.push_record(r, &mut |e| out.push(e));
        }
        for e in singles {
            enc.push_single(e, &mut |e| out.push(e));
        }
        enc.finish(&mut |e| out.push(e));
        out
    };
    let (mut emitted, rest) = std::thread::scope(|s| {
        let other = s.spawn(|| part(&[], &mut (cut..singles.len()).map(|i| singles.get(i))));
        let mine = part(records, &mut (0..cut).map(|i| singles.get(i)));
        (mine, other.join().expect("run encoding thread"))
    });
    emitted.extend(rest);
    EncodedRun {
        emitted,
        t_records: records.len() as u64,
        s_entries: singles.len() as u64,
    }
}

/// Writes a run encoded by [`encode_run`] (a batch's or an import segment's: complete).
pub(crate) fn write_encoded_run(
    w: &WriteTx,
    run_id: u32,
    games: u64,
    run: EncodedRun,
    sketch: &Hll,
    implicit: u64,
) -> Result<RunDir> {
    let mut rw = RunWriter::new(w, run_id, games)?;
    rw.pending = run.emitted;
    rw.drain()?;
    let mut dir = rw.dir;
    dir.t_records = run.t_records;
    dir.s_entries = run.s_entries;
    dir.implicit = implicit;
    dir.complete = true;
    put_run(w, run_id, &dir)?;
    w.with_table(SKETCHES, |t| t.put(&run_key(run_id), &sketch.encode()))?;
    Ok(dir)
}
