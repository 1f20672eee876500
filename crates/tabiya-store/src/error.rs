//! A storage error: what was being done (naming the store's file), and what kind of failure.

/// A storage error, with what was being done (naming the store's file).
#[derive(Debug, thiserror::Error)]
#[error("{context}: {source}")]
pub struct StoreError {
    pub(crate) context: String,
    #[source]
    pub(crate) source: Box<dyn std::error::Error + Send + Sync>,
    pub(crate) in_use: bool,
    pub(crate) read_only: bool,
}

impl StoreError {
    pub(crate) fn new(
        context: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        StoreError {
            context: context.into(),
            source: Box::new(source),
            in_use: false,
            read_only: false,
        }
    }

    /// True when the store could not be opened because another process has it open (a
    /// store is opened by one process at a time).
    pub fn is_in_use(&self) -> bool {
        self.in_use
    }

    /// True when a write was refused because the store is open read-only (its file or
    /// directory cannot be written).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// True when the file is damaged: the storage engine found a page that fails its
    /// checksum or cannot be read as what it should be.
    pub fn is_damaged(&self) -> bool {
        let mut e: Option<&(dyn std::error::Error + 'static)> = Some(self.source.as_ref());
        while let Some(x) = e {
            if x.is::<Damaged>()
                || x.is::<crate::sums::UnitDamaged>()
                || x.is::<crate::sums::SumsDamaged>()
                || x.is::<crate::sums::StoreChanged>()
            {
                return true;
            }
            // An I/O error's own source skips the error it wraps.
            if let Some(inner) = x
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                && (inner.is::<crate::sums::UnitDamaged>()
                    || inner.is::<crate::sums::SumsDamaged>())
            {
                return true;
            }
            e = x.source();
        }
        let text = self.source.to_string();
        text.contains("corrupted") || text.contains(" is damaged")
    }

    /// True when the disk (or the file system's quota) is full.
    pub fn is_disk_full(&self) -> bool {
        let mut e: Option<&(dyn std::error::Error + 'static)> = Some(self.source.as_ref());
        while let Some(x) = e {
            if let Some(io) = x.downcast_ref::<std::io::Error>()
                && matches!(
                    io.kind(),
                    std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
                )
            {
                return true;
            }
            e = x.source();
        }
        false
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What the storage engine said when it gave up on a damaged file.
#[derive(Debug, thiserror::Error)]
#[error("the file is damaged: the storage engine failed ({0}); run `tabiya check` on it")]
pub struct Damaged(pub String);
