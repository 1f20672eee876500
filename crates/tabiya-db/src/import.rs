//! Importing PGN: a pipeline that keeps both cores busy and memory bounded.
//!
//! ```text
//! reader thread ──chunks──▶ parse workers ──parsed games──▶ main (in file order) ──batches──▶ writer
//!  (decompress,             (parse, check moves,            (duplicates, ids,                (index run,
//!   split games)             hash positions)                 names, stored form)              one transaction)
//! ```
//!
//! Each batch is committed in one store transaction, so killing the process at any instant
//! loses at most the batches not yet committed; running the same import again skips the
//! committed games as duplicates and finishes the job.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use tabiya_pgn::{Chunk, Game, GameError, GameParser, Splitter};

use crate::chess::{self, Dict, Occurrence};
use crate::facts::write_facts;
use crate::names::{NameCache, write_names};
use crate::run::{self, Occ};
use crate::stats::GameFacts;
use crate::{Database, Error, GAMES, META, Result, meta_u64, records};

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Keep games equal to a stored game instead of skipping them.
    pub keep_duplicates: bool,
    /// Games per transaction (and per index run before merging).
    pub batch_games: usize,
    /// Parse threads (default: the machine's cores).
    pub workers: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            keep_duplicates: false,
            batch_games: 50_000,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// Live counters an interface can poll to draw a progress bar.
#[derive(Debug, Default)]
pub struct ImportProgress {
    pub file_index: AtomicUsize,
    pub file_name: Mutex<String>,
    /// Bytes of the current file consumed (compressed bytes for compressed files).
    pub file_bytes: AtomicU64,
    /// Size of the current file, 0 when unknown (standard input).
    pub file_size: AtomicU64,
    /// Games read so far (all files), whatever became of them.
    pub games: AtomicU64,
    pub imported: AtomicU64,
    /// Set by the interface to stop the import early (after the current batch).
    pub cancel: AtomicBool,
}

/// A game that was skipped, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based line in the file (0 when the problem is with the file itself).
    pub line: u64,
    /// 1-based index of the game in its file (0 when the problem is with the file itself).
    pub game: u64,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSummary {
    pub file: String,
    pub games: u64,
    pub imported: u64,
    pub duplicates: u64,
    pub skipped: u64,
    pub bytes: u64,
}

/// What an import did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub files: Vec<FileSummary>,
    pub games: u64,
    pub imported: u64,
    pub duplicates: u64,
    pub skipped: u64,
    /// Skipped games counted by reason (first words of the reason).
    pub skipped_by_reason: BTreeMap<String, u64>,
    /// Games imported with something dropped (a variation cut at an illegal move...).
    pub warnings: u64,
    pub problems: Vec<Problem>,
    pub seconds: f64,
    pub games_per_second: f64,
    /// Games in the database after the import.
    pub database_games: u64,
}

/// A game ready to store.
struct Prepared {
    /// The game's tags (the rest of the parsed game is dropped in the parse thread).
    tags: Vec<(String, String)>,
    warnings: bool,
    /// Ply of each occurrence.
    plies: Vec<u16>,
    /// The dictionary-free part of the stored form.
    body: Vec<u8>,
    facts: GameFacts,
    occs: Vec<Occurrence>,
    hash: u128,
}

struct ParsedGame {
    line: u64,
    result: Result<Prepared, GameError>,
}

enum Work {
    Chunk { seq: u64, file: usize, chunk: Chunk },
    FileError { seq: u64, file: usize, error: String },
    FileDone { seq: u64, file: usize, bytes: u64 },
}

enum Parsed {
    Games { seq: u64, file: usize, games: Vec<ParsedGame> },
    FileError { seq: u64, file: usize, error: String },
    FileDone { seq: u64, file: usize, bytes: u64 },
}

impl Parsed {
    fn seq(&self) -> u64 {
        match self {
            Parsed::Games { seq, .. } | Parsed::FileError { seq, .. } | Parsed::FileDone { seq, .. } => *seq,
        }
    }
}

/// FNV-1a over 128 bits: the duplicate digest of a game (Seven Tag Roster, start position,
/// main line). Two games with equal digests are treated as the same game; a false match
/// needs about 2^64 games.
pub(crate) struct Fnv128(pub(crate) u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;

    pub(crate) fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u128;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn field(&mut self, b: &[u8]) {
        self.bytes(&(b.len() as u64).to_le_bytes());
        self.bytes(b);
    }
}

/// The duplicate digest of a game.
pub fn game_digest(game: &Game) -> u128 {
    let mut h = Fnv128::new();
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        h.field(game.tag(name).unwrap_or("?").as_bytes());
    }
    h.field(game.result_str().as_bytes());
    if game.standard_start() {
        h.field(b"startpos");
    } else {
        let fen = shakmaty::fen::Fen::from_position(&game.start, shakmaty::EnPassantMode::Legal).to_string();
        h.field(fen.as_bytes());
    }
    for n in &game.moves {
        h.bytes(&chess::move_code(&n.mv).to_le_bytes());
    }
    h.0
}

fn prepare(parser: &mut GameParser, bytes: &[u8], line: u64, max_ply: Option<u32>) -> Result<Prepared, GameError> {
    let game = parser.parse(bytes, line)?;
    let n = game.moves.len();
    let mut occs = Vec::with_capacity(n + 1);
    let mut plies = Vec::with_capacity(n + 1);
    let mut body = Vec::with_capacity(n + 32);
    chess::prepare(&game, max_ply, &mut body, &mut occs, &mut plies);
    let facts = chess::facts(&game);
    let hash = game_digest(&game);
    let warnings = !game.warnings.is_empty();
    Ok(Prepared { tags: game.tags, warnings, plies, body, facts, occs, hash })
}

/// One batch of games to commit.
pub(crate) struct Batch {
    pub first_game: u32,
    pub records: Vec<Vec<u8>>,
    pub facts: Vec<GameFacts>,
    pub occs: Vec<Occ>,
    /// Duplicate digest of every game of the batch, in id order.
    pub dedup: Vec<(u128, u32)>,
    pub names: Vec<(Dict, u32, String)>,
}

impl Batch {
    /// Empties the batch, keeping its memory.
    fn reset(&mut self, first_game: u32) {
        self.first_game = first_game;
        self.records.clear();
        self.facts.clear();
        self.occs.clear();
        self.dedup.clear();
        self.names.clear();
    }

    fn with_capacity(first_game: u32, games: usize) -> Batch {
        Batch {
            first_game,
            records: Vec::with_capacity(games),
            facts: Vec::with_capacity(games),
            occs: Vec::with_capacity(games * 90),
            dedup: Vec::with_capacity(games),
            names: Vec::new(),
        }
    }
}

fn game_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

/// Commits one batch: games, facts, names, duplicate digests and a new index run.
/// Prints a timing line on stderr when `TABIYA_TRACE` is set (for benchmarks).
pub(crate) fn trace(what: &str, since: Instant) {
    if std::env::var_os("TABIYA_TRACE").is_some() {
        eprintln!("[trace] {what}: {:.3} s", since.elapsed().as_secs_f64());
    }
}

/// Commits a batch; with the ply of every occurrence, rare positions are kept every other
/// ply (see `run::build`).
pub(crate) fn commit_batch_with_plies(db: &Database, batch: Batch, plies: Option<Vec<u16>>) -> Result<()> {
    commit_batch_ref(db, &batch, plies.as_deref())
}

/// [`commit_batch_with_plies`] leaving the batch to the caller, who may reuse its memory.
pub(crate) fn commit_batch_ref(db: &Database, batch: &Batch, plies: Option<&[u16]>) -> Result<()> {
    if batch.records.is_empty() {
        return Ok(());
    }
    let t0 = Instant::now();
    let read = db.store.read()?;
    let run_id = meta_u64(&read, "next_run")? as u32;
    drop(read);
    let n = batch.records.len() as u32;
    let first = batch.first_game;
    let facts = &batch.facts;
    let lookup = |g: u32| facts[(g - first) as usize];
    let n_occs = batch.occs.len();
    let built = run::build(&batch.occs, &lookup, plies);
    trace(
        &format!(
            "batch of {n} games: sorted {n_occs} positions into {} records, {} singles, {} implicit",
            built.records.len(),
            built.singles.len(),
            built.implicit
        ),
        t0,
    );
    // Stored games are compressed with the database's dictionary, trained on the first
    // batch big enough.
    let read = db.store.read()?;
    let mut dict = read.table(META)?.get(records::DICT_KEY)?;
    drop(read);
    let new_dict = if dict.is_none() && batch.records.len() >= records::TRAIN_MIN {
        let t = Instant::now();
        dict = records::train(&batch.records);
        trace("trained the game dictionary", t);
        dict.clone()
    } else {
        None
    };
    let ed = dict.as_deref().map(records::encoder_dictionary);
    let mut packer = records::Packer::new(ed.as_ref())?;
    let mut packed = Vec::with_capacity(batch.records.len());
    for rec in &batch.records {
        let mut p = Vec::with_capacity(rec.len() / 2 + 16);
        packer.pack(rec, &mut p)?;
        packed.push(p);
    }
    let w = db.store.write()?;
    w.with_table(GAMES, |t| {
        for (i, p) in packed.iter().enumerate() {
            t.put(&game_key(first + i as u32), p)?;
        }
        Ok(())
    })?;
    if let Some(d) = new_dict {
        w.with_table(META, |t| t.put(records::DICT_KEY, &d))?;
    }
    let digests: Vec<u128> = batch.dedup.iter().map(|(h, _)| *h).collect();
    write_facts(&w, first, &batch.facts, &digests)?;
    write_names(&w, &batch.names)?;
    crate::merge::write_run(&w, run_id, n as u64, built.records.into_iter(), built.singles.into_iter(), &built.sketch, built.implicit)?;
    w.with_table(META, |t| {
        t.put(b"next_game", (first + n).to_string().as_bytes())?;
        t.put(b"next_run", (run_id + 1).to_string().as_bytes())?;
        Ok(())
    })?;
    w.commit()?;
    trace(&format!("batch of {n} games committed"), t0);
    Ok(())
}

fn load_dedup(db: &Database) -> Result<crate::keymap::KeyMap<u32>> {
    let read = db.store.read()?;
    crate::facts::load_digests(&read)
}

fn reason_kind(reason: &str) -> String {
    // "move 12... Nf9 (ply 24): illegal move ..." -> "illegal move"; "unsupported variant ..." -> itself.
    let r = reason.split_once("): ").map_or(reason, |(_, r)| r);
    let words: Vec<&str> = r.split_whitespace().take(2).collect();
    words.join(" ")
}

/// Something to import: a file (`-` for standard input) or an already open reader.
pub enum Source {
    Path(PathBuf),
    Reader { name: String, size: Option<u64>, reader: Box<dyn std::io::Read + Send> },
}

impl Source {
    fn name(&self) -> String {
        match self {
            Source::Path(p) => display(p),
            Source::Reader { name, .. } => name.clone(),
        }
    }
}

impl Database {
    /// Imports PGN files (`-` reads standard input). Malformed games are reported and
    /// skipped; everything else goes in.
    pub fn import(&self, paths: &[PathBuf], opts: &ImportOptions, progress: &ImportProgress) -> Result<ImportSummary> {
        let sources = paths.iter().map(|p| Source::Path(p.clone())).collect();
        self.import_sources(sources, opts, progress)
    }

    /// Imports from files or readers.
    pub fn import_sources(&self, sources: Vec<Source>, opts: &ImportOptions, progress: &ImportProgress) -> Result<ImportSummary> {
        if self.kind() != crate::Kind::Chess {
            return Err(Error::Usage(format!("{} is an Othello database: import WTHOR files into it", self.dir().display())));
        }
        let started = Instant::now();
        let max_ply = self.max_ply();
        let read = self.store.read()?;
        let mut next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let mut names = NameCache::load(&read)?;
        drop(read);
        let mut dedup = if opts.keep_duplicates { crate::keymap::KeyMap::default() } else { load_dedup(self)? };
        let mut summary = ImportSummary {
            files: sources.iter().map(|s| FileSummary { file: s.name(), ..Default::default() }).collect(),
            ..Default::default()
        };

        let (work_tx, work_rx) = crossbeam_channel::bounded::<Work>(8);
        let (parsed_tx, parsed_rx) = crossbeam_channel::bounded::<Parsed>(8);
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(1);
        let workers = opts.workers.max(1);
        let names_of: Vec<String> = sources.iter().map(Source::name).collect();

        std::thread::scope(|s| -> Result<()> {
            // Reader.
            let named = |name: &str| std::thread::Builder::new().name(name.to_string());
            named("tabiya-read")
                .spawn_scoped(s, move || read_inputs(sources, &work_tx, progress))
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
            // Parse workers.
            for _ in 0..workers {
                let rx = work_rx.clone();
                let tx = parsed_tx.clone();
                named("tabiya-parse").spawn_scoped(s, move || {
                    let mut parser = GameParser::new();
                    for w in rx {
                        let out = match w {
                            Work::Chunk { seq, file, chunk } => {
                                let games = chunk
                                    .games
                                    .iter()
                                    .map(|span| ParsedGame {
                                        line: span.line,
                                        result: prepare(&mut parser, chunk.game_bytes(span), span.line, max_ply),
                                    })
                                    .collect();
                                Parsed::Games { seq, file, games }
                            }
                            Work::FileError { seq, file, error } => Parsed::FileError { seq, file, error },
                            Work::FileDone { seq, file, bytes } => Parsed::FileDone { seq, file, bytes },
                        };
                        if tx.send(out).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
            }
            drop(work_rx);
            drop(parsed_tx);
            // Writer.
            // Committed batches come back to be filled again: no fresh hundreds of megabytes
            // (and page faults) per batch.
            let (recycle_tx, recycle_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(2);
            let writer = named("tabiya-write")
                .spawn_scoped(s, move || -> Result<()> {
                    for (batch, mut plies) in batch_rx {
                        commit_batch_ref(self, &batch, Some(&plies))?;
                        plies.clear();
                        let _ = recycle_tx.try_send((batch, plies));
                    }
                    Ok(())
                })
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;

            // Main: put games in file order, drop duplicates, assign ids, build batches.
            let mut pending: BTreeMap<u64, Parsed> = BTreeMap::new();
            let mut next_seq = 0u64;
            let cap = opts.batch_games.min(1 << 20);
            let mut batch = Batch::with_capacity(next_game, cap);
            let mut batch_plies: Vec<u16> = Vec::with_capacity(cap * 90);
            let mut game_index: Vec<u64> = vec![0; names_of.len()];
            let mut writer_failed = false;
            'receive: for msg in parsed_rx {
                pending.insert(msg.seq(), msg);
                while let Some(msg) = pending.remove(&next_seq) {
                    next_seq += 1;
                    match msg {
                        Parsed::FileError { file, error, .. } => {
                            summary.problems.push(Problem { file: names_of[file].clone(), line: 0, game: 0, reason: error });
                        }
                        Parsed::FileDone { file, bytes, .. } => summary.files[file].bytes = bytes,
                        Parsed::Games { file, games, .. } => {
                            for pg in games {
                                game_index[file] += 1;
                                summary.games += 1;
                                summary.files[file].games += 1;
                                progress.games.fetch_add(1, Ordering::Relaxed);
                                let prepared = match pg.result {
                                    Ok(p) => p,
                                    Err(e) => {
                                        summary.skipped += 1;
                                        summary.files[file].skipped += 1;
                                        *summary.skipped_by_reason.entry(reason_kind(&e.reason)).or_default() += 1;
                                        summary.problems.push(Problem {
                                            file: names_of[file].clone(),
                                            line: e.line,
                                            game: game_index[file],
                                            reason: e.reason,
                                        });
                                        continue;
                                    }
                                };
                                let _ = pg.line;
                                if !opts.keep_duplicates && dedup.contains_key(&prepared.hash) {
                                    summary.duplicates += 1;
                                    summary.files[file].duplicates += 1;
                                    continue;
                                }
                                if prepared.warnings {
                                    summary.warnings += 1;
                                }
                                let id = next_game;
                                next_game = next_game.checked_add(1).ok_or_else(|| Error::Usage("database full (2^32 games)".into()))?;
                                if !opts.keep_duplicates {
                                    dedup.insert(prepared.hash, id);
                                }
                                let mut record = Vec::new();
                                chess::assemble_tags(&prepared.tags, &mut names, &prepared.body, &mut record);
                                batch.records.push(record);
                                batch.facts.push(prepared.facts);
                                batch.dedup.push((prepared.hash, id));
                                batch.occs.extend(prepared.occs.iter().map(|o| Occ { key: o.key, game: id, code: o.code, mover: o.mover }));
                                batch_plies.extend_from_slice(&prepared.plies);
                                summary.imported += 1;
                                summary.files[file].imported += 1;
                                progress.imported.fetch_add(1, Ordering::Relaxed);
                                if batch.records.len() >= opts.batch_games {
                                    batch.names = names.take_pending();
                                    let (mut fresh, fresh_plies) = recycle_rx
                                        .try_recv()
                                        .unwrap_or_else(|_| (Batch::with_capacity(next_game, cap), Vec::with_capacity(cap * 90)));
                                    fresh.reset(next_game);
                                    let full = std::mem::replace(&mut batch, fresh);
                                    let plies = std::mem::replace(&mut batch_plies, fresh_plies);
                                    if batch_tx.send((full, plies)).is_err() {
                                        writer_failed = true;
                                        break 'receive;
                                    }
                                }
                                if progress.cancel.load(Ordering::Relaxed) {
                                    break 'receive;
                                }
                            }
                        }
                    }
                }
            }
            if !writer_failed {
                batch.names = names.take_pending();
                let _ = batch_tx.send((batch, batch_plies));
            }
            drop(batch_tx);
            writer.join().map_err(|_| Error::Corrupt("writer thread panicked".into()))??;
            Ok(())
        })?;
        let t = Instant::now();
        crate::merge::compact(self)?;
        trace("merged index runs", t);
        summary.seconds = started.elapsed().as_secs_f64();
        summary.games_per_second = if summary.seconds > 0.0 { summary.games as f64 / summary.seconds } else { 0.0 };
        summary.database_games = self.game_count()?;
        Ok(summary)
    }
}

fn display(p: &Path) -> String {
    if p.as_os_str() == "-" { "<stdin>".to_string() } else { p.display().to_string() }
}

fn read_inputs(sources: Vec<Source>, tx: &crossbeam_channel::Sender<Work>, progress: &ImportProgress) {
    let mut seq = 0u64;
    let send = |w: Work| tx.send(w).is_ok();
    for (file, source) in sources.into_iter().enumerate() {
        progress.file_index.store(file, Ordering::Relaxed);
        if let Ok(mut n) = progress.file_name.lock() {
            *n = source.name();
        }
        progress.file_bytes.store(0, Ordering::Relaxed);
        let opened = match source {
            Source::Path(path) => tabiya_pgn::input::open(&path),
            Source::Reader { name, size, reader } => tabiya_pgn::input::from_reader(name, size, reader),
        };
        let input = match opened {
            Ok(i) => i,
            Err(e) => {
                if !send(Work::FileError { seq, file, error: format!("cannot read: {e}") }) {
                    return;
                }
                seq += 1;
                continue;
            }
        };        progress.file_size.store(input.size.unwrap_or(0), Ordering::Relaxed);
        let counter = input.progress.clone();
        let mut splitter = Splitter::new(input.reader);
        loop {
            match splitter.next_chunk() {
                Ok(Some(chunk)) => {
                    progress.file_bytes.store(counter.bytes(), Ordering::Relaxed);
                    if !send(Work::Chunk { seq, file, chunk }) {
                        return;
                    }
                    seq += 1;
                    if progress.cancel.load(Ordering::Relaxed) {
                        return;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    if !send(Work::FileError { seq, file, error: format!("read error after {} bytes: {e}", counter.bytes()) }) {
                        return;
                    }
                    seq += 1;
                    break;
                }
            }
        }
        progress.file_bytes.store(counter.bytes(), Ordering::Relaxed);
        if !send(Work::FileDone { seq, file, bytes: counter.bytes() }) {
            return;
        }
        seq += 1;
    }
}
