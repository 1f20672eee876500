//! Move codes: one byte naming "the n-th piece of a kind" and a wrapped displacement.
//!
//! Pieces are counted on the normalised board (White to move, perhaps mirrored) in key order
//! (files a→h, ranks 1→8 within a file). Displacements wrap around the board: x+7 is one
//! file to the left, y+7 one rank down. Castling has its own two codes. A pawn reaching the
//! last rank becomes a queen; no code expresses an underpromotion.

use shakmaty::{CastlingSide, Chess, Move, Piece, Position, Rank, Role, Square};

use super::key::{Transform, key_order_index};

/// What a move code means on the normalised board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeMeaning {
    /// The `index`-th (0-based) piece of `role` moves `dx` files right and `dy` ranks up,
    /// both modulo 8.
    Step {
        role: Role,
        index: u8,
        dx: u8,
        dy: u8,
    },
    /// Castling, coded as a king move.
    Castle(CastlingSide),
}

use Role::{Bishop as B, King as K, Knight as N, Pawn as P, Queen as Q, Rook as R};

/// (code, role, 0-based index, dx, dy), transcribed from the seed's table.
#[rustfmt::skip]
const STEPS: [(u8, Role, u8, u8, u8); 164] = [
    // pawns: y+1, y+2, x+1 y+1, x+7 y+1
    (0xEC, P, 0, 0, 1), (0xDB, P, 0, 0, 2), (0x8B, P, 0, 1, 1), (0x0C, P, 0, 7, 1),
    (0x04, P, 1, 0, 1), (0x62, P, 1, 0, 2), (0x96, P, 1, 1, 1), (0xD1, P, 1, 7, 1),
    (0x55, P, 2, 0, 1), (0x9B, P, 2, 0, 2), (0x7C, P, 2, 1, 1), (0x27, P, 2, 7, 1),
    (0xCF, P, 3, 0, 1), (0xE6, P, 3, 0, 2), (0xEB, P, 3, 1, 1), (0x06, P, 3, 7, 1),
    (0xBB, P, 4, 0, 1), (0x5F, P, 4, 0, 2), (0x00, P, 4, 1, 1), (0xDE, P, 4, 7, 1),
    (0xCB, P, 5, 0, 1), (0xB1, P, 5, 0, 2), (0x2D, P, 5, 1, 1), (0x82, P, 5, 7, 1),
    (0x18, P, 6, 0, 1), (0xC8, P, 6, 0, 2), (0x5C, P, 6, 1, 1), (0xC7, P, 6, 7, 1),
    (0xA3, P, 7, 0, 1), (0x4A, P, 7, 0, 2), (0x14, P, 7, 1, 1), (0x24, P, 7, 7, 1),
    // knights
    (0x34, N, 0, 1, 2), (0x85, N, 0, 7, 2), (0x36, N, 0, 2, 1), (0xF7, N, 0, 6, 1),
    (0xE9, N, 0, 2, 7), (0x0F, N, 0, 6, 7), (0x8A, N, 0, 1, 6), (0xDA, N, 0, 7, 6),
    (0x4C, N, 1, 1, 2), (0xF3, N, 1, 7, 2), (0xD2, N, 1, 2, 1), (0xD3, N, 1, 6, 1),
    (0xE0, N, 1, 2, 7), (0x01, N, 1, 6, 7), (0x2A, N, 1, 1, 6), (0x30, N, 1, 7, 6),
    // bishops
    (0x2E, B, 0, 1, 1), (0xC1, B, 0, 2, 2), (0x0D, B, 0, 3, 3), (0x6A, B, 0, 4, 4),
    (0x15, B, 0, 5, 5), (0x3A, B, 0, 6, 6), (0x12, B, 0, 7, 7), (0x1B, B, 0, 7, 1),
    (0xC3, B, 0, 6, 2), (0x66, B, 0, 5, 3), (0x3C, B, 0, 3, 5), (0xB2, B, 0, 2, 6),
    (0x26, B, 0, 1, 7),
    (0xF5, B, 1, 1, 1), (0xC2, B, 1, 2, 2), (0xB9, B, 1, 3, 3), (0x9F, B, 1, 4, 4),
    (0x32, B, 1, 5, 5), (0x09, B, 1, 6, 6), (0x1D, B, 1, 7, 7), (0x54, B, 1, 7, 1),
    (0x22, B, 1, 6, 2), (0xCA, B, 1, 5, 3), (0xCC, B, 1, 3, 5), (0x79, B, 1, 2, 6),
    (0x72, B, 1, 1, 7),
    // rooks
    (0x81, R, 0, 0, 1), (0xE8, R, 0, 0, 2), (0x7A, R, 0, 0, 3), (0x99, R, 0, 0, 4),
    (0x87, R, 0, 0, 5), (0x50, R, 0, 0, 6), (0xE1, R, 0, 0, 7), (0x7F, R, 0, 1, 0),
    (0xCD, R, 0, 2, 0), (0x98, R, 0, 3, 0), (0xEF, R, 0, 4, 0), (0x6E, R, 0, 5, 0),
    (0x52, R, 0, 6, 0), (0x86, R, 0, 7, 0),
    (0x7D, R, 1, 0, 1), (0xF4, R, 1, 0, 2), (0xE3, R, 1, 0, 3), (0xC5, R, 1, 0, 4),
    (0xA5, R, 1, 0, 5), (0x7B, R, 1, 0, 6), (0x69, R, 1, 0, 7), (0xC4, R, 1, 1, 0),
    (0xA9, R, 1, 2, 0), (0x0E, R, 1, 3, 0), (0xAD, R, 1, 4, 0), (0xB5, R, 1, 5, 0),
    (0xD8, R, 1, 6, 0), (0x21, R, 1, 7, 0),
    // queens: files, ranks, diagonal, anti-diagonal
    (0x05, Q, 0, 0, 1), (0x9D, Q, 0, 0, 2), (0x94, Q, 0, 0, 3), (0x37, Q, 0, 0, 4),
    (0xB7, Q, 0, 0, 5), (0x9A, Q, 0, 0, 6), (0xFD, Q, 0, 0, 7), (0x2F, Q, 0, 1, 0),
    (0x74, Q, 0, 2, 0), (0x31, Q, 0, 3, 0), (0xE5, Q, 0, 4, 0), (0x39, Q, 0, 5, 0),
    (0x29, Q, 0, 6, 0), (0x8F, Q, 0, 7, 0), (0xF1, Q, 0, 1, 1), (0xA2, Q, 0, 2, 2),
    (0x45, Q, 0, 3, 3), (0xE7, Q, 0, 4, 4), (0x28, Q, 0, 5, 5), (0x61, Q, 0, 6, 6),
    (0xED, Q, 0, 7, 7), (0xD7, Q, 0, 7, 1), (0xD9, Q, 0, 6, 2), (0x7E, Q, 0, 5, 3),
    (0x4B, Q, 0, 3, 5), (0x80, Q, 0, 2, 6), (0x42, Q, 0, 1, 7),
    (0x4D, Q, 1, 0, 1), (0xBD, Q, 1, 0, 2), (0xA0, Q, 1, 0, 3), (0xB0, Q, 1, 0, 4),
    (0xC6, Q, 1, 0, 5), (0x1A, Q, 1, 0, 6), (0xC9, Q, 1, 0, 7), (0xF8, Q, 1, 1, 0),
    (0x03, Q, 1, 2, 0), (0xFA, Q, 1, 3, 0), (0x08, Q, 1, 4, 0), (0xBC, Q, 1, 5, 0),
    (0xF9, Q, 1, 6, 0), (0xF0, Q, 1, 7, 0), (0x92, Q, 1, 1, 1), (0xFB, Q, 1, 2, 2),
    (0xAE, Q, 1, 3, 3), (0x38, Q, 1, 4, 4), (0x41, Q, 1, 5, 5), (0x23, Q, 1, 6, 6),
    (0x6F, Q, 1, 7, 7), (0xEE, Q, 1, 7, 1), (0x8E, Q, 1, 6, 2), (0xFE, Q, 1, 5, 3),
    (0x3B, Q, 1, 3, 5), (0xAB, Q, 1, 2, 6), (0x63, Q, 1, 1, 7),
    // king (castling separately)
    (0x13, K, 0, 0, 1), (0x67, K, 0, 1, 1), (0xDF, K, 0, 7, 1), (0xBE, K, 0, 1, 0),
    (0x97, K, 0, 7, 0), (0x0A, K, 0, 0, 7), (0x44, K, 0, 1, 7), (0x8C, K, 0, 7, 7),
];

/// Code of short castling (king move O-O).
pub const CODE_CASTLE_SHORT: u8 = 0x6B;
/// Code of long castling (king move O-O-O).
pub const CODE_CASTLE_LONG: u8 = 0xF6;
/// The second-queen codes the seed's source may have swapped (0x1A y+6 / 0xF9 x+6): the
/// reader takes the seed's reading and tries the other when the move is illegal.
pub const SWAPPABLE_QUEEN_CODES: [u8; 2] = [0x1A, 0xF9];

const fn meaning_table() -> [Option<CodeMeaning>; 256] {
    let mut t: [Option<CodeMeaning>; 256] = [None; 256];
    let mut i = 0;
    while i < STEPS.len() {
        let (code, role, index, dx, dy) = STEPS[i];
        t[code as usize] = Some(CodeMeaning::Step {
            role,
            index,
            dx,
            dy,
        });
        i += 1;
    }
    t[CODE_CASTLE_SHORT as usize] = Some(CodeMeaning::Castle(CastlingSide::KingSide));
    t[CODE_CASTLE_LONG as usize] = Some(CodeMeaning::Castle(CastlingSide::QueenSide));
    t
}

static MEANINGS: [Option<CodeMeaning>; 256] = meaning_table();

/// Piece slots for the reverse table: 8 pawns, 2 knights, 2 bishops, 2 rooks, 2 queens, 1 king.
const fn slot(role: Role, index: u8) -> Option<usize> {
    let (base, max) = match role {
        Role::Pawn => (0, 8),
        Role::Knight => (8, 2),
        Role::Bishop => (10, 2),
        Role::Rook => (12, 2),
        Role::Queen => (14, 2),
        Role::King => (16, 1),
    };
    if (index as usize) < max {
        Some(base + index as usize)
    } else {
        None
    }
}

const NO_CODE: u16 = 0xFFFF;

const fn code_table() -> [u16; 17 * 64] {
    let mut t = [NO_CODE; 17 * 64];
    let mut i = 0;
    while i < STEPS.len() {
        let (code, role, index, dx, dy) = STEPS[i];
        if let Some(s) = slot(role, index) {
            t[s * 64 + dy as usize * 8 + dx as usize] = code as u16;
        }
        i += 1;
    }
    t
}

static CODES: [u16; 17 * 64] = code_table();

/// The meaning of a code, `None` for the 88 byte values the table does not name.
pub fn code_meaning(code: u8) -> Option<CodeMeaning> {
    MEANINGS[usize::from(code)]
}

/// The code for the `index`-th (0-based) piece of `role` moving (dx, dy) mod 8.
pub fn step_code(role: Role, index: u8, dx: u8, dy: u8) -> Option<u8> {
    let s = slot(role, index)?;
    let c = CODES[s * 64 + usize::from(dy & 7) * 8 + usize::from(dx & 7)];
    (c != NO_CODE).then_some(c as u8)
}

/// Why a move code could not be turned into a legal move, or a move into a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveCodeError {
    /// The byte is not in the code table.
    #[error("unknown move code {0:#04x}")]
    UnknownCode(u8),
    /// The board has no such piece (e.g. "second knight" with one knight left).
    #[error("move code {0:#04x}: no such piece on the board")]
    NoSuchPiece(u8),
    /// The coded move is not legal in the position.
    #[error("move code {0:#04x}: the coded move is illegal")]
    Illegal(u8),
    /// An underpromotion: the format only queens.
    #[error("underpromotion cannot be coded")]
    Underpromotion,
    /// A piece beyond the table (third knight, second king, ninth pawn …).
    #[error("{0:?} number {1} has no code")]
    NoCodeForPiece(Role, u8),
    /// A displacement the table has no code for (cannot happen for legal moves).
    #[error("no code for this displacement")]
    NoCodeForStep,
    /// Not a chess move (a drop).
    #[error("not a standard chess move")]
    NotStandard,
}

/// Real square of the `index`-th piece of the side to move of `role`, counted on the
/// normalised board in key order.
fn nth_piece(pos: &Chess, t: Transform, role: Role, index: u8) -> Option<Square> {
    let real = pos.board().by_piece(Piece {
        color: pos.turn(),
        role,
    });
    let mut normalised: [u32; 64] = [0; 64];
    let mut n = 0;
    for sq in real {
        normalised[n] = key_order_index(t.square(sq));
        n += 1;
    }
    let list = &mut normalised[..n];
    list.sort_unstable();
    let k = *list.get(usize::from(index))?;
    Some(t.square(super::key::key_order_square(k)))
}

/// Decodes a move code on a real position (any side to move) whose normalisation is `t`
/// (normally [`Transform::of`] the position). Returns the legal move on the real board.
pub fn decode_move(pos: &Chess, t: Transform, code: u8) -> Result<Move, MoveCodeError> {
    match decode_move_as(pos, t, code, code_meaning(code)) {
        Err(MoveCodeError::Illegal(_) | MoveCodeError::NoSuchPiece(_))
            if SWAPPABLE_QUEEN_CODES.contains(&code) =>
        {
            // The other reading of the possibly swapped pair.
            let other = if code == 0x1A { 0xF9 } else { 0x1A };
            decode_move_as(pos, t, code, code_meaning(other))
        }
        r => r,
    }
}

fn decode_move_as(
    pos: &Chess,
    t: Transform,
    code: u8,
    meaning: Option<CodeMeaning>,
) -> Result<Move, MoveCodeError> {
    match meaning.ok_or(MoveCodeError::UnknownCode(code))? {
        CodeMeaning::Castle(side) => pos
            .castling_moves(side)
            .first()
            .copied()
            .ok_or(MoveCodeError::Illegal(code)),
        CodeMeaning::Step {
            role,
            index,
            dx,
            dy,
        } => {
            let from = nth_piece(pos, t, role, index).ok_or(MoveCodeError::NoSuchPiece(code))?;
            let from_n = t.square(from);
            let file = (from_n.file().to_u32() + u32::from(dx)) % 8;
            let rank = (from_n.rank().to_u32() + u32::from(dy)) % 8;
            let to_n = Square::from_coords(shakmaty::File::new(file), Rank::new(rank));
            let to = t.square(to_n);
            let promotion =
                (role == Role::Pawn && to_n.rank() == Rank::Eighth).then_some(Role::Queen);
            pos.san_candidates(role, to)
                .into_iter()
                .find(|m| m.from() == Some(from) && m.promotion() == promotion)
                .ok_or(MoveCodeError::Illegal(code))
        }
    }
}

/// Encodes a legal move of a real position (any side to move) whose normalisation is `t`.
pub fn encode_move(pos: &Chess, t: Transform, m: Move) -> Result<u8, MoveCodeError> {
    match m {
        Move::Castle { king, rook } => Ok(if rook.file() > king.file() {
            CODE_CASTLE_SHORT
        } else {
            CODE_CASTLE_LONG
        }),
        Move::Put { .. } => Err(MoveCodeError::NotStandard),
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            if promotion.is_some_and(|p| p != Role::Queen) {
                return Err(MoveCodeError::Underpromotion);
            }
            step(pos, t, role, from, to)
        }
        Move::EnPassant { from, to } => step(pos, t, Role::Pawn, from, to),
    }
}

fn step(
    pos: &Chess,
    t: Transform,
    role: Role,
    from: Square,
    to: Square,
) -> Result<u8, MoveCodeError> {
    let from_n = t.square(from);
    let to_n = t.square(to);
    let order = key_order_index(from_n);
    let index = pos
        .board()
        .by_piece(Piece {
            color: pos.turn(),
            role,
        })
        .into_iter()
        .filter(|&sq| key_order_index(t.square(sq)) < order)
        .count();
    let index = u8::try_from(index).unwrap_or(u8::MAX);
    slot(role, index).ok_or(MoveCodeError::NoCodeForPiece(role, index + 1))?;
    let dx = ((to_n.file().to_u32() + 8 - from_n.file().to_u32()) % 8) as u8;
    let dy = ((to_n.rank().to_u32() + 8 - from_n.rank().to_u32()) % 8) as u8;
    step_code(role, index, dx, dy).ok_or(MoveCodeError::NoCodeForStep)
}

/// The annotation NAG held in the low 5 bits of a move's annotation byte (`None` for 0).
/// The high bits (seen `0x20`, `0xE0`) have no known meaning and are kept raw elsewhere.
pub fn annotation_nag(raw: u8) -> Option<u8> {
    let nag = raw & 0x1f;
    (nag != 0).then_some(nag)
}
