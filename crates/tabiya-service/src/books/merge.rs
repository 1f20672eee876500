//! Merging two Polyglot books as `polyglot merge-book` does (weights add).

use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_books::convert::{BookFormat, write_polyglot};
use tabiya_books::polyglot::{self, EntrySource, PolyglotReader};

use super::open::{book_error_kind, cannot_open};
use super::paths::create_parent;
use crate::error::{Error, Result};

/// What a merge did. Field order: alphabetical, as the `serde_json::Value` the command
/// printed before had them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeReport {
    /// Entries written.
    pub entries: usize,
    pub first: PathBuf,
    pub first_entries: usize,
    pub output: PathBuf,
    pub second: PathBuf,
    pub second_entries: usize,
}

/// `book merge`: `first`'s entries come first and absorb `second`'s weights (`-in1`,
/// `-in2`).
pub fn merge(first: &Path, second: &Path, output: &Path) -> Result<MergeReport> {
    for p in [first, second] {
        let f = BookFormat::detect(p).map_err(|e| cannot_open(p, e))?;
        if f != BookFormat::Polyglot {
            return Err(Error::bad_request(format!(
                "{}: merge works on Polyglot books; this is a {f} book (convert it first)",
                p.display()
            )));
        }
    }
    let a = PolyglotReader::open(first).map_err(|e| cannot_open(first, e))?;
    let b = PolyglotReader::open(second).map_err(|e| cannot_open(second, e))?;
    let merged = polyglot::merge(&a, &b);
    create_parent(output)?;
    write_polyglot(&merged, output).map_err(|e| Error::transparent(book_error_kind(&e), e))?;
    Ok(MergeReport {
        entries: merged.entries().len(),
        first: first.to_path_buf(),
        first_entries: a.len(),
        output: output.to_path_buf(),
        second: second.to_path_buf(),
        second_entries: b.len(),
    })
}
