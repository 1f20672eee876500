//! What can go wrong: the store, a damaged database, bad input, a wrong request.

pub use crate::codec::DecodeError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] tabiya_store::StoreError),
    #[error("database is damaged: {0}")]
    Corrupt(String),
    #[error("database is damaged: {0}")]
    Decode(#[from] DecodeError),
    /// Input that cannot be read (a file, a game).
    #[error("{0}")]
    Input(String),
    /// The database is open in another process (a server, or an import).
    #[error("{0}")]
    InUse(String),
    /// What was asked for does not exist (a database directory, a game).
    #[error("{0}")]
    NotFound(String),
    /// A request that cannot be done as asked (a wrong kind, a bad option).
    #[error("{0}")]
    Usage(String),
    /// The question's deadline passed (`deadline`): its work stopped.
    #[error("{0}")]
    Cancelled(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
