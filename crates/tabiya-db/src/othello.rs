//! The Othello game kind: WTHOR games in the positional database.
//!
//! - **Stored form** ([`StoredGame`]): year, the WTHOR ids of tournament, black and white
//!   player, black's stored score, the theoretical score and the moves, so every WTHOR record
//!   can be written back byte for byte ([`StoredGame::to_record`]). The 16-byte header of every
//!   imported `.wtb` file (per year) and of the `.jou`/`.trn` files, and every name record with
//!   all its bytes, are kept in the `wthor` table, keyed by WTHOR id.
//! - **Positions** ([`occurrences`]): every position of a game, under its canonical symmetry
//!   ([`tabiya_othello::canonicalize`]), with the move played there in canonical orientation;
//!   the last position with [`NO_MOVE`]. Othello positions never repeat within a game (each
//!   move adds a disc), so each is its game's first occurrence. Index keys are the canonical
//!   [`PositionKey`] passed through a bijective mixer ([`index_key`]) so that the index's
//!   32-bit key prefixes are spread evenly.
//! - **Side to move**: the side that plays next. When it has no legal move and the other side
//!   has one, the pass is implicit and the other side is to move; when neither can move (the
//!   game is over), black is taken as to move, so a final position has one key whoever moved
//!   last ([`settle`]).
//! - **Facts**: the result comes from black's stored score (more than 32 black wins, 32 a draw,
//!   less white wins), also for the unfinished games, whose stored scores are adjudicated;
//!   the values summed for averages are black's stored score and the theoretical score.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::Serialize;
use tabiya_othello::wthor::{
    self, BoardSize, GameFile, GameRecord, Header, Name, NameFile, NameKind,
};
use tabiya_othello::{
    Board, Canonical, Color, IllegalMove, PositionKey, Replay, Square, canonicalize,
    format_transcript,
};
use tabiya_store::ReadTx;

use crate::chess::{Dict, NO_MOVE, Occurrence};
use crate::codec::DecodeError;
use crate::import::{
    Batch, FileSummary, ImportOptions, ImportProgress, ImportSummary, Problem,
    commit_batch_with_plies,
};
use crate::query::{GameSort, Snapshot};
use crate::run::Occ;
use crate::stats::{GameFacts, GameOutcome, Stats};
use crate::{Database, Error, Kind, Result, meta_u64};

/// The table of WTHOR headers and names.
///
/// | key | value |
/// |---|---|
/// | `H` `J` | header of the `.jou` file the player names come from (16 bytes) |
/// | `H` `T` | header of the `.trn` file |
/// | `H` `Y` year (u16 BE) | header of the `.wtb` file of that year |
/// | `J` id (u16 BE) | player name record, all 20 bytes |
/// | `T` id (u16 BE) | tournament name record, all 26 bytes |
pub const WTHOR: &str = "wthor";

const RECORD_FORMAT: u8 = 1;
/// Most moves in a game: 60 squares to fill.
const MAX_MOVES: usize = 60;

// ---------------------------------------------------------------------------------------
// Keys

const M1: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835;
const M2: u128 = 0xc2b2_ae3d_27d4_eb4f_1656_67b1_9e37_79f9;

const fn inverse_odd(c: u128) -> u128 {
    // Newton's iteration for the inverse mod 2^128: x ← x(2 − cx); x = c is right to 3 bits
    // for odd c and every step doubles that.
    let mut x = c;
    let mut i = 0;
    while i < 7 {
        x = x.wrapping_mul(2u128.wrapping_sub(c.wrapping_mul(x)));
        i += 1;
    }
    x
}

const M1_INV: u128 = inverse_odd(M1);
const M2_INV: u128 = inverse_odd(M2);

/// The index key of a canonical position: the [`PositionKey`] through a bijection (xor-shift,
/// multiply by odd constants) that spreads every bit over the top 32 bits, which the index uses
/// as the prefix of rare positions. (A canonical key's top bits are black's discs on rows 5–8,
/// which the canonical form tends to leave empty.) [`position_key_of`] inverts it.
pub const fn index_key(key: PositionKey) -> u128 {
    let mut x = key.0;
    x ^= x >> 64;
    x = x.wrapping_mul(M1);
    x ^= x >> 64;
    x = x.wrapping_mul(M2);
    x ^= x >> 64;
    x
}

/// The canonical [`PositionKey`] of an index key (inverse of [`index_key`]).
pub const fn position_key_of(index: u128) -> PositionKey {
    let mut x = index;
    x ^= x >> 64;
    x = x.wrapping_mul(M2_INV);
    x ^= x >> 64;
    x = x.wrapping_mul(M1_INV);
    x ^= x >> 64;
    PositionKey(x)
}

/// The board with the side that plays next to move: after an implicit pass when the side to
/// move has no legal move; black when neither side can move.
pub fn settle(board: &Board) -> Board {
    if board.legal_moves() != 0 {
        *board
    } else if board.legal_moves_for(board.side().other()) != 0 {
        board.with_side(board.side().other())
    } else {
        board.with_side(Color::Black)
    }
}

fn mover(c: Color) -> u8 {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// The counted positions of a game: one per position before each move (canonical key, move in
/// canonical orientation, side to move), then the final position with [`NO_MOVE`].
pub fn occurrences(
    moves: &[Square],
    out: &mut Vec<Occurrence>,
) -> std::result::Result<Board, IllegalMove> {
    out.clear();
    let mut replay = Replay::new(moves);
    for ply in replay.by_ref() {
        let ply = ply?;
        out.push(Occurrence {
            key: index_key(ply.canonical.key),
            code: ply.canonical_move.index() as u16,
            mover: mover(ply.board.side()),
        });
    }
    let last = settle(replay.board());
    out.push(Occurrence {
        key: index_key(canonicalize(&last).key),
        code: NO_MOVE,
        mover: mover(last.side()),
    });
    Ok(last)
}

/// The counted positions of a stored game (for the index's replays).
pub fn record_occurrences(data: &[u8]) -> Result<Vec<Occurrence>> {
    let game = StoredGame::decode(data)?;
    let mut out = Vec::with_capacity(game.moves.len() + 1);
    occurrences(&game.moves, &mut out)
        .map_err(|e| Error::Corrupt(format!("stored Othello game has an illegal move: {e}")))?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Stored form

/// An Othello game as the database stores it.
///
/// Encoding (format 1): `01`, year (u16 LE), tournament, black, white (WTHOR ids, u16 LE),
/// black's stored score (u8), theoretical score (u8), number of moves (u8), then one byte per
/// move: the square index 0–63 (a1 = 0, h8 = 63). The WTHOR record is these fields with the
/// moves as WTHOR bytes and zeros after the last move, which is how every game Tabiya accepts
/// is written (a record with anything else after its last move is refused at import).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Year of the games of the `.wtb` file (its header).
    pub year: u16,
    /// Tournament id (`.trn` index).
    pub tournament: u16,
    /// Black player id (`.jou` index).
    pub black: u16,
    /// White player id.
    pub white: u16,
    /// Black's stored score (empty squares to the winner; adjudicated when unfinished).
    pub black_score: u8,
    /// Black's theoretical score (perfect play from the header's depth).
    pub theoretical_score: u8,
    /// The moves, passes implicit.
    pub moves: Vec<Square>,
}

impl StoredGame {
    /// Appends the stored form.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(RECORD_FORMAT);
        out.extend_from_slice(&self.year.to_le_bytes());
        out.extend_from_slice(&self.tournament.to_le_bytes());
        out.extend_from_slice(&self.black.to_le_bytes());
        out.extend_from_slice(&self.white.to_le_bytes());
        out.push(self.black_score);
        out.push(self.theoretical_score);
        out.push(self.moves.len() as u8);
        out.extend(self.moves.iter().map(|s| s.index()));
    }

    /// Reads the stored form.
    pub fn decode(data: &[u8]) -> std::result::Result<StoredGame, DecodeError> {
        let err = |what, offset| DecodeError { what, offset };
        if data.len() < 12 {
            return Err(err("Othello game record (too short)", data.len()));
        }
        if data[0] != RECORD_FORMAT {
            return Err(err("Othello game record format", 0));
        }
        let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
        let n = data[11] as usize;
        if n > MAX_MOVES || data.len() != 12 + n {
            return Err(err("Othello move count", 11));
        }
        let mut moves = Vec::with_capacity(n);
        for (i, &b) in data[12..].iter().enumerate() {
            moves.push(Square::new(b).ok_or(err("Othello move square", 12 + i))?);
        }
        Ok(StoredGame {
            year: u16_at(1),
            tournament: u16_at(3),
            black: u16_at(5),
            white: u16_at(7),
            black_score: data[9],
            theoretical_score: data[10],
            moves,
        })
    }

    /// The WTHOR record (68 bytes when written).
    pub fn to_record(&self) -> GameRecord {
        GameRecord::from_squares(
            self.tournament,
            self.black,
            self.white,
            self.black_score,
            self.theoretical_score,
            &self.moves,
        )
        .expect("at most 60 moves, checked when decoding")
    }

    /// The result from black's stored score.
    pub fn outcome(&self) -> GameOutcome {
        match self.black_score {
            s if s > 32 => GameOutcome::FirstWins,
            32 => GameOutcome::Draw,
            _ => GameOutcome::SecondWins,
        }
    }

    /// What the index counts of the game.
    pub fn facts(&self) -> GameFacts {
        GameFacts {
            outcome: Some(self.outcome()),
            ratings: [None, None],
            year: Some(self.year),
            date: self.year as u32 * 10000,
            values: Some([self.black_score, self.theoretical_score]),
        }
    }

    /// The duplicate digest: FNV-1a over 128 bits of a tag, the year, the ids, the scores, the
    /// moves, and `copy` — how many identical records came before this one in the same file
    /// (so a file that holds the same game twice keeps both, while importing a file again adds
    /// nothing).
    pub fn digest(&self, copy: u32) -> u128 {
        let mut h = Fnv128::new();
        h.bytes(b"wthor");
        let mut buf = Vec::with_capacity(80);
        self.encode(&mut buf);
        h.bytes(&buf);
        h.bytes(&copy.to_le_bytes());
        h.0
    }
}

use crate::import::Fnv128;

// ---------------------------------------------------------------------------------------
// Names and headers

fn name_key(kind: NameKind, id: u16) -> [u8; 3] {
    let [a, b] = id.to_be_bytes();
    match kind {
        NameKind::Players => [b'J', a, b],
        NameKind::Tournaments => [b'T', a, b],
    }
}

fn names_header_key(kind: NameKind) -> [u8; 2] {
    match kind {
        NameKind::Players => *b"HJ",
        NameKind::Tournaments => *b"HT",
    }
}

fn year_header_key(year: u16) -> [u8; 4] {
    let [a, b] = year.to_be_bytes();
    [b'H', b'Y', a, b]
}

fn header_from(data: &[u8]) -> Result<Header> {
    let b: &[u8; wthor::HEADER_SIZE] = data
        .try_into()
        .map_err(|_| Error::Corrupt(format!("WTHOR header of {} bytes", data.len())))?;
    Ok(Header::parse(b))
}

/// Creation date of a header as a sortable number.
fn created(h: &Header) -> u32 {
    (h.created_century as u32 * 100 + h.created_year as u32) * 10000
        + h.created_month as u32 * 100
        + h.created_day as u32
}

/// The WTHOR names and headers stored in a database.
#[derive(Debug, Clone, Default)]
pub struct WthorNames {
    /// Player name records, index = WTHOR id.
    pub players: Vec<Name>,
    /// Tournament name records, index = WTHOR id.
    pub tournaments: Vec<Name>,
    /// Header of the `.jou` file the player names come from (the newest one imported).
    pub jou_header: Option<Header>,
    /// Header of the `.trn` file.
    pub trn_header: Option<Header>,
    /// Header of the `.wtb` file of each year.
    pub year_headers: BTreeMap<u16, Header>,
}

impl WthorNames {
    /// Loads the names and headers.
    pub fn load(read: &ReadTx) -> Result<WthorNames> {
        let t = read.table(WTHOR)?;
        let mut out = WthorNames::default();
        let mut bad: Option<String> = None;
        let mut players: BTreeMap<u16, Name> = BTreeMap::new();
        let mut tournaments: BTreeMap<u16, Name> = BTreeMap::new();
        t.scan(&[], None, |k, v| {
            let id = |k: &[u8]| k.get(1..3).map(|b| u16::from_be_bytes([b[0], b[1]]));
            match (k.first(), k.len()) {
                (Some(b'J'), 3) => {
                    players.insert(id(k).unwrap_or(0), Name { raw: v.to_vec() });
                }
                (Some(b'T'), 3) => {
                    tournaments.insert(id(k).unwrap_or(0), Name { raw: v.to_vec() });
                }
                (Some(b'H'), _) => match header_from(v) {
                    Ok(h) => match &k[1..] {
                        b"J" => out.jou_header = Some(h),
                        b"T" => out.trn_header = Some(h),
                        [b'Y', a, b] => {
                            out.year_headers.insert(u16::from_be_bytes([*a, *b]), h);
                        }
                        _ => {
                            bad = Some(format!("unknown WTHOR header key {k:?}"));
                            return false;
                        }
                    },
                    Err(e) => {
                        bad = Some(e.to_string());
                        return false;
                    }
                },
                _ => {
                    bad = Some(format!("unknown WTHOR table key {k:?}"));
                    return false;
                }
            }
            true
        })?;
        if let Some(b) = bad {
            return Err(Error::Corrupt(b));
        }
        for (list, map, what) in [
            (&mut out.players, players, "player"),
            (&mut out.tournaments, tournaments, "tournament"),
        ] {
            for (i, (id, name)) in map.into_iter().enumerate() {
                if id as usize != i {
                    return Err(Error::Corrupt(format!(
                        "WTHOR {what} names: id {i} is missing"
                    )));
                }
                list.push(name);
            }
        }
        Ok(out)
    }

    /// The list of one kind.
    pub fn list(&self, kind: NameKind) -> &[Name] {
        match kind {
            NameKind::Players => &self.players,
            NameKind::Tournaments => &self.tournaments,
        }
    }

    /// A player's name, `?` for an id without a name.
    pub fn player(&self, id: u16) -> String {
        self.players
            .get(id as usize)
            .map_or_else(|| "?".to_string(), Name::text)
    }

    /// A tournament's name, `?` for an id without a name.
    pub fn tournament(&self, id: u16) -> String {
        self.tournaments
            .get(id as usize)
            .map_or_else(|| "?".to_string(), Name::text)
    }

    /// True for a player whose name contains "(" (the WTHOR convention for programs).
    pub fn is_program(&self, id: u16) -> bool {
        self.players.get(id as usize).is_some_and(Name::is_program)
    }
}

/// A name that an import changed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NameChange {
    /// `player` or `tournament`.
    pub kind: &'static str,
    /// WTHOR id.
    pub id: u16,
    /// The stored spelling before.
    pub old: String,
    /// The new spelling.
    pub new: String,
    /// The names file it came from.
    pub file: String,
}

/// A names file read by an import.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamesFileReport {
    pub file: String,
    /// `players` or `tournaments`.
    pub kind: NameKind,
    /// Creation date from its header.
    pub created: String,
    pub names: usize,
    /// False when an older file than the stored names was given: its new ids are added, its
    /// spellings of known ids are not taken.
    pub spellings_taken: bool,
}

/// What an import did to the names.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamesReport {
    pub files: Vec<NamesFileReport>,
    pub players_added: u64,
    pub tournaments_added: u64,
    /// Known ids whose spelling changed (a newer names file corrects them).
    pub changed: Vec<NameChange>,
    /// Names in the database after the import.
    pub players: u64,
    pub tournaments: u64,
}

/// Applies names files (in order of their creation dates, so the newest spelling wins whatever
/// the order given) and writes what changed, with the headers, in one transaction.
fn apply_names(db: &Database, files: &[NameFile], report: &mut NamesReport) -> Result<()> {
    let read = db.store.read()?;
    let mut stored = WthorNames::load(&read)?;
    drop(read);
    let mut order: Vec<&NameFile> = files.iter().collect();
    order.sort_by_key(|f| (created(&f.header), f.names.len()));
    let mut writes: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut dict: Vec<(Dict, u32, String)> = Vec::new();
    for f in order {
        let (list, header, label, d) = match f.kind {
            NameKind::Players => (
                &mut stored.players,
                &mut stored.jou_header,
                "player",
                Dict::Player,
            ),
            NameKind::Tournaments => (
                &mut stored.tournaments,
                &mut stored.trn_header,
                "tournament",
                Dict::Event,
            ),
        };
        let newer = header.is_none_or(|h| created(&f.header) >= created(&h));
        for (i, name) in f.names.iter().enumerate() {
            let Ok(id) = u16::try_from(i) else { break };
            match list.get(i) {
                Some(old) if old == name => {}
                Some(old) => {
                    if newer {
                        report.changed.push(NameChange {
                            kind: label,
                            id,
                            old: old.text(),
                            new: name.text(),
                            file: f.path.display().to_string(),
                        });
                        list[i] = name.clone();
                        writes.push((name_key(f.kind, id).to_vec(), name.raw.clone()));
                        dict.push((d, id as u32, name.text()));
                    }
                }
                None => {
                    list.push(name.clone());
                    writes.push((name_key(f.kind, id).to_vec(), name.raw.clone()));
                    dict.push((d, id as u32, name.text()));
                    match f.kind {
                        NameKind::Players => report.players_added += 1,
                        NameKind::Tournaments => report.tournaments_added += 1,
                    }
                }
            }
        }
        if newer && *header != Some(f.header) {
            *header = Some(f.header);
            writes.push((
                names_header_key(f.kind).to_vec(),
                f.header.to_bytes().to_vec(),
            ));
        }
        report.files.push(NamesFileReport {
            file: f.path.display().to_string(),
            kind: f.kind,
            created: f.header.created(),
            names: f.names.len(),
            spellings_taken: newer,
        });
    }
    report.players = stored.players.len() as u64;
    report.tournaments = stored.tournaments.len() as u64;
    if writes.is_empty() {
        return Ok(());
    }
    let w = db.store.write()?;
    w.with_table(WTHOR, |t| {
        for (k, v) in &writes {
            t.put(k, v)?;
        }
        Ok(())
    })?;
    // The names also go in the common dictionaries (players, events), so `tabiya stats`
    // counts them.
    crate::names::write_names(&w, &dict)?;
    w.commit()?;
    Ok(())
}

/// Stores the header of each year's file: the newest file of a year wins.
fn store_year_headers(db: &Database, headers: &[Header]) -> Result<()> {
    let read = db.store.read()?;
    let stored = WthorNames::load(&read)?.year_headers;
    drop(read);
    let mut best: BTreeMap<u16, Header> = stored.clone();
    for h in headers {
        if best.get(&h.year).is_none_or(|b| created(h) >= created(b)) {
            best.insert(h.year, *h);
        }
    }
    let changed: Vec<(u16, Header)> = best
        .into_iter()
        .filter(|(y, h)| stored.get(y) != Some(h))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    let w = db.store.write()?;
    w.with_table(WTHOR, |t| {
        for (y, h) in &changed {
            t.put(&year_header_key(*y), &h.to_bytes())?;
        }
        Ok(())
    })?;
    w.commit()?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Import

/// Where the names of imported games come from.
#[derive(Debug, Clone, Default)]
pub struct NameSources {
    /// The `.jou` file for every game file; `None` = the one beside each game file.
    pub jou: Option<PathBuf>,
    /// The `.trn` file for every game file; `None` = the one beside each game file.
    pub trn: Option<PathBuf>,
}

/// What a WTHOR import did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WthorImportSummary {
    #[serde(flatten)]
    pub summary: ImportSummary,
    /// Imported games that stop before the end (stored and indexed; their result is the
    /// stored, adjudicated score).
    pub unfinished: u64,
    /// Years of the games read.
    pub years: Vec<u16>,
    pub names: NamesReport,
}

fn names_path(
    explicit: &Option<PathBuf>,
    game_file: &Path,
    kind: NameKind,
) -> std::result::Result<PathBuf, String> {
    if let Some(p) = explicit {
        return Ok(p.clone());
    }
    let dir = game_file.parent().unwrap_or(Path::new(""));
    wthor::find_names_file(dir, kind).map_err(|e| e.to_string())
}

fn skip(summary: &mut ImportSummary, file: usize, kind: &str, problem: Problem) {
    summary.skipped += 1;
    summary.files[file].skipped += 1;
    *summary
        .skipped_by_reason
        .entry(kind.to_string())
        .or_default() += 1;
    summary.problems.push(problem);
}

impl Database {
    /// Imports WTHOR `.wtb` files into an Othello database: stores the games, indexes every
    /// position, and stores the `.jou`/`.trn` names (beside each file, or the ones given) keyed
    /// by WTHOR id — ids already stored keep their names unless a newer names file spells them
    /// differently (reported in [`NamesReport::changed`]). Games with an undecodable move byte
    /// or an illegal move are skipped and reported (file, game, offset); games equal to a
    /// stored game are skipped as duplicates; unfinished games are stored and indexed.
    pub fn import_wthor(
        &self,
        files: &[PathBuf],
        names: &NameSources,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<WthorImportSummary> {
        if self.kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is a {} database: WTHOR files can only go into an Othello database (use another --db)",
                self.dir().display(),
                self.kind().as_str()
            )));
        }
        let started = Instant::now();
        let mut out = WthorImportSummary {
            summary: ImportSummary {
                files: files
                    .iter()
                    .map(|f| FileSummary {
                        file: f.display().to_string(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            },
            ..Default::default()
        };
        // Read the game files and find their names files.
        let mut game_files: Vec<(usize, GameFile)> = Vec::new();
        let mut name_paths: BTreeSet<(PathBuf, u8)> = BTreeSet::new();
        for (i, path) in files.iter().enumerate() {
            let file_problem = |reason: String| Problem {
                file: path.display().to_string(),
                line: 0,
                game: 0,
                reason,
            };
            match GameFile::read(path) {
                Ok(f) if f.board == BoardSize::Ten => {
                    out.summary.problems.push(file_problem(format!(
                        "{}: a 10×10 game file; Tabiya's Othello database is 8×8 only (file skipped)",
                        path.display()
                    )));
                }
                Ok(f) => {
                    for p in &f.problems {
                        out.summary.problems.push(file_problem(p.to_string()));
                    }
                    out.summary.files[i].bytes =
                        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                    for (kind, explicit, tag) in [
                        (NameKind::Players, &names.jou, 0u8),
                        (NameKind::Tournaments, &names.trn, 1u8),
                    ] {
                        match names_path(explicit, path, kind) {
                            Ok(p) => {
                                name_paths.insert((p, tag));
                            }
                            Err(e) => out.summary.problems.push(file_problem(format!(
                                "{e}; the games are imported without these names"
                            ))),
                        }
                    }
                    game_files.push((i, f));
                }
                Err(e) => out
                    .summary
                    .problems
                    .push(file_problem(format!("{e} (file skipped)"))),
            }
        }
        let mut name_files = Vec::new();
        for (p, tag) in &name_paths {
            let kind = if *tag == 0 {
                NameKind::Players
            } else {
                NameKind::Tournaments
            };
            match NameFile::read(p, kind) {
                Ok(f) => {
                    for problem in &f.problems {
                        out.summary.problems.push(Problem {
                            file: p.display().to_string(),
                            line: 0,
                            game: 0,
                            reason: problem.to_string(),
                        });
                    }
                    name_files.push(f);
                }
                Err(e) => out.summary.problems.push(Problem {
                    file: p.display().to_string(),
                    line: 0,
                    game: 0,
                    reason: e.to_string(),
                }),
            }
        }
        apply_names(self, &name_files, &mut out.names)?;
        store_year_headers(
            self,
            &game_files.iter().map(|(_, f)| f.header).collect::<Vec<_>>(),
        )?;
        let years: BTreeSet<u16> = game_files.iter().map(|(_, f)| f.header.year).collect();
        out.years = years.into_iter().collect();

        let read = self.store.read()?;
        let mut next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let mut dedup = if opts.keep_duplicates {
            crate::keymap::KeyMap::default()
        } else {
            crate::facts::load_digests(&read)?
        };
        drop(read);

        // With the ply of every occurrence, rare positions are kept every other ply (found
        // through their successor's entry, see `run::build`).
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(1);
        let batch_games = if opts.batch_games == 0 {
            crate::import::OTHELLO_BATCH_GAMES
        } else {
            opts.batch_games
        };
        std::thread::scope(|s| -> Result<()> {
            let writer = s.spawn(move || -> Result<()> {
                for (batch, plies) in batch_rx {
                    commit_batch_with_plies(self, batch, Some(plies))?;
                }
                Ok(())
            });
            let produced = (|| -> Result<()> {
                let mut batch = new_batch(next_game);
                let mut plies: Vec<u16> = Vec::new();
                let mut occs: Vec<Occurrence> = Vec::with_capacity(MAX_MOVES + 1);
                'files: for (fi, file) in &game_files {
                    let fi = *fi;
                    let name = file.path.display().to_string();
                    progress.file_index.store(fi, Ordering::Relaxed);
                    if let Ok(mut n) = progress.file_name.lock() {
                        n.clone_from(&name);
                    }
                    progress
                        .file_size
                        .store(out.summary.files[fi].bytes, Ordering::Relaxed);
                    let mut copies: HashMap<u128, u32> = HashMap::new();
                    for gi in 0..file.games.len() {
                        progress
                            .file_bytes
                            .store(file.record_offset(gi + 1) as u64, Ordering::Relaxed);
                        progress.games.fetch_add(1, Ordering::Relaxed);
                        out.summary.games += 1;
                        out.summary.files[fi].games += 1;
                        let offset = file.record_offset(gi);
                        let problem = |reason: String| Problem {
                            file: name.clone(),
                            line: 0,
                            game: gi as u64 + 1,
                            reason,
                        };
                        let moves = match file.squares(gi) {
                            Ok(m) => m,
                            Err(e) => {
                                skip(
                                    &mut out.summary,
                                    fi,
                                    "bad move byte",
                                    problem(format!("{e} (game skipped)")),
                                );
                                continue;
                            }
                        };
                        let rec = &file.games[gi];
                        let game = StoredGame {
                            year: file.header.year,
                            tournament: rec.tournament,
                            black: rec.black,
                            white: rec.white,
                            black_score: rec.black_score,
                            theoretical_score: rec.theoretical_score,
                            moves,
                        };
                        let base = game.digest(0);
                        let copy = copies.entry(base).or_insert(0);
                        let digest = if *copy == 0 { base } else { game.digest(*copy) };
                        *copy += 1;
                        if !opts.keep_duplicates && dedup.contains_key(&digest) {
                            out.summary.duplicates += 1;
                            out.summary.files[fi].duplicates += 1;
                            continue;
                        }
                        let last = match occurrences(&game.moves, &mut occs) {
                            Ok(b) => b,
                            Err(e) => {
                                let at = offset + 8 + e.index;
                                skip(
                                    &mut out.summary,
                                    fi,
                                    "illegal move",
                                    problem(format!(
                                        "{name}: game {gi} (record at offset {offset}): {e} at offset {at}, {} to move (game skipped)",
                                        e.board.side()
                                    )),
                                );
                                continue;
                            }
                        };
                        if !last.is_game_over() {
                            out.unfinished += 1;
                        }
                        let id = next_game;
                        next_game = next_game
                            .checked_add(1)
                            .ok_or_else(|| Error::Usage("database full (2^32 games)".into()))?;
                        if !opts.keep_duplicates {
                            dedup.insert(digest, id);
                        }
                        let mut record = Vec::with_capacity(12 + game.moves.len());
                        game.encode(&mut record);
                        batch.records.push(record);
                        batch.facts.push(game.facts());
                        batch.dedup.push((digest, id));
                        batch.occs.extend(occs.iter().map(|o| Occ {
                            key: o.key,
                            game: id,
                            code: o.code,
                            mover: o.mover,
                        }));
                        plies.extend(0..occs.len() as u16);
                        out.summary.imported += 1;
                        out.summary.files[fi].imported += 1;
                        progress.imported.fetch_add(1, Ordering::Relaxed);
                        if batch.records.len() >= batch_games {
                            let full = std::mem::replace(&mut batch, new_batch(next_game));
                            if batch_tx.send((full, std::mem::take(&mut plies))).is_err() {
                                break 'files;
                            }
                        }
                        if progress.cancel.load(Ordering::Relaxed) {
                            break 'files;
                        }
                    }
                }
                let _ = batch_tx.send((batch, plies));
                Ok(())
            })();
            drop(batch_tx);
            writer
                .join()
                .map_err(|_| Error::Corrupt("writer thread panicked".into()))??;
            produced
        })?;
        crate::merge::compact(self)?;
        let s = &mut out.summary;
        s.seconds = started.elapsed().as_secs_f64();
        s.games_per_second = if s.seconds > 0.0 {
            s.games as f64 / s.seconds
        } else {
            0.0
        };
        s.database_games = self.game_count()?;
        Ok(out)
    }
}

fn new_batch(first_game: u32) -> Batch {
    Batch {
        first_game,
        records: Vec::new(),
        facts: Vec::new(),
        occs: Vec::new(),
        dedup: Vec::new(),
        names: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// Queries

/// A position asked by a line of moves from the start (passes implicit), in the orientation
/// the user gave.
#[derive(Debug, Clone)]
pub struct AskedPosition {
    /// The line.
    pub moves: Vec<Square>,
    /// The position reached, with the side that plays next to move ([`settle`]).
    pub board: Board,
    /// Its canonical form.
    pub canonical: Canonical,
}

impl AskedPosition {
    /// The position after a transcript like `f5d6c3` (empty = the start position).
    pub fn from_line(text: &str) -> Result<AskedPosition> {
        let moves = tabiya_othello::parse_transcript(text)
            .map_err(|e| Error::Usage(format!("--moves: {e}")))?;
        AskedPosition::from_moves(moves)
    }

    /// The position after these moves.
    pub fn from_moves(moves: Vec<Square>) -> Result<AskedPosition> {
        let mut replay = Replay::new(&moves).without_canonical();
        for ply in replay.by_ref() {
            ply.map_err(|e| Error::Usage(format!("--moves: {e} ({} to move)", e.board.side())))?;
        }
        let board = settle(replay.board());
        let canonical = canonicalize(&board);
        Ok(AskedPosition {
            moves,
            board,
            canonical,
        })
    }

    /// The index key of the position.
    pub fn index_key(&self) -> u128 {
        index_key(self.canonical.key)
    }

    /// The index keys of the positions one legal move away (the index finds a rare position
    /// through the entry of the position after it).
    pub fn successor_keys(&self) -> Vec<u128> {
        Square::iter_bits(self.board.legal_moves())
            .filter_map(|m| self.board.play(m).ok())
            .map(|b| index_key(canonicalize(&settle(&b)).key))
            .collect()
    }

    /// The moves of the asked orientation that a canonical move code stands for: one square,
    /// or several when the position has symmetries of its own (f5, d3, c4, e6 from the start).
    /// The first is the representative shown: the one furthest towards column h, then row 1
    /// (f5 from the start, the move every WTHOR game begins with).
    pub fn user_moves(&self, code: u16) -> Vec<Square> {
        let Some(sq) = u8::try_from(code).ok().and_then(Square::new) else {
            return Vec::new();
        };
        let mut v: Vec<Square> = Square::iter_bits(self.board.legal_moves())
            .filter(|&u| self.canonical.canonical_move(u) == sq)
            .collect();
        if v.is_empty() {
            v.push(self.canonical.to_original(sq));
        }
        v.sort_by_key(|s| (std::cmp::Reverse(s.column()), s.row()));
        v
    }
}

/// A name with its WTHOR id.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NamedId {
    pub id: u16,
    pub name: String,
}

/// One game as listed by `explore` and `games`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloGameRow {
    pub id: u32,
    pub year: u16,
    pub tournament: NamedId,
    pub black: NamedId,
    pub white: NamedId,
    pub black_score: u8,
    pub theoretical_score: u8,
    /// `black`, `white` or `draw` (from the stored score).
    pub winner: &'static str,
    /// The moves as stored (WTHOR orientation).
    pub moves: String,
    /// The move this game played in the asked position, in the asked orientation (absent when
    /// no position was asked or the game ended there).
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub played: Option<String>,
}

/// The classic opening of an asked line.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningInfo {
    pub name: String,
    pub aliases: Vec<String>,
    /// The opening's line as in the table (from f5).
    pub line: String,
    /// Moves of the asked line played when the named position is reached.
    pub at_move: usize,
}

/// One next move of an explored position.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloMove {
    /// The move in the asked orientation.
    #[serde(rename = "move")]
    pub square: String,
    /// Other moves of the asked position that are the same move by a symmetry of the position.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub equivalent: Vec<String>,
    pub games: u64,
    pub black: u64,
    pub draws: u64,
    pub white: u64,
    /// Wins of the side to move plus half the draws, over the games.
    pub win_rate: f64,
    pub average_black_discs: Option<f64>,
    pub average_theoretical_score: Option<f64>,
}

/// What the database knows of an Othello position.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloExplore {
    /// The asked line.
    pub line: String,
    /// `black` or `white`; `none` when the game is over.
    pub side_to_move: &'static str,
    /// Canonical position key (hex).
    pub key: String,
    pub games: u64,
    pub black: u64,
    pub draws: u64,
    pub white: u64,
    /// Games that ended in this position.
    pub ended: u64,
    /// Mean of black's stored final score over the games.
    pub average_black_discs: Option<f64>,
    /// Mean of the stored theoretical black score.
    pub average_theoretical_score: Option<f64>,
    pub moves: Vec<OthelloMove>,
    pub opening: Option<OpeningInfo>,
    /// Newest games reaching the position.
    pub top_games: Vec<OthelloGameRow>,
}

fn averages(s: &Stats) -> (Option<f64>, Option<f64>) {
    if s.value_games == 0 {
        return (None, None);
    }
    let n = s.value_games as f64;
    (Some(s.value_sum as f64 / n), Some(s.value2_sum as f64 / n))
}

fn winner(g: &StoredGame) -> &'static str {
    match g.outcome() {
        GameOutcome::FirstWins => "black",
        GameOutcome::SecondWins => "white",
        _ => "draw",
    }
}

/// Which games by the kind of their players.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PlayerKind {
    #[default]
    Any,
    /// Neither player is a program.
    Humans,
    /// At least one player is a program (its name contains "(").
    Programs,
}

/// Filters of [`Snapshot::othello_games`].
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    /// Games reaching this position (any move order, any orientation).
    pub position: Option<AskedPosition>,
    /// A player (black or white) whose name contains this, case-insensitive.
    pub player: Option<String>,
    /// A tournament whose name contains this, case-insensitive.
    pub tournament: Option<String>,
    /// First year.
    pub from: Option<u16>,
    /// Last year.
    pub to: Option<u16>,
    pub players: PlayerKind,
}

/// A page of games.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloGames {
    /// Games matching the filters.
    pub total: u64,
    pub offset: usize,
    pub games: Vec<OthelloGameRow>,
}

fn matching_ids(list: &[Name], needle: &str) -> HashSet<u16> {
    let needle = needle.to_lowercase();
    list.iter()
        .enumerate()
        .filter(|(_, n)| n.text().to_lowercase().contains(&needle))
        .filter_map(|(i, _)| u16::try_from(i).ok())
        .collect()
}

/// Names for rows of games: all loaded, or read one by one from the store.
enum RowNames<'n> {
    Loaded(&'n WthorNames),
    Store(tabiya_store::TableRef),
}

impl RowNames<'_> {
    fn get(&self, kind: NameKind, id: u16) -> Result<String> {
        Ok(match (self, kind) {
            (RowNames::Loaded(n), NameKind::Players) => n.player(id),
            (RowNames::Loaded(n), NameKind::Tournaments) => n.tournament(id),
            (RowNames::Store(t), _) => t
                .get(&name_key(kind, id))?
                .map_or_else(|| "?".to_string(), |raw| Name { raw }.text()),
        })
    }
}

impl Snapshot<'_> {
    /// A stored Othello game.
    pub fn othello_game(&self, id: u32) -> Result<Option<StoredGame>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(StoredGame::decode(&data)?)),
            None => Ok(None),
        }
    }

    /// The name of one player or tournament (`?` for an id without a name).
    pub fn wthor_name(&self, kind: NameKind, id: u16) -> Result<String> {
        RowNames::Store(self.read_tx().table(WTHOR)?).get(kind, id)
    }

    /// The WTHOR names and headers of the database.
    pub fn wthor_names(&self) -> Result<WthorNames> {
        WthorNames::load(self.read_tx())
    }

    fn row(
        &self,
        names: &RowNames<'_>,
        id: u32,
        code: Option<u16>,
        asked: Option<&AskedPosition>,
    ) -> Result<OthelloGameRow> {
        let g = self
            .othello_game(id)?
            .ok_or_else(|| Error::Corrupt(format!("the index refers to missing game {id}")))?;
        let played = match (code, asked) {
            (Some(c), Some(a)) if c != NO_MOVE => a.user_moves(c).first().map(|s| s.to_string()),
            _ => None,
        };
        Ok(OthelloGameRow {
            id,
            year: g.year,
            tournament: NamedId {
                id: g.tournament,
                name: names.get(NameKind::Tournaments, g.tournament)?,
            },
            black: NamedId {
                id: g.black,
                name: names.get(NameKind::Players, g.black)?,
            },
            white: NamedId {
                id: g.white,
                name: names.get(NameKind::Players, g.white)?,
            },
            black_score: g.black_score,
            theoretical_score: g.theoretical_score,
            winner: winner(&g),
            moves: format_transcript(&g.moves),
            played,
        })
    }

    /// Statistics of a position: totals, every next move in the asked orientation, the
    /// classic opening of the line, the newest `top_n` games.
    pub fn othello_explore(&self, asked: &AskedPosition, top_n: usize) -> Result<OthelloExplore> {
        if self.database().kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is not an Othello database",
                self.database().dir().display()
            )));
        }
        let ps = self.position_with(asked.index_key(), &asked.successor_keys(), top_n)?;
        let side = if asked.board.is_game_over() {
            None
        } else {
            Some(asked.board.side())
        };
        let mut moves = Vec::new();
        let mut ended = 0;
        for (code, s) in &ps.moves {
            if *code == NO_MOVE {
                ended += s.games();
                continue;
            }
            let squares = asked.user_moves(*code);
            let Some(first) = squares.first() else {
                continue;
            };
            let wins = match side {
                Some(Color::Black) => s.first,
                _ => s.second,
            };
            let games = s.games();
            let (avg_discs, avg_theory) = averages(s);
            moves.push(OthelloMove {
                square: first.to_string(),
                equivalent: squares[1..].iter().map(|s| s.to_string()).collect(),
                games,
                black: s.first,
                draws: s.draws,
                white: s.second,
                win_rate: if games == 0 {
                    0.0
                } else {
                    (wins as f64 + s.draws as f64 / 2.0) / games as f64
                },
                average_black_discs: avg_discs,
                average_theoretical_score: avg_theory,
            });
        }
        // A few rows: their names are read one by one rather than all loaded.
        let names = RowNames::Store(self.read_tx().table(WTHOR)?);
        let mut top_games = Vec::new();
        for &(id, code) in ps.top_games.iter().take(top_n) {
            top_games.push(self.row(&names, id, Some(code), Some(asked))?);
        }
        let opening = tabiya_othello::deepest_opening(&asked.moves).map(|(at, o)| OpeningInfo {
            name: o.name.to_string(),
            aliases: o.aliases.iter().map(|a| a.to_string()).collect(),
            line: format_transcript(&o.moves),
            at_move: at,
        });
        let t = &ps.totals;
        let (average_black_discs, average_theoretical_score) = averages(t);
        Ok(OthelloExplore {
            line: format_transcript(&asked.moves),
            side_to_move: match side {
                Some(c) => {
                    if c == Color::Black {
                        "black"
                    } else {
                        "white"
                    }
                }
                None => "none",
            },
            key: asked.canonical.key.to_string(),
            games: t.games(),
            black: t.first,
            draws: t.draws,
            white: t.second,
            ended,
            average_black_discs,
            average_theoretical_score,
            moves,
            opening,
            top_games,
        })
    }

    /// The games matching the filters, sorted (`Date`: newest year first, then id; `Rating`
    /// is taken as `Date`, WTHOR has no ratings; `Id`: import order) and paged.
    pub fn othello_games(
        &self,
        filter: &GameFilter,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<OthelloGames> {
        if self.database().kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is not an Othello database",
                self.database().dir().display()
            )));
        }
        let names = self.wthor_names()?;
        let candidates: Vec<(u32, Option<u16>)> = match &filter.position {
            Some(a) => self
                .position_games_with(
                    a.index_key(),
                    &a.successor_keys(),
                    GameSort::Id,
                    0,
                    usize::MAX,
                )?
                .1
                .into_iter()
                .map(|(g, c)| (g, Some(c)))
                .collect(),
            None => self
                .all_game_ids()?
                .into_iter()
                .map(|g| (g, None))
                .collect(),
        };
        let players = filter
            .player
            .as_deref()
            .map(|p| matching_ids(&names.players, p));
        let tournaments = filter
            .tournament
            .as_deref()
            .map(|t| matching_ids(&names.tournaments, t));
        let need_record =
            players.is_some() || tournaments.is_some() || filter.players != PlayerKind::Any;
        let mut kept: Vec<(u32, Option<u16>, u16)> = Vec::new();
        for (id, code) in candidates {
            let year = self.facts(id)?.year.unwrap_or(0);
            if filter.from.is_some_and(|y| year < y) || filter.to.is_some_and(|y| year > y) {
                continue;
            }
            if need_record {
                let g = self
                    .othello_game(id)?
                    .ok_or_else(|| Error::Corrupt(format!("missing game {id}")))?;
                if players
                    .as_ref()
                    .is_some_and(|p| !p.contains(&g.black) && !p.contains(&g.white))
                {
                    continue;
                }
                if tournaments
                    .as_ref()
                    .is_some_and(|t| !t.contains(&g.tournament))
                {
                    continue;
                }
                let program = names.is_program(g.black) || names.is_program(g.white);
                match filter.players {
                    PlayerKind::Humans if program => continue,
                    PlayerKind::Programs if !program => continue,
                    _ => {}
                }
            }
            kept.push((id, code, year));
        }
        match sort {
            GameSort::Id => kept.sort_unstable_by_key(|k| k.0),
            GameSort::Date | GameSort::Rating => {
                kept.sort_unstable_by_key(|k| (std::cmp::Reverse(k.2), k.0))
            }
        }
        let total = kept.len() as u64;
        let mut games = Vec::new();
        for &(id, code, _) in kept.iter().skip(offset).take(limit) {
            games.push(self.row(
                &RowNames::Loaded(&names),
                id,
                code,
                filter.position.as_ref(),
            )?);
        }
        Ok(OthelloGames {
            total,
            offset,
            games,
        })
    }
}

/// What WZebra does without an index: replays every game to the asked position's move number
/// and compares canonical keys there. Returns the totals, the statistics per canonical move
/// code ([`NO_MOVE`] for games ending there) and the indices of the matching games. For
/// benchmarks and for checking the index.
pub fn scan_games<'a>(
    games: impl IntoIterator<Item = &'a StoredGame>,
    asked: &AskedPosition,
) -> (Stats, HashMap<u16, Stats>, Vec<usize>) {
    let n = asked.board.disc_count() as usize - 4;
    let want = asked.canonical.key;
    let mut totals = Stats::default();
    let mut moves: HashMap<u16, Stats> = HashMap::new();
    let mut found = Vec::new();
    'games: for (i, g) in games.into_iter().enumerate() {
        if g.moves.len() < n {
            continue;
        }
        let mut board = Board::start();
        for &sq in &g.moves[..n] {
            match board.play_or_pass(sq) {
                Ok((b, _)) => board = b,
                Err(_) => continue 'games,
            }
        }
        let board = settle(&board);
        let c = canonicalize(&board);
        if c.key != want {
            continue;
        }
        let code = g
            .moves
            .get(n)
            .map_or(NO_MOVE, |&sq| c.canonical_move(sq).index() as u16);
        let f = g.facts();
        totals.add_game(&f, mover(board.side()));
        moves
            .entry(code)
            .or_default()
            .add_game(&f, mover(board.side()));
        found.push(i);
    }
    (totals, moves, found)
}

// ---------------------------------------------------------------------------------------
// Export

/// A file written by [`Database::export_wthor`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedFile {
    pub file: String,
    /// Games (`.wtb`) or names (`.jou`, `.trn`).
    pub records: u64,
    pub bytes: u64,
}

/// What [`Database::export_wthor`] wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WthorExport {
    pub files: Vec<ExportedFile>,
    pub games: u64,
    pub players: u64,
    pub tournaments: u64,
}

fn default_header(year: u16) -> Header {
    Header {
        created_century: 0,
        created_year: 0,
        created_month: 0,
        created_day: 0,
        games: 0,
        records: 0,
        year,
        board_size: 8,
        game_type: 0,
        depth: 24,
        reserved: 0,
    }
}

impl Database {
    /// Writes the database back as WTHOR files in `dir`: `WTH_<year>.wtb` for every year (games
    /// in id order, the header of the imported file of that year with the game count
    /// updated), `WTHOR.JOU` and `WTHOR.TRN` (the stored names, with the header of the newest
    /// imported names file and the count updated). A database imported from a set of WTHOR
    /// files writes them back byte for byte. A year without a stored header (not imported
    /// from a file) gets a header dated 0000-00-00, board size 8, depth 24.
    pub fn export_wthor(&self, dir: &Path) -> Result<WthorExport> {
        if self.kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is a {} database: only an Othello database exports WTHOR files",
                self.dir().display(),
                self.kind().as_str()
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?;
        let snap = self.snapshot()?;
        let names = snap.wthor_names()?;
        let mut years: BTreeMap<u16, Vec<GameRecord>> = BTreeMap::new();
        for id in snap.all_game_ids()? {
            let g = snap
                .othello_game(id)?
                .ok_or_else(|| Error::Corrupt(format!("missing game {id}")))?;
            years.entry(g.year).or_default().push(g.to_record());
        }
        let io =
            |p: &Path, e: wthor::WthorError| Error::Input(format!("writing {}: {e}", p.display()));
        let mut out = WthorExport {
            files: Vec::new(),
            games: 0,
            players: names.players.len() as u64,
            tournaments: names.tournaments.len() as u64,
        };
        for (year, games) in years {
            let mut header = names
                .year_headers
                .get(&year)
                .copied()
                .unwrap_or_else(|| default_header(year));
            header.games = games.len() as u32;
            header.year = year;
            let path = dir.join(format!("WTH_{year}.wtb"));
            let n = games.len() as u64;
            let file = GameFile {
                path: path.clone(),
                header,
                board: BoardSize::Eight,
                games,
                trailing: Vec::new(),
                problems: Vec::new(),
            };
            let bytes = file.to_bytes();
            std::fs::write(&path, &bytes).map_err(|e| {
                io(
                    &path,
                    wthor::WthorError::Io {
                        file: path.clone(),
                        source: e,
                    },
                )
            })?;
            out.games += n;
            out.files.push(ExportedFile {
                file: path.display().to_string(),
                records: n,
                bytes: bytes.len() as u64,
            });
        }
        for (kind, file_name, header) in [
            (NameKind::Players, "WTHOR.JOU", names.jou_header),
            (NameKind::Tournaments, "WTHOR.TRN", names.trn_header),
        ] {
            let list = names.list(kind).to_vec();
            let mut header = header.unwrap_or_else(|| default_header(0));
            header.records = u16::try_from(list.len()).map_err(|_| {
                Error::Usage(format!(
                    "{} names do not fit a WTHOR names file (65,535 at most)",
                    list.len()
                ))
            })?;
            let path = dir.join(file_name);
            let n = list.len() as u64;
            let file = NameFile {
                path: path.clone(),
                kind,
                header,
                names: list,
                trailing: Vec::new(),
                problems: Vec::new(),
            };
            let bytes = file.to_bytes();
            std::fs::write(&path, &bytes).map_err(|e| {
                io(
                    &path,
                    wthor::WthorError::Io {
                        file: path.clone(),
                        source: e,
                    },
                )
            })?;
            out.files.push(ExportedFile {
                file: path.display().to_string(),
                records: n,
                bytes: bytes.len() as u64,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data")
            .join(rel)
    }

    fn wtb(years: std::ops::RangeInclusive<u16>) -> Vec<PathBuf> {
        years
            .map(|y| shared(&format!("wthor/WTH_{y}.wtb")))
            .collect()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn line(s: &str) -> Vec<Square> {
        tabiya_othello::parse_transcript(s).unwrap()
    }

    fn import(db: &Database, files: &[PathBuf], batch: usize) -> WthorImportSummary {
        let opts = ImportOptions {
            batch_games: batch,
            ..Default::default()
        };
        db.import_wthor(
            files,
            &NameSources::default(),
            &opts,
            &ImportProgress::default(),
        )
        .unwrap()
    }

    #[test]
    fn index_keys_are_a_bijection() {
        assert_eq!(M1.wrapping_mul(M1_INV), 1);
        assert_eq!(M2.wrapping_mul(M2_INV), 1);
        let mut x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15)
                .wrapping_add(12345);
            assert_eq!(position_key_of(index_key(PositionKey(x))), PositionKey(x));
        }
        // Over the positions of real games, many canonical keys share their top 32 bits (a
        // rare position's query replays every game of its prefix); index keys almost never do.
        let mut keys = HashSet::new();
        let mut occs = Vec::new();
        for g in games_of(&wtb(1977..=1984)) {
            for ply in Replay::new(&g.moves) {
                keys.insert(ply.unwrap().canonical.key);
            }
            occurrences(&g.moves, &mut occs).unwrap();
        }
        let largest = |f: &dyn Fn(PositionKey) -> u32| {
            let mut groups: HashMap<u32, usize> = HashMap::new();
            for &k in &keys {
                *groups.entry(f(k)).or_default() += 1;
            }
            groups.values().copied().max().unwrap_or(0)
        };
        let raw = largest(&|k| (k.0 >> 96) as u32);
        let mixed = largest(&|k| (index_key(k) >> 96) as u32);
        assert!(keys.len() > 50_000, "{}", keys.len());
        assert!(
            raw > 500,
            "largest group of canonical keys with one prefix: {raw}"
        );
        assert!(
            mixed <= 2,
            "largest group of index keys with one prefix: {mixed}"
        );
    }

    #[test]
    fn settle_passes_and_game_over() {
        // Black a1, white b1: black can play c1? No: c1 is beside white b1 with nothing of
        // black's beyond — black's a1 and white b1: black plays c1 and flips b1. White has no
        // move at all (no black disc between white and an empty square).
        let b = Board::new(sq("a1").bit(), sq("b1").bit(), Color::White).unwrap();
        assert_eq!(b.legal_moves(), 0);
        assert_eq!(settle(&b).side(), Color::Black, "white passes");
        let full = Board::new(u64::MAX, 0, Color::White).unwrap();
        assert_eq!(
            settle(&full).side(),
            Color::Black,
            "game over: black by convention"
        );
        let start = Board::start();
        assert_eq!(settle(&start), start);
    }

    #[test]
    fn occurrences_fold_symmetric_first_moves_and_end_with_no_move() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        // f5 d6 in WTHOR orientation and its image under the half turn: c4 e3.
        occurrences(&line("f5d6"), &mut a).unwrap();
        occurrences(&line("c4e3"), &mut b).unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a, b);
        assert_eq!(a[2].code, NO_MOVE);
        assert_eq!((a[0].mover, a[1].mover, a[2].mover), (0, 1, 0));
        // The other two first moves, d3 and e6, give the same first code.
        for first in ["d3", "e6"] {
            occurrences(&line(first), &mut b).unwrap();
            assert_eq!(b[0], a[0], "{first}");
        }
        assert!(occurrences(&line("f5f5"), &mut b).is_err());
    }

    #[test]
    fn stored_form_writes_the_wthor_record_back() {
        for path in wtb(1977..=1985) {
            let file = GameFile::read(&path).unwrap();
            let mut bytes = Vec::new();
            for (i, rec) in file.games.iter().enumerate() {
                let g = StoredGame {
                    year: file.header.year,
                    tournament: rec.tournament,
                    black: rec.black,
                    white: rec.white,
                    black_score: rec.black_score,
                    theoretical_score: rec.theoretical_score,
                    moves: file.squares(i).unwrap(),
                };
                let mut enc = Vec::new();
                g.encode(&mut enc);
                assert_eq!(enc.len(), 12 + g.moves.len());
                assert_eq!(StoredGame::decode(&enc).unwrap(), g);
                g.to_record().write_to(&mut bytes);
            }
            let raw = std::fs::read(&path).unwrap();
            assert_eq!(bytes, raw[16..], "{}", path.display());
        }
        assert!(StoredGame::decode(&[1, 0, 0]).is_err());
        assert!(
            StoredGame::decode(&[1, 0xc1, 7, 0, 0, 0, 0, 0, 0, 40, 40, 1, 64]).is_err(),
            "square 64"
        );
        assert!(
            StoredGame::decode(&[2, 0xc1, 7, 0, 0, 0, 0, 0, 0, 40, 40, 0]).is_err(),
            "format 2"
        );
    }

    /// Every game of the files, decoded independently of the database.
    fn games_of(files: &[PathBuf]) -> Vec<StoredGame> {
        let mut out = Vec::new();
        for path in files {
            let f = GameFile::read(path).unwrap();
            for (i, r) in f.games.iter().enumerate() {
                out.push(StoredGame {
                    year: f.header.year,
                    tournament: r.tournament,
                    black: r.black,
                    white: r.white,
                    black_score: r.black_score,
                    theoretical_score: r.theoretical_score,
                    moves: f.squares(i).unwrap(),
                });
            }
        }
        out
    }

    #[test]
    fn index_answers_like_a_scan_of_every_game() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
        let files = wtb(1977..=1986);
        // Three imports of small batches: many runs, merged, with rare positions promoted
        // (and hidden predecessors made explicit) by replaying games.
        let mut imported = 0;
        for part in [&files[..6], &files[6..8], &files[8..]] {
            let s = import(&db, part, 700);
            assert_eq!(s.summary.skipped, 0);
            imported += s.summary.imported;
        }
        let games = games_of(&files);
        assert_eq!(imported, games.len() as u64);
        let snap = db.snapshot().unwrap();
        // Positions along a spread of games, at every depth (the deep ones are rare: S entries
        // checked by replaying games), plus every game's final position.
        let mut checked = 0;
        for g in games.iter().step_by(97) {
            for n in (0..=g.moves.len()).step_by(7).chain([g.moves.len()]) {
                let asked = AskedPosition::from_moves(g.moves[..n].to_vec()).unwrap();
                let (totals, moves, found) = scan_games(&games, &asked);
                let ps = snap
                    .position_with(asked.index_key(), &asked.successor_keys(), 8)
                    .unwrap();
                assert!(!found.is_empty());
                assert_eq!(ps.totals, totals, "{}", format_transcript(&asked.moves));
                let index_moves: HashMap<u16, Stats> = ps.moves.iter().cloned().collect();
                assert_eq!(index_moves, moves, "{}", format_transcript(&asked.moves));
                let (total, ids) = snap
                    .position_games_with(
                        asked.index_key(),
                        &asked.successor_keys(),
                        GameSort::Id,
                        0,
                        usize::MAX,
                    )
                    .unwrap();
                assert_eq!(total as usize, found.len());
                // Game ids are 1 + the game's index in the files (nothing was skipped).
                let want: Vec<u32> = found.iter().map(|&i| i as u32 + 1).collect();
                assert_eq!(ids.iter().map(|p| p.0).collect::<Vec<_>>(), want);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn reimport_export_and_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
        let files = wtb(1977..=1984);
        let first = import(&db, &files, 50_000);
        assert_eq!(
            first.summary.imported,
            12 + 8 + 11 + 160 + 153 + 110 + 199 + 587
        );
        assert_eq!(first.names.players, 3884);
        assert_eq!(first.names.tournaments, 439);
        assert!(first.names.changed.is_empty());
        let again = import(&db, &files, 50_000);
        assert_eq!(again.summary.imported, 0);
        assert_eq!(again.summary.duplicates, first.summary.imported);
        assert_eq!(again.names.players_added + again.names.tournaments_added, 0);
        assert_eq!(db.game_count().unwrap(), first.summary.imported);
        // Export: the same bytes.
        let out = dir.path().join("out");
        let e = db.export_wthor(&out).unwrap();
        assert_eq!(e.games, first.summary.imported);
        for f in files
            .iter()
            .chain([&shared("wthor/WTHOR.JOU"), &shared("wthor/WTHOR.TRN")])
        {
            let name = f.file_name().unwrap();
            assert_eq!(
                std::fs::read(out.join(name)).unwrap(),
                std::fs::read(f).unwrap(),
                "{name:?}"
            );
        }
        // A chess database refuses WTHOR files, an Othello database refuses PGN.
        let chess = Database::open_or_create(&dir.path().join("chess"), Kind::Chess, None).unwrap();
        let err = chess.import_wthor(
            &files,
            &NameSources::default(),
            &ImportOptions::default(),
            &ImportProgress::default(),
        );
        assert!(matches!(err, Err(Error::Usage(m)) if m.contains("chess database")));
        let err = db.import(
            &[shared("pgn/twic/twic0920.pgn")],
            &ImportOptions::default(),
            &ImportProgress::default(),
        );
        assert!(matches!(err, Err(Error::Usage(m)) if m.contains("Othello")));
        assert!(chess.export_wthor(&out).is_err());
    }

    #[test]
    fn bad_games_are_skipped_with_file_game_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = std::fs::read(shared("wthor/WTH_1977.wtb")).unwrap();
        // Game 3, move 2 (offset 16 + 3·68 + 9): a1, not a legal reply to f5.
        bytes[16 + 3 * 68 + 9] = 11;
        // Game 5, move 1: byte 19, no square.
        bytes[16 + 5 * 68 + 8] = 19;
        let path = dir.path().join("WTH_1977.wtb");
        std::fs::write(&path, &bytes).unwrap();
        for n in ["WTHOR.JOU", "WTHOR.TRN"] {
            std::fs::copy(shared(&format!("wthor/{n}")), dir.path().join(n)).unwrap();
        }
        let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
        let s = import(&db, std::slice::from_ref(&path), 100);
        assert_eq!(
            (s.summary.games, s.summary.imported, s.summary.skipped),
            (12, 10, 2)
        );
        assert_eq!(s.summary.skipped_by_reason.get("illegal move"), Some(&1));
        assert_eq!(s.summary.skipped_by_reason.get("bad move byte"), Some(&1));
        let illegal = &s.summary.problems[0];
        assert_eq!(illegal.game, 4, "1-based");
        assert!(
            illegal.reason.contains("game 3")
                && illegal
                    .reason
                    .contains(&format!("offset {}", 16 + 3 * 68 + 9)),
            "{}",
            illegal.reason
        );
        assert!(illegal.reason.contains("a1"), "{}", illegal.reason);
        let bad = &s.summary.problems[1];
        assert!(
            bad.reason.contains("game 5")
                && bad.reason.contains(&format!("offset {}", 16 + 5 * 68 + 8)),
            "{}",
            bad.reason
        );
    }

    #[test]
    fn newer_names_files_correct_spellings_older_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
        let jou = shared("wthor/WTHOR.JOU");
        let mut file = NameFile::read(&jou, NameKind::Players).unwrap();
        // An older copy (made one year earlier) with player 5 misspelt and one name more.
        file.header.created_year -= 1;
        file.names[5] = Name::encode("Older Spelling", NameKind::Players).unwrap();
        file.names
            .push(Name::encode("Appended (prog)", NameKind::Players).unwrap());
        file.header.records += 1;
        let old_dir = dir.path().join("old");
        std::fs::create_dir(&old_dir).unwrap();
        file.write(old_dir.join("WTHOR.JOU")).unwrap();
        std::fs::copy(shared("wthor/WTHOR.TRN"), old_dir.join("WTHOR.TRN")).unwrap();
        std::fs::copy(shared("wthor/WTH_1977.wtb"), old_dir.join("WTH_1977.wtb")).unwrap();
        // The real file first, then the older one: the older spelling is not taken, the
        // appended name is.
        import(&db, &wtb(1977..=1977), 100);
        let s = import(&db, &[old_dir.join("WTH_1977.wtb")], 100);
        assert!(s.names.changed.is_empty());
        assert_eq!(s.names.players_added, 1);
        let names = db.snapshot().unwrap().wthor_names().unwrap();
        assert_eq!(
            names.player(5),
            NameFile::read(&jou, NameKind::Players)
                .unwrap()
                .name(5)
                .unwrap()
        );
        assert_eq!(names.player(3884), "Appended (prog)");
        assert!(names.is_program(3884));
        // The other way round: the newer file corrects the older spelling.
        let db2 = Database::open_or_create(&dir.path().join("db2"), Kind::Othello, None).unwrap();
        import(&db2, &[old_dir.join("WTH_1977.wtb")], 100);
        let s = import(&db2, &wtb(1977..=1977), 100);
        assert_eq!(s.names.changed.len(), 1);
        assert_eq!(s.names.changed[0].id, 5);
        assert_eq!(s.names.changed[0].old, "Older Spelling");
    }
}
