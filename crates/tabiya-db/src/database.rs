//! A database: a directory holding one store, its kind (chess or Othello), its format version
//! and ply cap, opened for queries or imports, and shrunk after them.

use std::path::{Path, PathBuf};

use tabiya_store::Store;

use crate::schema::meta_get;
pub use crate::schema::{FORMAT_VERSION, GAMES, Kind, META};
use crate::{Error, Result, facts, index, names};

/// An open database.
pub struct Database {
    dir: PathBuf,
    pub(crate) store: Store,
    kind: Kind,
    max_ply: Option<u32>,
    /// Commits made through this handle (imports, merges): what a cache of answers keys on.
    generation: std::sync::atomic::AtomicU64,
    /// Evaluations stored through this handle (see `crate::evals`).
    pub(crate) eval_generation: std::sync::atomic::AtomicU64,
    /// While set, answers come from this state (and its generation), not the latest: see
    /// [`Database::pin_answers`].
    pinned: std::sync::RwLock<Option<(tabiya_store::ReadTx, u64)>>,
    /// Taken by edits, deletions and merges (see `crate::changes`).
    pub(crate) changes: std::sync::Mutex<()>,
    /// The runs' directories last read, and the `runs_version` they were read at (see
    /// [`Database::runs_of`]).
    runs_cache: std::sync::Mutex<Option<(u64, std::sync::Arc<Vec<index::RunDir>>)>>,
}

/// A store error, or, when another process has the store open, the error saying so.
pub(crate) fn in_use(dir: &Path, e: tabiya_store::StoreError) -> Error {
    if e.is_in_use() {
        Error::InUse(format!(
            "the database in {} is open in another process (a `tabiya serve` or an import); it is opened by one process at a time",
            dir.display()
        ))
    } else {
        Error::Store(e)
    }
}

/// Largest page cache of a database opened for queries.
pub const QUERY_CACHE_MAX: usize = 4 << 30;

impl Database {
    /// Opens an existing database for queries: its page cache may grow to hold the whole file
    /// (up to [`QUERY_CACHE_MAX`]), so a long-running reader ends up answering from memory.
    pub fn open(dir: &Path) -> Result<Database> {
        let file = std::fs::metadata(dir.join(tabiya_store::STORE_FILE)).map_or(0, |m| m.len());
        let cache = usize::try_from(file + (64 << 20))
            .unwrap_or(usize::MAX)
            .clamp(Store::DEFAULT_CACHE, QUERY_CACHE_MAX);
        Database::open_with_cache(dir, cache)
    }

    fn open_with_cache(dir: &Path, cache: usize) -> Result<Database> {
        if !Store::exists(dir) {
            return Err(Error::NotFound(format!(
                "no Tabiya database in {} (create one with `tabiya import --db {}`)",
                dir.display(),
                dir.display()
            )));
        }
        let file = dir.join(tabiya_store::STORE_FILE);
        if std::fs::metadata(&file).is_ok_and(|m| m.len() == 0) {
            // redb would make a new store of an empty file: say what it is instead.
            return Err(Error::Corrupt(format!("{} is empty", file.display())));
        }
        let store = Store::open_with_cache(dir, cache).map_err(|e| in_use(dir, e))?;
        let read = store.read()?;
        let kind = match meta_get(&read, "kind")?.as_deref() {
            Some("chess") => Kind::Chess,
            Some("othello") => Kind::Othello,
            Some(k) => {
                return Err(Error::Corrupt(format!(
                    "{}: unknown database kind {k:?}",
                    file.display()
                )));
            }
            None => {
                return Err(Error::Corrupt(format!(
                    "{}: the database has no kind",
                    file.display()
                )));
            }
        };
        let version: u32 = meta_get(&read, "version")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let max_ply = meta_get(&read, "max_ply")?.and_then(|v| v.parse().ok());
        drop(read);
        if version != FORMAT_VERSION {
            if version > FORMAT_VERSION || version == 0 {
                return Err(Error::Usage(format!(
                    "{} was written in format {version}; this Tabiya reads formats 1 to {FORMAT_VERSION}",
                    dir.display()
                )));
            }
            crate::upgrade::upgrade(&store, kind, version)?;
        }
        let mut db = Database {
            dir: dir.to_path_buf(),
            store,
            kind,
            max_ply,
            generation: Default::default(),
            eval_generation: Default::default(),
            changes: Default::default(),
            pinned: Default::default(),
            runs_cache: Default::default(),
        };
        if version < 3 {
            // An upgrade that rewrote blocks leaves their old pages free.
            db.shrink()?;
        }
        if version < 4 {
            // Format 4's names' entries, over what the upgrade committed.
            db.rebuild_names()?;
        }
        Ok(db)
    }

    /// Opens a database, creating it for `kind` (with the given ply cap) if it does not exist.
    pub fn open_or_create(dir: &Path, kind: Kind, max_ply: Option<u32>) -> Result<Database> {
        // An empty file is a store whose creation was cut short (killed before redb wrote
        // its header): made again.
        let empty =
            std::fs::metadata(dir.join(tabiya_store::STORE_FILE)).is_ok_and(|m| m.len() == 0);
        if Store::exists(dir) && !empty {
            let db = Database::open_with_cache(dir, Store::DEFAULT_CACHE)?;
            if db.kind != kind {
                return Err(Error::Usage(format!(
                    "{} is a {} database, not {}",
                    dir.display(),
                    db.kind.as_str(),
                    kind.as_str()
                )));
            }
            if max_ply.is_some() && max_ply != db.max_ply {
                return Err(Error::Usage(format!(
                    "{} indexes {}; --max-ply {} would make its statistics inconsistent",
                    dir.display(),
                    db.max_ply
                        .map_or("every ply".to_string(), |p| format!("up to ply {p}")),
                    max_ply.unwrap_or(0)
                )));
            }
            return Ok(db);
        }
        let store = Store::open(dir).map_err(|e| in_use(dir, e))?;
        let w = store.write()?;
        w.with_table(META, |t| {
            t.put(b"kind", kind.as_str().as_bytes())?;
            t.put(b"version", FORMAT_VERSION.to_string().as_bytes())?;
            if let Some(p) = max_ply {
                t.put(b"max_ply", p.to_string().as_bytes())?;
            }
            Ok(())
        })?;
        w.commit()?;
        Ok(Database {
            dir: dir.to_path_buf(),
            store,
            kind,
            max_ply,
            generation: Default::default(),
            eval_generation: Default::default(),
            changes: Default::default(),
            pinned: Default::default(),
            runs_cache: Default::default(),
        })
    }

    /// Whether `dir` holds a database (an empty store file is a creation cut short: none).
    pub fn exists(dir: &Path) -> bool {
        Store::exists(dir)
            && std::fs::metadata(dir.join(tabiya_store::STORE_FILE)).is_ok_and(|m| m.len() > 0)
    }

    /// How many commits this handle has made: answers computed at one generation stay
    /// true until it changes (nothing else writes while a handle is open: the store is
    /// opened by one process at a time).
    pub fn generation(&self) -> u64 {
        match self.pinned.read().ok().as_deref() {
            Some(Some((_, g))) => *g,
            _ => self.generation.load(std::sync::atomic::Ordering::Acquire),
        }
    }

    /// Until the returned guard is dropped, queries answer from the state committed now: an
    /// import made meanwhile (its several transactions) becomes visible all at once when
    /// the guard goes. (A server imports so while it answers.)
    pub fn pin_answers(&self) -> Result<PinnedAnswers<'_>> {
        let read = self.store.read()?;
        let g = self.generation.load(std::sync::atomic::Ordering::Acquire);
        if let Ok(mut p) = self.pinned.write() {
            *p = Some((read, g));
        }
        Ok(PinnedAnswers { db: self })
    }

    /// The state queries answer from: the pinned one, else the latest.
    pub(crate) fn answering_read(&self) -> Result<tabiya_store::ReadTx> {
        if let Ok(p) = self.pinned.read()
            && let Some((read, _)) = p.as_ref()
        {
            return Ok(read.clone());
        }
        Ok(self.store.read()?)
    }

    /// A commit went through: answers may have changed.
    pub(crate) fn committed(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn max_ply(&self) -> Option<u32> {
        self.max_ply
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Reads the database into its store's page cache, up to the cache's bound, until
    /// `stop` says so ([`crate::Snapshot::warm_cache_until`]): what a server does in the
    /// background once it listens, so that the first answers of each position are read from
    /// memory rather than from the file. Returns the bytes read.
    pub fn warm_cache(&self, stop: &dyn Fn() -> bool) -> Result<u64> {
        self.snapshot()?
            .warm_cache_until(self.store.cache_bytes() as u64, stop)
    }

    /// Number of games stored (as queries see it: see [`Database::pin_answers`]).
    pub fn game_count(&self) -> Result<u64> {
        Ok(self.answering_read()?.table(GAMES)?.len()?)
    }

    /// Number of games stored by the latest commit (for an import's report).
    pub(crate) fn committed_game_count(&self) -> Result<u64> {
        Ok(self.store.read()?.table(GAMES)?.len()?)
    }

    /// [`shrink`](Self::shrink), on the database opened again with a page cache that holds
    /// the whole file (as for queries): the compaction walks the tables several times, and
    /// through an import's cache (256 MB) it reads the file from the system each time — 3.7 s
    /// against 1.7 s for a million games here.
    /// Returns the bytes saved; the database is closed.
    pub fn shrink_reopened(self) -> Result<u64> {
        let dir = self.dir.clone();
        drop(self);
        Database::open(&dir)?.shrink()
    }

    /// Gives free pages back to the file system when they are more than a quarter of the
    /// file (after imports and merges). Returns the bytes saved.
    pub fn shrink(&mut self) -> Result<u64> {
        let before = self.store.file_size();
        // What the tables use is at most what the file occupies on disk: when that alone is
        // under three quarters (a file grown ahead of a big import), no need to size them.
        let clearly = self.store.disk_usage().is_some_and(|d| d * 4 < before * 3);
        if !clearly {
            let names = [
                META,
                GAMES,
                facts::FACTS,
                crate::players::PLAYERS,
                names::NAMES,
                index::RUNS,
                index::BLOCKS,
                index::POSTINGS,
                index::SKETCHES,
                crate::schema::WTHOR,
                crate::schema::EVALS,
            ];
            let used: u64 = self
                .store
                .table_sizes(&names)?
                .iter()
                .map(|(_, s)| s.allocated_bytes)
                .sum();
            if used * 4 >= before * 3 {
                return Ok(0);
            }
        }
        self.store.compact()?;
        Ok(before.saturating_sub(self.store.file_size()))
    }

    /// The runs' directories as `read` sees them, decoded once for every read of the same
    /// runs: at ten million games they are megabytes, which each query used to read and
    /// decode again. Every writer of the runs changes `runs_version` in its own transaction
    /// (`index::put_run`), and one process at a time has the store open, so a directory kept
    /// for a version is the one `read` would load.
    pub(crate) fn runs_of(
        &self,
        read: &tabiya_store::ReadTx,
    ) -> Result<std::sync::Arc<Vec<index::RunDir>>> {
        let version = crate::schema::meta_u64(read, index::RUNS_VERSION)?;
        let mut kept = self.runs_cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((v, runs)) = kept.as_ref()
            && *v == version
        {
            return Ok(runs.clone());
        }
        let runs = std::sync::Arc::new(index::load_runs(read)?);
        *kept = Some((version, runs.clone()));
        Ok(runs)
    }

    /// The index as `read` sees it, with the runs kept for it ([`Database::runs_of`]).
    pub(crate) fn index_reader<'a>(
        &self,
        read: &tabiya_store::ReadTx,
    ) -> Result<index::find::IndexReader<'a>> {
        index::find::IndexReader::new(read, self.runs_of(read)?, self.kind(), self.max_ply())
    }

    /// The index runs, oldest first.
    pub fn runs(&self) -> Result<Vec<index::RunDir>> {
        let read = self.answering_read()?;
        index::load_runs(&read)
    }
}

/// Queries answer from a pinned state while this lives: see [`Database::pin_answers`].
pub struct PinnedAnswers<'a> {
    db: &'a Database,
}

impl Drop for PinnedAnswers<'_> {
    fn drop(&mut self) {
        if let Ok(mut p) = self.db.pinned.write() {
            *p = None;
        }
    }
}
