//! B32: a chess position in 32 bytes (seed 003, corrected by the project's format notes).
//!
//! Layout (`docs/formats/b32.md` is the reference):
//!
//! * 64 squares in the order a8, b8, …, h8, a7, …, h1; square *i* is the high nibble of byte
//!   *i / 2* when *i* is even, the low nibble when *i* is odd.
//! * Piece nibbles (the seed's table): white pawn `0001`, king `0010`, knight `0100`, bishop
//!   `0101`, rook `0110`, queen `0111`; black = white + `1000`.
//! * The four other nibbles (`0000`, `0011`, `1000`, `1011`) mark an empty square and carry
//!   one hidden bit: `0000` is 0, the other three are 1 (the seed's rule). Tabiya writes
//!   `1000` for a 1 and accepts all three when reading.
//! * The first 32 empty squares in square order carry a 32-bit word, most significant bit
//!   first: side to move (1 bit, 1 = black), castling rights (4 bits: white O-O, white
//!   O-O-O, black O-O, black O-O-O), en passant (1 presence bit, 3 file bits a = 0 … h = 7),
//!   half-move clock (7 bits), full-move number (16 bits). Empty squares after the 32nd are
//!   `0000`.
//!
//! Castling rights are stored per side (one right per side at most). By default a right
//! refers to the outermost rook of that colour on that side of the king on the back rank
//! (X-FEN's `KQkq`), which covers standard chess and Chess960 starts. A Chess960 game can
//! reach positions where the castling rook is an inner one (another rook has come to stand
//! outside it); B32 then uses the redundancy of the seed's empty-square codes: the nibble
//! carrying a castling bit of 1 is `1000` for the outermost rook, `0011` for the second and
//! `1011` for the third from the outside. A reader that only follows the seed still reads
//! every one of them as 1.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, Color, EnPassantMode, File, Piece, Position, Rank, Role, Setup, Square,
};
use thiserror::Error;

/// Length of a B32 record.
pub const B32_LEN: usize = 32;

/// Largest half-move clock B32 can hold (7 bits).
pub const MAX_HALFMOVES: u32 = 127;
/// Largest full-move number B32 can hold (16 bits).
pub const MAX_FULLMOVES: u32 = 65535;

/// Number of hidden bits (side, castling, en passant, clocks).
const HIDDEN_BITS: usize = 32;

/// Nibble written for an empty square carrying a hidden 1.
const EMPTY_ONE: u8 = 0b1000;

/// Errors of the B32 codec.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum B32Error {
    /// Input of the wrong length.
    #[error("B32 record is {len} bytes long, expected 32 (error at byte offset {offset})")]
    WrongLength { len: usize, offset: usize },
    /// Fewer than 32 empty squares: the hidden state does not fit.
    #[error(
        "B32 board has only {empty} empty squares, 32 are needed for the hidden state \
         (board ends at byte offset 31)"
    )]
    TooFewEmptySquares { empty: usize },
    /// A decoded field has a value no position can have.
    #[error("invalid B32 {field} at byte offset {offset}: {reason}")]
    InvalidField {
        field: &'static str,
        offset: usize,
        reason: String,
    },
    /// The position has more than 32 men.
    #[error("position has {men} men, B32 holds at most 32")]
    TooManyMen { men: usize },
    /// The half-move clock or full-move number is outside B32's range.
    #[error("{field} {value} is out of B32's range (at most {max})")]
    OutOfRange {
        field: &'static str,
        value: u32,
        max: u32,
    },
    /// A castling right, en-passant square or variant state B32 cannot express.
    #[error("not representable in B32: {0}")]
    NotRepresentable(String),
}

/// Square at position `i` of B32's order (a8, b8, …, h8, a7, …, h1).
fn square_at(i: usize) -> Square {
    let file = (i % 8) as u32;
    let rank = 7 - (i / 8) as u32;
    Square::from_coords(File::new(file), Rank::new(rank))
}

fn piece_nibble(piece: Piece) -> u8 {
    let kind = match piece.role {
        Role::Pawn => 0b001,
        Role::King => 0b010,
        Role::Knight => 0b100,
        Role::Bishop => 0b101,
        Role::Rook => 0b110,
        Role::Queen => 0b111,
    };
    match piece.color {
        Color::White => kind,
        Color::Black => 0b1000 | kind,
    }
}

/// Decodes a nibble: `Ok(piece)` or `Err(hidden bit)` for an empty square.
fn nibble_piece(nibble: u8) -> Result<Piece, bool> {
    let color = if nibble & 0b1000 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let role = match nibble & 0b111 {
        0b001 => Role::Pawn,
        0b010 => Role::King,
        0b100 => Role::Knight,
        0b101 => Role::Bishop,
        0b110 => Role::Rook,
        0b111 => Role::Queen,
        // 0000 → 0; 0011, 1000, 1011 → 1.
        _ => return Err(nibble != 0),
    };
    Ok(Piece { color, role })
}

/// Castling rights in B32's bit order: white O-O, white O-O-O, black O-O, black O-O-O.
const CASTLING_ORDER: [(Color, bool); 4] = [
    (Color::White, true),
    (Color::White, false),
    (Color::Black, true),
    (Color::Black, false),
];

/// Rooks of `color` on the given side of its king on the back rank, outermost first.
/// Empty when the king is not (alone) on its back rank.
fn rooks_from_outside(board: &Board, color: Color, king_side: bool) -> Vec<Square> {
    let backrank = color.backrank();
    let Some(king) = board.king_of(color).filter(|k| k.rank() == backrank) else {
        return Vec::new();
    };
    let rooks = board.by_piece(Piece {
        color,
        role: Role::Rook,
    }) & Bitboard::from_rank(backrank);
    if king_side {
        rooks
            .into_iter()
            .rev()
            .filter(|r| r.file() > king.file())
            .collect()
    } else {
        rooks
            .into_iter()
            .filter(|r| r.file() < king.file())
            .collect()
    }
}

/// Nibbles for a hidden 1 on a castling bit, selecting the outermost, second and third rook
/// from the outside. On every other hidden bit a 1 is written `1000`.
const CASTLING_ROOK_NIBBLES: [u8; 3] = [0b1000, 0b0011, 0b1011];

/// Encodes a setup as B32.
///
/// Errors if the setup has more than 32 men, clocks out of range (half-move clock above 127,
/// full-move number above 65535), an en-passant square not on the rank the side to move
/// would capture towards, castling rights B32 cannot name (two on one side of a king, a
/// rook that is not among the three outermost on its side of a king on the back rank, a
/// right without its rook), or variant state (pockets, promoted pieces, remaining checks).
pub fn encode_b32(setup: &Setup) -> Result<[u8; B32_LEN], B32Error> {
    if setup.pockets.is_some() || setup.remaining_checks.is_some() || setup.promoted.any() {
        return Err(B32Error::NotRepresentable(
            "variant state (pockets, promoted pieces or remaining checks)".into(),
        ));
    }
    let men = setup.board.occupied().count();
    if men > 32 {
        return Err(B32Error::TooManyMen { men });
    }
    if setup.halfmoves > MAX_HALFMOVES {
        return Err(B32Error::OutOfRange {
            field: "half-move clock",
            value: setup.halfmoves,
            max: MAX_HALFMOVES,
        });
    }
    let fullmoves = setup.fullmoves.get();
    if fullmoves > MAX_FULLMOVES {
        return Err(B32Error::OutOfRange {
            field: "full-move number",
            value: fullmoves,
            max: MAX_FULLMOVES,
        });
    }

    // Castling: one right per side, naming one of the three outermost rooks on that side.
    let mut castling = 0u32;
    let mut castling_nibbles = [EMPTY_ONE; 4];
    let mut covered = Bitboard::EMPTY;
    for (i, &(color, king_side)) in CASTLING_ORDER.iter().enumerate() {
        let backrank = color.backrank();
        let Some(king) = setup.board.king_of(color).filter(|k| k.rank() == backrank) else {
            continue;
        };
        let side_rights: Vec<Square> = (setup.castling_rights & Bitboard::from_rank(backrank))
            .into_iter()
            .filter(|sq| {
                if king_side {
                    sq.file() > king.file()
                } else {
                    sq.file() < king.file()
                }
            })
            .collect();
        let side_name = if king_side { "king" } else { "queen" };
        match side_rights.as_slice() {
            [] => {}
            [right] => {
                let rooks = rooks_from_outside(&setup.board, color, king_side);
                let Some(index) = rooks.iter().position(|r| r == right) else {
                    return Err(B32Error::NotRepresentable(format!(
                        "castling right on {right} without a {color} rook there"
                    )));
                };
                let Some(&nibble) = CASTLING_ROOK_NIBBLES.get(index) else {
                    return Err(B32Error::NotRepresentable(format!(
                        "castling right on {right}: rook number {} from the outside on the \
                         {side_name} side, B32 names only the three outermost",
                        index + 1
                    )));
                };
                castling |= 1 << (3 - i);
                castling_nibbles[i] = nibble;
                covered.add(*right);
            }
            more => {
                return Err(B32Error::NotRepresentable(format!(
                    "{} castling rights for {color} on the {side_name} side, at most one fits",
                    more.len()
                )));
            }
        }
    }
    let uncovered = setup.castling_rights.without(covered);
    if let Some(sq) = uncovered.first() {
        return Err(B32Error::NotRepresentable(format!(
            "castling right on {sq} has no king of its colour on the back rank beside it"
        )));
    }

    let ep = match setup.ep_square {
        None => 0u32,
        Some(sq) => {
            let expected = setup.turn.relative_rank(Rank::Sixth);
            if sq.rank() != expected {
                return Err(B32Error::NotRepresentable(format!(
                    "en-passant square {sq} is not on rank {} for {} to move",
                    expected.char(),
                    setup.turn
                )));
            }
            0b1000 | sq.file().to_u32()
        }
    };

    let turn = u32::from(setup.turn == Color::Black);
    let hidden: u32 =
        (turn << 31) | (castling << 27) | (ep << 23) | (setup.halfmoves << 16) | fullmoves;

    let mut out = [0u8; B32_LEN];
    let mut bit = 0usize;
    for i in 0..64 {
        let nibble = match setup.board.piece_at(square_at(i)) {
            Some(piece) => piece_nibble(piece),
            None => {
                let n = if bit < HIDDEN_BITS && hidden & (1 << (31 - bit)) != 0 {
                    if (1..5).contains(&bit) {
                        castling_nibbles[bit - 1]
                    } else {
                        EMPTY_ONE
                    }
                } else {
                    0
                };
                bit += 1;
                n
            }
        };
        out[i / 2] |= if i % 2 == 0 { nibble << 4 } else { nibble };
    }
    // At most 32 men, so at least 32 empty squares carried the hidden word.
    debug_assert!(bit >= HIDDEN_BITS);
    Ok(out)
}

/// Encodes a position as B32, taking its en-passant square as `mode` reports it
/// (`EnPassantMode::Legal` is what shakmaty's FEN output uses).
pub fn encode_b32_position<P: Position>(
    pos: &P,
    mode: EnPassantMode,
) -> Result<[u8; B32_LEN], B32Error> {
    encode_b32(&pos.to_setup(mode))
}

/// Decodes a B32 record into a setup (board, side to move, castling rights, en-passant
/// square, clocks). The result is not checked for chess legality; convert it with
/// `Setup::position` when a playable position is needed.
///
/// Errors name the byte offset of the offending nibble: wrong length, fewer than 32 empty
/// squares, a non-zero nibble on an empty square after the 32nd, a full-move number of 0, en
/// passant file bits without the presence bit, or a castling bit with no rook to refer to.
pub fn decode_b32(bytes: &[u8]) -> Result<Setup, B32Error> {
    if bytes.len() != B32_LEN {
        return Err(B32Error::WrongLength {
            len: bytes.len(),
            offset: bytes.len().min(B32_LEN),
        });
    }
    let mut board = Board::empty();
    let mut hidden = 0u32;
    // Byte offset of the nibble carrying each hidden bit.
    let mut bit_offset = [0usize; HIDDEN_BITS];
    // Nibble carrying each hidden bit.
    let mut bit_nibble = [0u8; HIDDEN_BITS];
    let mut bit = 0usize;
    for i in 0..64 {
        let byte = bytes[i / 2];
        let nibble = if i % 2 == 0 { byte >> 4 } else { byte & 0x0f };
        match nibble_piece(nibble) {
            Ok(piece) => board.set_piece_at(square_at(i), piece),
            Err(one) => {
                if bit < HIDDEN_BITS {
                    if one {
                        hidden |= 1 << (31 - bit);
                    }
                    bit_offset[bit] = i / 2;
                    bit_nibble[bit] = nibble;
                } else if nibble != 0 {
                    return Err(B32Error::InvalidField {
                        field: "unused empty square",
                        offset: i / 2,
                        reason: format!(
                            "empty square {} after the 32nd has nibble {nibble:04b}, expected 0000",
                            square_at(i)
                        ),
                    });
                }
                bit += 1;
            }
        }
    }
    if bit < HIDDEN_BITS {
        return Err(B32Error::TooFewEmptySquares { empty: bit });
    }

    let turn = if hidden >> 31 == 1 {
        Color::Black
    } else {
        Color::White
    };
    let castling = (hidden >> 27) & 0xf;
    let ep = (hidden >> 23) & 0xf;
    let halfmoves = (hidden >> 16) & 0x7f;
    let fullmoves = hidden & 0xffff;

    let fullmoves = NonZeroU32::new(fullmoves).ok_or_else(|| B32Error::InvalidField {
        field: "full-move number",
        offset: bit_offset[16],
        reason: "full-move number is 0".into(),
    })?;

    let ep_square = if ep & 0b1000 != 0 {
        let rank = turn.relative_rank(Rank::Sixth);
        Some(Square::from_coords(File::new(ep & 0b111), rank))
    } else if ep != 0 {
        return Err(B32Error::InvalidField {
            field: "en-passant file",
            offset: bit_offset[6],
            reason: format!("file bits {:03b} set without the presence bit", ep & 0b111),
        });
    } else {
        None
    };

    let mut castling_rights = Bitboard::EMPTY;
    for (i, &(color, king_side)) in CASTLING_ORDER.iter().enumerate() {
        if castling & (1 << (3 - i)) == 0 {
            continue;
        }
        let nibble = bit_nibble[1 + i];
        let index = CASTLING_ROOK_NIBBLES
            .iter()
            .position(|&n| n == nibble)
            .unwrap_or(0);
        let rooks = rooks_from_outside(&board, color, king_side);
        let rook = *rooks.get(index).ok_or_else(|| B32Error::InvalidField {
            field: "castling rights",
            offset: bit_offset[1 + i],
            reason: format!(
                "{} {} castling right names rook {} from the outside, but {} has {} rook(s) \
                 on that side of a king on its back rank",
                color,
                if king_side { "O-O" } else { "O-O-O" },
                index + 1,
                color,
                rooks.len()
            ),
        })?;
        castling_rights.add(rook);
    }

    Ok(Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square,
        remaining_checks: None,
        halfmoves,
        fullmoves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().unwrap().into_setup()
    }

    #[test]
    fn start_position_bytes() {
        // Derived by hand from the layout: rank 8 = r n b q k b n r = E C D F A D C E,
        // rank 7 = eight 9s; ranks 6..3 = 32 empty squares carrying the hidden word
        // 0 1111 0000 0000000 0000000000000001 (white, KQkq, no ep, 0, 1): a6 carries bit 0,
        // b6..e6 carry bits 1..4 = 1 (nibble 8); h3 carries the last bit (1).
        let b = encode_b32(&Setup::initial()).unwrap();
        let mut expected = [0u8; 32];
        expected[..4].copy_from_slice(&[0xEC, 0xDF, 0xAD, 0xCE]);
        expected[4..8].copy_from_slice(&[0x99; 4]);
        expected[8] = 0x08; // a6 = 0 (white to move), b6 = 1 (K)
        expected[9] = 0x88; // c6, d6 = 1 (Q, k)
        // e6 = 1 (q) -> byte 10 high nibble
        expected[10] = 0x80;
        // h3 is square index 47 -> byte 23 low nibble
        expected[23] = 0x08;
        expected[24..28].copy_from_slice(&[0x11; 4]);
        expected[28..32].copy_from_slice(&[0x64, 0x57, 0x25, 0x46]);
        assert_eq!(b, expected);
        assert_eq!(decode_b32(&b).unwrap(), Setup::initial());
    }

    #[test]
    fn errors_name_offsets() {
        assert_eq!(
            decode_b32(&[0u8; 31]).unwrap_err(),
            B32Error::WrongLength {
                len: 31,
                offset: 31
            }
        );
        // All-zero: 64 empty squares, full-move number 0.
        let err = decode_b32(&[0u8; 32]).unwrap_err();
        assert!(matches!(
            err,
            B32Error::InvalidField {
                field: "full-move number",
                ..
            }
        ));
        // A board full of white pawns has no empty square.
        assert_eq!(
            decode_b32(&[0x11; 32]).unwrap_err(),
            B32Error::TooFewEmptySquares { empty: 0 }
        );
    }

    #[test]
    fn ranges_are_errors() {
        let mut s = setup("8/8/8/8/8/8/8/K6k w - - 128 1");
        assert!(matches!(
            encode_b32(&s),
            Err(B32Error::OutOfRange { value: 128, .. })
        ));
        s.halfmoves = 127;
        s.fullmoves = NonZeroU32::new(65536).unwrap();
        assert!(matches!(
            encode_b32(&s),
            Err(B32Error::OutOfRange { value: 65536, .. })
        ));
        s.fullmoves = NonZeroU32::new(65535).unwrap();
        let b = encode_b32(&s).unwrap();
        assert_eq!(decode_b32(&b).unwrap(), s);
    }
}
