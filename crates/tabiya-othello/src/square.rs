//! Squares of the 8×8 board: names like `f5`, bit indices, WTHOR bytes, move codes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A square of the 8×8 board.
///
/// The index is `8 × row + column` with both counted from 0: `a1` = 0, `h1` = 7, `a8` = 56,
/// `h8` = 63. It is also the bit of the square in a [`crate::Board`] bitboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Square(u8);

/// The move code of a pass in [`Move::code`] (square codes are 0–63).
pub const PASS_CODE: u8 = 64;

impl Square {
    /// The square with this index (0–63), or `None`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `column` (0 = a … 7 = h) and `row` (0 = row 1 … 7 = row 8), or `None`.
    pub const fn from_coords(column: u8, row: u8) -> Option<Square> {
        if column < 8 && row < 8 {
            Some(Square(row * 8 + column))
        } else {
            None
        }
    }

    /// The index 0–63 (`8 × row + column`).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The column, 0 (a) to 7 (h).
    pub const fn column(self) -> u8 {
        self.0 % 8
    }

    /// The row, 0 (row 1) to 7 (row 8).
    pub const fn row(self) -> u8 {
        self.0 / 8
    }

    /// The square's bit in a bitboard.
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The WTHOR byte of the square: column 1–8 + 10 × row 1–8 (`a1` = 11, `h8` = 88).
    pub const fn to_wthor(self) -> u8 {
        (self.column() + 1) + 10 * (self.row() + 1)
    }

    /// The square of a WTHOR move byte, or `None` if the byte names no square (0, 19, 90 …).
    pub const fn from_wthor(byte: u8) -> Option<Square> {
        let column = byte % 10;
        let row = byte / 10;
        if column >= 1 && column <= 8 && row >= 1 && row <= 8 {
            Some(Square((row - 1) * 8 + (column - 1)))
        } else {
            None
        }
    }

    /// Iterates over the squares of a bitboard, lowest index first.
    pub fn iter_bits(bits: u64) -> impl Iterator<Item = Square> {
        let mut rest = bits;
        std::iter::from_fn(move || {
            if rest == 0 {
                None
            } else {
                let index = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                Some(Square(index))
            }
        })
    }

    /// All 64 squares, `a1` first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.column()) as char, self.row() + 1)
    }
}

/// A square name that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a square name (expected a column letter a–h and a row digit 1–8, like f5)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `f5` or `F5`.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let bytes = s.as_bytes();
        if bytes.len() != 2 {
            return Err(ParseSquareError(s.to_string()));
        }
        let column = bytes[0].to_ascii_lowercase().wrapping_sub(b'a');
        let row = bytes[1].wrapping_sub(b'1');
        Square::from_coords(column, row).ok_or_else(|| ParseSquareError(s.to_string()))
    }
}

impl From<Square> for String {
    fn from(sq: Square) -> String {
        sq.to_string()
    }
}

impl TryFrom<String> for Square {
    type Error = ParseSquareError;
    fn try_from(s: String) -> Result<Square, ParseSquareError> {
        s.parse()
    }
}

/// Parses a transcript of concatenated square names (`f5d6c3…`, case-insensitive, spaces
/// allowed between moves).
pub fn parse_transcript(text: &str) -> Result<Vec<Square>, ParseSquareError> {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.len().is_multiple_of(2) {
        return Err(ParseSquareError(text.to_string()));
    }
    compact
        .chunks(2)
        .map(|pair| pair.iter().collect::<String>().parse())
        .collect()
}

/// Writes squares as a transcript: `f5d6c3…` (lowercase column letter, row digit).
pub fn format_transcript(moves: &[Square]) -> String {
    let mut out = String::with_capacity(moves.len() * 2);
    for sq in moves {
        out.push((b'a' + sq.column()) as char);
        out.push((b'1' + sq.row()) as char);
    }
    out
}

/// A move: a disc placed on a square, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A disc placed on this square.
    Play(Square),
    /// The side to move has no legal move and passes.
    Pass,
}

impl Move {
    /// The move code: the square index 0–63, or [`PASS_CODE`] (64) for a pass.
    pub const fn code(self) -> u8 {
        match self {
            Move::Play(sq) => sq.index(),
            Move::Pass => PASS_CODE,
        }
    }

    /// The move of a code from [`Move::code`], or `None` for codes above 64.
    pub const fn from_code(code: u8) -> Option<Move> {
        if code == PASS_CODE {
            Some(Move::Pass)
        } else {
            match Square::new(code) {
                Some(sq) => Some(Move::Play(sq)),
                None => None,
            }
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(sq) => sq.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wthor_bytes_of_corners() {
        // The seed: a1 = 11, h1 = 18, a8 = 81, h8 = 88.
        assert_eq!("a1".parse::<Square>().unwrap().to_wthor(), 11);
        assert_eq!("h1".parse::<Square>().unwrap().to_wthor(), 18);
        assert_eq!("a8".parse::<Square>().unwrap().to_wthor(), 81);
        assert_eq!("h8".parse::<Square>().unwrap().to_wthor(), 88);
        assert_eq!(Square::from_wthor(56).unwrap().to_string(), "f5");
        for bad in [0u8, 10, 19, 20, 89, 90, 99, 255] {
            assert_eq!(Square::from_wthor(bad), None, "{bad}");
        }
        for sq in Square::all() {
            assert_eq!(Square::from_wthor(sq.to_wthor()), Some(sq));
        }
    }

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        let moves = parse_transcript("F5d6 c3").unwrap();
        assert_eq!(format_transcript(&moves), "f5d6c3");
    }

    #[test]
    fn move_codes() {
        assert_eq!(Move::from_code(64), Some(Move::Pass));
        assert_eq!(Move::from_code(65), None);
        for sq in Square::all() {
            assert_eq!(Move::from_code(Move::Play(sq).code()), Some(Move::Play(sq)));
        }
    }
}
