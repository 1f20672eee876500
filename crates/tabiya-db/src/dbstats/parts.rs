//! What each part of the file costs on disk: its tables' pages, entries and stored bytes.

use serde::Serialize;

use crate::facts::FACTS;
use crate::index::{self as run, BLOCKS, POSTINGS, RUNS};
use crate::names::NAMES;
use crate::{Database, GAMES, META, Result};

#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    pub name: String,
    pub tables: Vec<String>,
    pub entries: u64,
    /// Bytes of pages the part occupies.
    pub bytes: u64,
    /// Bytes of keys and values stored in them.
    pub stored_bytes: u64,
    pub bytes_per_game: f64,
}

/// The parts of the file, for `games` games.
pub fn parts(db: &Database, games: u64) -> Result<Vec<Part>> {
    let parts_def: [(&str, &[&str]); 10] = [
        ("games", &[GAMES]),
        ("facts", &[FACTS, crate::players::PLAYERS]),
        ("names", &[NAMES, crate::othello::WTHOR]),
        ("index", &[RUNS, BLOCKS, POSTINGS, run::SKETCHES]),
        ("meta", &[META]),
        ("evals", &[crate::schema::EVALS]),
        (
            "cards",
            &[crate::CARDS, crate::CARD_KEYS, crate::CARD_REVIEWS],
        ),
        ("gamesets", &[crate::GAMESETS, crate::GAMESET_IDS]),
        ("structures", &[crate::shapes::SHAPES]),
        ("shape statistics", &[crate::shapes::stats::SHAPE_STATS]),
    ];
    let mut parts = Vec::new();
    for (name, tables) in parts_def {
        let sizes = db.store.table_sizes(tables)?;
        let bytes: u64 = sizes.iter().map(|(_, s)| s.allocated_bytes).sum();
        let entries: u64 = sizes.iter().map(|(_, s)| s.entries).sum();
        // Evaluations, flashcards, gamesets and the structure index are shown once there
        // are some.
        if matches!(
            name,
            "evals" | "cards" | "gamesets" | "structures" | "shape statistics"
        ) && entries == 0
        {
            continue;
        }
        let stored_bytes: u64 = sizes.iter().map(|(_, s)| s.stored_bytes).sum();
        parts.push(Part {
            name: name.to_string(),
            tables: tables.iter().map(|t| t.to_string()).collect(),
            entries,
            bytes,
            stored_bytes,
            bytes_per_game: per_game(bytes, games),
        });
    }
    Ok(parts)
}

pub fn per_game(bytes: u64, games: u64) -> f64 {
    if games > 0 {
        bytes as f64 / games as f64
    } else {
        0.0
    }
}
