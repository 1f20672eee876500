//! Tabiya's storage interface and its embedded implementation on [redb].
//!
//! Everything Tabiya keeps on disk goes through this one narrow interface: named tables of
//! byte keys to byte values, read in snapshot transactions and written in ACID write
//! transactions that either commit whole or leave no trace (a `kill -9` in the middle of a
//! write loses that transaction only). Keys sort bytewise. Nothing above this crate names
//! redb, so the engine can be swapped by rewriting this file alone.
//!
//! [redb]: https://docs.rs/redb

use std::path::{Path, PathBuf};

use redb::{ReadableTable, ReadableTableMetadata, TableDefinition};

/// The file inside a database directory that holds the store.
pub const STORE_FILE: &str = "tabiya.redb";

mod backing;
mod checked;
mod error;
mod guard;
mod opening;
mod sums;
mod verify;

pub use error::{Result, StoreError};
pub use guard::quiet_storage_panics;
pub use sums::{SUMS_FILE, StoreChanged, SumsDamaged, UNIT, UnitDamaged};
pub use verify::{Integrity, verify};

use backing::{Backing, Engine};
use opening::open_sums;

/// Why a store is open read-only.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ReadOnly(String);

/// What opening a failed store again said, the last time it was tried.
#[derive(Debug, thiserror::Error)]
#[error("{0}; it is tried again at the next request")]
struct Reopening(String);

fn def(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

/// An open store: writable, or read-only when its file or directory cannot be written.
///
/// A store whose file failed it (a full disk, a read error) is opened again at its next
/// transaction once no write is under way (see `backing.rs`): a server keeps serving after
/// the disk has room again, without a restart. Reads in progress then end with an error.
pub struct Store {
    /// The current opening of the file; `None` after one failed and opening it again did
    /// not succeed yet.
    db: std::sync::RwLock<Option<std::sync::Arc<Backing>>>,
    path: PathBuf,
    sums: std::sync::Arc<sums::Sums>,
    cache_bytes: usize,
    /// Why the store is read-only, when it is (said when a write is refused).
    read_only: Option<String>,
    /// When the file failed and what opening it again said, if that failed too: it is
    /// tried again at most every [`Store::REOPEN_EVERY`].
    reopening: std::sync::Mutex<Option<(std::time::Instant, String)>>,
}

/// Whether an error opening a file for writing means the file or its directory is read-only.
fn read_only_reason(e: &std::io::Error) -> Option<&'static str> {
    match e.kind() {
        std::io::ErrorKind::ReadOnlyFilesystem => Some("its file system is mounted read-only"),
        std::io::ErrorKind::PermissionDenied => Some("its file cannot be written (permissions)"),
        _ => None,
    }
}

/// How much room a table takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSize {
    pub entries: u64,
    /// Bytes of keys and values stored.
    pub stored_bytes: u64,
    /// Bytes of pages the table occupies on disk (stored bytes, page overhead, free space).
    pub allocated_bytes: u64,
}

impl Store {
    /// Opens the store in `dir`, creating the directory and the store if needed, with a page
    /// cache of [`Store::DEFAULT_CACHE`] bytes.
    pub fn open(dir: &Path) -> Result<Store> {
        Store::open_with_cache(dir, Store::DEFAULT_CACHE)
    }

    /// The bound of this store's page cache, in bytes.
    pub fn cache_bytes(&self) -> usize {
        self.cache_bytes
    }

    /// Page cache of [`Store::open`]: enough for an import's write buffer and hot pages.
    pub const DEFAULT_CACHE: usize = 256 << 20;

    /// [`Store::open`] with a page cache of at most `cache_bytes` (memory is taken as pages
    /// are read, up to that bound).
    ///
    /// An existing store whose file or directory cannot be written (a read-only mount, an
    /// immutable file, no write permission) is opened read-only: it answers reads, and every
    /// write is refused with an error saying why ([`StoreError::is_read_only`]).
    ///
    /// A store held by another process is refused ([`StoreError::is_in_use`]) after a wait
    /// of up to [`Store::IN_USE_WAIT`]: a lock is also held for an instant by any child
    /// process started meanwhile (between its fork and its exec it holds a copy of every
    /// descriptor), so a store closed and opened again in a process that starts others
    /// would otherwise be refused by chance.
    pub fn open_with_cache(dir: &Path, cache_bytes: usize) -> Result<Store> {
        let start = std::time::Instant::now();
        loop {
            match Store::open_once(dir, cache_bytes) {
                Err(e) if e.is_in_use() && start.elapsed() < Store::IN_USE_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                done => return done,
            }
        }
    }

    /// How long [`Store::open_with_cache`] waits for a store held by another process.
    pub const IN_USE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

    fn open_once(dir: &Path, cache_bytes: usize) -> Result<Store> {
        let path = dir.join(STORE_FILE);
        if path.is_file()
            && let Err(e) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
            && let Some(reason) = read_only_reason(&e)
        {
            return Store::open_read_only(path, cache_bytes, reason);
        }
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::new(format!("creating database directory {}", dir.display()), e)
        })?;
        let sums = open_sums(&path, true)?;
        let backing = Backing::writable(&path, cache_bytes, &sums)?;
        Ok(Store::with(backing, path, sums, cache_bytes, None))
    }

    fn with(
        backing: Backing,
        path: PathBuf,
        sums: std::sync::Arc<sums::Sums>,
        cache_bytes: usize,
        read_only: Option<String>,
    ) -> Store {
        Store {
            db: std::sync::RwLock::new(Some(std::sync::Arc::new(backing))),
            path,
            sums,
            cache_bytes,
            read_only,
            reopening: std::sync::Mutex::new(None),
        }
    }

    fn open_read_only(path: PathBuf, cache_bytes: usize, reason: &str) -> Result<Store> {
        let sums = open_sums(&path, false)?;
        let backing = Backing::read_only(&path, cache_bytes, &sums, reason)?;
        Ok(Store::with(
            backing,
            path,
            sums,
            cache_bytes,
            Some(reason.to_string()),
        ))
    }

    /// How often a store whose file failed it is tried again while opening it fails.
    pub const REOPEN_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

    /// The current opening of the file: opened again first when it failed (see [`Store`]).
    fn backing(&self) -> Result<std::sync::Arc<Backing>> {
        if let Some(b) = self.db.read().unwrap_or_else(|p| p.into_inner()).as_ref()
            && !b.failed()
        {
            return Ok(b.clone());
        }
        self.reopen()
    }

    fn reopen(&self) -> Result<std::sync::Arc<Backing>> {
        let mut slot = self.db.write().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = slot.as_ref()
            && (!b.failed() || std::sync::Arc::strong_count(b) > 1)
        {
            // Opened again meanwhile; or a write is under way on the failed opening (it will
            // fail, and the next transaction opens the file again).
            return Ok(b.clone());
        }
        let mut reopening = self.reopening.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, why)) = reopening.as_ref()
            && at.elapsed() < Store::REOPEN_EVERY
        {
            return Err(StoreError::new(
                format!(
                    "the database {} failed at an I/O error and could not be opened again yet",
                    self.path.display()
                ),
                Reopening(why.clone()),
            ));
        }
        // The failed opening closes (what a write left half done is rolled back at the next
        // opening, as after a crash), then the file is opened again with its sums.
        drop(slot.take());
        let opened = match &self.read_only {
            None => Backing::writable(&self.path, self.cache_bytes, &self.sums),
            Some(why) => Backing::read_only(&self.path, self.cache_bytes, &self.sums, why),
        };
        match opened {
            Ok(b) => {
                let b = std::sync::Arc::new(b);
                *slot = Some(b.clone());
                *reopening = None;
                Ok(b)
            }
            Err(e) => {
                let said = e.to_string();
                *reopening = Some((std::time::Instant::now(), said));
                Err(e)
            }
        }
    }

    /// Runs `f` and says which spans of the store file (offset, length) were read from disk
    /// meanwhile: pages not already in the store's cache. On a store just opened, the pages
    /// a lookup goes through, root to leaf — how a fault test finds the page that holds an
    /// entry from the store's own structure rather than from an offset.
    pub fn reads_during<R>(&self, f: impl FnOnce() -> R) -> (R, Vec<(u64, u64)>) {
        self.sums.record(true);
        let r = f();
        (r, self.sums.record(false))
    }

    /// Whether every unit read from the store's file is checked against its sum (not for a
    /// read-only store that has no sums yet, or was not closed cleanly: its sums cannot be
    /// written again without verifying it, which writes).
    pub fn reads_verified(&self) -> bool {
        self.sums.trusted()
    }

    /// Why the store is read-only, when it is.
    pub fn read_only(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    fn writable(&self, what: &str) -> Result<()> {
        match &self.read_only {
            None => Ok(()),
            Some(why) => {
                let mut e = StoreError::new(
                    format!(
                        "{what} refused: the database {} is read-only",
                        self.path.display()
                    ),
                    ReadOnly(why.clone()),
                );
                e.read_only = true;
                Err(e)
            }
        }
    }

    /// True when `dir` holds a store.
    pub fn exists(dir: &Path) -> bool {
        dir.join(STORE_FILE).is_file()
    }

    /// Path of the store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the store file in bytes.
    pub fn file_size(&self) -> u64 {
        std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0)
    }

    /// Bytes the file occupies on disk, where the system says (the store grows its file
    /// ahead of use, and pages never written take no space).
    pub fn disk_usage(&self) -> Option<u64> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(&self.path).ok().map(|m| m.blocks() * 512)
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// Starts a snapshot read.
    pub fn read(&self) -> Result<ReadTx> {
        let file: std::sync::Arc<Path> = self.path.as_path().into();
        let backing = self.backing()?;
        let txn = guard::caught(&file, "starting a read of", || {
            backing
                .begin_read()
                .map_err(|e| StoreError::new(format!("starting a read of {}", file.display()), e))
        })?;
        Ok(ReadTx {
            txn: std::sync::Arc::new(txn),
            file,
        })
    }

    /// Starts a write. Only one write runs at a time; others wait. Refused when the store is
    /// read-only.
    pub fn write(&self) -> Result<WriteTx> {
        self.writable("writing")?;
        let backing = self.backing()?;
        let Engine::Writable(db) = &backing.db else {
            return Err(StoreError::new(
                format!("writing to {}", self.path.display()),
                ReadOnly("opened read-only".into()),
            ));
        };
        let txn = guard::caught(&self.path, "starting a write to", || {
            db.begin_write().map_err(|e| {
                StoreError::new(format!("starting a write to {}", self.path.display()), e)
            })
        })?;
        Ok(WriteTx {
            txn,
            file: self.path.as_path().into(),
            _opening: backing,
        })
    }

    /// Sizes of the named tables (absent tables count as empty).
    pub fn table_sizes(&self, names: &[&str]) -> Result<Vec<(String, TableSize)>> {
        let read = self.read()?;
        let mut out = Vec::new();
        for &name in names {
            let size =
                match guard::caught(&self.path, "sizing", || Ok(read.txn.open_table(def(name))))? {
                    Ok(t) => {
                        let stats = t
                            .stats()
                            .map_err(|e| StoreError::new(format!("sizing table {name}"), e))?;
                        TableSize {
                            entries: t.len().map_err(|e| {
                                StoreError::new(format!("counting table {name}"), e)
                            })?,
                            stored_bytes: stats.stored_bytes(),
                            allocated_bytes: stats.stored_bytes()
                                + stats.metadata_bytes()
                                + stats.fragmented_bytes(),
                        }
                    }
                    Err(redb::TableError::TableDoesNotExist(_)) => TableSize::default(),
                    Err(e) => return Err(StoreError::new(format!("opening table {name}"), e)),
                };
            out.push((name.to_string(), size));
        }
        Ok(out)
    }

    /// Rewrites the file to drop free pages (after large deletions).
    pub fn compact(&mut self) -> Result<()> {
        self.writable("compacting")?;
        let path = self.path.clone();
        // A failed opening is opened again first; no transaction of this store is alive
        // (it is borrowed mutably), so the opening is this store's alone.
        self.backing()?;
        let slot = self.db.get_mut().unwrap_or_else(|p| p.into_inner());
        let Some(Engine::Writable(db)) = slot
            .as_mut()
            .and_then(std::sync::Arc::get_mut)
            .map(|b| &mut b.db)
        else {
            return Err(StoreError::new(
                format!("compacting {}", path.display()),
                ReadOnly("a transaction of the store is still alive".into()),
            ));
        };
        guard::caught(&path, "compacting", || {
            db.compact()
                .map_err(|e| StoreError::new(format!("compacting {}", path.display()), e))
        })?;
        Ok(())
    }
}

/// A snapshot read: sees exactly the writes committed before it started. Clones share it
/// (it can be kept to answer from one state while writes go on).
#[derive(Clone)]
pub struct ReadTx {
    txn: std::sync::Arc<redb::ReadTransaction>,
    file: std::sync::Arc<Path>,
}

impl ReadTx {
    /// Opens a table for reading; a table never written reads as empty.
    pub fn table(&self, name: &str) -> Result<TableRef> {
        let file = self.file.clone();
        let opened = guard::caught(&file, format_args!("opening table {name} of"), || {
            Ok(self.txn.open_table(def(name)))
        })?;
        match opened {
            Ok(t) => Ok(TableRef {
                name: name.to_string(),
                table: Some(t),
                file,
            }),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(TableRef {
                name: name.to_string(),
                table: None,
                file,
            }),
            Err(e) => Err(StoreError::new(
                format!("opening table {name} of {}", file.display()),
                e,
            )),
        }
    }
}

/// A table opened for reading.
pub struct TableRef {
    name: String,
    table: Option<redb::ReadOnlyTable<&'static [u8], &'static [u8]>>,
    file: std::sync::Arc<Path>,
}

impl TableRef {
    /// What a failed read of this table was doing, naming the file.
    fn doing(&self, what: &str) -> String {
        format!("{what} table {} of {}", self.name, self.file.display())
    }

    /// Calls `f` with the value of `key`, if present, without copying it.
    pub fn get_with<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        let Some(t) = &self.table else {
            return Ok(None);
        };
        let doing = || self.doing("reading");
        guard::caught(
            &self.file,
            format_args!("reading table {} of", self.name),
            || {
                let v = t.get(key).map_err(|e| StoreError::new(doing(), e))?;
                Ok(v.map(|g| f(g.value())))
            },
        )
    }

    /// The value of `key`, copied.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_with(key, <[u8]>::to_vec)
    }

    /// The greatest key, copied (`None`: the table is empty).
    pub fn last_key(&self) -> Result<Option<Vec<u8>>> {
        let Some(t) = &self.table else {
            return Ok(None);
        };
        let doing = || self.doing("reading the last key of");
        guard::caught(
            &self.file,
            format_args!("reading the last key of table {} of", self.name),
            || {
                let v = t.last().map_err(|e| StoreError::new(doing(), e))?;
                Ok(v.map(|(k, _)| k.value().to_vec()))
            },
        )
    }

    /// Visits entries with `from <= key < to` in key order until `f` returns false.
    pub fn scan(
        &self,
        from: &[u8],
        to: Option<&[u8]>,
        mut f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let Some(t) = &self.table else { return Ok(()) };
        let err = |e: redb::StorageError| StoreError::new(self.doing("scanning"), e);
        guard::caught(
            &self.file,
            format_args!("scanning table {} of", self.name),
            || {
                let iter = match to {
                    Some(to) => t.range::<&[u8]>(from..to).map_err(err)?,
                    None => t.range::<&[u8]>(from..).map_err(err)?,
                };
                for item in iter {
                    let (k, v) = item.map_err(err)?;
                    if !f(k.value(), v.value()) {
                        break;
                    }
                }
                Ok(())
            },
        )
    }

    /// The last entry with key `<= key`.
    pub fn floor(&self, key: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let Some(t) = &self.table else {
            return Ok(None);
        };
        let err = |e: redb::StorageError| StoreError::new(self.doing("reading"), e);
        guard::caught(
            &self.file,
            format_args!("reading table {} of", self.name),
            || {
                let mut iter = t.range::<&[u8]>(..=key).map_err(err)?;
                match iter.next_back() {
                    Some(item) => {
                        let (k, v) = item.map_err(err)?;
                        Ok(Some((k.value().to_vec(), v.value().to_vec())))
                    }
                    None => Ok(None),
                }
            },
        )
    }

    /// Number of entries.
    pub fn len(&self) -> Result<u64> {
        let Some(t) = &self.table else { return Ok(0) };
        guard::caught(
            &self.file,
            format_args!("counting table {} of", self.name),
            || {
                t.len()
                    .map_err(|e| StoreError::new(self.doing("counting"), e))
            },
        )
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

/// A write transaction: nothing it does is visible or durable until [`WriteTx::commit`].
/// Dropping it without committing discards everything.
pub struct WriteTx {
    txn: redb::WriteTransaction,
    file: std::sync::Arc<Path>,
    /// The opening it writes through: not closed while it lives (see [`Store`]).
    _opening: std::sync::Arc<Backing>,
}

impl WriteTx {
    /// Runs `f` with a table open for writing (created if needed).
    pub fn with_table<R>(
        &self,
        name: &str,
        f: impl FnOnce(&mut TableMut<'_>) -> Result<R>,
    ) -> Result<R> {
        let mut t = self.table(name)?;
        f(&mut t)
    }

    /// Opens a table for writing (created if needed). Several different tables may be open at
    /// once; drop them before committing.
    pub fn table<'t>(&'t self, name: &'t str) -> Result<TableMut<'t>> {
        let table = guard::caught(&self.file, format_args!("opening table {name} of"), || {
            self.txn.open_table(def(name)).map_err(|e| {
                StoreError::new(
                    format!("opening table {name} of {}", self.file.display()),
                    e,
                )
            })
        })?;
        Ok(TableMut {
            name,
            table,
            file: &self.file,
        })
    }

    /// Makes every write of this transaction durable and visible, all at once. When it fails
    /// (a full disk), nothing of the transaction is kept.
    pub fn commit(self) -> Result<()> {
        let file = self.file.clone();
        guard::caught(&file, "committing to", || {
            self.txn
                .commit()
                .map_err(|e| StoreError::new(format!("committing to {}", file.display()), e))
        })
    }
}

fn table_err(name: &str, file: &Path, e: redb::StorageError) -> StoreError {
    StoreError::new(format!("writing table {name} of {}", file.display()), e)
}

/// A table open for writing.
pub struct TableMut<'t> {
    name: &'t str,
    table: redb::Table<'t, &'static [u8], &'static [u8]>,
    file: &'t Path,
}

impl TableMut<'_> {
    fn err(&self, e: redb::StorageError) -> StoreError {
        table_err(self.name, self.file, e)
    }

    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let (name, file) = (self.name, self.file);
        self.table
            .insert(key, value)
            .map_err(|e| table_err(name, file, e))?;
        Ok(())
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let v = self.table.get(key).map_err(|e| self.err(e))?;
        Ok(v.map(|g| g.value().to_vec()))
    }

    pub fn remove(&mut self, key: &[u8]) -> Result<bool> {
        let (name, file) = (self.name, self.file);
        let v = self
            .table
            .remove(key)
            .map_err(|e| table_err(name, file, e))?;
        Ok(v.is_some())
    }

    /// Removes every entry with `from <= key < to`.
    pub fn remove_range(&mut self, from: &[u8], to: &[u8]) -> Result<u64> {
        let mut n = 0;
        let keys: Vec<Vec<u8>> = {
            let iter = self
                .table
                .range::<&[u8]>(from..to)
                .map_err(|e| self.err(e))?;
            let mut keys = Vec::new();
            for item in iter {
                let (k, _) = item.map_err(|e| self.err(e))?;
                keys.push(k.value().to_vec());
            }
            keys
        };
        for k in keys {
            let (name, file) = (self.name, self.file);
            self.table
                .remove(k.as_slice())
                .map_err(|e| table_err(name, file, e))?;
            n += 1;
        }
        Ok(n)
    }

    /// Visits entries with `from <= key < to` in key order until `f` returns false.
    pub fn scan(
        &self,
        from: &[u8],
        to: Option<&[u8]>,
        mut f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let iter = match to {
            Some(to) => self
                .table
                .range::<&[u8]>(from..to)
                .map_err(|e| self.err(e))?,
            None => self.table.range::<&[u8]>(from..).map_err(|e| self.err(e))?,
        };
        for item in iter {
            let (k, v) = item.map_err(|e| self.err(e))?;
            if !f(k.value(), v.value()) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncommitted_writes_vanish_committed_persist() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            let w = store.write().unwrap();
            w.with_table("t", |t| t.put(b"a", b"1")).unwrap();
            w.commit().unwrap();
            let w = store.write().unwrap();
            w.with_table("t", |t| t.put(b"b", b"2")).unwrap();
            drop(w);
        }
        let store = Store::open(dir.path()).unwrap();
        let r = store.read().unwrap();
        let t = r.table("t").unwrap();
        assert_eq!(t.get(b"a").unwrap(), Some(b"1".to_vec()));
        assert_eq!(t.get(b"b").unwrap(), None);
        assert_eq!(r.table("missing").unwrap().len().unwrap(), 0);
    }

    #[test]
    fn floor_and_scan() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let w = store.write().unwrap();
        w.with_table("t", |t| {
            for k in [b"b", b"d", b"f"] {
                t.put(k, k)?;
            }
            Ok(())
        })
        .unwrap();
        w.commit().unwrap();
        let r = store.read().unwrap();
        let t = r.table("t").unwrap();
        assert_eq!(t.floor(b"e").unwrap().unwrap().0, b"d".to_vec());
        assert_eq!(t.floor(b"a").unwrap(), None);
        let mut seen = Vec::new();
        t.scan(b"c", Some(b"g"), |k, _| {
            seen.push(k.to_vec());
            true
        })
        .unwrap();
        assert_eq!(seen, vec![b"d".to_vec(), b"f".to_vec()]);
    }
}
