//! Gaps: the positions the opponents lead to most often where the repertoire has no answer
//! (by the walk of `walk.rs`), each with the moves the database's players chose there.

use serde::Serialize;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

use super::counts::{Candidate, Lookups};
use super::line::{movetext, uci};
use super::load::Repertoire;
use super::walk::Walked;
use crate::error::Result;

/// Moves shown with a gap.
const CANDIDATES: usize = 5;

/// A position the repertoire does not answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    pub fen: String,
    /// The most likely way there, as movetext and as UCI moves from the start.
    pub line: String,
    pub moves: Vec<String>,
    /// The start position of the line (the standard one unless the repertoire has a FEN).
    pub start_fen: String,
    /// The probability the opponents lead there (all paths summed).
    pub probability: f64,
    /// Games reaching the position by any move order (with the filters).
    pub games: u64,
    /// What the database's players chose there, most games first.
    pub candidates: Vec<Candidate>,
}

/// The gaps of a walk, most likely first (ties by line), at least `min_share` likely.
pub fn gaps(
    rep: &Repertoire,
    walked: &Walked,
    min_share: f64,
    lookups: &mut Lookups<'_, '_>,
) -> Result<Vec<Gap>> {
    let mut out = Vec::new();
    for r in walked.own.values() {
        if r.probability < min_share || !rep.moves_at(&r.pos).is_empty() {
            continue;
        }
        let counts = lookups.of(&r.pos)?;
        let continued = counts.continued();
        let root = &rep.roots[r.root];
        out.push(Gap {
            fen: Fen::from_position(&r.pos, EnPassantMode::Legal).to_string(),
            line: movetext(root, &r.path),
            moves: r.path.iter().map(|&m| uci(m)).collect(),
            start_fen: Fen::from_position(root, EnPassantMode::Legal).to_string(),
            probability: r.probability,
            games: counts.totals.games(),
            candidates: counts
                .moves
                .iter()
                .take(CANDIDATES)
                .map(|(m, s)| Candidate::of(&r.pos, *m, s, continued))
                .collect(),
        });
    }
    out.sort_by(|a, b| {
        b.probability
            .total_cmp(&a.probability)
            .then_with(|| a.line.cmp(&b.line))
    });
    Ok(out)
}
