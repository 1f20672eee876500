//! Opening books as pure codecs: ChessBase CTG, Polyglot and Kvetka.
//!
//! Nothing here knows about Tabiya's storage. Readers work over byte slices, memory maps or
//! `Read + Seek`; writers over `Write` (or a directory for multi-file books). Every format
//! answers a probe with the same [`BookProbe`] shape so that the command line and the
//! explorer can treat books alike; fields a format does not hold are `None` and left out of
//! JSON.
//!
//! Builders take [`BookGame`]s, a storage-neutral view of one game (start position, main line,
//! result, ratings, year, where its text lives), so that books can be built from PGN files or
//! from a Tabiya database by the same code.

pub mod aggregate;
pub mod convert;
pub mod ctg;
pub mod kvetka;
pub mod polyglot;

use serde::Serialize;
use shakmaty::{Chess, Move};

/// Result of a game as a book builder needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
    /// `*` or missing: the game counts as played but has no score.
    Unknown,
}

/// Where a game's text lives in its source file (for Kvetka `.ksf` references and
/// `tabiya book game`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    /// Index into the list of source files given to the builder.
    pub file: u32,
    /// Byte offset of the game's first byte (its first tag) in the file as read
    /// (after decompression).
    pub offset: u64,
    /// Length of the game's text in bytes.
    pub length: u64,
}

/// One game as the book builders see it.
#[derive(Debug, Clone)]
pub struct BookGame {
    /// Starting position (the standard start unless the game has a `FEN` tag).
    pub start: Chess,
    /// True when the game starts from the standard starting position.
    pub standard_start: bool,
    /// Main line, legal moves from `start`.
    pub moves: Vec<Move>,
    pub result: GameResult,
    pub white_elo: Option<u16>,
    pub black_elo: Option<u16>,
    pub year: Option<u16>,
    pub source: Option<SourceRef>,
}

/// A probe's answer for one position, the same shape for every format.
///
/// Position totals are from the side to move; move statistics are from the mover's side
/// (that is, the same side, seen from the position before the move). Fields a format does not
/// have stay `None` and are left out of JSON.
#[derive(Debug, Clone, Default, Serialize, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BookProbe {
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wins: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub losses: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commentary: Option<u8>,
    pub moves: Vec<BookProbeMove>,
}

/// One book move in a [`BookProbe`].
#[derive(Debug, Clone, Default, Serialize, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BookProbeMove {
    /// Standard UCI (castling as the king's two-square move, `e1g1`; Chess960 positions use
    /// king-takes-rook as UCI does there).
    pub uci: String,
    pub san: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotation: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wins: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub losses: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub green: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commentary: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learn: Option<u32>,
}

/// Statistics of a position or a move as books hold them, counted from one side's point of
/// view (see the field docs of the structure that holds them for which side).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BookStats {
    /// Games that reached the position (or played the move), results known or not.
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Games counted in `rating_sum` (average rating = `rating_sum / rating_games`).
    pub rating_games: u64,
    pub rating_sum: u64,
    /// Games counted in `performance_sum` (average performance = sum / games).
    pub performance_games: u64,
    pub performance_sum: u64,
}

/// One move of a [`BookPosition`]: the conversion hub between formats.
#[derive(Debug, Clone)]
pub struct BookMove {
    /// A legal move in the position it belongs to.
    pub mv: Move,
    /// Annotation as a PGN NAG (CTG and Kvetka), raw byte kept where the format has one.
    pub annotation: Option<u8>,
    /// Polyglot weight and learn fields.
    pub weight: Option<u16>,
    pub learn: Option<u32>,
    /// Statistics of the move from the mover's side, where the format holds them.
    pub stats: Option<BookStats>,
    pub green: Option<bool>,
    pub red: Option<bool>,
    pub commentary: Option<u8>,
}

/// One position of a book with its moves: what readers produce and writers consume, so any
/// readable book converts to any writable one.
#[derive(Debug, Clone)]
pub struct BookPosition {
    pub position: Chess,
    /// Totals of the position from the side to move, where the format holds them.
    pub stats: Option<BookStats>,
    /// Raw recommendation flags (CTG) and commentary NAG.
    pub recommendation: Option<u8>,
    pub commentary: Option<u8>,
    pub moves: Vec<BookMove>,
}
