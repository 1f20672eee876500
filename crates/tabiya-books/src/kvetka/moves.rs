//! Kvetka's one-byte move codes (seed 004, "Кодирование хода").
//!
//! A code names the *n*-th white piece of a kind on the normalised board (counted in key
//! order a1, a2, …, h8) and a displacement (dx, dy), both taken modulo 8 (the board wraps
//! around). Pawns reaching the last rank become queens. Codes 0x3A, 0x48, 0x80, 0x9C, 0xB8
//! (the second "x+4, y+4" of each diagonal piece) and 0xC6–0xFF name no move.

use shakmaty::{CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};
use thiserror::Error;

use super::key::key_square;

/// Why a move has no Kvetka code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MoveCodeError {
    /// Promotion to anything but a queen.
    #[error("underpromotion")]
    Underpromotion,
    /// The moving piece is the 9th pawn, 3rd knight/bishop/rook or 4th queen.
    #[error("{role:?} number {number} has no codes")]
    PieceNumber { role: Role, number: usize },
    /// Not a move of White's on the normalised board, or a displacement no code has.
    #[error("move has no Kvetka code")]
    NotExpressible,
}

const KNIGHT_STEPS: [(u32, u32); 8] = [
    (1, 2),
    (7, 2),
    (2, 1),
    (6, 1),
    (2, 7),
    (6, 7),
    (1, 6),
    (7, 6),
];
const KING_STEPS: [(u32, u32); 8] = [
    (0, 1),
    (1, 1),
    (7, 1),
    (1, 0),
    (7, 0),
    (0, 7),
    (1, 7),
    (7, 7),
];
/// Code of white O-O.
pub const CODE_CASTLE_SHORT: u8 = 0xC4;
/// Code of white O-O-O.
pub const CODE_CASTLE_LONG: u8 = 0xC5;

/// Offset of a diagonal step within a 13-code diagonal group (0x30..0x3D without 0x3A).
fn diagonal_offset(dx: u32, dy: u32) -> Option<u8> {
    if dx == dy && dx != 0 {
        Some((dx - 1) as u8)
    } else if dx + dy == 8 && dy != 4 {
        Some((6 + dy) as u8)
    } else {
        None
    }
}

fn straight_offset(dx: u32, dy: u32) -> Option<u8> {
    if dx == 0 && dy != 0 {
        Some((dy - 1) as u8)
    } else if dy == 0 && dx != 0 {
        Some((6 + dx) as u8)
    } else {
        None
    }
}

/// Number (0-based) of the white piece of `role` on `from` among the white pieces of that kind,
/// counted in key order.
fn piece_number(pos: &Chess, role: Role, from: Square) -> usize {
    let pieces = pos.board().by_piece(Piece {
        color: Color::White,
        role,
    });
    (0..64)
        .map(key_square)
        .take_while(|&sq| sq != from)
        .filter(|&sq| pieces.contains(sq))
        .count()
}

/// Encodes a legal move of the normalised position (White to move).
pub fn encode_move(pos: &Chess, m: Move) -> Result<u8, MoveCodeError> {
    if pos.turn() != Color::White {
        return Err(MoveCodeError::NotExpressible);
    }
    let (role, from, to) = match m {
        Move::Castle { king, rook } => {
            return Ok(if rook.file() > king.file() {
                CODE_CASTLE_SHORT
            } else {
                CODE_CASTLE_LONG
            });
        }
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            match promotion {
                None | Some(Role::Queen) => {}
                Some(_) => return Err(MoveCodeError::Underpromotion),
            }
            (role, from, to)
        }
        Move::EnPassant { from, to } => (Role::Pawn, from, to),
        Move::Put { .. } => return Err(MoveCodeError::NotExpressible),
    };
    let dx = (to.file().to_u32() + 8 - from.file().to_u32()) % 8;
    let dy = (to.rank().to_u32() + 8 - from.rank().to_u32()) % 8;
    let n = piece_number(pos, role, from);
    let too_many = |limit: usize| {
        if n >= limit {
            Err(MoveCodeError::PieceNumber {
                role,
                number: n + 1,
            })
        } else {
            Ok(n as u8)
        }
    };
    let code = match role {
        Role::Pawn => {
            let n = too_many(8)?;
            let off = match (dx, dy) {
                (0, 1) => 0,
                (0, 2) => 1,
                (1, 1) => 2,
                (7, 1) => 3,
                _ => return Err(MoveCodeError::NotExpressible),
            };
            n * 4 + off
        }
        Role::Knight => {
            let n = too_many(2)?;
            let off = KNIGHT_STEPS
                .iter()
                .position(|&s| s == (dx, dy))
                .ok_or(MoveCodeError::NotExpressible)?;
            0x20 + n * 8 + off as u8
        }
        Role::Bishop => {
            let n = too_many(2)?;
            let off = diagonal_offset(dx, dy).ok_or(MoveCodeError::NotExpressible)?;
            0x30 + n * 14 + off
        }
        Role::Rook => {
            let n = too_many(2)?;
            let off = straight_offset(dx, dy).ok_or(MoveCodeError::NotExpressible)?;
            0x4C + n * 14 + off
        }
        Role::Queen => {
            let n = too_many(3)?;
            let off = straight_offset(dx, dy)
                .or_else(|| diagonal_offset(dx, dy).map(|o| o + 14))
                .ok_or(MoveCodeError::NotExpressible)?;
            0x68 + n * 28 + off
        }
        Role::King => {
            let off = KING_STEPS
                .iter()
                .position(|&s| s == (dx, dy))
                .ok_or(MoveCodeError::NotExpressible)?;
            0xBC + off as u8
        }
    };
    Ok(code)
}

/// What a code says, before looking at a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeMeaning {
    /// Piece of `role` number `number` (0-based) moves by (dx, dy) modulo 8.
    Step {
        role: Role,
        number: usize,
        dx: u32,
        dy: u32,
    },
    Castle(CastlingSide),
}

/// Meaning of a code from the seed's table; `None` for the codes the table leaves out.
pub fn code_meaning(code: u8) -> Option<CodeMeaning> {
    let step = |role, number, (dx, dy): (u32, u32)| {
        Some(CodeMeaning::Step {
            role,
            number,
            dx,
            dy,
        })
    };
    let diagonal = |off: u8| -> Option<(u32, u32)> {
        match off {
            0..=6 => Some((u32::from(off) + 1, u32::from(off) + 1)),
            10 => None,
            7..=13 => {
                let dy = u32::from(off) - 6;
                Some((8 - dy, dy))
            }
            _ => None,
        }
    };
    let straight = |off: u8| -> (u32, u32) {
        if off < 7 {
            (0, u32::from(off) + 1)
        } else {
            (u32::from(off) - 6, 0)
        }
    };
    match code {
        0x00..=0x1F => {
            let d = [(0, 1), (0, 2), (1, 1), (7, 1)][usize::from(code % 4)];
            step(Role::Pawn, usize::from(code / 4), d)
        }
        0x20..=0x2F => {
            let c = code - 0x20;
            step(
                Role::Knight,
                usize::from(c / 8),
                KNIGHT_STEPS[usize::from(c % 8)],
            )
        }
        0x30..=0x4B => {
            let c = code - 0x30;
            step(Role::Bishop, usize::from(c / 14), diagonal(c % 14)?)
        }
        0x4C..=0x67 => {
            let c = code - 0x4C;
            step(Role::Rook, usize::from(c / 14), straight(c % 14))
        }
        0x68..=0xBB => {
            let c = code - 0x68;
            let off = c % 28;
            let d = if off < 14 {
                straight(off)
            } else {
                diagonal(off - 14)?
            };
            step(Role::Queen, usize::from(c / 28), d)
        }
        0xBC..=0xC3 => step(Role::King, 0, KING_STEPS[usize::from(code - 0xBC)]),
        CODE_CASTLE_SHORT => Some(CodeMeaning::Castle(CastlingSide::KingSide)),
        CODE_CASTLE_LONG => Some(CodeMeaning::Castle(CastlingSide::QueenSide)),
        _ => None,
    }
}

/// Why a stored code does not give a move.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveDecodeError {
    #[error("code {0:#04x} is not in the move table")]
    UnknownCode(u8),
    #[error("code {code:#04x}: there is no white {role:?} number {number}")]
    NoSuchPiece { code: u8, role: Role, number: usize },
    #[error("code {code:#04x} names an illegal move ({detail})")]
    Illegal { code: u8, detail: String },
}

/// Decodes a code into a legal move of the normalised position (White to move).
pub fn decode_move(pos: &Chess, code: u8) -> Result<Move, MoveDecodeError> {
    let meaning = code_meaning(code).ok_or(MoveDecodeError::UnknownCode(code))?;
    match meaning {
        CodeMeaning::Castle(side) => {
            let candidate = pos
                .board()
                .king_of(Color::White)
                .zip(pos.castles().rook(Color::White, side))
                .map(|(king, rook)| Move::Castle { king, rook });
            candidate
                .filter(|&m| pos.turn() == Color::White && pos.is_legal(m))
                .ok_or_else(|| MoveDecodeError::Illegal {
                    code,
                    detail: format!("{side:?} castling"),
                })
        }
        CodeMeaning::Step {
            role,
            number,
            dx,
            dy,
        } => {
            let pieces = pos.board().by_piece(Piece {
                color: Color::White,
                role,
            });
            let from = (0..64)
                .map(key_square)
                .filter(|&sq| pieces.contains(sq))
                .nth(number)
                .ok_or(MoveDecodeError::NoSuchPiece {
                    code,
                    role,
                    number: number + 1,
                })?;
            let to = Square::from_coords(
                shakmaty::File::new((from.file().to_u32() + dx) % 8),
                shakmaty::Rank::new((from.rank().to_u32() + dy) % 8),
            );
            let promotion =
                (role == Role::Pawn && to.rank() == shakmaty::Rank::Eighth).then_some(Role::Queen);
            let capture = pos.board().role_at(to);
            let m = if role == Role::Pawn && dx != 0 && capture.is_none() {
                Move::EnPassant { from, to }
            } else {
                Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                }
            };
            if pos.turn() == Color::White && pos.is_legal(m) {
                Ok(m)
            } else {
                Err(MoveDecodeError::Illegal {
                    code,
                    detail: format!("{role:?} {from}{to}"),
                })
            }
        }
    }
}
