//! A store file checked whole: redb's check of every page of the committed trees (each
//! page's checksum in its parent), and every 4 KiB unit of the file against its sum
//! ([`crate::sums`]), free pages included. A store without trusted sums (not closed cleanly,
//! from an earlier Tabiya) gets them written again once redb's check passes.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::STORE_FILE;
use crate::error::{Result, StoreError};
use crate::opening::{changed, judge, open_file, open_sums, open_verified, rebuild};
use crate::sums::Verdict;

/// What the check of a store file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integrity {
    pub file: PathBuf,
    /// The file's length in bytes.
    pub bytes: u64,
    /// Whether the pages were verified: by redb's check and the sums, or, for a read-only
    /// store (redb's check writes), by the sums alone when it has them.
    pub verified: bool,
    /// What is wrong, when something is.
    pub problem: Option<String>,
}

/// Verifies the store in `dir` (see the module's documentation). redb would repair a file
/// whose latest commit fails its checksums by going back to the commit before (what it does
/// after a crash): here that repair is refused and reported, since a store closed cleanly
/// that fails them was damaged after it was written. Open the store normally first (it then
/// recovers from a crash), so that only damage is left to find.
pub fn verify(dir: &Path) -> Result<Integrity> {
    let file = dir.join(STORE_FILE);
    let bytes = std::fs::metadata(&file)
        .map_err(|e| StoreError::new(format!("reading {}", file.display()), e))?
        .len();
    let mut out = Integrity {
        file: file.clone(),
        bytes,
        verified: false,
        problem: None,
    };
    let writable = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&file)
    {
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::new(format!("opening {}", file.display()), e));
        }
        Err(_) => false,
    };
    let sums = open_sums(&file, writable)?;
    let (f, len) = open_file(&file, writable)?;
    let verdict = judge(&sums, &file, &f, len)?;
    if let Verdict::Changed(what) = &verdict {
        out.problem = Some(changed(&file, &sums, what).source.to_string());
        return Ok(out);
    }
    let scan = |out: &mut Integrity| -> Result<()> {
        let (f, _) = open_file(&file, false)?;
        let bad = sums
            .scan(&|at, buf| f.read_exact_at(buf, at))
            .map_err(|e| StoreError::new(format!("reading {}", file.display()), e))?;
        if let Some(&(offset, len)) = bad.first() {
            out.problem = Some(format!(
                "{} of its 4 KiB units differ from the checksums written with them ({}), the first at offset {offset} ({len} bytes)",
                bad.len(),
                sums.path().display()
            ));
        }
        Ok(())
    };
    if !writable {
        // redb's check writes: the sums alone, when they are trusted.
        if sums.trusted() {
            scan(&mut out)?;
            out.verified = true;
        }
        return Ok(out);
    }
    match open_verified(&file, 64 << 20, &sums, &Default::default())? {
        Ok(db) => {
            drop(db);
            out.verified = true;
        }
        Err(damage) => {
            out.problem = Some(damage.source.to_string());
            return Ok(out);
        }
    }
    match verdict {
        Verdict::Unverified(_) => {
            rebuild(&sums, &file)?;
            sums.seal()
                .map_err(|e| StoreError::new(format!("writing {}", sums.path().display()), e))?;
        }
        _ => scan(&mut out)?,
    }
    Ok(out)
}
