//! A chess position of a segment's game told from the segment's occurrences alone, and the
//! positions one legal move away from it: what a build needs to say where a T record's
//! legal moves not played lead ([`super::record::TRecord::elsewhere`]).

use shakmaty::{Chess, Position};

use super::record::Occ;
use crate::chess::key::{position_key, successors};
use crate::chess::moves::{code_to_move, move_code};

/// Every legal move (its code) of the position of occurrence `o`, with the key of the
/// position it leads to. The position is replayed from its game's first occurrence by the
/// occurrences' moves, so it is told only when that game starts from the standard position
/// and has every ply counted up to `o` (no repeated position left out before it); `None`
/// otherwise, or when the replay does not reach `o`'s key.
pub fn chess_successors(occs: &[Occ], plies: &[u16], o: usize) -> Option<Vec<(u16, u128)>> {
    let game = occs[o].game;
    let mut first = o;
    while first > 0 && occs[first - 1].game == game {
        first -= 1;
    }
    let mut pos = Chess::default();
    if plies[first] != 0 || occs[first].key != position_key(&pos) {
        return None;
    }
    for j in first..o {
        if plies[j + 1] != plies[j].wrapping_add(1) {
            return None;
        }
        let m = code_to_move(&pos, occs[j].code)?;
        pos.play_unchecked(m);
    }
    if position_key(&pos) != occs[o].key {
        return None;
    }
    Some(
        successors(&pos)
            .into_iter()
            .map(|(m, k)| (move_code(&m), k))
            .collect(),
    )
}
