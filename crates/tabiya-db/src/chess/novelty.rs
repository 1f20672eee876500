//! How many earlier games reached each position of a line (ChessBase's novelty "N"): the
//! games of the database reaching the position by any move order whose date is before a
//! given date. Every game reaching each position is looked at (its facts only).

use shakmaty::Chess;

use super::key::position_key;
use super::walk::Reach;
use crate::index::find::{Next, Wanted};
use crate::{Result, Snapshot};

impl Snapshot<'_> {
    /// For each position of `line`, the games reaching it (once each, by any move order)
    /// dated before `date` (`yyyymmdd`, unknown parts 0), leaving out game `except` (the
    /// game itself when it is stored). A game whose year is unknown is never earlier; when
    /// `date`'s year is unknown, every other game is.
    pub fn chess_earlier_games(
        &self,
        line: &[Chess],
        date: u32,
        except: Option<u32>,
    ) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(line.len());
        for pos in line {
            let reach = Reach::of(pos);
            let found = self.find(&Wanted {
                key: position_key(pos),
                next: Next::Of(pos),
                reach: Some(&reach),
                all: true,
            })?;
            let mut games: Vec<u32> = found.all.into_iter().map(|(g, _)| g).collect();
            games.sort_unstable();
            games.dedup();
            let mut n = 0u64;
            for g in games {
                if Some(g) == except {
                    continue;
                }
                if date / 10000 == 0 {
                    n += 1;
                    continue;
                }
                let d = self.facts(g)?.date;
                if d / 10000 != 0 && d < date {
                    n += 1;
                }
            }
            out.push(n);
        }
        Ok(out)
    }
}
