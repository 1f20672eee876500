//! A question's deadline (kept by `tabiya_db::deadline`, below every answer's loops), its
//! check as a service error of kind `Cancelled`.

pub use tabiya_db::deadline::{passed, within};

use crate::error::{Error, ErrorKind, Result};

/// An error of kind `Cancelled` once this thread's deadline has passed.
pub fn check() -> Result<()> {
    if passed() {
        return Err(Error::new(
            ErrorKind::Cancelled,
            tabiya_db::deadline::PASSED,
        ));
    }
    Ok(())
}
