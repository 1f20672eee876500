//! The demo: the bundled sample imported into a database, and what the explorer says of a
//! few well-known positions.

use std::path::Path;

use serde::Serialize;

use crate::database::Kind;
use crate::error::Result;
use crate::explore::{self, ChessAnswer};
use crate::import::{self, ImportProgress, ImportReport, ImportRequest, ImportSummary, Source};
use crate::position::ChessPosition;

/// The bundled sample: 2,500 TCEC games (CC BY-SA 3.0, see data/sample/SOURCE.md),
/// zstd-compressed PGN.
pub const SAMPLE: &[u8] = include_bytes!("../../../data/sample/tcec-sample.pgn.zst");

/// The positions the demo shows: a label and the moves from the start (UCI).
pub const POSITIONS: [(&str, &str); 6] = [
    ("the starting position", ""),
    ("1. e4", "e2e4"),
    ("the Sicilian Defence, 1. e4 c5", "e2e4,c7c5"),
    (
        "the Ruy Lopez, 1. e4 e5 2. Nf3 Nc6 3. Bb5",
        "e2e4,e7e5,g1f3,b8c6,f1b5",
    ),
    ("the Queen's Gambit, 1. d4 d5 2. c4", "d2d4,d7d5,c2c4"),
    (
        "1. Nf3 d5 2. d4 — by transposition the same position as 1. d4 d5 2. Nf3",
        "g1f3,d7d5,d2d4",
    ),
];

/// What the explorer says of one demo position.
#[derive(Debug, Clone, Serialize)]
pub struct DemoPosition {
    pub position: &'static str,
    pub play: &'static str,
    pub explorer: ChessAnswer,
}

/// What the demo did and found.
#[derive(Debug, Clone, Serialize)]
pub struct Demo {
    pub import: ImportSummary,
    pub positions: Vec<DemoPosition>,
}

/// Imports the sample into the database in `dir` (its games already there are skipped as
/// duplicates).
pub fn import_sample(dir: &Path) -> Result<ImportSummary> {
    let source = Source::Reader {
        name: "bundled sample (2,500 TCEC games, CC BY-SA 3.0)".to_string(),
        size: Some(SAMPLE.len() as u64),
        reader: Box::new(SAMPLE),
    };
    let report = import::import_sources(
        dir,
        Kind::Chess,
        vec![source],
        &ImportRequest::default(),
        &ImportProgress::default(),
    )?;
    match report {
        ImportReport::Chess(s) => Ok(s),
        ImportReport::Othello(w) => Ok(w.summary),
    }
}

/// Imports the sample into `dir` and explores the demo positions, `top` best games each.
pub fn run(dir: &Path, top: usize) -> Result<Demo> {
    let import = import_sample(dir)?;
    let db = crate::database::Db::open(dir)?;
    let mut positions = Vec::new();
    for (label, play) in POSITIONS {
        let at = ChessPosition::resolve(None, (!play.is_empty()).then_some(play))?;
        positions.push(DemoPosition {
            position: label,
            play,
            explorer: explore::chess(&db, &at, top, &[])?,
        });
    }
    Ok(Demo { import, positions })
}
