//! `tabiya check`: a database verified against itself. The storage engine's checksums of
//! every page ([`tabiya_store::verify`]); every table read and decoded ([`tables`]); every
//! stored game replayed and the index recomputed from the replays, position by position, and
//! compared with what the runs hold ([`index`]); when the database keeps the structure index,
//! each covered game's material codes and pawn keys found in its shape segment's rows
//! ([`shapes`]). What is wrong is said with where: the table, the key or game, the file.

mod elsewhere;
mod index;
mod shapes;
mod tables;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use crate::{Database, Error, Result};

/// Problems kept per part (the rest are counted).
const KEPT: usize = 50;

/// One thing found wrong.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The part: `store` (the file), a table's name (`shapes`: the structure index), or
    /// `index`.
    pub part: String,
    /// Where: a key, a game id, a run, a position.
    #[serde(rename = "where")]
    pub place: String,
    pub what: String,
}

/// What a check found.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub file: PathBuf,
    pub file_bytes: u64,
    /// Whether the storage engine verified every page's checksum (not when read-only).
    pub pages_verified: bool,
    pub games: u64,
    pub deleted_games: u64,
    pub positions_replayed: u64,
    pub runs: u64,
    pub tree_records: u64,
    pub single_entries: u64,
    pub implicit: u64,
    pub names: u64,
    pub gamesets: u64,
    pub notes: u64,
    pub cards: u64,
    pub card_reviews: u64,
    pub evals: u64,
    /// Shape segments of the structure index (0: the database does not keep it).
    pub shape_segments: u64,
    /// Stored games whose shapes were computed again and found in their segments.
    pub shape_games: u64,
    /// Stored games whose search lines were compared with their records.
    pub line_games: u64,
    /// What is wrong (at most 50 a part).
    pub problems: Vec<Problem>,
    /// How many problems there were in all.
    pub problem_count: u64,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.problem_count == 0
    }

    pub(crate) fn problem(
        &mut self,
        part: &str,
        place: impl Into<String>,
        what: impl Into<String>,
    ) {
        self.problem_count += 1;
        if self.problems.iter().filter(|p| p.part == part).count() < KEPT {
            self.problems.push(Problem {
                part: part.to_string(),
                place: place.into(),
                what: what.into(),
            });
        }
    }
}

/// Checks the database in `dir`: see the module's documentation. Damage is reported in the
/// answer, not as an error; errors are for what stops the check from starting (no database,
/// another process has it open).
pub fn check(dir: &Path) -> Result<CheckReport> {
    let t0 = std::time::Instant::now();
    let mut report = CheckReport {
        file: dir.join(tabiya_store::STORE_FILE),
        ..CheckReport::default()
    };
    let integrity = match pages(dir)? {
        Ok(i) => i,
        Err(damage) => {
            report.problem(
                "store",
                report.file.display().to_string(),
                damage.to_string(),
            );
            return Ok(report);
        }
    };
    crate::trace::trace("check: pages verified", t0);
    report.file_bytes = integrity.bytes;
    report.pages_verified = integrity.verified;
    if let Some(p) = integrity.problem {
        report.problem("store", report.file.display().to_string(), p);
        // A tree whose pages fail their checksums cannot be trusted to be walked.
        return Ok(report);
    }
    let db = match Database::open(dir) {
        Ok(db) => db,
        Err(e) => {
            report.problem("store", report.file.display().to_string(), e.to_string());
            return Ok(report);
        }
    };
    let read = db.store.read()?;
    tables::check(&db, &read, &mut report)?;
    crate::trace::trace("check: tables", t0);
    index::check(&db, &read, &mut report, t0)?;
    shapes::check(&db, &read, &mut report, t0)?;
    Ok(report)
}

/// The storage engine's check of every page's checksum: the database opened once as any
/// command would (a crash's recovery happens there, so only damage is left), then its pages
/// read back. The inner error: the database could not be opened at all (damage found on
/// opening); the outer: there is none, another process has it, or the check failed to run.
fn pages(dir: &Path) -> Result<Result<tabiya_store::Integrity>> {
    match Database::open(dir) {
        Ok(db) => drop(db),
        Err(e @ (Error::NotFound(_) | Error::InUse(_))) => return Err(e),
        Err(damage) => return Ok(Err(damage)),
    }
    let integrity = tabiya_store::verify(dir).map_err(|e| crate::database::in_use(dir, e))?;
    Ok(Ok(integrity))
}

/// Verifies the checksum of every page of the database in `dir` (what `tabiya check` does
/// first, without its walk of the tables and the index: half a second a million games), so
/// that a server does not answer from a damaged file in silence. `Ok(true)`: verified;
/// `Ok(false)`: a read-only file, which the storage engine cannot verify (its check
/// writes); an error of kind `Corrupt` names the file and what failed.
pub fn verify_pages(dir: &Path) -> Result<bool> {
    let integrity = pages(dir)??;
    match integrity.problem {
        None => Ok(integrity.verified),
        Some(p) => Err(Error::Corrupt(format!(
            "{}: {p}; `tabiya check --db {}` says more",
            integrity.file.display(),
            dir.display()
        ))),
    }
}

/// A step that failed with an error: a problem of `part` (the error names what it read).
pub(crate) fn note<T>(
    report: &mut CheckReport,
    part: &str,
    place: impl Into<String>,
    r: Result<T>,
) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            report.problem(part, place, e.to_string());
            None
        }
    }
}
