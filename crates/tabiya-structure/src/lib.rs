//! Structure queries over chess positions, pure (no storage): what a player asks of a
//! position when no exact position is meant (issue 32).
//!
//! - [`Pattern`]: pgn-extract's `FENPattern` syntax — ranks 8 to 1, a piece letter, a digit
//!   for empty squares, `?` any square, `!` any occupied one, `A`/`a` any white/black piece,
//!   `*` any run of squares, `[..]` and `[^..]` sets.
//! - [`Material`]: each side's pieces counted (`KRPvKR`), with `*` (any number), `+` (one
//!   or more) and `m` (a minor piece).
//! - [`PawnStructure`]: a board of pawns only, matched by exactly these pawns.
//! - [`Query`]: any of them together in one position, either colour, held for N plies.
//!
//! Each query is parsed once (errors name the part of the text at fault) and then asked of
//! boards ([`shakmaty::Board`]).

mod material;
mod pattern;
mod pawns;
mod query;

pub use material::{Material, MaterialError};
pub use pattern::{Pattern, PatternError, piece_index};
pub use pawns::{PawnStructure, PawnsError};
pub use query::{EmptyQuery, Query, Walk, opposite_bishops};
