//! Polyglot opening books (`.bin`): reader, builder, merge, dump and info.
//!
//! A Polyglot book is a flat array of 16-byte big-endian entries
//! `{key: u64, move: u16, weight: u16, learn: u32}` sorted by key. The key is the Polyglot
//! Zobrist hash of the position ([`key`]); the move is packed as
//! `to | from << 6 | promotion << 12` with castling stored as king-takes-rook (`e1h1`).
//! See `docs/formats/polyglot.md` for the layout and for every rule of `polyglot make-book`
//! that [`build`] reproduces.
//!
//! * [`PolyglotReader`] memory-maps a book and answers probes by binary search.
//! * [`PolyglotBook`] is an owned, sorted list of entries (what [`build`] and [`merge`]
//!   produce); [`PolyglotBook::write`] writes it.
//! * [`build`] reproduces `polyglot make-book` byte for byte.
//! * [`merge`] reproduces `polyglot merge-book` byte for byte.
//! * [`dump`], [`info`] and [`read_positions`] walk a book from the start position, since a
//!   book stores only hashes.

mod build;
mod merge;
mod reader;
mod walk;

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, CastlingSide, Chess, EnPassantMode, Move, Position, Role, Square};

pub use build::{
    BuildReport, CountedGame, CountedMove, PolyglotBuildOptions, build, build_counted,
    build_with_report, count_game,
};
pub use merge::merge;
pub use reader::PolyglotReader;
pub use walk::{
    BookInfo, Dump, DumpLine, DumpMove, LineEnd, PositionWalk, WalkReport, dump, info,
    read_positions,
};

use crate::{BookProbe, BookProbeMove};

/// Size of one entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// Polyglot key of the standard starting position.
pub const START_KEY: u64 = 0x463b_9618_1691_fc9c;

/// One raw book entry, exactly as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Polyglot Zobrist key of the position.
    pub key: u64,
    /// Packed move: bits 0–5 target square, 6–11 origin square (a1 = 0 … h8 = 63),
    /// 12–14 promotion (0 none, 1 knight, 2 bishop, 3 rook, 4 queen), bit 15 unused.
    pub raw_move: u16,
    /// Weight (relative frequency; `polyglot make-book` writes 2 × wins + draws).
    pub weight: u16,
    /// Learn field: `polyglot make-book` writes 0; engines may store learning data here.
    pub learn: u32,
}

impl Entry {
    /// Decodes an entry from its 16 big-endian bytes.
    pub fn from_bytes(bytes: &[u8; ENTRY_SIZE]) -> Entry {
        let mut key = [0; 8];
        key.copy_from_slice(&bytes[0..8]);
        Entry {
            key: u64::from_be_bytes(key),
            raw_move: u16::from_be_bytes([bytes[8], bytes[9]]),
            weight: u16::from_be_bytes([bytes[10], bytes[11]]),
            learn: u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]),
        }
    }

    /// Encodes the entry as 16 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        let mut out = [0; ENTRY_SIZE];
        out[0..8].copy_from_slice(&self.key.to_be_bytes());
        out[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        out[10..12].copy_from_slice(&self.weight.to_be_bytes());
        out[12..16].copy_from_slice(&self.learn.to_be_bytes());
        out
    }
}

/// Errors of reading or validating a Polyglot book.
#[derive(Debug, thiserror::Error)]
pub enum PolyglotError {
    /// The file could not be opened, mapped or read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The size is not a multiple of 16: the last entry is cut short.
    #[error(
        "{path}: truncated Polyglot book: {len} bytes is not a multiple of 16; \
         the last {trailing} byte(s) from offset {offset} are not a whole entry"
    )]
    Truncated {
        path: PathBuf,
        len: u64,
        /// Offset of the incomplete entry.
        offset: u64,
        trailing: u64,
    },
    /// Keys are not in ascending order, so binary search would miss entries.
    #[error(
        "{path}: unsorted Polyglot book: entry at offset {offset} has key {key:016x}, \
         smaller than the key {previous:016x} before it"
    )]
    Unsorted {
        path: PathBuf,
        /// Byte offset of the first entry out of order.
        offset: u64,
        key: u64,
        previous: u64,
    },
    /// A named file refused before it was read: not a regular file (a FIFO, a device, a
    /// directory), larger than the format allows, or cut short while it was read.
    #[error(transparent)]
    File(tabiya_files::FileError),
}

impl From<tabiya_files::FileError> for PolyglotError {
    /// The operating system's errors as [`PolyglotError::Io`], the refusals as they are.
    fn from(e: tabiya_files::FileError) -> PolyglotError {
        match e {
            tabiya_files::FileError::Io { path, source } => PolyglotError::Io { path, source },
            other => PolyglotError::File(other),
        }
    }
}

/// Read access to a sorted list of entries: implemented by [`PolyglotReader`] (memory map)
/// and [`PolyglotBook`] (owned). Probing, walking and merging work over either.
pub trait EntrySource {
    /// Number of entries.
    fn len(&self) -> usize;
    /// The entry at `index` (`index < len()`); `None` past the end.
    fn entry(&self, index: usize) -> Option<Entry>;

    /// True when there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of the entry at `index` (`None` past the end). Sources override this to
    /// read 8 bytes instead of a whole entry.
    fn key_at(&self, index: usize) -> Option<u64> {
        self.entry(index).map(|e| e.key)
    }

    /// Index range of the entries with `key`: binary search for the first, then a scan (the
    /// source is sorted; a position has few entries).
    fn key_range(&self, key: u64) -> std::ops::Range<usize> {
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key_at(mid) {
                Some(k) if k < key => lo = mid + 1,
                _ => hi = mid,
            }
        }
        let mut upper = lo;
        while self.key_at(upper) == Some(key) {
            upper += 1;
        }
        lo..upper
    }

    /// All entries with `key`, in stored order.
    fn entries_for_key(&self, key: u64) -> Vec<Entry> {
        self.key_range(key).filter_map(|i| self.entry(i)).collect()
    }

    /// All entries of `pos`, in stored order, with their moves decoded.
    fn probe_entries(&self, pos: &Chess) -> Vec<ProbedEntry> {
        let entries = self.entries_for_key(key(pos));
        if entries.is_empty() {
            return Vec::new();
        }
        let legal = pos.legal_moves();
        entries
            .into_iter()
            .map(|entry| ProbedEntry {
                entry,
                mv: decode_among(pos, &legal, entry.raw_move),
            })
            .collect()
    }

    /// The shared probe answer: legal book moves with weight, learn, UCI and SAN, in stored
    /// order. Entries whose move is not legal in `pos` are left out (see
    /// [`EntrySource::probe_entries`] for them).
    fn probe(&self, pos: &Chess) -> BookProbe {
        let entries = self.probe_entries(pos);
        BookProbe {
            found: !entries.is_empty(),
            moves: entries
                .iter()
                .filter_map(|p| {
                    let m = p.mv.as_ref().ok()?;
                    Some(probe_move(pos, m, p.entry))
                })
                .collect(),
            ..BookProbe::default()
        }
    }
}

fn probe_move(pos: &Chess, m: &Move, entry: Entry) -> BookProbeMove {
    let mode = castling_mode(pos);
    BookProbeMove {
        uci: m.to_uci(mode).to_string(),
        san: shakmaty::san::SanPlus::from_move(pos.clone(), *m).to_string(),
        weight: Some(entry.weight),
        learn: Some(entry.learn),
        ..BookProbeMove::default()
    }
}

/// One entry of a probe with its move decoded in the probed position.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbedEntry {
    pub entry: Entry,
    /// The legal move, or why the stored move is not one.
    pub mv: Result<Move, MoveDecodeError>,
}

/// Why a stored move is not a legal move of the position it is stored for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveDecodeError {
    /// Promotion bits 5–7 or bit 15 set: not a Polyglot move at all.
    #[error("move {raw:#06x} has invalid bits (promotion field {promotion}, bit 15 {high})")]
    Malformed { raw: u16, promotion: u8, high: bool },
    /// Well formed, but no legal move of the position matches it.
    #[error("move {uci} ({raw:#06x}) is not legal in the position")]
    Illegal { raw: u16, uci: String },
}

/// Polyglot Zobrist key of a position.
///
/// Pieces, castling rights, side to move and the en-passant file, the latter only when a
/// pawn of the side to move stands beside the pawn that just advanced two squares (whether
/// or not the capture would be legal): shakmaty's [`EnPassantMode::PseudoLegal`], whose
/// random numbers are Polyglot's.
pub fn key(pos: &Chess) -> u64 {
    let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::PseudoLegal);
    z.0
}

/// Packs a move in Polyglot's 16-bit form: castling as king takes rook, promotions in bits
/// 12–14. Returns `None` for moves Polyglot cannot express (piece drops, king promotions).
pub fn encode_move(m: &Move) -> Option<u16> {
    let (from, to, promotion) = match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { .. } => return None,
    };
    let promo: u16 = match promotion {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        Some(Role::Pawn | Role::King) => return None,
    };
    Some(u16::from(to) | (u16::from(from) << 6) | (promo << 12))
}

/// Origin, target and promotion of a packed move, without a position (UCI-like text with
/// castling as king takes rook, e.g. `e1h1`, `a7a8q`).
pub fn raw_move_uci(raw: u16) -> String {
    let to = Square::new(u32::from(raw & 63));
    let from = Square::new(u32::from((raw >> 6) & 63));
    let promo = match (raw >> 12) & 7 {
        0 => "",
        1 => "n",
        2 => "b",
        3 => "r",
        4 => "q",
        _ => "?",
    };
    format!("{from}{to}{promo}")
}

/// Decodes a stored move into the legal move of `pos` it denotes.
///
/// King-takes-rook castling (`e1h1`) becomes shakmaty's castling move; in standard chess the
/// king's two-square move (`e1g1`) is accepted as castling too (python-chess does the same),
/// in Chess960 positions it is not (it may be an ordinary king move there). Moves that are not
/// legal in `pos` are reported, never a panic.
pub fn decode_move(pos: &Chess, raw: u16) -> Result<Move, MoveDecodeError> {
    decode_among(pos, &pos.legal_moves(), raw)
}

/// [`decode_move`] with the legal moves of `pos` already generated.
pub(crate) fn decode_among(pos: &Chess, legal: &[Move], raw: u16) -> Result<Move, MoveDecodeError> {
    let promotion_bits = ((raw >> 12) & 7) as u8;
    let high = raw & 0x8000 != 0;
    if promotion_bits > 4 || high {
        return Err(MoveDecodeError::Malformed {
            raw,
            promotion: promotion_bits,
            high,
        });
    }
    let to = Square::new(u32::from(raw & 63));
    let from = Square::new(u32::from((raw >> 6) & 63));
    let promotion = match promotion_bits {
        1 => Some(Role::Knight),
        2 => Some(Role::Bishop),
        3 => Some(Role::Rook),
        4 => Some(Role::Queen),
        _ => None,
    };
    // The king's two-square move as castling only in standard chess, where it cannot be a
    // normal king move too (in Chess960 it can).
    let standard = castling_mode(pos) == CastlingMode::Standard;
    let found = legal.iter().copied().find(|m| match *m {
        Move::Castle { king, rook } => {
            if king != from || promotion.is_some() {
                return false;
            }
            let side = CastlingSide::from_king_side(king < rook);
            to == rook || (standard && to == side.king_to(pos.turn()))
        }
        _ => m.from() == Some(from) && m.to() == to && m.promotion() == promotion,
    });
    found.ok_or_else(|| MoveDecodeError::Illegal {
        raw,
        uci: raw_move_uci(raw),
    })
}

/// An owned Polyglot book: entries sorted by key (order within a key as given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolyglotBook {
    entries: Vec<Entry>,
}

impl PolyglotBook {
    /// Wraps entries that are already sorted by key; the order of entries with the same key
    /// is kept. Fails (naming `name` and the offset) when keys are out of order.
    pub fn from_entries(name: &str, entries: Vec<Entry>) -> Result<PolyglotBook, PolyglotError> {
        if let Some(i) = entries.windows(2).position(|w| w[1].key < w[0].key) {
            return Err(PolyglotError::Unsorted {
                path: PathBuf::from(name),
                offset: ((i + 1) * ENTRY_SIZE) as u64,
                key: entries[i + 1].key,
                previous: entries[i].key,
            });
        }
        Ok(PolyglotBook { entries })
    }

    /// Parses a whole book from bytes (see [`PolyglotReader::from_bytes`] for the checks).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<PolyglotBook, PolyglotError> {
        let entries = reader::parse_checked(std::path::Path::new(name), bytes)?;
        Ok(PolyglotBook { entries })
    }

    /// The entries in stored order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Consumes the book, returning its entries.
    pub fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// The book as it would be written to a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * ENTRY_SIZE);
        for e in &self.entries {
            out.extend_from_slice(&e.to_bytes());
        }
        out
    }

    /// Writes the book (16 bytes per entry, big-endian, no header).
    pub fn write(&self, mut w: impl Write) -> io::Result<()> {
        let mut buf = Vec::with_capacity(64 * 1024);
        for chunk in self.entries.chunks(4096) {
            buf.clear();
            for e in chunk {
                buf.extend_from_slice(&e.to_bytes());
            }
            w.write_all(&buf)?;
        }
        w.flush()
    }
}

impl EntrySource for PolyglotBook {
    fn len(&self) -> usize {
        self.entries.len()
    }
    fn entry(&self, index: usize) -> Option<Entry> {
        self.entries.get(index).copied()
    }
    fn key_at(&self, index: usize) -> Option<u64> {
        self.entries.get(index).map(|e| e.key)
    }
}

impl<S: EntrySource + ?Sized> EntrySource for &S {
    fn len(&self) -> usize {
        (**self).len()
    }
    fn entry(&self, index: usize) -> Option<Entry> {
        (**self).entry(index)
    }
    fn key_at(&self, index: usize) -> Option<u64> {
        (**self).key_at(index)
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:016x} {} weight {} learn {}",
            self.key,
            raw_move_uci(self.raw_move),
            self.weight,
            self.learn
        )
    }
}

/// The castling mode to print UCI in: Chess960 positions use king-takes-rook.
pub(crate) fn castling_mode(pos: &Chess) -> CastlingMode {
    pos.castles().mode()
}
