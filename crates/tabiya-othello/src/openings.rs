//! Classic Othello opening names, matched by canonical position.
//!
//! The table is `data/openings.txt` in this crate (compiled in): one named line per row, with
//! its source. Each line is replayed from the start position; the position it reaches is
//! stored under its canonical [`PositionKey`], so the name is found whatever the move order
//! (transpositions) and whatever the orientation of the board. A position named by two lines
//! (two sources) keeps the first name; the later names become aliases.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::board::Board;
use crate::replay::Replay;
use crate::square::{Square, parse_transcript};
use crate::symmetry::{PositionKey, canonicalize};

/// The opening table as compiled in.
pub const OPENINGS_TXT: &str = include_str!("../data/openings.txt");

/// A named opening position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The main name (`Tiger`).
    pub name: &'static str,
    /// Other names (`Peasant` for `Snake`).
    pub aliases: Vec<&'static str>,
    /// The line that reaches the position, from the start, written from f5.
    pub moves: Vec<Square>,
    /// Source tag from the table (`G` Gatliff's catalogue, `J` Japanese joseki names; see the
    /// table's header).
    pub source: &'static str,
    /// Canonical key of the position reached.
    pub key: PositionKey,
}

struct Table {
    openings: Vec<Opening>,
    by_key: HashMap<PositionKey, usize>,
    errors: Vec<String>,
}

fn parse_table(text: &'static str) -> Table {
    let mut openings = Vec::new();
    let mut by_key = HashMap::new();
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&'static str> = line.split('\t').collect();
        if fields.len() != 3 {
            errors.push(format!(
                "openings.txt line {}: expected 3 tab-separated fields",
                n + 1
            ));
            continue;
        }
        let moves = match parse_transcript(fields[0]) {
            Ok(m) => m,
            Err(e) => {
                errors.push(format!("openings.txt line {}: {e}", n + 1));
                continue;
            }
        };
        let mut replay = Replay::new(&moves).without_canonical();
        if let Some(Err(e)) = replay.by_ref().find(|r| r.is_err()) {
            errors.push(format!("openings.txt line {}: {e}", n + 1));
            continue;
        }
        let key = canonicalize(replay.board()).key;
        let mut names = fields[1].split('/');
        let name = names.next().unwrap_or_default();
        let opening = Opening {
            name,
            aliases: names.collect(),
            moves,
            source: fields[2],
            key,
        };
        if let Some(&first) = by_key.get(&key) {
            // The same position under another name (another source): an alias.
            let first: &mut Opening = &mut openings[first];
            first.aliases.push(opening.name);
            first.aliases.extend(opening.aliases);
            continue;
        }
        by_key.insert(key, openings.len());
        openings.push(opening);
    }
    Table {
        openings,
        by_key,
        errors,
    }
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse_table(OPENINGS_TXT))
}

/// All named openings, in table order.
pub fn openings() -> &'static [Opening] {
    &table().openings
}

/// Lines of the table that were skipped (bad syntax, illegal move);
/// empty for the shipped table (a test checks it).
pub fn table_errors() -> &'static [String] {
    &table().errors
}

/// The opening named for exactly this position (any orientation, any move order), if any.
pub fn opening_name(board: &Board) -> Option<&'static Opening> {
    opening_by_key(canonicalize(board).key)
}

/// The opening named for a canonical key, if any.
pub fn opening_by_key(key: PositionKey) -> Option<&'static Opening> {
    let t = table();
    t.by_key.get(&key).map(|&i| &t.openings[i])
}

/// The deepest named position on a line of moves (passes implicit): the last position along
/// the line that has a name, with the number of moves played to reach it. Stops at the first
/// illegal move.
pub fn deepest_opening(moves: &[Square]) -> Option<(usize, &'static Opening)> {
    let mut replay = Replay::new(moves).without_canonical();
    let mut best = None;
    let mut played = 0;
    while let Some(Ok(_)) = replay.next() {
        played += 1;
        if let Some(o) = opening_name(replay.board()) {
            best = Some((played, o));
        }
    }
    best
}
