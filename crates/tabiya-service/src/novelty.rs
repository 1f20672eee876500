//! Novelties (ChessBase's "N"): for a game — stored, or read from a PGN file and not stored
//! — the number of earlier games of the database in each position of its main line (by any
//! move order, by date), the first move that leads to a position no earlier game reached,
//! and the last move still "in the database" with how many earlier games had reached it.

use std::path::Path;

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

use crate::database::{Db, Kind};
use crate::error::{Context, Error, ErrorKind, Result};

/// A move of the game with the earlier games in the position it leads to.
#[derive(Debug, Clone, Serialize)]
pub struct Ply {
    /// 1 for White's first move.
    pub ply: u32,
    pub san: String,
    /// Earlier games reaching the position after the move.
    pub earlier: u64,
}

/// A move named with its place.
#[derive(Debug, Clone, Serialize)]
pub struct At {
    pub ply: u32,
    /// `12.` or `12...` then the move.
    pub text: String,
    /// Earlier games in the position after it (0 for a novelty).
    pub earlier: u64,
}

/// A game's novelty report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The stored game's id, or the game's place in the file (1 = first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    pub white: String,
    pub black: String,
    pub date: String,
    /// Earlier games in the start position.
    pub start_earlier: u64,
    /// The first move leading to a position no earlier game reached (none: every position
    /// of the game was reached before).
    pub novelty: Option<At>,
    /// The last move before the novelty, still in the database.
    pub last_known: Option<At>,
    pub plies: Vec<Ply>,
}

fn date_of(tags: &[(String, String)]) -> (String, u32) {
    let text = tags
        .iter()
        .find(|(k, _)| k == "Date")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let mut parts = text.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (y, m, d) = (
        parts.next().unwrap_or(0).min(9999),
        parts.next().unwrap_or(0).min(12),
        parts.next().unwrap_or(0).min(31),
    );
    (text, y * 10000 + m * 100 + d)
}

fn tag(tags: &[(String, String)], k: &str) -> String {
    tags.iter()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

fn report(
    snap: &tabiya_db::Snapshot<'_>,
    game: &tabiya_pgn::Game,
    id: Option<u32>,
    number: Option<u32>,
) -> Result<Report> {
    let (date_text, date) = date_of(&game.tags);
    let mut pos: Chess = game.start.clone();
    let mut line = vec![pos.clone()];
    let mut sans = Vec::new();
    for n in &game.moves {
        sans.push(SanPlus::from_move(pos.clone(), n.mv).to_string());
        pos.play_unchecked(n.mv);
        line.push(pos.clone());
    }
    let counts = snap.chess_earlier_games(&line, date, id)?;
    let start_ply =
        game.start.fullmoves().get() * 2 - if game.start.turn().is_white() { 1 } else { 0 };
    let plies: Vec<Ply> = sans
        .iter()
        .enumerate()
        .map(|(i, san)| Ply {
            ply: i as u32 + 1,
            san: san.clone(),
            earlier: counts[i + 1],
        })
        .collect();
    let at = |i: usize| -> At {
        let ply = start_ply as usize + i;
        let number = ply.div_ceil(2);
        At {
            ply: i as u32 + 1,
            text: format!(
                "{number}{}{}",
                if ply % 2 == 1 { ". " } else { "... " },
                sans[i]
            ),
            earlier: counts[i + 1],
        }
    };
    let first_new = plies.iter().position(|p| p.earlier == 0);
    Ok(Report {
        id,
        number,
        white: tag(&game.tags, "White"),
        black: tag(&game.tags, "Black"),
        date: date_text,
        start_earlier: counts[0],
        novelty: first_new.map(at),
        last_known: match first_new {
            Some(0) | None => None,
            Some(i) => Some(at(i - 1)),
        },
        plies,
    })
}

fn check(db: &Db) -> Result<()> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: novelties are for chess games",
            db.dir().display()
        )));
    }
    Ok(())
}

/// The novelties of stored games.
pub fn of_games(db: &Db, ids: &[u32]) -> Result<Vec<Report>> {
    check(db)?;
    let snap = db.inner.snapshot()?;
    let mut out = Vec::new();
    for &id in ids {
        let game = snap
            .chess_game(id)?
            .ok_or_else(|| Error::not_found(format!("no game {id} in {}", db.dir().display())))?;
        out.push(report(&snap, &game, Some(id), None)?);
    }
    Ok(out)
}

/// The novelties of the games of a PGN file (not stored), against the database's games.
/// A game that cannot be read is an error naming it.
pub fn of_file(db: &Db, file: &Path) -> Result<Vec<Report>> {
    check(db)?;
    let f = std::fs::File::open(file).context(ErrorKind::BadRequest, || {
        format!("cannot read {}", file.display())
    })?;
    let snap = db.inner.snapshot()?;
    let mut out = Vec::new();
    for (n, item) in tabiya_pgn::read_all(std::io::BufReader::new(f)).enumerate() {
        let (span, game) = item.context(ErrorKind::BadInput, || {
            format!("cannot read {}", file.display())
        })?;
        let game = game.map_err(|e| {
            Error::new(
                ErrorKind::BadInput,
                format!("{}: the game at line {}: {e}", file.display(), span.line),
            )
        })?;
        out.push(report(&snap, &game, None, Some(n as u32 + 1))?);
    }
    Ok(out)
}
