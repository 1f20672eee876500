//! The named openings most reached: for every position the bundled opening tables name
//! (`chess::openings`, Lichess's tables), the games reaching it by any move order — the
//! index's own count, as the explorer gives it — and the [`TOP`] most reached. A game counts
//! for every named position it passes through (1. e4 c5 2. Nf3 counts for the King's Pawn
//! Game, the Sicilian Defense and the Sicilian's 2. Nf3), so shorter lines come first.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, EnPassantMode};

use super::names::TOP;
use crate::Result;
use crate::answers::Snapshot;
use crate::chess::openings;

/// A named opening and the games reaching its position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ReachedOpening {
    pub eco: String,
    pub name: String,
    /// The tables' line (SAN with move numbers).
    pub line: String,
    /// The line as UCI moves from the start, comma-separated (the explorer's `play=`).
    pub uci: String,
    pub fen: String,
    /// Games reaching the position, by any move order.
    pub games: u64,
}

/// The [`TOP`] named positions reached by the most games (most first; then shorter lines,
/// then by ECO code and name). Positions no game reaches are left out.
pub fn most_reached(snap: &Snapshot<'_>) -> Result<Vec<ReachedOpening>> {
    let mut counted = Vec::new();
    for (_, o) in openings::all() {
        let pos = o.position();
        let games = snap.chess_totals(&pos)?.games();
        if games > 0 {
            counted.push((games, o, pos));
        }
    }
    counted.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.plies.cmp(&b.1.plies))
            .then_with(|| a.1.eco.cmp(&b.1.eco))
            .then_with(|| a.1.name.cmp(&b.1.name))
    });
    counted.truncate(TOP);
    Ok(counted
        .into_iter()
        .map(|(games, o, pos)| ReachedOpening {
            eco: o.eco.clone(),
            name: o.name.clone(),
            line: o.pgn.clone(),
            uci: o
                .moves
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect::<Vec<_>>()
                .join(","),
            fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            games,
        })
        .collect())
}
