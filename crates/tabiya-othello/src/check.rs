//! Validation of WTHOR game files: replays every game (passes implicit) and reports illegal
//! moves, undecodable move bytes, unfinished games, stored scores that disagree with the board,
//! and ids missing from the `.jou`/`.trn` files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::board::Color;
use crate::replay::replay_game;
use crate::wthor::{BoardSize, GameFile, NameFile, NameKind, WthorError, find_names_file};

/// Where the name files come from.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The `.jou` file for every game file; `None` = the one beside each game file.
    pub jou: Option<PathBuf>,
    /// The `.trn` file for every game file; `None` = the one beside each game file.
    pub trn: Option<PathBuf>,
}

/// What is wrong with one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Problem {
    /// A move byte names no square, or a non-zero byte follows the end of the moves. The game
    /// is not replayed.
    #[serde(rename_all = "camelCase")]
    BadMoveByte {
        /// 1-based move number.
        mv: usize,
        /// Byte offset in the file.
        offset: usize,
        /// The byte.
        byte: u8,
        /// The full message.
        message: String,
    },
    /// A move that is not legal (for the side to move, nor after an implicit pass).
    #[serde(rename_all = "camelCase")]
    IllegalMove {
        /// 1-based move number.
        mv: usize,
        /// The square, like `f5`.
        square: String,
        /// Byte offset of the move in the file.
        offset: usize,
        /// The side to move when it was tried.
        side: Color,
        /// Why it is illegal.
        reason: String,
    },
    /// The moves stop while a side can still move.
    #[serde(rename_all = "camelCase")]
    Unfinished {
        /// Moves in the record.
        moves: usize,
        /// Black and white discs on the last board.
        discs: (u8, u8),
        /// Black's stored score (adjudicated).
        stored_black_score: u8,
    },
    /// A finished game whose stored black score differs from the board's (empties to the
    /// winner).
    #[serde(rename_all = "camelCase")]
    ScoreMismatch {
        /// Stored black score.
        stored: u8,
        /// Black's score on the final board.
        board: u8,
        /// Black and white discs on the final board.
        discs: (u8, u8),
    },
    /// An id beyond the names in the `.jou`/`.trn` file.
    #[serde(rename_all = "camelCase")]
    UnknownId {
        /// `tournament`, `black` or `white`.
        field: &'static str,
        /// The id.
        id: u16,
        /// Number of names in the file.
        known: usize,
    },
}

/// One problem of one game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameProblem {
    /// 0-based index of the game in its file.
    pub game: usize,
    /// Byte offset of the game record.
    pub offset: usize,
    /// The problem.
    #[serde(flatten)]
    pub problem: Problem,
}

/// The report of one file.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// The game file.
    pub file: String,
    /// The `.jou` file used.
    pub jou: Option<String>,
    /// The `.trn` file used.
    pub trn: Option<String>,
    /// Year of the games (header).
    pub year: Option<u16>,
    /// Games read.
    pub games: usize,
    /// Games with an illegal move.
    pub illegal: usize,
    /// Games with an undecodable move byte.
    pub bad_move_bytes: usize,
    /// Games that stop before the end.
    pub unfinished: usize,
    /// Finished games with a wrong stored score.
    pub score_mismatches: usize,
    /// Games with at least one unknown id.
    pub unknown_ids: usize,
    /// Games with at least one (implicit) pass.
    pub games_with_passes: usize,
    /// Problems found while reading the files (truncation, count mismatch, name files).
    pub read_problems: Vec<String>,
    /// Set when the game file itself is damaged: cut short, or holding another number of
    /// records than its header declares (the games it holds whole are still checked).
    pub damaged: Option<String>,
    /// Set when the file could not be read or checked at all.
    pub error: Option<String>,
    /// Every problem, game by game.
    pub problems: Vec<GameProblem>,
}

/// The report over all files.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    /// Games read.
    pub games: usize,
    /// Games with an illegal move.
    pub illegal: usize,
    /// Games with an undecodable move byte.
    pub bad_move_bytes: usize,
    /// Games that stop before the end.
    pub unfinished: usize,
    /// Finished games with a wrong stored score.
    pub score_mismatches: usize,
    /// Games with at least one unknown id.
    pub unknown_ids: usize,
    /// Games with at least one pass.
    pub games_with_passes: usize,
    /// Files that could not be read or checked.
    pub unreadable_files: usize,
    /// Game files that are damaged (see [`FileReport::damaged`]).
    pub damaged_files: usize,
    /// Per file.
    pub files: Vec<FileReport>,
}

struct NameCache {
    files: HashMap<PathBuf, Result<(usize, Vec<String>), String>>,
}

impl NameCache {
    fn count(&mut self, path: &Path, kind: NameKind) -> Result<(usize, Vec<String>), String> {
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| match NameFile::read(path, kind) {
                Ok(f) => Ok((
                    f.names.len(),
                    f.problems.iter().map(|p| p.to_string()).collect(),
                )),
                Err(e) => Err(e.to_string()),
            })
            .clone()
    }
}

/// Checks game files. Never fails: files that cannot be read are reported with `error` set
/// and counted in [`CheckReport::unreadable_files`].
pub fn check<P: AsRef<Path>>(files: &[P], options: &CheckOptions) -> CheckReport {
    let mut cache = NameCache {
        files: HashMap::new(),
    };
    let mut report = CheckReport::default();
    for path in files {
        let fr = check_file(path.as_ref(), options, &mut cache);
        report.games += fr.games;
        report.illegal += fr.illegal;
        report.bad_move_bytes += fr.bad_move_bytes;
        report.unfinished += fr.unfinished;
        report.score_mismatches += fr.score_mismatches;
        report.unknown_ids += fr.unknown_ids;
        report.games_with_passes += fr.games_with_passes;
        report.unreadable_files += fr.error.is_some() as usize;
        report.damaged_files += fr.damaged.is_some() as usize;
        report.files.push(fr);
    }
    report
}

fn resolve(
    explicit: &Option<PathBuf>,
    game_file: &Path,
    kind: NameKind,
) -> Result<PathBuf, WthorError> {
    match explicit {
        Some(p) => Ok(p.clone()),
        None => find_names_file(game_file.parent().unwrap_or(Path::new("")), kind),
    }
}

/// What is wrong with a game file as a whole, in one sentence: cut short (a record in
/// part), or another number of whole records than its header declares.
fn damage(file: &GameFile) -> Option<String> {
    let declared = file.header.games as usize;
    let size = file.board.record_size();
    let held = file.games.len() + file.trailing.len() / size;
    let part = file.trailing.len() % size;
    let name = file.path.display();
    if part > 0 && held < declared {
        let offset = crate::wthor::HEADER_SIZE + held * size;
        Some(format!(
            "{name}: truncated: the header declares {declared} games, the file holds {held} whole and {part} bytes of game {held} at offset {offset}"
        ))
    } else if held < declared {
        Some(format!(
            "{name}: truncated: the header declares {declared} games, the file ends after {held}"
        ))
    } else if held > declared {
        Some(format!(
            "{name}: the header declares {declared} games, the file holds {held} (the {} after them are not read)",
            held - declared
        ))
    } else if part > 0 {
        Some(format!(
            "{name}: {part} bytes after the last game (not a whole record)"
        ))
    } else {
        None
    }
}

fn check_file(path: &Path, options: &CheckOptions, cache: &mut NameCache) -> FileReport {
    let mut fr = FileReport {
        file: path.display().to_string(),
        ..FileReport::default()
    };
    let file = match GameFile::read(path) {
        Ok(f) => f,
        Err(e) => {
            fr.error = Some(e.to_string());
            return fr;
        }
    };
    fr.year = Some(file.header.year);
    fr.damaged = damage(&file);
    fr.read_problems
        .extend(file.problems.iter().map(|p| p.to_string()));
    if file.board == BoardSize::Ten {
        fr.games = file.games.len();
        fr.error = Some(
            WthorError::Unsupported10x10 {
                file: path.to_path_buf(),
            }
            .to_string(),
        );
        return fr;
    }
    let mut known =
        |explicit: &Option<PathBuf>, kind: NameKind, shown: &mut Option<String>| -> Option<usize> {
            let p = match resolve(explicit, path, kind) {
                Ok(p) => p,
                Err(e) => {
                    fr.read_problems.push(format!("{e}; ids not checked"));
                    return None;
                }
            };
            *shown = Some(p.display().to_string());
            match cache.count(&p, kind) {
                Ok((n, problems)) => {
                    fr.read_problems.extend(problems);
                    Some(n)
                }
                Err(e) => {
                    fr.read_problems.push(format!("{e}; ids not checked"));
                    None
                }
            }
        };
    let mut jou_shown = None;
    let mut trn_shown = None;
    let players = known(&options.jou, NameKind::Players, &mut jou_shown);
    let tournaments = known(&options.trn, NameKind::Tournaments, &mut trn_shown);
    fr.jou = jou_shown;
    fr.trn = trn_shown;

    fr.games = file.games.len();
    for (i, g) in file.games.iter().enumerate() {
        let offset = file.record_offset(i);
        let mut unknown = false;
        let push = |fr: &mut FileReport, problem: Problem| {
            fr.problems.push(GameProblem {
                game: i,
                offset,
                problem,
            })
        };
        if let Some(n) = tournaments
            && g.tournament as usize >= n
        {
            push(
                &mut fr,
                Problem::UnknownId {
                    field: "tournament",
                    id: g.tournament,
                    known: n,
                },
            );
            unknown = true;
        }
        if let Some(n) = players {
            for (field, id) in [("black", g.black), ("white", g.white)] {
                if id as usize >= n {
                    push(
                        &mut fr,
                        Problem::UnknownId {
                            field,
                            id,
                            known: n,
                        },
                    );
                    unknown = true;
                }
            }
        }
        fr.unknown_ids += unknown as usize;
        let moves = match g.squares_in(path, i, offset) {
            Ok(m) => m,
            Err(e) => {
                let (mv, off, byte) = match &e {
                    WthorError::BadMoveByte {
                        ply, offset, byte, ..
                    }
                    | WthorError::MoveAfterEnd {
                        ply, offset, byte, ..
                    } => (ply + 1, *offset, *byte),
                    _ => (0, offset, 0),
                };
                push(
                    &mut fr,
                    Problem::BadMoveByte {
                        mv,
                        offset: off,
                        byte,
                        message: e.to_string(),
                    },
                );
                fr.bad_move_bytes += 1;
                continue;
            }
        };
        match replay_game(&moves) {
            Err(ill) => {
                push(
                    &mut fr,
                    Problem::IllegalMove {
                        mv: ill.index + 1,
                        square: ill.square.to_string(),
                        offset: offset + 8 + ill.index,
                        side: ill.board.side(),
                        reason: ill.error.to_string(),
                    },
                );
                fr.illegal += 1;
            }
            Ok((outcome, _board)) => {
                fr.games_with_passes += (outcome.passes > 0) as usize;
                if !outcome.finished {
                    push(
                        &mut fr,
                        Problem::Unfinished {
                            moves: outcome.moves_played,
                            discs: outcome.discs,
                            stored_black_score: g.black_score,
                        },
                    );
                    fr.unfinished += 1;
                } else if outcome.score.0 != g.black_score {
                    push(
                        &mut fr,
                        Problem::ScoreMismatch {
                            stored: g.black_score,
                            board: outcome.score.0,
                            discs: outcome.discs,
                        },
                    );
                    fr.score_mismatches += 1;
                }
            }
        }
    }
    fr
}
