//! Files the book commands write: their folders, and absolute paths for Kvetka sources.

use std::path::{Path, PathBuf};

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

/// `p` as an absolute path (canonical when it exists).
pub(crate) fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}
