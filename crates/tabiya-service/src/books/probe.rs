//! What a book holds for a position.

use std::path::Path;

use serde::Serialize;
use shakmaty::Chess;
use tabiya_books::BookProbe;
use tabiya_books::convert::{AnyBook, BookFormat};

use super::open::{BookFile, cannot_open, open};
use crate::error::{Context, ErrorKind, Result};
use crate::position::ChessPosition;

/// A probe's answer: the position's FEN, the book's format, and what the book holds
/// (position totals from the side to move, move statistics from the mover's side, fields the
/// format does not hold left out).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeAnswer {
    pub fen: String,
    pub format: BookFormat,
    #[serde(flatten)]
    pub probe: BookProbe,
}

/// What one book says of a position the database was asked about (the explorer's
/// `--book FILE`).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BookAnswer {
    pub file: String,
    #[serde(flatten)]
    pub probe: BookProbe,
}

/// `book probe`: opens the book, then resolves the position (`fen`, absent for the start,
/// and the moves of `play`) and probes it.
pub fn probe(book: &BookFile, fen: Option<&str>, play: Option<&str>) -> Result<ProbeAnswer> {
    let b = open(book)?;
    let r = ChessPosition::resolve(fen, play)?;
    let probe = b.probe(&r.pos).context(ErrorKind::BadInput, || {
        format!("cannot probe {}", book.name())
    })?;
    Ok(ProbeAnswer {
        fen: r.fen,
        format: b.format(),
        probe,
    })
}

/// Opens any book (format told from the file) and probes a real position: the explorer's
/// `--book FILE` source.
pub fn probe_any(path: &Path, pos: &Chess) -> Result<BookProbe> {
    let book = AnyBook::open(path).map_err(|e| cannot_open(path, e))?;
    book.probe(pos).context(ErrorKind::BadInput, || {
        format!("cannot probe book {}", path.display())
    })
}

/// What an open book holds for a position (for a server that keeps its books open).
pub fn probe_open(book: &AnyBook, name: &str, at: &ChessPosition) -> Result<BookProbe> {
    book.probe(&at.pos)
        .context(ErrorKind::BadInput, || format!("cannot probe book {name}"))
}
