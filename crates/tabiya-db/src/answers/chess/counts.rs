//! A chess position's moves with their results, counting every game that reaches the
//! position by any move order — all of them (the index's statistics, one lookup) or only
//! those passing a filter (every game of the position looked at). What walks over many
//! positions (repertoire checks) ask of each position: no games listed, no names.

use shakmaty::{Chess, Move, Position};

use super::filter::GameFilter;
use crate::chess::moves::code_to_move;
use crate::game::NO_MOVE;
use crate::stats::Stats;
use crate::{Result, Snapshot};

/// The moves of a position and their results.
#[derive(Debug, Clone, Default)]
pub struct MoveCounts {
    /// Every game reaching the position (that passes the filter).
    pub totals: Stats,
    /// The games that ended in the position.
    pub ended: Stats,
    /// Each move played there, most games first (ties in move-code order).
    pub moves: Vec<(Move, Stats)>,
}

impl MoveCounts {
    /// Games that went on with a move.
    pub fn continued(&self) -> u64 {
        self.moves.iter().map(|(_, s)| s.games()).sum()
    }
}

impl Snapshot<'_> {
    /// The moves of `pos` with their results over the games passing `filter`.
    pub fn chess_move_counts(&self, pos: &Chess, filter: &GameFilter) -> Result<MoveCounts> {
        let mut coded: Vec<(u16, Stats)> = if filter.is_empty() {
            self.chess_position(pos, 0)?.moves
        } else {
            let mover = if pos.turn().is_white() { 0 } else { 1 };
            let mut by_code: std::collections::HashMap<u16, Stats> = Default::default();
            for (_, code, f) in self.filtered_games(pos, filter)? {
                by_code.entry(code).or_default().add_game(&f, mover);
            }
            by_code.into_iter().collect()
        };
        coded.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.cmp(&b.0)));
        let mut out = MoveCounts::default();
        for (code, s) in coded {
            out.totals.merge(&s);
            if code == NO_MOVE {
                out.ended = s;
            } else if let Some(m) = code_to_move(pos, code) {
                out.moves.push((m, s));
            }
        }
        Ok(out)
    }
}
