//! Dates as Tabiya writes them: UTC, from seconds since 1970; and the clock the flashcards'
//! schedule reads, which tests set.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};

/// The variable that sets the flashcards' clock (for tests: a schedule is checked on fixed
/// days): seconds since 1970, a date `2026-03-01` (midnight UTC) or a time
/// `2026-03-01T10:30:00Z`.
pub const NOW_VAR: &str = "TABIYA_NOW";

/// Now for the flashcards' schedule: `TABIYA_NOW` when set (see [`NOW_VAR`]), else the
/// system's clock.
pub fn clock() -> Result<u64> {
    match std::env::var(NOW_VAR) {
        Ok(v) => parse_time(&v).ok_or_else(|| {
            Error::bad_request(format!(
                "{NOW_VAR}={v:?}: give seconds since 1970, a date (2026-03-01) or a time (2026-03-01T10:30:00Z)"
            ))
        }),
        Err(_) => Ok(now_secs()),
    }
}

/// Seconds since 1970 of `1780000000`, `2026-03-01` or `2026-03-01T10:30:00Z` (UTC).
pub fn parse_time(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<u64>() {
        return Some(secs);
    }
    let (date, time) = match t.split_once('T') {
        Some((d, rest)) => (d, Some(rest.strip_suffix('Z').unwrap_or(rest))),
        None => (t, None),
    };
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(y, m, day);
    if civil_from_days(days) != (y, m, day) || days < 0 {
        return None;
    }
    let mut secs = days as u64 * 86_400;
    if let Some(time) = time {
        let parts: Vec<u64> = time
            .split(':')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        let (h, mi, s) = match parts[..] {
            [h, mi] => (h, mi, 0),
            [h, mi, s] => (h, mi, s),
            _ => return None,
        };
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        secs += h * 3600 + mi * 60 + s;
    }
    Some(secs)
}

/// The day count from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds since 1970 now.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `2026-11-24T08:30:05Z`.
pub fn iso_utc(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_by_hand() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-03-01 is day 11017; 2026-11-24 is day 20781.
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(20_781), (2026, 11, 24));
        assert_eq!(iso_utc(20_781 * 86_400 + 3_723), "2026-11-24T01:02:03Z");
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 11, 24), 20_781);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
    }

    #[test]
    fn times_as_tests_give_them() {
        assert_eq!(parse_time("1780000000"), Some(1_780_000_000));
        assert_eq!(parse_time("2026-11-24"), Some(20_781 * 86_400));
        assert_eq!(
            parse_time("2026-11-24T01:02:03Z"),
            Some(20_781 * 86_400 + 3_723)
        );
        assert_eq!(
            parse_time("2026-11-24T01:02"),
            Some(20_781 * 86_400 + 3_720)
        );
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "2026-11-24T25:00",
            "soon",
            "2026-11",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
