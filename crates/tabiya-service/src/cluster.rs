//! A cluster build (Spark, `scripts/spark/tabiya_build.py`): the worker commands its
//! stages run on each batch of games, and the load of what it built. The chess work stays
//! Tabiya's: a worker parses games exactly as an import does; the cluster removes
//! duplicates, gives ids and sorts every occurrence by key; the load stores the games and
//! assembles their run from the sorted occurrences, with no replay (`docs/scale.md`).

use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_db::chess::cluster::{PreparedGame, keyed_occurrences, prepare_chunk};
use tabiya_db::{ImportProgress, ImportSummary, KeyedOcc, Kind, OccStream};
use tabiya_parquet::cluster::{
    OccReader, OccRow, PreparedRow, game_chunks, read_id_games, write_occurrences, write_prepared,
};
use tabiya_pgn::pipeline::Source;
use tabiya_pgn::{Chunk, GameSpan};

use crate::database::Db;
use crate::error::{Error, ErrorKind, Result};

/// What a worker did with its batch.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerReport {
    pub rows: u64,
    pub accepted: u64,
    pub refused: u64,
    /// Occurrences written (the occurrences stage).
    pub occurrences: u64,
}

fn input(e: String) -> Error {
    Error::new(ErrorKind::BadInput, e)
}

/// Stage 1: every game of `input` (a `pgn` column, or a games table) parsed as an import
/// parses it; `output` gets, row by row, its text, its duplicate digest and counted
/// positions, or why it is refused.
pub fn prepare_games(
    input_file: &Path,
    output: &Path,
    max_ply: Option<u32>,
) -> Result<WorkerReport> {
    let mut chunks = game_chunks(input_file).map_err(input)?;
    let mut rows: Vec<PreparedRow> = Vec::new();
    let mut report = WorkerReport {
        rows: 0,
        accepted: 0,
        refused: 0,
        occurrences: 0,
    };
    while let Some(chunk) = chunks.next_chunk().map_err(input)? {
        let mut at = 0;
        prepare_chunk(&chunk, max_ply, |g| {
            let bytes = chunk.game_bytes(&chunk.games[at]);
            let text = String::from_utf8_lossy(bytes).into_owned();
            at += 1;
            let row = rows.len() as i64;
            let held = games_in(bytes);
            rows.push(match g {
                // The row is one game to the parser; the others would be lost unseen.
                Ok(_) if held > 1 => PreparedRow {
                    row,
                    pgn: text,
                    digest: None,
                    positions: None,
                    error: Some(format!(
                        "this row holds {held} games (a game without an [Event tag after another?): give one game a row"
                    )),
                },
                Ok(p) => PreparedRow {
                    row,
                    pgn: text,
                    digest: Some(p.digest.to_be_bytes()),
                    positions: Some(p.occs.len() as i32),
                    error: None,
                },
                Err(e) => PreparedRow {
                    row,
                    pgn: text,
                    digest: None,
                    positions: None,
                    error: Some(e.reason.clone()),
                },
            });
        });
    }
    report.rows = rows.len() as u64;
    report.accepted = rows.iter().filter(|r| r.error.is_none()).count() as u64;
    report.refused = report.rows - report.accepted;
    write_prepared(output, &rows).map_err(input)?;
    Ok(report)
}

/// How many games a text holds, as the PGN import would cut it.
fn games_in(text: &[u8]) -> usize {
    let mut split = tabiya_pgn::Splitter::new(text);
    let mut n = 0;
    while let Ok(Some(c)) = split.next_chunk() {
        n += c.games.len();
    }
    n
}

/// Games as a chunk of PGN texts.
fn chunk_of(texts: &[(i64, String, i32)]) -> Chunk {
    let mut data = Vec::new();
    let mut games = Vec::with_capacity(texts.len());
    for (i, (_, t, _)) in texts.iter().enumerate() {
        let start = data.len();
        data.extend_from_slice(t.trim_end().as_bytes());
        games.push(GameSpan {
            start,
            end: data.len(),
            offset: i as u64,
            line: i as u64 + 1,
            dropped: 0,
        });
        data.extend_from_slice(b"\n\n");
    }
    Chunk { data, games }
}

fn game_id(id: i64) -> Result<u32> {
    u32::try_from(id)
        .ok()
        .filter(|&g| g > 0)
        .ok_or_else(|| input(format!("game id {id} is not between 1 and 4,294,967,295")))
}

/// Stage 2: every counted position of `input`'s games (`id`, `pgn`: games stage 1
/// accepted), as occurrence rows, game by game.
pub fn occurrences(input_file: &Path, output: &Path, max_ply: Option<u32>) -> Result<WorkerReport> {
    let games = read_id_games(input_file, false).map_err(input)?;
    let mut rows: Vec<OccRow> = Vec::new();
    let mut keyed: Vec<KeyedOcc> = Vec::new();
    let mut failure: Option<Error> = None;
    for part in games.chunks(1024) {
        let chunk = chunk_of(part);
        let mut at = 0;
        prepare_chunk(
            &chunk,
            max_ply,
            |g: std::result::Result<PreparedGame<'_>, _>| {
                let id = part[at].0;
                at += 1;
                if failure.is_some() {
                    return;
                }
                let r = game_id(id).and_then(|gid| match g {
                Ok(p) => {
                    keyed.clear();
                    keyed_occurrences(gid, &p, &mut keyed).map_err(input)?;
                    rows.extend(keyed.iter().map(|o| OccRow {
                        key: o.key,
                        game: i64::from(o.game),
                        rank: i32::from(o.rank),
                        code: i32::from(o.code),
                        mover: i32::from(o.mover),
                        adj: o.adj,
                    }));
                    Ok(())
                }
                Err(e) => Err(input(format!(
                    "{}: game {id} is refused ({}): only games the games stage accepted have ids",
                    input_file.display(),
                    e.reason
                ))),
            });
                if let Err(e) = r {
                    failure = Some(e);
                }
            },
        );
        if let Some(e) = failure.take() {
            return Err(e);
        }
    }
    write_occurrences(output, &rows).map_err(input)?;
    Ok(WorkerReport {
        rows: games.len() as u64,
        accepted: games.len() as u64,
        refused: 0,
        occurrences: rows.len() as u64,
    })
}

/// The Parquet files of a folder of a build, in name order (Spark's part files: that is
/// their order).
fn parts(dir: &Path) -> Result<Vec<PathBuf>> {
    let read = std::fs::read_dir(dir).map_err(|e| {
        input(format!(
            "{}: {e} (a build has games/ and index/)",
            dir.display()
        ))
    })?;
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "parquet")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(['.', '_']))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(input(format!("{}: no Parquet files", dir.display())));
    }
    Ok(files)
}

fn keyed(r: OccRow, file: &Path) -> tabiya_db::Result<KeyedOcc> {
    let bad = |what: &str| {
        tabiya_db::Error::Input(format!(
            "{}: occurrence of game {} at rank {}: {what}",
            file.display(),
            r.game,
            r.rank
        ))
    };
    Ok(KeyedOcc {
        key: r.key,
        game: u32::try_from(r.game).map_err(|_| bad("game id out of range"))?,
        rank: u16::try_from(r.rank).map_err(|_| bad("rank out of range"))?,
        code: u16::try_from(r.code).map_err(|_| bad("move code out of range"))?,
        mover: u8::try_from(r.mover)
            .ok()
            .filter(|&m| m < 2)
            .ok_or_else(|| bad("mover is not 0 or 1"))?,
        adj: r.adj,
    })
}

/// Loads a cluster build (`build/games/`, `build/index/`) into a new chess database at
/// `db_dir`: the games stored in id order, then their run assembled from the sorted
/// occurrences. `memory_mib`: as `tabiya import --memory`.
pub fn load(
    build: &Path,
    db_dir: &Path,
    max_ply: Option<u32>,
    memory_mib: Option<u64>,
    progress: &ImportProgress,
) -> Result<ImportSummary> {
    let game_files = parts(&build.join("games"))?;
    let index_files = parts(&build.join("index"))?;
    // Ids and counted positions first (the texts are read again by the import, a batch at
    // a time).
    let mut positions: Vec<u32> = Vec::new();
    for f in &game_files {
        for (id, _, n) in read_id_games(f, true).map_err(input)? {
            let expected = positions.len() as i64 + 1;
            if id != expected {
                return Err(input(format!(
                    "{}: game id {id} where {expected} comes next (ids run from 1, in file order)",
                    f.display()
                )));
            }
            positions.push(
                u32::try_from(n)
                    .map_err(|_| input(format!("{}: game {id}: {n} positions", f.display())))?,
            );
        }
    }
    // A load that fails leaves no database where there was none.
    let existed = Db::exists(db_dir);
    let fresh = !db_dir.exists();
    let loaded = load_into(
        db_dir,
        max_ply,
        memory_mib,
        game_files,
        index_files,
        &positions,
        progress,
    );
    if loaded.is_err() && !existed {
        let _ = if fresh {
            std::fs::remove_dir_all(db_dir)
        } else {
            remove_database_files(db_dir)
        };
    }
    loaded
}

/// Removes what opening a database made in a directory that held none (its store, the
/// store's checksums and an import's spill; nothing else of the directory).
fn remove_database_files(dir: &Path) -> std::io::Result<()> {
    std::fs::remove_file(dir.join("tabiya.redb"))?;
    match std::fs::remove_file(dir.join("tabiya.sums")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    match std::fs::remove_dir_all(dir.join("spill")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn load_into(
    db_dir: &Path,
    max_ply: Option<u32>,
    memory_mib: Option<u64>,
    game_files: Vec<PathBuf>,
    index_files: Vec<PathBuf>,
    positions: &[u32],
    progress: &ImportProgress,
) -> Result<ImportSummary> {
    let db = Db::open_or_create(db_dir, Kind::Chess, max_ply)?;
    let sources: Vec<Source> = game_files
        .iter()
        .map(|f| {
            let p = f.clone();
            Source::Rows {
                name: f.display().to_string(),
                open: Box::new(move || game_chunks(&p)),
            }
        })
        .collect();
    let open = move || -> tabiya_db::Result<OccStream<'static>> {
        let files = index_files.clone();
        let mut readers = files.into_iter();
        let mut current: Option<(PathBuf, OccReader)> = None;
        Ok(Box::new(std::iter::from_fn(move || {
            loop {
                if current.is_none() {
                    let f = readers.next()?;
                    match OccReader::open(&f) {
                        Ok(r) => current = Some((f, r)),
                        Err(e) => return Some(Err(tabiya_db::Error::Input(e))),
                    }
                }
                let (f, r) = current.as_mut().expect("opened");
                match r.next() {
                    Some(Ok(row)) => return Some(keyed(row, f)),
                    Some(Err(e)) => return Some(Err(tabiya_db::Error::Input(e))),
                    None => current = None,
                }
            }
        })))
    };
    let mut opts = tabiya_db::ImportOptions::default();
    if let Some(mib) = memory_mib {
        opts.index_memory = mib << 20;
    }
    let summary = db
        .inner()?
        .load_sorted(sources, positions, &open, &opts, progress)?;
    db.into_inner()?.shrink_reopened()?;
    Ok(summary)
}
