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

pub mod keys;
pub mod names;
pub mod stored;

#[cfg(test)]
mod tests;

pub use crate::answers::othello_export::{ExportedFile, WthorExport};
pub use crate::import::othello::{
    NameSources, WthorImportSummary, WthorInputs, WthorPaths, WthorReceived, names_file_of,
};
pub use keys::{index_key, occurrences, position_key_of, record_occurrences, settle};
pub use names::{NameChange, NamesFileReport, NamesReport, WTHOR, WthorNames};
// The answers of Othello, kept under `othello` for the public API (they live in
// `answers/othello.rs`).
pub use crate::answers::othello::{
    AskedPosition, GameFilter, NamedId, OpeningInfo, OthelloExplore, OthelloGameRow, OthelloGames,
    OthelloMove, PlayerKind, scan_games,
};
pub use stored::StoredGame;
