//! CDB's 24-byte compressed chess position (seed 001, "compressed form").
//!
//! Layout (`docs/formats/cdb.md` is the reference):
//!
//! * bytes 0–7: occupancy bitmap organised by file. Byte *f* is file *f* (a = 0 … h = 7); its
//!   most significant bit is rank 1, its least significant bit rank 8. A set bit is an
//!   occupied square.
//! * bytes 8–23: 32 four-bit codes, high nibble first. Code *j* describes the *j*-th occupied
//!   square in bitmap order (a1, a2, …, a8, b1, …, h8). A code is a colour bit (`8` = black)
//!   plus a kind: 0 pawn, 1 knight, 2 bishop, 3 rook without castling right, 4 queen,
//!   5 king, 6 rook with a castling right, 7 marked pawn.
//! * Side to move and en passant, from the marked pawns (kind 7):
//!   - exactly one marked pawn, standing on its own colour's double-step rank (rank 4 for
//!     White, rank 5 for Black): that pawn has just moved two squares and can be captured
//!     en passant (a legal capture exists); the other colour is to move.
//!   - one marked pawn on any other rank, or two marked pawns (of one colour): that colour
//!     is to move, no en passant ("an illegal en-passant pawn").
//!   - no marked pawn: the code after the last man (nibble *n* for *n* men) says who is to
//!     move: 1 White, 2 Black. This is used when the side to move has no pawn, or exactly one
//!     pawn standing on its double-step rank (marking it would read as en passant).
//! * Every nibble after the last code used is 0.
//!
//! No clocks are stored: decoding gives half-move clock 0 and full-move number 1.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Piece, Position,
    Rank, Role, Setup, Square,
};
use thiserror::Error;

/// Length of a CDB compressed position.
pub const CDB_LEN: usize = 24;

const KIND_PAWN: u8 = 0;
const KIND_KNIGHT: u8 = 1;
const KIND_BISHOP: u8 = 2;
const KIND_ROOK: u8 = 3;
const KIND_QUEEN: u8 = 4;
const KIND_KING: u8 = 5;
const KIND_CASTLING_ROOK: u8 = 6;
const KIND_MARKED_PAWN: u8 = 7;

/// Side-to-move nibble after the last man code.
const TURN_NONE: u8 = 0;
const TURN_WHITE: u8 = 1;
const TURN_BLACK: u8 = 2;

/// Errors of the CDB codec.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CdbError {
    /// Input of the wrong length.
    #[error("CDB position is {len} bytes long, expected 24 (error at byte offset {offset})")]
    WrongLength { len: usize, offset: usize },
    /// A code or bitmap value that no encoding produces.
    #[error("invalid CDB position at byte offset {offset}: {reason}")]
    Invalid { offset: usize, reason: String },
    /// The bytes decode to a board that is not a legal chess position.
    #[error("CDB position decodes to an illegal chess position: {0}")]
    IllegalPosition(String),
    /// The bytes decode to a legal position whose encoding differs (for example an en-passant
    /// pawn whose capture is not legal): the first differing byte is named.
    #[error("non-canonical CDB position: re-encoding differs at byte offset {offset}")]
    NonCanonical { offset: usize },
    /// The position cannot be encoded.
    #[error("position cannot be encoded as CDB: {0}")]
    NotRepresentable(String),
}

/// Squares in CDB's bitmap order: a1, a2, …, a8, b1, …, h8.
fn square_at(i: usize) -> Square {
    Square::from_coords(File::new((i / 8) as u32), Rank::new((i % 8) as u32))
}

fn color_bit(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 8,
    }
}

fn put_nibble(out: &mut [u8; CDB_LEN], j: usize, nibble: u8) {
    let byte = 8 + j / 2;
    out[byte] |= if j.is_multiple_of(2) {
        nibble << 4
    } else {
        nibble
    };
}

fn get_nibble(bytes: &[u8], j: usize) -> u8 {
    let byte = bytes[8 + j / 2];
    if j.is_multiple_of(2) {
        byte >> 4
    } else {
        byte & 0x0f
    }
}

/// Encodes a chess position (placement, side to move, castling rights, en-passant square
/// when an en-passant capture is legal). Clocks are not stored.
///
/// Errors only for positions no legal game reaches: more than 32 men, or a side to move that
/// needs the extra nibble when all 32 code slots are taken.
pub fn encode_cdb<P: Position>(pos: &P) -> Result<[u8; CDB_LEN], CdbError> {
    let board = pos.board();
    let turn = pos.turn();
    let rights = pos.castles().castling_rights();
    let ep = pos.ep_square(EnPassantMode::Legal);

    let men = board.occupied().count();
    if men > 32 {
        return Err(CdbError::NotRepresentable(format!(
            "{men} men, at most 32 fit"
        )));
    }

    // Marked pawns.
    let mut marked = Bitboard::EMPTY;
    let mut turn_nibble = TURN_NONE;
    if let Some(ep) = ep {
        let pushed = Square::from_coords(ep.file(), turn.relative_rank(Rank::Fifth));
        marked.add(pushed);
    } else {
        let own_pawns: Vec<Square> = (0..64)
            .map(square_at)
            .filter(|&sq| {
                board.piece_at(sq)
                    == Some(Piece {
                        color: turn,
                        role: Role::Pawn,
                    })
            })
            .collect();
        let double_step = turn.relative_rank(Rank::Fourth);
        if let Some(&sq) = own_pawns.iter().find(|sq| sq.rank() != double_step) {
            marked.add(sq);
        } else if own_pawns.len() >= 2 {
            marked.add(own_pawns[0]);
            marked.add(own_pawns[1]);
        } else {
            turn_nibble = match turn {
                Color::White => TURN_WHITE,
                Color::Black => TURN_BLACK,
            };
        }
    }
    if turn_nibble != TURN_NONE && men == 32 {
        return Err(CdbError::NotRepresentable(
            "32 men and no pawn of the side to move can carry the side to move".into(),
        ));
    }

    let mut out = [0u8; CDB_LEN];
    let mut j = 0usize;
    for i in 0..64 {
        let sq = square_at(i);
        let Some(piece) = board.piece_at(sq) else {
            continue;
        };
        out[i / 8] |= 0x80 >> (i % 8);
        let kind = match piece.role {
            Role::Pawn if marked.contains(sq) => KIND_MARKED_PAWN,
            Role::Pawn => KIND_PAWN,
            Role::Knight => KIND_KNIGHT,
            Role::Bishop => KIND_BISHOP,
            Role::Rook if rights.contains(sq) => {
                if sq.rank() != piece.color.backrank() {
                    return Err(CdbError::NotRepresentable(format!(
                        "castling right on {sq}, not on {}'s back rank",
                        piece.color
                    )));
                }
                KIND_CASTLING_ROOK
            }
            Role::Rook => KIND_ROOK,
            Role::Queen => KIND_QUEEN,
            Role::King => KIND_KING,
        };
        put_nibble(&mut out, j, color_bit(piece.color) | kind);
        j += 1;
    }
    if let Some(sq) = (rights & !board.rooks()).first() {
        return Err(CdbError::NotRepresentable(format!(
            "castling right on {sq} without a rook"
        )));
    }
    if turn_nibble != TURN_NONE {
        put_nibble(&mut out, j, turn_nibble);
    }
    Ok(out)
}

/// Encodes a setup: it is first made a legal chess position (standard or Chess960 castling),
/// then encoded as [`encode_cdb`] does. Clocks are dropped.
pub fn encode_cdb_setup(setup: &Setup) -> Result<[u8; CDB_LEN], CdbError> {
    let mode = CastlingMode::detect(setup);
    let pos = Chess::from_setup(setup.clone(), mode)
        .map_err(|e| CdbError::NotRepresentable(format!("not a legal chess position: {e}")))?;
    encode_cdb(&pos)
}

/// Decodes the structure of a CDB position into a setup without checking chess legality or
/// canonical form (half-move clock 0, full-move number 1). Errors name the byte offset of the
/// bitmap byte or code nibble at fault.
pub fn decode_cdb_setup(bytes: &[u8]) -> Result<Setup, CdbError> {
    if bytes.len() != CDB_LEN {
        return Err(CdbError::WrongLength {
            len: bytes.len(),
            offset: bytes.len().min(CDB_LEN),
        });
    }
    let mut squares = Vec::with_capacity(32);
    for i in 0..64 {
        if bytes[i / 8] & (0x80 >> (i % 8)) != 0 {
            if squares.len() == 32 {
                return Err(CdbError::Invalid {
                    offset: i / 8,
                    reason: "more than 32 occupied squares in the bitmap".into(),
                });
            }
            squares.push(square_at(i));
        }
    }
    let men = squares.len();

    let mut board = Board::empty();
    let mut castling_rights = Bitboard::EMPTY;
    let mut marked: Vec<(usize, Square, Color)> = Vec::new();
    for (j, &sq) in squares.iter().enumerate() {
        let nibble = get_nibble(bytes, j);
        let color = if nibble & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = match nibble & 7 {
            KIND_PAWN => Role::Pawn,
            KIND_KNIGHT => Role::Knight,
            KIND_BISHOP => Role::Bishop,
            KIND_ROOK => Role::Rook,
            KIND_QUEEN => Role::Queen,
            KIND_KING => Role::King,
            KIND_CASTLING_ROOK => {
                if sq.rank() != color.backrank() {
                    return Err(CdbError::Invalid {
                        offset: 8 + j / 2,
                        reason: format!("castling rook code on {sq}, not on {color}'s back rank"),
                    });
                }
                castling_rights.add(sq);
                Role::Rook
            }
            _ => {
                marked.push((j, sq, color));
                Role::Pawn
            }
        };
        board.set_piece_at(sq, Piece { color, role });
    }

    let extra = if men < 32 { get_nibble(bytes, men) } else { 0 };
    let extra_offset = 8 + men / 2;
    let (turn, ep_square, used) = match marked.as_slice() {
        [] => {
            if men == 32 {
                return Err(CdbError::Invalid {
                    offset: 23,
                    reason: "32 men, no marked pawn and no room for the side-to-move code".into(),
                });
            }
            let turn = match extra {
                TURN_WHITE => Color::White,
                TURN_BLACK => Color::Black,
                other => {
                    return Err(CdbError::Invalid {
                        offset: extra_offset,
                        reason: format!(
                            "no marked pawn, so the side-to-move code after the last man must \
                             be 1 or 2, found {other}"
                        ),
                    });
                }
            };
            (turn, None, men + 1)
        }
        [(_, first_sq, color), rest @ ..] => {
            if let Some((j, sq, _)) = rest.iter().find(|(_, _, c)| c != color) {
                return Err(CdbError::Invalid {
                    offset: 8 + j / 2,
                    reason: format!("marked pawns of both colours ({first_sq} and {sq})"),
                });
            }
            if extra != TURN_NONE {
                return Err(CdbError::Invalid {
                    offset: extra_offset,
                    reason: format!(
                        "side to move is given by the marked pawns, but the nibble after the \
                         last man is {extra}, not 0"
                    ),
                });
            }
            if rest.is_empty() && first_sq.rank() == color.relative_rank(Rank::Fourth) {
                let ep = Square::from_coords(first_sq.file(), color.relative_rank(Rank::Third));
                (!*color, Some(ep), men)
            } else {
                (*color, None, men)
            }
        }
    };
    for j in used..32 {
        if get_nibble(bytes, j) != 0 {
            return Err(CdbError::Invalid {
                offset: 8 + j / 2,
                reason: format!("unused code slot {j} is not 0"),
            });
        }
    }

    Ok(Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square,
        remaining_checks: None,
        halfmoves: 0,
        fullmoves: NonZeroU32::MIN,
    })
}

/// Decodes a CDB position into a legal chess position (standard castling when the rights
/// allow it, Chess960 otherwise), checking that the bytes are exactly what [`encode_cdb`]
/// writes for it.
pub fn decode_cdb(bytes: &[u8]) -> Result<Chess, CdbError> {
    let setup = decode_cdb_setup(bytes)?;
    let mode = CastlingMode::detect(&setup);
    let pos =
        Chess::from_setup(setup, mode).map_err(|e| CdbError::IllegalPosition(e.to_string()))?;
    let again = encode_cdb(&pos)?;
    if let Some(offset) = again.iter().zip(bytes).position(|(a, b)| a != b) {
        return Err(CdbError::NonCanonical { offset });
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn start_position_bytes() {
        // Hand-derived. Bitmap: every file has ranks 1, 2, 7, 8 occupied = 1100 0011 = 0xC3.
        // Codes, file a: R(castling, white) = 0x6, P... White to move: the first white pawn
        // not on rank 4 is a2 -> marked (0x7). So file a = 6 7 8 E (black pawn 0x8,
        // black castling rook 0xE); file b = N P p n = 1 0 8 9; c = 2 0 8 A; d = 4 0 8 C;
        // e = 5 0 8 D; f = 2 0 8 A; g = 1 0 8 9; h = 6 0 8 E.
        let b = encode_cdb(&Chess::default()).unwrap();
        let expected: [u8; 24] = [
            0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3, //
            0x67, 0x8E, 0x10, 0x89, 0x20, 0x8A, 0x40, 0x8C, //
            0x50, 0x8D, 0x20, 0x8A, 0x10, 0x89, 0x60, 0x8E,
        ];
        assert_eq!(b, expected);
        assert_eq!(decode_cdb(&b).unwrap(), Chess::default());
    }

    #[test]
    fn en_passant_and_markers() {
        // 1.e4 d5 2.e5 f5: white can take f6 e.p.: black f5 pawn is marked, white to move.
        let pos = chess("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        let b = encode_cdb(&pos).unwrap();
        let back = decode_cdb(&b).unwrap();
        assert_eq!(back, pos);
        assert_eq!(back.ep_square(EnPassantMode::Legal), Some(Square::F6));
        // Kings only: side to move needs the extra nibble.
        for fen in ["8/8/8/8/8/8/8/K6k w - - 0 1", "8/8/8/8/8/8/8/K6k b - - 0 1"] {
            let pos = chess(fen);
            let b = encode_cdb(&pos).unwrap();
            // Two men: a1 (white king) then h1 (black king), then the turn nibble.
            assert_eq!(b[8], 0x5D);
            assert_eq!(b[9], if pos.turn().is_white() { 0x10 } else { 0x20 });
            assert_eq!(decode_cdb(&b).unwrap(), pos);
        }
        // White to move, its only pawn on rank 4: extra nibble, not a mark.
        let pos = chess("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1");
        let b = encode_cdb(&pos).unwrap();
        assert_eq!(decode_cdb(&b).unwrap(), pos);
        // White to move, two pawns both on rank 4: both marked.
        let pos = chess("4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1");
        let b = encode_cdb(&pos).unwrap();
        assert_eq!(decode_cdb(&b).unwrap(), pos);
    }

    #[test]
    fn errors_name_offsets() {
        assert_eq!(
            decode_cdb(&[0; 23]).unwrap_err(),
            CdbError::WrongLength {
                len: 23,
                offset: 23
            }
        );
        // No men, turn nibble 0 -> invalid at byte 8.
        assert!(matches!(
            decode_cdb(&[0; 24]).unwrap_err(),
            CdbError::Invalid { offset: 8, .. }
        ));
        // 40 occupied squares.
        let mut b = [0u8; 24];
        b[..5].copy_from_slice(&[0xff; 5]);
        assert!(matches!(
            decode_cdb(&b).unwrap_err(),
            CdbError::Invalid { offset: 4, .. }
        ));
        // Start position with a stray nibble after the last code: nothing is unused there
        // (32 men), so instead break the kings-only record: trailing nibble.
        let pos = chess("8/8/8/8/8/8/8/K6k w - - 0 1");
        let mut b = encode_cdb(&pos).unwrap();
        b[20] = 0x01;
        assert_eq!(
            decode_cdb(&b).unwrap_err(),
            CdbError::Invalid {
                offset: 20,
                reason: "unused code slot 25 is not 0".into()
            }
        );
    }
}
