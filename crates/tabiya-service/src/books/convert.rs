//! Converting any readable book to another format, reporting what the target cannot hold.

use std::path::PathBuf;

use shakmaty::Chess;
use tabiya_books::convert::{self, BookFormat, ConvertOptions, ConvertReport};

use super::eco::eco_comment;
use super::open::{BookFile, book_error_kind, open};
use super::paths::create_parent;
use crate::error::{Error, Result};

/// What to convert, to what.
#[derive(Debug, Clone)]
pub struct ConvertRequest {
    pub book: BookFile,
    /// A Polyglot `.bin`, a CTG `.ctg` (or stem), a Kvetka `dir/name` (or `name_0.kob`).
    pub output: PathBuf,
    /// The target format (default: from the output's extension).
    pub format: Option<BookFormat>,
    /// Polyglot target: leave out moves whose statistics count fewer games (as
    /// `make-book -min-game`).
    pub min_game: u64,
}

/// `book convert`: the report says what was read, written and lost (its `sourceFormat` and
/// `targetFormat` say from what to what).
pub fn convert(req: &ConvertRequest) -> Result<ConvertReport> {
    let book = open(&req.book)?;
    let format = match req.format {
        Some(f) => f,
        None => BookFormat::from_extension(&req.output).ok_or_else(|| {
            Error::bad_request(format!(
                "{}: cannot tell the target format from the extension; give --format",
                req.output.display()
            ))
        })?,
    };
    create_parent(&req.output)?;
    let caption = req
        .output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let eco = |p: &Chess| eco_comment(p);
    let opts = ConvertOptions {
        format,
        polyglot_min_game: req.min_game,
        kvetka_caption: caption,
        eco: Some(&eco),
        ..ConvertOptions::default()
    };
    convert::convert(&book, &req.output, &opts).map_err(|e| {
        Error::new(
            book_error_kind(&e),
            format!(
                "cannot convert {} to {}",
                req.book.path.display(),
                req.output.display()
            ),
        )
        .caused_by(e)
    })
}
