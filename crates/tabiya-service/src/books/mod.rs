//! Opening books: ChessBase CTG, Polyglot and Kvetka — probe, dump, check, info, convert,
//! merge, build (from PGN files or a database), and the games a Kvetka book links.

use std::path::Path;

use serde::Serialize;
use shakmaty::Chess;
pub use tabiya_books::BookProbe;
use tabiya_books::convert::AnyBook;

use crate::error::{Context, ErrorKind, Result};

/// What one book says of a position the database was asked about.
#[derive(Debug, Clone, Serialize)]
pub struct BookAnswer {
    pub file: String,
    #[serde(flatten)]
    pub probe: BookProbe,
}

/// Opens any book (format told from the file) and probes a position: the explorer's
/// `--book FILE` source. Position totals from the side to move, move statistics from the
/// mover's side, fields the format does not hold are `None`.
pub fn probe_any(path: &Path, pos: &Chess) -> Result<BookProbe> {
    let book = AnyBook::open(path).context(ErrorKind::BadInput, || {
        format!("cannot open book {}", path.display())
    })?;
    book.probe(pos).context(ErrorKind::BadInput, || {
        format!("cannot probe book {}", path.display())
    })
}
