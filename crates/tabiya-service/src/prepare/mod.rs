//! Preparation against a player: their repertoire as the database knows it — a tree **by
//! position** (transpositions merged: a position reached by two move orders is one node)
//! of the moves made in their games with one colour, theirs and their opponents', each
//! with how often it was played, how the player scored after it and their latest game in
//! that line; and the positions where they vary most. Read from the `players` table (the
//! player's games only) and their first `depth` moves; see `docs/database.md`,
//! *Preparation against a player*.
//!
//! - [`tree`]: the games counted into positions and moves, the tree shown (moves with at
//!   least `min_games` games, from the start);
//! - [`varies`]: the player's positions with the most spread of choices;
//! - [`walk`]: the tree in reading order (most played first, each position continued once),
//!   shared by the terminal's table and the PGN;
//! - [`pgn`]: the tree as PGN with variations and the statistics in comments;
//! - [`book`]: the tree as a Polyglot or CTG book, through `tabiya-books`' writers.

mod book;
mod pgn;
mod tree;
mod varies;
pub mod walk;

use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_books::convert::BookFormat;
use tabiya_db::Dict;
use tabiya_db::chess::PlayerFilter;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
pub use crate::filter::Colour;

pub use book::write_book;
pub use pgn::{render_pgn, write_pgn};

/// Default plies read from each game.
pub const DEFAULT_DEPTH: u32 = 20;
/// Most plies read from each game.
pub const MAX_DEPTH: u32 = 200;
/// Default fewest games a move needs to be shown.
pub const DEFAULT_MIN_GAMES: u64 = 2;
/// Positions listed where the player varies most.
pub const VARIES_TOP: usize = 10;

/// What to prepare.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PrepareOptions {
    /// The player, by any spelling (any case or accents, aliases).
    pub player: String,
    /// The colour the player had.
    pub colour: Colour,
    /// Only games of this year or later (a game without a year is left out).
    pub since: Option<u16>,
    /// Moves read from each game (positions at plies `0..=depth`).
    pub depth: u32,
    /// A move is shown with at least this many games (1 shows all).
    pub min_games: u64,
}

impl PrepareOptions {
    pub fn new(player: impl Into<String>, colour: Colour) -> PrepareOptions {
        PrepareOptions {
            player: player.into(),
            colour,
            since: None,
            depth: DEFAULT_DEPTH,
            min_games: DEFAULT_MIN_GAMES,
        }
    }
}

/// Results from the player's side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Score {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points per game won, drawn or lost, in percent (one decimal); none without such games.
    pub score: Option<f64>,
}

/// The player's latest game in a line (by date, then the later stored).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Latest {
    pub id: u32,
    /// `yyyy.mm.dd`, unknown parts `??`.
    pub date: String,
    /// The opponent's name as the game writes it.
    pub opponent: String,
    pub event: String,
}

/// A move of the tree.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct PrepMove {
    pub uci: String,
    pub san: String,
    #[serde(flatten)]
    pub score: Score,
    pub latest: Latest,
    /// The key of the position it leads to (see [`PrepPosition::key`]).
    pub to: String,
}

/// A position of the tree.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepPosition {
    /// The database's position key (128-bit Zobrist, hex).
    pub key: String,
    /// As first reached (the clocks are that game's).
    pub fen: String,
    /// The fewest moves by which the tree shown reaches it.
    pub ply: u32,
    /// The moves of that way, SAN.
    pub line: Vec<String>,
    /// Whether the player is to move (a decision of theirs).
    pub player_to_move: bool,
    /// Every game of the player reaching it (within `depth` plies, by any move order).
    #[serde(flatten)]
    pub score: Score,
    /// The moves shown (at least `minGames` games), most played first.
    pub moves: Vec<PrepMove>,
}

/// A move's share of the player's choices in a position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Share {
    pub uci: String,
    pub san: String,
    pub games: u64,
    /// Of the games of the moves shown, percent (one decimal).
    pub share: f64,
}

/// A position where the player varies.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Spread {
    pub key: String,
    pub fen: String,
    pub line: Vec<String>,
    /// Games of the moves shown.
    pub games: u64,
    /// Shannon entropy of the shares, in bits (1 = two moves half and half).
    pub entropy: f64,
    pub moves: Vec<Share>,
}

/// The preparation: what `tabiya prepare --json` and `/api/prepare` give.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preparation {
    /// The player's name (their entry's).
    pub player: String,
    pub color: Colour,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u16>,
    pub depth: u32,
    pub min_games: u64,
    /// The player's games with that colour (and since), from the standard start.
    #[serde(flatten)]
    pub score: Score,
    /// Their games from another start position, left out.
    pub other_starts: u64,
    /// The start first, then by ply.
    pub positions: Vec<PrepPosition>,
    /// The player's positions with the most spread of choices, most first.
    pub varies_most: Vec<Spread>,
}

impl Preparation {
    /// The index of a position by key.
    pub fn index(&self) -> std::collections::HashMap<&str, usize> {
        self.positions
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key.as_str(), i))
            .collect()
    }
}

/// What [`write`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// `pgn`, `polyglot` or `ctg`.
    pub format: &'static str,
    pub files: Vec<PathBuf>,
    pub positions: u64,
    pub moves: u64,
}

/// Writes the preparation to `path` as PGN or a book: in `format` (`pgn`, `polyglot`,
/// `ctg`) when given, else as the extension says (`.pgn`; `.bin` Polyglot; `.ctg` CTG).
pub fn write(prep: &Preparation, path: &Path, format: Option<&str>) -> Result<Written> {
    let format = match format {
        Some(f) => f.to_ascii_lowercase(),
        None => {
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase());
            match (ext.as_deref(), BookFormat::from_extension(path)) {
                (Some("pgn"), _) => "pgn".into(),
                (_, Some(f)) => f.name().into(),
                _ => {
                    return Err(Error::bad_request(format!(
                        "{}: give --format pgn, polyglot or ctg, or a name ending in .pgn, .bin or .ctg",
                        path.display()
                    )));
                }
            }
        }
    };
    match format.as_str() {
        "pgn" => {
            write_pgn(prep, path)?;
            Ok(Written {
                format: "pgn",
                files: vec![path.to_path_buf()],
                positions: prep.positions.len() as u64,
                moves: prep.positions.iter().map(|p| p.moves.len() as u64).sum(),
            })
        }
        "polyglot" => write_book(prep, BookFormat::Polyglot, path),
        "ctg" => write_book(prep, BookFormat::Ctg, path),
        f => Err(Error::bad_request(format!(
            "format {f:?}: give pgn, polyglot or ctg"
        ))),
    }
}

/// The preparation against a player of a chess database.
pub fn prepare(db: &Db, opts: &PrepareOptions) -> Result<Preparation> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: preparation is for chess players",
            db.dir().display()
        )));
    }
    if opts.depth == 0 || opts.depth > MAX_DEPTH {
        return Err(Error::bad_request(format!(
            "depth {}: give 1 to {MAX_DEPTH} plies",
            opts.depth
        )));
    }
    if opts.min_games == 0 {
        return Err(Error::bad_request(
            "min-games 0: give at least 1 (1 shows every move)",
        ));
    }
    let snap = db.inner()?.snapshot()?;
    let entries = snap.entries(Dict::Player)?;
    let list = snap.names().all(Dict::Player)?;
    let found = crate::player::resolve(db, &entries, &list, &opts.player)?;
    let filter = PlayerFilter {
        names: entries.selector(&found),
        colour: Some(match opts.colour {
            Colour::White => 0,
            Colour::Black => 1,
        }),
    };
    let games = snap.chess_player_games(&filter)?;
    let counted = tree::count(&snap, &games, opts)?;
    let mut prep = tree::shown(&snap, counted, opts)?;
    prep.player = entries.entries[found[0] as usize].name.clone();
    prep.varies_most = varies::most(&prep, VARIES_TOP);
    Ok(prep)
}

/// Points per game won, drawn or lost, percent with one decimal.
fn percent(wins: u64, draws: u64, losses: u64) -> Option<f64> {
    let n = wins + draws + losses;
    (n > 0).then(|| ((wins as f64 + draws as f64 / 2.0) * 1000.0 / n as f64).round() / 10.0)
}
