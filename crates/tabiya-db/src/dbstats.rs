//! The database-statistics view (CDB's "File → Database Statistics"): what is stored and
//! what it costs on disk.

use serde::Serialize;

use crate::facts::FACTS;
use crate::game::Dict;
use crate::hll::Hll;
use crate::index::{self as run, BLOCKS, POSTINGS, RUNS, load_runs};
use crate::names::{NAMES, StoreNames};
use crate::{Database, Error, GAMES, META, Result};

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DbStats {
    pub kind: String,
    pub games: u64,
    /// Positions counted (once per game at their first occurrence).
    pub positions: u64,
    /// Distinct positions, estimated (HyperLogLog, standard error 0.8 %).
    pub distinct_positions: u64,
    /// Positions with a precomputed statistics record (the opening tree).
    pub tree_positions: u64,
    pub promote_at: usize,
    pub runs: usize,
    pub players: u64,
    pub events: u64,
    pub sites: u64,
    pub file_bytes: u64,
    pub bytes_per_game: f64,
    pub parts: Vec<Part>,
}

pub fn collect(db: &Database) -> Result<DbStats> {
    let read = db.answering_read()?;
    let runs = load_runs(&read)?;
    let games = read.table(GAMES)?.len()?;
    // Positions counted: T records' games plus S entries.
    let blocks = read.table(BLOCKS)?;
    let mut positions = 0u64;
    let mut tree = 0u64;
    for r in &runs {
        positions += r.s_entries + r.implicit;
        tree += r.t_records;
        for b in 0..r.t_first.len() as u32 {
            let data = blocks
                .get(&run::block_key(r.id, b'T', b))?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {}/T/{b}", r.id)))?;
            for rec in run::decode_t_block(&data)? {
                positions += rec.n_postings;
            }
        }
    }
    let mut sketch = Hll::default();
    let sketches = read.table(run::SKETCHES)?;
    for r in &runs {
        if let Some(data) = sketches.get(&run::run_key(r.id))? {
            sketch.merge(&Hll::decode(&data)?);
        }
    }
    let distinct = sketch.estimate();
    let names = StoreNames::new(&read)?;
    let parts_def: [(&str, &[&str]); 7] = [
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
    ];
    let mut parts = Vec::new();
    for (name, tables) in parts_def {
        let sizes = db.store.table_sizes(tables)?;
        let bytes: u64 = sizes.iter().map(|(_, s)| s.allocated_bytes).sum();
        let entries: u64 = sizes.iter().map(|(_, s)| s.entries).sum();
        // Evaluations and flashcards are shown once there are some.
        if (name == "evals" || name == "cards") && entries == 0 {
            continue;
        }
        let stored_bytes: u64 = sizes.iter().map(|(_, s)| s.stored_bytes).sum();
        parts.push(Part {
            name: name.to_string(),
            tables: tables.iter().map(|t| t.to_string()).collect(),
            entries,
            bytes,
            stored_bytes,
            bytes_per_game: if games > 0 {
                bytes as f64 / games as f64
            } else {
                0.0
            },
        });
    }
    let file_bytes = db.store.file_size();
    Ok(DbStats {
        kind: db.kind().as_str().to_string(),
        games,
        positions,
        distinct_positions: distinct,
        tree_positions: tree,
        promote_at: run::PROMOTE_AT,
        runs: runs.len(),
        players: names.count(Dict::Player)?,
        events: names.count(Dict::Event)?,
        sites: names.count(Dict::Site)?,
        file_bytes,
        bytes_per_game: if games > 0 {
            file_bytes as f64 / games as f64
        } else {
            0.0
        },
        parts,
    })
}
