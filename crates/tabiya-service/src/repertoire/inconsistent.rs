//! Positions the repertoire answers differently in two places: one of your positions,
//! reached by two ways in the file (a transposition), with another main move at each (a
//! place giving fewer alternatives with the same main move is no contradiction).

use serde::Serialize;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

use super::line::{movetext, san};
use super::load::Repertoire;
use crate::cards::Side;

/// One place and its answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub line: String,
    pub moves: Vec<String>,
}

/// A position answered differently in different places.
#[derive(Debug, Clone, Serialize)]
pub struct Inconsistent {
    pub fen: String,
    pub answers: Vec<Answer>,
}

/// The repertoire's own positions with differing answers, in file order.
pub fn inconsistent(rep: &Repertoire, side: Side) -> Vec<Inconsistent> {
    rep.entries()
        .filter(|(_, e)| Side::of(&e.pos) == side && e.places.len() > 1)
        .map(|(_, e)| Inconsistent {
            fen: Fen::from_position(&e.pos, EnPassantMode::Legal).to_string(),
            answers: e
                .places
                .iter()
                .map(|p| Answer {
                    line: movetext(&rep.roots[p.root], &p.path),
                    moves: p.moves.iter().map(|&m| san(&e.pos, m)).collect(),
                })
                .collect(),
        })
        .collect()
}
