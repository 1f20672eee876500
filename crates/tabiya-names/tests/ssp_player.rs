//! Scid spelling files, player data: life dates, the `#` comment, `%Bio` and `%Elo` lines.
//! Expected values follow Scid's sources (`spellchk.h`, `spellchk.cpp`, `tkscid.cpp`).

mod common;

use common::{PLAYERS, corrected, load};
use tabiya_names::ssp::{Correction, PartialDate, PersonId, Section};

#[test]
fn life_dates() {
    let s = load(PLAYERS);
    let p = Section::Player;
    let at = |d| s.correct_dated(p, "Fischer, Robert James", d);
    let outside = Correction::OutsideLifetime {
        canonical: "Fischer, Robert J",
        person: PersonId(0),
    };
    assert_eq!(at(None), corrected("Fischer, Robert J", 0));
    assert_eq!(at(Some((0, None, None))), corrected("Fischer, Robert J", 0));
    assert_eq!(at(Some((1940, None, None))), outside);
    // Scid packs unknown parts as 0: "1943.??.??" is before "1943.03.09".
    assert_eq!(at(Some((1943, None, None))), outside);
    assert_eq!(
        at(Some((1943, Some(3), Some(9)))),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        at(Some((1972, Some(7), Some(11)))),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        at(Some((2008, Some(1), Some(17)))),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        at(Some((2008, None, None))),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(at(Some((2008, Some(1), Some(18)))), outside);
    // Death known to the year only: a game of a known month of that year is after it.
    let smith = |d| s.correct_dated(p, "Smith,John", d);
    assert_eq!(smith(Some((1950, None, None))), corrected("Smith, John", 5));
    assert!(matches!(
        smith(Some((1950, Some(5), None))),
        Correction::OutsideLifetime { .. }
    ));
    assert!(matches!(
        smith(Some((1899, None, None))),
        Correction::OutsideLifetime { .. }
    ));
    assert_eq!(smith(Some((1900, None, None))), corrected("Smith, John", 5));
}

#[test]
fn player_data() {
    let s = load(PLAYERS);
    let f = s.person(PersonId(0));
    assert_eq!(f.name, "Fischer, Robert J");
    assert_eq!(f.titles, ["gm"]);
    assert_eq!(f.country, Some("USA"));
    assert_eq!(f.peak_elo, Some(2785));
    assert!(!f.peak_elo_estimated);
    assert_eq!(
        f.birth,
        Some(PartialDate {
            year: 1943,
            month: Some(3),
            day: Some(9)
        })
    );
    assert_eq!(
        f.death,
        Some(PartialDate {
            year: 2008,
            month: Some(1),
            day: Some(17)
        })
    );
    assert_eq!(f.bio, ["World champion 1972-1975", "VIAF 46772260"]);
    assert_eq!(f.flag, None);
    let j = s.person(PersonId(2));
    assert_eq!(j.flag, Some("wi"));
    let smith = s.person(PersonId(5));
    assert_eq!(smith.titles, ["im", "cim"]);
    assert_eq!(smith.countries, ["URS", "RUS"]);
    assert_eq!(smith.country, Some("RUS"));
    assert_eq!(
        (smith.peak_elo, smith.peak_elo_estimated),
        (Some(2480), true)
    );
    assert_eq!(
        smith.birth,
        Some(PartialDate {
            year: 1900,
            month: None,
            day: None
        })
    );
    assert_eq!(
        smith.death,
        Some(PartialDate {
            year: 1950,
            month: None,
            day: None
        })
    );
    let jones = s.person(PersonId(6));
    assert_eq!(
        (jones.titles.clone(), jones.peak_elo, jones.birth),
        (vec!["w"], None, None)
    );
    assert_eq!(s.person_id("Smith, John"), Some(PersonId(5)));
    assert_eq!(s.person_id("Smith,John"), None);
}

#[test]
fn elo_history() {
    let s = load(PLAYERS);
    let smith = PersonId(5);
    // "2000:2300,2310": two periods spread over the year, an unknown month is January.
    assert_eq!(s.elo_at(smith, 2000, None), Some(2300));
    assert_eq!(s.elo_at(smith, 2000, Some(6)), Some(2300));
    assert_eq!(s.elo_at(smith, 2000, Some(7)), Some(2310));
    // "2001:2320,?,2340,2350": quarters; "?" is no rating.
    assert_eq!(s.elo_at(smith, 2001, Some(3)), Some(2320));
    assert_eq!(s.elo_at(smith, 2001, Some(4)), None);
    assert_eq!(s.elo_at(smith, 2001, Some(12)), Some(2350));
    assert_eq!(s.elo_at(smith, 1999, None), None);
    let jones = PersonId(6);
    // 2009 with 5 lists: January, April, then July, September, November.
    let y2009: Vec<Option<u16>> = (1..=12).map(|m| s.elo_at(jones, 2009, Some(m))).collect();
    let e = |v: u16| Some(v);
    assert_eq!(
        y2009,
        [
            e(2401),
            e(2401),
            e(2401),
            e(2402),
            e(2402),
            e(2402),
            e(2403),
            e(2403),
            e(2404),
            e(2404),
            e(2405),
            e(2405)
        ]
    );
    // 2012 with 9 lists: January, March, May, then monthly from July.
    let y2012: Vec<Option<u16>> = (1..=12).map(|m| s.elo_at(jones, 2012, Some(m))).collect();
    assert_eq!(
        y2012,
        [
            e(2501),
            e(2501),
            e(2502),
            e(2502),
            e(2503),
            e(2503),
            e(2504),
            e(2505),
            e(2506),
            e(2507),
            e(2508),
            e(2509)
        ]
    );
    // From 2013 monthly (a second %Elo line continues the history); no entry for April.
    assert_eq!(s.elo_at(jones, 2013, Some(3)), Some(2603));
    assert_eq!(s.elo_at(jones, 2013, Some(4)), None);
    assert_eq!(s.elo_at(PersonId(0), 2000, None), None);
}

#[test]
fn dates_parse_as_scid() {
    assert_eq!(
        PartialDate::parse("1880.??.??"),
        Some(PartialDate {
            year: 1880,
            month: None,
            day: None
        })
    );
    assert_eq!(PartialDate::parse("0000"), None);
    assert_eq!(PartialDate::parse("????"), None);
    assert_eq!(
        PartialDate::parse("1976.13.01"),
        Some(PartialDate {
            year: 1976,
            month: None,
            day: None
        })
    );
    assert_eq!(
        PartialDate::parse("1976.07.23").map(PartialDate::packed),
        Some(1976 << 9 | 7 << 5 | 23)
    );
}
