//! What can go wrong with an engine, each error saying which engine and what it did.

use std::path::PathBuf;

/// An engine's failure. After any of these but `Cancelled`, the engine process is gone (it
/// was killed and reaped); the next search starts a new one.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start the engine {}", path.display())]
    Start {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the engine {} did not answer `{sent}` with `{wanted}` within {seconds} s{}", path.display(), printed_note(printed))]
    Handshake {
        path: PathBuf,
        sent: &'static str,
        wanted: &'static str,
        seconds: u64,
        /// The first lines it printed instead.
        printed: Vec<String>,
    },
    #[error("the engine {name} {what}; it was stopped and starts again on the next request")]
    Unresponsive { name: String, what: String },
    #[error(
        "the engine {name} exited {during} ({status}); it starts again on the next request{}",
        printed_note(printed)
    )]
    Exited {
        name: String,
        during: &'static str,
        status: String,
        printed: Vec<String>,
    },
    #[error("the engine {name} answered `bestmove {mv}`, not a legal move in {fen}")]
    IllegalMove {
        name: String,
        mv: String,
        fen: String,
    },
    #[error("the engine {name} has no option {option:?} (its options: {known})")]
    UnknownOption {
        name: String,
        option: String,
        known: String,
    },
    #[error("cannot talk to the engine {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the analysis was {0}")]
    Cancelled(&'static str),
}

impl EngineError {
    /// Whether the engine is at fault (as opposed to the request: a cancellation).
    pub fn is_cancelled(&self) -> bool {
        matches!(self, EngineError::Cancelled(_))
    }
}

fn printed_note(printed: &[String]) -> String {
    if printed.is_empty() {
        String::new()
    } else {
        format!("; it printed: {}", printed.join(" | "))
    }
}
