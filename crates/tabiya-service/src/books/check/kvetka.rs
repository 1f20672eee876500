//! A Kvetka book's verification.

use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_books::kvetka::KvetkaBook;

use crate::error::{Context, Error, ErrorKind, Result};

/// What verifying a Kvetka book found. Field order: alphabetical, as the `serde_json::Value`
/// the command printed before had them.
#[derive(Debug, Clone, Serialize)]
pub struct KvetkaCheck {
    /// The book, as messages name it.
    #[serde(skip)]
    pub name: String,
    pub blocks: usize,
    pub clean: bool,
    pub elements: u64,
    /// The `.kob` files.
    pub files: Vec<PathBuf>,
    pub format: &'static str,
    /// Where the block index came from (`Kin` or `Scanned`).
    pub index: String,
    pub problems: Vec<String>,
}

pub(super) fn check(b: &KvetkaBook, name: String) -> Result<KvetkaCheck> {
    let problems = b
        .verify()
        .context(ErrorKind::BadInput, || format!("cannot read {name}"))?;
    let mut elements = 0u64;
    b.for_each_element(|_| {
        elements += 1;
        Ok(())
    })
    .map_err(|e| Error::transparent(ErrorKind::BadInput, e))?;
    Ok(KvetkaCheck {
        name,
        blocks: b.block_count(),
        clean: problems.is_empty(),
        elements,
        files: b.kob_files().into_iter().map(Path::to_path_buf).collect(),
        format: "kvetka",
        index: format!("{:?}", b.index_source()),
        problems,
    })
}
