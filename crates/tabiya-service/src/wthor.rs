//! WTHOR files on their own: check them, list their games as CSV rows, show their headers,
//! name the opening of a line.

use std::path::{Path, PathBuf};

use serde::Serialize;
pub use tabiya_othello::check::{CheckOptions, CheckReport, FileReport, Problem};
pub use tabiya_othello::csv::{
    CsvRow, Export as CsvExport, write_header as write_csv_header, write_row as write_csv_row,
};
pub use tabiya_othello::wthor::Header;
use tabiya_othello::wthor::{BoardSize, GameFile, NameFile, NameKind};

use crate::error::{Error, Result};

/// Replays every game of the files: illegal moves, unfinished games, wrong scores, unknown
/// ids. A file that cannot be read is reported in its place.
pub fn check(files: &[PathBuf], options: &CheckOptions) -> CheckReport {
    tabiya_othello::check(files, options)
}

/// What a problem found by [`check`] is, in words.
pub fn describe(p: &Problem) -> String {
    match p {
        Problem::BadMoveByte { message, .. } => message.clone(),
        Problem::IllegalMove {
            mv,
            square,
            side,
            reason,
            ..
        } => {
            format!("illegal move {mv} {square} ({side} to move): {reason}")
        }
        Problem::Unfinished {
            moves,
            discs,
            stored_black_score,
        } => format!(
            "unfinished after {moves} moves: board {}-{}, stored black score {stored_black_score}",
            discs.0, discs.1
        ),
        Problem::ScoreMismatch { stored, board, .. } => {
            format!("stored black score {stored}, board gives {board}")
        }
        Problem::UnknownId { field, id, known } => format!(
            "unknown {field} id {id} (names 0–{})",
            known.saturating_sub(1)
        ),
    }
}

/// The games of the files as rows (the seed converter's columns, names resolved), with
/// warnings about names that could not be read.
pub fn csv(files: &[PathBuf], options: &CheckOptions) -> Result<CsvExport> {
    tabiya_othello::csv::export(files, options).map_err(|e| Error::bad_input(e.to_string()))
}

/// The header fields and record counts of one WTHOR file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    pub file: String,
    pub kind: &'static str,
    pub header: Header,
    pub created: String,
    pub records: usize,
    pub trailing_bytes: usize,
    pub problems: Vec<String>,
}

/// The headers of WTHOR files (`.wtb`, `.wtd`, `.jou`, `.trn`, told by the extension).
pub fn info(files: &[PathBuf]) -> Result<Vec<FileInfo>> {
    files.iter().map(|p| info_of(p)).collect()
}

fn info_of(path: &Path) -> Result<FileInfo> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let bad = |e: tabiya_othello::wthor::WthorError| Error::bad_input(e.to_string());
    Ok(match ext.as_str() {
        "jou" | "trn" => {
            let kind = if ext == "jou" {
                NameKind::Players
            } else {
                NameKind::Tournaments
            };
            let f = NameFile::read(path, kind).map_err(bad)?;
            FileInfo {
                file: path.display().to_string(),
                kind: if ext == "jou" {
                    "players"
                } else {
                    "tournaments"
                },
                header: f.header,
                created: f.header.created(),
                records: f.names.len(),
                trailing_bytes: f.trailing.len(),
                problems: f.problems.iter().map(|p| p.to_string()).collect(),
            }
        }
        _ => {
            let f = GameFile::read(path).map_err(bad)?;
            FileInfo {
                file: path.display().to_string(),
                kind: match f.board {
                    BoardSize::Eight => "games 8x8",
                    BoardSize::Ten => "games 10x10",
                },
                header: f.header,
                created: f.header.created(),
                records: f.games.len(),
                trailing_bytes: f.trailing.len(),
                problems: f.problems.iter().map(|p| p.to_string()).collect(),
            }
        }
    })
}

/// The opening of a line of Othello moves: its deepest named position.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningAnswer {
    pub name: Option<String>,
    pub aliases: Vec<String>,
    pub moves_to_name: Option<usize>,
    pub named_line: Option<String>,
}

/// Names the opening of a line like `f5d6c3d3c4` (any orientation).
pub fn opening(moves: &str) -> Result<OpeningAnswer> {
    let moves =
        tabiya_othello::parse_transcript(moves).map_err(|e| Error::bad_request(e.to_string()))?;
    let found = tabiya_othello::deepest_opening(&moves);
    Ok(OpeningAnswer {
        name: found.map(|(_, o)| o.name.to_string()),
        aliases: found
            .map(|(_, o)| o.aliases.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        moves_to_name: found.map(|(n, _)| n),
        named_line: found.map(|(_, o)| tabiya_othello::format_transcript(&o.moves)),
    })
}
