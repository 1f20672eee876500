//! A store file checked whole: redb's check of every page of the committed trees (each
//! page's checksum in its parent), and every 4 KiB unit of the file against its sum
//! ([`crate::sums`]), free pages included. A store without trusted sums (not closed cleanly,
//! from an earlier Tabiya) gets them written again once redb's check passes.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Result, StoreError};
use crate::opening::{changed, judge, open_file, open_sums, rebuild, unverifiable, verifying};
use crate::sums::Verdict;
use crate::{STORE_FILE, checked, guard};

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
    /// Said of the sums, when they were written again (why).
    pub sums_rewritten: Option<String>,
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
        sums_rewritten: None,
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
    let mut b = redb::Database::builder();
    b.set_cache_size(64 << 20);
    verifying(&mut b);
    let backend = checked::Checked::new(f, sums.clone())
        .map_err(|e| StoreError::new(format!("opening {}", file.display()), e))?;
    let opened = guard::caught(&file, "verifying", || Ok(b.create_with_backend(backend)));
    match opened {
        Ok(Ok(db)) => {
            drop(db);
            out.verified = true;
        }
        Ok(Err(redb::DatabaseError::DatabaseAlreadyOpen)) => {
            let mut err = StoreError::new(
                format!("verifying {}", file.display()),
                redb::DatabaseError::DatabaseAlreadyOpen,
            );
            err.in_use = true;
            return Err(err);
        }
        Ok(Err(e)) => {
            let e = unverifiable(&file, StoreError::new("verifying", e));
            out.problem = Some(e.source.to_string());
            return Ok(out);
        }
        Err(e) => {
            out.problem = Some(e.to_string());
            return Ok(out);
        }
    }
    match verdict {
        Verdict::Unverified(why) => {
            rebuild(&sums, &file)?;
            sums.seal()
                .map_err(|e| StoreError::new(format!("writing {}", sums.path().display()), e))?;
            out.sums_rewritten = Some(why);
        }
        _ => scan(&mut out)?,
    }
    Ok(out)
}
