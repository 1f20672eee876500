//! The structure index: for every game, the material signatures and pawn structures its
//! main line passes through, found by their keys without replaying the games (what a
//! structure search reads first; see `docs/database.md`, *Structure search*).
//!
//! Each import segment writes, in its own transaction, one *shape segment*: for each kind
//! (material, pawns) the (key, game) pairs of its games, sorted and cut into rows by the
//! keys' leading bits (as many bits as keep a row near [`ROW_ENTRIES`] pairs), each pair
//! kept as a 16-bit fingerprint of the key and the game id. A query reads one row per
//! segment; a game that only shares a fingerprint costs a replay, never a wrong answer.
//! Beside the rows, each segment lists the exact material signatures it holds (so that
//! `KRP*vKRP*` is asked as the signatures it means) and the ids it covers: games outside
//! every segment (stored by an older version, or another path) are read one by one.
//!
//! A database keeps the index once asked to (`tabiya import --structures`, or `tabiya db
//! structures` for the games stored already): it costs about half the size of the games
//! and the position index together (see `BENCHMARKS.md`), more than every user wants.
//!
//! - [`keys`]: a position's material code and pawn key, and a game's distinct ones.
//! - [`rows`]: the table's rows, written and read.
//! - [`build`]: whether a database keeps the index; building it for stored games.
//! - [`squares`]: the squares each piece stood on, per game (what narrows a pattern).
//! - [`lines`]: each game's main line as from–to codes (what a search replays).
//! - [`stands`]: where each shape of a game begins, and what a search counts there.
//! - [`stats`]: statistics kept for popular shapes (what a search of one answers).
//! - [`tally`]: counting them, and patching them when games change.

pub mod build;
pub mod keys;
pub mod lines;
pub mod rows;
pub mod squares;
pub mod stands;
pub mod stats;
mod sums;
pub mod tally;

pub use build::StructuresBuilt;
pub use keys::{GameShapes, material_counts, material_key, pawns_key};
pub use rows::{ShapeSegment, read_segments, write_segment};
pub use tally::ShapeStatsCounted;

/// The table of shape segments, their rows and their material directories.
pub const SHAPES: &str = "shapes";

/// Pairs a row holds at most (about: the bits per segment are a power of two).
pub const ROW_ENTRIES: usize = 256;

/// Why an Othello database in `dir` refuses the structure index (`tabiya import
/// --structures`, `tabiya db structures`).
pub(crate) fn structures_are_for_chess(dir: &std::path::Path) -> String {
    format!(
        "{} is an Othello database: the structure index (--structures, `tabiya db structures`) is for chess",
        dir.display()
    )
}

/// A chess database made in `dir` with `files` imported keeping the structure index (what
/// the tests of the index start from).
#[cfg(test)]
pub(crate) fn imported_with_structures(
    dir: &std::path::Path,
    files: &[std::path::PathBuf],
) -> crate::Database {
    let db = crate::Database::open_or_create(dir, crate::Kind::Chess, None).unwrap();
    let opts = crate::ImportOptions {
        structures: true,
        ..crate::ImportOptions::default()
    };
    db.import(files, &opts, &crate::ImportProgress::default())
        .unwrap();
    db
}

/// The id ranges below `end` that no span (first id, one past the last; sorted by first
/// id) of a kind of segment covers.
pub fn uncovered(covered: impl IntoIterator<Item = (u32, u32)>, end: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (first, last) in covered {
        if first > at {
            out.push((at, first.min(end)));
        }
        at = at.max(last);
    }
    if at < end {
        out.push((at, end));
    }
    out.retain(|(a, b)| a < b);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranges_no_segment_covers() {
        assert_eq!(uncovered([], 10), vec![(0, 10)]);
        assert_eq!(uncovered([(0, 10)], 10), vec![]);
        assert_eq!(
            uncovered([(1, 5), (7, 9)], 12),
            vec![(0, 1), (5, 7), (9, 12)]
        );
    }
}
