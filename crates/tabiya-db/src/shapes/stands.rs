//! Where each shape of a game begins: its *stands*. A game's material and pawn structure
//! never come back once left (see [`super::keys`]), so the first position of each is the
//! first matching position of an exact material or pawn-structure search, and everything
//! such a search counts of the game — the move played there, the side to move, the pawn
//! structure that follows — is known from one replay. What the shape statistics sum
//! (`super::stats`), and what a change takes back out of them.

use shakmaty::{Board, Chess, Color, Position, Role};

use super::keys::material_code;
use crate::chess::moves::move_code;
use crate::chess::stored::decode_line;
use crate::codec::DecodeError;
use crate::game::NO_MOVE;

/// Bit 127 of a [`Shape`] marks a material code; a pawn structure has it clear (it is h8 of
/// White's pawns, where no pawn stands).
const MATERIAL_FLAG: u128 = 1 << 127;

/// An exact material or pawn structure as one number: a material code (see
/// [`super::keys::material_code`]) with bit 127 set, or White's pawns in the high half
/// and Black's in the low (as `tabiya_structure::PawnStructure::key`).
pub type Shape = u128;

/// The shape of a material code.
pub fn material_shape(code: u64) -> Shape {
    MATERIAL_FLAG | u128::from(code)
}

/// The shape of a pawn structure (White's pawns, Black's).
pub fn pawns_shape(white: u64, black: u64) -> Shape {
    (u128::from(white) << 64) | u128::from(black)
}

/// The material code of a shape, if it is one.
pub fn shape_material(shape: Shape) -> Option<u64> {
    (shape & MATERIAL_FLAG != 0).then_some(shape as u64)
}

fn board_pawns(board: &Board) -> Shape {
    let pawns = board.by_role(Role::Pawn);
    pawns_shape(
        (pawns & board.by_color(Color::White)).0,
        (pawns & board.by_color(Color::Black)).0,
    )
}

/// The first position of one shape in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stand {
    pub shape: Shape,
    /// Its first ply (0: the start position).
    pub ply: u32,
    /// The side to move there (0: White).
    pub mover: u8,
    /// The move played there ([`NO_MOVE`]: the game ended there).
    pub code: u16,
    /// For a pawn structure: the pawn structure that follows it, if the game reaches one.
    pub next: Option<Shape>,
}

/// Every stand of a stored game's main line, in the order they begin (a material code and a
/// pawn structure beginning at one ply: the pawns first).
pub fn stands(raw: &[u8]) -> Result<Vec<Stand>, DecodeError> {
    let (start, _, line, _) = decode_line(raw)?;
    let mut out: Vec<Stand> = Vec::with_capacity(48);
    let mut pos: Chess = start;
    let (mut material, mut pawns) = (None, None);
    let mut last_pawns: Option<usize> = None;
    for ply in 0..=line.len() {
        let board = pos.board();
        let mover = u8::from(pos.turn() == Color::Black);
        let code = line.get(ply).map_or(NO_MOVE, move_code);
        let p = board_pawns(board);
        if pawns != Some(p) {
            pawns = Some(p);
            if let Some(i) = last_pawns {
                out[i].next = Some(p);
            }
            last_pawns = Some(out.len());
            out.push(Stand {
                shape: p,
                ply: ply as u32,
                mover,
                code,
                next: None,
            });
        }
        let m = material_code(board);
        if material != Some(m) {
            material = Some(m);
            out.push(Stand {
                shape: material_shape(m),
                ply: ply as u32,
                mover,
                code,
                next: None,
            });
        }
        if let Some(m) = line.get(ply) {
            pos.play_unchecked(*m);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::keys::material_counts;

    /// Names as numbers that mean nothing (the moves are what is read back).
    struct Unnamed;
    impl crate::game::Names for Unnamed {
        fn id(&mut self, _: crate::Dict, _: &str) -> u32 {
            0
        }
    }

    fn stored_game(moves: &str) -> Vec<u8> {
        let pgn = format!("[Result \"*\"]\n\n{moves} *");
        let g = tabiya_pgn::parse_game(pgn.as_bytes(), 1).unwrap();
        let mut out = Vec::new();
        crate::chess::stored::encode_game(&g, &mut Unnamed, &mut out);
        out
    }

    #[test]
    fn each_shape_begins_once_with_its_move_and_what_follows() {
        let game = stored_game("1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5");
        let s = stands(&game).unwrap();
        let pawns: Vec<&Stand> = s
            .iter()
            .filter(|s| shape_material(s.shape).is_none())
            .collect();
        let material: Vec<&Stand> = s
            .iter()
            .filter(|s| shape_material(s.shape).is_some())
            .collect();
        // Pawns: the start, after e4, d5, exd5, Qxd5 (the d5 pawn taken).
        assert_eq!(
            pawns.iter().map(|s| s.ply).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        assert_eq!(pawns[0].next, Some(pawns[1].shape));
        assert_eq!(pawns[4].next, None, "the game ends in that structure");
        // Black is to move after 1. e4; 1... d5 is played there (d7d5).
        assert_eq!((pawns[1].mover, pawns[1].code), (1, 51 | 35 << 6));
        // Material: the start, Black a pawn down after exd5, even after Qxd5.
        assert_eq!(
            material.iter().map(|s| s.ply).collect::<Vec<_>>(),
            vec![0, 3, 4]
        );
        let black = |s: &Stand| material_counts(shape_material(s.shape).unwrap())[1][4];
        assert_eq!((black(material[0]), black(material[1])), (8, 7));
        // Nc3 and Qa5 change nothing: the last stands' moves are Qxd5's successors.
        assert_eq!(material[2].code, pawns[4].code);
    }
}
