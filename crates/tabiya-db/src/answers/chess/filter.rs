//! Which games of a position to count: the explorer's filters, as the Lichess opening
//! explorer offers them — a period, ratings, time-control classes, one player (either colour,
//! or one). A filter is applied game by game to every game reaching the position (the index
//! lists them), with the facts and players tables: nothing is decoded.

use std::ops::RangeInclusive;

use crate::players::Players;
use crate::speed::Speed;
use crate::stats::GameFacts;

/// A player, by every spelling that means them (and, for a spelling that means them only
/// within a life, the games' dates), playing either colour or one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerFilter {
    /// Spellings (name ids in the player dictionary) and lives.
    pub names: crate::persons::Selector,
    /// `Some(0)`: as White only; `Some(1)`: as Black only; `None`: either.
    pub colour: Option<u8>,
}

/// The games to count. Empty: every game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// First month, `yyyymm` (a game dated with a year alone is taken as month 0 of it, so
    /// it passes `since` only from its year's January onward when `since` is the year's
    /// January or earlier; a game with no year fails any period).
    pub since: Option<u32>,
    /// Last month, `yyyymm`, inclusive.
    pub until: Option<u32>,
    /// Ranges of the mean rating of the two players (any of them; a game without both
    /// ratings fails).
    pub ratings: Option<Vec<RangeInclusive<u16>>>,
    /// Time-control classes (a game of unknown class fails).
    pub speeds: Option<Vec<Speed>>,
    pub player: Option<PlayerFilter>,
    /// Only these games (a gameset's, or those meeting criteria).
    pub games: Option<std::sync::Arc<crate::IdSet>>,
}

impl GameFilter {
    pub fn is_empty(&self) -> bool {
        *self == GameFilter::default()
    }

    /// Whether the players of games are needed to decide.
    pub fn needs_players(&self) -> bool {
        self.player.is_some()
    }

    /// Whether a game of this id is among [`Self::games`] (when given).
    pub fn admits(&self, id: u32) -> bool {
        self.games.as_ref().is_none_or(|g| g.contains(id))
    }

    /// Whether a game with these facts (and players) passes.
    pub fn accepts(&self, f: &GameFacts, players: &Players) -> bool {
        if self.since.is_some() || self.until.is_some() {
            let month = f.date / 100;
            if f.date / 10000 == 0 {
                return false;
            }
            if self.since.is_some_and(|s| month < s) || self.until.is_some_and(|u| month > u) {
                return false;
            }
        }
        if let Some(ranges) = &self.ratings {
            let Some(mean) = f.mean_rating() else {
                return false;
            };
            if !ranges.iter().any(|r| r.contains(&mean)) {
                return false;
            }
        }
        if let Some(speeds) = &self.speeds
            && !f.speed.is_some_and(|s| speeds.contains(&s))
        {
            return false;
        }
        if let Some(p) = &self.player {
            let plays = |side: usize| players[side].is_some_and(|id| p.names.matches(id, f.date));
            let ok = match p.colour {
                Some(0) => plays(0),
                Some(1) => plays(1),
                _ => plays(0) || plays(1),
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(date: u32, ratings: [Option<u16>; 2], speed: Option<Speed>) -> GameFacts {
        GameFacts {
            date,
            year: Some((date / 10000) as u16).filter(|&y| y != 0),
            ratings,
            speed,
            ..GameFacts::default()
        }
    }

    #[test]
    fn each_filter_by_hand() {
        let g = game(20230415, [Some(2400), Some(2500)], Some(Speed::Blitz));
        let none = [None, None];
        assert!(GameFilter::default().accepts(&g, &none));
        let period = |since, until| GameFilter {
            since,
            until,
            ..GameFilter::default()
        };
        assert!(period(Some(202304), Some(202304)).accepts(&g, &none));
        assert!(!period(Some(202305), None).accepts(&g, &none));
        assert!(!period(None, Some(202303)).accepts(&g, &none));
        // A year alone is month 0: in "2023-01 and later"? No; in "2023 and later" (202300).
        let year_only = game(20230000, [None, None], None);
        assert!(!period(Some(202301), None).accepts(&year_only, &none));
        assert!(period(Some(202300), Some(202312)).accepts(&year_only, &none));
        assert!(!period(Some(190001), None).accepts(&game(0, [None, None], None), &none));
        // Mean rating 2450.
        let rated = |r: RangeInclusive<u16>| GameFilter {
            ratings: Some(vec![r]),
            ..GameFilter::default()
        };
        assert!(rated(2450..=2450).accepts(&g, &none));
        assert!(!rated(2451..=3000).accepts(&g, &none));
        assert!(!rated(0..=3000).accepts(&game(20230415, [Some(2400), None], None), &none));
        let fast = GameFilter {
            speeds: Some(vec![Speed::Bullet, Speed::Blitz]),
            ..GameFilter::default()
        };
        assert!(fast.accepts(&g, &none));
        assert!(!fast.accepts(&game(20230415, [None, None], None), &none));
        let who = |colour| GameFilter {
            player: Some(PlayerFilter {
                names: crate::persons::Selector {
                    always: vec![3, 7],
                    dated: Vec::new(),
                },
                colour,
            }),
            ..GameFilter::default()
        };
        let players = [Some(7), Some(9)];
        assert!(who(None).accepts(&g, &players));
        assert!(who(Some(0)).accepts(&g, &players));
        assert!(!who(Some(1)).accepts(&g, &players));
        assert!(!who(None).accepts(&g, &[Some(4), None]));
        // A spelling meaning the player only within a life (1943.03.09–2008.01.17).
        let life = crate::persons::Dated {
            spelling: 9,
            entry: 0,
            born: 1943 << 9 | 3 << 5 | 9,
            died: 2008 << 9 | 1 << 5 | 17,
            outside: 1,
        };
        let lived = |within| GameFilter {
            player: Some(PlayerFilter {
                names: crate::persons::Selector {
                    always: Vec::new(),
                    dated: vec![(life, within)],
                },
                colour: None,
            }),
            ..GameFilter::default()
        };
        let at = |date| game(date, [None, None], None);
        assert!(!lived(true).accepts(&at(20230415), &players));
        assert!(lived(false).accepts(&at(20230415), &players));
        assert!(lived(true).accepts(&at(19720711), &players));
        assert!(!lived(true).accepts(&at(19430308), &players));
        assert!(lived(true).accepts(&at(19430309), &players));
        assert!(
            lived(true).accepts(&at(0), &players),
            "an undated game is not outside"
        );
    }
}
