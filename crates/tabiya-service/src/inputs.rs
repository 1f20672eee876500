//! What an import reads: each argument a PGN file (plain or compressed), `-` for standard
//! input, a Parquet file (told by its magic bytes or its `.parquet` name), or a folder — a
//! Parquet dataset, Hive-partitioned or not, read as every `.parquet` file below it in the
//! order of their paths.

use std::path::{Path, PathBuf};

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

/// The bytes of a file read whole (a spelling file, a repertoire): only a regular file,
/// so that a directory or a device that never ends (`/dev/zero`) is refused, saying what it is.
pub fn read_regular(path: &Path) -> Result<Vec<u8>> {
    let cannot =
        |e: std::io::Error| Error::bad_input(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(Error::bad_input(format!(
            "{} is a directory, not a file",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(Error::bad_input(format!(
            "{} is not a regular file (a device or a pipe): it is read whole, so it must be a file",
            path.display()
        )));
    }
    std::fs::read(path).map_err(cannot)
}
