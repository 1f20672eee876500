//! Arguments several commands share: where the database is, and a chess position.

use std::path::PathBuf;

use clap::Args;
use tabiya_service::ChessPosition;

/// Where the database lives.
#[derive(Args, Clone)]
pub struct DbArg {
    /// Database directory (default: $TABIYA_DB, else ./tabiya-db).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

impl DbArg {
    pub fn dir(&self) -> PathBuf {
        self.db
            .clone()
            .or_else(|| std::env::var_os("TABIYA_DB").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("tabiya-db"))
    }
}

/// A chess position given on the command line.
#[derive(Args, Clone)]
pub struct PositionArg {
    /// Position as FEN.
    #[arg(long, conflicts_with = "play")]
    pub fen: Option<String>,
    /// Moves from the start, UCI or SAN, separated by commas or spaces (e2e4,c7c5).
    #[arg(long)]
    pub play: Option<String>,
}

impl PositionArg {
    pub fn is_given(&self) -> bool {
        self.fen.is_some() || self.play.is_some()
    }

    /// The position (the start when none is given).
    pub fn resolve(&self) -> tabiya_service::Result<ChessPosition> {
        ChessPosition::resolve(self.fen.as_deref(), self.play.as_deref())
    }
}
