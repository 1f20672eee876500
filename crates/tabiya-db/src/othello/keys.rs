//! Othello positions in the index: canonical keys spread by a bijective mixer, and the
//! positions a game counts.

use tabiya_othello::{Board, Color, IllegalMove, PositionKey, Replay, Square, canonicalize};

use super::stored::StoredGame;
use crate::game::{NO_MOVE, Occurrence};
use crate::{Error, Result};

pub(crate) const M1: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835;

pub(crate) const M2: u128 = 0xc2b2_ae3d_27d4_eb4f_1656_67b1_9e37_79f9;

const fn inverse_odd(c: u128) -> u128 {
    // Newton's iteration for the inverse mod 2^128: x ← x(2 − cx); x = c is right to 3 bits
    // for odd c and every step doubles that.
    let mut x = c;
    let mut i = 0;
    while i < 7 {
        x = x.wrapping_mul(2u128.wrapping_sub(c.wrapping_mul(x)));
        i += 1;
    }
    x
}

pub(crate) const M1_INV: u128 = inverse_odd(M1);

pub(crate) const M2_INV: u128 = inverse_odd(M2);

/// The index key of a canonical position: the [`PositionKey`] through a bijection (xor-shift,
/// multiply by odd constants) that spreads every bit over the top 32 bits, which the index uses
/// as the prefix of rare positions. (A canonical key's top bits are black's discs on rows 5–8,
/// which the canonical form tends to leave empty.) [`position_key_of`] inverts it.
pub const fn index_key(key: PositionKey) -> u128 {
    let mut x = key.0;
    x ^= x >> 64;
    x = x.wrapping_mul(M1);
    x ^= x >> 64;
    x = x.wrapping_mul(M2);
    x ^= x >> 64;
    x
}

/// The canonical [`PositionKey`] of an index key (inverse of [`index_key`]).
pub const fn position_key_of(index: u128) -> PositionKey {
    let mut x = index;
    x ^= x >> 64;
    x = x.wrapping_mul(M2_INV);
    x ^= x >> 64;
    x = x.wrapping_mul(M1_INV);
    x ^= x >> 64;
    PositionKey(x)
}

/// The board with the side that plays next to move: after an implicit pass when the side to
/// move has no legal move; black when neither side can move.
pub fn settle(board: &Board) -> Board {
    if board.legal_moves() != 0 {
        *board
    } else if board.legal_moves_for(board.side().other()) != 0 {
        board.with_side(board.side().other())
    } else {
        board.with_side(Color::Black)
    }
}

pub(crate) fn mover(c: Color) -> u8 {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// The counted positions of a game: one per position before each move (canonical key, move in
/// canonical orientation, side to move), then the final position with [`NO_MOVE`].
pub fn occurrences(
    moves: &[Square],
    out: &mut Vec<Occurrence>,
) -> std::result::Result<Board, IllegalMove> {
    out.clear();
    let mut replay = Replay::new(moves);
    for ply in replay.by_ref() {
        let ply = ply?;
        out.push(Occurrence {
            key: index_key(ply.canonical.key),
            code: ply.canonical_move.index() as u16,
            mover: mover(ply.board.side()),
        });
    }
    let last = settle(replay.board());
    out.push(Occurrence {
        key: index_key(canonicalize(&last).key),
        code: NO_MOVE,
        mover: mover(last.side()),
    });
    Ok(last)
}

/// The counted positions of a stored game (for the index's replays).
pub fn record_occurrences(data: &[u8]) -> Result<Vec<Occurrence>> {
    let game = StoredGame::decode(data)?;
    let mut out = Vec::with_capacity(game.moves.len() + 1);
    occurrences(&game.moves, &mut out)
        .map_err(|e| Error::Corrupt(format!("stored Othello game has an illegal move: {e}")))?;
    Ok(out)
}
