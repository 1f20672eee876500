//! Importing PGN: a pipeline that keeps both cores busy and memory bounded.
//!
//! ```text
//! reader thread ──chunks──▶ parse workers ──parsed games──▶ main (in file order) ──batches──▶ writer
//!  (decompress,             (parse, check moves,            (duplicates, ids,                (segment: compress games,
//!   split games)             hash positions)                 names, stored form)              then index run, one transaction)
//! ```
//!
//! The writer gathers batches into a [`Segment`] until the index memory
//! ([`ImportOptions::index_memory`]) is full, then builds its index run and commits it with
//! its games in one store transaction, so killing the process at any instant loses at most
//! the segment not yet committed; running the same import again skips the committed games as
//! duplicates and finishes the job. An import that fits its memory is one run: nothing to
//! merge.

mod chess;
pub mod cluster;
mod load;
pub mod othello;
mod parse_chunk;
pub mod segment;
pub(crate) mod spill;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

use serde::{Deserialize, Serialize};
pub use tabiya_pgn::pipeline::{ReadProgress, Source};

pub use segment::BYTES_PER_OCCURRENCE;
pub(crate) use segment::{Batch, Segment, commit_batch_with_plies};

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Keep games equal to a stored game instead of skipping them.
    pub keep_duplicates: bool,
    /// Games per transaction (and per index run before merging), fewer if `index_memory`
    /// is full first; 0: as many as `index_memory` allows (chess; Othello imports take
    /// 50,000 then).
    pub batch_games: usize,
    /// Memory for building the index of one transaction, in bytes (about
    /// [`BYTES_PER_OCCURRENCE`] a position of a game). An import needing more is written as
    /// several runs, merged at the end.
    pub index_memory: u64,
    /// Parse threads (default: the machine's cores).
    pub workers: usize,
    /// When the import needs several segments: merge their runs from their rare
    /// occurrences spilled sorted to disk (no game replayed), rather than by the merge that
    /// replays games (the default: measured faster on this machine, see `BENCHMARKS.md`).
    pub merge_sorted: bool,
    /// Build the index of the games (false: store them alone, for a load that assembles
    /// their run from a cluster build's sorted occurrences).
    pub build_index: bool,
    /// Keep the structure index of the games (`crate::shapes`; chess): from then on the
    /// database keeps it for every import.
    pub structures: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            keep_duplicates: false,
            batch_games: 0,
            index_memory: default_index_memory(),
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            // (`TABIYA_MERGE=sorted`: the merge from spilled occurrences, for benchmarks
            // beside the one that replays.)
            merge_sorted: std::env::var("TABIYA_MERGE").is_ok_and(|v| v == "sorted"),
            build_index: true,
            structures: false,
        }
    }
}

/// Games of an Othello import's transaction when no `--batch` is given.
pub const OTHELLO_BATCH_GAMES: usize = 50_000;

/// A quarter of the memory this process may use — the machine's (`/proc/meminfo`), or its
/// control group's limit when lower (containers) — between 256 MiB and 16 GiB; 2 GiB when
/// unknown.
pub fn default_index_memory() -> u64 {
    let machine = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    });
    // cgroup v2, then v1 ("max" or a huge number when there is no limit).
    let group = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok());
    let total = match (machine, group) {
        (Some(m), Some(g)) => Some(m.min(g)),
        (m, g) => m.or(g),
    };
    total.map_or(2 << 30, |t| (t / 4).clamp(256 << 20, 16 << 30))
}

/// Live counters an interface can poll to draw a progress bar.
#[derive(Debug, Default)]
pub struct ImportProgress {
    /// Which input, and how much of it is read (its `cancel` flag stops the import early,
    /// after the current batch).
    pub reading: Arc<ReadProgress>,
    /// Games read so far (all files), whatever became of them.
    pub games: AtomicU64,
    pub imported: AtomicU64,
    /// True while an index run is built and written with its games.
    pub indexing: AtomicBool,
    /// True while the index runs are merged, at the end.
    pub merging: AtomicBool,
    /// True while the file gives its free pages back, after the import.
    pub compacting: AtomicBool,
}

/// A game that was skipped, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based line in the file (0 when the problem is with the file itself, or the file
    /// is not PGN text).
    pub line: u64,
    /// 1-based index of the game in its file (0 when the problem is with the file itself).
    pub game: u64,
    /// The game's 1-based row when the file is a table (Parquet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<u64>,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSummary {
    pub file: String,
    pub games: u64,
    pub imported: u64,
    pub duplicates: u64,
    pub skipped: u64,
    pub bytes: u64,
    /// Pieces of text that were not games at all (no tag pair, no move), skipped; not
    /// counted in `games`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_pgn: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What an import did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub files: Vec<FileSummary>,
    pub games: u64,
    pub imported: u64,
    pub duplicates: u64,
    pub skipped: u64,
    /// Pieces of text that were not games at all, skipped (see [`FileSummary::not_pgn`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_pgn: u64,
    /// Skipped games counted by reason (first words of the reason).
    pub skipped_by_reason: BTreeMap<String, u64>,
    /// Games imported with something dropped (a variation cut at an illegal move...).
    pub warnings: u64,
    pub problems: Vec<Problem>,
    /// What is worth saying of an input that is not a fault in it (a table of no rows:
    /// nothing to import, nothing lost), by file (`game` 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Problem>,
    pub seconds: f64,
    pub games_per_second: f64,
    /// Games in the database after the import.
    pub database_games: u64,
    /// Index runs this import wrote (one per transaction), and merges at its end.
    pub runs_written: u32,
    pub merges: u32,
    /// Stopped when asked (Ctrl-C: the reading's `cancel`) before the end of the input:
    /// the games read whole until then are kept, the rest not read.
    #[serde(default)]
    pub interrupted: bool,
}

pub(crate) fn reason_kind(reason: &str) -> String {
    // "move 12... Nf9 (ply 24): illegal move ..." -> "illegal move"; "unsupported variant ..." -> itself.
    let r = reason.split_once("): ").map_or(reason, |(_, r)| r);
    let words: Vec<&str> = r.split_whitespace().take(2).collect();
    words.join(" ")
}
