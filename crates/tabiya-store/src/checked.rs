//! The store file as redb sees it: redb's own file backend, with every unit read from disk
//! verified against its sum and every write recorded ([`crate::sums`]).

use std::io;
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};

use crate::sums::Sums;

/// redb's file backend with the store's sums kept and checked.
#[derive(Debug)]
pub(crate) struct Checked {
    inner: FileBackend,
    sums: Arc<Sums>,
    /// Raised at the first operation that fails (redb latches it: see `backing.rs`).
    failed: Arc<AtomicBool>,
}

impl Checked {
    pub(crate) fn new(
        file: std::fs::File,
        sums: Arc<Sums>,
        failed: Arc<AtomicBool>,
    ) -> io::Result<Checked> {
        let inner = FileBackend::new(file).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Checked {
            inner,
            sums,
            failed,
        })
    }

    /// `result`, the failure noted.
    fn noted<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if result.is_err() {
            self.failed.store(true, Ordering::Release);
        }
        result
    }

    fn read_checked(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.inner.read(offset, out)?;
        self.sums.read_span(offset, out.len() as u64);
        self.sums.verify(offset, out, &self.raw())
    }

    fn set_len_summed(&self, len: u64) -> io::Result<()> {
        self.sums.before_write()?;
        if let Err(e) = self.inner.set_len(len) {
            self.sums.distrust();
            return Err(e);
        }
        self.sums.resized(len, &self.raw())
    }

    fn write_summed(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.sums.before_write()?;
        if let Err(e) = self.inner.write(offset, data) {
            // What reached the file (a full disk may take part of a write) is read back, so
            // the sums still describe it; the pages were free in the last commit, which is
            // what the store keeps (redb gives up the transaction).
            if self
                .sums
                .reread_span(offset, data.len() as u64, &self.raw())
                .is_err()
            {
                self.sums.distrust();
            }
            return Err(e);
        }
        self.sums.wrote(offset, data, &self.raw())
    }

    fn raw(&self) -> impl Fn(u64, &mut [u8]) -> io::Result<()> + '_ {
        |at, out| self.inner.read(at, out)
    }
}

impl StorageBackend for Checked {
    fn len(&self) -> io::Result<u64> {
        self.noted(self.inner.len())
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.noted(self.read_checked(offset, out))
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.noted(self.set_len_summed(len))
    }

    fn sync_data(&self) -> io::Result<()> {
        self.noted(
            self.inner
                .sync_data()
                .and_then(|()| self.sums.write_dirty()),
        )
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.noted(self.write_summed(offset, data))
    }

    fn close(&self) -> io::Result<()> {
        let sealed = self.sums.seal();
        self.inner.close()?;
        sealed
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.inner.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.query_lock_range(start, end)
    }
}
