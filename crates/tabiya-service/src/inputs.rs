//! What an import reads: each argument a PGN file (plain or compressed), `-` for standard
//! input, a Parquet file (told by its magic bytes or its `.parquet` name), or a folder — a
//! Parquet dataset, Hive-partitioned or not, read as every `.parquet` file below it in the
//! order of their paths.
//!
//! And every file a user names that is read whole (a repertoire, a repertoire a gameset
//! follows, a spelling file, a note, games judged for novelties, a Polyglot book checked):
//! [`read_whole`], a regular file only, within a bound for each kind ([`Whole`]).

use std::path::{Path, PathBuf};

use tabiya_files::not_regular;
use tabiya_pgn::pipeline::{RowChunks, Source};

use crate::error::{Error, Result};

/// The files the arguments name: each folder replaced by the `.parquet` files below it
/// (sorted); a folder without one is refused, saying so.
pub fn expand(files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if f.as_os_str() != "-" && f.is_dir() {
            let found = tabiya_parquet::files_under(f).map_err(|e| {
                Error::bad_input(format!("cannot read the folder {}: {e}", f.display()))
            })?;
            if found.is_empty() {
                return Err(Error::bad_request(format!(
                    "{} is a folder without a .parquet file (a folder is read as a Parquet dataset; name PGN files one by one)",
                    f.display()
                )));
            }
            out.extend(found);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

/// The import's source for one file: its rows for a Parquet file (opened by the reader
/// thread, so what is wrong with it is reported in its place), its text for anything else.
pub fn source(path: &Path) -> Source {
    if path.as_os_str() != "-" && tabiya_parquet::is_parquet(path) {
        let p = path.to_path_buf();
        Source::Rows {
            name: path.display().to_string(),
            open: Box::new(move || {
                tabiya_parquet::open(&p).map(|g| Box::new(g) as Box<dyn RowChunks>)
            }),
        }
    } else {
        Source::Path(path.to_path_buf())
    }
}

/// [`expand`], then [`source`] for each file.
pub fn sources(files: &[PathBuf]) -> Result<Vec<Source>> {
    Ok(expand(files)?.iter().map(|p| source(p)).collect())
}

/// What a file named by a user is read whole as: each kind has its bound, the most of it
/// that is read (`docs/reliability.md`, *Files named by users*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// A repertoire's PGN (`tabiya repertoire`, `explore --rep`, `cards add --rep`): the file,
    /// and its text once unpacked, at most 64 MiB.
    Repertoire,
    /// A repertoire a gameset follows (`follows FILE`): kept in the database with the
    /// gameset and read again at every import, so at most 16 MiB.
    Follows,
    /// Scid's spelling file (`.ssp`, `.ssp.zst`; Scid's own is some 30 MB): at most
    /// 256 MiB, what it may unpack to too.
    Spelling,
    /// A position's note (`note set --file`): at most what a note may hold (64 KiB).
    Note,
    /// Games judged for novelties (`tabiya novelty FILE.pgn`): at most 64 MiB.
    Games,
    /// A Polyglot book checked whole (`book check`): at most 4 GiB.
    PolyglotBook,
}

impl Whole {
    /// The most bytes read of such a file.
    pub const fn bound(self) -> u64 {
        match self {
            Whole::Repertoire | Whole::Games => 64 << 20,
            Whole::Follows => 16 << 20,
            Whole::Spelling => 256 << 20,
            Whole::Note => tabiya_db::NOTE_MAX as u64,
            Whole::PolyglotBook => 4 << 30,
        }
    }

    /// What such a file is read for, in messages ("at most 64 MiB is read for a
    /// repertoire", "only a regular file is read for a note").
    pub const fn what(self) -> &'static str {
        match self {
            Whole::Repertoire => "a repertoire",
            Whole::Follows => "a repertoire a gameset follows",
            Whole::Spelling => "a spelling file",
            Whole::Note => "a note",
            Whole::Games => "games judged for novelties",
            Whole::PolyglotBook => "a Polyglot book checked whole",
        }
    }
}

/// A size for people: `812 bytes`, `64 KiB`, `3.2 GiB` (the format readers' own, so that
/// every refusal of a named file says sizes alike).
pub use tabiya_files::size_text;

/// Why an open or a read failed, in words (`permission denied`, not `Permission denied
/// (os error 13)`).
fn reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file".into(),
        K::PermissionDenied => "permission denied".into(),
        K::IsADirectory => "it is a directory".into(),
        _ => e.to_string(),
    }
}

fn refuse_kind(path: &Path, is: &str, kind: Whole) -> Error {
    Error::bad_input(format!(
        "{} is {is}: only a regular file is read for {}",
        path.display(),
        kind.what()
    ))
}

fn too_large(path: &Path, size: u64, kind: Whole) -> Error {
    Error::bad_input(format!(
        "{} is {} ({size} bytes); at most {} is read for {}",
        path.display(),
        size_text(size),
        size_text(kind.bound()),
        kind.what()
    ))
}

/// Opens a file named by a user to read it whole as `kind`: a regular file only, of at most
/// the kind's bound. The name is looked at first so that a device is never opened (opening
/// one can have effects); then the file is opened without blocking (`O_NONBLOCK`: a FIFO
/// put in its place meanwhile opens at once instead of waiting for a writer) and what was
/// opened is judged again by its own `fstat`, which decides — no gap between the check and
/// the read. Returns the file and its size.
pub fn open_whole(path: &Path, kind: Whole) -> Result<(std::fs::File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    let cannot = |e: std::io::Error| {
        let k = if e.kind() == std::io::ErrorKind::NotFound {
            crate::ErrorKind::NotFound
        } else {
            crate::ErrorKind::BadInput
        };
        Error::new(k, format!("cannot read {}: {}", path.display(), reason(&e)))
    };
    let named = std::fs::metadata(path).map_err(cannot)?;
    if let Some(is) = not_regular(named.file_type()) {
        return Err(refuse_kind(path, is, kind));
    }
    if named.len() > kind.bound() {
        return Err(too_large(path, named.len(), kind));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if let Some(is) = not_regular(meta.file_type()) {
        return Err(refuse_kind(path, is, kind));
    }
    if meta.len() > kind.bound() {
        return Err(too_large(path, meta.len(), kind));
    }
    Ok((file, meta.len()))
}

/// The bytes of a file named by a user, read whole as `kind` ([`open_whole`]): at most the
/// kind's bound is read even of a file that grows meanwhile. Errors name the file and the
/// reason: `cannot read X: permission denied`, `X is a FIFO (a named pipe), not a regular
/// file: …`, `X is 3.2 GiB; at most 64 MiB is read for a repertoire`.
pub fn read_whole(path: &Path, kind: Whole) -> Result<Vec<u8>> {
    use std::io::Read;
    let (file, len) = open_whole(path, kind)?;
    let mut out = Vec::with_capacity(len as usize);
    file.take(kind.bound() + 1)
        .read_to_end(&mut out)
        .map_err(|e| Error::bad_input(format!("cannot read {}: {}", path.display(), reason(&e))))?;
    if out.len() as u64 > kind.bound() {
        return Err(Error::bad_input(format!(
            "{} grew past {} while it was read; at most {} is read for {}",
            path.display(),
            size_text(kind.bound()),
            size_text(kind.bound()),
            kind.what()
        )));
    }
    Ok(out)
}

/// A PGN file named by a user read whole as `kind` and unpacked when it is compressed
/// (zstd, gzip, bzip2, told by its first bytes): the file and its text each within the
/// kind's bound, so that a small file unpacking to gigabytes is refused too.
pub fn read_whole_unpacked(path: &Path, kind: Whole) -> Result<Vec<u8>> {
    use std::io::Read;
    let bytes = read_whole(path, kind)?;
    let size = bytes.len() as u64;
    let input = tabiya_pgn::input::from_reader(
        path.display().to_string(),
        Some(size),
        Box::new(std::io::Cursor::new(bytes)),
    )
    .map_err(|e| Error::bad_input(format!("cannot read {}: {e}", path.display())))?;
    if input.compression == tabiya_pgn::input::Compression::None {
        // The bytes again, unchanged: `from_reader` only looked at their start.
        let mut out = Vec::with_capacity(size as usize);
        let mut r = input.reader;
        r.read_to_end(&mut out)
            .map_err(|e| Error::bad_input(format!("cannot read {}: {e}", path.display())))?;
        return Ok(out);
    }
    let mut out = Vec::new();
    let mut reader = input.reader;
    let within = tabiya_files::read_within(&mut reader, kind.bound(), &mut out).map_err(|e| {
        Error::bad_input(format!(
            "{}: truncated or damaged after {} bytes unpacked ({e})",
            path.display(),
            out.len()
        ))
    })?;
    if !within {
        return Err(Error::bad_input(format!(
            "{} unpacks to more than {}; at most {} is read for {}",
            path.display(),
            size_text(kind.bound()),
            size_text(kind.bound()),
            kind.what()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_words() {
        assert_eq!(size_text(812), "812 bytes");
        assert_eq!(size_text(64 << 10), "64 KiB");
        assert_eq!(size_text((64 << 20) + 1), "64.0 MiB");
        assert_eq!(size_text(3_435_973_837), "3.2 GiB");
        assert_eq!(size_text(4 << 30), "4 GiB");
    }

    /// A file one byte past the bound is refused, naming its size; one at the bound is read.
    #[test]
    fn the_bound_holds_for_the_bytes_read() {
        let dir = tempfile::tempdir().unwrap();
        let note = dir.path().join("n.md");
        std::fs::write(&note, vec![b'x'; (64 << 10) + 1]).unwrap();
        let e = read_whole(&note, Whole::Note).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is 64.0 KiB (65537 bytes); at most 64 KiB is read for a note",
                note.display()
            )
        );
        std::fs::write(&note, vec![b'x'; 64 << 10]).unwrap();
        assert_eq!(read_whole(&note, Whole::Note).unwrap().len(), 64 << 10);
    }
}
