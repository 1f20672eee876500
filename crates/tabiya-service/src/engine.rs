//! The engines Tabiya asks: which executable, how many, with which options — one pool per
//! command or server, shared by every question asked of it.

use std::path::PathBuf;

use tabiya_engine::{EngineConfig, EnginePool};
pub use tabiya_engine::{Identity, Limit};

use crate::error::{Error, Result};

/// How to run the engines.
#[derive(Debug, Clone, Default)]
pub struct EngineSettings {
    /// The UCI engine's executable; `None`: `stockfish` on `PATH`, else `/usr/games/stockfish`.
    pub path: Option<PathBuf>,
    /// Engines searching at once (at least one).
    pub engines: usize,
    /// `Threads` of each engine; `None`: the cores shared out among the engines.
    pub threads: Option<u32>,
    /// `Hash` of each engine in MiB; `None`: the engine's default.
    pub hash_mb: Option<u32>,
    /// Any other options, `setoption` in this order (an option the engine lacks is an error).
    pub options: Vec<(String, String)>,
}

/// Kills and reaps every engine process still running (for a signal handler: nothing
/// outlives Tabiya); returns how many there were.
pub fn kill_all_engines() -> usize {
    tabiya_engine::children::kill_all()
}

/// Cores of this machine.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses `NAME=VALUE` (an `--option` of the command line).
pub fn parse_option(text: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::bad_request(format!(
            "engine option {text:?} is not NAME=VALUE (for example Hash=256)"
        ))),
    }
}

/// A pool of engines, started and identified.
pub struct Engines {
    pool: EnginePool,
    identity: Identity,
    path: PathBuf,
}

impl Engines {
    /// Starts one engine at once (a wrong path or option fails here, not at the first
    /// question) and makes the pool; the other engines start when first needed.
    pub fn start(settings: &EngineSettings) -> Result<Engines> {
        let path = match &settings.path {
            Some(p) => p.clone(),
            None => tabiya_engine::default_engine().ok_or_else(|| {
                Error::not_found(
                    "no engine found: install Stockfish (Debian: apt install stockfish) or name \
                     one with --engine PATH",
                )
            })?,
        };
        let engines = settings.engines.max(1);
        let threads = settings
            .threads
            .unwrap_or_else(|| (cores() / engines).max(1) as u32);
        let mut config = EngineConfig::new(&path);
        config
            .defaults
            .push(("Threads".into(), threads.to_string()));
        // Win/draw/loss chances with each line, for engines that can give them.
        config.defaults.push(("UCI_ShowWDL".into(), "true".into()));
        if let Some(h) = settings.hash_mb {
            config.defaults.push(("Hash".into(), h.to_string()));
        }
        config.options = settings.options.clone();
        let pool = EnginePool::new(config, engines);
        let identity = pool.identify()?;
        Ok(Engines {
            pool,
            identity,
            path,
        })
    }

    /// What the engine said of itself: `id name` (its name and version), author, options.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The engine's executable.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Engines in the pool.
    pub fn size(&self) -> usize {
        self.pool.size()
    }

    pub(crate) fn pool(&self) -> &EnginePool {
        &self.pool
    }
}

/// Checks a search limit as users give it: exactly one of depth and movetime (neither:
/// `default`).
pub fn limit(depth: Option<u32>, movetime_ms: Option<u64>, default: Limit) -> Result<Limit> {
    match (depth, movetime_ms) {
        (Some(_), Some(_)) => Err(Error::bad_request(
            "give either a depth or a move time, not both",
        )),
        (Some(d), None) if (1..=99).contains(&d) => Ok(Limit::Depth(d)),
        (Some(d), None) => Err(Error::bad_request(format!(
            "depth {d} is out of range (1 to 99)"
        ))),
        (None, Some(ms)) if (1..=3_600_000).contains(&ms) => Ok(Limit::MoveTime(ms)),
        (None, Some(ms)) => Err(Error::bad_request(format!(
            "move time {ms} ms is out of range (1 ms to 1 hour)"
        ))),
        (None, None) => Ok(default),
    }
}
