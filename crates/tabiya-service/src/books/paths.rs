//! Files the book commands write: their folders.

use std::path::Path;

use crate::error::{Context, ErrorKind, Result};

/// Creates the folder `p` goes in (`cannot create DIR`).
pub(crate) fn create_parent(p: &Path) -> Result<()> {
    if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dir(d)?;
    }
    Ok(())
}

/// Creates a folder and its parents (`cannot create DIR`).
pub(crate) fn create_dir(d: &Path) -> Result<()> {
    std::fs::create_dir_all(d).context(ErrorKind::Io, || format!("cannot create {}", d.display()))
}
