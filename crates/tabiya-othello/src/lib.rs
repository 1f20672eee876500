//! Othello rules on bitboards, board symmetries, opening names, and the WTHOR database format.
//!
//! - [`Board`]: bitboards (`u64` black, `u64` white) and the side to move; legal moves, flips,
//!   implicit passes ([`Board::play_or_pass`]), end of game, final score with empties to the
//!   winner.
//! - [`Square`]: `f5`-style names, bit indices (a1 = 0 … h8 = 63), WTHOR bytes (a1 = 11 …
//!   h8 = 88); [`Move`] codes (square index, 64 = pass).
//! - [`Symmetry`]: the 8 symmetries on bitboards and squares; [`canonicalize`] gives the
//!   canonical form, the symmetry that reaches it and the 128-bit [`PositionKey`].
//! - [`Replay`]: each position of a transcript with its canonical key and the move in canonical
//!   orientation.
//! - [`wthor`]: `.wtb`/`.wtd`/`.jou`/`.trn` read and write (byte-identical), [`wthor::GameIter`].
//! - [`check()`]: validation of game files; [`csv`]: CSV export; [`openings`]: opening names.

pub mod board;
pub mod check;
pub mod csv;
pub mod openings;
pub mod replay;
pub mod square;
pub mod symmetry;
pub mod wthor;

pub use board::{Board, Color, MoveError, flips_of, legal_moves_of};
pub use check::{CheckOptions, CheckReport, check};
pub use openings::{Opening, deepest_opening, opening_name};
pub use replay::{GameOutcome, IllegalMove, Ply, Replay, replay_game};
pub use square::{Move, PASS_CODE, Square, format_transcript, parse_transcript};
pub use symmetry::{ALL_SYMMETRIES, Canonical, PositionKey, Symmetry, canonicalize};
