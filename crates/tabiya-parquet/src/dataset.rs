//! Which inputs are Parquet: a file by its magic bytes (`PAR1`) or its `.parquet` name, and a
//! folder — a Hive-partitioned dataset such as Lichess's `data/year=2024/month=01/…` — as
//! every `.parquet` file below it, in the order of their paths.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The first bytes of every Parquet file.
pub const MAGIC: &[u8; 4] = b"PAR1";

fn has_parquet_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// True when `path` is a Parquet file: named `.parquet`, or a regular file beginning with
/// `PAR1` (a pipe is never looked into: what is read from it would be lost to its reader).
pub fn is_parquet(path: &Path) -> bool {
    if has_parquet_name(path) {
        return true;
    }
    let mut head = [0u8; 4];
    tabiya_files::open_regular(path).is_ok_and(|(mut f, _)| f.read_exact(&mut head).is_ok())
        && &head == MAGIC
}

/// A Parquet file opened to be read: a regular file only, never waited on as a FIFO nor
/// read as a device ([`tabiya_files::open_regular`]); its size. Errors say what is wrong
/// in words: the system's reason (`No such file or directory (os error 2)`), or
/// `X is a FIFO (a named pipe), not a regular file`.
pub(crate) fn open_file(path: &Path) -> Result<(std::fs::File, u64), String> {
    tabiya_files::open_regular(path).map_err(|e| match e.io() {
        Some(io) => io.to_string(),
        None => e.to_string(),
    })
}

/// Every `.parquet` file below `dir`, however deep, sorted by path (partition folders
/// `year=…/month=…` then come in time order). Hidden files and folders (`.…`, `_…`: Spark's
/// `_SUCCESS`, `_temporary`) are left out.
pub fn files_under(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", d.display())))?
        {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name.starts_with('_') {
                continue;
            }
            if entry.file_type()?.is_dir() || path.is_dir() {
                stack.push(path);
            } else if has_parquet_name(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
