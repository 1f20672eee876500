//! The storage engine's own check of a store file: every page of the committed trees read
//! back and its checksum verified (redb's integrity check), without letting it repair damage
//! by rolling back to an earlier commit.

use std::path::{Path, PathBuf};

use crate::{Result, STORE_FILE, StoreError, guard};

/// What the storage engine's check of a store file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integrity {
    pub file: PathBuf,
    /// The file's length in bytes.
    pub bytes: u64,
    /// Whether the pages were verified (a read-only store cannot be: redb's check writes).
    pub verified: bool,
    /// What is wrong, when something is.
    pub problem: Option<String>,
}

/// Verifies the checksum of every page of the store in `dir` (redb's
/// `set_check_integrity_on_open`). redb would repair a file whose latest commit fails its
/// checksums by going back to the commit before (what it does after a crash): here that
/// repair is refused and reported, since a store closed cleanly that fails them was damaged
/// after it was written. Open the store normally first (it then recovers from a crash), so
/// that only damage is left to find.
pub fn verify(dir: &Path) -> Result<Integrity> {
    let file = dir.join(STORE_FILE);
    let bytes = std::fs::metadata(&file)
        .map_err(|e| StoreError::new(format!("reading {}", file.display()), e))?
        .len();
    let mut out = Integrity {
        file: file.clone(),
        bytes,
        verified: false,
        problem: None,
    };
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&file)
    {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Err(StoreError::new(format!("opening {}", file.display()), e));
        }
        // Read-only: redb's check writes, so the pages are left unverified.
        return Ok(out);
    }
    let opened = guard::caught(&file, "verifying", || {
        Ok(redb::Database::builder()
            .set_cache_size(64 << 20)
            .set_check_integrity_on_open(true)
            .set_repair_callback(|session| {
                // 0.3 is the step that rolls back to the previous commit (redb's `do_repair`).
                if (0.2..0.4).contains(&session.progress()) {
                    session.abort();
                }
            })
            .open(&file))
    });
    match opened {
        Ok(Ok(db)) => {
            drop(db);
            out.verified = true;
        }
        Ok(Err(redb::DatabaseError::DatabaseAlreadyOpen)) => {
            let mut err = StoreError::new(
                format!("verifying {}", file.display()),
                redb::DatabaseError::DatabaseAlreadyOpen,
            );
            err.in_use = true;
            return Err(err);
        }
        Ok(Err(redb::DatabaseError::RepairAborted)) => {
            out.problem = Some(
                "the latest commit's pages fail their checksums (the storage engine would go back to the commit before it, losing that change)".into(),
            );
        }
        Ok(Err(e)) => out.problem = Some(e.to_string()),
        Err(e) => out.problem = Some(e.to_string()),
    }
    Ok(out)
}
