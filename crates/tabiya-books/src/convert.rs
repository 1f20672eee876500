//! Any readable book to any writable one, through [`BookPosition`]: format detection, one
//! probe for every format, reading a whole book, and writing it in another format with a
//! count of everything the target cannot hold.
//!
//! See `docs/formats/conversions.md` for what each direction keeps and loses.
//!
//! * [`BookFormat::detect`] tells the format of a path (extension, sibling files, magic).
//! * [`AnyBook`] opens any book and probes it ([`AnyBook::probe`], the shared
//!   [`BookProbe`]) or reads one real position as a [`BookPosition`]
//!   ([`AnyBook::position_at`]).
//! * [`read_positions`] reads a whole book, either every record ([`Walk::AllRecords`]: CTG
//!   and Kvetka hold normalised White-to-move positions) or every real position reachable
//!   from the start ([`Walk::FromStart`]: what a Polyglot book needs, since its keys are
//!   hashes of real positions found only by playing moves).
//! * [`convert`] writes a book in another format and returns a [`ConvertReport`].
//! * [`polyglot_from_positions`] turns statistics into Polyglot weights the way
//!   `polyglot make-book` computes them.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use crate::ctg::{self, CtgBook, CtgError, CtgWriteOptions};
use crate::kvetka::{
    self, EcoLookup, KvetkaBook, KvetkaBookSpec, KvetkaError, KvetkaPositionInput, StringOrder,
};
use crate::polyglot::{self, Entry, EntrySource, PolyglotBook, PolyglotError, PolyglotReader};
use crate::{BookMove, BookPosition, BookProbe, BookProbeMove, BookStats};

/// The book formats Tabiya reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BookFormat {
    /// ChessBase `.ctg/.cto/.ctb` (+ `.ini`).
    Ctg,
    /// Polyglot `.bin`.
    Polyglot,
    /// Kvetka `name_N.kob` + `.kin` + `.ksf`.
    Kvetka,
}

impl BookFormat {
    /// Lower-case name (`ctg`, `polyglot`, `kvetka`).
    pub fn name(self) -> &'static str {
        match self {
            BookFormat::Ctg => "ctg",
            BookFormat::Polyglot => "polyglot",
            BookFormat::Kvetka => "kvetka",
        }
    }

    /// The format an extension names: `.bin` Polyglot; `.ctg/.cto/.ctb/.ini` CTG;
    /// `.kob/.kin/.ksf` Kvetka (any case). `None` for anything else.
    pub fn from_extension(path: &Path) -> Option<BookFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "bin" => Some(BookFormat::Polyglot),
            "ctg" | "cto" | "ctb" | "ini" => Some(BookFormat::Ctg),
            "kob" | "kin" | "ksf" => Some(BookFormat::Kvetka),
            _ => None,
        }
    }

    /// Tells the format of a book path:
    ///
    /// 1. by extension ([`BookFormat::from_extension`]);
    /// 2. a path that is not a file but the stem of a book: `path.ctg` exists → CTG,
    ///    `path_0.kob` exists → Kvetka;
    /// 3. by content: a `.ctg` header page (size a multiple of 4096 with the bytes both
    ///    known books start with, `00 20 10 00`) → CTG; a Kvetka header (type byte 1, then a
    ///    caption whose length fits the file) → Kvetka; a size that is a multiple of 16 →
    ///    Polyglot (which has no magic).
    ///
    /// Errors name the path and what was tried; a path that is neither a regular file nor a
    /// stem (a FIFO, a device, a directory) is refused as [`BookError::File`], never opened
    /// to wait.
    pub fn detect(path: &Path) -> Result<BookFormat, BookError> {
        if let Some(f) = BookFormat::from_extension(path) {
            return Ok(f);
        }
        let named = std::fs::metadata(path).ok();
        if !named.as_ref().is_some_and(|m| m.is_file()) {
            let with = |suffix: &str| {
                let mut s = path.as_os_str().to_os_string();
                s.push(suffix);
                PathBuf::from(s)
            };
            if with(".ctg").is_file() || with(".CTG").is_file() {
                return Ok(BookFormat::Ctg);
            }
            if with("_0.kob").is_file() {
                return Ok(BookFormat::Kvetka);
            }
            // Something by that name, not a book's stem: a FIFO, a device, a directory.
            if let Some(is) = named.and_then(|m| tabiya_files::not_regular(m.file_type())) {
                return Err(BookError::File(tabiya_files::FileError::NotRegular {
                    path: path.to_path_buf(),
                    is,
                }));
            }
            return Err(BookError::Format {
                path: path.to_path_buf(),
                what: format!(
                    "no such book: neither a file nor the stem of one ({0}.ctg, {0}_0.kob)",
                    path.display()
                ),
            });
        }
        let io = |source| BookError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Only its head is read: no bound is needed past "a regular file".
        let (mut file, len) = tabiya_files::open_regular(path)?;
        let mut head = Vec::with_capacity(64);
        Read::by_ref(&mut file)
            .take(64)
            .read_to_end(&mut head)
            .map_err(io)?;
        if len >= 4096 && len % 4096 == 0 && head.starts_with(&[0x00, 0x20, 0x10, 0x00]) {
            return Ok(BookFormat::Ctg);
        }
        if head.len() >= 5 && head[0] == 1 {
            let caption_units = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
            // type, caption, 4 × 2 Elo bytes, max_move, element_type, links, block count.
            let header_len = 5 + 2 * u64::from(caption_units) + 8 + 3 + 4;
            if header_len <= len && (len - header_len) % kvetka::BLOCK_SIZE as u64 == 0 {
                return Ok(BookFormat::Kvetka);
            }
        }
        if len % 16 == 0 {
            return Ok(BookFormat::Polyglot);
        }
        Err(BookError::Format {
            path: path.to_path_buf(),
            what: format!(
                "cannot tell the book format: no .bin/.ctg/.kob extension, no CTG or Kvetka \
                 header, and {len} bytes is not a multiple of 16 (Polyglot)"
            ),
        })
    }
}

impl std::fmt::Display for BookFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BookFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<BookFormat, String> {
        match s.to_ascii_lowercase().as_str() {
            "ctg" | "chessbase" => Ok(BookFormat::Ctg),
            "polyglot" | "bin" => Ok(BookFormat::Polyglot),
            "kvetka" | "kob" => Ok(BookFormat::Kvetka),
            _ => Err(format!(
                "unknown book format {s:?} (ctg, polyglot or kvetka)"
            )),
        }
    }
}

/// Errors of opening, probing, reading and converting books. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error(transparent)]
    Ctg(#[from] CtgError),
    #[error(transparent)]
    Polyglot(#[from] PolyglotError),
    #[error(transparent)]
    Kvetka(#[from] KvetkaError),
    /// The format could not be told, or the book cannot be used as asked.
    #[error("{}: {what}", path.display())]
    Format { path: PathBuf, what: String },
    /// An operating-system error on a file.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A named file refused before it was read: not a regular file (a FIFO, a device, a
    /// directory), larger than the format allows, or cut short while it was read.
    #[error(transparent)]
    File(tabiya_files::FileError),
}

impl From<tabiya_files::FileError> for BookError {
    /// The operating system's errors as [`BookError::Io`], the refusals as they are.
    fn from(e: tabiya_files::FileError) -> BookError {
        match e {
            tabiya_files::FileError::Io { path, source } => BookError::Io { path, source },
            other => BookError::File(other),
        }
    }
}

/// Any open book.
pub enum AnyBook {
    Ctg(CtgBook),
    Polyglot(PolyglotReader),
    Kvetka(KvetkaBook),
}

impl std::fmt::Debug for AnyBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyBook::Ctg(_) => f.write_str("AnyBook::Ctg"),
            AnyBook::Polyglot(p) => write!(f, "AnyBook::Polyglot({p:?})"),
            AnyBook::Kvetka(k) => write!(f, "AnyBook::Kvetka({k:?})"),
        }
    }
}

impl AnyBook {
    /// Opens a book, detecting its format ([`BookFormat::detect`]).
    pub fn open(path: &Path) -> Result<AnyBook, BookError> {
        AnyBook::open_as(path, BookFormat::detect(path)?)
    }

    /// Opens a book in a given format.
    pub fn open_as(path: &Path, format: BookFormat) -> Result<AnyBook, BookError> {
        Ok(match format {
            BookFormat::Ctg => AnyBook::Ctg(CtgBook::open(path)?),
            BookFormat::Polyglot => AnyBook::Polyglot(PolyglotReader::open(path)?),
            BookFormat::Kvetka => AnyBook::Kvetka(KvetkaBook::open(path)?),
        })
    }

    /// The book's format.
    pub fn format(&self) -> BookFormat {
        match self {
            AnyBook::Ctg(_) => BookFormat::Ctg,
            AnyBook::Polyglot(_) => BookFormat::Polyglot,
            AnyBook::Kvetka(_) => BookFormat::Kvetka,
        }
    }

    /// The shared probe answer for a real position (either side to move). Position totals
    /// from the side to move, move statistics from the mover's side, fields the format does
    /// not hold left out; `uci` is standard UCI (`e1g1`).
    pub fn probe(&self, pos: &Chess) -> Result<BookProbe, BookError> {
        Ok(match self {
            AnyBook::Ctg(b) => b.probe(pos)?.to_book_probe(),
            AnyBook::Polyglot(b) => b.probe(pos),
            AnyBook::Kvetka(b) => b.probe(pos)?,
        })
    }

    /// What the book holds for a real position, as a [`BookPosition`] on that real board
    /// (`None` when the book does not have it). The second value counts stored moves that
    /// give no legal move (unknown codes, illegal moves): they are left out.
    pub fn position_at(&self, pos: &Chess) -> Result<(Option<BookPosition>, u64), BookError> {
        match self {
            AnyBook::Ctg(b) => {
                let probe = b.probe(pos)?;
                let Some(e) = probe.entry else {
                    return Ok((None, 0));
                };
                Ok((
                    Some(e.to_book_position(pos.clone())),
                    e.unknown_moves.len() as u64,
                ))
            }
            AnyBook::Polyglot(b) => {
                let entries = b.probe_entries(pos);
                if entries.is_empty() {
                    return Ok((None, 0));
                }
                let mut bad = 0;
                let moves = entries
                    .iter()
                    .filter_map(|p| match &p.mv {
                        Ok(m) => Some(BookMove {
                            mv: *m,
                            annotation: None,
                            weight: Some(p.entry.weight),
                            learn: Some(p.entry.learn),
                            stats: None,
                            green: None,
                            red: None,
                            commentary: None,
                        }),
                        Err(_) => {
                            bad += 1;
                            None
                        }
                    })
                    .collect();
                Ok((Some(position_without_stats(pos, moves)), bad))
            }
            AnyBook::Kvetka(b) => {
                let d = b.probe_detail(pos)?;
                let Some(e) = &d.element else {
                    return Ok((None, 0));
                };
                let mut bad = 0;
                let moves = d
                    .moves
                    .iter()
                    .filter_map(|m| match m.mv {
                        Some(mv) => Some(BookMove {
                            mv,
                            annotation: None,
                            weight: None,
                            learn: None,
                            stats: m.child_stats.map(|(w, d, l)| wdl_stats(w, d, l)),
                            green: None,
                            red: None,
                            commentary: None,
                        }),
                        None => {
                            bad += 1;
                            None
                        }
                    })
                    .collect();
                Ok((
                    Some(BookPosition {
                        position: pos.clone(),
                        stats: Some(wdl_stats(e.raw.wins, e.raw.draws, e.raw.losses)),
                        recommendation: None,
                        commentary: None,
                        moves,
                    }),
                    bad,
                ))
            }
        }
    }

    /// Whether the book has any record for a real position (a lookup without decoding).
    pub fn contains(&self, pos: &Chess) -> Result<bool, BookError> {
        Ok(match self {
            AnyBook::Ctg(b) => match ctg::encode_key(pos) {
                Ok(k) => b.find(&k)?.is_some(),
                Err(_) => false,
            },
            AnyBook::Polyglot(b) => !b.key_range(polyglot::key(pos)).is_empty(),
            AnyBook::Kvetka(b) => match kvetka::position_key(pos) {
                Ok((k, _)) => b.find(&k)?.is_some(),
                Err(_) => false,
            },
        })
    }
}

fn position_without_stats(pos: &Chess, moves: Vec<BookMove>) -> BookPosition {
    BookPosition {
        position: pos.clone(),
        stats: None,
        recommendation: None,
        commentary: None,
        moves,
    }
}

/// Kvetka's statistics: games = wins + draws + losses (Kvetka keeps no other games).
fn wdl_stats(wins: u64, draws: u64, losses: u64) -> BookStats {
    BookStats {
        games: wins + draws + losses,
        wins,
        draws,
        losses,
        ..BookStats::default()
    }
}

/// Detects the format of `path`, opens the book and probes a real position: what
/// `tabiya book probe` and the explorer's `--book` answer.
pub fn probe_path(path: &Path, pos: &Chess) -> Result<BookProbe, BookError> {
    AnyBook::open(path)?.probe(pos)
}

/// Which positions [`read_positions`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Every record as stored. CTG and Kvetka give their normalised (White-to-move)
    /// positions; a Polyglot book, whose keys are hashes, falls back to
    /// [`Walk::FromStart`].
    AllRecords,
    /// Real positions reachable from the standard start position, breadth first: from each
    /// position reached, its book moves and every other legal move into a position the book
    /// has. Each position once (by Polyglot key).
    FromStart,
}

/// What [`read_positions`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadReport {
    /// Records in the book: CTG records, Kvetka elements, Polyglot entries.
    pub records: u64,
    /// Positions read.
    pub positions: u64,
    /// Moves read (legal ones).
    pub moves: u64,
    /// Stored moves that give no legal move (unknown codes, illegal moves): left out.
    pub unreadable_moves: u64,
    /// Records not reached by a [`Walk::FromStart`] walk (CTG records, Kvetka elements,
    /// Polyglot entries).
    pub unreached_records: u64,
    /// Kvetka comments (ECO names) and game links, which a [`BookPosition`] does not carry.
    pub comments: u64,
    pub game_links: u64,
}

/// Reads a whole book as [`BookPosition`]s (see [`Walk`]).
pub fn read_positions(
    book: &AnyBook,
    walk: Walk,
) -> Result<(Vec<BookPosition>, ReadReport), BookError> {
    let mut report = ReadReport::default();
    let positions = match (book, walk) {
        (AnyBook::Polyglot(b), _) => {
            report.records = b.len() as u64;
            let mut w = polyglot::read_positions(b, &[Chess::default()]);
            let positions: Vec<BookPosition> = w.by_ref().collect();
            let r = w.report();
            report.unreadable_moves = r.illegal_entries;
            report.unreached_records = r.entries_unreached;
            positions
        }
        (AnyBook::Ctg(b), Walk::AllRecords) => {
            let mut out = Vec::new();
            for rp in b.positions() {
                let rp = rp?;
                report.records += 1;
                report.unreadable_moves += rp.unknown_moves.len() as u64;
                out.push(rp.position);
            }
            out
        }
        (AnyBook::Kvetka(b), Walk::AllRecords) => {
            let (positions, bad) = b.read_positions()?;
            report.unreadable_moves = bad;
            count_kvetka(b, &mut report)?;
            positions
        }
        (AnyBook::Ctg(_) | AnyBook::Kvetka(_), Walk::FromStart) => {
            let (positions, reached) = walk_from_start(book, &mut report)?;
            match book {
                AnyBook::Ctg(b) => {
                    for r in b.records() {
                        r?;
                        report.records += 1;
                    }
                }
                AnyBook::Kvetka(b) => count_kvetka(b, &mut report)?,
                AnyBook::Polyglot(_) => {}
            }
            report.unreached_records = report.records.saturating_sub(reached);
            positions
        }
    };
    report.positions = positions.len() as u64;
    report.moves = positions.iter().map(|p| p.moves.len() as u64).sum();
    Ok((positions, report))
}

fn count_kvetka(b: &KvetkaBook, report: &mut ReadReport) -> Result<(), BookError> {
    let (mut records, mut comments, mut links) = (0u64, 0u64, 0u64);
    b.for_each_element(|e| {
        records += 1;
        comments += u64::from(e.raw.comment.is_some());
        links += u64::from(e.raw.some_game.is_some())
            + e.raw.last_games.as_ref().map_or(0, |l| l.len() as u64);
        Ok(())
    })?;
    report.records = records;
    report.comments = comments;
    report.game_links = links;
    Ok(())
}

/// Breadth-first walk of real positions from the start through a CTG or Kvetka book.
/// Returns the positions and the number of distinct records reached.
fn walk_from_start(
    book: &AnyBook,
    report: &mut ReadReport,
) -> Result<(Vec<BookPosition>, u64), BookError> {
    let mut seen: HashSet<u64> = HashSet::new();
    let mut records: HashSet<Vec<u8>> = HashSet::new();
    let mut queue: VecDeque<Chess> = VecDeque::new();
    let start = Chess::default();
    seen.insert(polyglot::key(&start));
    queue.push_back(start);
    let mut out = Vec::new();
    while let Some(pos) = queue.pop_front() {
        let (found, bad) = book.position_at(&pos)?;
        let Some(bp) = found else { continue };
        report.unreadable_moves += bad;
        let record_key: Vec<u8> = match book {
            AnyBook::Ctg(_) => ctg::encode_key(&pos)
                .map(|k| k.as_bytes().to_vec())
                .unwrap_or_default(),
            AnyBook::Kvetka(_) => kvetka::position_key(&pos)
                .map(|(k, _)| k.to_vec())
                .unwrap_or_default(),
            AnyBook::Polyglot(_) => polyglot::key(&pos).to_be_bytes().to_vec(),
        };
        records.insert(record_key);
        let book_moves: Vec<Move> = bp.moves.iter().map(|m| m.mv).collect();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let k = polyglot::key(&child);
            if seen.contains(&k) {
                continue;
            }
            if book_moves.contains(&m) || book.contains(&child)? {
                seen.insert(k);
                queue.push_back(child);
            }
        }
        out.push(bp);
    }
    Ok((out, records.len() as u64))
}

/// Options of [`convert`].
pub struct ConvertOptions<'a> {
    /// Target format.
    pub format: BookFormat,
    /// Polyglot target: moves whose statistics count fewer games are left out
    /// (`make-book`'s `-min-game`; default 1 keeps every move with games).
    pub polyglot_min_game: u64,
    /// CTG target: writer options.
    pub ctg: CtgWriteOptions,
    /// Kvetka target: caption, and the ECO lookup for comments.
    pub kvetka_caption: String,
    pub eco: Option<&'a EcoLookup<'a>>,
}

impl Default for ConvertOptions<'_> {
    fn default() -> Self {
        ConvertOptions {
            format: BookFormat::Polyglot,
            polyglot_min_game: 1,
            ctg: CtgWriteOptions::default(),
            kvetka_caption: String::new(),
            eco: None,
        }
    }
}

/// What a conversion did and everything the target could not hold.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConvertReport {
    pub source_format: Option<BookFormat>,
    pub target_format: Option<BookFormat>,
    /// What was read from the source.
    pub read: ReadReport,
    /// Positions and moves written.
    pub positions_written: u64,
    pub moves_written: u64,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// What was lost, by kind, counted (only kinds that occurred). Keys are listed in
    /// `docs/formats/conversions.md`.
    pub lost: BTreeMap<&'static str, u64>,
}

impl ConvertReport {
    fn lose(&mut self, what: &'static str, n: u64) {
        if n > 0 {
            *self.lost.entry(what).or_default() += n;
        }
    }
}

/// Converts an open book into `out` (a Polyglot file, a CTG stem or file, a Kvetka
/// `dir/name` or `dir/name_0.kob`). A Polyglot target gets the real positions reachable from
/// the start; CTG and Kvetka targets every record of a CTG or Kvetka source (both keep the
/// same normalised positions) or the reachable positions of a Polyglot source.
pub fn convert(
    book: &AnyBook,
    out: &Path,
    opts: &ConvertOptions<'_>,
) -> Result<ConvertReport, BookError> {
    let walk = match opts.format {
        BookFormat::Polyglot => Walk::FromStart,
        _ => Walk::AllRecords,
    };
    let (positions, read) = read_positions(book, walk)?;
    let mut report = ConvertReport {
        source_format: Some(book.format()),
        target_format: Some(opts.format),
        ..ConvertReport::default()
    };
    report.lose("unreadableMoves", read.unreadable_moves);
    report.lose("unreachedRecords", read.unreached_records);
    report.lose("comments", read.comments);
    report.lose("gameLinks", read.game_links);
    if book.format() == BookFormat::Ctg {
        // Trailer bytes +12 and +31 have no place in a BookPosition; the CTG writer
        // recomputes +12 and writes 0 at +31.
        report.lose("ctgUnknownTrailerBytes", read.positions);
    }
    report.read = read;
    count_losses(&positions, opts.format, &mut report);
    match opts.format {
        BookFormat::Polyglot => {
            let (pg, w) = polyglot_from_positions(&positions, opts.polyglot_min_game);
            report.lose("movesBelowMinGame", w.below_min_game);
            report.lose("movesThatOnlyLost", w.only_lost);
            report.lose("movesWithoutCode", w.unencodable);
            report.lose("positionsHalved", w.halved_positions);
            report.positions_written = w.positions;
            report.moves_written = pg.entries().len() as u64;
            let io = |source| BookError::Io {
                path: out.to_path_buf(),
                source,
            };
            let f = File::create(out).map_err(io)?;
            pg.write(BufWriter::new(f)).map_err(io)?;
            report.files.push(out.to_path_buf());
        }
        BookFormat::Ctg => {
            let w = ctg::write_book(out, positions, &opts.ctg)?;
            for (what, n) in w.losses() {
                report.lose(what, n);
            }
            report.positions_written = w.records_written;
            report.moves_written = w.moves_written;
            report.files = w.files;
        }
        BookFormat::Kvetka => {
            let (dir, name) = kvetka_target(out)?;
            // CTG and Kvetka records hold normalised (White-to-move) positions; the opening
            // tables hold real ones: ask for the normalised position and for its
            // colour-flipped (Black-to-move) and mirrored readings.
            let normalised = walk == Walk::AllRecords && book.format() != BookFormat::Polyglot;
            let eco_any = |p: &Chess| -> Option<(String, String, Option<String>)> {
                let eco = opts.eco?;
                if let Some(found) = eco(p) {
                    return Some(found);
                }
                if !normalised {
                    return None;
                }
                [(true, false), (false, true), (true, true)]
                    .into_iter()
                    .filter_map(|(flipped, mirrored)| {
                        ctg::Transform { flipped, mirrored }.undo(p).ok()
                    })
                    .find_map(|real| eco(&real))
            };
            let spec = KvetkaBookSpec {
                caption: opts.kvetka_caption.clone(),
                store_game_links: false,
                write_ksf: false,
                eco: if opts.eco.is_some() {
                    Some(&eco_any)
                } else {
                    None
                },
                string_order: StringOrder::BigEndian,
                ..KvetkaBookSpec::default()
            };
            let inputs = positions.into_iter().map(|position| KvetkaPositionInput {
                position,
                some_game: None,
                last_games: Vec::new(),
            });
            let w = kvetka::write_book(&dir, &name, &spec, inputs)?;
            for (what, n) in w.losses() {
                report.lose(what, n);
            }
            report.positions_written = w.elements;
            report.moves_written = w.moves_written;
            report.files = w.files;
        }
    }
    Ok(report)
}

/// The directory and book name of a Kvetka target path: `dir/name`, `dir/name.kob`,
/// `dir/name_0.kob`, `dir/name.kin` or `dir/name.ksf`.
pub fn kvetka_target(out: &Path) -> Result<(PathBuf, String), BookError> {
    let file = out
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| BookError::Format {
            path: out.to_path_buf(),
            what: "a Kvetka book needs a file name (dir/name)".into(),
        })?;
    let lower = file.to_ascii_lowercase();
    let mut name = file.to_string();
    for ext in [".kob", ".kin", ".ksf"] {
        if lower.ends_with(ext) {
            name.truncate(file.len() - ext.len());
            if ext == ".kob"
                && let Some(stem) = name.strip_suffix("_0")
            {
                name = stem.to_string();
            }
            break;
        }
    }
    let dir = out
        .parent()
        .map(Path::to_path_buf)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((dir, name))
}

/// Counts what the target format has no place for, in the positions as read.
fn count_losses(positions: &[BookPosition], target: BookFormat, report: &mut ConvertReport) {
    let (mut pos_stats, mut ratings, mut perfs, mut recs, mut comms) = (0, 0, 0, 0, 0);
    let (mut annotations, mut weights, mut learns, mut move_extras, mut unknown_results) =
        (0, 0, 0, 0, 0);
    let rated = |s: &BookStats| s.rating_games > 0;
    let perf = |s: &BookStats| s.performance_games > 0;
    for p in positions {
        if let Some(s) = &p.stats {
            pos_stats += 1;
            ratings += u64::from(rated(s));
            perfs += u64::from(perf(s));
            unknown_results += u64::from(s.games > s.wins + s.draws + s.losses);
        }
        recs += u64::from(p.recommendation.is_some_and(|r| r != 0));
        comms += u64::from(p.commentary.is_some_and(|c| c != 0));
        for m in &p.moves {
            annotations += u64::from(m.annotation.is_some_and(|a| a != 0));
            weights += u64::from(m.weight.is_some());
            learns += u64::from(m.learn.is_some_and(|l| l != 0));
            move_extras += u64::from(
                m.green == Some(true)
                    || m.red == Some(true)
                    || m.commentary.is_some_and(|c| c != 0),
            );
        }
    }
    match target {
        BookFormat::Polyglot => {
            // Statistics become weights; everything else has no place.
            report.lose("positionStatistics", pos_stats);
            report.lose("recommendations", recs);
            report.lose("commentaries", comms);
            report.lose("annotations", annotations);
            report.lose("moveRecommendationsAndCommentaries", move_extras);
        }
        BookFormat::Ctg => {
            report.lose("weights", weights);
            report.lose("learnValues", learns);
        }
        BookFormat::Kvetka => {
            report.lose("ratings", ratings);
            report.lose("performances", perfs);
            report.lose("gamesWithoutResult", unknown_results);
            report.lose("recommendations", recs);
            report.lose("commentaries", comms);
            report.lose("annotations", annotations);
            report.lose("weights", weights);
            report.lose("learnValues", learns);
        }
    }
}

/// What [`polyglot_from_positions`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolyglotWeightsReport {
    /// Positions with at least one entry written.
    pub positions: u64,
    /// Moves whose statistics count fewer than `min_game` games.
    pub below_min_game: u64,
    /// Moves with statistics whose weight is 0 (only losses): `make-book` drops them.
    pub only_lost: u64,
    /// Moves without statistics and without a weight: written with weight 1.
    pub without_statistics: u64,
    /// Moves Polyglot cannot express.
    pub unencodable: u64,
    /// Positions whose weights were halved to fit 16 bits.
    pub halved_positions: u64,
}

/// Turns real positions into a Polyglot book.
///
/// A move that already has a weight (a Polyglot source) keeps it and its learn value. A move
/// with statistics (from the mover's side) gets `make-book`'s weight: with n = games,
/// sum = 2 × wins + draws + (games − wins − draws − losses) — games without a result count as
/// draws, as `make-book` counts anything but `1-0`/`0-1` — moves with n < `min_game` or
/// sum = 0 are left out (as `make-book` filters), and when a position's largest sum passes
/// 65535 every sum of the position is halved, rounding up, until it fits (`make-book` halves
/// when a count reaches 16384). A move with neither gets weight 1. Entries are sorted by key,
/// then weight descending, ties in the source's move order; learn is 0 unless the source had
/// one.
pub fn polyglot_from_positions(
    positions: &[BookPosition],
    min_game: u64,
) -> (PolyglotBook, PolyglotWeightsReport) {
    let mut report = PolyglotWeightsReport::default();
    let mut entries: Vec<Entry> = Vec::new();
    let mut group: Vec<(u16, u64, u32)> = Vec::new();
    for p in positions {
        let key = polyglot::key(&p.position);
        group.clear();
        for m in &p.moves {
            let Some(raw) = polyglot::encode_move(&m.mv) else {
                report.unencodable += 1;
                continue;
            };
            let weight = match (m.weight, &m.stats) {
                (Some(w), _) => u64::from(w),
                (None, Some(s)) => {
                    if s.games < min_game {
                        report.below_min_game += 1;
                        continue;
                    }
                    let unknown = s.games.saturating_sub(s.wins + s.draws + s.losses);
                    let sum = 2 * s.wins + s.draws + unknown;
                    if sum == 0 {
                        report.only_lost += 1;
                        continue;
                    }
                    sum
                }
                (None, None) => {
                    report.without_statistics += 1;
                    1
                }
            };
            group.push((raw, weight, m.learn.unwrap_or(0)));
        }
        if group.is_empty() {
            continue;
        }
        if group.iter().any(|g| g.1 > u64::from(u16::MAX)) {
            report.halved_positions += 1;
            while group.iter().any(|g| g.1 > u64::from(u16::MAX)) {
                for g in group.iter_mut() {
                    g.1 = g.1.div_ceil(2);
                }
            }
        }
        group.sort_by_key(|g| std::cmp::Reverse(g.1));
        report.positions += 1;
        entries.extend(group.iter().map(|&(raw_move, w, learn)| Entry {
            key,
            raw_move,
            weight: w as u16,
            learn,
        }));
    }
    entries.sort_by_key(|e| e.key);
    let book = PolyglotBook::from_entries("<converted>", entries)
        .unwrap_or_else(|_| PolyglotBook::default());
    (book, report)
}

/// One move of a probe answer built from a [`BookPosition`] (used to print positions read
/// from any book the same way).
pub fn probe_move(pos: &Chess, m: &BookMove) -> BookProbeMove {
    let s = m.stats.as_ref();
    BookProbeMove {
        uci: UciMove::from_move(m.mv, pos.castles().mode()).to_string(),
        san: SanPlus::from_move(pos.clone(), m.mv).to_string(),
        annotation: m.annotation.and_then(ctg::annotation_nag),
        games: s.map(|s| s.games),
        wins: s.map(|s| s.wins),
        draws: s.map(|s| s.draws),
        losses: s.map(|s| s.losses),
        average_rating: s.and_then(average_rating),
        performance: s.and_then(performance),
        green: m.green,
        red: m.red,
        commentary: m.commentary,
        weight: m.weight,
        learn: m.learn,
    }
}

/// The probe answer of a [`BookPosition`].
pub fn position_probe(p: &BookPosition) -> BookProbe {
    let s = p.stats.as_ref();
    BookProbe {
        found: true,
        games: s.map(|s| s.games),
        wins: s.map(|s| s.wins),
        draws: s.map(|s| s.draws),
        losses: s.map(|s| s.losses),
        average_rating: s.and_then(average_rating),
        performance: s.and_then(performance),
        recommendation: p.recommendation,
        commentary: p.commentary,
        moves: p.moves.iter().map(|m| probe_move(&p.position, m)).collect(),
    }
}

/// `rating_sum / rating_games` rounded down (`None` without rated games).
pub fn average_rating(s: &BookStats) -> Option<u32> {
    (s.rating_games > 0).then(|| (s.rating_sum / s.rating_games) as u32)
}

/// `performance_sum / performance_games` rounded down (`None` without such games).
pub fn performance(s: &BookStats) -> Option<i32> {
    (s.performance_games > 0).then(|| (s.performance_sum / s.performance_games) as i32)
}

/// Writes a Polyglot book to a file.
pub fn write_polyglot(book: &PolyglotBook, path: &Path) -> Result<(), BookError> {
    let io = |source| BookError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = File::create(path).map_err(io)?;
    let mut w = BufWriter::new(f);
    book.write(&mut w).map_err(io)?;
    w.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO is never opened to wait, however the book is named: by a book's extension, or
    /// by none (the format would be told by its content). (A CTG trio's three files:
    /// `book_files.rs`, through the command line.)
    #[test]
    fn a_fifo_is_refused_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = |name: &str| {
            let p = dir.path().join(name);
            let made = std::process::Command::new("mkfifo")
                .arg(&p)
                .status()
                .unwrap();
            assert!(made.success());
            p
        };
        for name in ["a.bin", "a_0.kob", "plain"] {
            let p = fifo(name);
            let e = AnyBook::open(&p).unwrap_err();
            assert!(
                e.to_string()
                    .contains("is a FIFO (a named pipe), not a regular file"),
                "{name}: {e}"
            );
        }
        let e = BookFormat::detect(&dir.path().join("plain")).unwrap_err();
        assert!(matches!(
            e,
            BookError::File(tabiya_files::FileError::NotRegular { .. })
        ));
    }
}
