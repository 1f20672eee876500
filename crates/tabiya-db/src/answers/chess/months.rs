//! A position's games month by month (the Lichess explorer's `history`), and the games that
//! reach a position by any move order counted with a filter (each move's `reached` in a
//! filtered answer). Every game reaching the position (by any move order, once) that passes
//! the filter is counted; for months, only those whose date names a month.

use std::collections::BTreeMap;

use shakmaty::Chess;

use super::explore::Reached;
use super::filter::GameFilter;
use crate::stats::GameOutcome;
use crate::{Result, Snapshot};

/// The games of one month, by result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MonthResults {
    /// `yyyymm`.
    pub month: u32,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Without a result (`*`).
    pub unknown: u64,
}

impl MonthResults {
    fn add(&mut self, o: GameOutcome) {
        match o {
            GameOutcome::FirstWins => self.white += 1,
            GameOutcome::Draw => self.draws += 1,
            GameOutcome::SecondWins => self.black += 1,
            GameOutcome::Unknown => self.unknown += 1,
        }
    }

    /// Another answer's count of the same month added (a set's members).
    pub fn merge(&mut self, o: &MonthResults) {
        self.white += o.white;
        self.draws += o.draws;
        self.black += o.black;
        self.unknown += o.unknown;
    }
}

/// A position's games by month.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionMonths {
    /// The months that have games, in order.
    pub months: Vec<MonthResults>,
    /// Games counted but whose date names no month (no date, or a year alone).
    pub no_month: u64,
}

impl Snapshot<'_> {
    /// The games reaching `pos` that pass `filter`, by the month of their date.
    pub fn chess_months(&self, pos: &Chess, filter: &GameFilter) -> Result<PositionMonths> {
        self.check_chess()?;
        let games = self.filtered_games(pos, filter)?;
        let mut by: BTreeMap<u32, MonthResults> = BTreeMap::new();
        let mut no_month = 0;
        for (_, _, f) in &games {
            let year = f.date / 10000;
            let month = f.date / 100 % 100;
            if year == 0 || month == 0 || month > 12 {
                no_month += 1;
                continue;
            }
            let m = year * 100 + month;
            by.entry(m)
                .or_insert_with(|| MonthResults {
                    month: m,
                    ..Default::default()
                })
                .add(f.outcome());
        }
        Ok(PositionMonths {
            months: by.into_values().collect(),
            no_month,
        })
    }

    /// The games reaching `pos` by any move order (each once) that pass `filter`, by result.
    pub fn chess_reached_filtered(&self, pos: &Chess, filter: &GameFilter) -> Result<Reached> {
        self.check_chess()?;
        let mut r = Reached::default();
        for (_, _, f) in self.filtered_games(pos, filter)? {
            match f.outcome() {
                GameOutcome::FirstWins => r.white += 1,
                GameOutcome::Draw => r.draws += 1,
                GameOutcome::SecondWins => r.black += 1,
                GameOutcome::Unknown => r.unknown += 1,
            }
        }
        Ok(r)
    }
}
