//! Novelties (ChessBase's "N"): for a game — stored, or read from a PGN file and not stored
//! — the number of earlier games of the database in each position of its main line (by any
//! move order, by date), the first move that leads to a position no earlier game reached,
//! and the last move still "in the database" with how many earlier games had reached it.
//!
//! A [`Judge`] judges many games against one state of the database, each position's games
//! looked up once however many games reach it ([`tabiya_db::chess::EarlierGames`]); [`mark`]
//! writes a report into the game as PGN says it (NAG `$146`, "N", and a comment).

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};
use tabiya_db::Snapshot;
use tabiya_db::chess::EarlierGames;
use tabiya_pgn::Game;

use crate::database::{Db, Kind};
use crate::error::{Context, Error, ErrorKind, Result};

/// A move of the game with the earlier games in the position it leads to.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Ply {
    /// 1 for White's first move.
    pub ply: u32,
    pub san: String,
    /// Earlier games reaching the position after the move.
    pub earlier: u64,
}

/// A move named with its place.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct At {
    pub ply: u32,
    /// `12.` or `12...` then the move.
    pub text: String,
    /// Earlier games in the position after it (0 for a novelty).
    pub earlier: u64,
}

/// A game's novelty report.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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
    snap: &Snapshot<'_>,
    kept: &mut EarlierGames,
    game: &Game,
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
    let counts = snap.chess_earlier_games_kept(kept, &line, date, id)?;
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

/// Judges games against one state of the database (the state when it was made), keeping
/// each position's games for the next game: judging many games costs far less than judging
/// each alone, and the answers are the same.
pub struct Judge<'d> {
    db: &'d Db,
    snap: Snapshot<'d>,
    kept: EarlierGames,
}

impl<'d> Judge<'d> {
    /// A judge for a chess database's games.
    pub fn new(db: &'d Db) -> Result<Judge<'d>> {
        check(db)?;
        Ok(Judge::on(db, db.inner()?.snapshot()?))
    }

    /// A judge on a snapshot already open (the database checked to be chess).
    pub(crate) fn on(db: &'d Db, snap: Snapshot<'d>) -> Judge<'d> {
        Judge {
            db,
            snap,
            kept: EarlierGames::default(),
        }
    }

    /// A stored game's report, and the game.
    pub fn stored(&mut self, id: u32) -> Result<(Report, Game)> {
        let game = self.snap.chess_game(id)?.ok_or_else(|| {
            Error::not_found(format!("no game {id} in {}", self.db.dir().display()))
        })?;
        let r = report(&self.snap, &mut self.kept, &game, Some(id), None)?;
        Ok((r, game))
    }

    /// The report of a game not stored (`number`: its place in its file).
    pub fn game(&mut self, game: &Game, number: Option<u32>) -> Result<Report> {
        report(&self.snap, &mut self.kept, game, None, number)
    }
}

/// The novelties of stored games.
pub fn of_games(db: &Db, ids: &[u32]) -> Result<Vec<Report>> {
    let mut out: Vec<Option<Report>> = vec![None; ids.len()];
    judge_stored(db, ids, &AtomicBool::new(false), |i, r, _| out[i] = Some(r))?;
    Ok(out.into_iter().flatten().collect())
}

/// Games a worker takes at a time.
const BATCH: usize = 16;

/// Judges the stored games `ids` on every core (a [`Judge`] each), calling `each` with
/// each game's place in `ids`, its report and the game, in the order they are judged.
/// Setting `cancel` stops soon after (returns `true`: some games were not judged). The
/// workers' snapshots are opened as they start: an import finishing between them is the one
/// way for two games to be judged against different states.
pub fn judge_stored(
    db: &Db,
    ids: &[u32],
    cancel: &AtomicBool,
    mut each: impl FnMut(usize, Report, Game),
) -> Result<bool> {
    check(db)?;
    let workers = crate::engine::cores().min(ids.len().div_ceil(BATCH)).max(1);
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<(usize, Report, Game)>>(256);
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || {
                let mut judge = match Judge::new(db) {
                    Ok(j) => j,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                loop {
                    let from = next.fetch_add(BATCH, Ordering::Relaxed);
                    if from >= ids.len() || cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    for (i, &id) in ids.iter().enumerate().skip(from).take(BATCH) {
                        let r = judge.stored(id).map(|(r, g)| (i, r, g));
                        let failed = r.is_err();
                        if tx.send(r).is_err() || failed {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut judged = 0;
        for r in rx {
            let (i, report, game) = r?;
            each(i, report, game);
            judged += 1;
        }
        Ok(judged < ids.len())
    })
}

/// The novelties of the games of a PGN file (not stored), against the database's games:
/// a regular file of at most 64 MiB ([`crate::inputs::Whole::Games`]). A game that cannot
/// be read is an error naming it.
pub fn of_file(db: &Db, file: &Path) -> Result<Vec<Report>> {
    check(db)?;
    let bytes = crate::inputs::read_whole(file, crate::inputs::Whole::Games)?;
    of_pgn(
        db,
        bytes.as_slice(),
        &file.display().to_string(),
        ErrorKind::BadInput,
    )
}

/// The novelties of the games of a PGN file a command read itself (`name` as its messages
/// give it): what [`of_file`] answers, from the file's text.
pub fn of_named(db: &Db, pgn: &[u8], name: &str) -> Result<Vec<Report>> {
    check(db)?;
    of_pgn(db, pgn, name, ErrorKind::BadInput)
}

/// The novelties of games sent as PGN (not stored): a game that cannot be read, or text
/// holding none, is the request's fault.
pub fn of_bytes(db: &Db, pgn: &[u8]) -> Result<Vec<Report>> {
    of_pgn(db, pgn, "the PGN", ErrorKind::BadRequest)
}

/// The novelties of the games of PGN text (`what` names it in errors, of kind `kind`).
fn of_pgn(db: &Db, pgn: impl Read, what: &str, kind: ErrorKind) -> Result<Vec<Report>> {
    let mut judge = Judge::new(db)?;
    let mut out = Vec::new();
    for (n, item) in tabiya_pgn::read_all(pgn).enumerate() {
        crate::deadline::check()?;
        let (span, game) = item.context(kind, || format!("cannot read {what}"))?;
        let game = game.map_err(|e| {
            Error::new(kind, format!("{what}: the game at line {}: {e}", span.line))
        })?;
        out.push(judge.game(&game, Some(n as u32 + 1))?);
    }
    if out.is_empty() {
        return Err(Error::new(kind, format!("{what} holds no game")));
    }
    Ok(out)
}

/// NAG `$146`: a novelty ("N").
pub const NOVELTY_NAG: u8 = 146;

/// The comment [`mark`] writes at the novelty.
pub fn comment(r: &Report) -> Option<String> {
    r.novelty.as_ref()?;
    let mut text = "Novelty: no earlier game in the database reached this position".to_string();
    if let Some(k) = &r.last_known {
        text.push_str(&format!(
            "; last known {} ({} earlier game{})",
            k.text,
            k.earlier,
            if k.earlier == 1 { "" } else { "s" }
        ));
    }
    Some(text)
}

/// Marks `game`'s novelty as `r` found it: NAG `$146` on the move and a comment after it
/// naming the last known move. A game without a novelty is left as it is.
pub fn mark(game: &mut Game, r: &Report) {
    let (Some(n), Some(text)) = (&r.novelty, comment(r)) else {
        return;
    };
    let Some(node) = game.moves.get_mut(n.ply as usize - 1) else {
        return;
    };
    if !node.nags.contains(&NOVELTY_NAG) {
        node.nags.push(NOVELTY_NAG);
    }
    node.comments.push(text);
}
