//! Repertoires: a PGN file with variations, or any book Tabiya reads, plus a side — keyed by
//! position, never by path, so a position reached by two move orders is one position.
//!
//! | question | function | answer |
//! |---|---|---|
//! | the repertoire of a file | [`Repertoire::open`], [`Repertoire::from_pgn`] | [`Repertoire`] |
//! | its gaps, bad moves, rare lines, contradictions | [`check`] | [`CheckReport`] |
//! | its moves in a position (the explorer's overlay) | [`overlay`] | [`Overlay`] |
//! | where games left it, and how they scored | [`games`] | [`GamesReport`] |

mod bad;
mod check;
mod counts;
mod games;
mod gaps;
mod inconsistent;
pub mod line;
mod load;
mod overlay;
mod rare;
mod walk;

pub use bad::BadMove;
pub use check::{CheckOptions, CheckReport, check};
pub use counts::Candidate;
pub use games::{Departure, GameLeft, GamesOptions, GamesReport, Score, games};
pub use gaps::Gap;
pub use inconsistent::{Answer, Inconsistent};
pub use load::{Entry, Place, Repertoire};
pub use overlay::{Overlay, RepMove, TablePosition, overlay, table};
pub use rare::RareLine;
