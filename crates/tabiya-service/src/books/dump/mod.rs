//! Everything in a book: a Polyglot book's lines by colour (as `polyglot dump-book`), every
//! stored position of a CTG or Kvetka book (streamed: one position at a time).

mod ctg;
mod kvetka;
mod polyglot;

use serde::Serialize;
use tabiya_books::convert::AnyBook;

pub use ctg::{CtgDump, CtgDumpPosition, UnknownMoveJson};
pub use kvetka::{KvetkaDump, KvetkaDumpPosition};
pub use polyglot::{PolyglotDump, PolyglotLines};

use super::open::{BookFile, open};
use crate::error::{Error, Result};

/// A colour whose Polyglot lines are dumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    White,
    Black,
}

/// A book's dump, by format.
pub enum BookDump {
    /// Every line of the colours asked for, computed at once.
    Polyglot(PolyglotDump),
    /// Every record, read as it is iterated.
    Ctg(CtgDump),
    /// Every element: as text (streamed), or as positions.
    Kvetka(KvetkaDump),
}

/// `book dump`: `colour` (Polyglot only) limits the lines to one colour's.
pub fn dump(book: &BookFile, colour: Option<Colour>) -> Result<BookDump> {
    let b = open(book)?;
    let name = book.name();
    if colour.is_some() && !matches!(b, AnyBook::Polyglot(_)) {
        let what = if matches!(b, AnyBook::Ctg(_)) {
            "CTG"
        } else {
            "Kvetka"
        };
        return Err(Error::bad_request(format!(
            "--color is for Polyglot books: a {what} dump lists every stored position"
        )));
    }
    Ok(match b {
        AnyBook::Polyglot(b) => BookDump::Polyglot(polyglot::dump(&b, name, colour)),
        AnyBook::Ctg(b) => BookDump::Ctg(CtgDump { book: b, name }),
        AnyBook::Kvetka(b) => BookDump::Kvetka(KvetkaDump { book: b, name }),
    })
}
