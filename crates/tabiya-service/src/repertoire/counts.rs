//! The database's moves of each position a repertoire walk meets, each position looked up
//! once however often it is met, and the numbers answers give of them: a move's share of
//! the games that went on from the position, and a score from the mover's side.

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::{Chess, Move};
use tabiya_db::chess::{GameFilter, MoveCounts, position_key};
use tabiya_db::{Snapshot, Stats};

use super::line::{san, uci};
use crate::error::Result;

/// The looked-up positions of one walk.
pub struct Lookups<'s, 'd> {
    snap: &'s Snapshot<'d>,
    filter: GameFilter,
    known: HashMap<u128, MoveCounts>,
}

impl<'s, 'd> Lookups<'s, 'd> {
    pub fn new(snap: &'s Snapshot<'d>, filter: GameFilter) -> Self {
        Lookups {
            snap,
            filter,
            known: HashMap::new(),
        }
    }

    /// The moves of `pos` with their results.
    pub fn of(&mut self, pos: &Chess) -> Result<&MoveCounts> {
        let key = position_key(pos);
        if !self.known.contains_key(&key) {
            let counts = self.snap.chess_move_counts(pos, &self.filter)?;
            self.known.insert(key, counts);
        }
        Ok(&self.known[&key])
    }

    /// How many positions were looked up.
    pub fn len(&self) -> usize {
        self.known.len()
    }
}

/// The mover's score over games with a result (win 1, draw ½), `None` without any.
pub fn score(s: &Stats, white_to_move: bool) -> Option<f64> {
    let decided = s.first + s.draws + s.second;
    let wins = if white_to_move { s.first } else { s.second };
    (decided > 0).then(|| (wins as f64 + s.draws as f64 / 2.0) / decided as f64)
}

/// A move the database knows in a position.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub uci: String,
    pub san: String,
    pub games: u64,
    /// Its share of the games that went on from the position.
    pub share: f64,
    /// The mover's score after it (games with a result).
    pub score: Option<f64>,
}

impl Candidate {
    pub fn of(pos: &Chess, m: Move, s: &Stats, continued: u64) -> Candidate {
        Candidate {
            uci: uci(m),
            san: san(pos, m),
            games: s.games(),
            share: if continued == 0 {
                0.0
            } else {
                s.games() as f64 / continued as f64
            },
            score: score(s, shakmaty::Position::turn(pos).is_white()),
        }
    }
}
