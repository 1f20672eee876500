//! Position keys: the 128-bit Zobrist hash the index is keyed by, updated move by move.

use shakmaty::zobrist::Zobrist128;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role, Square};

/// The index key of a position: 128-bit Zobrist hash of piece placement, side to move,
/// castling rights, and the en-passant square only when an en-passant capture is legal.
pub fn position_key(pos: &Chess) -> u128 {
    pos.zobrist_hash::<Zobrist128>(EnPassantMode::Legal).0
}

/// The key of the position after `m`, from the key of the position before it, without
/// hashing the whole board again. `before_ep`/`after_ep` are the positions' en-passant
/// squares when an en-passant capture is legal (the only case the key includes them).
pub fn next_key(
    before: &Chess,
    after: &Chess,
    m: Move,
    key: u128,
    before_ep: Option<Square>,
    after_ep: Option<Square>,
) -> u128 {
    next_key_from(
        before.turn(),
        before.castles(),
        after,
        m,
        key,
        before_ep,
        after_ep,
    )
}

/// [`next_key`] from what it needs of the position before the move: side to move and
/// castling rights.
pub fn next_key_from(
    turn: Color,
    castles_before: &shakmaty::Castles,
    after: &Chess,
    m: Move,
    key: u128,
    before_ep: Option<Square>,
    after_ep: Option<Square>,
) -> u128 {
    use shakmaty::zobrist::ZobristValue;
    let mut k = Zobrist128(key);
    k ^= Zobrist128::zobrist_for_white_turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            k ^= Zobrist128::zobrist_for_piece(from, role.of(turn));
            k ^= Zobrist128::zobrist_for_piece(to, promotion.unwrap_or(role).of(turn));
            if let Some(c) = capture {
                k ^= Zobrist128::zobrist_for_piece(to, c.of(!turn));
            }
        }
        Move::EnPassant { from, to } => {
            k ^= Zobrist128::zobrist_for_piece(from, Role::Pawn.of(turn));
            k ^= Zobrist128::zobrist_for_piece(to, Role::Pawn.of(turn));
            k ^= Zobrist128::zobrist_for_piece(
                Square::from_coords(to.file(), from.rank()),
                Role::Pawn.of(!turn),
            );
        }
        Move::Castle { king, rook } => {
            let side = if rook > king {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            k ^= Zobrist128::zobrist_for_piece(king, Role::King.of(turn));
            k ^= Zobrist128::zobrist_for_piece(side.king_to(turn), Role::King.of(turn));
            k ^= Zobrist128::zobrist_for_piece(rook, Role::Rook.of(turn));
            k ^= Zobrist128::zobrist_for_piece(side.rook_to(turn), Role::Rook.of(turn));
        }
        Move::Put { .. } => return position_key(after),
    }
    let (cb, ca) = (castles_before, after.castles());
    if cb.castling_rights() != ca.castling_rights() {
        for color in Color::ALL {
            for side in shakmaty::CastlingSide::ALL {
                if cb.has(color, side) != ca.has(color, side) {
                    k ^= Zobrist128::zobrist_for_castling_right(color, side);
                }
            }
        }
    }
    if let Some(sq) = before_ep {
        k ^= Zobrist128::zobrist_for_en_passant_file(sq.file());
    }
    if let Some(sq) = after_ep {
        k ^= Zobrist128::zobrist_for_en_passant_file(sq.file());
    }
    k.0
}

/// Keys of the positions one legal move away (for finding positions the index keeps only
/// through their successor, see `run::build`).
pub fn successor_keys(pos: &Chess) -> Vec<u128> {
    successors(pos).into_iter().map(|(_, k)| k).collect()
}

/// Each legal move of a position with the key of the position it leads to.
pub fn successors(pos: &Chess) -> Vec<(Move, u128)> {
    let key = position_key(pos);
    let ep = pos.ep_square(EnPassantMode::Legal);
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut p = pos.clone();
            p.play_unchecked(m);
            let after_ep = p.ep_square(EnPassantMode::Legal);
            (
                m,
                next_key_from(pos.turn(), pos.castles(), &p, m, key, ep, after_ep),
            )
        })
        .collect()
}
