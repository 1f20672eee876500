//! What the games are, from their facts (nothing decoded): games by year, by result, by
//! time-control class, and the players' ratings in 100-point bins.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::speed::Speed;
use crate::stats::{GameFacts, GameOutcome};

/// Width of a ratings bin.
pub const RATING_BIN: u16 = 100;

/// The games of one year.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct YearGames {
    pub year: u16,
    pub games: u64,
}

/// Games by result (chess: `1-0` is `white`; Othello: a black win is `black`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Results {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Games without a result (`*`).
    pub unknown: u64,
}

/// The players' ratings counted in one bin: `from` to `from + 99`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RatingBin {
    pub from: u16,
    pub ratings: u64,
}

/// Each game's ratings (White's and Black's, each counted), in bins of [`RATING_BIN`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ratings {
    pub bin_width: u16,
    /// The bins holding ratings, lowest first (empty bins are left out).
    pub bins: Vec<RatingBin>,
    /// Ratings counted (a game gives 0, 1 or 2).
    pub ratings: u64,
    pub lowest: Option<u16>,
    pub highest: Option<u16>,
    /// Games with both ratings, with one, with none.
    pub games_both_rated: u64,
    pub games_one_rated: u64,
    pub games_unrated: u64,
}

/// Games of one time-control class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SpeedGames {
    /// Lichess's name: `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical`,
    /// `correspondence`.
    #[serde(deserialize_with = "crate::words::word")]
    pub speed: crate::words::Word,
    pub games: u64,
}

/// Games by time-control class (the `TimeControl` tag, Lichess's rule).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Speeds {
    /// Every class, fastest first.
    pub classes: Vec<SpeedGames>,
    /// Games without a readable `TimeControl`.
    pub unknown: u64,
}

/// Counts games by their facts.
#[derive(Debug, Default)]
pub struct GameCounts {
    /// Whether the first player is Black (Othello).
    black_first: bool,
    pub games: u64,
    years: BTreeMap<u16, u64>,
    pub no_year: u64,
    pub results: Results,
    bins: BTreeMap<u16, u64>,
    rated: [u64; 3],
    lowest: Option<u16>,
    highest: Option<u16>,
    speeds: [u64; 6],
    speed_unknown: u64,
}

impl GameCounts {
    /// Counts for a kind whose first player is White (chess) or Black (Othello).
    pub fn new(black_first: bool) -> GameCounts {
        GameCounts {
            black_first,
            ..GameCounts::default()
        }
    }

    pub fn add(&mut self, f: &GameFacts) {
        self.games += 1;
        match f.year {
            Some(y) => *self.years.entry(y).or_default() += 1,
            None => self.no_year += 1,
        }
        let r = &mut self.results;
        let (first, second) = if self.black_first {
            (&mut r.black, &mut r.white)
        } else {
            (&mut r.white, &mut r.black)
        };
        match f.outcome() {
            GameOutcome::FirstWins => *first += 1,
            GameOutcome::SecondWins => *second += 1,
            GameOutcome::Draw => r.draws += 1,
            GameOutcome::Unknown => r.unknown += 1,
        }
        let mut n = 0;
        for rating in f.ratings.iter().flatten() {
            n += 1;
            *self
                .bins
                .entry(rating / RATING_BIN * RATING_BIN)
                .or_default() += 1;
            self.lowest = Some(self.lowest.map_or(*rating, |l| l.min(*rating)));
            self.highest = Some(self.highest.map_or(*rating, |h| h.max(*rating)));
        }
        self.rated[n] += 1;
        match f.speed {
            Some(s) => {
                let i = Speed::ALL.iter().position(|&x| x == s).unwrap_or(0);
                self.speeds[i] += 1;
            }
            None => self.speed_unknown += 1,
        }
    }

    /// Games by year, oldest first.
    pub fn years(&self) -> Vec<YearGames> {
        self.years
            .iter()
            .map(|(&year, &games)| YearGames { year, games })
            .collect()
    }

    pub fn ratings(&self) -> Ratings {
        Ratings {
            bin_width: RATING_BIN,
            bins: self
                .bins
                .iter()
                .map(|(&from, &ratings)| RatingBin { from, ratings })
                .collect(),
            ratings: self.bins.values().sum(),
            lowest: self.lowest,
            highest: self.highest,
            games_both_rated: self.rated[2],
            games_one_rated: self.rated[1],
            games_unrated: self.rated[0],
        }
    }

    pub fn speeds(&self) -> Speeds {
        Speeds {
            classes: Speed::ALL
                .iter()
                .zip(self.speeds)
                .map(|(s, games)| SpeedGames {
                    speed: s.name(),
                    games,
                })
                .collect(),
            unknown: self.speed_unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_hand() {
        let mut c = GameCounts::new(false);
        c.add(&GameFacts::of(
            GameOutcome::FirstWins,
            [Some(2499), Some(2500)],
            Some(2012),
        ));
        c.add(&GameFacts::of(
            GameOutcome::Draw,
            [Some(2599), None],
            Some(2012),
        ));
        c.add(&GameFacts::of(GameOutcome::Unknown, [None, None], None));
        c.add(&GameFacts {
            speed: Some(Speed::Blitz),
            ..GameFacts::of(
                GameOutcome::SecondWins,
                [Some(1000), Some(2550)],
                Some(1851),
            )
        });
        assert_eq!(c.games, 4);
        assert_eq!(
            c.years(),
            [
                YearGames {
                    year: 1851,
                    games: 1
                },
                YearGames {
                    year: 2012,
                    games: 2
                }
            ]
        );
        assert_eq!(c.no_year, 1);
        assert_eq!(
            c.results,
            Results {
                white: 1,
                draws: 1,
                black: 1,
                unknown: 1
            }
        );
        let r = c.ratings();
        let bins: Vec<(u16, u64)> = r.bins.iter().map(|b| (b.from, b.ratings)).collect();
        assert_eq!(bins, [(1000, 1), (2400, 1), (2500, 3)]);
        assert_eq!(r.ratings, 5);
        assert_eq!((r.lowest, r.highest), (Some(1000), Some(2599)));
        assert_eq!(
            (r.games_both_rated, r.games_one_rated, r.games_unrated),
            (2, 1, 1)
        );
        let s = c.speeds();
        assert_eq!(s.unknown, 3);
        assert_eq!(s.classes.len(), 6);
        assert_eq!(s.classes[2].speed, "blitz");
        assert_eq!(s.classes[2].games, 1);
        // Othello: the first player is Black.
        let mut o = GameCounts::new(true);
        o.add(&GameFacts::of(
            GameOutcome::FirstWins,
            [None, None],
            Some(1981),
        ));
        assert_eq!((o.results.black, o.results.white), (1, 0));
    }
}
