//! Opening a book by its path, its format told from the file (extension, sibling files,
//! magic bytes) unless the caller says it.

use std::path::{Path, PathBuf};

use tabiya_books::convert::{AnyBook, BookError, BookFormat};

use crate::error::{Error, ErrorKind, Result};

/// A book to read: its path, and its format when the caller knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookFile {
    /// A Polyglot `.bin`; a CTG `.ctg` (or `.cto/.ctb/.ini`, or the stem); a Kvetka
    /// `name_0.kob` (or `.kob/.kin/.ksf`, or `dir/name`).
    pub path: PathBuf,
    /// Read the book as this format instead of telling it from the file.
    pub format: Option<BookFormat>,
}

impl BookFile {
    /// A book whose format is told from the file.
    pub fn new(path: impl Into<PathBuf>) -> BookFile {
        BookFile {
            path: path.into(),
            format: None,
        }
    }

    /// The name messages give the book.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The book's format: the one given, else told from the file.
    pub fn format(&self) -> Result<BookFormat> {
        match self.format {
            Some(f) => Ok(f),
            None => BookFormat::detect(&self.path).map_err(|e| cannot_open(&self.path, e)),
        }
    }
}

/// Opens a book (errors: `cannot open book PATH`, caused by what was wrong with it).
pub fn open(book: &BookFile) -> Result<AnyBook> {
    let opened = match book.format {
        Some(f) => AnyBook::open_as(&book.path, f),
        None => AnyBook::open(&book.path),
    };
    opened.map_err(|e| cannot_open(&book.path, e))
}

/// `cannot open book PATH`: not found when the file is missing, else a bad input.
pub(crate) fn cannot_open(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::new(
        missing_or(&e, ErrorKind::BadInput),
        format!("cannot open book {}", path.display()),
    )
    .caused_by(e)
}

/// [`ErrorKind::NotFound`] when a file of `e`'s causes does not exist, else `kind`.
pub(crate) fn missing_or(e: &(dyn std::error::Error + 'static), kind: ErrorKind) -> ErrorKind {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
        {
            return ErrorKind::NotFound;
        }
        cause = c.source();
    }
    kind
}

/// The kind of a book error met while reading or writing: the machine's when a file
/// operation failed, else a bad input.
pub(crate) fn book_error_kind(e: &BookError) -> ErrorKind {
    match e {
        BookError::Io { .. } => ErrorKind::Io,
        _ => ErrorKind::BadInput,
    }
}
