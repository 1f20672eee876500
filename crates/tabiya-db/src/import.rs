//! Importing PGN: a pipeline that keeps both cores busy and memory bounded.
//!
//! ```text
//! reader thread ──chunks──▶ parse workers ──parsed games──▶ main (in file order) ──batches──▶ writer
//!  (decompress,             (parse, check moves,            (duplicates, ids,                (segment: compress games,
//!   split games)             hash positions)                 names, stored form)              then index run, one transaction)
//! ```
//!
//! The writer gathers batches into a [`Segment`] until the index memory
//! ([`ImportOptions::index_memory`]) is full, then builds its index run and commits it with
//! its games in one store transaction, so killing the process at any instant loses at most
//! the segment not yet committed; running the same import again skips the committed games as
//! duplicates and finishes the job. An import that fits its memory is one run: nothing to
//! merge.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use serde::Serialize;
use shakmaty::{CastlingMode, Chess, Move, Position};
use tabiya_pgn::fast::{self, PlainVisitor};
use tabiya_pgn::model::{outcome_of, result_str};
use tabiya_pgn::{Chunk, Game, GameError, GameParser, Splitter};

use crate::chess::{self, Dict, Occurrence};
use crate::facts::write_facts;
use crate::hll::Hll;
use crate::names::{NameCache, write_names};
use crate::run::{self, Occ};
use crate::stats::GameFacts;
use crate::{Database, Error, GAMES, META, Result, meta_u64, records};
use tabiya_store::WriteTx;

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Keep games equal to a stored game instead of skipping them.
    pub keep_duplicates: bool,
    /// Games per transaction (and per index run before merging), fewer if `index_memory`
    /// is full first; 0: as many as `index_memory` allows (chess; Othello imports take
    /// 50,000 then).
    pub batch_games: usize,
    /// Memory for building the index of one transaction, in bytes (about
    /// [`BYTES_PER_OCCURRENCE`] a position of a game). An import needing more is written as
    /// several runs, merged at the end.
    pub index_memory: u64,
    /// Parse threads (default: the machine's cores).
    pub workers: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            keep_duplicates: false,
            batch_games: 0,
            index_memory: default_index_memory(),
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

/// Games of an Othello import's transaction when no `--batch` is given.
pub const OTHELLO_BATCH_GAMES: usize = 50_000;

/// Most games a chess import's main thread hands the writer at a time: small, so the writer
/// trains the game dictionary and compresses while the parse threads still read (even in a
/// file of a few thousand games), and the recycled batches stay a few megabytes.
const HANDOFF_MAX: usize = 1024;

/// A quarter of the memory this process may use — the machine's (`/proc/meminfo`), or its
/// control group's limit when lower (containers) — between 256 MiB and 16 GiB; 2 GiB when
/// unknown.
pub fn default_index_memory() -> u64 {
    let machine = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    });
    // cgroup v2, then v1 ("max" or a huge number when there is no limit).
    let group = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok());
    let total = match (machine, group) {
        (Some(m), Some(g)) => Some(m.min(g)),
        (m, g) => m.or(g),
    };
    total.map_or(2 << 30, |t| (t / 4).clamp(256 << 20, 16 << 30))
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
    /// True while an index run is built and written with its games.
    pub indexing: AtomicBool,
    /// True while the index runs are merged, at the end.
    pub merging: AtomicBool,
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
    /// Index runs this import wrote (one per transaction), and merges at its end.
    pub runs_written: u32,
    pub merges: u32,
}

/// A game ready to store; its tags, body and occurrences lie in its [`ParsedChunk`]'s
/// buffers.
struct Prepared {
    /// Range of the chunk's `tag_spans`.
    tags: Range<usize>,
    /// Range of the chunk's `body` (the dictionary-free part of the stored form).
    body: Range<usize>,
    /// Range of the chunk's `occs` and `plies`.
    occs: Range<usize>,
    warnings: bool,
    facts: GameFacts,
    hash: u128,
}

struct ParsedGame {
    line: u64,
    result: Result<Prepared, GameError>,
}

/// The games of one chunk, parsed: a few buffers for all of them rather than a dozen
/// allocations a game (freed by another thread than the one that made them).
#[derive(Default)]
struct ParsedChunk {
    games: Vec<ParsedGame>,
    /// Tag names and values, one after the other.
    tag_text: String,
    /// Each tag as (name start, name end, value end) in `tag_text`.
    tag_spans: Vec<[usize; 3]>,
    body: Vec<u8>,
    occs: Vec<Occurrence>,
    /// Ply of each occurrence.
    plies: Vec<u16>,
}

impl ParsedChunk {
    /// Empties the buffers, keeping their memory.
    fn clear(&mut self) {
        self.games.clear();
        self.tag_text.clear();
        self.tag_spans.clear();
        self.body.clear();
        self.occs.clear();
        self.plies.clear();
    }

    fn push_tag(&mut self, name: &str, value: &str) {
        let a = self.tag_text.len();
        self.tag_text.push_str(name);
        let b = self.tag_text.len();
        self.tag_text.push_str(value);
        self.tag_spans.push([a, b, self.tag_text.len()]);
    }

    fn tags(&self, range: Range<usize>) -> impl Iterator<Item = (&str, &str)> {
        self.tag_spans[range]
            .iter()
            .map(|&[a, b, c]| (&self.tag_text[a..b], &self.tag_text[b..c]))
    }
}

/// What a parse thread keeps from game to game: the parser and scratch space.
struct ChunkParser {
    parser: GameParser,
    occs: Vec<Occurrence>,
    plies: Vec<u16>,
    /// A plain game's encoded moves (they follow the ply count in the stored form).
    moves: Vec<u8>,
    /// A plain game's move codes (for its duplicate digest).
    codes: Vec<u16>,
}

/// The direct path's visitor: a plain game's tags, counted positions and encoded moves go
/// straight into the chunk's buffers while the parser plays its moves (one replay of the
/// game, no [`Game`] built).
struct PlainPrep<'a> {
    out: &'a mut ParsedChunk,
    limit: usize,
    start: Option<(Chess, CastlingMode)>,
    walk: Option<chess::Walk>,
    left: Option<chess::Left>,
    moves: &'a mut Vec<u8>,
    codes: &'a mut Vec<u16>,
}

impl PlainVisitor for PlainPrep<'_> {
    fn tag(&mut self, name: &str, value: &str) {
        self.out.push_tag(name, value);
    }

    fn start(&mut self, pos: &Chess, castling_mode: CastlingMode) {
        self.walk = Some(chess::Walk::new(pos, self.limit, &self.out.occs));
        self.start = Some((pos.clone(), castling_mode));
    }

    fn before_move(&mut self, pos: &Chess, m: Move) {
        if let Some(walk) = self.walk.as_mut() {
            let code = chess::move_code(&m);
            self.codes.push(code);
            walk.count(pos.turn(), code, &mut self.out.occs, &mut self.out.plies);
            chess::encode_move_ep(pos, &m, walk.ep(), self.moves);
            self.left = Some(walk.leave(pos, m, &self.out.occs));
        }
    }

    fn after_move(&mut self, pos: &Chess, m: Move) {
        if let (Some(walk), Some(left)) = (self.walk.as_mut(), self.left.as_ref()) {
            walk.arrive(left, pos, m);
        }
    }
}

impl ChunkParser {
    fn new() -> ChunkParser {
        ChunkParser {
            parser: GameParser::new(),
            occs: Vec::new(),
            plies: Vec::new(),
            moves: Vec::new(),
            codes: Vec::new(),
        }
    }

    /// Parses a chunk's games into `out` (emptied first: the main thread sends the buffers
    /// back once it has taken the games, so they are allocated once).
    fn parse(&mut self, chunk: &Chunk, max_ply: Option<u32>, mut out: ParsedChunk) -> ParsedChunk {
        out.clear();
        for span in &chunk.games {
            let result = self.prepare(&mut out, chunk.game_bytes(span), span.line, max_ply);
            out.games.push(ParsedGame {
                line: span.line,
                result,
            });
        }
        out
    }

    fn prepare(
        &mut self,
        out: &mut ParsedChunk,
        bytes: &[u8],
        line: u64,
        max_ply: Option<u32>,
    ) -> Result<Prepared, GameError> {
        if let Some(p) = self.prepare_plain(out, bytes, max_ply) {
            return Ok(p);
        }
        let game = self.parser.parse_full(bytes, line)?;
        let t0 = out.tag_spans.len();
        for (name, value) in &game.tags {
            out.push_tag(name, value);
        }
        let b0 = out.body.len();
        chess::prepare(
            &game,
            max_ply,
            &mut out.body,
            &mut self.occs,
            &mut self.plies,
        );
        let o0 = out.occs.len();
        out.occs.extend_from_slice(&self.occs);
        out.plies.extend_from_slice(&self.plies);
        Ok(Prepared {
            tags: t0..out.tag_spans.len(),
            body: b0..out.body.len(),
            occs: o0..out.occs.len(),
            warnings: !game.warnings.is_empty(),
            facts: chess::facts(&game),
            hash: game_digest(&game),
        })
    }

    /// A plain game through the direct path: what [`ChunkParser::prepare`] makes of it
    /// through a [`Game`], in one replay. `None` (the chunk's buffers as they were) for any
    /// other game.
    fn prepare_plain(
        &mut self,
        out: &mut ParsedChunk,
        bytes: &[u8],
        max_ply: Option<u32>,
    ) -> Option<Prepared> {
        let (t0, text0, b0, o0) = (
            out.tag_spans.len(),
            out.tag_text.len(),
            out.body.len(),
            out.occs.len(),
        );
        self.moves.clear();
        self.codes.clear();
        let limit = max_ply.map_or(usize::MAX, |m| m as usize);
        let mut v = PlainPrep {
            out,
            limit,
            start: None,
            walk: None,
            left: None,
            moves: &mut self.moves,
            codes: &mut self.codes,
        };
        let end = fast::visit_plain(bytes, &mut v);
        let (walk, start) = (v.walk.take(), v.start.take());
        let (Some(end), Some(mut walk), Some((start, mode))) = (end, walk, start) else {
            out.tag_text.truncate(text0);
            out.tag_spans.truncate(t0);
            out.occs.truncate(o0);
            out.plies.truncate(o0);
            return None;
        };
        walk.count(
            end.last.turn(),
            chess::NO_MOVE,
            &mut out.occs,
            &mut out.plies,
        );
        let (text, spans) = (&out.tag_text, &out.tag_spans[t0..]);
        let tag = |name: &str| {
            spans
                .iter()
                .find(|&&[a, b, _]| &text[a..b] == name)
                .map(|&[_, b, c]| &text[b..c])
        };
        let outcome = outcome_of(tag("Result"), end.termination);
        chess::put_body_head(
            &mut out.body,
            &start,
            mode,
            false,
            chess::index_outcome(outcome),
            end.plies,
        );
        out.body.extend_from_slice(&self.moves);
        Some(Prepared {
            tags: t0..out.tag_spans.len(),
            body: b0..out.body.len(),
            occs: o0..out.occs.len(),
            warnings: false,
            facts: chess::facts_from(tag, outcome),
            hash: digest_from(tag, result_str(outcome), &start, self.codes.iter().copied()),
        })
    }
}

enum Work {
    Chunk {
        seq: u64,
        file: usize,
        chunk: Chunk,
    },
    FileError {
        seq: u64,
        file: usize,
        error: String,
    },
    FileDone {
        seq: u64,
        file: usize,
        bytes: u64,
    },
}

enum Parsed {
    Games {
        seq: u64,
        file: usize,
        games: ParsedChunk,
    },
    FileError {
        seq: u64,
        file: usize,
        error: String,
    },
    FileDone {
        seq: u64,
        file: usize,
        bytes: u64,
    },
}

impl Parsed {
    fn seq(&self) -> u64 {
        match self {
            Parsed::Games { seq, .. }
            | Parsed::FileError { seq, .. }
            | Parsed::FileDone { seq, .. } => *seq,
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
    digest_from(
        |name| game.tag(name),
        game.result_str(),
        &game.start,
        game.main_line().map(chess::move_code),
    )
}

/// [`game_digest`] from a lookup of the game's tags, its result string, start position and
/// the codes of its main line's moves.
fn digest_from<'a>(
    tag: impl Fn(&str) -> Option<&'a str>,
    result: &str,
    start: &Chess,
    codes: impl Iterator<Item = u16>,
) -> u128 {
    let mut h = Fnv128::new();
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        h.field(tag(name).unwrap_or("?").as_bytes());
    }
    h.field(result.as_bytes());
    if *start == Chess::default() {
        h.field(b"startpos");
    } else {
        let fen =
            shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal).to_string();
        h.field(fen.as_bytes());
    }
    for code in codes {
        h.bytes(&code.to_le_bytes());
    }
    h.0
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

/// Commits a batch on its own; with the ply of every occurrence, rare positions are kept
/// every other ply (see `run::build`).
pub(crate) fn commit_batch_with_plies(
    db: &Database,
    batch: Batch,
    plies: Option<Vec<u16>>,
) -> Result<()> {
    let mut seg = Segment::new(batch.first_game);
    seg.add(db, &batch, plies.as_deref())?;
    seg.commit(db).map(|_| ())
}

/// Bytes of memory an occurrence takes while a segment's run is built (the occurrence, its
/// ply, its place in the key sort, flags, its S entry): how [`ImportOptions::index_memory`]
/// becomes a number of occurrences.
pub const BYTES_PER_OCCURRENCE: u64 = 60;

/// Games gathered for one transaction: their stored form already compressed, facts,
/// duplicate digests, new names, and the occurrences their index run is built from. Batches
/// are added as they come: the games are compressed and put in the segment's transaction
/// then, and the distinct positions sketched, while other threads parse; [`Segment::commit`]
/// builds the run and writes the rest in the same transaction, then commits it.
pub(crate) struct Segment {
    first_game: u32,
    /// Games in the segment.
    games: usize,
    /// The segment's transaction, open from its first game to its commit (dropped
    /// uncommitted, it leaves the database as it was).
    tx: Option<WriteTx>,
    /// One compressed game (the store copies it).
    packed: Vec<u8>,
    facts: Vec<GameFacts>,
    digests: Vec<u128>,
    names: Vec<(Dict, u32, String)>,
    occs: Vec<Occ>,
    plies: Vec<u16>,
    with_plies: bool,
    sketch: Hll,
    /// The database's game dictionary (loaded once there is one), and whether it is new:
    /// trained on this segment's first batch big enough, to be stored with it.
    dict: Option<(Vec<u8>, zstd::dict::EncoderDictionary<'static>)>,
    dict_is_new: bool,
}

impl Segment {
    pub(crate) fn new(first_game: u32) -> Segment {
        Segment {
            first_game,
            games: 0,
            tx: None,
            packed: Vec::new(),
            facts: Vec::new(),
            digests: Vec::new(),
            names: Vec::new(),
            occs: Vec::new(),
            plies: Vec::new(),
            with_plies: true,
            sketch: Hll::default(),
            dict: None,
            dict_is_new: false,
        }
    }

    pub(crate) fn games(&self) -> usize {
        self.games
    }

    /// Makes room for this many occurrences if the system grants the address space (pages
    /// are only taken as they are written); otherwise the vectors grow as they fill.
    pub(crate) fn reserve(&mut self, occurrences: usize) {
        let _ = self
            .occs
            .try_reserve_exact(occurrences.saturating_sub(self.occs.len()));
        let _ = self
            .plies
            .try_reserve_exact(occurrences.saturating_sub(self.plies.len()));
    }

    pub(crate) fn occurrences(&self) -> usize {
        self.occs.len()
    }

    /// Takes in a batch (which must follow the games already in).
    pub(crate) fn add(
        &mut self,
        db: &Database,
        batch: &Batch,
        plies: Option<&[u16]>,
    ) -> Result<()> {
        if batch.records.is_empty() {
            return Ok(());
        }
        if self.games == 0 {
            self.first_game = batch.first_game;
        }
        debug_assert_eq!(
            self.first_game as usize + self.games,
            batch.first_game as usize
        );
        // Stored games are compressed with the database's dictionary, trained on the first
        // batch big enough.
        if self.dict.is_none() {
            let read = db.store.read()?;
            let stored = read.table(META)?.get(records::DICT_KEY)?;
            drop(read);
            if let Some(d) = stored {
                let ed = records::encoder_dictionary(&d);
                self.dict = Some((d, ed));
            }
        }
        if self.dict.is_none() && batch.records.len() >= records::TRAIN_MIN {
            let t = Instant::now();
            if let Some(d) = records::train(&batch.records) {
                let ed = records::encoder_dictionary(&d);
                self.dict = Some((d, ed));
                self.dict_is_new = true;
            }
            trace("trained the game dictionary", t);
        }
        let mut packer = records::Packer::new(self.dict.as_ref().map(|(_, ed)| ed))?;
        if self.tx.is_none() {
            self.tx = Some(db.store.write()?);
        }
        let tx = self.tx.as_ref().expect("opened above");
        let (first, at) = (self.first_game, self.games);
        let mut games = tx.table(GAMES)?;
        for (i, rec) in batch.records.iter().enumerate() {
            packer.pack(rec, &mut self.packed)?;
            games.put(&game_key(first + (at + i) as u32), &self.packed)?;
        }
        drop(games);
        self.games += batch.records.len();
        self.facts.extend_from_slice(&batch.facts);
        self.digests.extend(batch.dedup.iter().map(|(h, _)| *h));
        self.names.extend(batch.names.iter().cloned());
        for o in &batch.occs {
            self.sketch.add(o.key);
        }
        self.occs.extend_from_slice(&batch.occs);
        match plies {
            Some(p) if self.with_plies => self.plies.extend_from_slice(p),
            _ => {
                self.with_plies = false;
                self.plies.clear();
            }
        }
        Ok(())
    }

    /// Builds the segment's index run and writes it with the games in one transaction;
    /// the segment is then empty, ready for the next games. Returns whether there was
    /// anything to write. Prints timing lines on stderr when `TABIYA_TRACE` is set (for
    /// benchmarks).
    pub(crate) fn commit(&mut self, db: &Database) -> Result<bool> {
        if self.games == 0 {
            return Ok(false);
        }
        let t0 = Instant::now();
        let read = db.store.read()?;
        let run_id = meta_u64(&read, "next_run")? as u32;
        drop(read);
        let n = self.games as u32;
        let first = self.first_game;
        let facts = &self.facts;
        let lookup = |g: u32| facts[(g - first) as usize];
        let n_occs = self.occs.len();
        let plies = self.with_plies.then_some(&self.plies[..]);
        let built =
            run::build_sketched(&self.occs, &lookup, plies, std::mem::take(&mut self.sketch));
        trace(
            &format!(
                "segment of {n} games: sorted {n_occs} positions into {} records, {} singles, {} implicit",
                built.records.len(),
                built.singles.len(),
                built.implicit
            ),
            t0,
        );
        let w = match self.tx.take() {
            Some(w) => w,
            None => db.store.write()?,
        };
        // The run is encoded on the other cores while the rest goes in.
        let (records, singles) = (built.records, built.singles);
        let encoded = std::thread::scope(|s| -> Result<crate::merge::EncodedRun> {
            let encoding = s.spawn(|| crate::merge::encode_run(&records, &singles));
            if self.dict_is_new
                && let Some((d, _)) = &self.dict
            {
                w.with_table(META, |t| t.put(records::DICT_KEY, d))?;
            }
            write_facts(&w, first, &self.facts, &self.digests)?;
            write_names(&w, &self.names)?;
            encoding
                .join()
                .map_err(|_| Error::Corrupt("run encoding thread panicked".into()))
        })?;
        drop((records, singles));
        trace("run encoded, facts and names put", t0);
        crate::merge::write_encoded_run(
            &w,
            run_id,
            n as u64,
            encoded,
            &built.sketch,
            built.implicit,
        )?;
        trace("run put", t0);
        w.with_table(META, |t| {
            t.put(b"next_game", (first + n).to_string().as_bytes())?;
            t.put(b"next_run", (run_id + 1).to_string().as_bytes())?;
            Ok(())
        })?;
        w.commit()?;
        trace(&format!("segment of {n} games committed"), t0);
        self.first_game = first + n;
        self.games = 0;
        self.facts.clear();
        self.digests.clear();
        self.names.clear();
        self.occs.clear();
        self.plies.clear();
        self.with_plies = true;
        self.dict_is_new = false;
        Ok(true)
    }
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
    Reader {
        name: String,
        size: Option<u64>,
        reader: Box<dyn std::io::Read + Send>,
    },
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
    pub fn import(
        &self,
        paths: &[PathBuf],
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<ImportSummary> {
        let sources = paths.iter().map(|p| Source::Path(p.clone())).collect();
        self.import_sources(sources, opts, progress)
    }

    /// Imports from files or readers.
    pub fn import_sources(
        &self,
        sources: Vec<Source>,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<ImportSummary> {
        if self.kind() != crate::Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is an Othello database: import WTHOR files into it",
                self.dir().display()
            )));
        }
        let started = Instant::now();
        let max_ply = self.max_ply();
        let read = self.store.read()?;
        let mut next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let mut names = NameCache::load(&read)?;
        drop(read);
        let mut dedup = if opts.keep_duplicates {
            crate::keymap::KeyMap::default()
        } else {
            load_dedup(self)?
        };
        let mut summary = ImportSummary {
            files: sources
                .iter()
                .map(|s| FileSummary {
                    file: s.name(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };

        let (work_tx, work_rx) = crossbeam_channel::bounded::<Work>(8);
        let (parsed_tx, parsed_rx) = crossbeam_channel::bounded::<Parsed>(8);
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(1);
        // Parsed chunks' buffers, back from the main thread to be filled again.
        let (spent_tx, spent_rx) = crossbeam_channel::bounded::<ParsedChunk>(16);
        let workers = opts.workers.max(1);
        // Occurrences a segment may hold.
        let budget = (opts.index_memory / BYTES_PER_OCCURRENCE).max(1) as usize;
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
                let spent_rx = spent_rx.clone();
                named("tabiya-parse")
                    .spawn_scoped(s, move || {
                        let mut parser = ChunkParser::new();
                        for w in rx {
                            let out = match w {
                                Work::Chunk { seq, file, chunk } => {
                                    let buffers = spent_rx.try_recv().unwrap_or_default();
                                    Parsed::Games {
                                        seq,
                                        file,
                                        games: parser.parse(&chunk, max_ply, buffers),
                                    }
                                }
                                Work::FileError { seq, file, error } => {
                                    Parsed::FileError { seq, file, error }
                                }
                                Work::FileDone { seq, file, bytes } => {
                                    Parsed::FileDone { seq, file, bytes }
                                }
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
            // Writer: batches gather into a segment, committed (index run and games in one
            // transaction) when it holds `batch_games` games or fills `index_memory`.
            // Committed batches come back to be filled again: no fresh hundreds of megabytes
            // (and page faults) per batch.
            let (recycle_tx, recycle_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(2);
            let seg_games = opts.batch_games;
            let writer = named("tabiya-write")
                .spawn_scoped(s, move || -> Result<u32> {
                    let mut seg = Segment::new(0);
                    let mut last = 0usize;
                    let mut runs = 0u32;
                    let mut commit = |seg: &mut Segment| -> Result<()> {
                        progress.indexing.store(true, Ordering::Relaxed);
                        let written = seg.commit(self);
                        progress.indexing.store(false, Ordering::Relaxed);
                        runs += u32::from(written?);
                        Ok(())
                    };
                    for (batch, mut plies) in batch_rx {
                        if seg_games == 0 && seg.games() == 0 {
                            // Address space for the whole segment: no copies as it grows.
                            seg.reserve(budget + batch.occs.len().max(last));
                        }
                        seg.add(self, &batch, Some(&plies))?;
                        last = last.max(batch.occs.len());
                        plies.clear();
                        let _ = recycle_tx.try_send((batch, plies));
                        // The games asked for, or no room for one more batch like the
                        // biggest so far.
                        let full = (seg_games > 0 && seg.games() >= seg_games)
                            || seg.occurrences() + last > budget;
                        if full {
                            commit(&mut seg)?;
                        }
                    }
                    commit(&mut seg)?;
                    Ok(runs)
                })
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;

            // Main: put games in file order, drop duplicates, assign ids, build batches.
            let mut pending: BTreeMap<u64, Parsed> = BTreeMap::new();
            let mut next_seq = 0u64;
            // Batches of at most HANDOFF_MAX that add up to a segment exactly, or, when
            // the memory decides, small enough for a segment to take several (about 100
            // positions a game).
            let handoff = match opts.batch_games {
                0 => (budget / 400).clamp(64, HANDOFF_MAX),
                n => n.div_ceil(n.div_ceil(HANDOFF_MAX)),
            };
            let mut batch = Batch::with_capacity(next_game, handoff);
            let mut batch_plies: Vec<u16> = Vec::with_capacity(handoff * 90);
            let mut game_index: Vec<u64> = vec![0; names_of.len()];
            let mut writer_failed = false;
            'receive: for msg in parsed_rx {
                pending.insert(msg.seq(), msg);
                while let Some(msg) = pending.remove(&next_seq) {
                    next_seq += 1;
                    match msg {
                        Parsed::FileError { file, error, .. } => {
                            summary.problems.push(Problem {
                                file: names_of[file].clone(),
                                line: 0,
                                game: 0,
                                reason: error,
                            });
                        }
                        Parsed::FileDone { file, bytes, .. } => summary.files[file].bytes = bytes,
                        Parsed::Games {
                            file, games: chunk, ..
                        } => {
                            for pg in chunk.games.iter() {
                                game_index[file] += 1;
                                summary.games += 1;
                                summary.files[file].games += 1;
                                progress.games.fetch_add(1, Ordering::Relaxed);
                                let prepared = match &pg.result {
                                    Ok(p) => p,
                                    Err(e) => {
                                        summary.skipped += 1;
                                        summary.files[file].skipped += 1;
                                        *summary
                                            .skipped_by_reason
                                            .entry(reason_kind(&e.reason))
                                            .or_default() += 1;
                                        summary.problems.push(Problem {
                                            file: names_of[file].clone(),
                                            line: e.line,
                                            game: game_index[file],
                                            reason: e.reason.clone(),
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
                                next_game = next_game.checked_add(1).ok_or_else(|| {
                                    Error::Usage("database full (2^32 games)".into())
                                })?;
                                if !opts.keep_duplicates {
                                    dedup.insert(prepared.hash, id);
                                }
                                let body = &chunk.body[prepared.body.clone()];
                                let mut record = Vec::with_capacity(body.len() + 128);
                                chess::assemble_tags(
                                    chunk.tags(prepared.tags.clone()),
                                    &mut names,
                                    body,
                                    &mut record,
                                );
                                batch.records.push(record);
                                batch.facts.push(prepared.facts);
                                batch.dedup.push((prepared.hash, id));
                                let occs = prepared.occs.clone();
                                batch
                                    .occs
                                    .extend(chunk.occs[occs.clone()].iter().map(|o| Occ {
                                        key: o.key,
                                        game: id,
                                        code: o.code,
                                        mover: o.mover,
                                    }));
                                batch_plies.extend_from_slice(&chunk.plies[occs]);
                                summary.imported += 1;
                                summary.files[file].imported += 1;
                                progress.imported.fetch_add(1, Ordering::Relaxed);
                                if batch.records.len() >= handoff {
                                    batch.names = names.take_pending();
                                    let (mut fresh, fresh_plies) =
                                        recycle_rx.try_recv().unwrap_or_else(|_| {
                                            (
                                                Batch::with_capacity(next_game, handoff),
                                                Vec::with_capacity(handoff * 90),
                                            )
                                        });
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
                            let _ = spent_tx.try_send(chunk);
                        }
                    }
                }
            }
            if !writer_failed {
                batch.names = names.take_pending();
                let _ = batch_tx.send((batch, batch_plies));
            }
            drop(batch_tx);
            summary.runs_written = writer
                .join()
                .map_err(|_| Error::Corrupt("writer thread panicked".into()))??;
            Ok(())
        })?;
        let t = Instant::now();
        progress.merging.store(true, Ordering::Relaxed);
        let merged = crate::merge::compact(self);
        progress.merging.store(false, Ordering::Relaxed);
        summary.merges = merged?;
        trace("merged index runs", t);
        summary.seconds = started.elapsed().as_secs_f64();
        summary.games_per_second = if summary.seconds > 0.0 {
            summary.games as f64 / summary.seconds
        } else {
            0.0
        };
        summary.database_games = self.game_count()?;
        Ok(summary)
    }
}

fn display(p: &Path) -> String {
    if p.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        p.display().to_string()
    }
}

fn read_inputs(
    sources: Vec<Source>,
    tx: &crossbeam_channel::Sender<Work>,
    progress: &ImportProgress,
) {
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
            Source::Reader { name, size, reader } => {
                tabiya_pgn::input::from_reader(name, size, reader)
            }
        };
        let input = match opened {
            Ok(i) => i,
            Err(e) => {
                if !send(Work::FileError {
                    seq,
                    file,
                    error: format!("cannot read: {e}"),
                }) {
                    return;
                }
                seq += 1;
                continue;
            }
        };
        progress
            .file_size
            .store(input.size.unwrap_or(0), Ordering::Relaxed);
        let counter = input.progress.clone();
        let mut splitter = Splitter::new(input.reader);
        loop {
            match splitter.next_chunk() {
                Ok(Some(chunk)) => {
                    progress
                        .file_bytes
                        .store(counter.bytes(), Ordering::Relaxed);
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
                    if !send(Work::FileError {
                        seq,
                        file,
                        error: format!("read error after {} bytes: {e}", counter.bytes()),
                    }) {
                        return;
                    }
                    seq += 1;
                    break;
                }
            }
        }
        progress
            .file_bytes
            .store(counter.bytes(), Ordering::Relaxed);
        if !send(Work::FileDone {
            seq,
            file,
            bytes: counter.bytes(),
        }) {
            return;
        }
        seq += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags, stored body, counted positions, their plies, facts and digest of a game.
    type Made = (
        Vec<(String, String)>,
        Vec<u8>,
        Vec<Occurrence>,
        Vec<u16>,
        GameFacts,
        u128,
    );

    /// What the general path (a [`Game`], then [`chess::prepare`]) makes of a game.
    fn general(bytes: &[u8], line: u64, max_ply: Option<u32>) -> Option<Made> {
        let game = GameParser::new().parse_full(bytes, line).ok()?;
        let (mut body, mut occs, mut plies) = (Vec::new(), Vec::new(), Vec::new());
        chess::prepare(&game, max_ply, &mut body, &mut occs, &mut plies);
        Some((
            game.tags.clone(),
            body,
            occs,
            plies,
            chess::facts(&game),
            game_digest(&game),
        ))
    }

    /// Every game of the shared PGN that the direct path takes comes out exactly as the
    /// general path makes it (tags, stored body, counted positions with their plies, facts,
    /// duplicate digest), full depth and with a ply cap, in one chunk's buffers one game
    /// after another; and the games it leaves leave the buffers as they were.
    #[test]
    fn the_direct_path_prepares_games_as_the_general_path_does() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pgn/");
        let mut files: Vec<PathBuf> = ["twic", "pgnmentor", "edge-cases"]
            .iter()
            .flat_map(|d| {
                std::fs::read_dir(format!("{dir}{d}"))
                    .expect("shared data")
                    .map(|e| e.unwrap().path())
            })
            .collect();
        files.sort();
        let (mut direct, mut total) = (0, 0);
        for max_ply in [None, Some(12)] {
            for f in &files {
                let text = std::fs::read(f).unwrap();
                let mut parser = ChunkParser::new();
                let mut out = ParsedChunk::default();
                for chunk in Splitter::new(text.as_slice()) {
                    let chunk = chunk.unwrap();
                    for span in &chunk.games {
                        let bytes = chunk.game_bytes(span);
                        let at = format!("{}:{} (max ply {max_ply:?})", f.display(), span.line);
                        let before = (
                            out.tag_text.len(),
                            out.tag_spans.len(),
                            out.body.len(),
                            out.occs.len(),
                            out.plies.len(),
                        );
                        total += 1;
                        let Some(p) = parser.prepare_plain(&mut out, bytes, max_ply) else {
                            let after = (
                                out.tag_text.len(),
                                out.tag_spans.len(),
                                out.body.len(),
                                out.occs.len(),
                                out.plies.len(),
                            );
                            assert_eq!(before, after, "{at}: buffers left as they were");
                            continue;
                        };
                        direct += 1;
                        let (tags, body, occs, plies, facts, hash) =
                            general(bytes, span.line, max_ply)
                                .unwrap_or_else(|| panic!("{at}: refused by the parser"));
                        let got: Vec<(String, String)> = out
                            .tags(p.tags.clone())
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect();
                        assert_eq!(got, tags, "{at}");
                        assert_eq!(&out.body[p.body.clone()], &body[..], "{at}");
                        assert_eq!(&out.occs[p.occs.clone()], &occs[..], "{at}");
                        assert_eq!(&out.plies[p.occs.clone()], &plies[..], "{at}");
                        assert_eq!(p.facts, facts, "{at}");
                        assert_eq!(p.hash, hash, "{at}");
                        assert!(!p.warnings);
                    }
                }
            }
        }
        assert!(
            direct * 10 > total * 9,
            "direct path took {direct} of {total} games"
        );
    }
}
