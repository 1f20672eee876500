//! Checking a book: the CTG page walk against the `.cto`, Kvetka verification, a Polyglot
//! file's size, order, illegal moves and unreachable entries.

mod ctg;
mod kvetka;
mod polyglot;

use serde::Serialize;
use tabiya_books::convert::{AnyBook, BookFormat};

pub use ctg::{CtgCheck, CtgCheckProblem};
pub use kvetka::KvetkaCheck;
pub use polyglot::PolyglotCheck;

use super::open::{BookFile, open};
use crate::error::{Error, Result};

/// What a check found, by format.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum CheckReport {
    Ctg(CtgCheck),
    Kvetka(KvetkaCheck),
    Polyglot(PolyglotCheck),
}

impl CheckReport {
    /// Problems found: any makes the book fail the check.
    pub fn problem_count(&self) -> u64 {
        match self {
            CheckReport::Ctg(c) => c.problem_count,
            CheckReport::Kvetka(c) => c.problems.len() as u64,
            CheckReport::Polyglot(c) => c.fatal,
        }
    }

    /// The check's verdict, once the report has been shown: an error (`N problem(s) found
    /// in BOOK`) when anything is wrong.
    pub fn verdict(&self) -> Result<()> {
        let (problems, name) = match self {
            CheckReport::Ctg(c) => (c.problem_count, &c.name),
            CheckReport::Kvetka(c) => (c.problems.len() as u64, &c.name),
            CheckReport::Polyglot(c) => (c.fatal, &c.name),
        };
        if problems > 0 {
            return Err(Error::bad_input(format!(
                "{problems} problem(s) found in {name}"
            )));
        }
        Ok(())
    }
}

/// `book check`. A Polyglot book is checked on its raw bytes (so a truncated or unsorted
/// file is reported, not refused).
pub fn check(book: &BookFile) -> Result<CheckReport> {
    let name = book.name();
    if book.format()? == BookFormat::Polyglot {
        return Ok(CheckReport::Polyglot(polyglot::check(&book.path)?));
    }
    Ok(match open(book)? {
        AnyBook::Ctg(b) => CheckReport::Ctg(ctg::check(&b, name)),
        AnyBook::Kvetka(b) => CheckReport::Kvetka(kvetka::check(&b, name)?),
        AnyBook::Polyglot(_) => CheckReport::Polyglot(polyglot::check(&book.path)?),
    })
}
