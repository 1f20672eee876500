//! Why a game could not be read: the error every reader of one game gives (the parser, the
//! splitter for a game too long to keep).

/// Why a game could not be read. `line` is the 1-based line in the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct GameError {
    pub line: u64,
    pub reason: String,
}
