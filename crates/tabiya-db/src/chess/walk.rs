//! The positions a game counts: every main-line position up to the ply cap, each once at its
//! first occurrence, with the move played there; and [`Reach`], what a game must still have
//! to reach a position later.

use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Position, Square};

use super::key::{next_key_from, position_key};
use super::moves::{encode_move_ep, move_code};
use crate::codec::DecodeError;
use crate::game::{NO_MOVE, Occurrence};

/// The positions a game counts: every main-line position up to `max_ply` (inclusive), each
/// once at its first occurrence, with the move played there.
pub fn occurrences(start: &Chess, moves: &[Move], max_ply: Option<u32>, out: &mut Vec<Occurrence>) {
    occurrences_with_plies(start, moves, max_ply, out, None);
}

/// [`occurrences`], also giving the ply of each position (positions repeated later in the
/// game are skipped, so consecutive entries are not always consecutive plies).
pub fn occurrences_with_plies(
    start: &Chess,
    moves: &[Move],
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: Option<&mut Vec<u16>>,
) {
    walk(
        start,
        moves.iter().copied(),
        moves.len(),
        max_ply,
        out,
        plies,
        None,
    );
}

/// One pass over a game's main line: the counted positions (up to the ply cap) and, when
/// asked, the move codes of every move (the stored form's main line).
pub(crate) fn walk(
    start: &Chess,
    moves: impl Iterator<Item = Move>,
    len: usize,
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: Option<&mut Vec<u16>>,
    mut codes: Option<&mut Vec<u8>>,
) {
    let limit = max_ply.map_or(len, |m| (m as usize).min(len));
    // The move played at the cap is counted too (it is that position's move).
    let end = if codes.is_some() {
        len
    } else {
        (limit + 1).min(len)
    };
    let mut next = moves.take(end);
    let mut scratch = Vec::new();
    let plies = plies.unwrap_or(&mut scratch);
    let result: Result<Chess, DecodeError> =
        count_positions(start.clone(), limit, None, out, plies, |pos, ep| {
            Ok(next.next().inspect(|m| {
                if let Some(c) = codes.as_deref_mut() {
                    encode_move_ep(pos, m, ep, c);
                }
            }))
        });
    debug_assert!(result.is_ok(), "moves from a list never fail");
}

/// The counted positions of a line given move by move: `next_move` returns the move played
/// from a position (`None` at the end); positions after `limit` plies are not counted (the
/// moves are still asked for, so a caller can encode the whole line). With `stop_at`, it
/// returns as soon as that position is counted. Returns the position it stopped at.
pub(crate) fn count_positions(
    mut pos: Chess,
    limit: usize,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
    mut next_move: impl FnMut(&Chess, Option<Square>) -> Result<Option<Move>, DecodeError>,
) -> Result<Chess, DecodeError> {
    out.clear();
    plies.clear();
    let mut walk = Walk::new(&pos, limit, out);
    loop {
        if let Some((_, Some(reach))) = stop_at
            && !reach.possible(&pos)
        {
            return Ok(pos);
        }
        let m = next_move(&pos, walk.ep())?;
        let code = m.as_ref().map_or(NO_MOVE, move_code);
        if walk.count(pos.turn(), code, out, plies) && stop_at.is_some_and(|(k, _)| k == walk.key())
        {
            return Ok(pos);
        }
        let Some(m) = m else { return Ok(pos) };
        let before = walk.leave(&pos, m, out);
        pos.play_unchecked(m);
        walk.arrive(&before, &pos, m);
        debug_assert_eq!(walk.key(), position_key(&pos));
    }
}

/// The counting walk along a line, one position at a time: the current position's key and
/// en-passant square, its ply, and where the positions that can still repeat begin. A caller
/// that plays the moves itself (the importer's direct path) drives it with
/// [`Walk::count`], [`Walk::leave`] and [`Walk::arrive`]; [`count_positions`] does the same.
pub struct Walk {
    key: u128,
    ep: Option<Square>,
    /// First entry of `out` the current position may repeat (positions before the last
    /// irreversible move cannot).
    window_start: usize,
    ply: usize,
    limit: usize,
}

/// What [`Walk::arrive`] needs of the position a move left.
pub struct Left {
    turn: Color,
    castles: shakmaty::Castles,
}

impl Walk {
    /// A walk from `pos`, counting up to `limit` plies, appending to `out` (which may hold
    /// other games' positions before this one's).
    pub fn new(pos: &Chess, limit: usize, out: &[Occurrence]) -> Walk {
        Walk {
            key: position_key(pos),
            ep: pos.ep_square(EnPassantMode::Legal),
            window_start: out.len(),
            ply: 0,
            limit,
        }
    }

    /// The current position's key.
    pub fn key(&self) -> u128 {
        self.key
    }

    /// The current position's en-passant square when a capture there is legal.
    pub fn ep(&self) -> Option<Square> {
        self.ep
    }

    /// Counts the current position (`turn` to move, `code` the move played from it or
    /// [`NO_MOVE`]) unless it is past the ply cap or already counted in this game. Returns
    /// whether it was counted.
    pub fn count(
        &mut self,
        turn: Color,
        code: u16,
        out: &mut Vec<Occurrence>,
        plies: &mut Vec<u16>,
    ) -> bool {
        if self.ply > self.limit || out[self.window_start..].iter().any(|o| o.key == self.key) {
            return false;
        }
        out.push(Occurrence {
            key: self.key,
            code,
            mover: if turn == Color::White { 0 } else { 1 },
        });
        plies.push(self.ply.min(u16::MAX as usize) as u16);
        true
    }

    /// `m` is about to be played from `pos`, counted or not (`out` as it is then).
    pub fn leave(&mut self, pos: &Chess, m: Move, out: &[Occurrence]) -> Left {
        if pos.is_irreversible(m) {
            self.window_start = out.len();
        }
        Left {
            turn: pos.turn(),
            castles: pos.castles().clone(),
        }
    }

    /// `after` is the position `m` led to.
    pub fn arrive(&mut self, before: &Left, after: &Chess, m: Move) {
        let after_ep = after.ep_square(EnPassantMode::Legal);
        self.key = next_key_from(
            before.turn,
            &before.castles,
            after,
            m,
            self.key,
            self.ep,
            after_ep,
        );
        self.ep = after_ep;
        self.ply += 1;
    }
}

/// What a game must still have to reach a position later: men are never added (a side's
/// count only falls, promotions included), a pawn on its own second rank has never moved (no
/// pawn can arrive there), and castling rights, once lost, never come back. A replay looking
/// for a position stops at the first position failing this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    white: u32,
    black: u32,
    /// White pawns on the second rank, black pawns on the seventh.
    home_white: Bitboard,
    home_black: Bitboard,
    castling: Bitboard,
}

impl Reach {
    pub fn of(pos: &Chess) -> Reach {
        let b = pos.board();
        Reach {
            white: b.white().count() as u32,
            black: b.black().count() as u32,
            home_white: b.pawns() & b.white() & Bitboard::from_rank(shakmaty::Rank::Second),
            home_black: b.pawns() & b.black() & Bitboard::from_rank(shakmaty::Rank::Seventh),
            castling: pos.castles().castling_rights(),
        }
    }

    /// False when no continuation of `pos` can reach the position.
    pub fn possible(&self, pos: &Chess) -> bool {
        let b = pos.board();
        b.white().count() as u32 >= self.white
            && b.black().count() as u32 >= self.black
            && self.home_white.is_subset(b.pawns() & b.white())
            && self.home_black.is_subset(b.pawns() & b.black())
            && self.castling.is_subset(pos.castles().castling_rights())
    }
}
