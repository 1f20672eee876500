//! A pawn structure: a board of pawns only (`8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8`, the
//! Carlsbad structure), matched by a position with exactly these pawns and no other pawn
//! anywhere. Its [`PawnStructure::key`] names it in an index (two bitboards), and
//! [`PawnStructure::of`] gives any board's, so that the structures reached next can be
//! counted.

use shakmaty::{Bitboard, Board, Color, File, Rank, Square};

/// A structure that cannot be read: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pawn structure {text:?}: {why}")]
pub struct PawnsError {
    pub text: String,
    pub why: String,
}

/// The pawns of each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PawnStructure {
    pub white: Bitboard,
    pub black: Bitboard,
}

impl PawnStructure {
    /// Reads a board of pawns only (`P`, `p`, digits; ranks 8 to 1 separated by `/`).
    pub fn parse(text: &str) -> Result<PawnStructure, PawnsError> {
        let err = |why: String| PawnsError {
            text: text.to_string(),
            why,
        };
        let board = text.trim();
        if board.contains(char::is_whitespace) {
            return Err(err(
                "a pawn structure is a board only (ranks 8 to 1 separated by /), without the side to move".into(),
            ));
        }
        let parts: Vec<&str> = board.split('/').collect();
        if parts.len() != 8 {
            return Err(err(format!(
                "{} part(s): a pawn structure has 8, ranks 8 to 1 separated by /",
                parts.len()
            )));
        }
        let (mut white, mut black) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for (i, part) in parts.iter().enumerate() {
            let rank_no = 8 - i;
            let rank = Rank::new(7 - i as u32);
            let mut file = 0u32;
            for c in part.chars() {
                let at = |file: u32| (file < 8).then(|| Square::from_coords(File::new(file), rank));
                match c {
                    '1'..='8' => file += c.to_digit(10).unwrap_or(0),
                    'P' | 'p' => {
                        let sq = at(file).ok_or_else(|| {
                            err(format!(
                                "rank {rank_no} ({part:?}) covers more than 8 squares"
                            ))
                        })?;
                        if rank_no == 1 || rank_no == 8 {
                            return Err(err(format!(
                                "rank {rank_no} ({part:?}): no pawn stands on the first or last rank"
                            )));
                        }
                        if c == 'P' {
                            white.add(sq);
                        } else {
                            black.add(sq);
                        }
                        file += 1;
                    }
                    x => {
                        return Err(err(format!(
                            "rank {rank_no} ({part:?}): {x:?} is not P, p or a digit 1-8 (a pawn structure holds pawns only; for other pieces use a pattern)"
                        )));
                    }
                }
            }
            if file != 8 {
                return Err(err(format!(
                    "rank {rank_no} ({part:?}) covers {file} squares, not 8"
                )));
            }
        }
        Ok(PawnStructure { white, black })
    }

    /// The pawns of `board`.
    pub fn of(board: &Board) -> PawnStructure {
        PawnStructure {
            white: board.pawns() & board.by_color(Color::White),
            black: board.pawns() & board.by_color(Color::Black),
        }
    }

    /// Whether `board` has exactly these pawns.
    pub fn matches(&self, board: &Board) -> bool {
        PawnStructure::of(board) == *self
    }

    /// The structure with colours swapped (ranks reversed, White's pawns Black's).
    pub fn flipped(&self) -> PawnStructure {
        PawnStructure {
            white: self.black.flip_vertical(),
            black: self.white.flip_vertical(),
        }
    }

    /// The structure as one number: White's pawns in the high half, Black's in the low.
    pub fn key(&self) -> u128 {
        (u128::from(u64::from(self.white)) << 64) | u128::from(u64::from(self.black))
    }

    /// The structure from [`PawnStructure::key`].
    pub fn from_key(key: u128) -> PawnStructure {
        PawnStructure {
            white: Bitboard((key >> 64) as u64),
            black: Bitboard(key as u64),
        }
    }
}

impl std::fmt::Display for PawnStructure {
    /// As a board of pawns (`8/pp3ppp/2p5/…`), what [`PawnStructure::parse`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in (0..8u32).rev() {
            let mut empty = 0;
            for file in 0..8u32 {
                let sq = Square::from_coords(File::new(file), Rank::new(r));
                let c = if self.white.contains(sq) {
                    'P'
                } else if self.black.contains(sq) {
                    'p'
                } else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    write!(f, "{empty}")?;
                    empty = 0;
                }
                write!(f, "{c}")?;
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if r > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().as_setup().board.clone()
    }

    const CARLSBAD: &str = "8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8";

    #[test]
    fn exactly_these_pawns_and_no_other() {
        let s = PawnStructure::parse(CARLSBAD).unwrap();
        // The Queen's Gambit Declined, Exchange Variation, after 1. d4 d5 2. c4 e6 3. Nc3
        // Nf6 4. cxd5 exd5 5. Bg5 c6 6. e3: pieces anywhere, the pawns exactly so.
        let qgd = board("rnbqkb1r/pp3ppp/2p2n2/3p2B1/3P4/2N1P3/PP3PPP/R2QKBNR b KQkq - 0 6");
        assert!(s.matches(&qgd));
        // One pawn more (h-pawn on h6 instead of h7 is another structure).
        let other = board("rnbqkb1r/pp3pp1/2p2n1p/3p2B1/3P4/2N1P3/PP3PPP/R2QKBNR w KQkq - 0 7");
        assert!(!s.matches(&other));
        assert_eq!(s.white.count(), 7);
        assert_eq!(s.black.count(), 7);
        assert_eq!(s.to_string(), CARLSBAD);
        assert_eq!(PawnStructure::of(&qgd), s);
        assert_eq!(PawnStructure::from_key(s.key()), s);
    }

    #[test]
    fn colours_swapped() {
        let s = PawnStructure::parse(CARLSBAD).unwrap();
        let f = s.flipped();
        assert_eq!(f.to_string(), "8/pp3ppp/4p3/3p4/3P4/2P5/PP3PPP/8");
        assert_eq!(f.flipped(), s);
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("8/8/8/8/8/8/8", "7 part(s)"),
            ("8/8/8/8/8/8/8/7", "rank 1 (\"7\") covers 7 squares"),
            ("8/8/8/8/3N4/8/8/8", "'N' is not P, p or a digit"),
            ("P7/8/8/8/8/8/8/8", "first or last rank"),
            ("8/ppppppppp/8/8/8/8/8/8", "more than 8 squares"),
            ("8/8/8/8/8/8/8/8 w", "a board only"),
        ] {
            let e = PawnStructure::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
