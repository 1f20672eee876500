//! Opening inputs: plain files, `.zst`, `.gz`, `.bz2`, or `-` for standard input.
//!
//! Compression is chosen by the file's magic bytes (so a misnamed file still reads), with the
//! extension as a fallback for empty files. A shared [`Progress`] counter tracks how many
//! bytes of the *underlying* file have been consumed, so a progress bar can show bytes read
//! against the file size even for compressed inputs.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Compression of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Zstd,
    Gzip,
    Bzip2,
}

/// Counts bytes consumed from the underlying source (before decompression).
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<AtomicU64>);

impl Progress {
    pub fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

struct Counting<R> {
    inner: R,
    progress: Progress,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.0.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened input: a decompressed byte stream plus what is known about it.
pub struct Input {
    /// Name for messages (`-` shows as `<stdin>`).
    pub name: String,
    pub path: Option<PathBuf>,
    pub compression: Compression,
    /// Size of the underlying file in bytes, when known.
    pub size: Option<u64>,
    /// Bytes of the underlying file consumed so far.
    pub progress: Progress,
    pub reader: Box<dyn Read + Send>,
}

fn sniff(head: &[u8]) -> Option<Compression> {
    match head {
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
        [0x1f, 0x8b, ..] => Some(Compression::Gzip),
        [b'B', b'Z', b'h', ..] => Some(Compression::Bzip2),
        _ => None,
    }
}

fn by_extension(path: &Path) -> Compression {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
    {
        Some(e) if e == "zst" || e == "zstd" => Compression::Zstd,
        Some(e) if e == "gz" => Compression::Gzip,
        Some(e) if e == "bz2" => Compression::Bzip2,
        _ => Compression::None,
    }
}

/// Opens a path (or `-` for standard input) and wraps it in the right decompressor.
pub fn open(path: &Path) -> io::Result<Input> {
    let (name, path_buf, size, raw): (String, Option<PathBuf>, Option<u64>, Box<dyn Read + Send>) =
        if path.as_os_str() == "-" {
            ("<stdin>".to_string(), None, None, Box::new(io::stdin()))
        } else {
            let file = File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            let size = file.metadata().ok().map(|m| m.len());
            (
                path.display().to_string(),
                Some(path.to_path_buf()),
                size,
                Box::new(file),
            )
        };
    wrap(name, path_buf, size, raw)
}

/// Wraps an open reader (plain or compressed, detected by its first bytes).
pub fn from_reader(
    name: String,
    size: Option<u64>,
    raw: Box<dyn Read + Send>,
) -> io::Result<Input> {
    wrap(name, None, size, raw)
}

fn wrap(
    name: String,
    path_buf: Option<PathBuf>,
    size: Option<u64>,
    raw: Box<dyn Read + Send>,
) -> io::Result<Input> {
    let progress = Progress::default();
    let counting = Counting {
        inner: raw,
        progress: progress.clone(),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, counting);
    let head = buffered.fill_buf()?;
    let compression = sniff(head)
        .or_else(|| {
            path_buf
                .as_deref()
                .map(by_extension)
                .filter(|_| head.is_empty())
        })
        .unwrap_or(Compression::None);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
    };
    Ok(Input {
        name,
        path: path_buf,
        compression,
        size,
        progress,
        reader,
    })
}

/// A writer that compresses what it is given with zstd (level 3), finishing the frame when
/// it is dropped: what `.zst` outputs are written through.
pub fn zstd_writer<W: io::Write>(w: W) -> io::Result<zstd::stream::AutoFinishEncoder<'static, W>> {
    Ok(zstd::stream::write::Encoder::new(w, 3)?.auto_finish())
}
