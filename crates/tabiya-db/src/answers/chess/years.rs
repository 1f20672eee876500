//! Results over time: a position's games, and each move's, by year — how an opening's
//! popularity and results moved. Every game reaching the position (by any move order, once,
//! with the move it played there) that passes the filter is counted in its year.

use std::collections::BTreeMap;

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess};

use super::filter::GameFilter;
use crate::chess::moves::code_to_move;
use crate::game::NO_MOVE;
use crate::stats::GameOutcome;
use crate::{Result, Snapshot};

/// Games of one year, by result.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq, serde::Deserialize)]
pub struct YearResults {
    pub year: u16,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Without a result.
    pub unknown: u64,
}

impl YearResults {
    fn add(&mut self, o: GameOutcome) {
        match o {
            GameOutcome::FirstWins => self.white += 1,
            GameOutcome::Draw => self.draws += 1,
            GameOutcome::SecondWins => self.black += 1,
            GameOutcome::Unknown => self.unknown += 1,
        }
    }
}

/// A move's games by year.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct MoveYears {
    pub uci: String,
    pub san: String,
    pub years: Vec<YearResults>,
}

/// A position's games by year, and each move's.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionYears {
    /// Every game of the position, by year (games without a year apart).
    pub years: Vec<YearResults>,
    pub no_year: u64,
    /// Moves by games, most first.
    pub moves: Vec<MoveYears>,
}

impl Snapshot<'_> {
    /// The games of a position by year, and of each move played there.
    pub fn chess_years(
        &self,
        pos: &Chess,
        mode: CastlingMode,
        filter: &GameFilter,
    ) -> Result<PositionYears> {
        let games = self.filtered_games(pos, filter)?;
        let mut all: BTreeMap<u16, YearResults> = BTreeMap::new();
        let mut by_move: BTreeMap<u16, (u64, BTreeMap<u16, YearResults>)> = BTreeMap::new();
        let mut no_year = 0;
        for (_, code, f) in &games {
            let Some(year) = f.year.filter(|y| *y != 0) else {
                no_year += 1;
                continue;
            };
            all.entry(year)
                .or_insert_with(|| YearResults {
                    year,
                    ..Default::default()
                })
                .add(f.outcome());
            if *code != NO_MOVE {
                let m = by_move.entry(*code).or_default();
                m.0 += 1;
                m.1.entry(year)
                    .or_insert_with(|| YearResults {
                        year,
                        ..Default::default()
                    })
                    .add(f.outcome());
            }
        }
        let mut moves: Vec<(u64, MoveYears)> = by_move
            .into_iter()
            .filter_map(|(code, (n, years))| {
                let m = code_to_move(pos, code)?;
                Some((
                    n,
                    MoveYears {
                        uci: UciMove::from_move(m, mode).to_string(),
                        san: SanPlus::from_move(pos.clone(), m).to_string(),
                        years: years.into_values().collect(),
                    },
                ))
            })
            .collect();
        moves.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.uci.cmp(&b.1.uci)));
        Ok(PositionYears {
            years: all.into_values().collect(),
            no_year,
            moves: moves.into_iter().map(|(_, m)| m).collect(),
        })
    }
}
