//! The storage engine's panics, made errors. redb trusts a file it closed cleanly: a page
//! damaged since (a flipped byte on disk) can make a read panic inside it rather than return
//! an error. Every call into it that reads pages goes through [`caught`], which turns such a
//! panic into a [`StoreError`] naming the file, and keeps the panic's own report off the
//! terminal (the error says it).

use std::cell::Cell;
use std::path::Path;
use std::sync::Once;

use crate::error::{Damaged, Result, StoreError};

thread_local! {
    /// How many [`caught`] calls this thread is inside.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

/// Installs, once, a panic hook that stays silent for panics [`caught`] turns into errors
/// and hands every other panic to the hook that was there before. [`caught`] calls it; a
/// program may call it first.
pub fn quiet_storage_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Runs `f` (a call into the storage engine about `file`), returning a panic inside it as an
/// error: "`doing` FILE: the file is damaged…". `doing` is only written out then (a
/// `format_args!`, so that every read does not format its words).
pub(crate) fn caught<T>(
    file: &Path,
    doing: impl std::fmt::Display,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    quiet_storage_panics();
    GUARDED.with(|g| g.set(g.get() + 1));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    match out {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_else(|| "a panic".to_string());
            Err(StoreError::new(
                format!("{doing} {}", file.display()),
                Damaged(msg),
            ))
        }
    }
}
