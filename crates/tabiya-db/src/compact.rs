//! The index runs of a database merged: size-tiered after an import ([`compact`]), or all
//! into one ([`compact_all`]). Each merge holds the database's lock of changes (no edit
//! between reading the parts and replacing them) and counts as one of its commits; the
//! merge itself (`index::merge`) reads and writes through the store alone.

use crate::index::merge::{self, assemble};
use crate::index::sorted::OccStream;
use crate::index::{RunDir, load_runs};
use crate::{Database, Result};

/// Runs of at most this many games always merge with their newer neighbours: they are cheap
/// to merge, and every run costs each query a few block reads.
const SMALL_RUN: u64 = 100_000;

#[cfg(test)]
thread_local! {
    /// Set by tests that want an import's runs left unmerged.
    pub(crate) static HOLD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Merges runs size-tiered until no merge is due. Returns the number of merges.
pub fn compact(db: &Database) -> Result<u32> {
    #[cfg(test)]
    if HOLD.get() {
        return Ok(0);
    }
    let mut merges = 0;
    loop {
        let runs = {
            let read = db.store.read()?;
            load_runs(&read)?
        };
        let n = runs.len();
        if n < 2 {
            return Ok(merges);
        }
        let mut k = 1;
        let mut sum = runs[n - 1].games.max(1);
        while k < n && (runs[n - 1 - k].games <= 2 * sum || runs[n - 1 - k].games <= SMALL_RUN) {
            sum += runs[n - 1 - k].games;
            k += 1;
        }
        if k < 2 {
            return Ok(merges);
        }
        merge_runs(db, &runs[n - k..])?;
        merges += 1;
    }
}

/// Merges the newest `k` runs into one: an import's own segments, whatever their sizes
/// (the size-tiered rule of [`compact`] looks from the newest run back, so a short last
/// segment would leave all the others unmerged: at twenty million games, 16 runs). Returns
/// the number of merges (0 or 1).
pub(crate) fn merge_newest(db: &Database, k: usize) -> Result<u32> {
    #[cfg(test)]
    if HOLD.get() {
        return Ok(0);
    }
    merge_tail(db, |_| k)
}

/// Merges every run into one (for benchmarks).
pub fn compact_all(db: &Database) -> Result<()> {
    merge_tail(db, |n| n).map(drop)
}

/// Merges the newest `k(n)` of the `n` runs into one, when that is two of them or more and
/// no more than there are. Returns the number of merges (0 or 1).
fn merge_tail(db: &Database, k: impl Fn(usize) -> usize) -> Result<u32> {
    let runs = {
        let read = db.store.read()?;
        load_runs(&read)?
    };
    let n = runs.len();
    let k = k(n);
    if k < 2 || k > n {
        return Ok(0);
    }
    merge_runs(db, &runs[n - k..])?;
    Ok(1)
}

/// [`merge::merge_runs`] on the database, under its lock of changes.
pub(crate) fn merge_runs(db: &Database, runs: &[RunDir]) -> Result<()> {
    // No edit between reading the parts and replacing them.
    let _lock = db.lock_changes();
    merge::merge_runs(&db.store, db.kind(), db.max_ply(), runs)?;
    db.committed();
    Ok(())
}

/// [`merge::merge_sorted`] on the database, under its lock of changes.
pub(crate) fn merge_sorted(
    db: &Database,
    runs: &[RunDir],
    games: &assemble::Games<'_>,
    open: &dyn Fn() -> Result<OccStream<'static>>,
) -> Result<()> {
    let _lock = db.lock_changes();
    merge::merge_sorted(&db.store, db.kind(), db.max_ply(), runs, games, open)?;
    db.committed();
    Ok(())
}
