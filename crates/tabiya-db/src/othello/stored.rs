//! The stored form of an Othello game: the WTHOR record's fields, written back byte for byte.

use tabiya_othello::Square;
use tabiya_othello::wthor::GameRecord;

use crate::codec::DecodeError;
use crate::digest::Fnv128;
use crate::stats::{GameFacts, GameOutcome};

const RECORD_FORMAT: u8 = 1;

/// Most moves in a game: 60 squares to fill.
pub(crate) const MAX_MOVES: usize = 60;

/// An Othello game as the database stores it.
///
/// Encoding (format 1): `01`, year (u16 LE), tournament, black, white (WTHOR ids, u16 LE),
/// black's stored score (u8), theoretical score (u8), number of moves (u8), then one byte per
/// move: the square index 0–63 (a1 = 0, h8 = 63). The WTHOR record is these fields with the
/// moves as WTHOR bytes and zeros after the last move, which is how every game Tabiya accepts
/// is written (a record with anything else after its last move is refused at import).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Year of the games of the `.wtb` file (its header).
    pub year: u16,
    /// Tournament id (`.trn` index).
    pub tournament: u16,
    /// Black player id (`.jou` index).
    pub black: u16,
    /// White player id.
    pub white: u16,
    /// Black's stored score (empty squares to the winner; adjudicated when unfinished).
    pub black_score: u8,
    /// Black's theoretical score (perfect play from the header's depth).
    pub theoretical_score: u8,
    /// The moves, passes implicit.
    pub moves: Vec<Square>,
}

impl StoredGame {
    /// Appends the stored form.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(RECORD_FORMAT);
        out.extend_from_slice(&self.year.to_le_bytes());
        out.extend_from_slice(&self.tournament.to_le_bytes());
        out.extend_from_slice(&self.black.to_le_bytes());
        out.extend_from_slice(&self.white.to_le_bytes());
        out.push(self.black_score);
        out.push(self.theoretical_score);
        out.push(self.moves.len() as u8);
        out.extend(self.moves.iter().map(|s| s.index()));
    }

    /// Reads the stored form.
    pub fn decode(data: &[u8]) -> std::result::Result<StoredGame, DecodeError> {
        let err = |what, offset| DecodeError {
            what,
            offset,
            cause: None,
        };
        if data.len() < 12 {
            return Err(err("Othello game record (too short)", data.len()));
        }
        if data[0] != RECORD_FORMAT {
            return Err(err("Othello game record format", 0));
        }
        let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]);
        let n = data[11] as usize;
        if n > MAX_MOVES || data.len() != 12 + n {
            return Err(err("Othello move count", 11));
        }
        let mut moves = Vec::with_capacity(n);
        for (i, &b) in data[12..].iter().enumerate() {
            moves.push(Square::new(b).ok_or(err("Othello move square", 12 + i))?);
        }
        Ok(StoredGame {
            year: u16_at(1),
            tournament: u16_at(3),
            black: u16_at(5),
            white: u16_at(7),
            black_score: data[9],
            theoretical_score: data[10],
            moves,
        })
    }

    /// The WTHOR record (68 bytes when written).
    pub fn to_record(&self) -> GameRecord {
        GameRecord::from_squares(
            self.tournament,
            self.black,
            self.white,
            self.black_score,
            self.theoretical_score,
            &self.moves,
        )
        .expect("at most 60 moves, checked when decoding")
    }

    /// The result from black's stored score.
    pub fn outcome(&self) -> GameOutcome {
        match self.black_score {
            s if s > 32 => GameOutcome::FirstWins,
            32 => GameOutcome::Draw,
            _ => GameOutcome::SecondWins,
        }
    }

    /// What the index counts of the game.
    pub fn facts(&self) -> GameFacts {
        GameFacts {
            speed: None,
            outcome: Some(self.outcome()),
            ratings: [None, None],
            year: Some(self.year),
            date: self.year as u32 * 10000,
            values: Some([self.black_score, self.theoretical_score]),
        }
    }

    /// The duplicate digest: FNV-1a over 128 bits of a tag, the year, the ids, the scores, the
    /// moves, and `copy` — how many identical records came before this one in the same file
    /// (so a file that holds the same game twice keeps both, while importing a file again adds
    /// nothing).
    pub fn digest(&self, copy: u32) -> u128 {
        let mut h = Fnv128::new();
        h.bytes(b"wthor");
        let mut buf = Vec::with_capacity(80);
        self.encode(&mut buf);
        h.bytes(&buf);
        h.bytes(&copy.to_le_bytes());
        h.0
    }
}
