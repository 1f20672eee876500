//! A file a user names, opened as a format reader needs it: a regular file only, opened
//! without blocking, and read whole within a bound.
//!
//! The format crates (`tabiya-books`, `tabiya-othello`, `tabiya-parquet`) and the library
//! face (`tabiya-service/src/inputs.rs`) share this one reader of named files, so that a
//! FIFO never makes a command wait for ever, `/dev/zero` never fills the memory, and each
//! refusal names the file and says what it is (`docs/reliability.md`, *Files named by
//! users*).
//!
//! * [`open_regular`]: the name is looked at first, so that a device is never opened (opening
//!   one can have effects); then the file is opened with `O_NONBLOCK` (a FIFO put in its place
//!   meanwhile opens at once instead of waiting for a writer) and judged again by its own
//!   `fstat`, which decides: no gap between the check and the read.
//! * [`read_regular`]: that, then the whole file within a [`Limit`], exactly the size
//!   `fstat` gave: a file that shrinks while it is read is an error ([`FileError::Shrank`]),
//!   one that grows is read to the size it had.

use std::fs::{File, FileType};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a named file was not opened or read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The operating system's error (`No such file or directory`, `Permission denied`).
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not a regular file: `is` says what it is (`a FIFO (a named pipe)`, `a directory`).
    #[error("{} is {is}, not a regular file", path.display())]
    NotRegular { path: PathBuf, is: &'static str },
    /// Larger than its format allows or than the stated cap of its kind.
    #[error(
        "{} is {}, larger than the {} {what}",
        path.display(),
        size_exact(*size),
        size_text(*max)
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        max: u64,
        /// The end of the sentence: `a WTHOR game file may be`.
        what: String,
    },
    /// The file became shorter while it was read.
    #[error(
        "{} shrank while it was read: {read} of its {size} bytes were there",
        path.display()
    )]
    Shrank { path: PathBuf, size: u64, read: u64 },
}

impl FileError {
    /// The operating system's error, when that is what it is (a missing file: `NotFound`).
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            FileError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The most bytes a kind of file may have, and how messages say it: the end of the
/// sentence `X is 2.0 GiB (… bytes), larger than the 1 GiB …` (`a WTHOR game file may be`,
/// `a .jou file can be (65,535 names of 20 bytes after its header)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub max: u64,
    pub what: String,
}

impl Limit {
    /// At most `max` bytes, said as `what`.
    pub fn new(max: u64, what: impl Into<String>) -> Limit {
        Limit {
            max,
            what: what.into(),
        }
    }

    /// A file of `size` bytes refused when it is larger than the limit.
    pub fn check(&self, path: &Path, size: u64) -> Result<(), FileError> {
        if size > self.max {
            return Err(FileError::TooLarge {
                path: path.to_path_buf(),
                size,
                max: self.max,
                what: self.what.clone(),
            });
        }
        Ok(())
    }
}

/// What a file that is not a regular file is (`None` for a regular file).
pub fn not_regular(t: FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (a named pipe)")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else {
        Some("not a regular file")
    }
}

/// A size for people: `812 bytes`, `64 KiB`, `3.2 GiB`.
pub fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A size for people with its bytes when they are not all said: `812 bytes`,
/// `64.0 KiB (65537 bytes)`.
fn size_exact(bytes: u64) -> String {
    if bytes < 1024 {
        size_text(bytes)
    } else {
        format!("{} ({bytes} bytes)", size_text(bytes))
    }
}

/// Opens a regular file named by a user, never waiting on a FIFO and never opening a device:
/// the file and its size. A directory, a FIFO, a socket or a device is
/// [`FileError::NotRegular`].
pub fn open_regular(path: &Path) -> Result<(File, u64), FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let refuse = |is| FileError::NotRegular {
        path: path.to_path_buf(),
        is,
    };
    let named = std::fs::metadata(path).map_err(io)?;
    if let Some(is) = not_regular(named.file_type()) {
        return Err(refuse(is));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(is) = not_regular(meta.file_type()) {
        return Err(refuse(is));
    }
    Ok((file, meta.len()))
}

/// [`open_regular`] within `limit`: the file and its size.
pub fn open_regular_within(path: &Path, limit: &Limit) -> Result<(File, u64), FileError> {
    let (file, size) = open_regular(path)?;
    limit.check(path, size)?;
    Ok((file, size))
}

/// The `size` bytes of a file opened by [`open_regular`], from where it stands: fewer is
/// [`FileError::Shrank`]; bytes added meanwhile are not read.
pub fn read_exactly(file: &mut File, path: &Path, size: u64) -> Result<Vec<u8>, FileError> {
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(size)
        .read_to_end(&mut out)
        .map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if (out.len() as u64) < size {
        return Err(FileError::Shrank {
            path: path.to_path_buf(),
            size,
            read: out.len() as u64,
        });
    }
    Ok(out)
}

/// The bytes of a regular file named by a user, refused when larger than `limit`
/// ([`open_regular`], then [`read_exactly`]).
pub fn read_regular(path: &Path, limit: &Limit) -> Result<Vec<u8>, FileError> {
    let (mut file, size) = open_regular_within(path, limit)?;
    read_exactly(&mut file, path, size)
}

/// Reads `r` to its end into `out` when it gives at most `bound` bytes: true; false once it
/// has given `bound` and more is left (a file that unpacks past its bound). On an error,
/// `out` holds what was read.
///
/// Memory stays near what is read. Read to the end, a growing buffer is copied into one
/// twice its size: glibc's allocator moves the pages instead, but one that copies (jemalloc,
/// the binary's) holds both, so a 256 MiB bound took 557 MB. Here, past the first 8 MiB,
/// the buffer is made as large as the bound at once (pages the OS gives only as they are
/// written), and no more than the bound is ever held.
pub fn read_within(r: &mut impl Read, bound: u64, out: &mut Vec<u8>) -> std::io::Result<bool> {
    const FIRST: u64 = 8 << 20;
    let first = bound.min(FIRST);
    let start = out.len() as u64;
    (&mut *r).take(first).read_to_end(out)?;
    let read = out.len() as u64 - start;
    if read < first {
        return Ok(true);
    }
    let rest = bound - read;
    if rest > 0 {
        // Room for the rest at once; if the address space refuses it, the buffer grows.
        if let Ok(more) = usize::try_from(rest) {
            let _ = out.try_reserve_exact(more);
        }
        (&mut *r).take(rest).read_to_end(out)?;
        if out.capacity() > 2 * out.len() {
            out.shrink_to_fit();
        }
    }
    // Whether anything is left past the bound.
    let mut probe = [0u8; 1];
    loop {
        match r.read(&mut probe) {
            Ok(0) => return Ok(true),
            Ok(_) => return Ok(false),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(path: &Path) {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo");
        assert!(made.success());
    }

    /// At the bound, under it and past it, from the first 8 MiB and beyond; an error keeps
    /// what was read.
    #[test]
    fn read_within_holds_the_bound() {
        let read = |len: usize, bound: u64| {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut out = Vec::new();
            let within = read_within(&mut data.as_slice(), bound, &mut out).unwrap();
            (within, out == data[..out.len()], out.len())
        };
        assert_eq!(read(0, 0), (true, true, 0));
        assert_eq!(read(1, 0), (false, true, 0));
        assert_eq!(read(100, 100), (true, true, 100));
        assert_eq!(read(101, 100), (false, true, 100));
        let big = (8 << 20) + 5000;
        assert_eq!(read(big, big as u64), (true, true, big));
        assert_eq!(read(big, big as u64 + 1), (true, true, big));
        assert_eq!(read(big + 1, big as u64), (false, true, big));
        assert_eq!(read(big, 9 << 20), (true, true, big));
        assert_eq!(read(8 << 20, 8 << 20), (true, true, 8 << 20));
        // A reader that fails after 10 bytes.
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("damaged"));
                }
                let n = self.0.min(buf.len());
                buf[..n].fill(7);
                self.0 -= n;
                Ok(n)
            }
        }
        let mut out = Vec::new();
        assert!(read_within(&mut Failing(10), 100, &mut out).is_err());
        assert_eq!(out, vec![7; 10]);
    }

    #[test]
    fn sizes_in_words() {
        assert_eq!(size_text(812), "812 bytes");
        assert_eq!(size_text(64 << 10), "64 KiB");
        assert_eq!(size_text((64 << 20) + 1), "64.0 MiB");
        assert_eq!(size_text(3_435_973_837), "3.2 GiB");
    }

    /// A FIFO no one writes to is refused at once (opening it to read would wait), and so
    /// are a directory, a character device and a symbolic link to one.
    #[test]
    fn only_a_regular_file_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fifo(&f);
        let e = open_regular(&f).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is a FIFO (a named pipe), not a regular file",
                f.display()
            )
        );
        let e = open_regular(dir.path()).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("is a directory, not a regular file")
        );
        let e = read_regular(Path::new("/dev/zero"), &Limit::new(1, "x")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero is a character device, not a regular file"
        );
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            open_regular(&link),
            Err(FileError::NotRegular {
                is: "a character device",
                ..
            })
        ));
        let missing = open_regular(&dir.path().join("none")).unwrap_err();
        assert_eq!(
            missing.io().map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound)
        );
    }

    #[test]
    fn the_limit_holds_and_a_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"0123456789").unwrap();
        let at_most = |max| Limit::new(max, "such a file may be");
        assert_eq!(read_regular(&f, &at_most(10)).unwrap(), b"0123456789");
        let e = read_regular(&f, &at_most(9)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is 10 bytes, larger than the 9 bytes such a file may be",
                f.display()
            )
        );
    }

    /// A file cut short between the `fstat` and the read: an error naming what was there.
    #[test]
    fn a_file_that_shrinks_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, vec![7u8; 4096]).unwrap();
        let (mut file, size) = open_regular(&f).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(100)
            .unwrap();
        let e = read_exactly(&mut file, &f, size).unwrap_err();
        assert!(matches!(
            e,
            FileError::Shrank {
                size: 4096,
                read: 100,
                ..
            }
        ));
    }
}
