//! Memory-mapped Polyglot reader.

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::{ENTRY_SIZE, Entry, EntrySource, PolyglotError};

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// A Polyglot book read in place: a memory map (or owned bytes) checked once on opening
/// (size a multiple of 16, keys in ascending order) and probed by binary search.
pub struct PolyglotReader {
    path: PathBuf,
    bytes: Bytes,
}

impl std::fmt::Debug for PolyglotReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolyglotReader")
            .field("path", &self.path)
            .field("entries", &self.len())
            .finish()
    }
}

impl PolyglotReader {
    /// Memory-maps `path` and checks it: a size that is not a multiple of 16 gives
    /// [`PolyglotError::Truncated`], keys out of order give [`PolyglotError::Unsorted`], both
    /// naming the file and the offset. Only a regular file is opened, never waiting on a FIFO
    /// ([`tabiya_files::open_regular`]; anything else is [`PolyglotError::File`]); it is
    /// mapped, not read, so no size bound is needed.
    #[allow(unsafe_code)] // one memory map / FFI call, see the SAFETY comment below
    pub fn open(path: impl AsRef<Path>) -> Result<PolyglotReader, PolyglotError> {
        let path = path.as_ref().to_path_buf();
        let io_err = |source| PolyglotError::Io {
            path: path.clone(),
            source,
        };
        let (file, len) = tabiya_files::open_regular(&path)?;
        let bytes = if len == 0 {
            // An empty file cannot be mapped on every platform; it is an empty book.
            Bytes::Owned(Vec::new())
        } else {
            // SAFETY: the map is read-only; as with every memory-mapped reader, the file must
            // not be truncated by another process while it is open (documented on `open`).
            Bytes::Mapped(unsafe { Mmap::map(&file) }.map_err(io_err)?)
        };
        check(&path, bytes.as_slice())?;
        Ok(PolyglotReader { path, bytes })
    }

    /// A reader over bytes already in memory; `name` is used in error messages.
    pub fn from_bytes(
        name: impl Into<PathBuf>,
        bytes: Vec<u8>,
    ) -> Result<PolyglotReader, PolyglotError> {
        let path = name.into();
        check(&path, &bytes)?;
        Ok(PolyglotReader {
            path,
            bytes: Bytes::Owned(bytes),
        })
    }

    /// The file this reader was opened from (or the name given to `from_bytes`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw bytes of the book.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// All entries in stored order.
    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        self.as_bytes()
            .chunks_exact(ENTRY_SIZE)
            .map(|c| Entry::from_bytes(c.try_into().unwrap_or(&[0; ENTRY_SIZE])))
    }

    /// Copies the book into an owned [`super::PolyglotBook`].
    pub fn to_book(&self) -> super::PolyglotBook {
        super::PolyglotBook {
            entries: self.iter().collect(),
        }
    }
}

impl EntrySource for PolyglotReader {
    fn len(&self) -> usize {
        self.as_bytes().len() / ENTRY_SIZE
    }

    fn entry(&self, index: usize) -> Option<Entry> {
        let start = index.checked_mul(ENTRY_SIZE)?;
        let chunk = self.as_bytes().get(start..start + ENTRY_SIZE)?;
        Some(Entry::from_bytes(chunk.try_into().ok()?))
    }

    fn key_at(&self, index: usize) -> Option<u64> {
        let start = index.checked_mul(ENTRY_SIZE)?;
        let bytes: [u8; 8] = self.as_bytes().get(start..start + 8)?.try_into().ok()?;
        Some(u64::from_be_bytes(bytes))
    }
}

/// Checks size and order of a whole book.
fn check(path: &Path, bytes: &[u8]) -> Result<(), PolyglotError> {
    let len = bytes.len() as u64;
    let trailing = len % ENTRY_SIZE as u64;
    if trailing != 0 {
        return Err(PolyglotError::Truncated {
            path: path.to_path_buf(),
            len,
            offset: len - trailing,
            trailing,
        });
    }
    let mut previous = 0u64;
    for (i, chunk) in bytes.chunks_exact(ENTRY_SIZE).enumerate() {
        let mut k = [0u8; 8];
        k.copy_from_slice(&chunk[..8]);
        let key = u64::from_be_bytes(k);
        if key < previous {
            return Err(PolyglotError::Unsorted {
                path: path.to_path_buf(),
                offset: (i * ENTRY_SIZE) as u64,
                key,
                previous,
            });
        }
        previous = key;
    }
    Ok(())
}

/// Checks and parses a whole book.
pub(super) fn parse_checked(path: &Path, bytes: &[u8]) -> Result<Vec<Entry>, PolyglotError> {
    check(path, bytes)?;
    Ok(bytes
        .chunks_exact(ENTRY_SIZE)
        .map(|c| Entry::from_bytes(c.try_into().unwrap_or(&[0; ENTRY_SIZE])))
        .collect())
}
