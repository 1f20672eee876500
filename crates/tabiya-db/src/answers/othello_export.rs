//! `Database::export_wthor`: an Othello database back as WTHOR files.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use tabiya_othello::wthor::{self, BoardSize, GameFile, GameRecord, Header, NameFile, NameKind};

use crate::{Database, Error, Kind, Result};

/// A file written by [`Database::export_wthor`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedFile {
    pub file: String,
    /// Games (`.wtb`) or names (`.jou`, `.trn`).
    pub records: u64,
    pub bytes: u64,
}

/// What [`Database::export_wthor`] wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WthorExport {
    pub files: Vec<ExportedFile>,
    pub games: u64,
    pub players: u64,
    pub tournaments: u64,
}

fn default_header(year: u16) -> Header {
    Header {
        created_century: 0,
        created_year: 0,
        created_month: 0,
        created_day: 0,
        games: 0,
        records: 0,
        year,
        board_size: 8,
        game_type: 0,
        depth: 24,
        reserved: 0,
    }
}

impl Database {
    /// Writes the database back as WTHOR files in `dir`: `WTH_<year>.wtb` for every year (games
    /// in id order, the header of the imported file of that year with the game count
    /// updated), `WTHOR.JOU` and `WTHOR.TRN` (the stored names, with the header of the newest
    /// imported names file and the count updated). A database imported from a set of WTHOR
    /// files writes them back byte for byte. A year without a stored header (not imported
    /// from a file) gets a header dated 0000-00-00, board size 8, depth 24.
    pub fn export_wthor(&self, dir: &Path) -> Result<WthorExport> {
        if self.kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is a {} database: only an Othello database exports WTHOR files",
                self.dir().display(),
                self.kind().as_str()
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?;
        let snap = self.snapshot()?;
        let names = snap.wthor_names()?;
        let mut years: BTreeMap<u16, Vec<GameRecord>> = BTreeMap::new();
        for id in snap.all_game_ids()? {
            let g = snap
                .othello_game(id)?
                .ok_or_else(|| Error::Corrupt(format!("missing game {id}")))?;
            years.entry(g.year).or_default().push(g.to_record());
        }
        let io =
            |p: &Path, e: wthor::WthorError| Error::Input(format!("writing {}: {e}", p.display()));
        let mut out = WthorExport {
            files: Vec::new(),
            games: 0,
            players: names.players.len() as u64,
            tournaments: names.tournaments.len() as u64,
        };
        for (year, games) in years {
            let mut header = names
                .year_headers
                .get(&year)
                .copied()
                .unwrap_or_else(|| default_header(year));
            header.games = games.len() as u32;
            header.year = year;
            let path = dir.join(format!("WTH_{year}.wtb"));
            let n = games.len() as u64;
            let file = GameFile {
                path: path.clone(),
                header,
                board: BoardSize::Eight,
                games,
                trailing: Vec::new(),
                problems: Vec::new(),
            };
            let bytes = file.to_bytes();
            std::fs::write(&path, &bytes).map_err(|e| {
                io(
                    &path,
                    wthor::WthorError::Io {
                        file: path.clone(),
                        source: e,
                    },
                )
            })?;
            out.games += n;
            out.files.push(ExportedFile {
                file: path.display().to_string(),
                records: n,
                bytes: bytes.len() as u64,
            });
        }
        for (kind, file_name, header) in [
            (NameKind::Players, "WTHOR.JOU", names.jou_header),
            (NameKind::Tournaments, "WTHOR.TRN", names.trn_header),
        ] {
            let list = names.list(kind).to_vec();
            let mut header = header.unwrap_or_else(|| default_header(0));
            header.records = u16::try_from(list.len()).map_err(|_| {
                Error::Usage(format!(
                    "{} names do not fit a WTHOR names file (65,535 at most)",
                    list.len()
                ))
            })?;
            let path = dir.join(file_name);
            let n = list.len() as u64;
            let file = NameFile {
                path: path.clone(),
                kind,
                header,
                names: list,
                trailing: Vec::new(),
                problems: Vec::new(),
            };
            let bytes = file.to_bytes();
            std::fs::write(&path, &bytes).map_err(|e| {
                io(
                    &path,
                    wthor::WthorError::Io {
                        file: path.clone(),
                        source: e,
                    },
                )
            })?;
            out.files.push(ExportedFile {
                file: path.display().to_string(),
                records: n,
                bytes: bytes.len() as u64,
            });
        }
        Ok(out)
    }
}
