//! The explorer's filters as users give them — a period (`2020`, `2020-05`), a rating range
//! or Lichess's rating groups, time-control classes by Lichess's names, one player by name
//! (either colour, or one) — resolved against a database into the index's filter.

use serde::Serialize;
pub use tabiya_db::Speed;
use tabiya_db::chess::{GameFilter, PlayerFilter};

use crate::error::{Error, Result};

/// A colour a player had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    pub fn from_name(s: &str) -> Result<Colour> {
        match s {
            "white" => Ok(Colour::White),
            "black" => Ok(Colour::Black),
            _ => Err(Error::bad_request(format!(
                "color {s:?}: give white or black"
            ))),
        }
    }
}

/// Which games to count; the default counts every game.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Filter {
    /// First month, `YYYY` or `YYYY-MM` (a year alone: from its first day).
    pub since: Option<String>,
    /// Last month, `YYYY` or `YYYY-MM` (a year alone: to its last day).
    pub until: Option<String>,
    /// Mean rating of the two players, inclusive.
    pub rating_min: Option<u16>,
    pub rating_max: Option<u16>,
    /// Lichess's rating groups by their lower bound (0, 1000, 1200, 1400, 1600, 1800, 2000,
    /// 2200, 2500): the mean rating falls in one of them (2500 and above are one group).
    pub rating_groups: Vec<u16>,
    /// Time-control classes by Lichess's names (`ultraBullet`, `bullet`, `blitz`, `rapid`,
    /// `classical`, `correspondence`).
    pub speeds: Vec<String>,
    /// One player, by name (any case), and the colour they had (either when `None`).
    pub player: Option<String>,
    pub colour: Option<Colour>,
    /// Only a gameset's games (`tabiya gameset`).
    pub gameset: Option<String>,
    /// Only the games meeting these criteria (`docs/gamesets.md`).
    pub criteria: Option<String>,
}

/// Lichess's rating groups' lower bounds.
pub const RATING_GROUPS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The index's filter for a database, its players' names looked up in `snap`: a player
    /// by any spelling, any case, means the player every spelling of theirs names.
    pub(crate) fn resolve(&self, snap: &tabiya_db::Snapshot<'_>) -> Result<GameFilter> {
        let mut f = self.checked()?;
        if let Some(name) = &self.player {
            f.player = Some(PlayerFilter {
                names: crate::entries::player_selector(snap, name)?,
                colour: self.colour.map(|c| match c {
                    Colour::White => 0,
                    Colour::Black => 1,
                }),
            });
        } else if self.colour.is_some() {
            return Err(Error::bad_request("color needs a player"));
        }
        f.games =
            crate::gamesets::selection(snap, self.gameset.as_deref(), self.criteria.as_deref())?;
        Ok(f)
    }

    /// The parts that need no database — the period, the ratings, the speeds — checked and
    /// made the index's filter (no player, every game); the first error found, as
    /// [`Filter::resolve`] would give it.
    pub fn checked(&self) -> Result<GameFilter> {
        let mut f = GameFilter {
            since: self
                .since
                .as_deref()
                .map(|s| month(s, "since", false))
                .transpose()?,
            until: self
                .until
                .as_deref()
                .map(|s| month(s, "until", true))
                .transpose()?,
            ..GameFilter::default()
        };
        if let (Some(a), Some(b)) = (f.since, f.until)
            && a > b
        {
            return Err(Error::bad_request(format!(
                "since ({}) is after until ({})",
                self.since.as_deref().unwrap_or_default(),
                self.until.as_deref().unwrap_or_default()
            )));
        }
        let mut ranges = Vec::new();
        if self.rating_min.is_some() || self.rating_max.is_some() {
            let lo = self.rating_min.unwrap_or(0);
            let hi = self.rating_max.unwrap_or(u16::MAX);
            if lo > hi {
                return Err(Error::bad_request(format!(
                    "ratingMin ({lo}) is above ratingMax ({hi})"
                )));
            }
            ranges.push(lo..=hi);
        }
        for &g in &self.rating_groups {
            let i = RATING_GROUPS
                .iter()
                .rposition(|&b| b <= g)
                .expect("0 is a group");
            let hi = RATING_GROUPS.get(i + 1).map_or(u16::MAX, |n| n - 1);
            ranges.push(RATING_GROUPS[i]..=hi);
        }
        if !ranges.is_empty() {
            f.ratings = Some(ranges);
        }
        if !self.speeds.is_empty() {
            let mut speeds = Vec::new();
            for s in &self.speeds {
                speeds.push(Speed::from_name(s).ok_or_else(|| {
                    Error::bad_request(format!(
                        "speed {s:?}: give ultraBullet, bullet, blitz, rapid, classical or correspondence"
                    ))
                })?);
            }
            f.speeds = Some(speeds);
        }
        Ok(f)
    }
}

/// `YYYY` or `YYYY-MM` as `yyyymm` (a year alone: month 0 as a start, 12 as an end).
fn month(s: &str, what: &str, end: bool) -> Result<u32> {
    let bad = || {
        Error::bad_request(format!(
            "{what} {s:?}: give a year (2020) or a month (2020-05)"
        ))
    };
    let (y, m) = match s.split_once('-') {
        Some((y, m)) => (y, Some(m)),
        None => (s, None),
    };
    let y: u32 = y
        .parse()
        .ok()
        .filter(|y| (1..=9999).contains(y))
        .ok_or_else(bad)?;
    let m: u32 = match m {
        Some(m) => m
            .parse()
            .ok()
            .filter(|m| (1..=12).contains(m))
            .ok_or_else(bad)?,
        None if end => 12,
        None => 0,
    };
    Ok(y * 100 + m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_and_groups() {
        assert_eq!(month("2020", "since", false).unwrap(), 202000);
        assert_eq!(month("2020", "until", true).unwrap(), 202012);
        assert_eq!(month("2020-05", "since", false).unwrap(), 202005);
        for bad in ["20x0", "2020-13", "2020-0", "0", "-5", ""] {
            assert!(month(bad, "since", false).is_err(), "{bad}");
        }
    }
}
