//! What the index needs to know about a chess game: its result, ratings, date and
//! time-control class.

use shakmaty::{Color, KnownOutcome};
use tabiya_pgn::model::{Game, parse_date, parse_elo, year_of};

use crate::speed::Speed;
use crate::stats::{GameFacts, GameOutcome};

/// What the index needs to know about a chess game.
pub fn facts(game: &Game) -> GameFacts {
    facts_from(|name| game.tag(name), game.outcome())
}

/// [`facts`] from a lookup of the game's tags (first occurrence) and its outcome.
pub fn facts_from<'a>(
    tag: impl Fn(&str) -> Option<&'a str>,
    outcome: Option<KnownOutcome>,
) -> GameFacts {
    let date = tag("Date");
    let (y, m, d) = date.map(parse_date).unwrap_or((0, 0, 0));
    let year = year_of(date, tag("EventDate"));
    let y = if y == 0 { year.unwrap_or(0) } else { y };
    GameFacts {
        outcome: Some(index_outcome(outcome)),
        ratings: [
            tag("WhiteElo").and_then(parse_elo),
            tag("BlackElo").and_then(parse_elo),
        ],
        year,
        date: y as u32 * 10000 + m as u32 * 100 + d as u32,
        values: None,
        speed: tag("TimeControl").and_then(Speed::from_time_control),
    }
}

/// A chess game's result as the index counts it.
pub(crate) fn outcome(game: &Game) -> GameOutcome {
    index_outcome(game.outcome())
}

/// [`outcome`] from the game's result.
pub fn index_outcome(outcome: Option<KnownOutcome>) -> GameOutcome {
    match outcome {
        Some(KnownOutcome::Decisive {
            winner: Color::White,
        }) => GameOutcome::FirstWins,
        Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => GameOutcome::SecondWins,
        Some(KnownOutcome::Draw) => GameOutcome::Draw,
        None => GameOutcome::Unknown,
    }
}
