//! Repertoire moves the database says score badly: in each of the repertoire's own
//! positions, a move whose games score for the mover at least `margin` below the
//! position's own score, over at least `min_games` games with a result; with the best
//! scoring move of the position beside it.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};

use super::counts::{Candidate, Lookups, score};
use super::line::{movetext, san, uci};
use super::load::Repertoire;
use crate::cards::Side;
use crate::error::Result;

/// A repertoire move that scores badly.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BadMove {
    pub fen: String,
    /// A way to the position in the repertoire, and the move.
    pub line: String,
    pub uci: String,
    pub san: String,
    /// The move's games and the mover's score after it.
    pub games: u64,
    pub score: f64,
    /// The mover's score over all the games going on from the position.
    pub position_score: f64,
    /// The best scoring move of the position with at least `min_games` games.
    pub best: Option<Candidate>,
}

fn decided(s: &tabiya_db::Stats) -> u64 {
    s.first + s.draws + s.second
}

/// The badly scoring moves of the repertoire's own positions up to `depth` plies, worst
/// first.
pub fn bad_moves(
    rep: &Repertoire,
    side: Side,
    depth: u32,
    min_games: u64,
    margin: f64,
    lookups: &mut Lookups<'_, '_>,
) -> Result<Vec<BadMove>> {
    let mut out = Vec::new();
    for (_, e) in rep.entries() {
        if Side::of(&e.pos) != side || e.moves.is_empty() || e.path.len() as u32 > depth {
            continue;
        }
        let white = e.pos.turn().is_white();
        let counts = lookups.of(&e.pos)?;
        let mut all = tabiya_db::Stats::default();
        for (_, s) in &counts.moves {
            all.merge(s);
        }
        let Some(position_score) = score(&all, white) else {
            continue;
        };
        let continued = counts.continued();
        let best = counts
            .moves
            .iter()
            .filter(|(_, s)| decided(s) >= min_games)
            .filter_map(|(m, s)| score(s, white).map(|sc| (sc, *m, s)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, m, s)| Candidate::of(&e.pos, m, s, continued));
        for &m in &e.moves {
            let Some((_, s)) = counts.moves.iter().find(|(cm, _)| *cm == m) else {
                continue;
            };
            if decided(s) < min_games {
                continue;
            }
            let Some(sc) = score(s, white) else { continue };
            if sc <= position_score - margin {
                let mut line = e.path.clone();
                line.push(m);
                out.push(BadMove {
                    fen: Fen::from_position(&e.pos, EnPassantMode::Legal).to_string(),
                    line: movetext(&rep.roots[e.root], &line),
                    uci: uci(m),
                    san: san(&e.pos, m),
                    games: s.games(),
                    score: sc,
                    position_score,
                    best: best.clone().filter(|b| b.uci != uci(m)),
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.score - a.position_score)
            .total_cmp(&(b.score - b.position_score))
            .then_with(|| a.line.cmp(&b.line))
    });
    Ok(out)
}
