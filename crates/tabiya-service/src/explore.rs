//! What the explorer shows of a position: the database's statistics of every move, its
//! best-rated games and opening name, and what the given opening books say beside them.

use std::path::PathBuf;

use serde::Serialize;
pub use tabiya_db::chess::{ChessExplore, MoveRow, OpeningName, Player, TopGame};
pub use tabiya_db::othello::{OpeningInfo, OthelloExplore, OthelloMove};

use crate::books::{BookAnswer, probe_any};
use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::othello::OthelloPosition;
use crate::position::ChessPosition;

/// The chess explorer's answer, with the books' answers after the database's.
#[derive(Debug, Clone, Serialize)]
pub struct ChessAnswer {
    #[serde(flatten)]
    pub explore: ChessExplore,
    /// Answers of the books asked for, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub books: Vec<BookAnswer>,
}

/// The explorer's answer for a chess position, with `top` best-rated games, and the answer
/// of each book in `books` (CTG, Polyglot or Kvetka, told from the file).
pub fn chess(db: &Db, at: &ChessPosition, top: usize, books: &[PathBuf]) -> Result<ChessAnswer> {
    let snap = db.inner.snapshot()?;
    let explore = snap.chess_explore(&at.line, at.mode, top)?;
    let mut answers = Vec::with_capacity(books.len());
    for path in books {
        answers.push(BookAnswer {
            file: path.display().to_string(),
            probe: probe_any(path, &at.pos)?,
        });
    }
    Ok(ChessAnswer {
        explore,
        books: answers,
    })
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
    let snap = db.inner.snapshot()?;
    let f = filter.resolve(snap.names())?;
    let explore = snap.chess_explore_filtered(&at.line, at.mode, &f, top, recent)?;
    let mut answers = Vec::with_capacity(books.len());
    for path in books {
        answers.push(BookAnswer {
            file: path.display().to_string(),
            probe: probe_any(path, &at.pos)?,
        });
    }
    Ok(ChessAnswer {
        explore,
        books: answers,
    })
}

/// The explorer's answer for an Othello position (any orientation, any move order), with
/// `top` newest games.
pub fn othello(db: &Db, at: &OthelloPosition, top: usize) -> Result<OthelloExplore> {
    Ok(db.inner.snapshot()?.othello_explore(&at.asked, top)?)
}
