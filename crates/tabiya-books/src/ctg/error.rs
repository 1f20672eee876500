//! Errors of the CTG codec.

use std::path::PathBuf;

/// Everything that can go wrong reading, probing or writing a CTG book.
///
/// Errors about book files name the file, and where it applies the data page number and
/// the absolute byte offset in that file.
#[derive(Debug, thiserror::Error)]
pub enum CtgError {
    /// An operating-system error on a file.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file is too short or its header is not what a CTG book has.
    #[error("{file}: {what}")]
    Header { file: String, what: String },
    /// A data page (or a record in it) is malformed.
    #[error("{file}: data page {page} at byte offset {offset}: {what}")]
    Page {
        file: String,
        page: u32,
        offset: u64,
        what: String,
    },
    /// A position key that cannot be decoded.
    #[error("bad CTG key at key byte {offset}: {what}")]
    Key { offset: usize, what: String },
    /// A position the format cannot hold (for example Chess960 castling rights).
    #[error("position cannot be encoded as a CTG key: {0}")]
    Unencodable(String),
    /// The writer could not lay out the book.
    #[error("cannot write CTG book: {0}")]
    Write(String),
    /// A named file refused before it was read: not a regular file (a FIFO, a device, a
    /// directory), larger than the format allows, or cut short while it was read.
    #[error(transparent)]
    File(tabiya_files::FileError),
}

impl From<tabiya_files::FileError> for CtgError {
    /// The operating system's errors as [`CtgError::Io`], the refusals as they are.
    fn from(e: tabiya_files::FileError) -> CtgError {
        match e {
            tabiya_files::FileError::Io { path, source } => CtgError::Io { path, source },
            other => CtgError::File(other),
        }
    }
}

impl CtgError {
    pub(crate) fn key(offset: usize, what: impl Into<String>) -> CtgError {
        CtgError::Key {
            offset,
            what: what.into(),
        }
    }
}

/// Result alias of the CTG codec.
pub type Result<T, E = CtgError> = std::result::Result<T, E>;
