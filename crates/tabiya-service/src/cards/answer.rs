//! An answer to a card: the move checked (SAN or UCI; any of the card's moves is right),
//! graded, the card rescheduled (`sm2`) and the answer kept in its history, in one
//! transaction.

use serde::{Deserialize, Serialize};
use tabiya_db::CardReview;

use super::add::check;
use super::sm2;
use super::typed::{Mark, read_move};
use super::view::{Card, CardMove, legal, position, uci};
use crate::database::Db;
use crate::error::{Error, Result};

/// What an answer was worth, and where the card stands now.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub id: u32,
    pub correct: bool,
    /// The answer as given.
    pub given: String,
    /// The move it meant.
    pub played: CardMove,
    /// The card's moves (any of them is right).
    pub expected: Vec<CardMove>,
    /// SM-2's quality given to the answer, 0–5.
    pub grade: u8,
    /// A same-day repetition of a card graded below 4: its schedule did not move.
    pub drill: bool,
    /// The card after the answer: its next due date, its note.
    pub card: Card,
}

/// The grade of an answer: the one asked for (it must fit: 3–5 right, 0–2 wrong), else 4
/// for a right move (5 marked `!`, 3 marked `?`) and 1 for a wrong one.
fn grade(correct: bool, mark: Option<Mark>, asked: Option<u8>) -> Result<u8> {
    match asked {
        Some(g) if g > 5 => Err(Error::bad_request(format!("grade {g}: give 0 to 5"))),
        Some(g) if correct && g < 3 => Err(Error::bad_request(format!(
            "grade {g} is for a wrong answer: a right one is graded 3 to 5"
        ))),
        Some(g) if !correct && g > 2 => Err(Error::bad_request(format!(
            "grade {g} is for a right answer: a wrong one is graded 0 to 2"
        ))),
        Some(g) => Ok(g),
        None if !correct => Ok(1),
        None => Ok(match mark {
            Some(Mark::Easy) => 5,
            Some(Mark::Hard) => 3,
            None => 4,
        }),
    }
}

/// Answers card `id` with `given` (SAN or UCI, optionally marked `!` or `?`) at `now`. A
/// text that is not a legal move in the card's position is refused (a bad request, nothing
/// recorded).
pub fn answer(db: &Db, id: u32, given: &str, asked: Option<u8>, now: u64) -> Result<Verdict> {
    check(db)?;
    let stored = db.inner()?.card(id)?.ok_or_else(|| {
        Error::not_found(format!(
            "no card {id} in {} (tabiya cards list shows them)",
            db.dir().display()
        ))
    })?;
    let pos = position(&stored.fen)?;
    let (m, mark) = read_move(&pos, given)?;
    let given = given.trim().to_string();
    let mut outcome = None;
    let done = db.inner()?.answer_card(id, |card| -> Result<_> {
        let correct = card.moves.iter().any(|u| legal(&pos, u) == Some(m));
        let q = grade(correct, mark, asked)?;
        let drill = sm2::is_drill(&card.schedule, now);
        let schedule = sm2::answer(&card.schedule, q, now);
        outcome = Some((correct, q, drill));
        let review = CardReview {
            time: now,
            given: given.clone(),
            uci: uci(&pos, m),
            correct,
            grade: q,
            drill,
            interval_days: schedule.interval_days,
            easiness: schedule.easiness,
            due: schedule.due,
        };
        Ok((schedule, review))
    })?;
    let (Some((card, _)), Some((correct, q, drill))) = (done, outcome) else {
        return Err(Error::not_found(format!("no card {id}")));
    };
    let card = Card::from_stored(&card, now)?;
    Ok(Verdict {
        id,
        correct,
        given,
        played: CardMove::of(&pos, m),
        expected: card.moves.clone(),
        grade: q,
        drill,
        card,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_follow_the_answer_and_its_mark() {
        assert_eq!(grade(true, None, None).unwrap(), 4);
        assert_eq!(grade(true, Some(Mark::Easy), None).unwrap(), 5);
        assert_eq!(grade(true, Some(Mark::Hard), None).unwrap(), 3);
        assert_eq!(grade(false, Some(Mark::Easy), None).unwrap(), 1);
        assert_eq!(grade(true, None, Some(5)).unwrap(), 5);
        assert_eq!(grade(false, None, Some(0)).unwrap(), 0);
        for (right, g) in [(true, 2), (false, 3), (true, 6)] {
            assert!(grade(right, None, Some(g)).is_err(), "{right} {g}");
        }
    }
}
