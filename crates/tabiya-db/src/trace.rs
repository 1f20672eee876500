//! Timing lines on stderr when `TABIYA_TRACE` is set (imports, merges).

use std::time::Instant;

/// Commits one batch: games, facts, names, duplicate digests and a new index run.
/// Prints a timing line on stderr when `TABIYA_TRACE` is set (for benchmarks).
pub(crate) fn trace(what: &str, since: Instant) {
    if std::env::var_os("TABIYA_TRACE").is_some() {
        eprintln!("[trace] {what}: {:.3} s", since.elapsed().as_secs_f64());
    }
}
