//! Statistics of a position or a move: results, ratings, performance, years and (for
//! Othello) disc counts, with a compact encoding and the FIDE performance table.

use crate::codec::{DecodeError, Reader, put_varint};
use crate::speed::Speed;

/// Result of a game from the first player's side (White in chess, Black in Othello).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameOutcome {
    FirstWins,
    Draw,
    SecondWins,
    /// `*`: stored and listed, but not counted in wins, draws or losses.
    Unknown,
}

impl GameOutcome {
    pub fn to_bits(self) -> u8 {
        match self {
            GameOutcome::Unknown => 0,
            GameOutcome::FirstWins => 1,
            GameOutcome::Draw => 2,
            GameOutcome::SecondWins => 3,
        }
    }

    pub fn from_bits(b: u8) -> GameOutcome {
        match b & 3 {
            1 => GameOutcome::FirstWins,
            2 => GameOutcome::Draw,
            3 => GameOutcome::SecondWins,
            _ => GameOutcome::Unknown,
        }
    }

    /// Score ×2 (win 2, draw 1, loss 0) of the given side (0 = first, 1 = second), if known.
    pub fn score2(self, side: u8) -> Option<u64> {
        match (self, side) {
            (GameOutcome::Unknown, _) => None,
            (GameOutcome::Draw, _) => Some(1),
            (GameOutcome::FirstWins, 0) | (GameOutcome::SecondWins, 1) => Some(2),
            _ => Some(0),
        }
    }
}

/// What the index needs to know about a game to count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameFacts {
    pub outcome: Option<GameOutcome>,
    /// Ratings of the first and second player (chess: WhiteElo, BlackElo).
    pub ratings: [Option<u16>; 2],
    pub year: Option<u16>,
    /// Sortable date `yyyymmdd` (unknown parts 0).
    pub date: u32,
    /// Othello: final black discs and theoretical black score.
    pub values: Option<[u8; 2]>,
    /// Chess: the time-control class (`TimeControl` tag).
    pub speed: Option<Speed>,
}

#[cfg(test)]
impl GameFacts {
    /// A game's facts with this result, these ratings and this year (tests).
    pub(crate) fn of(outcome: GameOutcome, ratings: [Option<u16>; 2], year: Option<u16>) -> Self {
        GameFacts {
            outcome: Some(outcome),
            ratings,
            year,
            ..GameFacts::default()
        }
    }
}

impl GameFacts {
    pub fn outcome(&self) -> GameOutcome {
        self.outcome.unwrap_or(GameOutcome::Unknown)
    }

    /// Mean rating of the two players when both are known (for "highest rated" ordering).
    pub fn mean_rating(&self) -> Option<u16> {
        match self.ratings {
            [Some(a), Some(b)] => Some(((a as u32 + b as u32) / 2) as u16),
            _ => None,
        }
    }

    /// What orders the game in a position's lists of best and newest games.
    pub fn rank(&self) -> Rank {
        Rank {
            mean_rating: self.mean_rating(),
            date: self.date,
        }
    }

    /// Fixed 12-byte form for the facts table: outcome/flags, two ratings (0 = unknown),
    /// date `yyyymmdd`, two Othello values, the time-control class (0 = unknown; databases
    /// of format 1 have 0 there). The year is the date's.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let flags = self.outcome().to_bits() | if self.values.is_some() { 4 } else { 0 };
        out.push(flags);
        out.extend_from_slice(&self.ratings[0].unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.ratings[1].unwrap_or(0).to_le_bytes());
        let date = if self.date / 10000 == 0 {
            self.year.unwrap_or(0) as u32 * 10000 + self.date % 10000
        } else {
            self.date
        };
        out.extend_from_slice(&date.to_le_bytes());
        let v = self.values.unwrap_or([0, 0]);
        out.extend_from_slice(&v);
        out.push(Speed::to_byte(self.speed));
    }

    pub fn decode(b: &[u8; Self::ENCODED_LEN]) -> GameFacts {
        let flags = b[0];
        let r = |i: usize| Some(u16::from_le_bytes([b[i], b[i + 1]])).filter(|&v| v != 0);
        let date = u32::from_le_bytes([b[5], b[6], b[7], b[8]]);
        GameFacts {
            outcome: Some(GameOutcome::from_bits(flags)),
            ratings: [r(1), r(3)],
            year: Some((date / 10000) as u16).filter(|&y| y != 0),
            date,
            values: (flags & 4 != 0).then_some([b[9], b[10]]),
            speed: Speed::from_byte(b[11]),
        }
    }

    pub const ENCODED_LEN: usize = 12;
}

/// The facts that order games in a position's lists ("top games": higher mean rating
/// first, then newer; "newest games": by date): 8 bytes a game, where a merge ranking the
/// lists of millions of records keeps every game it meets ([`crate::facts::Ranks`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rank {
    pub mean_rating: Option<u16>,
    /// Sortable date `yyyymmdd` (unknown parts 0).
    pub date: u32,
}

/// Counters of a position or a move. All sums are over the games counted in the matching
/// `*_games` field so averages can be formed after merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    pub first: u64,
    pub draws: u64,
    pub second: u64,
    /// Games with result `*`.
    pub unknown: u64,
    /// Games with both ratings known, and the sum of (rating1 + rating2) over them.
    pub rating_games: u64,
    pub rating_sum: u64,
    /// Games with a result and both ratings known: opponent-rating sum and 2× the mover's
    /// score over them (for performance).
    pub perf_games: u64,
    pub perf_opp_sum: u64,
    pub perf_score2: u64,
    /// Othello: games with values, sum of final black discs, sum of theoretical scores.
    pub value_games: u64,
    pub value_sum: u64,
    pub value2_sum: u64,
    /// First and last year of the games (0 = none known).
    pub min_year: u16,
    pub max_year: u16,
}

/// Widens the span of years `(first, last)` by another span (0: none known), as merging two
/// counts does.
pub(crate) fn merge_years((first, last): (&mut u16, &mut u16), (o_first, o_last): (u16, u16)) {
    if o_first != 0 {
        *first = match *first {
            0 => o_first,
            f => f.min(o_first),
        };
    }
    *last = (*last).max(o_last);
}

impl Stats {
    /// Games counted, results known or not.
    pub fn games(&self) -> u64 {
        self.first + self.draws + self.second + self.unknown
    }

    /// Counts one game where `mover` (0 = first player, 1 = second) is to move.
    pub fn add_game(&mut self, f: &GameFacts, mover: u8) {
        let outcome = f.outcome();
        match outcome {
            GameOutcome::FirstWins => self.first += 1,
            GameOutcome::Draw => self.draws += 1,
            GameOutcome::SecondWins => self.second += 1,
            GameOutcome::Unknown => self.unknown += 1,
        }
        // Ratings of games whose result counts: the average rating and the performance are
        // over the games the white/draws/black figures count (not the `*` ones).
        if let [Some(a), Some(b)] = f.ratings
            && outcome != GameOutcome::Unknown
        {
            self.rating_games += 1;
            self.rating_sum += a as u64 + b as u64;
            if let Some(s2) = outcome.score2(mover) {
                let opp = if mover == 0 { b } else { a };
                self.perf_games += 1;
                self.perf_opp_sum += opp as u64;
                self.perf_score2 += s2;
            }
        }
        if let Some([v1, v2]) = f.values {
            self.value_games += 1;
            self.value_sum += v1 as u64;
            self.value2_sum += v2 as u64;
        }
        if let Some(y) = f.year {
            self.min_year = if self.min_year == 0 {
                y
            } else {
                self.min_year.min(y)
            };
            self.max_year = self.max_year.max(y);
        }
    }

    /// Takes back [`Stats::add_game`] of the same game, but for the years, which only the
    /// remaining games can tell (the caller counts them again when `f`'s year was the first
    /// or the last). Returns false, changing nothing, if these statistics cannot have
    /// counted such a game.
    pub fn remove_game(&mut self, f: &GameFacts, mover: u8) -> bool {
        let mut one = Stats::default();
        one.add_game(f, mover);
        let mine = self.fields();
        let theirs = one.fields();
        // Years (the last two fields) are not sums.
        if (0..Self::FIELDS - 2).any(|i| mine[i] < theirs[i]) {
            return false;
        }
        self.first -= one.first;
        self.draws -= one.draws;
        self.second -= one.second;
        self.unknown -= one.unknown;
        self.rating_games -= one.rating_games;
        self.rating_sum -= one.rating_sum;
        self.perf_games -= one.perf_games;
        self.perf_opp_sum -= one.perf_opp_sum;
        self.perf_score2 -= one.perf_score2;
        self.value_games -= one.value_games;
        self.value_sum -= one.value_sum;
        self.value2_sum -= one.value2_sum;
        if self.games() == 0 {
            self.min_year = 0;
            self.max_year = 0;
        }
        true
    }

    pub fn merge(&mut self, o: &Stats) {
        self.first += o.first;
        self.draws += o.draws;
        self.second += o.second;
        self.unknown += o.unknown;
        self.rating_games += o.rating_games;
        self.rating_sum += o.rating_sum;
        self.perf_games += o.perf_games;
        self.perf_opp_sum += o.perf_opp_sum;
        self.perf_score2 += o.perf_score2;
        self.value_games += o.value_games;
        self.value_sum += o.value_sum;
        self.value2_sum += o.value2_sum;
        merge_years(
            (&mut self.min_year, &mut self.max_year),
            (o.min_year, o.max_year),
        );
    }

    /// floor(mean of (rating1 + rating2) / 2) over games with both ratings.
    pub fn average_rating(&self) -> Option<u32> {
        (self.rating_games > 0).then(|| (self.rating_sum / (2 * self.rating_games)) as u32)
    }

    /// FIDE performance of the mover: mean opponent rating (rounded) + dp(p), p the mover's
    /// score fraction rounded to two decimals, dp from FIDE table 8.1(a) (±800 at 100 %/0 %).
    pub fn performance(&self) -> Option<i32> {
        if self.perf_games == 0 {
            return None;
        }
        let n = self.perf_games;
        let ra = ((2 * self.perf_opp_sum + n) / (2 * n)) as i32;
        // p in hundredths, rounded half up: score2 / (2n) * 100.
        let p = ((self.perf_score2 * 100 + n) / (2 * n)) as usize;
        Some(ra + fide_dp(p))
    }

    const FIELDS: usize = 14;

    fn fields(&self) -> [u64; Self::FIELDS] {
        [
            self.first,
            self.draws,
            self.second,
            self.unknown,
            self.rating_games,
            self.rating_sum,
            self.perf_games,
            self.perf_opp_sum,
            self.perf_score2,
            self.value_games,
            self.value_sum,
            self.value2_sum,
            self.min_year as u64,
            self.max_year as u64,
        ]
    }

    /// Encodes as a 16-bit mask of non-zero fields followed by their varints.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let f = self.fields();
        let mut mask: u16 = 0;
        for (i, v) in f.iter().enumerate() {
            if *v != 0 {
                mask |= 1 << i;
            }
        }
        // Common case: only result counters set fit in one mask byte.
        put_varint(out, mask as u64);
        for v in f.iter().filter(|v| **v != 0) {
            put_varint(out, *v);
        }
    }

    pub fn decode(r: &mut Reader<'_>) -> Result<Stats, DecodeError> {
        let mask = r.varint("stats mask")?;
        if mask >> Self::FIELDS != 0 {
            return Err(DecodeError {
                what: "stats mask",
                offset: r.pos(),
                cause: None,
            });
        }
        let mut f = [0u64; Self::FIELDS];
        for (i, slot) in f.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *slot = r.varint("stats field")?;
            }
        }
        Ok(Stats {
            first: f[0],
            draws: f[1],
            second: f[2],
            unknown: f[3],
            rating_games: f[4],
            rating_sum: f[5],
            perf_games: f[6],
            perf_opp_sum: f[7],
            perf_score2: f[8],
            value_games: f[9],
            value_sum: f[10],
            value2_sum: f[11],
            min_year: f[12].min(u16::MAX as u64) as u16,
            max_year: f[13].min(u16::MAX as u64) as u16,
        })
    }
}

/// FIDE table 8.1(a): rating difference dp for a score p (in hundredths, 50..=100).
const DP: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// dp for p hundredths (0..=100).
pub fn fide_dp(p: usize) -> i32 {
    let p = p.min(100);
    if p >= 50 { DP[p - 50] } else { -DP[50 - p] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fide_table_matches_handbook_values() {
        // Values read from FIDE handbook table 8.1(a).
        assert_eq!(fide_dp(50), 0);
        assert_eq!(fide_dp(99), 677);
        assert_eq!(fide_dp(75), 193);
        assert_eq!(fide_dp(25), -193);
        assert_eq!(fide_dp(83), 273);
        assert_eq!(fide_dp(0), -800);
    }

    #[test]
    fn performance_and_average_by_hand() {
        let mut s = Stats::default();
        // Mover is White (side 0). Game 1: 2700 vs 2500, White wins. Game 2: 2600 vs 2400, draw.
        s.add_game(
            &GameFacts {
                outcome: Some(GameOutcome::FirstWins),
                ratings: [Some(2700), Some(2500)],
                ..Default::default()
            },
            0,
        );
        s.add_game(
            &GameFacts {
                outcome: Some(GameOutcome::Draw),
                ratings: [Some(2600), Some(2401)],
                ..Default::default()
            },
            0,
        );
        // average rating: floor((2700+2500+2600+2401)/4) = floor(2550.25) = 2550
        assert_eq!(s.average_rating(), Some(2550));
        // opponents 2500, 2401 -> mean 2450.5 -> 2451 (half up); score 1.5/2 = 0.75 -> +193
        assert_eq!(s.performance(), Some(2451 + 193));
    }

    #[test]
    fn facts_encoding_round_trips() {
        let f = GameFacts {
            speed: Some(crate::Speed::Rapid),
            outcome: Some(GameOutcome::SecondWins),
            ratings: [None, Some(2100)],
            year: Some(1999),
            date: 19990312,
            values: Some([40, 36]),
        };
        let mut out = Vec::new();
        f.encode(&mut out);
        assert_eq!(out.len(), GameFacts::ENCODED_LEN);
        assert_eq!(GameFacts::decode(out.as_slice().try_into().unwrap()), f);
    }

    #[test]
    fn stats_encoding_round_trips() {
        let s = Stats {
            first: 3,
            second: 1,
            rating_sum: 123456,
            min_year: 1990,
            max_year: 2020,
            ..Default::default()
        };
        let mut out = Vec::new();
        s.encode(&mut out);
        assert_eq!(Stats::decode(&mut Reader::new(&out)).unwrap(), s);
    }
}
