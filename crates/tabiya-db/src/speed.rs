//! A game's time-control class, as the Lichess opening explorer names them, from its
//! `TimeControl` tag (PGN standard, section 9.6): `B+I` (base seconds, increment), `B`
//! (sudden death), `M/S` or `M/S:…` (moves per period, seconds), `*S` (hourglass), `-` (no
//! clock: correspondence, as Lichess writes it), `?` (unknown).
//!
//! The estimated duration of a game is the base time plus 40 increments (Lichess's rule;
//! seconds may have decimals, as TCEC writes them):
//! under 30 s ultra-bullet, under 3 minutes bullet, under 8 blitz, under 25 rapid, else
//! classical. A period of a day or more per move (`1/86400`, Lichess's daily games) is
//! correspondence. A tag that says nothing readable leaves the class unknown.

use serde::Serialize;

/// A time-control class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Speed {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl Speed {
    pub const ALL: [Speed; 6] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The name Lichess gives it (`ultraBullet`, `bullet`, …).
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The class named by Lichess's name.
    pub fn from_name(s: &str) -> Option<Speed> {
        // Any case, `ultra-bullet` and `ultra_bullet` too: what a user types.
        let s: String = s
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .collect();
        Speed::ALL
            .into_iter()
            .find(|sp| sp.name().eq_ignore_ascii_case(&s))
    }

    /// The class of a game whose clock starts at `base` seconds and adds `increment` a move.
    pub fn from_clock(base: f64, increment: f64) -> Speed {
        let estimate = base + 40.0 * increment;
        if estimate < 30.0 {
            Speed::UltraBullet
        } else if estimate < 180.0 {
            Speed::Bullet
        } else if estimate < 480.0 {
            Speed::Blitz
        } else if estimate < 1500.0 {
            Speed::Rapid
        } else {
            Speed::Classical
        }
    }

    /// The class a `TimeControl` tag says (its first period when there are several).
    pub fn from_time_control(tag: &str) -> Option<Speed> {
        let t = tag.trim();
        if t == "-" {
            return Some(Speed::Correspondence);
        }
        let first = t.split(':').next()?;
        if let Some(s) = first.strip_prefix('*') {
            return seconds(s).map(|s| Speed::from_clock(s, 0.0));
        }
        if let Some((moves, secs)) = first.split_once('/') {
            let moves: u64 = moves.parse().ok().filter(|&m| m > 0)?;
            let (secs, inc) = clock(secs)?;
            if secs / moves as f64 >= 86_400.0 {
                return Some(Speed::Correspondence);
            }
            return Some(Speed::from_clock(secs, inc));
        }
        let (base, inc) = clock(first)?;
        Some(Speed::from_clock(base, inc))
    }

    /// The one-byte form in a game's facts (0: unknown).
    pub fn to_byte(s: Option<Speed>) -> u8 {
        s.map_or(0, |s| s as u8 + 1)
    }

    pub fn from_byte(b: u8) -> Option<Speed> {
        Speed::ALL.get((b as usize).checked_sub(1)?).copied()
    }
}

/// `B` or `B+I`, in seconds (decimals allowed: TCEC writes `60+0.1`).
fn clock(s: &str) -> Option<(f64, f64)> {
    match s.split_once('+') {
        Some((b, i)) => Some((seconds(b)?, seconds(i)?)),
        None => Some((seconds(s)?, 0.0)),
    }
}

/// A non-negative number of seconds.
fn seconds(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    (v.is_finite() && v >= 0.0 && s.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lichess's own time controls (its FAQ's examples) and the PGN standard's forms.
    #[test]
    fn time_controls_by_lichess_rules() {
        for (tag, want) in [
            ("15+0", Some(Speed::UltraBullet)),
            ("0+1", Some(Speed::Bullet)), // 40 s estimated
            ("60+0", Some(Speed::Bullet)),
            ("120+1", Some(Speed::Bullet)), // 160 s
            ("180+0", Some(Speed::Blitz)),
            ("180+2", Some(Speed::Blitz)), // 260 s
            ("300+3", Some(Speed::Blitz)), // 420 s
            ("300+5", Some(Speed::Rapid)), // 500 s
            ("600+0", Some(Speed::Rapid)),
            ("900+10", Some(Speed::Rapid)), // 1300 s
            ("1500+0", Some(Speed::Classical)),
            ("1800+20", Some(Speed::Classical)),
            ("40/7200:3600", Some(Speed::Classical)),
            ("40/5400+30:1800+30", Some(Speed::Classical)),
            ("*60", Some(Speed::Bullet)),
            ("60+0.1", Some(Speed::Bullet)), // 64 s
            ("300+0.5", Some(Speed::Blitz)), // 320 s
            ("720+1.2", Some(Speed::Rapid)), // 768 s
            ("40/7200:20/3600:900+30", Some(Speed::Classical)),
            ("-5+0", None),
            ("nan", None),
            ("1/259200", Some(Speed::Correspondence)),
            ("-", Some(Speed::Correspondence)),
            ("?", None),
            ("", None),
            ("blitz", None),
            ("0/60", None),
        ] {
            assert_eq!(Speed::from_time_control(tag), want, "{tag:?}");
        }
        for s in Speed::ALL {
            assert_eq!(Speed::from_byte(Speed::to_byte(Some(s))), Some(s));
            assert_eq!(Speed::from_name(&s.name().to_uppercase()), Some(s));
            assert_eq!(Speed::from_name(s.name()), Some(s));
        }
        assert_eq!(Speed::from_name("Ultra-Bullet"), Some(Speed::UltraBullet));
        assert_eq!(Speed::from_name(" Classical "), Some(Speed::Classical));
        assert_eq!(Speed::from_name("fast"), None);
        assert_eq!(Speed::from_byte(0), None);
    }
}
