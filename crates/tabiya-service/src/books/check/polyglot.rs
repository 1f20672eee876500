//! A Polyglot book checked on its raw bytes: size, order (every entry out of order, not just
//! the first), then on a sorted copy illegal moves and entries unreachable from the start.

use std::path::Path;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};
use tabiya_books::polyglot::{self, Entry, EntrySource, PolyglotBook};

use crate::error::{Context, ErrorKind, Result};

/// Out-of-order entries listed one by one (the rest are counted).
const MAX_UNSORTED_LISTED: u64 = 20;
/// Illegal moves listed.
const MAX_ILLEGAL_LISTED: usize = 100;

/// What checking a Polyglot file found. Field order: alphabetical, as the
/// `serde_json::Value` the command printed before had them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolyglotCheck {
    /// The book, as messages name it.
    #[serde(skip)]
    pub name: String,
    /// Problems that fail the check: a truncated file, entries out of order, illegal moves.
    #[serde(skip)]
    pub fatal: u64,
    /// Distinct keys of the sorted entries.
    #[serde(skip)]
    pub distinct_keys: u64,
    pub clean: bool,
    pub entries: u64,
    pub format: &'static str,
    pub illegal_moves: u64,
    /// A truncated end, the first entries out of order, the first illegal moves.
    pub problems: Vec<String>,
    pub reachable_entries: u64,
    pub reachable_positions: u64,
    pub truncated_bytes: usize,
    pub unreachable_entries: u64,
    pub unsorted_entries: u64,
    pub zero_weight_entries: u64,
}

pub(super) fn check(path: &Path) -> Result<PolyglotCheck> {
    let name = path.display().to_string();
    let bytes = crate::inputs::read_whole(path, crate::inputs::Whole::PolyglotBook)?;
    let mut problems: Vec<String> = Vec::new();
    let trailing = bytes.len() % polyglot::ENTRY_SIZE;
    if trailing != 0 {
        problems.push(format!(
            "{name}: truncated: {} bytes is not a multiple of 16; the last {trailing} byte(s) from offset {} are not a whole entry",
            bytes.len(),
            bytes.len() - trailing
        ));
    }
    let entries: Vec<Entry> = bytes
        .chunks_exact(polyglot::ENTRY_SIZE)
        .map(|c| Entry::from_bytes(c.try_into().expect("16 bytes")))
        .collect();
    let mut unsorted = 0u64;
    for (i, w) in entries.windows(2).enumerate() {
        if w[1].key < w[0].key {
            unsorted += 1;
            if unsorted <= MAX_UNSORTED_LISTED {
                problems.push(format!(
                    "{name}: byte offset {}: key {:016x} is smaller than the key {:016x} before it (binary search will miss entries)",
                    (i + 1) * polyglot::ENTRY_SIZE,
                    w[1].key,
                    w[0].key
                ));
            }
        }
    }
    let mut sorted = entries;
    sorted.sort_by_key(|e| e.key);
    let book = PolyglotBook::from_entries(&name, sorted)
        .context(ErrorKind::BadInput, || "sorting the entries".to_string())?;
    let info = polyglot::info(&book);
    // Illegal moves of reachable positions, with where they are.
    let mut illegal: Vec<String> = Vec::new();
    let reachable: Vec<Chess> = polyglot::read_positions(&book, &[Chess::default()])
        .map(|p| p.position)
        .collect();
    for pos in &reachable {
        for pe in book.probe_entries(pos) {
            if let Err(e) = &pe.mv {
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                illegal.push(format!("{name}: position {fen}: {e}"));
            }
        }
    }
    let fatal = u64::from(trailing != 0) + unsorted + info.illegal_moves;
    problems.extend(illegal.into_iter().take(MAX_ILLEGAL_LISTED));
    Ok(PolyglotCheck {
        name,
        fatal,
        distinct_keys: info.distinct_keys,
        clean: fatal == 0,
        entries: info.entries,
        format: "polyglot",
        illegal_moves: info.illegal_moves,
        problems,
        reachable_entries: info.reachable_entries,
        reachable_positions: info.reachable_positions,
        truncated_bytes: trailing,
        unreachable_entries: info.unreachable_entries,
        unsorted_entries: unsorted,
        zero_weight_entries: info.zero_weight_entries,
    })
}
