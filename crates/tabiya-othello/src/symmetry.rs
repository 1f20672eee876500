//! The 8 symmetries of the board (the dihedral group of the square), the canonical form of a
//! position, and the compact position key.
//!
//! A symmetry is stored as three bits applied in this order: bit 2 = transpose (swap column and
//! row: the a1–h8 diagonal), then bit 1 = mirror columns (a↔h), then bit 0 = flip rows (1↔8).
//!
//! **Canonical form.** Of the 8 images `(s(black), s(white))` of a position (the side to move
//! never changes under a symmetry), the canonical one is the smallest when compared as the pair
//! `(black, white)` of unsigned 64-bit integers, black first. When several symmetries give that
//! same image (a position with symmetries of its own), the one with the lowest index is
//! reported. The key of the canonical image is the [`PositionKey`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::{Board, Color};
use crate::square::Square;

/// One of the 8 symmetries of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(u8)]
pub enum Symmetry {
    /// No change.
    Identity = 0,
    /// Rows reversed (row 1 ↔ row 8): `(c, r) → (c, 7 − r)`.
    FlipRows = 1,
    /// Columns reversed (a ↔ h): `(c, r) → (7 − c, r)`.
    MirrorColumns = 2,
    /// Half turn: `(c, r) → (7 − c, 7 − r)`.
    Rotate180 = 3,
    /// Reflection in the a1–h8 diagonal: `(c, r) → (r, c)`.
    Transpose = 4,
    /// Quarter turn clockwise (a1 → a8): `(c, r) → (r, 7 − c)`.
    RotateClockwise = 5,
    /// Quarter turn anticlockwise (a1 → h1): `(c, r) → (7 − r, c)`.
    RotateAnticlockwise = 6,
    /// Reflection in the a8–h1 diagonal: `(c, r) → (7 − r, 7 − c)`.
    AntiTranspose = 7,
}

/// All symmetries in index order.
pub const ALL_SYMMETRIES: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::FlipRows,
    Symmetry::MirrorColumns,
    Symmetry::Rotate180,
    Symmetry::Transpose,
    Symmetry::RotateClockwise,
    Symmetry::RotateAnticlockwise,
    Symmetry::AntiTranspose,
];

const fn map_coords(s: u8, column: u8, row: u8) -> (u8, u8) {
    let (mut c, mut r) = if s & 4 != 0 {
        (row, column)
    } else {
        (column, row)
    };
    if s & 2 != 0 {
        c = 7 - c;
    }
    if s & 1 != 0 {
        r = 7 - r;
    }
    (c, r)
}

/// `SQUARE_MAP[s][i]` = the index of the image of square `i` under symmetry `s`.
const SQUARE_MAP: [[u8; 64]; 8] = {
    let mut t = [[0u8; 64]; 8];
    let mut s = 0;
    while s < 8 {
        let mut i = 0;
        while i < 64 {
            let (c, r) = map_coords(s as u8, (i % 8) as u8, (i / 8) as u8);
            t[s][i] = r * 8 + c;
            i += 1;
        }
        s += 1;
    }
    t
};

/// The image of b1 (index 1) identifies a symmetry: b1 lies on no axis of symmetry.
const fn index_of_b1_image(image: u8) -> u8 {
    let mut s = 0;
    while s < 8 {
        if SQUARE_MAP[s][1] == image {
            return s as u8;
        }
        s += 1;
    }
    panic!("not an image of b1")
}

/// `COMPOSE[a][b]` = the symmetry "first a, then b".
const COMPOSE: [[u8; 8]; 8] = {
    let mut t = [[0u8; 8]; 8];
    let mut a = 0;
    while a < 8 {
        let mut b = 0;
        while b < 8 {
            t[a][b] = index_of_b1_image(SQUARE_MAP[b][SQUARE_MAP[a][1] as usize]);
            b += 1;
        }
        a += 1;
    }
    t
};

const fn mirror_columns(x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let x = ((x >> 1) & K1) | ((x & K1) << 1);
    let x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

const fn transpose(x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut x = x;
    let t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = K1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

impl Symmetry {
    /// The symmetry with this index (0–7), or `None`.
    pub const fn from_index(index: u8) -> Option<Symmetry> {
        if index < 8 {
            Some(ALL_SYMMETRIES[index as usize])
        } else {
            None
        }
    }

    /// The index 0–7 (bit 2 transpose, bit 1 mirror columns, bit 0 flip rows).
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Applies the symmetry to a bitboard.
    pub const fn apply_bits(self, bits: u64) -> u64 {
        let s = self as u8;
        let mut x = bits;
        if s & 4 != 0 {
            x = transpose(x);
        }
        if s & 2 != 0 {
            x = mirror_columns(x);
        }
        if s & 1 != 0 {
            x = x.swap_bytes();
        }
        x
    }

    /// Applies the symmetry to a square.
    pub const fn apply_square(self, square: Square) -> Square {
        match Square::new(SQUARE_MAP[self as usize][square.index() as usize]) {
            Some(sq) => sq,
            None => panic!("symmetry tables map squares to squares"),
        }
    }

    /// Applies the symmetry to a board (the side to move is unchanged).
    pub fn apply_board(self, board: &Board) -> Board {
        Board::new(
            self.apply_bits(board.black()),
            self.apply_bits(board.white()),
            board.side(),
        )
        .expect("a symmetry is a bijection of squares")
    }

    /// The symmetry "first `self`, then `next`".
    pub const fn then(self, next: Symmetry) -> Symmetry {
        ALL_SYMMETRIES[COMPOSE[self as usize][next as usize] as usize]
    }

    /// The inverse symmetry (`s.then(s.inverse())` is the identity).
    pub const fn inverse(self) -> Symmetry {
        let mut t = 0;
        while t < 8 {
            if COMPOSE[self as usize][t] == 0 {
                return ALL_SYMMETRIES[t];
            }
            t += 1;
        }
        panic!("every symmetry has an inverse")
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Symmetry::Identity => "identity",
            Symmetry::FlipRows => "flip-rows",
            Symmetry::MirrorColumns => "mirror-columns",
            Symmetry::Rotate180 => "rotate-180",
            Symmetry::Transpose => "transpose",
            Symmetry::RotateClockwise => "rotate-clockwise",
            Symmetry::RotateAnticlockwise => "rotate-anticlockwise",
            Symmetry::AntiTranspose => "anti-transpose",
        })
    }
}

/// The bit of d4 (index 27), the square whose white bit carries the side to move in a
/// [`PositionKey`].
pub const SIDE_BIT: u64 = 1 << 27;

/// A 128-bit position key for a database index: the black bitboard in the high 64 bits and the
/// white bitboard in the low 64 bits — except bit 27 (d4) of the low half, which holds the side
/// to move (1 = white to move) instead of "white disc on d4".
///
/// d4 is a centre square: it is occupied in the start position and in every position reachable
/// from it, so whether white has a disc there follows from the black half (occupied and not
/// black). The key is therefore exact (injective) on all positions with d4 occupied. Positions
/// with d4 empty cannot arise in a game from the standard start; their keys read back with a
/// white disc on d4.
///
/// Keys compare like the canonical-form order: black first, then white.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PositionKey(pub u128);

impl PositionKey {
    /// The key of a board as it stands (no symmetry applied; see [`canonicalize`] for the
    /// canonical key).
    pub const fn of_board(board: &Board) -> PositionKey {
        let side = match board.side() {
            Color::Black => 0,
            Color::White => SIDE_BIT,
        };
        let low = (board.white() & !SIDE_BIT) | side;
        PositionKey(((board.black() as u128) << 64) | low as u128)
    }

    /// The board of a key (exact when d4 was occupied, see the type's documentation).
    pub const fn to_board(self) -> Board {
        let black = (self.0 >> 64) as u64;
        let low = self.0 as u64;
        let side = if low & SIDE_BIT != 0 {
            Color::White
        } else {
            Color::Black
        };
        let white = (low & !SIDE_BIT) | (SIDE_BIT & !black);
        match Board::new(black, white, side) {
            Ok(b) => b,
            Err(_) => panic!("white d4 is set only where black is absent"),
        }
    }

    /// The 16 bytes, big-endian (so byte order equals key order).
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The key from 16 big-endian bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> PositionKey {
        PositionKey(u128::from_be_bytes(bytes))
    }
}

impl fmt::Display for PositionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// A position brought to canonical orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Canonical {
    /// The canonical image of the board.
    pub board: Board,
    /// Its key.
    pub key: PositionKey,
    /// The symmetry that maps the original board to `board` (lowest index among those that do).
    pub symmetry: Symmetry,
    /// Bit `s` is set when symmetry `s` maps `board` to itself (bit 0, the identity, is always
    /// set).
    pub stabilizer: u8,
}

/// Brings a board to its canonical form (see the module documentation for the order used).
pub fn canonicalize(board: &Board) -> Canonical {
    let (b0, w0) = (board.black(), board.white());
    let mut best = (b0, w0);
    let mut best_s = 0u8;
    let mut images = [(0u64, 0u64); 8];
    images[0] = best;
    for s in 1..8u8 {
        let sym = ALL_SYMMETRIES[s as usize];
        let image = (sym.apply_bits(b0), sym.apply_bits(w0));
        images[s as usize] = image;
        if image < best {
            best = image;
            best_s = s;
        }
    }
    // g keeps the canonical board iff "first best_s, then g" maps the original to the same
    // image, which is already in `images`.
    let mut stabilizer = 1u8;
    for g in 1..8usize {
        if images[COMPOSE[best_s as usize][g] as usize] == best {
            stabilizer |= 1 << g;
        }
    }
    let canon = Board::new(best.0, best.1, board.side()).expect("image of a valid board");
    Canonical {
        board: canon,
        key: PositionKey::of_board(&canon),
        symmetry: ALL_SYMMETRIES[best_s as usize],
        stabilizer,
    }
}

impl Canonical {
    /// The canonical code of a move given in the original orientation: the square is mapped by
    /// [`Canonical::symmetry`], and when the canonical board has symmetries of its own, the
    /// smallest square among the images of that square under them is taken, so that equivalent
    /// moves (f5, d3, c4, e6 from the start) share one code.
    pub fn canonical_move(&self, square: Square) -> Square {
        let mapped = self.symmetry.apply_square(square);
        let mut best = mapped;
        for s in 1..8u8 {
            if self.stabilizer & (1 << s) != 0 {
                let img = ALL_SYMMETRIES[s as usize].apply_square(mapped);
                if img < best {
                    best = img;
                }
            }
        }
        best
    }

    /// Maps a square of the canonical orientation back to the original orientation. For a
    /// canonical move code from [`Canonical::canonical_move`], the result is a move equivalent
    /// to the one played (the same one unless the position has symmetries of its own).
    pub fn to_original(&self, square: Square) -> Square {
        self.symmetry.inverse().apply_square(square)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_symmetries_on_squares() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        // By hand: b1 under each symmetry.
        let expected = ["b1", "b8", "g1", "g8", "a2", "a7", "h2", "h7"];
        for (s, want) in ALL_SYMMETRIES.iter().zip(expected) {
            assert_eq!(s.apply_square(sq("b1")).to_string(), want, "{s}");
        }
        assert_eq!(Symmetry::RotateClockwise.apply_square(sq("a1")), sq("a8"));
        assert_eq!(
            Symmetry::RotateAnticlockwise.apply_square(sq("a1")),
            sq("h1")
        );
        assert_eq!(Symmetry::Rotate180.apply_square(sq("c4")), sq("f5"));
        assert_eq!(
            Symmetry::RotateClockwise.inverse(),
            Symmetry::RotateAnticlockwise
        );
    }

    #[test]
    fn bitboard_and_square_maps_agree() {
        for s in ALL_SYMMETRIES {
            for sq in Square::all() {
                assert_eq!(s.apply_bits(sq.bit()), s.apply_square(sq).bit(), "{s} {sq}");
            }
        }
    }

    #[test]
    fn start_position_key() {
        let b = Board::start();
        let k = PositionKey::of_board(&b);
        assert_eq!(k.to_board(), b);
        // Black on e4 (28) and d5 (35); white on e5 (36); the d4 bit says black to move.
        assert_eq!(k.0, ((1u128 << 28 | 1u128 << 35) << 64) | (1u128 << 36));
        let c = canonicalize(&b);
        assert_eq!(
            c.stabilizer.count_ones(),
            4,
            "the start position has 4 symmetries"
        );
        let f5 = c.canonical_move("f5".parse().unwrap());
        for m in ["d3", "c4", "e6"] {
            assert_eq!(c.canonical_move(m.parse().unwrap()), f5);
        }
    }
}
