//! CSV export of WTHOR games, with the columns of the seed's converter plus `year`.
//!
//! The CSV is UTF-8 with a byte-order mark, one header line, records ended by CRLF, and
//! RFC 4180 quoting: a field containing a comma, a double quote, CR or LF is enclosed in double
//! quotes, and its double quotes are doubled.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::check::CheckOptions;
use crate::wthor::{GameFile, NameFile, NameKind, WthorError, find_names_file};

/// The header line's columns, in order.
pub const CSV_COLUMNS: [&str; 10] = [
    "tournamentId",
    "tournamentName",
    "blackPlayerId",
    "blackPlayerName",
    "whitePlayerId",
    "whitePlayerName",
    "blackScore",
    "blackTheoreticalScore",
    "transcript",
    "year",
];

/// The name written for an id beyond the `.jou`/`.trn` file (as in the seed's converter).
pub const UNKNOWN_NAME: &str = "?";

/// One exported game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CsvRow {
    /// Tournament id.
    pub tournament_id: u16,
    /// Tournament name ([`UNKNOWN_NAME`] if the id is unknown).
    pub tournament_name: String,
    /// Black player id.
    pub black_player_id: u16,
    /// Black player name.
    pub black_player_name: String,
    /// White player id.
    pub white_player_id: u16,
    /// White player name.
    pub white_player_name: String,
    /// Stored black score.
    pub black_score: u8,
    /// Stored theoretical black score.
    pub black_theoretical_score: u8,
    /// The moves, `f5d6c3…` (on 10×10: columns a–j, rows 1–10, e.g. `j10`). Ends before the
    /// first undecodable byte.
    pub transcript: String,
    /// Year of the games (file header).
    pub year: u16,
}

/// Quotes a field for RFC 4180 when needed.
pub fn quote_field(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}

/// Writes the byte-order mark and the header line.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    out.write_all("\u{feff}".as_bytes())?;
    out.write_all(CSV_COLUMNS.join(",").as_bytes())?;
    out.write_all(b"\r\n")
}

/// Writes one record.
pub fn write_row(out: &mut impl Write, row: &CsvRow) -> io::Result<()> {
    write!(
        out,
        "{},{},{},{},{},{},{},{},{},{}\r\n",
        row.tournament_id,
        quote_field(&row.tournament_name),
        row.black_player_id,
        quote_field(&row.black_player_name),
        row.white_player_id,
        quote_field(&row.white_player_name),
        row.black_score,
        row.black_theoretical_score,
        quote_field(&row.transcript),
        row.year
    )
}

/// Rows of game files with names resolved, and warnings (bad move bytes, read problems).
#[derive(Debug, Default)]
pub struct Export {
    /// The rows, file by file, game by game.
    pub rows: Vec<CsvRow>,
    /// Problems that did not stop the export, each naming file, game and offset.
    pub warnings: Vec<String>,
}

fn load_names(
    explicit: &Option<PathBuf>,
    game_file: &Path,
    kind: NameKind,
) -> Result<NameFile, WthorError> {
    let path = match explicit {
        Some(p) => p.clone(),
        None => find_names_file(game_file.parent().unwrap_or(Path::new("")), kind)?,
    };
    NameFile::read(path, kind)
}

/// Reads game files (8×8 or 10×10) and their name files (beside each game file, or the
/// explicit ones in `options`) into CSV rows. Fails when a file cannot be read.
pub fn export<P: AsRef<Path>>(files: &[P], options: &CheckOptions) -> Result<Export, WthorError> {
    let mut export = Export::default();
    for path in files {
        let path = path.as_ref();
        let file = GameFile::read(path)?;
        let players = load_names(&options.jou, path, NameKind::Players)?;
        let tournaments = load_names(&options.trn, path, NameKind::Tournaments)?;
        for p in file
            .problems
            .iter()
            .chain(&players.problems)
            .chain(&tournaments.problems)
        {
            export.warnings.push(p.to_string());
        }
        let players: Vec<String> = players.names.iter().map(|n| n.text()).collect();
        let tournaments: Vec<String> = tournaments.names.iter().map(|n| n.text()).collect();
        let name = |names: &[String], id: u16| {
            names
                .get(id as usize)
                .cloned()
                .unwrap_or_else(|| UNKNOWN_NAME.into())
        };
        for (i, g) in file.games.iter().enumerate() {
            let transcript = match g.coords_in(path, i, file.record_offset(i)) {
                Ok(coords) => coords.iter().map(|c| c.to_string()).collect(),
                Err(e) => {
                    export.warnings.push(e.to_string());
                    // The decodable prefix: bytes up to the first bad one.
                    g.move_bytes()
                        .iter()
                        .map_while(|&b| crate::wthor::Coord::from_byte(b, file.board))
                        .map(|c| c.to_string())
                        .collect()
                }
            };
            export.rows.push(CsvRow {
                tournament_id: g.tournament,
                tournament_name: name(&tournaments, g.tournament),
                black_player_id: g.black,
                black_player_name: name(&players, g.black),
                white_player_id: g.white,
                white_player_name: name(&players, g.white),
                black_score: g.black_score,
                black_theoretical_score: g.theoretical_score,
                transcript,
                year: file.header.year,
            });
        }
    }
    Ok(export)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote_field("abc"), "abc");
        assert_eq!(quote_field("a,b"), "\"a,b\"");
        assert_eq!(quote_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote_field("a\nb"), "\"a\nb\"");
    }
}
