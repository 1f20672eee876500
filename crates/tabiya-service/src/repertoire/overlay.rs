//! The explorer's repertoire overlay: the moves a repertoire plays (your side to move) or
//! prepares for (the other side) in a position, wherever the position came from; and the
//! whole repertoire as such a table, for a page that marks moves itself.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::line::{san, uci};
use super::load::Repertoire;
use crate::cards::Side;

/// A repertoire move.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct RepMove {
    pub uci: String,
    pub san: String,
}

/// The repertoire in one position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlay {
    pub repertoire: String,
    /// The position is in the repertoire (by any move order).
    pub known: bool,
    /// Your side is to move: the moves are your answers; else the replies prepared (not
    /// said when the side is not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yours: Option<bool>,
    pub moves: Vec<RepMove>,
}

/// The repertoire's moves in `pos`.
pub fn overlay(rep: &Repertoire, side: Option<Side>, pos: &Chess) -> Overlay {
    Overlay {
        repertoire: rep.name.clone(),
        known: rep.get(pos).is_some(),
        yours: side.map(|s| Side::of(pos) == s),
        moves: rep
            .moves_at(pos)
            .iter()
            .map(|&m| RepMove {
                uci: uci(m),
                san: san(pos, m),
            })
            .collect(),
    }
}

/// One position of the repertoire with its moves.
#[derive(Debug, Clone, Serialize)]
pub struct TablePosition {
    pub fen: String,
    pub moves: Vec<String>,
}

/// Every position of the repertoire that has moves, in file order (UCI moves).
pub fn table(rep: &Repertoire) -> Vec<TablePosition> {
    rep.entries()
        .filter(|(_, e)| !e.moves.is_empty())
        .map(|(_, e)| TablePosition {
            fen: Fen::from_position(&e.pos, EnPassantMode::Legal).to_string(),
            moves: e.moves.iter().map(|&m| uci(m)).collect(),
        })
        .collect()
}
