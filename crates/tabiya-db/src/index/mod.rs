//! The position index: immutable sorted runs of two kinds of entries.
//!
//! A *run* is the index of a set of games (one import batch, or several batches merged).
//! Every counted position of every game of the run is in exactly one of two places:
//!
//! - a **T record** (tree): positions reached by many games (at least [`PROMOTE_AT`] in the
//!   run). Keyed by the full 128-bit position key, it holds the statistics of every move
//!   played there and the list of games (postings) with the move each played.
//! - an **S entry** (single): positions reached by few games are kept as one entry per game:
//!   the key's top 32 bits and the game id. A query replays those games and checks the full
//!   key, so a 32-bit prefix can never give a wrong answer; it only costs a replay.
//!
//! This keeps the rare positions — the long tails of games, most of the index — at about four
//! bytes each while the opening tree answers from precomputed statistics. Runs are written in
//! blocks of about 4 KB, sorted by key, with a directory of each block's first key, all inside
//! store transactions. Queries combine the answers of all runs; merging runs promotes
//! positions whose combined count reaches the threshold.
//!
//! - [`record`]: T records, S entries and their statistics; [`build`]: a run from a segment's
//!   occurrences; [`encoder`], [`sblock`], [`dir`]: a run's blocks and directory;
//!   [`writer`]: writing a run; [`merge`]: merging runs; [`sorted`]: occurrences with whole
//!   keys, sorted on disk (what a merge without replays reads); [`find`]: the games of a
//!   position.

pub(crate) mod amend;
pub mod build;
pub mod dir;
pub mod encoder;
pub mod find;
pub mod merge;
pub mod record;
pub(crate) mod restat;
pub mod sblock;
pub mod sorted;
pub mod successors;
pub mod writer;

#[cfg(test)]
mod tests;

pub use build::build_sketched;
pub use dir::RunDir;
pub use record::{Occ, decode_external_postings, decode_t_block, find_in_t_block, top_order};
pub use sblock::{decode_s_block, find_in_s_block};
#[cfg(test)]
pub use {build::build, sblock::encode_s_block};

use crate::{Error, Result};

/// Positions reached by at least this many games of a run get a T record.
pub const PROMOTE_AT: usize = 8;

/// Postings lists up to this length are stored inside the T record.
const INLINE_POSTINGS: usize = 64;

/// Top games kept in a T record (when it has more games than this): as many as `/masters`
/// gives. Records written before 2026-11-30 keep 8.
pub const TOP_GAMES: usize = 15;

/// Newest games kept in a T record beside its best ones: as many as `/lichess` gives.
pub const RECENT_GAMES: usize = 4;

/// Largest encoded size of a block: with its key and the store's page header it still fits
/// one 4 KiB page (a value one byte over would take two).
const BLOCK_BYTES: usize = 3968;

pub const RUNS: &str = "runs";

pub const BLOCKS: &str = "blocks";

pub const POSTINGS: &str = "postings";

pub const SKETCHES: &str = "sketches";

pub fn prefix(key: u128) -> u32 {
    (key >> 96) as u32
}

pub fn run_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

pub fn block_key(run: u32, kind: u8, idx: u32) -> [u8; 9] {
    let mut k = [0u8; 9];
    k[..4].copy_from_slice(&run.to_be_bytes());
    k[4] = kind;
    k[5..].copy_from_slice(&idx.to_be_bytes());
    k
}

pub fn postings_key(run: u32, key: u128) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..4].copy_from_slice(&run.to_be_bytes());
    k[4..].copy_from_slice(&key.to_be_bytes());
    k
}

/// The `meta` entry that every write of the runs table changes, in the same transaction:
/// what lets a process keep the runs' directories decoded between queries
/// (`Database::runs_of`) instead of reading megabytes of them for each.
pub(crate) const RUNS_VERSION: &str = "runs_version";

/// Writes the directory of run `id` and marks the runs changed.
pub(crate) fn put_run(w: &tabiya_store::WriteTx, id: u32, dir: &RunDir) -> Result<()> {
    w.with_table(RUNS, |t| t.put(&run_key(id), &dir.encode()))?;
    runs_changed(w)
}

/// Marks the runs changed (see [`RUNS_VERSION`]); called by every writer of [`RUNS`].
pub(crate) fn runs_changed(w: &tabiya_store::WriteTx) -> Result<()> {
    w.with_table(crate::schema::META, |t| {
        let now = t
            .get(RUNS_VERSION.as_bytes())?
            .and_then(|v| String::from_utf8(v).ok()?.parse::<u64>().ok())
            .unwrap_or(0);
        t.put(RUNS_VERSION.as_bytes(), (now + 1).to_string().as_bytes())
    })?;
    Ok(())
}

/// The index runs of a database, oldest first.
pub(crate) fn load_runs(read: &tabiya_store::ReadTx) -> Result<Vec<RunDir>> {
    let t = read.table(RUNS)?;
    let mut runs = Vec::new();
    let mut err = None;
    t.scan(&[], None, |k, v| {
        let Ok(id) = <[u8; 4]>::try_from(k) else {
            err = Some(Error::Corrupt("run key".into()));
            return false;
        };
        match RunDir::decode(u32::from_be_bytes(id), v) {
            Ok(d) => runs.push(d),
            Err(e) => {
                err = Some(e.into());
                return false;
            }
        }
        true
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(runs),
    }
}
