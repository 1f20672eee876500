//! A card as answers show it (the JSON of `tabiya cards … --json` and `/api/cards`): its
//! moves in UCI and SAN, the line that reached it, its schedule in dates.

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position as _};
use tabiya_db::{CardReview, StoredCard};

use crate::error::{Error, Result};
use crate::time::iso_utc;

/// The side a card is for: the side to move in its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// `white`/`w` or `black`/`b`, any case.
    pub fn from_name(name: &str) -> Result<Side> {
        match name.trim().to_ascii_lowercase().as_str() {
            "white" | "w" => Ok(Side::White),
            "black" | "b" => Ok(Side::Black),
            _ => Err(Error::bad_request(format!(
                "side {name:?}: give white or black"
            ))),
        }
    }

    pub fn of(pos: &Chess) -> Side {
        if pos.turn().is_white() {
            Side::White
        } else {
            Side::Black
        }
    }

    pub fn is_white(self) -> bool {
        self == Side::White
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

/// A move, in UCI and SAN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardMove {
    pub uci: String,
    pub san: String,
}

impl CardMove {
    pub fn of(pos: &Chess, m: Move) -> CardMove {
        CardMove {
            uci: uci(pos, m),
            san: SanPlus::from_move(pos.clone(), m).to_string(),
        }
    }
}

/// A move as cards keep it: UCI, castling as the king's two-square move in standard
/// positions (`e1g1`), king takes rook where castling rights need Chess960's notation.
pub fn uci(pos: &Chess, m: Move) -> String {
    let mode = pos.castles().mode();
    UciMove::from_move(m, mode).to_string()
}

/// A stored FEN as a position (an error says the card is damaged).
pub fn position(fen: &str) -> Result<Chess> {
    let f = Fen::from_ascii(fen.as_bytes()).map_err(|e| {
        Error::new(
            crate::ErrorKind::Damaged,
            format!("a card's FEN {fen:?}: {e}"),
        )
    })?;
    let mode = CastlingMode::detect(f.as_setup());
    f.into_position(mode).map_err(|e| {
        Error::new(
            crate::ErrorKind::Damaged,
            format!("a card's FEN {fen:?}: {e}"),
        )
    })
}

/// A stored UCI move in a position, if it is legal there.
pub fn legal(pos: &Chess, text: &str) -> Option<Move> {
    text.parse::<UciMove>().ok()?.to_move(pos).ok()
}

/// Where a card stands in its repetitions (see `sm2`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleView {
    /// Right answers in a row since the last lapse.
    pub repetitions: u32,
    /// SM-2's E-Factor.
    pub easiness: f64,
    /// The interval the last answer gave, in days (0: never answered).
    pub interval_days: u32,
    /// Asked again today: its last answer was graded below 4.
    pub again: bool,
    /// Answers given (drills included).
    pub reviews: u32,
    /// Wrong answers when the card was due.
    pub lapses: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_review: Option<String>,
}

/// One answer to a card.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    pub time: String,
    /// As the player gave it.
    pub given: String,
    /// The move it meant (UCI).
    pub uci: String,
    pub correct: bool,
    /// SM-2's quality, 0–5.
    pub grade: u8,
    /// A same-day repetition: the schedule did not move.
    pub drill: bool,
    pub interval_days: u32,
    pub due: String,
}

/// A flashcard.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    pub id: u32,
    pub fen: String,
    /// The side to move: the side the card trains.
    pub side: Side,
    /// The moves to know.
    pub moves: Vec<CardMove>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The moves (UCI) from the standard start that first reached the position (empty when
    /// it was given by FEN), and the same as movetext (`1. e4 c5 2. Nf3`).
    pub line: Vec<String>,
    pub line_text: String,
    /// What made it: `hand`, `line`, `book FILE`, `database`.
    pub source: String,
    pub created: String,
    /// When it is due (UTC).
    pub due: String,
    /// Whether it is due now (or asked again today).
    pub is_due: bool,
    pub schedule: ScheduleView,
    /// Its answers, oldest first (`show` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<ReviewView>,
}

/// Movetext of UCI moves from the standard start (as far as they are legal).
pub fn line_text(line: &[String]) -> String {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for (i, text) in line.iter().enumerate() {
        let Some(m) = legal(&pos, text) else { break };
        let san = SanPlus::from_move(pos.clone(), m).to_string();
        out.push(if i % 2 == 0 {
            format!("{}. {san}", i / 2 + 1)
        } else {
            san
        });
        pos.play_unchecked(m);
    }
    out.join(" ")
}

/// Whether a card is due at `now`: its day has come, or it is asked again today.
pub fn is_due(c: &StoredCard, now: u64) -> bool {
    c.schedule.due <= now || c.schedule.again
}

impl Card {
    pub fn from_stored(c: &StoredCard, now: u64) -> Result<Card> {
        let pos = position(&c.fen)?;
        let moves = c
            .moves
            .iter()
            .map(|u| match legal(&pos, u) {
                Some(m) => CardMove::of(&pos, m),
                None => CardMove {
                    uci: u.clone(),
                    san: u.clone(),
                },
            })
            .collect();
        let s = &c.schedule;
        Ok(Card {
            id: c.id,
            fen: c.fen.clone(),
            side: Side::of(&pos),
            moves,
            note: c.note.clone(),
            line: c.line.clone(),
            line_text: line_text(&c.line),
            source: c.source.clone(),
            created: iso_utc(c.created),
            due: iso_utc(s.due),
            is_due: is_due(c, now),
            schedule: ScheduleView {
                repetitions: s.repetitions,
                easiness: f64::from(s.easiness) / 100.0,
                interval_days: s.interval_days,
                again: s.again,
                reviews: s.reviews,
                lapses: s.lapses,
                last_review: s.last_review.map(iso_utc),
            },
            history: Vec::new(),
        })
    }
}

impl ReviewView {
    pub fn of(r: &CardReview) -> ReviewView {
        ReviewView {
            time: iso_utc(r.time),
            given: r.given.clone(),
            uci: r.uci.clone(),
            correct: r.correct,
            grade: r.grade,
            drill: r.drill,
            interval_days: r.interval_days,
            due: iso_utc(r.due),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_movetext() {
        let line: Vec<String> = ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(line_text(&line), "1. e4 c5 2. Nf3 d6 3. Bb5+");
        assert_eq!(line_text(&[]), "");
    }

    #[test]
    fn castling_is_kept_as_the_kings_two_squares() {
        let pos = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let m = legal(&pos, "e1h1").unwrap();
        assert_eq!(uci(&pos, m), "e1g1");
        assert_eq!(
            CardMove::of(&pos, legal(&pos, "e1c1").unwrap()).san,
            "O-O-O"
        );
    }
}
