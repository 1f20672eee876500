//! The checksums file (`tabiya.sums`): a CRC-32 of every 4 KiB unit of the store file,
//! written as the store writes and compared with every unit the store reads from disk, so a
//! byte damaged on disk is an error naming the file, never a different answer.
//!
//! redb keeps a checksum of every B-tree page in its parent, but checks them only in its
//! integrity check, which reads the whole file (half a second at a million games): too slow
//! for every command. These sums are checked on each read instead, as RocksDB checks a
//! block's checksum on each read, at the cost of one CRC of each unit read from disk (pages
//! in the store's cache are not read again).
//!
//! Layout (little-endian): a header of [`UNIT`] bytes — the magic `TABIYA SUMS\n`, the
//! version (1), the unit (4096), the state (0: open, writes may have reached the store since
//! the sums were last written whole; 1: sealed, the sums describe the store exactly), the
//! store's length, and a CRC of those 32 bytes — then chunks of [`UNIT`] bytes, chunk `c`
//! holding the sums of units `c·1023 … c·1023+1022` and, last, a CRC of the chunk's number and
//! its sums (a chunk damaged, torn or misplaced is found).
//!
//! When the sums are trusted: a store closed cleanly (sealed) whose length and first unit
//! (redb's header, rewritten by every commit) are those the sums were sealed with. A store
//! not closed cleanly (a crash, `kill -9`), one without sums (written by an earlier Tabiya),
//! or whose sums are damaged, is verified whole by redb's own check and its sums written
//! again ([`Sums::rebuild`]). A sealed store whose header or length differs was changed
//! after Tabiya closed it: damaged, or written by another program; it is refused
//! ([`Verdict::Changed`]) until its sums are removed (the next open then verifies it whole).
//!
//! The sums file is locked (exclusive for a writer, shared for a reader) for as long as the
//! store is open: the first guard against two processes at once, before redb's own.

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The checksums file beside the store file.
pub const SUMS_FILE: &str = "tabiya.sums";

/// Bytes of the store file one sum covers (redb's page size).
pub const UNIT: u64 = 4096;

/// Sums in one chunk (the chunk's last four bytes are its own CRC).
const PER_CHUNK: usize = (UNIT as usize - 4) / 4;

const MAGIC: &[u8; 12] = b"TABIYA SUMS\n";
const VERSION: u32 = 1;
const OPEN: u32 = 0;
const SEALED: u32 = 1;

/// The CRC of a unit's bytes.
pub(crate) fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// A unit of the store file that does not match its sum.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is damaged: its {} bytes at offset {offset} differ from the checksum written with them in {} (a disk, a copy or a sync tool changed them); run `tabiya check --db {}`, and restore the database from a copy",
    file.display(), len, sums.display(), file.parent().map_or(Path::new("."), |p| p).display()
)]
pub struct UnitDamaged {
    pub file: PathBuf,
    pub sums: PathBuf,
    pub offset: u64,
    pub len: u64,
}

/// The checksums file itself is damaged (found while it is read).
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is damaged ({what}); remove it, and the next command verifies the database whole and writes its checksums again",
    file.display()
)]
pub struct SumsDamaged {
    pub file: PathBuf,
    pub what: String,
}

/// The store file was changed after Tabiya closed it (its header or length is not as its
/// sums were sealed with).
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is not as Tabiya closed it: {what}. It was damaged, or changed by another program; if it was restored alone from a copy or written by an earlier Tabiya, remove {} and its pages are verified whole at the next open",
    file.display(), sums.display()
)]
pub struct StoreChanged {
    pub file: PathBuf,
    pub sums: PathBuf,
    pub what: String,
}

/// What the sums say of the store file as it was found on opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The sums describe the file: reads are verified.
    Trusted,
    /// A new, empty store.
    Fresh,
    /// The sums cannot be trusted for a reason that is not damage of the store (a crash, no
    /// sums yet, damaged sums): the store must be verified whole, and its sums written again.
    Unverified(String),
    /// The store was changed after Tabiya closed it (what changed).
    Changed(String),
}

struct State {
    /// Reads are verified, writes recorded.
    trusted: bool,
    /// What the header on disk says.
    sealed_on_disk: bool,
    /// The store file's length as the store has set it.
    len: u64,
    chunks: Vec<Option<Box<[u32; PER_CHUNK]>>>,
    dirty: BTreeSet<usize>,
}

/// The checksums of one store file (see the module's documentation).
pub struct Sums {
    path: PathBuf,
    store_path: PathBuf,
    file: File,
    writable: bool,
    state: Mutex<State>,
    /// While set, the spans of the store file read from disk (see [`crate::Store::reads_during`]).
    trace: Mutex<Option<Vec<(u64, u64)>>>,
    /// Whether `trace` is set (read on every read from disk without taking its lock).
    tracing: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Sums {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sums").field("path", &self.path).finish()
    }
}

fn header_bytes(state: u32, len: u64) -> [u8; 36] {
    let mut h = [0u8; 36];
    h[..12].copy_from_slice(MAGIC);
    h[12..16].copy_from_slice(&VERSION.to_le_bytes());
    h[16..20].copy_from_slice(&(UNIT as u32).to_le_bytes());
    h[20..24].copy_from_slice(&state.to_le_bytes());
    h[24..32].copy_from_slice(&len.to_le_bytes());
    let c = crc(&h[..32]);
    h[32..36].copy_from_slice(&c.to_le_bytes());
    h
}

fn chunk_crc(c: usize, sums: &[u32; PER_CHUNK]) -> u32 {
    let mut bytes = Vec::with_capacity(4 + PER_CHUNK * 4);
    bytes.extend_from_slice(&(c as u32).to_le_bytes());
    for s in sums {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    crc(&bytes)
}

fn units(len: u64) -> u64 {
    len.div_ceil(UNIT)
}

/// Opens `path` for reading and writing, creating it if missing (`writable`), or for
/// reading only.
pub(crate) fn open_rw(path: &Path, writable: bool) -> io::Result<File> {
    if writable {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
    } else {
        File::open(path)
    }
}

/// The sum of each unit that `data`, read or written at `offset` in a store of length
/// `len`, covers, in order, given to `f` (unit, its length, sum): a unit `data` holds whole
/// is summed from it, one it covers in part is read whole through `read`.
fn unit_sums(
    offset: u64,
    data: &[u8],
    len: u64,
    read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    mut f: impl FnMut(u64, u64, u32) -> io::Result<()>,
) -> io::Result<()> {
    let end = offset + data.len() as u64;
    let len = len.max(end);
    let mut u = offset / UNIT;
    while u * UNIT < end {
        let (us, ue) = (u * UNIT, ((u + 1) * UNIT).min(len));
        let sum = if us >= offset && ue <= end {
            crc(&data[(us - offset) as usize..(ue - offset) as usize])
        } else {
            let mut whole = vec![0u8; (ue - us) as usize];
            read(us, &mut whole)?;
            crc(&whole)
        };
        f(u, ue - us, sum)?;
        u += 1;
    }
    Ok(())
}

/// The sum of every unit of a store of length `len`, read through `read` a megabyte at a
/// time, given to `f` (unit, its length, sum) in order.
fn file_sums(
    len: u64,
    read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    mut f: impl FnMut(u64, u64, u32) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = vec![0u8; (UNIT as usize) * 256];
    let mut at = 0;
    while at < len {
        let take = (buf.len() as u64).min(len - at) as usize;
        read(at, &mut buf[..take])?;
        for (i, piece) in buf[..take].chunks(UNIT as usize).enumerate() {
            f(at / UNIT + i as u64, piece.len() as u64, crc(piece))?;
        }
        at += take as u64;
    }
    Ok(())
}

/// Opening the sums failed: another process holds them, or an I/O error.
pub(crate) enum OpenError {
    InUse,
    Io(io::Error),
}

impl Sums {
    /// Opens (creating when `writable`) the sums of `store` and locks them: exclusively for a
    /// writer, shared for a reader.
    pub(crate) fn open(store: &Path, writable: bool) -> Result<Sums, OpenError> {
        let path = store.with_file_name(SUMS_FILE);
        let file = match open_rw(&path, writable) {
            Ok(f) => f,
            // A store without sums on a read-only disk: its sums are kept in memory only.
            Err(e) if !writable && e.kind() == io::ErrorKind::NotFound => {
                return Ok(Sums {
                    path,
                    store_path: store.to_path_buf(),
                    file: File::open("/dev/null").map_err(OpenError::Io)?,
                    writable: false,
                    state: Mutex::new(State::empty(false)),
                    trace: Mutex::new(None),
                    tracing: Default::default(),
                });
            }
            Err(e) => return Err(OpenError::Io(e)),
        };
        let locked = if writable {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match locked {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(OpenError::InUse),
            Err(std::fs::TryLockError::Error(e)) => return Err(OpenError::Io(e)),
        }
        Ok(Sums {
            path,
            store_path: store.to_path_buf(),
            file,
            writable,
            state: Mutex::new(State::empty(false)),
            trace: Mutex::new(None),
            tracing: Default::default(),
        })
    }

    /// Starts (`true`) or ends recording the spans read; the spans recorded.
    pub(crate) fn record(&self, on: bool) -> Vec<(u64, u64)> {
        let mut t = self.trace.lock().unwrap_or_else(|p| p.into_inner());
        let out = t.take().unwrap_or_default();
        if on {
            *t = Some(Vec::new());
        }
        self.tracing.store(on, std::sync::atomic::Ordering::Release);
        out
    }

    /// Notes a span read from the store file, when recording.
    pub(crate) fn read_span(&self, offset: u64, len: u64) {
        if !self.tracing.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        if let Some(t) = self
            .trace
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            t.push((offset, len));
        }
    }

    /// The sums file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn damaged(&self, what: impl Into<String>) -> io::Error {
        io::Error::other(SumsDamaged {
            file: self.path.clone(),
            what: what.into(),
        })
    }

    /// Judges the store file `store` (of length `len`, read through `read`) against the sums
    /// on disk, and trusts them when they describe it.
    pub(crate) fn judge(
        &self,
        len: u64,
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<Verdict> {
        let mut h = [0u8; 36];
        let sums_len = self.file.metadata()?.len();
        if len == 0 {
            // A new store: sums left from an earlier one go.
            if self.writable {
                self.file.set_len(0)?;
                self.file.write_all_at(&header_bytes(OPEN, 0), 0)?;
            }
            *self.lock() = State::empty(true);
            return Ok(Verdict::Fresh);
        }
        if sums_len < h.len() as u64 {
            return Ok(Verdict::Unverified(if sums_len == 0 {
                format!("it has no checksums yet ({} is new)", SUMS_FILE)
            } else {
                format!("its checksums file {} is cut short", SUMS_FILE)
            }));
        }
        self.file.read_exact_at(&mut h, 0)?;
        let state = u32::from_le_bytes(h[20..24].try_into().unwrap_or_default());
        let sealed_len = u64::from_le_bytes(h[24..32].try_into().unwrap_or_default());
        if &h[..12] != MAGIC
            || u32::from_le_bytes(h[32..36].try_into().unwrap_or_default()) != crc(&h[..32])
            || u32::from_le_bytes(h[12..16].try_into().unwrap_or_default()) != VERSION
            || u32::from_le_bytes(h[16..20].try_into().unwrap_or_default()) != UNIT as u32
        {
            return Ok(Verdict::Unverified(format!(
                "the header of its checksums file {} is damaged",
                SUMS_FILE
            )));
        }
        if state != SEALED {
            return Ok(Verdict::Unverified(
                "it was not closed cleanly (a crash, or a killed process)".into(),
            ));
        }
        {
            let mut st = self.lock();
            *st = State::empty(false);
            st.sealed_on_disk = true;
            st.len = sealed_len;
        }
        if sealed_len != len {
            return Ok(Verdict::Changed(format!(
                "its length is {len} bytes, not the {sealed_len} it had when Tabiya closed it"
            )));
        }
        // The first unit holds redb's header, which every commit rewrites.
        let first = (len.min(UNIT)) as usize;
        let mut unit = vec![0u8; first];
        read(0, &mut unit)?;
        let expected = match self.expected(0) {
            Ok(e) => e,
            Err(e) => return Ok(Verdict::Unverified(e.to_string())),
        };
        if crc(&unit) != expected {
            return Ok(Verdict::Changed(
                "its header differs from the one Tabiya last wrote".into(),
            ));
        }
        self.lock().trusted = true;
        Ok(Verdict::Trusted)
    }

    /// Whether reads are verified.
    pub fn trusted(&self) -> bool {
        self.lock().trusted
    }

    /// Loads chunk `c` if needed (sealed or rebuilt sums only).
    fn load(&self, st: &mut State, c: usize) -> io::Result<()> {
        if st.chunks.len() <= c {
            st.chunks.resize_with(c + 1, || None);
        }
        if st.chunks[c].is_some() {
            return Ok(());
        }
        let mut bytes = vec![0u8; UNIT as usize];
        let at = UNIT + c as u64 * UNIT;
        match self.file.read_exact_at(&mut bytes, at) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(self.damaged(format!("it is cut short before its chunk {c}")));
            }
            Err(e) => return Err(e),
        }
        let mut sums = Box::new([0u32; PER_CHUNK]);
        for (i, s) in sums.iter_mut().enumerate() {
            *s = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap_or_default());
        }
        let stored = u32::from_le_bytes(bytes[PER_CHUNK * 4..].try_into().unwrap_or_default());
        if stored != chunk_crc(c, &sums) {
            return Err(self.damaged(format!(
                "its chunk {c}, the sums of bytes {} to {} of the store, fails its own checksum",
                c as u64 * PER_CHUNK as u64 * UNIT,
                (c as u64 + 1) * PER_CHUNK as u64 * UNIT
            )));
        }
        st.chunks[c] = Some(sums);
        Ok(())
    }

    fn expected(&self, unit: u64) -> io::Result<u32> {
        let mut st = self.lock();
        let c = (unit / PER_CHUNK as u64) as usize;
        self.load(&mut st, c)?;
        Ok(st.chunks[c]
            .as_ref()
            .map_or(0, |s| s[(unit % PER_CHUNK as u64) as usize]))
    }

    /// Verifies `data`, read from the store at `offset`: each whole unit against its sum;
    /// a unit `data` covers in part is read whole through `read`.
    pub(crate) fn verify(
        &self,
        offset: u64,
        data: &[u8],
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let len = {
            let st = self.lock();
            if !st.trusted {
                return Ok(());
            }
            st.len
        };
        unit_sums(offset, data, len, read, |u, ulen, got| {
            if got == self.expected(u)? {
                return Ok(());
            }
            Err(io::Error::other(UnitDamaged {
                file: self.store_path.clone(),
                sums: self.path.clone(),
                offset: u * UNIT,
                len: ulen,
            }))
        })
    }

    /// Before the first write after the sums were sealed: the header says "open" on disk
    /// (synced), so a crash from here on is never taken for damage.
    pub(crate) fn before_write(&self) -> io::Result<()> {
        let mut st = self.lock();
        if st.sealed_on_disk && self.writable {
            self.file.write_all_at(&header_bytes(OPEN, st.len), 0)?;
            self.file.sync_data()?;
            st.sealed_on_disk = false;
        }
        Ok(())
    }

    /// Records that `data` was written at `offset`; a unit it covers in part is read whole
    /// through `read` (after the write).
    pub(crate) fn wrote(
        &self,
        offset: u64,
        data: &[u8],
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let len = {
            let mut st = self.lock();
            if !st.trusted {
                return Ok(());
            }
            st.len = st.len.max(offset + data.len() as u64);
            st.len
        };
        unit_sums(offset, data, len, read, |u, _, sum| self.set(u, sum))
    }

    fn set(&self, unit: u64, sum: u32) -> io::Result<()> {
        let mut st = self.lock();
        let c = (unit / PER_CHUNK as u64) as usize;
        if c >= st.chunks.len() || st.chunks[c].is_none() {
            // A chunk past the sums on disk starts empty; one on disk is read first.
            let on_disk = self.chunks_on_disk() > c as u64;
            if on_disk {
                self.load(&mut st, c)?;
            } else {
                if st.chunks.len() <= c {
                    st.chunks.resize_with(c + 1, || None);
                }
                st.chunks[c] = Some(Box::new([0u32; PER_CHUNK]));
            }
        }
        if let Some(ch) = st.chunks[c].as_mut() {
            ch[(unit % PER_CHUNK as u64) as usize] = sum;
        }
        st.dirty.insert(c);
        Ok(())
    }

    /// The number of chunks the sums file holds.
    fn chunks_on_disk(&self) -> u64 {
        let len = self.file.metadata().map_or(0, |m| m.len());
        len.saturating_sub(UNIT) / UNIT
    }

    /// The store file's length changed to `len`: the units past it go, the new ones are
    /// zeros, and the unit at a boundary is read again through `read`.
    pub(crate) fn resized(
        &self,
        len: u64,
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let old = {
            let mut st = self.lock();
            if !st.trusted {
                st.len = len;
                return Ok(());
            }
            std::mem::replace(&mut st.len, len)
        };
        if len > old {
            let zero = crc(&[0u8; UNIT as usize]);
            let first_new = units(old);
            if !old.is_multiple_of(UNIT) {
                self.reread(old / UNIT, read)?;
            }
            let mut u = first_new;
            while u < units(len) {
                if (u + 1) * UNIT <= len {
                    self.set(u, zero)?;
                } else {
                    self.reread(u, read)?;
                }
                u += 1;
            }
        } else if len < old && !len.is_multiple_of(UNIT) {
            self.reread(len / UNIT, read)?;
        }
        let mut st = self.lock();
        let keep = units(len).div_ceil(PER_CHUNK as u64) as usize;
        if st.chunks.len() > keep {
            st.chunks.truncate(keep);
            st.dirty.retain(|&c| c < keep);
        }
        Ok(())
    }

    /// Reads the units of `offset .. offset + len` back from the store and takes their sums
    /// (after a write that failed part way).
    pub(crate) fn reread_span(
        &self,
        offset: u64,
        len: u64,
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        if !self.lock().trusted {
            return Ok(());
        }
        let file_len = self.lock().len;
        let end = (offset + len).min(file_len);
        let mut u = offset / UNIT;
        while u * UNIT < end {
            self.reread(u, read)?;
            u += 1;
        }
        Ok(())
    }

    fn reread(&self, unit: u64, read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>) -> io::Result<()> {
        let len = self.lock().len;
        let (us, ue) = (unit * UNIT, ((unit + 1) * UNIT).min(len));
        if ue <= us {
            return Ok(());
        }
        let mut whole = vec![0u8; (ue - us) as usize];
        read(us, &mut whole)?;
        self.set(unit, crc(&whole))
    }

    /// Writes the chunks changed since the last call (the header still says "open").
    pub(crate) fn write_dirty(&self) -> io::Result<()> {
        let mut st = self.lock();
        if !st.trusted || !self.writable {
            return Ok(());
        }
        let mut bytes = vec![0u8; UNIT as usize];
        // A chunk leaves the dirty set only once written: a failed write (a full disk)
        // leaves it and those after it to be written again.
        while let Some(&c) = st.dirty.iter().next() {
            if let Some(sums) = st.chunks.get(c).and_then(|s| s.as_ref()) {
                for (i, s) in sums.iter().enumerate() {
                    bytes[i * 4..i * 4 + 4].copy_from_slice(&s.to_le_bytes());
                }
                bytes[PER_CHUNK * 4..].copy_from_slice(&chunk_crc(c, sums).to_le_bytes());
                self.file.write_all_at(&bytes, UNIT + c as u64 * UNIT)?;
            }
            st.dirty.remove(&c);
        }
        Ok(())
    }

    /// After the store's last write (it is being closed): every chunk written and synced,
    /// then the header sealed with the store's length, and synced.
    pub(crate) fn seal(&self) -> io::Result<()> {
        {
            let st = self.lock();
            if !self.writable || !st.trusted || st.sealed_on_disk {
                return Ok(());
            }
        }
        self.write_dirty()?;
        let mut st = self.lock();
        let chunks = units(st.len).div_ceil(PER_CHUNK as u64);
        self.file.set_len(UNIT + chunks * UNIT)?;
        self.file.sync_data()?;
        self.file.write_all_at(&header_bytes(SEALED, st.len), 0)?;
        self.file.sync_data()?;
        st.sealed_on_disk = true;
        Ok(())
    }

    /// Stops trusting the sums (a write failed part way: what reached the file is unknown).
    /// The header on disk still says "open", so the next open verifies the store.
    pub(crate) fn distrust(&self) {
        self.lock().trusted = false;
    }

    /// Computes the sum of every unit of the store (of length `len`, read through `read`),
    /// after redb verified the store whole, and trusts them; the header says "open" until
    /// the store is closed.
    pub(crate) fn rebuild(
        &self,
        len: u64,
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut chunks: Vec<Option<Box<[u32; PER_CHUNK]>>> = Vec::new();
        file_sums(len, read, |u, _, sum| {
            let c = (u / PER_CHUNK as u64) as usize;
            if chunks.len() <= c {
                chunks.push(Some(Box::new([0u32; PER_CHUNK])));
            }
            if let Some(ch) = chunks[c].as_mut() {
                ch[(u % PER_CHUNK as u64) as usize] = sum;
            }
            Ok(())
        })?;
        {
            let mut st = self.lock();
            st.dirty = (0..chunks.len()).collect();
            st.chunks = chunks;
            st.len = len;
            st.trusted = true;
            st.sealed_on_disk = false;
        }
        if self.writable {
            // Not written (a full disk): they are kept in memory, the header still says
            // "open", and the next open verifies the store again.
            let _ = self
                .file
                .write_all_at(&header_bytes(OPEN, len), 0)
                .and_then(|()| self.write_dirty())
                .and_then(|()| self.file.sync_data());
        }
        Ok(())
    }

    /// Compares every unit of the store (read through `read`) with its sum: the units that
    /// differ, as (offset, length). Only when trusted.
    pub(crate) fn scan(
        &self,
        read: &dyn Fn(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<Vec<(u64, u64)>> {
        let len = {
            let st = self.lock();
            if !st.trusted {
                return Ok(Vec::new());
            }
            st.len
        };
        let mut bad = Vec::new();
        file_sums(len, read, |u, ulen, sum| {
            if sum != self.expected(u)? {
                bad.push((u * UNIT, ulen));
            }
            Ok(())
        })?;
        Ok(bad)
    }
}

impl State {
    fn empty(trusted: bool) -> State {
        State {
            trusted,
            sealed_on_disk: false,
            len: 0,
            chunks: Vec::new(),
            dirty: BTreeSet::new(),
        }
    }
}
