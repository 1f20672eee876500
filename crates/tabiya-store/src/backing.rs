//! One opening of the store file by redb: writable, or read-only, through the checked
//! backend ([`crate::checked`]), with a flag the backend raises when the file failed it.
//!
//! redb latches its first I/O failure (a full disk, a read error): every later read and
//! write of that opening fails ("Previous I/O error occurred"), even after the cause is
//! gone. So an opening that failed is closed and the file opened again ([`crate::Store`]
//! does it at its next transaction): redb recovers from the failed transaction as from a
//! crash, and nothing committed is lost.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use redb::ReadableDatabase;

use crate::error::{Result, StoreError};
use crate::opening::{changed, judge, open_file, open_redb, open_verified, rebuild};
use crate::sums::{Sums, Verdict};

/// redb on the store file, and whether the file has failed it since it was opened.
pub(crate) struct Backing {
    pub(crate) db: Engine,
    failed: Arc<AtomicBool>,
}

pub(crate) enum Engine {
    Writable(redb::Database),
    ReadOnly(redb::ReadOnlyDatabase),
}

impl Backing {
    /// Opens `path` for writing (creating it when empty), judged by its sums: trusted when
    /// sealed at a clean close, verified whole and its sums written again otherwise.
    pub(crate) fn writable(path: &Path, cache_bytes: usize, sums: &Arc<Sums>) -> Result<Backing> {
        let failed = Arc::new(AtomicBool::new(false));
        let (file, len) = open_file(path, true)?;
        let verdict = judge(sums, path, &file, len)?;
        let mut b = redb::Database::builder();
        b.set_cache_size(cache_bytes);
        let db = match verdict {
            Verdict::Trusted | Verdict::Fresh => open_redb(path, &b, file, sums, &failed)?,
            Verdict::Changed(what) => return Err(changed(path, sums, &what)),
            Verdict::Unverified(_) => {
                // Opened once as it is (redb recovers from a crash there), then verified
                // whole, so that only damage is left to find; then its sums written again.
                drop(open_redb(path, &b, file, sums, &failed)?);
                let db = open_verified(path, cache_bytes, sums, &failed)??;
                rebuild(sums, path)?;
                db
            }
        };
        Ok(Backing {
            db: Engine::Writable(db),
            failed,
        })
    }

    /// Opens `path` read-only (`reason`: why it cannot be written, said in errors).
    pub(crate) fn read_only(
        path: &Path,
        cache_bytes: usize,
        sums: &Arc<Sums>,
        reason: &str,
    ) -> Result<Backing> {
        let failed = Arc::new(AtomicBool::new(false));
        let (file, len) = open_file(path, false)?;
        if let Verdict::Changed(what) = judge(sums, path, &file, len)? {
            return Err(changed(path, sums, &what));
        }
        let backend = crate::checked::Checked::new(file, sums.clone(), failed.clone())
            .map_err(|e| StoreError::new(format!("opening database {}", path.display()), e))?;
        let db = crate::guard::caught(path, "opening", || {
            redb::Database::builder()
                .set_cache_size(cache_bytes)
                .open_read_only_with_backend(backend)
                .map_err(|e| {
                    let in_use = matches!(e, redb::DatabaseError::DatabaseAlreadyOpen);
                    let what = if matches!(e, redb::DatabaseError::RepairAborted) {
                        format!(
                            "opening database {} read-only ({reason}): it was not closed cleanly and needs a recovery, which writes; open it once where it can be written",
                            path.display()
                        )
                    } else {
                        format!("opening database {} read-only ({reason})", path.display())
                    };
                    let mut err = StoreError::new(what, e);
                    err.in_use = in_use;
                    err
                })
        })?;
        Ok(Backing {
            db: Engine::ReadOnly(db),
            failed,
        })
    }

    /// Whether the file failed this opening (redb then fails everything after).
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    pub(crate) fn begin_read(
        &self,
    ) -> std::result::Result<redb::ReadTransaction, redb::TransactionError> {
        match &self.db {
            Engine::Writable(db) => db.begin_read(),
            Engine::ReadOnly(db) => db.begin_read(),
        }
    }
}
