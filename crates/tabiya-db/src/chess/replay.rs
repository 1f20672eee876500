//! Replaying a stored game to recover its counted positions, without decoding it into a
//! [`tabiya_pgn::Game`] (what index merges and queries do for games they cannot tell apart
//! by their entries alone).

use shakmaty::Chess;

use super::key::{successor_keys, successors};
use super::moves::decode_move_ep;
use super::moves::move_code;
use super::stored::{body_head, skip_tags};
use super::walk::{Reach, count_positions};
use crate::codec::{DecodeError, Reader};
use crate::game::Occurrence;

/// The counted positions (and plies) of a stored game, decoding its moves as it goes: one
/// pass, no list of moves. The same as [`decode_line`] then [`occurrences_with_plies`].
pub fn replay_record(
    data: &[u8],
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<(), DecodeError> {
    replay_record_until(data, max_ply, None, out, plies)
}

/// [`replay_record`] that stops once the position `stop_at` is counted (it is then the last
/// occurrence given), or, given its [`Reach`], once the game can no longer reach it: how a
/// query checks that a game reaches a position without replaying the rest of it.
pub fn replay_record_until(
    data: &[u8],
    max_ply: Option<u32>,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<(), DecodeError> {
    replay_record_to(data, max_ply, stop_at, out, plies).map(|_| ())
}

/// [`replay_record_until`], returning the position the replay stopped at.
fn replay_record_to(
    data: &[u8],
    max_ply: Option<u32>,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<Chess, DecodeError> {
    let mut r = Reader::new(data);
    let (pos, n) = record_start(&mut r)?;
    let limit = max_ply.map_or(n, |m| (m as usize).min(n));
    // The move played at the cap is counted too (it is that position's move).
    let mut left = (limit + 1).min(n);
    count_positions(pos, limit, stop_at, out, plies, |pos, ep| {
        if left == 0 {
            return Ok(None);
        }
        left -= 1;
        decode_move_ep(pos, ep, &mut r).map(Some)
    })
}

/// Reads a stored game up to its moves: the start position and the number of plies.
fn record_start(r: &mut Reader) -> Result<(Chess, usize), DecodeError> {
    skip_tags(r)?;
    let (_, _, pos, n) = body_head(r)?;
    Ok((pos, n))
}

/// The keys of the positions one legal move after position `key` in a stored game (its
/// first occurrence), or `None` when the game never reaches it.
pub fn successor_keys_in_record(data: &[u8], key: u128) -> Result<Option<Vec<u128>>, DecodeError> {
    Ok(position_in_record(data, key)?.map(|at| successor_keys(&at)))
}

/// Every legal move (its code) of position `key` in a stored game (its first occurrence),
/// with the key of the position it leads to; `None` when the game never reaches it.
pub fn successors_in_record(
    data: &[u8],
    key: u128,
) -> Result<Option<Vec<(u16, u128)>>, DecodeError> {
    Ok(position_in_record(data, key)?.map(|at| {
        successors(&at)
            .into_iter()
            .map(|(m, k)| (move_code(&m), k))
            .collect()
    }))
}

/// Position `key` as a stored game first reaches it, or `None` when it never does.
fn position_in_record(data: &[u8], key: u128) -> Result<Option<Chess>, DecodeError> {
    let (mut occs, mut plies) = (Vec::new(), Vec::new());
    let at = replay_record_to(data, None, Some((key, None)), &mut occs, &mut plies)?;
    Ok(occs.last().is_some_and(|o| o.key == key).then_some(at))
}
