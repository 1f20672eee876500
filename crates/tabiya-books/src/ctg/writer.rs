//! Writing a `.ctg/.cto/.ctb/.ini` book from [`BookPosition`]s.
//!
//! Layout choices (see `docs/formats/ctg.md`): records are put in buckets by the low bits of
//! their key hash, one data page per bucket, at the smallest base level k where the book
//! fills the 2^k pages to at most `fill_percent`; a bucket that does not fit a page is split
//! by the next hash bit (linear-hashing style, as PowerPlay17's table is), recursively. The
//! `.cto` slot of bucket b at level k is (2^k − 1) + b, exactly the slot the lookup computes;
//! the table has (highest used slot + 1) slots like both real books; the `.ctb` lower bound
//! is the first slot of the base level and the upper bound one past the highest split slot,
//! so the lookup reaches every leaf.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position};

use super::error::{CtgError, Result};
use super::key::{CtgKey, Transform, encode_key, encode_with};
use super::moves::{MoveCodeError, encode_move};
use super::reader::{EMPTY_SLOT, PAGE_SIZE, TRAILER_LEN, Trailer, book_stem};
use crate::{BookPosition, BookStats};

/// What to do when two given positions normalise to the same key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DuplicatePolicy {
    /// Add their statistics, unite their move lists (a move given twice keeps its first
    /// annotation), keep the first recommendation and commentary. Counted in the report.
    #[default]
    Merge,
    /// Fail with [`CtgError::Write`].
    Error,
}

/// Options of [`write_book`].
#[derive(Clone, Debug)]
pub struct CtgWriteOptions {
    /// Games written at offset 28 of the header page. `None`: the start position's game
    /// count if the book has it, else the largest game count of any position.
    pub games: Option<u32>,
    pub duplicates: DuplicatePolicy,
    /// When a move leads to a position not given, write a child record (no moves) from the
    /// move's statistics, so the move keeps its statistics. Moves without statistics and
    /// without a given child stay childless and are counted.
    pub synthesise_children: bool,
    /// Target fill of the pages at the base level, percent of the 4092 usable bytes
    /// (real books: PowerPlay17 averages 72 %). 1..=100.
    pub fill_percent: u8,
    /// Book name written to the `.ini` (default: the file stem).
    pub name: Option<String>,
    /// Forces the base level k of the slot table instead of deriving it from
    /// `fill_percent` (for experiments and tests of bucket splitting); at most 30.
    pub base_level: Option<u32>,
}

impl Default for CtgWriteOptions {
    fn default() -> Self {
        CtgWriteOptions {
            games: None,
            duplicates: DuplicatePolicy::Merge,
            synthesise_children: true,
            fill_percent: 75,
            name: None,
            base_level: None,
        }
    }
}

/// A position the writer left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedPosition {
    /// FEN of the given position.
    pub fen: String,
    pub reason: String,
}

/// A move the writer left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedMove {
    /// FEN of the position the move belongs to.
    pub fen: String,
    /// The move in UCI.
    pub uci: String,
    pub reason: String,
}

/// Most examples of dropped moves and skipped positions kept in a report.
pub const MAX_REPORTED_EXAMPLES: usize = 1000;

/// What [`write_book`] did.
#[derive(Clone, Debug, Default)]
pub struct WriteReport {
    /// `.ctg`, `.cto`, `.ctb`, `.ini`.
    pub files: Vec<PathBuf>,
    pub positions_given: u64,
    /// Records written (given positions after merging, plus synthesised children).
    pub records_written: u64,
    /// Given positions merged into an earlier one with the same key.
    pub duplicates_merged: u64,
    /// Positions that cannot be encoded (non-standard castling rights).
    pub positions_skipped: u64,
    pub moves_written: u64,
    /// Underpromotions (the format only queens).
    pub moves_dropped_underpromotion: u64,
    /// Moves of a piece beyond the table (third knight, second king, …) or not standard.
    pub moves_dropped_no_code: u64,
    /// Moves that are not legal in their position.
    pub moves_dropped_illegal: u64,
    /// Moves past the 127 one record can hold (its length byte counts 2 × moves + 1).
    pub moves_dropped_too_many: u64,
    /// Moves whose code an earlier move of the same record already has (duplicates).
    pub moves_dropped_duplicate: u64,
    pub children_synthesised: u64,
    /// Written moves whose child position is not in the book.
    pub moves_without_child: u64,
    /// Counts or sums that did not fit their field (3 or 4 bytes) and were clamped.
    pub values_clamped: u64,
    /// Examples (at most [`MAX_REPORTED_EXAMPLES`]).
    pub skipped: Vec<SkippedPosition>,
    pub dropped: Vec<DroppedMove>,
    /// Header game count written.
    pub games: u32,
    pub data_pages: u32,
    pub slots: u32,
    pub lower_bound: u32,
    pub upper_bound: u32,
    /// Base level k of the slot table (2^k buckets before splits).
    pub base_level: u32,
    /// Buckets split because they did not fit a page.
    pub split_buckets: u32,
}

impl WriteReport {
    /// What the book could not hold, by name (the `lost` counts of `book build` and
    /// `book convert`; zero counts included).
    pub fn losses(&self) -> [(&'static str, u64); 8] {
        [
            ("underpromotions", self.moves_dropped_underpromotion),
            ("movesWithoutCode", self.moves_dropped_no_code),
            ("illegalMoves", self.moves_dropped_illegal),
            ("movesPast127", self.moves_dropped_too_many),
            ("duplicateMoveCodes", self.moves_dropped_duplicate),
            ("positionsNotEncodable", self.positions_skipped),
            ("positionsMergedWithTwin", self.duplicates_merged),
            ("valuesClamped", self.values_clamped),
        ]
    }
}

struct WMove {
    code: u8,
    annotation: u8,
    child: Option<CtgKey>,
    stats: Option<BookStats>,
    green: Option<bool>,
    red: Option<bool>,
    commentary: Option<u8>,
}

struct WRecord {
    key: CtgKey,
    stats: BookStats,
    recommendation: u8,
    commentary: u8,
    moves: Vec<WMove>,
}

impl WRecord {
    fn size(&self) -> usize {
        self.key.len() + 1 + 2 * self.moves.len() + TRAILER_LEN
    }
}

const MAX_MOVES: usize = 127;
const PAGE_ROOM: usize = PAGE_SIZE - 4;

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn clamp(v: u64, max: u64, clamped: &mut u64) -> u32 {
    if v > max {
        *clamped += 1;
        max as u32
    } else {
        v as u32
    }
}

fn trailer_of(r: &WRecord, clamped: &mut u64) -> Trailer {
    const M3: u64 = 0xFF_FFFF;
    const M4: u64 = 0xFFFF_FFFF;
    let s = &r.stats;
    let games = clamp(s.games, M3, clamped);
    let wins = clamp(s.wins, M3, clamped);
    let losses = clamp(s.losses, M3, clamped);
    let draws = clamp(s.draws, M3, clamped);
    // Unknown field at +12: 10 × score of the side to move, draws and games without a
    // result counted half — what 80 % of real records hold.
    let score10 = 5 * (u64::from(games) + u64::from(wins)).saturating_sub(u64::from(losses));
    Trailer {
        games,
        wins,
        losses,
        draws,
        unknown12: (score10.min(M4) as u32).to_be_bytes(),
        rating_games: clamp(s.rating_games, M3, clamped),
        rating_sum: clamp(s.rating_sum, M4, clamped),
        performance_games: clamp(s.performance_games, M3, clamped),
        performance_sum: clamp(s.performance_sum, M4, clamped),
        recommendation: r.recommendation,
        unknown31: 0,
        commentary: r.commentary,
    }
}

fn add_stats(a: &mut BookStats, b: &BookStats) {
    a.games += b.games;
    a.wins += b.wins;
    a.draws += b.draws;
    a.losses += b.losses;
    a.rating_games += b.rating_games;
    a.rating_sum += b.rating_sum;
    a.performance_games += b.performance_games;
    a.performance_sum += b.performance_sum;
}

fn write_err(path: &Path) -> impl Fn(std::io::Error) -> CtgError + '_ {
    move |source| CtgError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `stem.ctg`, `stem.cto`, `stem.ctb` and `stem.ini` (a `.ctg/.cto/.ctb/.ini`
/// extension on `stem` is replaced). Positions may have either side to move; they are
/// normalised. See [`CtgWriteOptions`] and [`WriteReport`] for what is merged, synthesised
/// and left out.
pub fn write_book(
    stem: &Path,
    positions: impl IntoIterator<Item = BookPosition>,
    options: &CtgWriteOptions,
) -> Result<WriteReport> {
    let mut rep = WriteReport::default();
    let mut records = Records::default();
    for bp in positions {
        records.add(bp, options, &mut rep)?;
    }
    records.limit_moves(&mut rep);
    records.synthesise_children(options, &mut rep);
    rep.records_written = records.list.len() as u64;
    rep.games = header_games(&records, options, &mut rep)?;
    let leaves = lay_out(&records.list, options, &mut rep)?;
    let files = BookFiles::of(stem);
    rep.files = files.list();
    write_ctg(&files.ctg, &records.list, &leaves, &mut rep)?;
    write_cto(&files.cto, &leaves, &rep)?;
    write_ctb(&files.ctb, &rep)?;
    let name = options.name.clone().unwrap_or_else(|| {
        files
            .base
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    write_ini(&files.ini, &name, &rep)?;
    Ok(rep)
}

/// The records to write, in the order given, with their keys' places.
#[derive(Default)]
struct Records {
    list: Vec<WRecord>,
    index: HashMap<CtgKey, usize>,
}

impl Records {
    /// Adds a given position: its key, its moves that have a code; a position whose key an
    /// earlier one has is merged into it (or refused, as the options say).
    fn add(
        &mut self,
        bp: BookPosition,
        options: &CtgWriteOptions,
        rep: &mut WriteReport,
    ) -> Result<()> {
        rep.positions_given += 1;
        let pos = &bp.position;
        let t = Transform::of(pos);
        let key = match encode_with(pos, t) {
            Ok(k) => k,
            Err(e) => {
                rep.positions_skipped += 1;
                if rep.skipped.len() < MAX_REPORTED_EXAMPLES {
                    rep.skipped.push(SkippedPosition {
                        fen: fen_of(pos),
                        reason: e.to_string(),
                    });
                }
                return Ok(());
            }
        };
        let moves = record_moves(&bp, t, rep);
        let stats = bp.stats.clone().unwrap_or_default();
        match self.index.get(&key) {
            Some(&i) => {
                if options.duplicates == DuplicatePolicy::Error {
                    return Err(CtgError::Write(format!(
                        "position {} normalises to key {} of an earlier position",
                        fen_of(pos),
                        key.to_hex()
                    )));
                }
                rep.duplicates_merged += 1;
                let r = &mut self.list[i];
                add_stats(&mut r.stats, &stats);
                for m in moves {
                    if !r.moves.iter().any(|x| x.code == m.code) {
                        r.moves.push(m);
                    }
                }
            }
            None => {
                self.index.insert(key, self.list.len());
                self.list.push(WRecord {
                    key,
                    stats,
                    recommendation: bp.recommendation.unwrap_or(0),
                    commentary: bp.commentary.unwrap_or(0),
                    moves,
                });
            }
        }
        Ok(())
    }

    /// Per record: a code given twice is kept once, and at most 127 moves.
    fn limit_moves(&mut self, rep: &mut WriteReport) {
        for r in &mut self.list {
            let mut seen = [false; 256];
            let before = r.moves.len();
            r.moves
                .retain(|m| !std::mem::replace(&mut seen[usize::from(m.code)], true));
            rep.moves_dropped_duplicate += (before - r.moves.len()) as u64;
            if r.moves.len() > MAX_MOVES {
                rep.moves_dropped_too_many += (r.moves.len() - MAX_MOVES) as u64;
                r.moves.truncate(MAX_MOVES);
            }
        }
    }

    /// Counts the moves written and those whose child is not in the book; with
    /// `synthesise_children`, adds a record (no moves) for each missing child of a move with
    /// statistics, after the given ones.
    fn synthesise_children(&mut self, options: &CtgWriteOptions, rep: &mut WriteReport) {
        let mut synthesised = Vec::new();
        for r in &self.list {
            for m in &r.moves {
                rep.moves_written += 1;
                let Some(child) = m.child else {
                    rep.moves_without_child += 1;
                    continue;
                };
                if self.index.contains_key(&child) {
                    continue;
                }
                match (&m.stats, options.synthesise_children) {
                    (Some(s), true) => {
                        self.index
                            .insert(child, self.list.len() + synthesised.len());
                        synthesised.push(child_record(child, s, m));
                    }
                    _ => rep.moves_without_child += 1,
                }
            }
        }
        rep.children_synthesised = synthesised.len() as u64;
        self.list.extend(synthesised);
    }
}

/// The moves of a given position that the format can hold, with their codes; the others
/// are counted (and the first few kept as examples).
fn record_moves(bp: &BookPosition, t: Transform, rep: &mut WriteReport) -> Vec<WMove> {
    let pos = &bp.position;
    let mut moves = Vec::with_capacity(bp.moves.len());
    for bm in &bp.moves {
        let drop = |rep: &mut WriteReport, reason: String| {
            if rep.dropped.len() < MAX_REPORTED_EXAMPLES {
                rep.dropped.push(DroppedMove {
                    fen: fen_of(pos),
                    uci: UciMove::from_standard(bm.mv).to_string(),
                    reason,
                });
            }
        };
        if !pos.is_legal(bm.mv) {
            rep.moves_dropped_illegal += 1;
            drop(rep, "illegal in its position".into());
            continue;
        }
        let code = match encode_move(pos, t, bm.mv) {
            Ok(c) => c,
            Err(e) => {
                if e == MoveCodeError::Underpromotion {
                    rep.moves_dropped_underpromotion += 1;
                } else {
                    rep.moves_dropped_no_code += 1;
                }
                drop(rep, e.to_string());
                continue;
            }
        };
        let mut child = pos.clone();
        child.play_unchecked(bm.mv);
        moves.push(WMove {
            code,
            annotation: bm.annotation.unwrap_or(0),
            child: encode_key(&child).ok(),
            stats: bm.stats.clone(),
            green: bm.green,
            red: bm.red,
            commentary: bm.commentary,
        });
    }
    moves
}

/// The record of a move's missing child, from the move's statistics and marks.
fn child_record(key: CtgKey, s: &BookStats, m: &WMove) -> WRecord {
    let mut rec = 0u8;
    if m.green == Some(true) {
        rec |= 0x80;
    }
    if m.red == Some(true) {
        rec |= 0x40;
    }
    WRecord {
        key,
        // The child's side to move is the mover's opponent.
        stats: BookStats {
            wins: s.losses,
            losses: s.wins,
            ..s.clone()
        },
        recommendation: rec,
        commentary: m.commentary.unwrap_or(0),
        moves: Vec::new(),
    }
}

/// The header's game count: as given, else the start position's, else the largest of any
/// position.
fn header_games(
    records: &Records,
    options: &CtgWriteOptions,
    rep: &mut WriteReport,
) -> Result<u32> {
    if let Some(g) = options.games {
        return Ok(g);
    }
    let start = encode_key(&Chess::default())?;
    let games = match records.index.get(&start) {
        Some(&i) => records.list[i].stats.games,
        None => records
            .list
            .iter()
            .map(|r| r.stats.games)
            .max()
            .unwrap_or(0),
    };
    Ok(clamp(games, u64::from(u32::MAX), &mut rep.values_clamped))
}

/// The slot table's layout: the base level, buckets split until each fits a page. Returns
/// the leaves (slot, records in given order) by slot; sets the report's table fields.
fn lay_out(
    records: &[WRecord],
    options: &CtgWriteOptions,
    rep: &mut WriteReport,
) -> Result<Vec<(u32, Vec<usize>)>> {
    let total: usize = records.iter().map(WRecord::size).sum();
    let fill = usize::from(options.fill_percent.clamp(1, 100));
    let per_page = PAGE_ROOM * fill / 100;
    let mut base = 0u32;
    while base < 30 && (1usize << base) * per_page < total {
        base += 1;
    }
    if let Some(b) = options.base_level {
        base = b.min(30);
    }
    let hashes: Vec<u32> = records.iter().map(|r| r.key.hash()).collect();
    let mut buckets: HashMap<u32, Vec<usize>> = HashMap::new();
    let mask0 = (1u32 << base) - 1;
    for (i, h) in hashes.iter().enumerate() {
        buckets.entry(h & mask0).or_default().push(i);
    }
    let mut stack: Vec<(u32, u32, Vec<usize>)> =
        buckets.into_iter().map(|(b, v)| (base, b, v)).collect();
    let mut leaves: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut highest_split: Option<u32> = None;
    while let Some((level, bucket, members)) = stack.pop() {
        let n = (1u32 << level) - 1;
        let slot = n + bucket;
        let size: usize = members.iter().map(|&i| records[i].size()).sum();
        if size <= PAGE_ROOM {
            leaves.push((slot, members));
            continue;
        }
        if level >= 30 {
            return Err(CtgError::Write(format!(
                "{} records with the same low 30 hash bits do not fit a page",
                members.len()
            )));
        }
        rep.split_buckets += 1;
        highest_split = Some(highest_split.map_or(slot, |s: u32| s.max(slot)));
        let (lo, hi): (Vec<usize>, Vec<usize>) = members
            .into_iter()
            .partition(|&i| hashes[i] & (1 << level) == 0);
        for (b, m) in [(bucket, lo), (bucket + (1 << level), hi)] {
            if !m.is_empty() {
                stack.push((level + 1, b, m));
            }
        }
    }
    leaves.sort_by_key(|(slot, _)| *slot);
    // Records keep their given order within a page.
    for (_, m) in &mut leaves {
        m.sort_unstable();
    }
    rep.base_level = base;
    rep.lower_bound = (1u32 << base) - 1;
    rep.upper_bound = highest_split.map_or(rep.lower_bound, |s| s + 1);
    rep.slots = leaves.last().map_or(0, |(s, _)| s + 1);
    rep.data_pages = leaves.len() as u32;
    if rep.slots > 1 << 26 {
        return Err(CtgError::Write(format!(
            "the slot table would need {} slots (hash collisions split buckets too deep)",
            rep.slots
        )));
    }
    Ok(leaves)
}

/// The four files of a book.
struct BookFiles {
    /// The stem, no extension.
    base: PathBuf,
    ctg: PathBuf,
    cto: PathBuf,
    ctb: PathBuf,
    ini: PathBuf,
}

impl BookFiles {
    fn of(stem: &Path) -> BookFiles {
        let base = book_stem(stem);
        let with = |e: &str| {
            let mut s = base.clone().into_os_string();
            s.push(".");
            s.push(e);
            PathBuf::from(s)
        };
        BookFiles {
            ctg: with("ctg"),
            cto: with("cto"),
            ctb: with("ctb"),
            ini: with("ini"),
            base,
        }
    }

    fn list(&self) -> Vec<PathBuf> {
        vec![
            self.ctg.clone(),
            self.cto.clone(),
            self.ctb.clone(),
            self.ini.clone(),
        ]
    }
}

/// The `.ctg`: the header page, then one data page per leaf.
fn write_ctg(
    path: &Path,
    records: &[WRecord],
    leaves: &[(u32, Vec<usize>)],
    rep: &mut WriteReport,
) -> Result<()> {
    let f = File::create(path).map_err(write_err(path))?;
    let mut w = BufWriter::new(f);
    let mut page = vec![0u8; PAGE_SIZE];
    header_page(&mut page, rep);
    w.write_all(&page).map_err(write_err(path))?;
    for (_, members) in leaves {
        data_page(&mut page, records, members, &mut rep.values_clamped);
        w.write_all(&page).map_err(write_err(path))?;
    }
    w.flush().map_err(write_err(path))
}

/// The header page: bytes seen identical in both real books, counts, games.
fn header_page(page: &mut [u8], rep: &WriteReport) {
    page[..16].copy_from_slice(&[
        0x00, 0x20, 0x10, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00, 0x7f, 0xff, 0x7f,
        0xff,
    ]);
    page[16..20].copy_from_slice(&rep.data_pages.to_be_bytes());
    page[20..24].copy_from_slice(&[0xff; 4]);
    page[24..28]
        .copy_from_slice(&(rep.records_written.min(u64::from(u32::MAX)) as u32).to_be_bytes());
    page[28..32].copy_from_slice(&rep.games.to_be_bytes());
    page[1024..1048].copy_from_slice(&[
        0x00, 0x01, 0x00, 0x05, 0x00, 0x01, 0x7f, 0xff, 0x00, 0x03, 0x7f, 0xff, 0x00, 0x05, 0x00,
        0x1e, 0x00, 0x06, 0x00, 0x02, 0x00, 0x07, 0x00, 0x01,
    ]);
}

/// A data page: its records (key, moves, trailer), after the record count and the bytes
/// used.
fn data_page(page: &mut [u8], records: &[WRecord], members: &[usize], clamped: &mut u64) {
    page.fill(0);
    let mut at = 4;
    for &i in members {
        let r = &records[i];
        let k = r.key.as_bytes();
        page[at..at + k.len()].copy_from_slice(k);
        at += k.len();
        page[at] = (2 * r.moves.len() + 1) as u8;
        at += 1;
        for m in &r.moves {
            page[at] = m.code;
            page[at + 1] = m.annotation;
            at += 2;
        }
        let t = trailer_of(r, clamped);
        page[at..at + TRAILER_LEN].copy_from_slice(&t.to_bytes());
        at += TRAILER_LEN;
    }
    page[0..2].copy_from_slice(&(members.len() as u16).to_be_bytes());
    page[2..4].copy_from_slice(&(at as u16).to_be_bytes());
}

/// The `.cto`: the slot table, each slot the data page of its leaf.
fn write_cto(path: &Path, leaves: &[(u32, Vec<usize>)], rep: &WriteReport) -> Result<()> {
    let mut table = vec![EMPTY_SLOT; rep.slots as usize];
    for (p, (slot, _)) in leaves.iter().enumerate() {
        table[*slot as usize] = p as u32;
    }
    let mut bytes = Vec::with_capacity(16 + 4 * table.len());
    bytes.extend_from_slice(&[0x00, 0x10, 0x00, 0x01]);
    bytes.extend_from_slice(&rep.slots.to_be_bytes());
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&rep.lower_bound.to_be_bytes());
    for v in table {
        bytes.extend_from_slice(&v.to_be_bytes());
    }
    std::fs::write(path, bytes).map_err(write_err(path))
}

/// The `.ctb`: the page bounds of the lookup.
fn write_ctb(path: &Path, rep: &WriteReport) -> Result<()> {
    let mut bytes = vec![0x00, 0x0c, 0x00, 0x01];
    bytes.extend_from_slice(&rep.lower_bound.to_be_bytes());
    bytes.extend_from_slice(&rep.upper_bound.to_be_bytes());
    std::fs::write(path, bytes).map_err(write_err(path))
}

/// The `.ini`: name, games, positions.
fn write_ini(path: &Path, name: &str, rep: &WriteReport) -> Result<()> {
    let text = format!(
        "[Book]\r\nName={name}\r\nGames={}\r\nPositions={}\r\nCreator=Tabiya\r\n",
        rep.games, rep.records_written
    );
    std::fs::write(path, text).map_err(write_err(path))
}
