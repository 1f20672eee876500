//! Opening a store file with its sums ([`crate::sums`]): the sums locked and judged, the file
//! verified whole by redb when they cannot be trusted, and its sums written again.

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::error::{Result, StoreError};
use crate::sums::{OpenError, Sums, Verdict};

/// The sums of `store`, locked (exclusively when `writable`).
pub(crate) fn open_sums(store: &Path, writable: bool) -> Result<Arc<Sums>> {
    match Sums::open(store, writable) {
        Ok(s) => Ok(Arc::new(s)),
        Err(OpenError::InUse) => {
            let mut e = StoreError::new(
                format!("opening database {}", store.display()),
                InUse("it is open in another process".into()),
            );
            e.in_use = true;
            Err(e)
        }
        Err(OpenError::Io(e)) => Err(StoreError::new(
            format!(
                "opening the checksums of {} ({})",
                store.display(),
                store.with_file_name(crate::SUMS_FILE).display()
            ),
            e,
        )),
    }
}

/// Another process has the store open.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct InUse(String);

/// The store file, opened (created when `writable`), and its length.
pub(crate) fn open_file(store: &Path, writable: bool) -> Result<(std::fs::File, u64)> {
    let file = crate::sums::open_rw(store, writable)
        .map_err(|e| StoreError::new(format!("opening database {}", store.display()), e))?;
    let len = file
        .metadata()
        .map_err(|e| StoreError::new(format!("reading {}", store.display()), e))?
        .len();
    Ok((file, len))
}

/// What the sums say of the store `file` of length `len`.
pub(crate) fn judge(sums: &Sums, store: &Path, file: &std::fs::File, len: u64) -> Result<Verdict> {
    sums.judge(len, &|at, out| file.read_exact_at(out, at))
        .map_err(|e| StoreError::new(format!("opening database {}", store.display()), e))
}

/// The error for a store changed after Tabiya closed it.
pub(crate) fn changed(store: &Path, sums: &Sums, what: &str) -> StoreError {
    StoreError::new(
        format!("opening database {}", store.display()),
        crate::sums::StoreChanged {
            file: store.to_path_buf(),
            sums: sums.path().to_path_buf(),
            what: what.to_string(),
        },
    )
}

/// redb on the store `file` through the checked backend (creating the store when the file
/// is empty); its error or panic names the file, and says when another process has it.
pub(crate) fn open_redb(
    store: &Path,
    b: &redb::Builder,
    file: std::fs::File,
    sums: &Arc<Sums>,
    failed: &Arc<AtomicBool>,
) -> Result<redb::Database> {
    let backend = crate::checked::Checked::new(file, sums.clone(), failed.clone())
        .map_err(|e| StoreError::new(format!("opening database {}", store.display()), e))?;
    crate::guard::caught(store, "opening", || {
        b.create_with_backend(backend).map_err(|e| {
            let in_use = matches!(e, redb::DatabaseError::DatabaseAlreadyOpen);
            let mut err = StoreError::new(format!("opening database {}", store.display()), e);
            err.in_use = in_use;
            err
        })
    })
}

/// redb opened on the store with its check of every page of the committed trees (see
/// [`verifying`]): the open store, or (the inner error) the damage found. The outer error:
/// the check could not run (another process has the store).
pub(crate) fn open_verified(
    store: &Path,
    cache_bytes: usize,
    sums: &Arc<Sums>,
    failed: &Arc<AtomicBool>,
) -> Result<Result<redb::Database>> {
    let (file, _) = open_file(store, true)?;
    let mut b = redb::Database::builder();
    b.set_cache_size(cache_bytes);
    verifying(&mut b);
    match open_redb(store, &b, file, sums, failed) {
        Ok(db) => Ok(Ok(db)),
        Err(e) if e.in_use => Err(e),
        Err(e) => Ok(Err(unverifiable(store, e))),
    }
}

/// Makes `b` verify every page of the committed trees on opening, refusing redb's repair
/// that would go back to the commit before (that repair is for a crash; the file was opened
/// once before, which recovered from any crash, so what is left is damage).
fn verifying(b: &mut redb::Builder) {
    b.set_check_integrity_on_open(true)
        .set_repair_callback(|session| {
            // 0.3 is the step that rolls back to the previous commit (redb's `do_repair`).
            if (0.2..0.4).contains(&session.progress()) {
                session.abort();
            }
        });
}

/// What redb's verification found, as an error naming the file.
fn unverifiable(store: &Path, e: StoreError) -> StoreError {
    let what = if e.to_string().contains("repair aborted") {
        "the latest commit's pages fail their checksums (the storage engine would go back to the commit before it, losing that change)".to_string()
    } else if let Some(d) = e.source.downcast_ref::<crate::error::Damaged>() {
        // A panic inside redb, already said as damage.
        d.0.clone()
    } else {
        e.source.to_string()
    };
    StoreError::new(
        format!("verifying {}", store.display()),
        crate::error::Damaged(what),
    )
}

/// Writes the sums of every unit of `store` again (after redb verified it whole).
pub(crate) fn rebuild(sums: &Sums, store: &Path) -> Result<()> {
    let (file, len) = open_file(store, false)?;
    sums.rebuild(len, &|at, out| file.read_exact_at(out, at))
        .map_err(|e| {
            StoreError::new(
                format!(
                    "writing the checksums of {} ({})",
                    store.display(),
                    sums.path().display()
                ),
                e,
            )
        })
}
