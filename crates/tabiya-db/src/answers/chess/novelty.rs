//! How many earlier games reached each position of a line (ChessBase's novelty "N"): the
//! games of the database reaching the position by any move order whose date is before a
//! given date. Every game reaching each position is looked at (its facts only).
//!
//! Judging many games, the same positions come again and again (the start position, the
//! openings): an [`EarlierGames`] keeps, for each position met, its games and their dates
//! sorted, so that a later game's count is a binary search instead of another lookup. The
//! counts are the same as without it: what is kept is every game reaching the position, not
//! a count for one date.

use std::collections::HashMap;

use shakmaty::Chess;

use crate::chess::key::position_key;
use crate::chess::walk::Reach;
use crate::index::find::{Next, Wanted};
use crate::{Result, Snapshot};

/// The games reaching one position.
struct Reaching {
    /// Their ids, sorted.
    ids: Vec<u32>,
    /// The dates (`yyyymmdd`) of those whose year is known, sorted.
    dates: Vec<u32>,
}

/// Positions with fewer games than this are dropped first when the cache is full (they are
/// quick to look up again).
const CHEAP: usize = 1024;

/// The games of positions already looked up, for one [`Snapshot`] (a cache must not outlive
/// the snapshot it was filled from: another state of the database has other games).
pub struct EarlierGames {
    seen: HashMap<u128, Reaching>,
    /// Games held, over every position.
    held: usize,
    /// Most games held before positions are dropped.
    budget: usize,
}

impl Default for EarlierGames {
    fn default() -> EarlierGames {
        EarlierGames::with_budget(8 << 20)
    }
}

impl EarlierGames {
    /// A cache holding at most about `budget` games over all its positions (8 bytes each).
    pub fn with_budget(budget: usize) -> EarlierGames {
        EarlierGames {
            seen: HashMap::new(),
            held: 0,
            budget,
        }
    }

    /// Positions held.
    pub fn positions(&self) -> usize {
        self.seen.len()
    }

    fn make_room(&mut self, wanted: usize) {
        if self.held + wanted <= self.budget {
            return;
        }
        self.seen.retain(|_, r| r.ids.len() >= CHEAP);
        self.held = self.seen.values().map(|r| r.ids.len()).sum();
        if self.held + wanted > self.budget {
            self.seen.clear();
            self.held = 0;
        }
    }
}

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
        self.chess_earlier_games_kept(&mut EarlierGames::with_budget(0), line, date, except)
    }

    /// [`Snapshot::chess_earlier_games`], the games of each position kept in `kept` for
    /// the next line (filled from this snapshot only).
    pub fn chess_earlier_games_kept(
        &self,
        kept: &mut EarlierGames,
        line: &[Chess],
        date: u32,
        except: Option<u32>,
    ) -> Result<Vec<u64>> {
        // The game itself, when it is stored: its date as the database has it.
        let except = match except {
            Some(g) => Some((g, self.facts(g)?.date)),
            None => None,
        };
        let count = |r: &Reaching| -> u64 {
            let own = except.filter(|(g, _)| r.ids.binary_search(g).is_ok());
            let n = if date / 10000 == 0 {
                r.ids.len() - usize::from(own.is_some())
            } else {
                let own_earlier = own.is_some_and(|(_, d)| d / 10000 != 0 && d < date);
                r.dates.partition_point(|&d| d < date) - usize::from(own_earlier)
            };
            n as u64
        };
        let mut out = Vec::with_capacity(line.len());
        for pos in line {
            let key = position_key(pos);
            if let Some(r) = kept.seen.get(&key) {
                out.push(count(r));
                continue;
            }
            let r = self.reaching(pos, key)?;
            out.push(count(&r));
            if kept.budget > 0 {
                kept.make_room(r.ids.len());
                if kept.held + r.ids.len() <= kept.budget {
                    kept.held += r.ids.len();
                    kept.seen.insert(key, r);
                }
            }
        }
        Ok(out)
    }

    /// Every game reaching `pos` (key `key`), with the dates of those whose year is known.
    fn reaching(&self, pos: &Chess, key: u128) -> Result<Reaching> {
        let reach = Reach::of(pos);
        let found = self.find(&Wanted {
            key,
            next: Next::Of(pos),
            reach: Some(&reach),
            all: true,
        })?;
        let mut ids: Vec<u32> = found.all.into_iter().map(|(g, _)| g).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut dates = Vec::with_capacity(ids.len());
        for &g in &ids {
            let d = self.facts(g)?.date;
            if d / 10000 != 0 {
                dates.push(d);
            }
        }
        dates.sort_unstable();
        Ok(Reaching { ids, dates })
    }
}
