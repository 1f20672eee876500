//! An open database of either kind: the handle every question is asked of. Opening one
//! opens its store for reading and writing (one process at a time); each question reads
//! one consistent snapshot, so answers never see half of an import.

use std::path::{Path, PathBuf};

pub use tabiya_db::{
    DbStats, Kind, NamedGames, Part, PositionKinds, RatingBin, Ratings, ReachedOpening, Results,
    SpeedGames, Speeds, YearGames,
};

use crate::error::Result;

/// An open database.
pub struct Db {
    pub(crate) inner: tabiya_db::Database,
}

impl Db {
    /// Opens an existing database (an error of kind `NotFound` when there is none).
    pub fn open(dir: &Path) -> Result<Db> {
        Ok(Db {
            inner: tabiya_db::Database::open(dir)?,
        })
    }

    /// Opens a database, creating it for `kind` (with the given ply cap, chess only) when
    /// the directory holds none.
    pub fn open_or_create(dir: &Path, kind: Kind, max_ply: Option<u32>) -> Result<Db> {
        Ok(Db {
            inner: tabiya_db::Database::open_or_create(dir, kind, max_ply)?,
        })
    }

    /// Whether `dir` holds a database.
    pub fn exists(dir: &Path) -> bool {
        tabiya_db::Database::exists(dir)
    }

    /// The kind of a database, without keeping it open.
    pub fn kind_of(dir: &Path) -> Result<Option<Kind>> {
        if !Db::exists(dir) {
            return Ok(None);
        }
        Ok(Some(Db::open(dir)?.kind()))
    }

    pub fn kind(&self) -> Kind {
        self.inner.kind()
    }

    pub fn dir(&self) -> &Path {
        self.inner.dir()
    }

    /// The directory as given, for messages.
    pub fn dir_buf(&self) -> PathBuf {
        self.inner.dir().to_path_buf()
    }

    /// What the database holds and what it costs on disk.
    pub fn stats(&self) -> Result<DbStats> {
        Ok(tabiya_db::collect_stats(&self.inner)?)
    }

    /// Commits made through this handle: answers computed at one generation stay true until
    /// it changes (what a cache of answers keys on).
    pub fn generation(&self) -> u64 {
        self.inner.generation()
    }

    /// Moves whenever an engine evaluation is stored: answers that show evaluations are out
    /// of date when it changed.
    pub fn eval_generation(&self) -> u64 {
        self.inner.eval_generation()
    }

    /// Number of games stored.
    pub fn game_count(&self) -> Result<u64> {
        Ok(self.inner.game_count()?)
    }
}
