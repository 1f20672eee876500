//! The Othello board on bitboards: legal moves, flips, passes, end of game, score.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::square::{Move, Square};

/// A player (disc colour). Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Color {
    /// The other colour.
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// Why a move could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The square already holds a disc.
    #[error("{square} is occupied")]
    Occupied {
        /// The square.
        square: Square,
    },
    /// Placing a disc there flips nothing, for the side to move and (when that side must
    /// pass) for the other side too.
    #[error("{square} flips no disc for {side}")]
    NoFlip {
        /// The square.
        square: Square,
        /// The side that tried to play it.
        side: Color,
    },
    /// A pass was asked for while the side to move has a legal move.
    #[error("{side} cannot pass: it has a legal move")]
    PassNotAllowed {
        /// The side to move.
        side: Color,
    },
    /// The game is over: neither side can move.
    #[error("the game is over")]
    GameOver,
}

/// A board that cannot exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("black and white discs overlap on {0:#018x}")]
pub struct OverlapError(pub u64);

const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Shifts every bit one step in direction `dir` (0 east, 1 west, 2 north, 3 south, 4 north-east,
/// 5 north-west, 6 south-east, 7 south-west), dropping bits that leave the board.
#[inline(always)]
const fn shift(b: u64, dir: usize) -> u64 {
    match dir {
        0 => (b << 1) & NOT_A,
        1 => (b >> 1) & NOT_H,
        2 => b << 8,
        3 => b >> 8,
        4 => (b << 9) & NOT_A,
        5 => (b << 7) & NOT_H,
        6 => (b >> 7) & NOT_A,
        _ => (b >> 9) & NOT_H,
    }
}

/// The squares where `me` may play against `opp` (both bitboards).
pub fn legal_moves_of(me: u64, opp: u64) -> u64 {
    let empty = !(me | opp);
    let mut moves = 0;
    for dir in 0..8 {
        let mut t = shift(me, dir) & opp;
        t |= shift(t, dir) & opp;
        t |= shift(t, dir) & opp;
        t |= shift(t, dir) & opp;
        t |= shift(t, dir) & opp;
        t |= shift(t, dir) & opp;
        moves |= shift(t, dir) & empty;
    }
    moves
}

/// The discs of `opp` flipped when `me` plays on `square` (0 when the move flips nothing;
/// the square itself is not checked for emptiness).
pub fn flips_of(me: u64, opp: u64, square: Square) -> u64 {
    let bit = square.bit();
    let mut flips = 0;
    for dir in 0..8 {
        let mut line = 0;
        let mut x = shift(bit, dir);
        while x & opp != 0 {
            line |= x;
            x = shift(x, dir);
        }
        if x & me != 0 {
            flips |= line;
        }
    }
    flips
}

/// An Othello position: black and white discs as bitboards (bit = [`Square::index`]) and the
/// side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    black: u64,
    white: u64,
    side: Color,
}

impl Default for Board {
    fn default() -> Board {
        Board::start()
    }
}

impl Board {
    /// The start position: white on d4 and e5, black on e4 and d5, black to move.
    pub const fn start() -> Board {
        // d4 = 27, e4 = 28, d5 = 35, e5 = 36
        Board {
            black: (1 << 28) | (1 << 35),
            white: (1 << 27) | (1 << 36),
            side: Color::Black,
        }
    }

    /// A board from bitboards; fails if a square holds both colours.
    pub const fn new(black: u64, white: u64, side: Color) -> Result<Board, OverlapError> {
        if black & white != 0 {
            Err(OverlapError(black & white))
        } else {
            Ok(Board { black, white, side })
        }
    }

    /// Black's discs.
    pub const fn black(&self) -> u64 {
        self.black
    }

    /// White's discs.
    pub const fn white(&self) -> u64 {
        self.white
    }

    /// The side to move.
    pub const fn side(&self) -> Color {
        self.side
    }

    /// The discs of a colour.
    pub const fn discs(&self, color: Color) -> u64 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Empty squares.
    pub const fn empty(&self) -> u64 {
        !(self.black | self.white)
    }

    /// The disc on a square, if any.
    pub const fn at(&self, square: Square) -> Option<Color> {
        if self.black & square.bit() != 0 {
            Some(Color::Black)
        } else if self.white & square.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The same discs with the other side to move.
    pub const fn with_side(&self, side: Color) -> Board {
        Board {
            black: self.black,
            white: self.white,
            side,
        }
    }

    /// The legal moves of the side to move, as a bitboard.
    pub fn legal_moves(&self) -> u64 {
        let (me, opp) = self.me_opp();
        legal_moves_of(me, opp)
    }

    /// The legal moves of a colour, whoever is to move.
    pub fn legal_moves_for(&self, color: Color) -> u64 {
        legal_moves_of(self.discs(color), self.discs(color.other()))
    }

    /// True when `square` is a legal move for the side to move.
    pub fn is_legal(&self, square: Square) -> bool {
        self.legal_moves() & square.bit() != 0
    }

    /// The discs that playing `square` would flip for the side to move (0 if none).
    pub fn flips(&self, square: Square) -> u64 {
        if self.empty() & square.bit() == 0 {
            return 0;
        }
        let (me, opp) = self.me_opp();
        flips_of(me, opp, square)
    }

    /// Plays `square` for the side to move. No implicit pass: see [`Board::play_or_pass`].
    pub fn play(&self, square: Square) -> Result<Board, MoveError> {
        if self.empty() & square.bit() == 0 {
            return Err(MoveError::Occupied { square });
        }
        let (me, opp) = self.me_opp();
        let flips = flips_of(me, opp, square);
        if flips == 0 {
            return Err(MoveError::NoFlip {
                square,
                side: self.side,
            });
        }
        Ok(self.apply(square, flips))
    }

    fn apply(&self, square: Square, flips: u64) -> Board {
        let (me, opp) = self.me_opp();
        let me = me | flips | square.bit();
        let opp = opp & !flips;
        match self.side {
            Color::Black => Board {
                black: me,
                white: opp,
                side: Color::White,
            },
            Color::White => Board {
                black: opp,
                white: me,
                side: Color::Black,
            },
        }
    }

    /// Plays `square` as the next disc of a transcript in which passes are not written
    /// (WTHOR): if the side to move has no legal move, it passes first and the other side plays
    /// `square`. Returns the new board and whether a pass happened.
    pub fn play_or_pass(&self, square: Square) -> Result<(Board, bool), MoveError> {
        if self.empty() & square.bit() == 0 {
            return Err(MoveError::Occupied { square });
        }
        let (me, opp) = self.me_opp();
        let flips = flips_of(me, opp, square);
        if flips != 0 {
            return Ok((self.apply(square, flips), false));
        }
        if legal_moves_of(me, opp) != 0 {
            return Err(MoveError::NoFlip {
                square,
                side: self.side,
            });
        }
        let passed = self.with_side(self.side.other());
        if passed.legal_moves() == 0 {
            return Err(MoveError::GameOver);
        }
        passed.play(square).map(|b| (b, true))
    }

    /// Plays a move; [`Move::Pass`] is allowed only when the side to move has no legal move and
    /// the game is not over.
    pub fn play_move(&self, mv: Move) -> Result<Board, MoveError> {
        match mv {
            Move::Play(sq) => self.play(sq),
            Move::Pass => {
                if self.legal_moves() != 0 {
                    Err(MoveError::PassNotAllowed { side: self.side })
                } else if self.is_game_over() {
                    Err(MoveError::GameOver)
                } else {
                    Ok(self.with_side(self.side.other()))
                }
            }
        }
    }

    /// True when the side to move has no legal move but the other side has one.
    pub fn must_pass(&self) -> bool {
        self.legal_moves() == 0 && self.legal_moves_for(self.side.other()) != 0
    }

    /// True when neither side has a legal move (this includes a full board).
    pub fn is_game_over(&self) -> bool {
        self.legal_moves_for(Color::Black) == 0 && self.legal_moves_for(Color::White) == 0
    }

    /// Number of black and white discs.
    pub const fn count(&self) -> (u8, u8) {
        (self.black.count_ones() as u8, self.white.count_ones() as u8)
    }

    /// Number of discs on the board.
    pub const fn disc_count(&self) -> u8 {
        (self.black | self.white).count_ones() as u8
    }

    /// The final score (black, white) with the empty squares given to the winner, split evenly
    /// on a draw — the WTHOR convention. Meaningful when the game is over.
    pub const fn final_score(&self) -> (u8, u8) {
        let (b, w) = self.count();
        let empty = 64 - b - w;
        if b > w {
            (b + empty, w)
        } else if w > b {
            (b, w + empty)
        } else {
            (b + empty / 2, w + empty - empty / 2)
        }
    }

    /// The side to move's discs and the other side's.
    pub const fn me_opp(&self) -> (u64, u64) {
        match self.side {
            Color::Black => (self.black, self.white),
            Color::White => (self.white, self.black),
        }
    }
}

impl fmt::Display for Board {
    /// Eight lines, row 8 first, `X` black, `O` white, `.` empty, then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..8).rev() {
            for col in 0..8 {
                let sq = Square::from_coords(col, row).expect("in range");
                f.write_str(match self.at(sq) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                })?;
            }
            writeln!(f, " {}", row + 1)?;
        }
        write!(f, "abcdefgh {} to move", self.side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn start_position_moves() {
        let b = Board::start();
        let moves: Vec<String> = Square::iter_bits(b.legal_moves())
            .map(|s| s.to_string())
            .collect();
        // Black's four first moves, by hand: d3, c4, f5, e6.
        assert_eq!(moves, ["d3", "c4", "f5", "e6"]);
        let b = b.play(sq("f5")).unwrap();
        assert_eq!(b.side(), Color::White);
        assert_eq!(b.count(), (4, 1));
        let moves: Vec<String> = Square::iter_bits(b.legal_moves())
            .map(|s| s.to_string())
            .collect();
        // White answers f4 (parallel), f6 (diagonal), d6 (perpendicular).
        assert_eq!(moves, ["f4", "d6", "f6"]);
        assert!(matches!(b.play(sq("a1")), Err(MoveError::NoFlip { .. })));
        assert!(matches!(b.play(sq("d4")), Err(MoveError::Occupied { .. })));
    }

    #[test]
    fn final_score_gives_empties_to_winner() {
        let b = Board::new(0xffff, 0xff_0000, Color::Black).unwrap();
        assert_eq!(b.final_score(), (16 + 40, 8));
        let b = Board::new(0xff, 0xff_0000_0000, Color::Black).unwrap();
        assert_eq!(b.final_score(), (32, 32));
        let b = Board::new(0x1, 0xff00, Color::Black).unwrap();
        assert_eq!(b.final_score(), (1, 63));
    }
}
