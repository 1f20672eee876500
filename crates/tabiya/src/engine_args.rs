//! The engine options commands share: which engine, with which options.

use std::path::PathBuf;

use clap::Args;
use tabiya_service::engine::{EngineSettings, parse_option};

#[derive(Args, Clone, Default)]
pub struct EngineArgs {
    /// The UCI engine to run (default: stockfish on PATH, else /usr/games/stockfish).
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// Threads of each engine (default: the cores shared out among the engines).
    #[arg(long)]
    pub threads: Option<u32>,
    /// Hash table of each engine, MiB (default: the engine's).
    #[arg(long, value_name = "MB")]
    pub hash: Option<u32>,
    /// Any other engine option, NAME=VALUE (repeatable), e.g. --option "Skill Level=10".
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

impl EngineArgs {
    pub fn settings(&self, engines: usize) -> tabiya_service::Result<EngineSettings> {
        Ok(EngineSettings {
            path: self.engine.clone(),
            engines,
            threads: self.threads,
            hash_mb: self.hash,
            options: self
                .options
                .iter()
                .map(|o| parse_option(o))
                .collect::<Result<_, _>>()?,
        })
    }
}
