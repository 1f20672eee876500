//! What the handlers share: the databases and books served, the cache of answers, the
//! server's address and its hand-over token.

use std::sync::Arc;

use tabiya_service::Kind;

use crate::cache::Cache;
pub use crate::served::{Served, ServedBook};

/// Everything the handlers share.
pub struct AppState {
    pub dbs: Vec<Arc<Served>>,
    pub books: Vec<ServedBook>,
    pub cache: Cache,
    /// The secret a local `tabiya import` shows to hand its import to this server.
    pub token: String,
    /// The page's grant for changes, when the server was started with `--writable`
    /// (`guard.rs`).
    pub grant: Option<String>,
    /// Heavy requests answered at once (`heavy.rs`).
    pub heavy: Arc<tokio::sync::Semaphore>,
    /// Names the server answers to besides IP addresses and `localhost`.
    pub hosts: Vec<String>,
    /// The address the server listens on.
    pub url: String,
    /// The engines analyses run on, when there are.
    pub engines: Option<Arc<tabiya_service::engine::Engines>>,
    /// Why there is no engine, when there is none.
    pub engine_note: String,
    /// Whether the API may edit and delete games.
    pub writable: bool,
}

impl AppState {
    /// A database by name, or the first of `kind` (the default for the Lichess endpoints).
    pub fn db(&self, name: Option<&str>, kind: Option<Kind>) -> Option<&Arc<Served>> {
        match name {
            Some(n) => self.dbs.iter().find(|d| d.name == n),
            None => self.dbs.iter().find(|d| kind.is_none_or(|k| d.kind == k)),
        }
    }
}
