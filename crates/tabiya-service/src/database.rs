//! An open database of either kind: the handle every question is asked of. Opening one
//! opens its store for reading and writing (one process at a time); each question reads
//! one consistent snapshot, so answers never see half of an import.

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use tabiya_db::{
    DbStats, Kind, NamedGames, Part, PositionKinds, RatingBin, Ratings, ReachedOpening, Results,
    SpeedGames, Speeds, YearGames,
};

use crate::error::{Error, ErrorKind, Result};

/// An open database, or a set of chess databases answered as one (`Db::open_set`, see
/// `crate::dbset`): explore, games, a game and its PGN answer over every member; what
/// needs one database (imports, edits, notes, cards…) says it is a set.
pub struct Db {
    /// One database, or a set's members in the order given.
    pub(crate) members: Vec<Arc<tabiya_db::Database>>,
}

impl Db {
    /// Opens an existing database (an error of kind `NotFound` when there is none).
    pub fn open(dir: &Path) -> Result<Db> {
        Ok(Db {
            members: vec![Arc::new(tabiya_db::Database::open(dir)?)],
        })
    }

    /// Opens a database, creating it for `kind` (with the given ply cap, chess only) when
    /// the directory holds none.
    pub fn open_or_create(dir: &Path, kind: Kind, max_ply: Option<u32>) -> Result<Db> {
        Ok(Db {
            members: vec![Arc::new(tabiya_db::Database::open_or_create(
                dir, kind, max_ply,
            )?)],
        })
    }

    /// The one database behind this handle; for a set, an error saying that what was
    /// asked needs one database.
    pub(crate) fn inner(&self) -> Result<&tabiya_db::Database> {
        match &self.members[..] {
            [one] => Ok(one.as_ref()),
            many => Err(needs_one(many.len())),
        }
    }

    /// The one database behind this handle, no longer shared (to close or reopen it).
    pub(crate) fn into_inner(mut self) -> Result<tabiya_db::Database> {
        self.inner()?;
        let one = self.members.pop().expect("one member");
        Arc::try_unwrap(one)
            .map_err(|_| Error::new(ErrorKind::InUse, "the database is still in use"))
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

    /// The kind (a set's members are all of one kind).
    pub fn kind(&self) -> Kind {
        self.members[0].kind()
    }

    /// The directory (a set's first member's).
    pub fn dir(&self) -> &Path {
        self.members[0].dir()
    }

    /// The directory as given, for messages.
    pub fn dir_buf(&self) -> PathBuf {
        self.dir().to_path_buf()
    }

    /// Whether this is a set of several databases ([`Db::open_set`]).
    pub fn is_set(&self) -> bool {
        self.members.len() > 1
    }

    /// The directories of the databases answering: one, or a set's members in order.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.members.iter().map(|m| m.dir().to_path_buf()).collect()
    }

    /// Reads each database into its page cache, up to the cache's bound, until `stop` says
    /// so (`tabiya_db::Database::warm_cache`). Returns the bytes read.
    pub fn warm_cache(&self, stop: &dyn Fn() -> bool) -> Result<u64> {
        let mut bytes = 0;
        for m in &self.members {
            bytes += m.warm_cache(stop)?;
        }
        Ok(bytes)
    }

    /// What the database holds and what it costs on disk.
    pub fn stats(&self) -> Result<DbStats> {
        Ok(tabiya_db::collect_stats(self.inner()?)?)
    }

    /// Commits made through this handle (a set's: its members' summed): answers computed at
    /// one generation stay true until it changes (what a cache of answers keys on).
    pub fn generation(&self) -> u64 {
        self.members.iter().map(|m| m.generation()).sum()
    }

    /// Moves whenever an engine evaluation is stored: answers that show evaluations are out
    /// of date when it changed.
    pub fn eval_generation(&self) -> u64 {
        self.members.iter().map(|m| m.eval_generation()).sum()
    }

    /// Number of games stored (a set's: every member's).
    pub fn game_count(&self) -> Result<u64> {
        let mut n = 0;
        for m in &self.members {
            n += m.game_count()?;
        }
        Ok(n)
    }
}

/// What a question needing one database answers when asked of a set.
pub(crate) fn needs_one(members: usize) -> Error {
    Error::bad_request(format!(
        "this is a set of {members} databases, read only: it answers explore, games, a game \
         and its PGN; ask one member for anything else"
    ))
}

impl Db {
    /// Opens `dirs` as one database: one directory opens it alone (its ids unchanged),
    /// several a set of chess databases, each a distinct database (the same directory twice
    /// is refused), all of one kind.
    pub fn open_set(dirs: &[PathBuf]) -> Result<Db> {
        match dirs {
            [] => return Err(Error::bad_request("a set of databases needs at least one")),
            [one] => return Db::open(one),
            _ => {}
        }
        let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
        for d in dirs {
            let real = std::fs::canonicalize(d)
                .map_err(|_| Error::not_found(format!("no database at {}", d.display())))?;
            if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
                return Err(Error::bad_request(format!(
                    "{} and {} are the same database: a set's members must be distinct",
                    first.display(),
                    d.display()
                )));
            }
            seen.push((real, d));
        }
        let mut members = Vec::with_capacity(dirs.len());
        for d in dirs {
            members.push(Arc::new(tabiya_db::Database::open(d)?));
        }
        let kind = |m: &tabiya_db::Database| match m.kind() {
            Kind::Chess => "a chess",
            Kind::Othello => "an Othello",
        };
        if let Some(other) = members.iter().find(|m| m.kind() != members[0].kind()) {
            return Err(Error::bad_request(format!(
                "{} is {} database and {} {} database: a set holds databases of one kind",
                members[0].dir().display(),
                kind(&members[0]),
                other.dir().display(),
                kind(other)
            )));
        }
        if members[0].kind() != Kind::Chess {
            return Err(Error::bad_request(
                "a set of Othello databases is not supported: sets are of chess databases",
            ));
        }
        Ok(Db { members })
    }

    /// A set's member `i` (0-based) alone, sharing the open database.
    pub(crate) fn member(&self, i: usize) -> Db {
        Db {
            members: vec![Arc::clone(&self.members[i])],
        }
    }
}
