//! Every engine process Tabiya started, so that none outlives it.
//!
//! Each child is killed by the kernel when the thread that started it ends (Linux's
//! `PR_SET_PDEATHSIG`, set in the child before it runs the engine): a Tabiya killed with
//! `kill -9` leaves no engine behind. For the orderly ways out — Ctrl-C, SIGTERM, an error —
//! [`kill_all`] kills and reaps every engine still registered; the command line calls it
//! from its signal handler, and dropping an engine reaps it too.

use std::process::{Child, Command};
use std::sync::{Arc, Mutex, Weak};

static LIVE: Mutex<Vec<Weak<Mutex<Child>>>> = Mutex::new(Vec::new());

pub(crate) fn register(child: &Arc<Mutex<Child>>) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(child));
    }
}

pub(crate) fn forget(child: &Arc<Mutex<Child>>) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Arc::as_ptr(child)));
    }
}

/// Kills and reaps every engine process still running; returns how many there were.
pub fn kill_all() -> usize {
    let live: Vec<Arc<Mutex<Child>>> = match LIVE.lock() {
        Ok(mut l) => l.drain(..).filter_map(|w| w.upgrade()).collect(),
        Err(_) => return 0,
    };
    let mut n = 0;
    for child in live {
        // An engine thread may hold the lock for a moment (it never blocks while holding it).
        if let Ok(mut c) = child.lock()
            && c.try_wait().ok().flatten().is_none()
        {
            let _ = c.kill();
            let _ = c.wait();
            n += 1;
        }
    }
    n
}

/// The engine processes still running (for tests and diagnostics).
pub fn running() -> Vec<u32> {
    match LIVE.lock() {
        Ok(l) => l
            .iter()
            .filter_map(|w| w.upgrade())
            .filter_map(|c| c.lock().ok().map(|c| c.id()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Makes the child be killed when the thread starting it ends (Linux).
pub(crate) fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id() as libc::pid_t;
        #[allow(unsafe_code)]
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // prctl(2) and getppid(2), which are async-signal-safe; it allocates nothing and
        // touches no lock. If the parent died before prctl took effect, the child exits.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}
