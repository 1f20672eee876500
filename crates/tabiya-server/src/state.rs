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

/// A bounded cache of answers (response bodies), evicting the oldest first.
pub struct Cache {
    inner: Mutex<CacheInner>,
    max_bytes: usize,
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<String, Arc<Cached>>,
    order: VecDeque<String>,
    bytes: usize,
}

/// A cached response.
pub struct Cached {
    pub content_type: &'static str,
    pub body: axum::body::Bytes,
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

    pub fn put(&self, key: String, value: Cached) {
        let size = value.body.len() + key.len();
        if size > self.max_bytes / 16 {
            return;
        }
        let Ok(mut c) = self.inner.lock() else {
            return;
        };
        if c.map.contains_key(&key) {
            return;
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
