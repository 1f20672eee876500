//! Move codes: the 16-bit code the index keeps per move, and the one-or-two-byte form of a
//! move in a stored game (decoded by counting bits, without move generation).

use shakmaty::{
    Bitboard, Chess, Color, EnPassantMode, Move, Piece, Position, Role, Square, attacks,
};

use crate::codec::{DecodeError, Reader};
use crate::game::NO_MOVE;

fn role_bits(r: Role) -> u16 {
    r as u16
}

/// A 16-bit move code: from square (bits 0–5), to square (6–11), promotion role (12–14),
/// castling flag (15; then `to` is the rook's square, which also covers Chess960).
pub fn move_code(m: &Move) -> u16 {
    match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => from as u16 | (to as u16) << 6 | promotion.map_or(0, role_bits) << 12,
        Move::EnPassant { from, to } => from as u16 | (to as u16) << 6,
        Move::Castle { king, rook } => king as u16 | (rook as u16) << 6 | 1 << 15,
        Move::Put { to, role } => (to as u16) << 6 | role_bits(role) << 12 | 0x3f,
    }
}

/// A move's UCI and SAN as a structure search lists it: a black move's SAN after `...`
/// (`...Be7`), as a move of Black's alone is written.
pub fn names_as_played(pos: &Chess, m: &Move, mode: shakmaty::CastlingMode) -> (String, String) {
    let san = shakmaty::san::SanPlus::from_move(pos.clone(), *m).to_string();
    let uci = shakmaty::uci::UciMove::from_move(*m, mode).to_string();
    match pos.turn() {
        Color::White => (uci, san),
        Color::Black => (uci, format!("...{san}")),
    }
}

/// The legal move of `pos` with this code.
pub fn code_to_move(pos: &Chess, code: u16) -> Option<Move> {
    if code == NO_MOVE {
        return None;
    }
    pos.legal_moves().into_iter().find(|m| move_code(m) == code)
}

/// The squares the piece on `from` may go to, which move codes count in ascending order,
/// and whether they are promotions (then each square counts four times: queen, rook,
/// bishop, knight). Castling is the king going to its rook. Pseudo-legal: stored games were
/// checked when imported.
pub(crate) fn target_squares(pos: &Chess, from: Square, ep: Option<Square>) -> (Bitboard, bool) {
    match pos.board().piece_at(from) {
        Some(piece) => targets_of(pos, from, piece, ep),
        None => (Bitboard::EMPTY, false),
    }
}

/// [`target_squares`] of `piece`, which stands on `from`.
fn targets_of(pos: &Chess, from: Square, piece: Piece, ep: Option<Square>) -> (Bitboard, bool) {
    let board = pos.board();
    let us = board.by_color(piece.color);
    let occupied = board.occupied();
    match piece.role {
        Role::Pawn => {
            let forward: i32 = if piece.color == Color::White { 8 } else { -8 };
            let mut t = Bitboard::EMPTY;
            if let Some(one) = from.offset(forward)
                && !occupied.contains(one)
            {
                t |= Bitboard::from_square(one);
                let start_rank = if piece.color == Color::White {
                    shakmaty::Rank::Second
                } else {
                    shakmaty::Rank::Seventh
                };
                if from.rank() == start_rank
                    && let Some(two) = one.offset(forward)
                    && !occupied.contains(two)
                {
                    t |= Bitboard::from_square(two);
                }
            }
            let mut capturable = board.by_color(!piece.color);
            if let Some(ep) = ep {
                capturable |= Bitboard::from_square(ep);
            }
            let seventh = if piece.color == Color::White {
                shakmaty::Rank::Seventh
            } else {
                shakmaty::Rank::Second
            };
            (
                t | (attacks::pawn_attacks(piece.color, from) & capturable),
                from.rank() == seventh,
            )
        }
        Role::King => (
            (attacks::king_attacks(from) & !us)
                | (pos.castles().castling_rights() & us & board.rooks()),
            false,
        ),
        role => (
            attacks::attacks(
                from,
                Piece {
                    color: piece.color,
                    role,
                },
                occupied,
            ) & !us,
            false,
        ),
    }
}

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Appends a move's code: one byte, the index of the moving piece among the mover's pieces
/// (ascending square) in the high nibble and the index of its target (see
/// [`target_squares`]) in the low nibble; a target index of 15 or more is written as 15 and
/// a second byte with the rest. Both directions count bits: no move generation, so replays
/// are fast.
pub fn encode_move(pos: &Chess, m: &Move, out: &mut Vec<u8>) {
    encode_move_ep(pos, m, pos.ep_square(EnPassantMode::Legal), out);
}

/// [`encode_move`] given the position's en-passant square (when a capture there is legal),
/// for a caller that knows it already.
pub fn encode_move_ep(pos: &Chess, m: &Move, ep: Option<Square>, out: &mut Vec<u8>) {
    let (from, to, promo) = match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { to, .. } => (to, to, None),
    };
    let us = pos.us();
    let piece_idx = (us & Bitboard((1u64 << from as u32) - 1)).count() as u8;
    let (squares, promoting) = target_squares(pos, from, ep);
    let below = (squares & Bitboard((1u64 << to as u32) - 1)).count();
    let t = match (
        squares.contains(to),
        promoting,
        promo.and_then(|r| PROMOTIONS.iter().position(|&p| p == r)),
    ) {
        (true, false, None) => below,
        (true, true, Some(p)) => below * 4 + p,
        // Not a move of this piece: the first target (never for a checked game).
        _ => 0,
    };
    if t < 15 {
        out.push(piece_idx << 4 | t as u8);
    } else {
        out.push(piece_idx << 4 | 15);
        out.push((t - 15) as u8);
    }
}

/// Per byte value: how many bits it has set.
const BYTE_COUNT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).count_ones() as u8;
        b += 1;
    }
    t
};

/// Per byte value and `n`: the index of its `n`-th set bit (0: the lowest; 8: none).
const BYTE_NTH: [[u8; 8]; 256] = {
    let mut t = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The `n`-th square of `squares` (0: the lowest): whole bytes skipped by their count, then
/// the square read from a table (a replay asks this twice a move).
fn nth_square(squares: Bitboard, n: usize) -> Option<Square> {
    let (mut left, mut n, mut base) = (squares.0, n, 0u32);
    while left != 0 {
        let byte = (left & 0xff) as usize;
        let count = BYTE_COUNT[byte] as usize;
        if n < count {
            return Some(Square::new(base + u32::from(BYTE_NTH[byte][n])));
        }
        n -= count;
        left >>= 8;
        base += 8;
    }
    None
}

/// Reads one move code (see [`encode_move`]).
pub fn decode_move(pos: &Chess, r: &mut Reader<'_>) -> Result<Move, DecodeError> {
    decode_move_ep(pos, pos.ep_square(EnPassantMode::Legal), r)
}

/// [`decode_move`] given the position's en-passant square (see [`encode_move_ep`]).
pub(crate) fn decode_move_ep(
    pos: &Chess,
    ep: Option<Square>,
    r: &mut Reader<'_>,
) -> Result<Move, DecodeError> {
    let b = r.u8("move")?;
    let piece_idx = (b >> 4) as usize;
    let mut t = (b & 15) as usize;
    if t == 15 {
        t += r.u8("move")? as usize;
    }
    let Some(from) = nth_square(pos.us(), piece_idx) else {
        return Err(r.bad("move piece"));
    };
    let board = pos.board();
    let role = board.role_at(from).expect("one of the mover's pieces");
    let color = pos.turn();
    let (squares, promoting) = targets_of(pos, from, Piece { color, role }, ep);
    let (nth, promotion) = if promoting {
        (t / 4, Some(PROMOTIONS[t % 4]))
    } else {
        (t, None)
    };
    let Some(to) = nth_square(squares, nth) else {
        return Err(r.bad("move target"));
    };
    if role == Role::King && board.by_color(color).contains(to) {
        let castle = Move::Castle {
            king: from,
            rook: to,
        };
        // The targets hold the castling rooks, not whether the way is free: a damaged
        // record could castle through pieces (rare enough to check in full).
        if !pos.is_legal(castle) {
            return Err(r.bad("move: castling"));
        }
        return Ok(castle);
    }
    if board.kings().contains(to) {
        return Err(r.bad("move: a king taken"));
    }
    Ok(plain_move(board, role, from, to, promotion))
}

/// The move of the mover's `role` from `from` to `to` on `board`, not castling: en passant
/// when a pawn goes to an empty square of another file.
pub(crate) fn plain_move(
    board: &shakmaty::Board,
    role: Role,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Move {
    if role == Role::Pawn && from.file() != to.file() && !board.occupied().contains(to) {
        return Move::EnPassant { from, to };
    }
    Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's answer is the `n`-th of the squares as they are listed in order, for
    /// every `n` up to one past the last, on boards from empty to full.
    #[test]
    fn the_nth_square_is_the_nth_listed() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut boards = vec![0, u64::MAX, 1, 1 << 63, 0x8000_0000_0000_0001];
        for _ in 0..2000 {
            // xorshift; every other board sparse (the pieces of one side).
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            boards.push(if boards.len() % 2 == 0 {
                x
            } else {
                x & x.rotate_left(17)
            });
        }
        for b in boards {
            let listed: Vec<Square> = Bitboard(b).into_iter().collect();
            for n in 0..=listed.len() {
                assert_eq!(
                    nth_square(Bitboard(b), n),
                    listed.get(n).copied(),
                    "{b:#x} {n}"
                );
            }
            assert_eq!(nth_square(Bitboard(b), 64), None);
        }
    }
}
