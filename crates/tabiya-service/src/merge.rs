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
use crate::error::{Error, ErrorKind, Result};
use crate::export::Copied;
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
        false,
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
    merge_selected(
        into,
        &[source.to_path_buf()],
        selection,
        true,
        batch,
        progress,
    )
}

fn merge_selected(
    into: &Path,
    sources: &[PathBuf],
    selection: &crate::export::Selection,
    subset: bool,
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
                s.spawn(move || -> Result<Copied> {
                    let mut out = std::io::BufWriter::with_capacity(1 << 20, w);
                    let copied = crate::export::pgn_copied(db, selection, false, false, &mut out)?;
                    out.flush().ok();
                    Ok(copied)
                })
            })
            .collect();
        let report = import_sources(
            into,
            Kind::Chess,
            readers,
            &ImportRequest {
                batch,
                // A subset is a new database of every game picked, a copy kept twice
                // included; a merge skips the games its target holds already.
                keep_duplicates: subset,
                ..ImportRequest::default()
            },
            progress,
        );
        let wrote: Vec<Result<Copied>> = handles
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
    let mut copies = Vec::with_capacity(sources.len());
    for (w, dir) in wrote.into_iter().zip(sources) {
        // A writer stops early only when the import stopped reading (its error is above)
        // or its source could not be read.
        copies.push(w.map_err(|e| Error::new(e.kind(), format!("{}: {e}", dir.display())))?);
    }
    lost_games(into, sources, subset, &copies, report.summary())?;
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

/// Fails when a game of a source is not in the target after the import: every game written
/// must be imported, or skipped as a copy of a game the target holds (a merge's duplicates;
/// a subset keeps every game). Names the games lost — by their ids in their source, the
/// import's game number in a source's stream being the place of the id in its list — and
/// why: refused by the import's bounds (a game stored before they existed), or whatever the
/// import said of it.
fn lost_games(
    into: &Path,
    sources: &[PathBuf],
    subset: bool,
    copies: &[Copied],
    summary: &tabiya_db::ImportSummary,
) -> Result<()> {
    let mut lost: Vec<String> = Vec::new();
    let mut count = 0u64;
    for (i, (dir, copied)) in sources.iter().zip(copies).enumerate() {
        let file = &summary.files[i];
        let kept = file.imported + file.duplicates;
        let written = copied.ids.len() as u64;
        if kept >= written && copied.unreadable.is_empty() {
            continue;
        }
        let name = dir.display().to_string();
        let mut games: Vec<(u32, String)> = copied.unreadable.clone();
        for p in summary
            .problems
            .iter()
            .filter(|p| p.file == name && p.game > 0)
        {
            let Some(&id) = copied.ids.get(p.game as usize - 1) else {
                continue;
            };
            if !games.iter().any(|(g, _)| *g == id) {
                games.push((id, format!("the import: {}", p.reason)));
            }
        }
        games.sort_by_key(|(id, _)| *id);
        let n = written.saturating_sub(kept).max(games.len() as u64);
        count += n;
        lost.push(format!(
            "{n} of the {written} games of {name}: {}",
            crate::export::list_games(&games)
        ));
    }
    if lost.is_empty() {
        return Ok(());
    }
    let again = if subset {
        "make the subset again, into a new folder"
    } else {
        "merge again (the games copied already are skipped)"
    };
    Err(Error::new(
        ErrorKind::BadInput,
        format!(
            "{count} games were not copied into {}: {}. The other games are there; mend these in their source (`tabiya edit --db SRC --game ID --set TAG=shorter`, or `--unset TAG`) and {again}",
            into.display(),
            lost.join("; ")
        ),
    ))
}
