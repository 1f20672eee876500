//! Cards from an opening book (Polyglot, CTG, Kvetka): the walk of `walk.rs` with the book's
//! moves. The chosen side's best move is the one the book recommends most: CTG's green
//! (recommended) moves first, then the highest Polyglot weight, then the most games (CTG,
//! Kvetka); moves the book marks as not to play (CTG's red, a `?`, `??` or `?!`
//! annotation, a Polyglot weight of 0) are never the chosen side's. The other side's moves
//! are every move the book holds.

use shakmaty::{Chess, Move};
use tabiya_books::BookMove;
use tabiya_books::convert::AnyBook;

use super::add::{AddReport, check, store};
use super::view::{Side, uci};
use super::walk::{MoveSource, WalkLimits, walk};
use crate::books::{BookFile, open};
use crate::database::Db;
use crate::error::{Context, ErrorKind, Result};
use crate::position::ChessPosition;

struct Book<'a> {
    book: AnyBook,
    name: &'a str,
}

/// Mistakes as PGN NAGs: `?`, `??`, `?!`.
const BAD_NAGS: [u8; 3] = [2, 4, 6];

pub(crate) fn not_to_play(m: &BookMove) -> bool {
    m.red == Some(true)
        || m.annotation.is_some_and(|a| BAD_NAGS.contains(&a))
        || m.weight == Some(0)
}

impl MoveSource for Book<'_> {
    fn moves(&mut self, pos: &Chess, for_side: bool) -> Result<Vec<Move>> {
        let (found, _) = self
            .book
            .position_at(pos)
            .context(ErrorKind::BadInput, || {
                format!("cannot probe book {}", self.name)
            })?;
        let Some(found) = found else {
            return Ok(Vec::new());
        };
        let mut ranked: Vec<(bool, u16, u64, String, Move)> = found
            .moves
            .iter()
            .filter(|m| !(for_side && not_to_play(m)))
            .map(|m| {
                (
                    m.green == Some(true),
                    m.weight.unwrap_or(0),
                    m.stats.as_ref().map_or(0, |s| s.games),
                    uci(pos, m.mv),
                    m.mv,
                )
            })
            .collect();
        ranked.sort_by(|a, b| (b.0, b.1, b.2).cmp(&(a.0, a.1, a.2)).then(a.3.cmp(&b.3)));
        ranked.dedup_by(|a, b| a.3 == b.3);
        Ok(ranked.into_iter().map(|r| r.4).collect())
    }
}

/// Cards from a book, walking from `at` to `limits.depth` plies (see the module).
pub fn from_book(
    db: &Db,
    book: &BookFile,
    at: &ChessPosition,
    side: Side,
    limits: WalkLimits,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    let name = book.name();
    let mut source = Book {
        book: open(book)?,
        name: &name,
    };
    let (drafts, truncated) = walk(&at.start, &at.moves, side, limits, &mut source)?;
    let file = book
        .path
        .file_name()
        .map_or_else(|| name.clone(), |f| f.to_string_lossy().into_owned());
    let mut report = store(db, drafts, None, &format!("book {file}"), now)?;
    report.truncated = truncated;
    Ok(report)
}
