//! `tabiya db merge --into DIR SRC…`: the games of other chess databases into one. Each
//! source's games are written as PGN — lossless: tags as they stand after edits, moves,
//! variations, comments, NAGs, null moves; deleted games are gone — and read by the import
//! as it reads any file, so everything an import guarantees holds: games stored already
//! (the same Seven Tag Roster and moves) are skipped, every position is counted exactly
//! once, and a merge killed at any moment keeps what it committed and finishes when run
//! again. The sources' corrections of names (`tabiya names alias …`) come along, and a
//! source's spelling file when the target has none; then what names mean is computed once
//! more over all the games.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_pgn::pipeline::Source;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::import::{ImportProgress, ImportReport, ImportRequest, import_sources};

/// What a merge did.
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    /// The import of the sources' games (one "file" a source).
    pub import: ImportReport,
    /// Name corrections brought over from the sources.
    pub rules: u64,
    /// The spelling file brought over, if one was.
    pub spelling: Option<String>,
}

/// Merges the chess databases `sources` into the one in `into` (created when missing).
pub fn merge(
    into: &Path,
    sources: &[PathBuf],
    batch: u64,
    progress: &ImportProgress,
) -> Result<MergeReport> {
    merge_selected(
        into,
        sources,
        &crate::export::Selection::All,
        batch,
        progress,
    )
}

/// `tabiya db subset`: a new chess database (`into` must not exist) of the games of
/// `source` that `selection` picks (a gameset's, or those meeting criteria), as CDB made
/// one from a gameset.
pub fn subset(
    source: &Path,
    selection: &crate::export::Selection,
    into: &Path,
    batch: u64,
    progress: &ImportProgress,
) -> Result<MergeReport> {
    if into.exists() && std::fs::read_dir(into).map_or(true, |mut d| d.next().is_some()) {
        return Err(Error::bad_request(format!(
            "{} exists: a subset is a new database (to add games to one, tabiya db merge)",
            into.display()
        )));
    }
    // The selection is checked before anything is made.
    crate::export::game_ids(&Db::open(source)?, selection)?;
    merge_selected(into, &[source.to_path_buf()], selection, batch, progress)
}

fn merge_selected(
    into: &Path,
    sources: &[PathBuf],
    selection: &crate::export::Selection,
    batch: u64,
    progress: &ImportProgress,
) -> Result<MergeReport> {
    if sources.is_empty() {
        return Err(Error::bad_request(
            "no database to merge: give one or more SRC",
        ));
    }
    let target = std::fs::canonicalize(into).ok();
    let mut opened = Vec::with_capacity(sources.len());
    for dir in sources {
        if target.is_some() && std::fs::canonicalize(dir).ok() == target {
            return Err(Error::bad_request(format!(
                "{} is the database merged into: give other databases",
                dir.display()
            )));
        }
        let db = Db::open(dir)?;
        if db.kind() != Kind::Chess {
            return Err(Error::bad_request(format!(
                "{} is an Othello database: export it with `tabiya wthor export` and import the files",
                dir.display()
            )));
        }
        opened.push(db);
    }
    if let Some(k) = Db::kind_of(into)?
        && k != Kind::Chess
    {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: chess games cannot go into it",
            into.display()
        )));
    }
    // Each source's games through a pipe, written by a thread of its own while the import
    // reads the one before.
    let mut readers = Vec::with_capacity(opened.len());
    let mut writers = Vec::with_capacity(opened.len());
    for (db, dir) in opened.iter().zip(sources) {
        let (r, w) = std::io::pipe()
            .map_err(|e| Error::new(crate::ErrorKind::Io, format!("a pipe: {e}")))?;
        readers.push(Source::Reader {
            name: dir.display().to_string(),
            size: None,
            reader: Box::new(r),
        });
        writers.push((db, w));
    }
    let (report, wrote) = std::thread::scope(|s| {
        let handles: Vec<_> = writers
            .into_iter()
            .map(|(db, w)| {
                s.spawn(move || -> Result<u64> {
                    let mut out = std::io::BufWriter::with_capacity(1 << 20, w);
                    let n = crate::export::pgn(db, selection, &mut out)?;
                    out.flush().ok();
                    Ok(n)
                })
            })
            .collect();
        let report = import_sources(
            into,
            Kind::Chess,
            readers,
            &ImportRequest {
                batch,
                ..ImportRequest::default()
            },
            progress,
        );
        let wrote: Vec<Result<u64>> = handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::new(
                        crate::ErrorKind::Io,
                        "a source's writer stopped",
                    ))
                })
            })
            .collect();
        (report, wrote)
    });
    let report = report?;
    for (w, dir) in wrote.into_iter().zip(sources) {
        // A writer stops early only when the import stopped reading (its error is above)
        // or its source could not be read.
        w.map_err(|e| Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    }
    // The sources' corrections of names, and a spelling file when the target has none.
    let target = Db::open(into)?;
    let mut rules = 0;
    let mut spelling = None;
    for db in &opened {
        let (r, s) = target.inner()?.adopt_names(db.inner()?)?;
        rules += r;
        spelling = spelling.or(s);
    }
    Ok(MergeReport {
        import: report,
        rules,
        spelling,
    })
}
