//! The index's positions, from its runs: counted, by where the index keeps them (the opening
//! tree's T records, single S entries, implicit — see `docs/database.md`), distinct
//! (estimated), and the tree's distinct positions.

use serde::Serialize;
use tabiya_store::ReadTx;

use crate::hll::Hll;
use crate::index::{self as run, BLOCKS, load_runs};
use crate::{Error, Result};

/// Positions counted, by where the index keeps them; they add up to the positions counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PositionKinds {
    /// In T records: positions reached by at least `promoteAt` games of their run, each
    /// game's occurrence listed in its record.
    pub tree: u64,
    /// Single: one S entry for one game's occurrence of a rarer position.
    pub single: u64,
    /// Implicit: rare occurrences kept by no entry (the next position's entry stands for
    /// them).
    pub implicit: u64,
}

/// What the runs hold.
#[derive(Debug, Default)]
pub struct IndexCounts {
    pub runs: usize,
    pub kinds: PositionKinds,
    /// Distinct positions with a T record (summed over runs).
    pub tree_positions: u64,
    /// Distinct positions, estimated (HyperLogLog, standard error 0.8 %).
    pub distinct: u64,
}

impl IndexCounts {
    /// Positions counted (once per game, at their first occurrence).
    pub fn positions(&self) -> u64 {
        self.kinds.tree + self.kinds.single + self.kinds.implicit
    }
}

pub fn count(read: &ReadTx) -> Result<IndexCounts> {
    let runs = load_runs(read)?;
    let blocks = read.table(BLOCKS)?;
    let mut out = IndexCounts {
        runs: runs.len(),
        ..IndexCounts::default()
    };
    let mut t_blocks = 0usize;
    for r in &runs {
        out.kinds.single += r.s_entries;
        out.kinds.implicit += r.implicit;
        out.tree_positions += r.t_records;
        t_blocks += r.t_first.len();
    }
    // Every block in key order, in one pass: the T records' games are summed; the S blocks
    // are only read, which leaves them in the store's cache for the openings' queries that
    // follow (on a database not read lately, reading them in order costs far less than the
    // queries' scattered reads would).
    let mut failed = None;
    let mut seen = 0usize;
    let ids: Vec<u32> = runs.iter().map(|r| r.id).collect();
    blocks.scan(&[], None, |k, v| {
        let run = k
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        if k.get(4) == Some(&b'T') && run.is_some_and(|r| ids.contains(&r)) {
            seen += 1;
            match run::decode_t_block(v) {
                Ok(recs) => out.kinds.tree += recs.iter().map(|r| r.n_postings).sum::<u64>(),
                Err(e) => {
                    failed = Some(Error::from(e));
                    return false;
                }
            }
        }
        true
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    if seen != t_blocks {
        return Err(Error::Corrupt(format!(
            "the runs list {t_blocks} T blocks, the index holds {seen}"
        )));
    }
    let mut sketch = Hll::default();
    let sketches = read.table(run::SKETCHES)?;
    for r in &runs {
        if let Some(data) = sketches.get(&run::run_key(r.id))? {
            sketch.merge(&Hll::decode(&data)?);
        }
    }
    out.distinct = sketch.estimate();
    Ok(out)
}
