//! The served databases read into their page caches in the background once the server
//! listens (`Config::warm_cache`): a position asked for the first time is then answered from
//! memory, as after a long-running server's first minutes, instead of reading each page
//! from the file on first use. One thread, at lowered priority (nice 10); stopped when the server
//! stops.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::served::Served;

/// The warming thread, until [`Warming::stop`].
pub struct Warming {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Starts reading `dbs` into their caches, one after the other (a failed read ends that
/// database's warming: its queries report the error themselves).
pub fn start(dbs: &[Arc<Served>]) -> Warming {
    let stop = Arc::new(AtomicBool::new(false));
    let dbs: Vec<Arc<Served>> = dbs.to_vec();
    let asked = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("tabiya-warm".into())
        .spawn(move || {
            crate::priority::lower_this_threads_priority();
            for d in &dbs {
                if asked.load(Ordering::Relaxed) {
                    break;
                }
                let _ = d.db.warm_cache(&|| asked.load(Ordering::Relaxed));
            }
        })
        .ok();
    Warming { stop, thread }
}

impl Warming {
    /// Stops the warming (within a few hundred entries read) and waits for its thread.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
