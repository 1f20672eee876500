//! What answers questions from a [`Snapshot`] (one read transaction): the snapshot itself
//! (a position's statistics, its games, by any move order) in `snapshot`, and each kind's
//! answers built on it: `chess` (explore, games, years, routes, novelty, move counts,
//! player games, filters) and `othello` (explore, games). Re-exported at the crate root
//! and under [`crate::chess`] / [`crate::othello`] as before.

pub mod chess;
pub mod othello;
pub mod othello_export;
mod persons;
mod snapshot;

pub use snapshot::{GamePage, GameSort, ListKey, PositionStats, Snapshot};
