//! A flashcard and one answer to it, as stored: their fields and their bytes.
//!
//! The scheduling state is kept as the scheduler left it; this file does not know how it
//! is computed (`tabiya-service`'s `cards::sm2` does).

use crate::codec::{Reader, put_str, put_varint};
use crate::{Error, Result};

/// Layout version of a stored card and of a stored answer.
const VERSION: u8 = 1;

/// Where a card stands in its repetitions: SuperMemo's SM-2 state and a few counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Correct answers in a row since the last lapse (SM-2's repetition number `n`).
    pub repetitions: u32,
    /// The E-Factor in hundredths (250 is 2.5).
    pub easiness: u32,
    /// The last interval given, in days (0 before the first answer).
    pub interval_days: u32,
    /// When the card is due, seconds since 1970 (UTC).
    pub due: u64,
    /// The last answer was graded below 4: the card is asked again the same day until it
    /// scores 4 or more (SM-2's step 7), without moving its schedule.
    pub again: bool,
    /// Answers recorded (the history's length); kept by the database.
    pub reviews: u32,
    /// Wrong answers at a scheduled review.
    pub lapses: u32,
    /// The last answer's time, seconds since 1970.
    pub last_review: Option<u64>,
}

/// A flashcard: a chess position and the move(s) to know there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCard {
    pub id: u32,
    /// The position's key (`chess::position_key`): any move order finds the card.
    pub key: u128,
    /// The position shown (en passant only when a capture is legal).
    pub fen: String,
    /// White is to move.
    pub white: bool,
    /// The moves to know, UCI, in the order they were added.
    pub moves: Vec<String>,
    pub note: Option<String>,
    /// The moves (UCI) from the standard start that first reached the position, when known.
    pub line: Vec<String>,
    /// What made it: `hand`, `line`, `book NAME`, `database`.
    pub source: String,
    /// When it was made, seconds since 1970.
    pub created: u64,
    pub schedule: Schedule,
}

/// One answer to a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// Seconds since 1970.
    pub time: u64,
    /// The answer as given (`Nf3`, `g1f3`, `Nf3!`).
    pub given: String,
    /// The move it meant, UCI.
    pub uci: String,
    pub correct: bool,
    /// SM-2's quality of the answer, 0–5.
    pub grade: u8,
    /// A same-day repetition of a card graded below 4 (its schedule did not move).
    pub drill: bool,
    /// The schedule after the answer: interval (days), E-Factor (hundredths), due time.
    pub interval_days: u32,
    pub easiness: u32,
    pub due: u64,
}

fn put_list(out: &mut Vec<u8>, items: &[String]) {
    put_varint(out, items.len() as u64);
    for s in items {
        put_str(out, s);
    }
}

fn list(r: &mut Reader<'_>, what: &'static str) -> Result<Vec<String>> {
    let n = r.varint(what)?;
    if n > 4096 {
        return Err(r.bad(what).into());
    }
    (0..n).map(|_| Ok(r.str(what)?.to_string())).collect()
}

fn version(r: &mut Reader<'_>, what: &str) -> Result<()> {
    let v = r.u8("card version")?;
    if v != VERSION {
        return Err(Error::Corrupt(format!(
            "{what} of layout {v} (this Tabiya knows {VERSION})"
        )));
    }
    Ok(())
}

impl StoredCard {
    /// The stored bytes (the id and key are the tables' keys, not repeated here).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![
            VERSION,
            u8::from(self.white) | u8::from(self.note.is_some()) << 1,
        ];
        put_str(&mut out, &self.fen);
        put_list(&mut out, &self.moves);
        if let Some(n) = &self.note {
            put_str(&mut out, n);
        }
        put_list(&mut out, &self.line);
        put_str(&mut out, &self.source);
        put_varint(&mut out, self.created);
        let s = &self.schedule;
        put_varint(&mut out, s.repetitions.into());
        put_varint(&mut out, s.easiness.into());
        put_varint(&mut out, s.interval_days.into());
        put_varint(&mut out, s.due);
        out.push(u8::from(s.again) | u8::from(s.last_review.is_some()) << 1);
        put_varint(&mut out, s.reviews.into());
        put_varint(&mut out, s.lapses.into());
        if let Some(t) = s.last_review {
            put_varint(&mut out, t);
        }
        out
    }

    pub fn decode(id: u32, key: u128, data: &[u8]) -> Result<StoredCard> {
        let mut r = Reader::new(data);
        version(&mut r, "a card")?;
        let flags = r.u8("card flags")?;
        let fen = r.str("card FEN")?.to_string();
        let moves = list(&mut r, "card moves")?;
        let note = if flags & 2 != 0 {
            Some(r.str("card note")?.to_string())
        } else {
            None
        };
        let line = list(&mut r, "card line")?;
        let source = r.str("card source")?.to_string();
        let created = r.varint("card date")?;
        let repetitions = r.varint_u32("card repetitions")?;
        let easiness = r.varint_u32("card easiness")?;
        let interval_days = r.varint_u32("card interval")?;
        let due = r.varint("card due date")?;
        let sflags = r.u8("card schedule flags")?;
        let reviews = r.varint_u32("card reviews")?;
        let lapses = r.varint_u32("card lapses")?;
        let last_review = if sflags & 2 != 0 {
            Some(r.varint("card last review")?)
        } else {
            None
        };
        Ok(StoredCard {
            id,
            key,
            fen,
            white: flags & 1 != 0,
            moves,
            note,
            line,
            source,
            created,
            schedule: Schedule {
                repetitions,
                easiness,
                interval_days,
                due,
                again: sflags & 1 != 0,
                reviews,
                lapses,
                last_review,
            },
        })
    }
}

impl Review {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![
            VERSION,
            u8::from(self.correct) | u8::from(self.drill) << 1,
            self.grade,
        ];
        put_varint(&mut out, self.time);
        put_str(&mut out, &self.given);
        put_str(&mut out, &self.uci);
        put_varint(&mut out, self.interval_days.into());
        put_varint(&mut out, self.easiness.into());
        put_varint(&mut out, self.due);
        out
    }

    pub fn decode(data: &[u8]) -> Result<Review> {
        let mut r = Reader::new(data);
        version(&mut r, "an answer to a card")?;
        let flags = r.u8("answer flags")?;
        let grade = r.u8("answer grade")?;
        if grade > 5 {
            return Err(r.bad("answer grade").into());
        }
        Ok(Review {
            time: r.varint("answer time")?,
            given: r.str("answer")?.to_string(),
            uci: r.str("answer move")?.to_string(),
            correct: flags & 1 != 0,
            grade,
            drill: flags & 2 != 0,
            interval_days: r.varint_u32("answer interval")?,
            easiness: r.varint_u32("answer easiness")?,
            due: r.varint("answer due date")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(note: Option<&str>, last: Option<u64>) -> StoredCard {
        StoredCard {
            id: 7,
            key: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            fen: "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".into(),
            white: true,
            moves: vec!["g1f3".into(), "b1c3".into()],
            note: note.map(String::from),
            line: vec!["e2e4".into(), "c7c5".into()],
            source: "book gm2001.bin".into(),
            created: 1_780_000_000,
            schedule: Schedule {
                repetitions: 3,
                easiness: 246,
                interval_days: 96,
                due: 1_790_000_000,
                again: true,
                reviews: 12,
                lapses: 2,
                last_review: last,
            },
        }
    }

    #[test]
    fn cards_and_answers_read_back_as_written() {
        for c in [
            card(None, None),
            card(Some("Open Sicilian: *d4* next."), Some(1_781_000_000)),
        ] {
            assert_eq!(StoredCard::decode(c.id, c.key, &c.encode()).unwrap(), c);
        }
        let r = Review {
            time: 1_781_000_000,
            given: "Nf3!".into(),
            uci: "g1f3".into(),
            correct: true,
            grade: 5,
            drill: false,
            interval_days: 39,
            easiness: 260,
            due: 1_784_369_600,
        };
        assert_eq!(Review::decode(&r.encode()).unwrap(), r);
    }

    #[test]
    fn damaged_cards_are_errors_not_panics() {
        let bytes = card(Some("x"), Some(5)).encode();
        for n in 0..bytes.len() {
            assert!(StoredCard::decode(1, 1, &bytes[..n]).is_err(), "{n}");
        }
        let mut other = bytes.clone();
        other[0] = 9;
        assert!(StoredCard::decode(1, 1, &other).is_err());
        let mut answer = Review {
            time: 1,
            given: "e4".into(),
            uci: "e2e4".into(),
            correct: false,
            grade: 1,
            drill: true,
            interval_days: 1,
            easiness: 196,
            due: 86_401,
        }
        .encode();
        answer[2] = 6;
        assert!(Review::decode(&answer).is_err());
    }
}
