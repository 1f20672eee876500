//! UCI chess engines as child processes.
//!
//! - [`uci`]: the protocol's lines (`id`, `option`, `info`, `bestmove`) parsed.
//! - [`Engine`]: one engine process — handshake, options, searches with every `info` line
//!   passed on as it comes, `stop`, `quit`; deadlines everywhere, so nothing hangs, and a
//!   failed engine is killed, reaped and reported.
//! - [`EnginePool`]: several engines serving several clients fairly, newer requests
//!   superseding older ones when asked.
//! - [`children`]: no engine outlives Tabiya.
//!
//! This crate knows nothing of databases: storing evaluations is `tabiya-db`'s, deciding what
//! to analyse `tabiya-service`'s.

pub mod children;
mod error;
mod pool;
mod process;
pub mod uci;

pub use error::EngineError;
pub use pool::{EnginePool, Event, Identity, Ticket};
pub use process::{
    Engine, EngineConfig, Limit, PvLine, Search, SearchResult, legal_line, san_line,
};
pub use uci::{Bound, EngineOption, Info, Score};

/// Where Debian and most systems put Stockfish: the engine used when none is named.
pub fn default_engine() -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("stockfish"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let games = std::path::PathBuf::from("/usr/games/stockfish");
        games.is_file().then_some(games)
    })
}
