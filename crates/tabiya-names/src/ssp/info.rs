//! What a spelling file tells about a player: the `#` comment of the correct name, its `%Bio`
//! lines and its `%Elo` history.

/// A date that may lack its month or day (`1976`, `1880.??.??`, `1943.03.09`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    /// The year (never 0: a year `0000` or `????` is no date).
    pub year: u16,
    /// 1–12 when known.
    pub month: Option<u8>,
    /// 1–31 when known.
    pub day: Option<u8>,
}

impl PartialDate {
    /// Parses `YYYY`, `YYYY.MM` or `YYYY.MM.DD` with `??` for an unknown part. `None` when the
    /// year is missing, `0000`, `????` or above 2047 (Scid's largest year). A month above 12
    /// drops the month and the day, a day above 31 the day, as Scid's `date_EncodeFromString`.
    pub fn parse(s: &str) -> Option<PartialDate> {
        let mut parts = s.split('.');
        let year = leading_number(parts.next()?)?;
        if year == 0 || year > 2047 {
            return None;
        }
        let month = parts
            .next()
            .and_then(leading_number)
            .filter(|m| (1..=12).contains(m));
        let day = month
            .and(parts.next().and_then(leading_number))
            .filter(|d| (1..=31).contains(d));
        Some(PartialDate {
            year: year as u16,
            month: month.map(|m| m as u8),
            day: day.map(|d| d as u8),
        })
    }

    /// Scid's packed date (`year << 9 | month << 5 | day`, unknown parts 0), whose order is the
    /// one Scid compares game dates with life dates in.
    pub fn packed(self) -> u32 {
        pack(self.year, self.month, self.day)
    }
}

pub(crate) fn pack(year: u16, month: Option<u8>, day: Option<u8>) -> u32 {
    u32::from(year) << 9 | u32::from(month.unwrap_or(0)) << 5 | u32::from(day.unwrap_or(0))
}

/// The digits at the start of `s` (after spaces) as a number, `None` without digits.
fn leading_number(s: &str) -> Option<u32> {
    let s = s.trim_start();
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    s[..digits.min(9)].parse().ok()
}

/// A player of the `@PLAYER` section, as its `#` comment, `%Bio` and `%Elo` lines describe it.
///
/// The comment reads `TITLES COUNTRIES [PEAK] BIRTH--DEATH FLAG`, e.g.
/// `Fischer, Robert J #gm  USA [2785] 1943.03.09--2008.01.17`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonInfo<'a> {
    /// The correct name.
    pub name: &'a str,
    /// The titles as written, the first field split on `+` (`gm`, `IM`, `WFM`, `w` for a
    /// woman); `-` (none/unknown) gives an empty list. The file mixes `GM` and `gm`.
    pub titles: Vec<&'a str>,
    /// The countries, earliest first (`URS/RUS` → `URS`, `RUS`).
    pub countries: Vec<&'a str>,
    /// The last country (Scid's `getLastCountry`).
    pub country: Option<&'a str>,
    /// The highest rating, to the nearest 10 points (`[2785]`); `None` for `[....]`.
    pub peak_elo: Option<u16>,
    /// The peak rating is an estimate (`[2480*]`, historical players).
    pub peak_elo_estimated: bool,
    /// Date of birth (`1943.03.09`, `1976`, `1880.??.??`); `None` for `0000`, `????`.
    pub birth: Option<PartialDate>,
    /// Date of death, after `--`.
    pub death: Option<PartialDate>,
    /// The word after the dates: the FIDE rating list's flag (`i` inactive, `w` woman,
    /// `wi` both) in the real file, which Scid ignores.
    pub flag: Option<&'a str>,
    /// The whole comment as written (after `#`, right-trimmed).
    pub comment: &'a str,
    /// The `%Bio` lines, without `%Bio `.
    pub bio: Vec<&'a str>,
}

impl<'a> PersonInfo<'a> {
    pub(crate) fn new(name: &'a str, comment: &'a str, bio: Vec<&'a str>) -> PersonInfo<'a> {
        let mut fields = comment.split_whitespace();
        let titles = match fields.next() {
            Some(t) if !t.starts_with('[') => t
                .split('+')
                .filter(|t| !t.is_empty() && *t != "-")
                .collect(),
            _ => Vec::new(),
        };
        let countries: Vec<&str> = match comment.split_whitespace().nth(1) {
            Some(c) if !c.starts_with('[') => c.split('/').filter(|c| !c.is_empty()).collect(),
            _ => Vec::new(),
        };
        let (mut peak_elo, mut peak_elo_estimated) = (None, false);
        if let Some(open) = comment.find('[') {
            let inside = &comment[open + 1..];
            peak_elo = leading_number(inside)
                .and_then(|e| u16::try_from(e).ok())
                .filter(|&e| e > 0);
            let rest = inside
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_digit());
            peak_elo_estimated = peak_elo.is_some() && rest.starts_with('*');
        }
        let (mut birth, mut death, mut flag) = (None, None, None);
        if let Some(close) = comment.find(']') {
            let mut after = comment[close + 1..].split_whitespace();
            if let Some(dates) = after.next() {
                let (b, d) = match dates.find('-') {
                    Some(i) => (&dates[..i], Some(dates[i..].trim_start_matches('-'))),
                    None => (dates, None),
                };
                birth = PartialDate::parse(b);
                death = d.and_then(PartialDate::parse);
            }
            flag = after.next();
        }
        PersonInfo {
            name,
            titles,
            country: countries.last().copied(),
            countries,
            peak_elo,
            peak_elo_estimated,
            birth,
            death,
            flag,
            comment,
            bio,
        }
    }
}

/// Reads `%Elo` data as Scid's `PlayerElo::AddEloData`: groups `YEAR:R,R,…` separated by
/// spaces, each rating a number or `?` (unknown, kept as 0 to hold its period's place).
/// Reading stops at the first malformed group, keeping what came before it.
pub(crate) fn parse_elo(line: &str, out: &mut Vec<(u16, u16)>) {
    for group in line.split([' ', '\t']).filter(|g| !g.is_empty()) {
        let Some((year, ratings)) = group.split_once(':') else {
            return;
        };
        let Some(year) = year
            .parse::<u16>()
            .ok()
            .filter(|_| year.bytes().all(|b| b.is_ascii_digit()))
        else {
            return;
        };
        for r in ratings.split(',') {
            let elo = match r {
                "?" => 0,
                _ if !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()) => match r.parse() {
                    Ok(e) => e,
                    Err(_) => return,
                },
                _ => return,
            };
            out.push((year, elo));
        }
    }
}

/// The rating for a year and month from a history read by [`parse_elo`], as Scid's
/// `PlayerElo::getElo`: the ratings of a year are its rating periods in order; an unknown
/// month means January. Up to 2012 the year's `n` ratings are spread evenly over the months
/// (index `(month − 1) × n / 12`), except 2009 with 5 ratings (Jan–Jun quarterly, then every
/// two months) and 2012 with 9 ratings (Jan–Jun every two months, then monthly); from 2013
/// ratings are monthly.
pub(crate) fn elo_at(history: &[(u16, u16)], year: u16, month: Option<u8>) -> Option<u16> {
    let first = history.iter().position(|e| e.0 == year)?;
    let n = history[first..].iter().take_while(|e| e.0 == year).count();
    let m = match month {
        Some(m @ 1..=12) => usize::from(m) - 1,
        _ => 0,
    };
    let idx = if year == 2009 && n == 5 {
        if m < 6 { m / 3 } else { (m - 2) / 2 }
    } else if year == 2012 && n == 9 {
        if m < 6 { m / 2 } else { m - 3 }
    } else if year > 2012 {
        if m >= n {
            return None;
        }
        m
    } else {
        m * n / 12
    };
    Some(history[first + idx].1).filter(|&e| e > 0)
}
