//! A game's tags as one row: the known tags in their columns, the others in the tags
//! column, so that reading the row back gives the tags PGN export writes, in its order.
//!
//! A tag goes in its column when it is the first of its name and the column's type holds
//! its text exactly (a rating `2706`, a change `+12`, a day `2012.06.20`, a time
//! `11:32:01`); anything else goes in the tags column. Reading puts the columns' tags first,
//! in Lichess's order, then the tags column's; when the game had them in another order, the
//! tags column lists every tag in the game's order, those kept in a column with no value.

use tabiya_pgn::Game;
use tabiya_pgn::model::SEVEN_TAG_ROSTER;

use crate::columns::{COLUMNS, Holds, TAG_ORDER, column_of};
use crate::values::{day_of, rating_of, time_of};

/// A game's tags as a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowTags<'g> {
    /// The value of each known column holding a tag (as [`COLUMNS`] lists them).
    pub columns: [Option<&'g str>; COLUMNS.len()],
    /// The tags column: names and values in order (no value: the tag is in its column).
    pub tags: Vec<(&'g str, Option<&'g str>)>,
}

/// True when `text` is held exactly by a column that holds `holds`.
fn fits(holds: Holds, text: &str) -> bool {
    match holds {
        Holds::Text => true,
        Holds::Rating => rating_of(text, false).is_some(),
        Holds::Diff => rating_of(text, true).is_some(),
        Holds::Day | Holds::Date => day_of(text).is_some(),
        Holds::Time => time_of(text).is_some(),
        Holds::Tags | Holds::Movetext | Holds::Id => false,
    }
}

/// The row of a game's tags (the `Result` column is the game's result, as PGN export
/// writes it). A `Date` that is no whole day (`1990.??.??`, `????.??.??`, `2023.02.30`)
/// leaves its column null and comes first in the tags column, where reading finds it.
pub fn split(game: &Game) -> RowTags<'_> {
    let mut columns: [Option<&str>; COLUMNS.len()] = [None; COLUMNS.len()];
    let mut date_text = None;
    for name in SEVEN_TAG_ROSTER {
        let k = column_of(name).expect("a roster column");
        columns[k] = if name == "Result" {
            Some(game.result_str())
        } else {
            game.tag(name)
        };
        if let Some(v) = columns[k].filter(|v| !fits(COLUMNS[k].1, v)) {
            columns[k] = None;
            date_text = Some((name, Some(v)));
        }
    }
    // The other tags in the game's order: Ok(column) or Err(tag).
    let mut order: Vec<Result<usize, (&str, &str)>> = Vec::new();
    for (name, value) in tabiya_pgn::other_tags(game) {
        let column = column_of(name).filter(|&k| {
            TAG_ORDER.contains(&name) && columns[k].is_none() && fits(COLUMNS[k].1, value)
        });
        match column {
            Some(k) => {
                columns[k] = Some(value);
                order.push(Ok(k));
            }
            None => order.push(Err((name, value))),
        }
    }
    let rank = |k: usize| TAG_ORDER.iter().position(|n| *n == COLUMNS[k].0);
    // Reading gives the columns first, in TAG_ORDER, then the tags column.
    let as_read = order.windows(2).all(|w| match (&w[0], &w[1]) {
        (Ok(a), Ok(b)) => rank(*a) < rank(*b),
        (Ok(_), Err(_)) | (Err(_), Err(_)) => true,
        (Err(_), Ok(_)) => false,
    });
    let tags = date_text
        .into_iter()
        .chain(order.into_iter().filter_map(|o| match o {
            Ok(k) => (!as_read).then_some((COLUMNS[k].0, None)),
            Err((n, v)) => Some((n, Some(v))),
        }))
        .collect();
    RowTags { columns, tags }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(tags: &str) -> Game {
        tabiya_pgn::parse_game(format!("{tags}\n1. e4 e5 1-0\n").as_bytes(), 1).unwrap()
    }

    fn col<'a>(r: &RowTags<'a>, name: &str) -> Option<&'a str> {
        r.columns[column_of(name).unwrap()]
    }

    #[test]
    fn lichess_order_needs_no_placeholders() {
        let g = game(
            "[Event \"Rated Blitz\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1490\"]\n[UTCDate \"2017.04.01\"]\n[UTCTime \"11:32:01\"]\n[WhiteRatingDiff \"+5\"]\n[BlackRatingDiff \"-5\"]\n[ECO \"B30\"]\n[Opening \"Sicilian\"]\n[TimeControl \"300+0\"]\n[Termination \"Normal\"]\n[Annotator \"x\"]",
        );
        let r = split(&g);
        assert_eq!(col(&r, "Event"), Some("Rated Blitz"));
        assert_eq!(col(&r, "Result"), Some("1-0"));
        assert_eq!(col(&r, "Site"), None);
        assert_eq!(col(&r, "WhiteRatingDiff"), Some("+5"));
        assert_eq!(col(&r, "UTCTime"), Some("11:32:01"));
        assert_eq!(r.tags, [("Annotator", Some("x"))]);
    }

    #[test]
    fn odd_values_and_orders_keep_their_place() {
        // A change without its sign and a partial day are text: in the tags column; a tag
        // after them that has a column makes the order explicit.
        let g = game(
            "[WhiteRatingDiff \"5\"]\n[UTCDate \"2017.??.??\"]\n[ECO \"B30\"]\n[WhiteTitle \"GM\"]",
        );
        let r = split(&g);
        assert_eq!(col(&r, "WhiteRatingDiff"), None);
        assert_eq!(col(&r, "ECO"), Some("B30"));
        assert_eq!(
            r.tags,
            [
                ("WhiteRatingDiff", Some("5")),
                ("UTCDate", Some("2017.??.??")),
                ("ECO", None),
                ("WhiteTitle", None),
            ]
        );
    }

    #[test]
    fn a_date_that_is_no_whole_day_is_kept_first_in_the_tags_column() {
        for (text, day) in [
            ("2024.03.17", true),
            ("1990.??.??", false),
            ("????.??.??", false),
            ("2023.02.30", false),
            ("2024.3.17", false),
        ] {
            let g = game(&format!("[Date \"{text}\"]\n[Annotator \"x\"]"));
            let r = split(&g);
            if day {
                assert_eq!(col(&r, "Date"), Some(text));
                assert_eq!(r.tags, [("Annotator", Some("x"))]);
            } else {
                assert_eq!(col(&r, "Date"), None, "{text}");
                assert_eq!(r.tags, [("Date", Some(text)), ("Annotator", Some("x"))]);
            }
        }
        // No Date tag: nothing anywhere.
        let g = game("[Event \"e\"]");
        let r = split(&g);
        assert_eq!((col(&r, "Date"), r.tags.len()), (None, 0));
    }
}
