//! The server's cache of answers (response bodies), bounded in bytes, oldest evicted first.
//!
//! Each answer remembers the generation of its database it was computed at and how to
//! compute it again. After an import through the server the generation moves on; an older
//! answer is still given at once — it is the whole truth of the database as it was, never
//! half an import — while one background thread of low priority computes it again, one
//! answer at a time, so that the cores stay with the questions being asked. The import
//! waits for that thread to bring every answer up to date before it reports that it is done.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use crate::served::Served;

/// How an answer is computed (again, for the same question at a later generation).
pub type Compute = Arc<dyn Fn() -> Result<Vec<u8>, tabiya_service::Error> + Send + Sync>;

/// A cached answer: the body, the generation of the database it was computed at, and how
/// to compute it again.
pub struct Cached {
    pub content_type: &'static str,
    pub body: axum::body::Bytes,
    pub generation: u64,
    /// For answers showing engine evaluations: the database's evaluation generation they
    /// were computed at (a newer evaluation makes them a miss: computed again at once).
    pub evals_at: Option<u64>,
    pub served: Arc<Served>,
    pub compute: Compute,
}

impl Cached {
    /// Whether its database has changed since it was computed.
    pub fn is_stale(&self) -> bool {
        self.generation != self.served.db.generation()
    }

    /// Whether an evaluation was stored since it was computed, when it shows them.
    pub fn evals_changed(&self) -> bool {
        self.evals_at
            .is_some_and(|g| g != self.served.db.eval_generation())
    }
}

/// The cache, with its refreshing thread.
pub struct Cache {
    shared: Arc<Shared>,
    /// Work for the refreshing thread (it stops when the cache is dropped).
    jobs: Mutex<Sender<Job>>,
}

struct Shared {
    inner: Mutex<Inner>,
    max_bytes: usize,
}

#[derive(Default)]
struct Inner {
    map: HashMap<String, Arc<Cached>>,
    order: VecDeque<String>,
    bytes: usize,
    /// Keys waiting to be computed again (each at most once in the queue).
    queued: HashSet<String>,
}

enum Job {
    Refresh(String),
    /// Everything queued before it is done.
    Barrier(Sender<()>),
}

impl Cache {
    /// A cache of at most `max_bytes` of answers, and its refreshing thread.
    pub fn new(max_bytes: usize) -> Cache {
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner::default()),
            max_bytes,
        });
        let (tx, rx) = channel();
        let worker = Arc::clone(&shared);
        // Without the thread, stale answers stay as they are until asked for afresh.
        let _ = std::thread::Builder::new()
            .name("tabiya-refresh".into())
            .spawn(move || refresh_loop(&worker, &rx));
        Cache {
            shared,
            jobs: Mutex::new(tx),
        }
    }

    pub fn get(&self, key: &str) -> Option<Arc<Cached>> {
        self.shared.inner.lock().ok()?.map.get(key).cloned()
    }

    pub fn put(&self, key: String, value: Cached) {
        self.shared.put(key, value);
    }

    /// Queues `key`'s answer to be computed again (unless it already is).
    pub fn refresh(&self, key: &str) {
        let new = self
            .shared
            .inner
            .lock()
            .is_ok_and(|mut c| c.queued.insert(key.to_string()));
        if new {
            self.send(Job::Refresh(key.to_string()));
        }
    }

    /// Computes every stale answer again and returns when they are all up to date (a
    /// blocking call: for the import's thread).
    pub fn refresh_stale_and_wait(&self) {
        let stale: Vec<String> = match self.shared.inner.lock() {
            Ok(c) => c
                .map
                .iter()
                .filter(|(_, v)| v.is_stale())
                .map(|(k, _)| k.clone())
                .collect(),
            Err(_) => return,
        };
        for key in stale {
            self.refresh(&key);
        }
        let (done, wait) = channel();
        if self.send(Job::Barrier(done)) {
            let _ = wait.recv();
        }
    }

    fn send(&self, job: Job) -> bool {
        self.jobs.lock().is_ok_and(|tx| tx.send(job).is_ok())
    }
}

impl Shared {
    fn put(&self, key: String, value: Cached) {
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

/// The refreshing thread: one answer at a time, at low priority.
fn refresh_loop(shared: &Shared, jobs: &Receiver<Job>) {
    crate::priority::lower_this_threads_priority();
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Barrier(done) => {
                let _ = done.send(());
            }
            Job::Refresh(key) => {
                let entry = shared.inner.lock().ok().and_then(|mut c| {
                    c.queued.remove(&key);
                    c.map.get(&key).cloned()
                });
                let Some(old) = entry.filter(|e| e.is_stale()) else {
                    continue;
                };
                let generation = old.served.db.generation();
                let evals_at = old.evals_at.map(|_| old.served.db.eval_generation());
                // An answer that fails now (it did not before) is dropped: asked again, it
                // is computed afresh and its error given.
                match (old.compute)() {
                    Ok(body) => shared.put(
                        key,
                        Cached {
                            content_type: old.content_type,
                            body: body.into(),
                            generation,
                            evals_at,
                            served: Arc::clone(&old.served),
                            compute: Arc::clone(&old.compute),
                        },
                    ),
                    Err(_) => {
                        if let Ok(mut c) = shared.inner.lock()
                            && let Some(v) = c.map.remove(&key)
                        {
                            c.bytes -= v.body.len() + key.len();
                            c.order.retain(|k| k != &key);
                        }
                    }
                }
            }
        }
    }
}
