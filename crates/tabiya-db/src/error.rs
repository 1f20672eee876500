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

/// The first error of the lookups made for a function that cannot return one (a closure
/// given to a record builder, which answers from what it is handed): a lookup that fails
/// answers the default and keeps its error here, and the caller returns it before anything
/// built from the default is committed.
#[derive(Default)]
pub struct FirstError(std::cell::RefCell<Option<Error>>);

impl FirstError {
    /// The value, or the default with the error kept (the first one only).
    pub fn or_default<T: Default>(&self, r: Result<T>) -> T {
        r.unwrap_or_else(|e| {
            self.0.borrow_mut().get_or_insert(e);
            T::default()
        })
    }

    /// The error kept, if any.
    pub fn check(&self) -> Result<()> {
        self.0.borrow_mut().take().map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_kept_and_returned_once() {
        let failed = FirstError::default();
        assert_eq!(failed.or_default(Ok(7u32)), 7);
        assert!(failed.check().is_ok());
        assert_eq!(
            failed.or_default::<u32>(Err(Error::Corrupt("first".into()))),
            0
        );
        assert_eq!(
            failed.or_default::<u32>(Err(Error::Corrupt("second".into()))),
            0
        );
        assert_eq!(failed.or_default(Ok(3u32)), 3);
        let err = failed.check().unwrap_err();
        assert_eq!(err.to_string(), "database is damaged: first");
        assert!(failed.check().is_ok(), "returned once");
    }
}
