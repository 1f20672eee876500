//! Typed values as tag text and back: days (`YYYY.MM.DD`), times of day (`HH:MM:SS`),
//! ratings and rating changes. Text goes into a typed column only when writing it back gives
//! the same text, so a round trip never changes a tag.

use std::fmt::Write;

/// Appends the day `days` after 1970-01-01 as `YYYY.MM.DD` (the proleptic Gregorian
/// calendar; years before 1 or after 9999 are written as they come).
pub fn push_day(days: i64, out: &mut String) {
    let (y, m, d) = civil_from_days(days);
    let _ = write!(out, "{y:04}.{m:02}.{d:02}");
}

/// The days after 1970-01-01 of a `YYYY.MM.DD` tag, when it is a real day written exactly so
/// and of a year from 1 on (year 0 is no day Python's `datetime.date`, which pyarrow and
/// pandas give, can hold: such a tag stays text).
pub fn day_of(text: &str) -> Option<i32> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'.' || b[7] != b'.' {
        return None;
    }
    let num = |s: &[u8]| -> Option<i64> {
        s.iter().try_fold(0i64, |a, &c| {
            c.is_ascii_digit().then(|| a * 10 + (c - b'0') as i64)
        })
    };
    let (y, m, d) = (num(&b[..4])?, num(&b[5..7])?, num(&b[8..])?);
    if y < 1 || !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    let days = days_from_civil(y, m, d);
    // A day past its month's end comes back as another day: not this text.
    (civil_from_days(days) == (y, m, d)).then_some(days as i32)
}

/// Appends `secs` seconds after midnight as `HH:MM:SS`.
pub fn push_time(secs: i64, out: &mut String) {
    let s = secs.rem_euclid(86_400);
    let _ = write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

/// The seconds after midnight of an `HH:MM:SS` tag written exactly so.
pub fn time_of(text: &str) -> Option<i32> {
    let b = text.as_bytes();
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let two = |s: &[u8]| -> Option<i32> {
        (s[0].is_ascii_digit() && s[1].is_ascii_digit())
            .then(|| (s[0] - b'0') as i32 * 10 + (s[1] - b'0') as i32)
    };
    let (h, m, s) = (two(&b[..2])?, two(&b[3..5])?, two(&b[6..])?);
    (h < 24 && m < 60 && s < 60).then_some(h * 3600 + m * 60 + s)
}

/// Appends a rating, or a rating change (`diff`: `+5`, `0`, `-3`, as Lichess writes them).
pub fn push_rating(v: i64, diff: bool, out: &mut String) {
    if diff && v > 0 {
        out.push('+');
    }
    let _ = write!(out, "{v}");
}

/// Appends a whole number of any width as [`push_rating`] does (`+` above zero for a
/// change): the number itself, whatever its size.
pub fn push_whole(v: i128, diff: bool, out: &mut String) {
    if diff && v > 0 {
        out.push('+');
    }
    let _ = write!(out, "{v}");
}

/// The value of a rating (or rating change) tag that an `int16` column holds exactly.
pub fn rating_of(text: &str, diff: bool) -> Option<i16> {
    let digits = text.strip_prefix('+').filter(|_| diff).unwrap_or(text);
    let v: i16 = digits.parse().ok()?;
    let mut back = String::new();
    push_rating(v as i64, diff, &mut back);
    (back == text).then_some(v)
}

/// Year, month, day of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Days from 1970-01-01 of a day (month 1-12, any day number).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(days: i64) -> String {
        let mut s = String::new();
        push_day(days, &mut s);
        s
    }

    #[test]
    fn days_both_ways() {
        assert_eq!(day(0), "1970.01.01");
        assert_eq!(day(15_511), "2012.06.20");
        assert_eq!(day(-1), "1969.12.31");
        assert_eq!(day_of("2012.06.20"), Some(15_511));
        assert_eq!(day_of("2000.02.29"), Some(11_016));
        for text in [
            "2012.??.??",
            "2012.6.20",
            "2019.02.29",
            "2012.13.01",
            "2012.06.00",
            "2023.02.30",
            "0000.01.01",
            "????.??.??",
        ] {
            assert_eq!(day_of(text), None, "{text}");
        }
        // Every day from 0001-01-01 on comes back.
        for d in -719_162..80_000 {
            assert_eq!(day_of(&day(d)).map(i64::from), Some(d));
        }
    }

    #[test]
    fn times_and_ratings() {
        let mut s = String::new();
        push_time(11 * 3600 + 32 * 60 + 1, &mut s);
        assert_eq!(s, "11:32:01");
        assert_eq!(time_of("11:32:01"), Some(41_521));
        assert_eq!(time_of("24:00:00"), None);
        assert_eq!(time_of("1:02:03"), None);
        assert_eq!(rating_of("2706", false), Some(2706));
        assert_eq!(rating_of("+12", true), Some(12));
        assert_eq!(rating_of("-7", true), Some(-7));
        assert_eq!(rating_of("0", true), Some(0));
        // Not written back the same: kept as text.
        for (text, diff) in [("12", true), ("+12", false), ("02706", false), ("?", false)] {
            assert_eq!(rating_of(text, diff), None, "{text}");
        }
        assert_eq!(rating_of("40000", false), None);
    }
}
