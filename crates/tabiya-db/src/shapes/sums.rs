//! A shape's sums while the shape statistics are counted ([`super::tally`]), kept small: at
//! ten million games the count holds tens of thousands of shapes in each worker, and a popular
//! material has a thousand and more moves, each with its statistics and its names. A move's
//! figures are a [`Tally`] (48 bytes, not [`Stats`]' 120), its names one short string, and a
//! game list never grows past [`LIST_LEN`].

use std::collections::HashMap;

use super::stands::{Shape, Stand};
use super::stats::{LIST_LEN, LIST_ORDERS, ListOrder, ranked};
use crate::game::NO_MOVE;
use crate::stats::{GameFacts, Stats, merge_years};

/// [`Stats`] of chess games, in the widths a count of at most `u32::MAX` games needs (no
/// Othello values). Games go in through [`Stats::add_game`], so the rules are the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    first: u32,
    draws: u32,
    second: u32,
    unknown: u32,
    rating_games: u32,
    perf_games: u32,
    perf_score2: u32,
    min_year: u16,
    max_year: u16,
    rating_sum: u64,
    perf_opp_sum: u64,
}

impl Tally {
    pub fn add_game(&mut self, facts: &GameFacts, mover: u8) {
        let mut one = Stats::default();
        one.add_game(facts, mover);
        self.merge(&Tally::from(&one));
    }

    pub fn merge(&mut self, o: &Tally) {
        self.first += o.first;
        self.draws += o.draws;
        self.second += o.second;
        self.unknown += o.unknown;
        self.rating_games += o.rating_games;
        self.perf_games += o.perf_games;
        self.perf_score2 += o.perf_score2;
        self.rating_sum += o.rating_sum;
        self.perf_opp_sum += o.perf_opp_sum;
        merge_years(
            (&mut self.min_year, &mut self.max_year),
            (o.min_year, o.max_year),
        );
    }
}

impl From<&Stats> for Tally {
    /// One game's statistics (or any whose counts fit).
    fn from(s: &Stats) -> Tally {
        let n = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        Tally {
            first: n(s.first),
            draws: n(s.draws),
            second: n(s.second),
            unknown: n(s.unknown),
            rating_games: n(s.rating_games),
            perf_games: n(s.perf_games),
            perf_score2: n(s.perf_score2),
            min_year: s.min_year,
            max_year: s.max_year,
            rating_sum: s.rating_sum,
            perf_opp_sum: s.perf_opp_sum,
        }
    }
}

impl From<Tally> for Stats {
    fn from(t: Tally) -> Stats {
        Stats {
            first: t.first.into(),
            draws: t.draws.into(),
            second: t.second.into(),
            unknown: t.unknown.into(),
            rating_games: t.rating_games.into(),
            rating_sum: t.rating_sum,
            perf_games: t.perf_games.into(),
            perf_opp_sum: t.perf_opp_sum,
            perf_score2: t.perf_score2.into(),
            min_year: t.min_year,
            max_year: t.max_year,
            ..Stats::default()
        }
    }
}

/// A move's sums: the first game that played it, the names that game gives it (UCI and
/// SAN, as a search names them, once found), and the figures.
pub(super) struct MoveSum {
    pub first: u32,
    /// `uci` + `\n` + `san` (empty until named).
    names: Box<str>,
    pub tally: Tally,
}

impl MoveSum {
    pub fn set_names(&mut self, (uci, san): (String, String)) {
        self.names = format!("{uci}\n{san}").into_boxed_str();
    }

    pub fn names(&self) -> (String, String) {
        match self.names.split_once('\n') {
            Some((u, s)) => (u.to_string(), s.to_string()),
            None => Default::default(),
        }
    }
}

/// One shape's sums.
#[derive(Default)]
pub(super) struct Sums {
    pub totals: Stats,
    pub moves: HashMap<u16, MoveSum>,
    pub next: HashMap<Shape, Tally>,
    /// The first games in each of [`LIST_ORDERS`]: facts, id, first ply.
    pub lists: [Vec<(GameFacts, u32, u32)>; 3],
}

/// Puts a game into a list kept in `sort`'s order, at most [`LIST_LEN`] long (and never
/// holding more).
pub(super) fn rank_into(
    list: &mut Vec<(GameFacts, u32, u32)>,
    sort: ListOrder,
    item: (GameFacts, u32, u32),
) {
    let after = |l: &(GameFacts, u32, u32)| ranked(sort, (&item.0, item.1), (&l.0, l.1)).is_ge();
    if list.len() >= LIST_LEN && list.last().is_some_and(after) {
        return;
    }
    if list.len() >= LIST_LEN {
        list.pop();
    }
    if list.capacity() == 0 {
        list.reserve_exact(LIST_LEN);
    }
    let at = list.partition_point(|l| ranked(sort, (&l.0, l.1), (&item.0, item.1)).is_lt());
    list.insert(at, item);
}

impl Sums {
    /// Counts a game's stand; true when its move is new here (and must be named: a
    /// worker reads its games in id order, so the first to play a move is the first it
    /// meets).
    pub fn add(&mut self, id: u32, s: &Stand, facts: &GameFacts) -> bool {
        self.totals.add_game(facts, 0);
        let mut new = false;
        let m = self.moves.entry(s.code).or_insert_with(|| {
            new = true;
            MoveSum {
                first: id,
                names: Box::default(),
                tally: Tally::default(),
            }
        });
        m.tally.add_game(facts, s.mover);
        if let Some(n) = s.next {
            self.next.entry(n).or_default().add_game(facts, 0);
        }
        for (list, sort) in self.lists.iter_mut().zip(LIST_ORDERS) {
            rank_into(list, sort, (*facts, id, s.ply));
        }
        new && s.code != NO_MOVE
    }

    pub fn merge(&mut self, o: Sums) {
        self.totals.merge(&o.totals);
        for (code, theirs) in o.moves {
            match self.moves.get_mut(&code) {
                Some(m) => {
                    if theirs.first < m.first {
                        (m.first, m.names) = (theirs.first, theirs.names);
                    }
                    m.tally.merge(&theirs.tally);
                }
                None => {
                    self.moves.insert(code, theirs);
                }
            }
        }
        for (k, t) in o.next {
            self.next.entry(k).or_default().merge(&t);
        }
        for ((list, sort), theirs) in self.lists.iter_mut().zip(LIST_ORDERS).zip(o.lists) {
            for item in theirs {
                rank_into(list, sort, item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::GameOutcome;

    use GameFacts as F;

    #[test]
    fn a_tally_sums_what_stats_sum() {
        let games = [
            (
                F::of(GameOutcome::FirstWins, [Some(2400), Some(2300)], Some(1999)),
                0,
            ),
            (F::of(GameOutcome::Draw, [Some(2100), None], Some(1985)), 1),
            (
                F::of(GameOutcome::SecondWins, [Some(2000), Some(2600)], None),
                1,
            ),
            (
                F::of(GameOutcome::Unknown, [Some(2000), Some(2600)], Some(2020)),
                0,
            ),
        ];
        let (mut stats, mut tally, mut halves) =
            (Stats::default(), Tally::default(), Tally::default());
        for (i, (f, mover)) in games.iter().enumerate() {
            stats.add_game(f, *mover);
            tally.add_game(f, *mover);
            if i % 2 == 0 {
                halves.add_game(f, *mover);
            }
        }
        let mut rest = Tally::default();
        for (f, mover) in games.iter().skip(1).step_by(2) {
            rest.add_game(f, *mover);
        }
        halves.merge(&rest);
        assert_eq!(Stats::from(tally), stats);
        assert_eq!(Stats::from(halves), stats);
    }

    #[test]
    fn a_list_keeps_the_first_and_never_more() {
        let mut list = Vec::new();
        for id in (0..3 * LIST_LEN as u32).rev() {
            rank_into(&mut list, ListOrder::Id, (GameFacts::default(), id, 0));
            assert!(list.len() <= LIST_LEN);
        }
        let ids: Vec<u32> = list.iter().map(|l| l.1).collect();
        assert_eq!(ids, (0..LIST_LEN as u32).collect::<Vec<_>>());
        assert_eq!(list.capacity(), LIST_LEN);
    }

    #[test]
    fn names_come_back() {
        let mut m = MoveSum {
            first: 3,
            names: Box::default(),
            tally: Tally::default(),
        };
        assert_eq!(m.names(), (String::new(), String::new()));
        m.set_names(("e7e8q".into(), "exd8=Q+".into()));
        assert_eq!(m.names(), ("e7e8q".to_string(), "exd8=Q+".to_string()));
    }
}
