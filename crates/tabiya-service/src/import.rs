//! Importing games: PGN and Parquet into a chess database, WTHOR `.wtb` files into an
//! Othello one. The
//! kind is told from the inputs and the database (a mix is refused with a message saying
//! what to do); the database is created when it does not exist; after the import the file
//! gives its free pages back.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::{Deserialize, Serialize};
pub use tabiya_db::othello::{NameSources, WthorImportSummary};
pub use tabiya_db::{FileSummary, ImportProgress, ImportSummary, Problem, Source};

use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// What to import and how.
#[derive(Debug, Clone, Default)]
pub struct ImportRequest {
    /// PGN files (plain, `.zst`, `.gz`, `.bz2`, `-` for standard input), Parquet files and
    /// folders of them ([`crate::inputs`]), or WTHOR `.wtb` files.
    pub files: Vec<PathBuf>,
    /// Index positions up to this ply only (set when a chess database is created).
    pub max_ply: Option<u32>,
    /// Keep games equal to a stored game.
    pub keep_duplicates: bool,
    /// Chess: keep the structure index (from then on, for every import).
    pub structures: bool,
    /// Games per transaction (0: as many as the index memory allows; Othello: 50,000).
    pub batch: u64,
    /// Chess: memory for building one transaction's index, in MiB (default: a quarter of
    /// the machine's memory).
    pub memory_mib: Option<u64>,
    /// WTHOR: the player (`.jou`) and tournament (`.trn`) name files for every `.wtb`
    /// (default: the ones beside each file).
    pub names: NameSources,
}

/// What an import did, by kind (the JSON is the kind's summary itself; read back, an
/// Othello summary is told by its Othello fields).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ImportReport {
    Othello(WthorImportSummary),
    Chess(ImportSummary),
}

impl ImportReport {
    /// What both kinds report.
    pub fn summary(&self) -> &ImportSummary {
        match self {
            ImportReport::Chess(s) => s,
            ImportReport::Othello(w) => &w.summary,
        }
    }
}

pub(crate) fn is_wthor_games(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wtb") || e.eq_ignore_ascii_case("wtd"))
}

/// The kind of database an import goes into: Othello for `.wtb` inputs or an existing
/// Othello database, chess otherwise. A mix of kinds is refused, saying what to do.
pub fn kind_of_import(dir: &Path, req: &ImportRequest, existing: Option<Kind>) -> Result<Kind> {
    let wthor: Vec<&PathBuf> = req.files.iter().filter(|f| is_wthor_games(f)).collect();
    if !wthor.is_empty() && wthor.len() != req.files.len() {
        let other = req
            .files
            .iter()
            .find(|f| !is_wthor_games(f))
            .expect("a file that is not .wtb");
        return Err(Error::bad_request(format!(
            "cannot import WTHOR files ({}) and other files ({}) together: an Othello database takes .wtb files, a chess database PGN",
            wthor[0].display(),
            other.display()
        )));
    }
    match (existing, wthor.is_empty()) {
        (Some(Kind::Chess), false) => Err(Error::bad_request(format!(
            "{} is a chess database: WTHOR files ({}) can only go into an Othello database (use another --db)",
            dir.display(),
            wthor[0].display()
        ))),
        (Some(Kind::Othello), true) => Err(Error::bad_request(format!(
            "{} is an Othello database: it takes WTHOR .wtb files, not {} (use another --db for chess)",
            dir.display(),
            req.files[0].display()
        ))),
        (_, true) => {
            if req.names.jou.is_some() || req.names.trn.is_some() {
                return Err(Error::bad_request(
                    "--jou and --trn name the WTHOR names of .wtb files; no .wtb file was given",
                ));
            }
            Ok(Kind::Chess)
        }
        (_, false) => {
            if req.structures {
                // (No directory: a hand-over's inputs, judged before the server is asked.)
                let which = match existing {
                    Some(_) => format!("{} is an Othello database", dir.display()),
                    None if dir.as_os_str().is_empty() => {
                        format!(
                            "WTHOR files ({}) make an Othello database",
                            wthor[0].display()
                        )
                    }
                    None => format!(
                        "{} would be an Othello database (WTHOR files: {})",
                        dir.display(),
                        wthor[0].display()
                    ),
                };
                return Err(Error::bad_request(format!(
                    "{which}: the structure index (--structures) is for chess"
                )));
            }
            if req.max_ply.is_some() {
                return Err(Error::bad_request(
                    "--max-ply is for chess databases: an Othello database indexes every position",
                ));
            }
            Ok(Kind::Othello)
        }
    }
}

/// Imports `req.files` into the database in `dir` (created when missing), reporting
/// progress in `progress`, then gives the file's free pages back.
pub fn import(dir: &Path, req: &ImportRequest, progress: &ImportProgress) -> Result<ImportReport> {
    let kind = kind_of_import(dir, req, Db::kind_of(dir)?)?;
    let sources = match kind {
        Kind::Chess => crate::inputs::sources(&req.files)?,
        Kind::Othello => Vec::new(),
    };
    import_sources(dir, kind, sources, req, progress)
}

/// [`import`] from open readers (chess only for readers; Othello reads its files by path).
pub fn import_sources(
    dir: &Path,
    kind: Kind,
    sources: Vec<Source>,
    req: &ImportRequest,
    progress: &ImportProgress,
) -> Result<ImportReport> {
    // What was there before: a database made by this import and left empty is taken away.
    let made = (!Db::exists(dir)).then(|| Before::of(dir));
    let db = Db::open_or_create(
        dir,
        kind,
        if kind == Kind::Chess {
            req.max_ply
        } else {
            None
        },
    )?;
    let mut opts = tabiya_db::ImportOptions {
        keep_duplicates: req.keep_duplicates,
        batch_games: req.batch as usize,
        structures: req.structures,
        ..Default::default()
    };
    if let Some(mib) = req.memory_mib {
        opts.index_memory = mib << 20;
    }
    let result = match kind {
        Kind::Chess => db
            .inner()?
            .import_sources(sources, &opts, progress)
            .map(ImportReport::Chess),
        Kind::Othello => db
            .inner()?
            .import_wthor(&req.files, &req.names, &opts, progress)
            .map(ImportReport::Othello),
    };
    // Merges free the pages of the runs they replace, and a big transaction leaves the file
    // larger than what it holds: give the free pages back.
    progress.compacting.store(true, Ordering::Relaxed);
    let shrunk = if result.is_ok() {
        db.into_inner()?.shrink_reopened().map(|_| ())
    } else {
        Ok(())
    };
    progress.compacting.store(false, Ordering::Relaxed);
    let report = result?;
    shrunk?;
    if let Some(before) = made
        && report.summary().database_games == 0
    {
        before.restore(dir)?;
    }
    Ok(report)
}

/// A directory as it was before an import made a database in it: absent, or its entries.
struct Before {
    entries: Option<Vec<std::ffi::OsString>>,
}

impl Before {
    fn of(dir: &Path) -> Before {
        Before {
            entries: std::fs::read_dir(dir)
                .ok()
                .map(|d| d.flatten().map(|e| e.file_name()).collect()),
        }
    }

    /// Takes away what the import made (nothing imported: no empty database left behind).
    fn restore(self, dir: &Path) -> Result<()> {
        let gone = |e: std::io::Error| {
            Error::new(
                crate::ErrorKind::Io,
                format!("cannot remove the empty database {}: {e}", dir.display()),
            )
        };
        match self.entries {
            None => std::fs::remove_dir_all(dir).map_err(gone),
            Some(before) => {
                for e in std::fs::read_dir(dir).map_err(gone)?.flatten() {
                    if !before.contains(&e.file_name()) {
                        let p = e.path();
                        if p.is_dir() {
                            std::fs::remove_dir_all(&p).map_err(gone)?;
                        } else {
                            std::fs::remove_file(&p).map_err(gone)?;
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// Imports `req.files` into a database this process already has open (a server's), while
/// it answers questions: they are answered from the state before the import until it is
/// done, then from the new one — no answer sees part of an import. The file keeps its free
/// pages (giving them back needs the database to itself): the next import that opens it
/// alone gives them back.
pub fn import_into(
    db: &Db,
    req: &ImportRequest,
    progress: &ImportProgress,
) -> Result<ImportReport> {
    match kind_into(db, req)? {
        Kind::Chess => {
            let sources = crate::inputs::sources(&req.files)?;
            import_into_from(db, req, Inputs::Chess(sources), progress)
        }
        Kind::Othello => {
            let mut paths = tabiya_db::othello::WthorPaths {
                files: &req.files,
                names: &req.names,
            };
            import_into_from(db, req, Inputs::Othello(&mut paths), progress)
        }
    }
}

/// What an import reads, opened: a chess import's sources, an Othello import's WTHOR files
/// (by path, or received by a hand-over).
pub enum Inputs<'a> {
    Chess(Vec<Source>),
    Othello(&'a mut dyn tabiya_db::othello::WthorInputs),
}

/// The kind of the import `req` into `db`, a database this process has open, or why it
/// cannot go in (a mix of kinds; `--max-ply` other than the database's).
pub fn kind_into(db: &Db, req: &ImportRequest) -> Result<Kind> {
    let kind = kind_of_import(db.dir(), req, Some(db.kind()))?;
    if kind == Kind::Chess && req.max_ply.is_some() && req.max_ply != db.inner()?.max_ply() {
        return Err(Error::bad_request(format!(
            "{} indexes {}; --max-ply would make its statistics inconsistent",
            db.dir().display(),
            db.inner()?
                .max_ply()
                .map_or("every ply".to_string(), |p| format!("up to ply {p}"))
        )));
    }
    Ok(kind)
}

/// [`import_into`] from inputs already opened (of the kind [`kind_into`] gave): `req` gives
/// the options, its files are not read.
pub fn import_into_from(
    db: &Db,
    req: &ImportRequest,
    inputs: Inputs<'_>,
    progress: &ImportProgress,
) -> Result<ImportReport> {
    let mut opts = tabiya_db::ImportOptions {
        keep_duplicates: req.keep_duplicates,
        batch_games: req.batch as usize,
        structures: req.structures,
        ..Default::default()
    };
    if let Some(mib) = req.memory_mib {
        opts.index_memory = mib << 20;
    }
    // Questions asked meanwhile get the database as it was until the import is done.
    let _pinned = db.inner()?.pin_answers()?;
    Ok(match inputs {
        Inputs::Chess(sources) => {
            ImportReport::Chess(db.inner()?.import_sources(sources, &opts, progress)?)
        }
        Inputs::Othello(files) => {
            ImportReport::Othello(db.inner()?.import_wthor_from(files, &opts, progress)?)
        }
    })
}

/// What an import is doing now, for a progress display.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportStatus {
    /// Index of the input being read.
    pub file_index: usize,
    /// Its name (the last part of its path).
    pub file_name: String,
    /// Bytes of it consumed, and its size (0 when unknown).
    pub file_bytes: u64,
    pub file_size: u64,
    /// Games read and imported so far.
    pub games: u64,
    pub imported: u64,
    /// Games read a second, since `started`.
    pub games_per_second: f64,
    /// What happens after the reading, when it does.
    pub stage: Option<String>,
}

/// The state of an import, read from its live counters.
pub fn status(progress: &ImportProgress, started: Instant) -> ImportStatus {
    let r = &progress.reading;
    let name = r.file_name.lock().map(|n| n.clone()).unwrap_or_default();
    let games = progress.games.load(Ordering::Relaxed);
    // After the reading: the last index run is built and written, the runs merged, the
    // file compacted; say so rather than sit at 100 %.
    let stage = if progress.compacting.load(Ordering::Relaxed) {
        Some("giving free pages back")
    } else if progress.merging.load(Ordering::Relaxed) {
        Some("merging index runs")
    } else if progress.indexing.load(Ordering::Relaxed) {
        Some("writing an index run")
    } else {
        None
    }
    .map(String::from);
    ImportStatus {
        file_index: r.file_index.load(Ordering::Relaxed),
        file_name: Path::new(&name)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or(name),
        file_bytes: r.file_bytes.load(Ordering::Relaxed),
        file_size: r.file_size.load(Ordering::Relaxed),
        games,
        imported: progress.imported.load(Ordering::Relaxed),
        games_per_second: games as f64 / started.elapsed().as_secs_f64().max(1e-3),
        stage,
    }
}
