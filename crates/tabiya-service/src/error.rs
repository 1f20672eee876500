//! What can go wrong, by kind, so that every interface answers alike: the command line
//! prints the message and its causes; the server turns the kind into a status (a request's
//! fault is a 4xx, never a 500).

use std::fmt;

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The question cannot be answered as asked: an illegal FEN or move, options that do
    /// not go together, a limit out of range, a command for the other game kind.
    BadRequest,
    /// What was asked for does not exist: a database, a game, a book.
    NotFound,
    /// An input file cannot be read as what it claims to be (a damaged book, a file that
    /// cannot be opened); the message names the file and, where known, the offset.
    BadInput,
    /// A stored database is damaged.
    Damaged,
    /// The database is open in another process (a server or an import).
    InUse,
    /// The engine failed: it could not be started, did not answer in time, crashed or
    /// broke the protocol (it is started again for the next question).
    Engine,
    /// The question was cancelled: stopped by its asker or superseded by a newer one.
    Cancelled,
    /// The machine failed us: a write that did not go through, a thread that could not
    /// start.
    Io,
}

/// An error: its kind, a message for people, and what caused it.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    /// The message is the source's own ([`Error::transparent`]): the causes start at the
    /// source's cause.
    transparent: bool,
}

/// The service's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
            transparent: false,
        }
    }

    /// An error from below passed on as it is, with a kind: its message and its causes,
    /// as `?` passes an error on (no message of ours added).
    pub fn transparent(
        kind: ErrorKind,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error {
            kind,
            message: e.to_string(),
            source: Some(Box::new(e)),
            transparent: true,
        }
    }

    /// A question that cannot be answered as asked.
    pub fn bad_request(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadRequest, message)
    }

    /// Something asked for that does not exist.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotFound, message)
    }

    /// An input file that cannot be read.
    pub fn bad_input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadInput, message)
    }

    /// This error, with what caused it.
    pub fn caused_by(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.source = Some(Box::new(source));
        self.transparent = false;
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message without its causes.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source = self.source.as_deref()?;
        if self.transparent {
            source.source()
        } else {
            Some(source)
        }
    }
}

/// Adds what was being done to an error from below: `result.context(kind, || "cannot open
/// book X")` gives that message, with the original error as its cause.
pub trait Context<T> {
    fn context(self, kind: ErrorKind, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> Context<T> for Result<T, E> {
    fn context(self, kind: ErrorKind, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::new(kind, what()).caused_by(e))
    }
}

/// The kind of a database error.
pub(crate) fn kind_of_db_error(e: &tabiya_db::Error) -> ErrorKind {
    match e {
        tabiya_db::Error::Usage(_) => ErrorKind::BadRequest,
        tabiya_db::Error::NotFound(_) => ErrorKind::NotFound,
        tabiya_db::Error::InUse(_) => ErrorKind::InUse,
        tabiya_db::Error::Cancelled(_) => ErrorKind::Cancelled,
        tabiya_db::Error::Input(_) => ErrorKind::BadInput,
        tabiya_db::Error::Corrupt(_) | tabiya_db::Error::Decode(_) => ErrorKind::Damaged,
        tabiya_db::Error::Store(s) if s.is_damaged() => ErrorKind::Damaged,
        tabiya_db::Error::Store(s) if s.is_read_only() => ErrorKind::BadRequest,
        tabiya_db::Error::Store(_) => ErrorKind::Io,
    }
}

impl From<tabiya_db::Error> for Error {
    /// Passed on as it is: its message and causes.
    fn from(e: tabiya_db::Error) -> Error {
        Error::transparent(kind_of_db_error(&e), e)
    }
}

impl From<tabiya_engine::EngineError> for Error {
    /// Passed on as it is, of kind `Engine` (or `Cancelled`).
    fn from(e: tabiya_engine::EngineError) -> Error {
        let kind = match e {
            tabiya_engine::EngineError::Cancelled(_) => ErrorKind::Cancelled,
            tabiya_engine::EngineError::UnknownOption { .. } => ErrorKind::BadRequest,
            _ => ErrorKind::Engine,
        };
        Error::transparent(kind, e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io, e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Error {
        Error::new(ErrorKind::Io, e.to_string())
    }
}
