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

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

/// The file inside a database directory that holds the store.
pub const STORE_FILE: &str = "tabiya.redb";

/// A storage error, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("{context}: {source}")]
pub struct StoreError {
    context: String,
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
    in_use: bool,
}

impl StoreError {
    fn new(
        context: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        StoreError {
            context: context.into(),
            source: Box::new(source),
            in_use: false,
        }
    }

    /// True when the store could not be opened because another process has it open (a
    /// store is opened by one process at a time).
    pub fn is_in_use(&self) -> bool {
        self.in_use
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

fn def(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

/// An open store.
pub struct Store {
    db: redb::Database,
    path: PathBuf,
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

    /// Page cache of [`Store::open`]: enough for an import's write buffer and hot pages.
    pub const DEFAULT_CACHE: usize = 256 << 20;

    /// [`Store::open`] with a page cache of at most `cache_bytes` (memory is taken as pages
    /// are read, up to that bound).
    pub fn open_with_cache(dir: &Path, cache_bytes: usize) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::new(format!("creating database directory {}", dir.display()), e)
        })?;
        let path = dir.join(STORE_FILE);
        let db = redb::Database::builder()
            .set_cache_size(cache_bytes)
            .create(&path)
            .map_err(|e| {
                let in_use = matches!(e, redb::DatabaseError::DatabaseAlreadyOpen);
                let mut err = StoreError::new(format!("opening database {}", path.display()), e);
                err.in_use = in_use;
                err
            })?;
        Ok(Store { db, path })
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
        let txn = self
            .db
            .begin_read()
            .map_err(|e| StoreError::new("starting a read", e))?;
        Ok(ReadTx {
            txn: std::sync::Arc::new(txn),
        })
    }

    /// Starts a write. Only one write runs at a time; others wait.
    pub fn write(&self) -> Result<WriteTx> {
        let txn = self
            .db
            .begin_write()
            .map_err(|e| StoreError::new("starting a write", e))?;
        Ok(WriteTx { txn })
    }

    /// Sizes of the named tables (absent tables count as empty).
    pub fn table_sizes(&self, names: &[&str]) -> Result<Vec<(String, TableSize)>> {
        let read = self.read()?;
        let mut out = Vec::new();
        for &name in names {
            let size = match read.txn.open_table(def(name)) {
                Ok(t) => {
                    let stats = t
                        .stats()
                        .map_err(|e| StoreError::new(format!("sizing table {name}"), e))?;
                    TableSize {
                        entries: t
                            .len()
                            .map_err(|e| StoreError::new(format!("counting table {name}"), e))?,
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
        self.db
            .compact()
            .map_err(|e| StoreError::new("compacting the store", e))?;
        Ok(())
    }
}

/// A snapshot read: sees exactly the writes committed before it started. Clones share it
/// (it can be kept to answer from one state while writes go on).
#[derive(Clone)]
pub struct ReadTx {
    txn: std::sync::Arc<redb::ReadTransaction>,
}

impl ReadTx {
    /// Opens a table for reading; a table never written reads as empty.
    pub fn table(&self, name: &str) -> Result<TableRef> {
        match self.txn.open_table(def(name)) {
            Ok(t) => Ok(TableRef {
                name: name.to_string(),
                table: Some(t),
            }),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(TableRef {
                name: name.to_string(),
                table: None,
            }),
            Err(e) => Err(StoreError::new(format!("opening table {name}"), e)),
        }
    }
}

/// A table opened for reading.
pub struct TableRef {
    name: String,
    table: Option<redb::ReadOnlyTable<&'static [u8], &'static [u8]>>,
}

impl TableRef {
    /// Calls `f` with the value of `key`, if present, without copying it.
    pub fn get_with<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        let Some(t) = &self.table else {
            return Ok(None);
        };
        let v = t
            .get(key)
            .map_err(|e| StoreError::new(format!("reading table {}", self.name), e))?;
        Ok(v.map(|g| f(g.value())))
    }

    /// The value of `key`, copied.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_with(key, <[u8]>::to_vec)
    }

    /// Visits entries with `from <= key < to` in key order until `f` returns false.
    pub fn scan(
        &self,
        from: &[u8],
        to: Option<&[u8]>,
        mut f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let Some(t) = &self.table else { return Ok(()) };
        let err =
            |e: redb::StorageError| StoreError::new(format!("scanning table {}", self.name), e);
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
    }

    /// The last entry with key `<= key`.
    pub fn floor(&self, key: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let Some(t) = &self.table else {
            return Ok(None);
        };
        let err =
            |e: redb::StorageError| StoreError::new(format!("reading table {}", self.name), e);
        let mut iter = t.range::<&[u8]>(..=key).map_err(err)?;
        match iter.next_back() {
            Some(item) => {
                let (k, v) = item.map_err(err)?;
                Ok(Some((k.value().to_vec(), v.value().to_vec())))
            }
            None => Ok(None),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> Result<u64> {
        let Some(t) = &self.table else { return Ok(0) };
        t.len()
            .map_err(|e| StoreError::new(format!("counting table {}", self.name), e))
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

/// A write transaction: nothing it does is visible or durable until [`WriteTx::commit`].
/// Dropping it without committing discards everything.
pub struct WriteTx {
    txn: redb::WriteTransaction,
}

impl WriteTx {
    /// Runs `f` with a table open for writing (created if needed).
    pub fn with_table<R>(
        &self,
        name: &str,
        f: impl FnOnce(&mut TableMut<'_>) -> Result<R>,
    ) -> Result<R> {
        let table = self
            .txn
            .open_table(def(name))
            .map_err(|e| StoreError::new(format!("opening table {name}"), e))?;
        let mut t = TableMut { name, table };
        f(&mut t)
    }

    /// Opens a table for writing (created if needed). Several different tables may be open at
    /// once; drop them before committing.
    pub fn table<'t>(&'t self, name: &'t str) -> Result<TableMut<'t>> {
        let table = self
            .txn
            .open_table(def(name))
            .map_err(|e| StoreError::new(format!("opening table {name}"), e))?;
        Ok(TableMut { name, table })
    }

    /// Makes every write of this transaction durable and visible, all at once.
    pub fn commit(self) -> Result<()> {
        self.txn
            .commit()
            .map_err(|e| StoreError::new("committing", e))
    }
}

fn table_err(name: &str, e: redb::StorageError) -> StoreError {
    StoreError::new(format!("writing table {name}"), e)
}

/// A table open for writing.
pub struct TableMut<'t> {
    name: &'t str,
    table: redb::Table<'t, &'static [u8], &'static [u8]>,
}

impl TableMut<'_> {
    fn err(&self, e: redb::StorageError) -> StoreError {
        table_err(self.name, e)
    }

    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let name = self.name;
        self.table
            .insert(key, value)
            .map_err(|e| table_err(name, e))?;
        Ok(())
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let v = self.table.get(key).map_err(|e| self.err(e))?;
        Ok(v.map(|g| g.value().to_vec()))
    }

    pub fn remove(&mut self, key: &[u8]) -> Result<bool> {
        let name = self.name;
        let v = self.table.remove(key).map_err(|e| table_err(name, e))?;
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
            let name = self.name;
            self.table
                .remove(k.as_slice())
                .map_err(|e| table_err(name, e))?;
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
