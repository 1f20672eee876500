//! What a server serves: its databases and books, opened once at start, and a cache of
//! answers keyed by each database's generation (a commit — an import through the server —
//! changes it, so no answer outlives the data it was computed from).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tabiya_service::books::{AnyBook, BookFile, BookFormat};
use tabiya_service::{Db, Kind};

/// A served database.
pub struct Served {
    pub name: String,
    pub dir: PathBuf,
    pub db: Db,
    pub kind: Kind,
    /// One import at a time into this database.
    pub importing: tokio::sync::Mutex<()>,
}

/// A served book, kept open.
pub struct ServedBook {
    pub name: String,
    pub path: PathBuf,
    pub format: BookFormat,
    pub book: AnyBook,
}

/// Everything the handlers share.
pub struct AppState {
    pub dbs: Vec<Arc<Served>>,
    pub books: Vec<ServedBook>,
    pub cache: Cache,
    /// The secret a local `tabiya import` shows to hand its import to this server.
    pub token: String,
    /// The address the server listens on.
    pub url: String,
}

impl AppState {
    /// A database by name, or the first of `kind` (the default for the Lichess endpoints).
    pub fn db(&self, name: Option<&str>, kind: Option<Kind>) -> Option<&Arc<Served>> {
        match name {
            Some(n) => self.dbs.iter().find(|d| d.name == n),
            None => self.dbs.iter().find(|d| kind.is_none_or(|k| d.kind == k)),
        }
    }
}

/// Opens a book to serve (errors name the file).
pub fn open_book(name: String, path: PathBuf) -> tabiya_service::Result<ServedBook> {
    let file = BookFile::new(path.clone());
    let book = tabiya_service::books::open(&file)?;
    Ok(ServedBook {
        name,
        format: book.format(),
        path,
        book,
    })
}

/// How an answer is computed again (for the same question, at a later generation).
pub type Compute = Arc<dyn Fn() -> Result<Vec<u8>, tabiya_service::Error> + Send + Sync>;

/// A cached answer: the body, the generation of the database it was computed at, and how
/// to compute it again.
pub struct Cached {
    pub content_type: &'static str,
    pub body: axum::body::Bytes,
    pub generation: u64,
    pub served: Arc<Served>,
    pub compute: Compute,
}

/// A bounded cache of answers, evicting the oldest first. An answer of an older generation
/// is still given (it was true of the whole database as it was) while it is computed again:
/// see `crate::cached`.
pub struct Cache {
    inner: Mutex<CacheInner>,
    max_bytes: usize,
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<String, Arc<Cached>>,
    order: VecDeque<String>,
    bytes: usize,
    /// Keys being computed again.
    refreshing: std::collections::HashSet<String>,
}

impl Cache {
    pub fn new(max_bytes: usize) -> Cache {
        Cache {
            inner: Mutex::new(CacheInner::default()),
            max_bytes,
        }
    }

    pub fn get(&self, key: &str) -> Option<Arc<Cached>> {
        self.inner.lock().ok()?.map.get(key).cloned()
    }

    /// Marks `key` as being computed again; false when it already is.
    pub fn start_refresh(&self, key: &str) -> bool {
        self.inner
            .lock()
            .is_ok_and(|mut c| c.refreshing.insert(key.to_string()))
    }

    pub fn end_refresh(&self, key: &str) {
        if let Ok(mut c) = self.inner.lock() {
            c.refreshing.remove(key);
        }
    }

    /// The keys whose answers are older than their database now is.
    pub fn stale(&self) -> Vec<(String, Arc<Cached>)> {
        let Ok(c) = self.inner.lock() else {
            return Vec::new();
        };
        c.map
            .iter()
            .filter(|(_, v)| v.generation != v.served.db.generation())
            .map(|(k, v)| (k.clone(), Arc::clone(v)))
            .collect()
    }

    pub fn put(&self, key: String, value: Cached) {
        let size = value.body.len() + key.len();
        if size > self.max_bytes / 16 {
            return;
        }
        let Ok(mut c) = self.inner.lock() else {
            return;
        };
        if let Some(old) = c.map.remove(&key) {
            c.bytes -= old.body.len() + key.len();
            c.order.retain(|k| k != &key);
        }
        while c.bytes + size > self.max_bytes {
            let Some(old) = c.order.pop_front() else {
                break;
            };
            if let Some(v) = c.map.remove(&old) {
                c.bytes -= v.body.len() + old.len();
            }
        }
        c.bytes += size;
        c.order.push_back(key.clone());
        c.map.insert(key, Arc::new(value));
    }
}
