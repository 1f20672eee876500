//! What the explorer shows of a position: the database's statistics of every move, its
//! best-rated games and opening name, and what the given opening books say beside them.

use std::path::PathBuf;

use serde::Serialize;
pub use tabiya_db::chess::{ChessExplore, MoveRow, OpeningName, Player, Reached, TopGame};
pub use tabiya_db::othello::{OpeningInfo, OthelloExplore, OthelloMove};

use tabiya_db::chess::position_key;

use crate::analysis::Analysis;
use crate::books::{BookAnswer, probe_any};
use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::othello::OthelloPosition;
use crate::position::ChessPosition;

/// The chess explorer's answer, with the books' answers after the database's.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ChessAnswer {
    #[serde(flatten)]
    pub explore: ChessExplore,
    /// Answers of the books asked for, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub books: Vec<BookAnswer>,
    /// The engine evaluation stored for the position, when there is one (each move's is in
    /// its row, `eval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<Analysis>,
    /// The position's note (`tabiya note`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A repertoire's moves in the position, when one was given ([`ChessAnswer::with_repertoire`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repertoire: Option<crate::repertoire::Overlay>,
}

impl ChessAnswer {
    /// The answer with what each of `books` says of the position after the database's
    /// (a command reads its books itself, also when a server gave the database's answer).
    pub fn with_books(mut self, at: &ChessPosition, books: &[PathBuf]) -> Result<ChessAnswer> {
        for path in books {
            self.books.push(BookAnswer {
                file: path.display().to_string(),
                probe: probe_any(path, &at.pos)?,
            });
        }
        Ok(self)
    }

    /// The answer with `rep`'s moves in the position (`side`: the repertoire's side, when
    /// known, tells your moves from the replies prepared).
    pub fn with_repertoire(
        mut self,
        rep: &crate::repertoire::Repertoire,
        side: Option<crate::cards::Side>,
        at: &ChessPosition,
    ) -> ChessAnswer {
        self.repertoire = Some(crate::repertoire::overlay(rep, side, &at.pos));
        self
    }
}

/// Fills in the stored evaluations of the position and of the position after each move.
fn attach_evals(db: &Db, at: &ChessPosition, answer: &mut ChessAnswer) -> Result<()> {
    let mut keys = vec![position_key(&at.pos)];
    let mut rows = Vec::new();
    for (i, row) in answer.explore.moves.iter().enumerate() {
        let Some(child) = at.after_uci(&row.uci) else {
            continue;
        };
        keys.push(position_key(&child));
        rows.push(i);
    }
    // A set's evaluations: each position's from the first member keeping one.
    let mut evals = vec![None; keys.len()];
    for m in &db.members {
        for (kept, e) in evals.iter_mut().zip(m.evals(&keys)?) {
            if kept.is_none() {
                *kept = e;
            }
        }
    }
    answer.eval = evals[0]
        .as_ref()
        .map(|e| crate::analysis::view(&at.pos, e, "stored"));
    for (i, e) in rows.into_iter().zip(&evals[1..]) {
        answer.explore.moves[i].eval = e.as_ref().and_then(|e| e.brief());
    }
    Ok(())
}

/// The explorer's answer for a chess position, with `top` best-rated games, and the answer
/// of each book in `books` (CTG, Polyglot or Kvetka, told from the file).
pub fn chess(db: &Db, at: &ChessPosition, top: usize, books: &[PathBuf]) -> Result<ChessAnswer> {
    if db.is_set() {
        let explore = crate::dbset::explore::explore(db, at, &Filter::default(), top, None)?;
        return beside(db, at, explore, books);
    }
    let explore = db
        .inner()?
        .snapshot()?
        .chess_explore(&at.line, at.mode, top)?;
    beside(db, at, explore, books)
}

/// [`chess`] counting only the games `filter` keeps, with `recent` newest games when asked
/// (every game of the position is looked at: exact, slower for popular positions).
pub fn chess_filtered(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    top: usize,
    recent: Option<usize>,
    books: &[PathBuf],
) -> Result<ChessAnswer> {
    beside(db, at, games_filtered(db, at, filter, top, recent)?, books)
}

/// The database's part of [`chess_filtered`] alone: no books, no evaluations (what the
/// Lichess explorer's endpoints show).
pub fn games_filtered(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    top: usize,
    recent: Option<usize>,
) -> Result<ChessExplore> {
    let mut answer = if db.is_set() {
        crate::dbset::explore::explore(db, at, filter, top, recent)?
    } else {
        let snap = db.inner()?.snapshot()?;
        let f = filter.resolve(&snap)?;
        snap.chess_explore_filtered(&at.line, at.mode, &f, top, recent)?
    };
    if !filter.is_empty() {
        reached_filtered(db, at, filter, &mut answer.moves)?;
    }
    Ok(answer)
}

/// Each move's `reached` in a filtered answer: the games reaching the position the move
/// leads to by any move order that pass `filter` (every member's, in a set) — the same
/// field as an answer without filters, counted with them.
fn reached_filtered(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    moves: &mut [MoveRow],
) -> Result<()> {
    let mut snaps = Vec::with_capacity(db.members.len());
    for m in &db.members {
        let snap = m.snapshot()?;
        let f = filter.resolve(&snap)?;
        snaps.push((snap, f));
    }
    for row in moves.iter_mut() {
        let Some(child) = at.after_uci(&row.uci) else {
            continue;
        };
        let mut r = Reached::default();
        for (snap, f) in &snaps {
            let one = snap.chess_reached_filtered(&child, f)?;
            r.white += one.white;
            r.draws += one.draws;
            r.black += one.black;
            r.unknown += one.unknown;
        }
        row.reached = Some(r);
    }
    Ok(())
}

pub use tabiya_db::chess::{MonthResults, PositionMonths};

/// Answers for `at` write castling as Chess960 writes it, the king taking its own rook
/// (`e1h1`), whatever its castling rights look like (the Lichess explorer's `chess960`).
pub fn write_chess960(at: &mut ChessPosition) {
    at.mode = shakmaty::CastlingMode::Chess960;
}

/// The games of a position month by month (every game reaching it that `filter` keeps and
/// whose date names a month; a set's members summed by month), and how many games counted
/// have no month.
pub fn chess_months(db: &Db, at: &ChessPosition, filter: &Filter) -> Result<PositionMonths> {
    let mut by: std::collections::BTreeMap<u32, MonthResults> = Default::default();
    let mut no_month = 0;
    for m in &db.members {
        let snap = m.snapshot()?;
        let f = filter.resolve(&snap)?;
        let a = snap.chess_months(&at.pos, &f)?;
        no_month += a.no_month;
        for r in a.months {
            by.entry(r.month)
                .or_insert_with(|| MonthResults {
                    month: r.month,
                    ..Default::default()
                })
                .merge(&r);
        }
    }
    Ok(PositionMonths {
        months: by.into_values().collect(),
        no_month,
    })
}

/// Lichess's mode of a game from its `Event` tag, as Lichess writes it ("Rated Blitz game",
/// "Casual Rapid game"): `casual` when it holds the word casual (any case), else `rated`
/// when it holds rated (not as unrated); `None` when it holds neither.
pub fn mode_of_event(event: &str) -> Option<&'static str> {
    let e = event.to_lowercase();
    if e.contains("casual") {
        Some("casual")
    } else if e.contains("rated") && !e.contains("unrated") {
        Some("rated")
    } else {
        None
    }
}

/// The criteria (`docs/gamesets.md`) that keep the games of one mode, as [`mode_of_event`]
/// tells it.
pub fn mode_criteria(mode: &str) -> Option<&'static str> {
    match mode {
        "rated" => Some("event ~ 'rated' and not event ~ 'unrated' and not event ~ 'casual'"),
        "casual" => Some("event ~ 'casual'"),
        _ => None,
    }
}

/// The mode of each game named in `ids` (as answers name them: `MEMBER:ID` in a set), from
/// its `Event` tag ([`mode_of_event`]); `None` for a game without one or not found.
pub fn game_modes(db: &Db, ids: &[&str]) -> Result<Vec<Option<&'static str>>> {
    let snaps = db
        .members
        .iter()
        .map(|m| m.snapshot())
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let Ok((m, n)) = crate::dbset::ids::parse(db, id) else {
            out.push(None);
            continue;
        };
        let tags = snaps[m].chess_tags(n)?.unwrap_or_default();
        out.push(
            tags.iter()
                .find(|(name, _)| name == "Event")
                .and_then(|(_, v)| mode_of_event(v)),
        );
    }
    Ok(out)
}

/// The database's answer with the books' answers and the kept evaluations beside it.
fn beside(
    db: &Db,
    at: &ChessPosition,
    explore: ChessExplore,
    books: &[PathBuf],
) -> Result<ChessAnswer> {
    let mut answers = Vec::with_capacity(books.len());
    for path in books {
        answers.push(BookAnswer {
            file: path.display().to_string(),
            probe: probe_any(path, &at.pos)?,
        });
    }
    // A set's note: the first member's that has one.
    let mut note = None;
    for m in &db.members {
        if note.is_none() {
            note = m.snapshot()?.note(position_key(&at.pos))?;
        }
    }
    let mut answer = ChessAnswer {
        repertoire: None,
        explore,
        books: answers,
        eval: None,
        note,
    };
    attach_evals(db, at, &mut answer)?;
    Ok(answer)
}

/// The explorer's answer for an Othello position (any orientation, any move order), with
/// `top` newest games.
pub fn othello(db: &Db, at: &OthelloPosition, top: usize) -> Result<OthelloExplore> {
    Ok(db.inner()?.snapshot()?.othello_explore(&at.asked, top)?)
}

pub use tabiya_db::chess::{MoveYears, PositionYears, YearResults};

/// Results over time: the position's games by year, and each move's (every game reaching
/// the position that `filter` keeps).
pub fn chess_years(db: &Db, at: &ChessPosition, filter: &Filter) -> Result<PositionYears> {
    let snap = db.inner()?.snapshot()?;
    let f = filter.resolve(&snap)?;
    Ok(snap.chess_years(&at.pos, at.mode, &f)?)
}

pub use tabiya_db::chess::{Route, Routes};

/// The move orders by which the database's games reach a position, most frequent first (at
/// most `limit`); with a line asked from the start, how many games came by it (`byAsked`).
pub fn chess_routes(db: &Db, at: &ChessPosition, limit: usize) -> Result<Routes> {
    let snap = db.inner()?.snapshot()?;
    let asked =
        (at.start == shakmaty::Chess::default() && !at.moves.is_empty()).then_some(&at.moves[..]);
    Ok(snap.chess_routes(&at.pos, limit.clamp(1, 1000), asked)?)
}

pub use tabiya_db::chess::{LaterStructure, LaterStructures};

/// The most positions a structure may be asked to hold for.
pub const MOST_HELD: u32 = 1000;

/// The pawn structures the games of a chess position reach later (those `filter` keeps),
/// each held for at least `held` positions, most frequent first, at most `limit`; a set's
/// members summed by structure.
pub fn chess_later_structures(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    held: u32,
    limit: usize,
) -> Result<LaterStructures> {
    if held > MOST_HELD {
        return Err(crate::error::Error::bad_request(format!(
            "held {held}: at most {MOST_HELD} plies"
        )));
    }
    let mut answers = Vec::with_capacity(db.members.len());
    for m in &db.members {
        let snap = m.snapshot()?;
        let f = filter.resolve(&snap)?;
        let each = if db.is_set() { usize::MAX } else { limit };
        answers.push(snap.chess_later_structures(&at.pos, &f, held, each)?);
    }
    if !db.is_set() {
        return Ok(answers.pop().expect("one database"));
    }
    let mut by: std::collections::HashMap<String, (tabiya_db::Stats, u64)> =
        std::collections::HashMap::new();
    let mut games = 0;
    for a in answers {
        games += a.games;
        for s in a.structures {
            let mine = by.entry(s.pawns).or_default();
            mine.0.merge(&s.stats);
            mine.1 += s.plies;
        }
    }
    let rows = by
        .into_iter()
        .map(|(pawns, (stats, plies))| LaterStructure::new(pawns, stats, plies))
        .collect::<Vec<_>>();
    Ok(LaterStructures {
        games,
        held: held.max(1),
        distinct: rows.len() as u64,
        structures: tabiya_db::chess::most_frequent_structures(rows, limit),
    })
}
