//! `tabiya check`: a database verified page by page, table by table, and its index against
//! its stored games (the work is `tabiya_db::check`'s; see `docs/reliability.md`).

use std::path::Path;

pub use tabiya_db::{CheckProblem, CheckReport};

use crate::error::Result;

/// Checks the database in `dir`. Damage found is in the report (`ok()` false), not an error;
/// an error means the check could not run (no database there, or another process has it).
pub fn check(dir: &Path) -> Result<CheckReport> {
    Ok(tabiya_db::check(dir)?)
}

/// Verifies every page's checksum of the database in `dir` (the first step of [`check`]):
/// `Ok(true)` verified, `Ok(false)` read only (the storage engine cannot verify it), an
/// error of kind `Corrupt` naming the file when a page fails.
pub fn verify_pages(dir: &Path) -> Result<bool> {
    Ok(tabiya_db::verify_pages(dir)?)
}
