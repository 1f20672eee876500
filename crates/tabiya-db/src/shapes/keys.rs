//! What the structure index keys: a position's material (exact counts, as a code) and its
//! pawns (a 63-bit hash of the two pawn bitboards), and the distinct ones of a game.
//!
//! Neither comes back once left — pawns never move back, a capture lowers the material for
//! good, a promotion takes a pawn away for good — so a game's distinct shapes are its
//! changes: [`GameShapes`] keeps one per change.

use shakmaty::{Board, Color, Role};

/// Bit 63 of a game's shape entry marks a material code (whose 40 bits lie below it); a
/// pawn key has it clear.
pub const MATERIAL_BIT: u64 = 1 << 63;

const ROLES: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The material of a board as a code: four bits per count, White's queens, rooks, bishops,
/// knights and pawns, then Black's (a count past 15 is kept as 15: no legal position has
/// one).
pub fn material_code(board: &Board) -> u64 {
    let mut code = 0u64;
    for color in [Color::White, Color::Black] {
        let mine = board.by_color(color);
        for role in ROLES {
            let n = (board.by_role(role) & mine).count().min(15) as u64;
            code = code << 4 | n;
        }
    }
    code
}

/// The counts of a material code: White's and Black's queens, rooks, bishops, knights,
/// pawns.
pub fn material_counts(code: u64) -> [[u32; 5]; 2] {
    let mut out = [[0u32; 5]; 2];
    for (side, counts) in out.iter_mut().enumerate() {
        for (i, c) in counts.iter_mut().enumerate() {
            let shift = 4 * (9 - (side * 5 + i));
            *c = (code >> shift & 15) as u32;
        }
    }
    out
}

/// The material code of counts (as [`material_counts`] gives them).
pub fn code_of_counts(counts: [[u32; 5]; 2]) -> u64 {
    counts
        .iter()
        .flatten()
        .fold(0u64, |code, n| code << 4 | u64::from((*n).min(15)))
}

/// A bijective mix of 64 bits (splitmix64's finaliser): keys spread evenly over rows.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The index key of a material code (one key per code: the mix is a bijection).
pub fn material_key(code: u64) -> u64 {
    mix(code ^ 0x6d61_7465_7269_616c)
}

/// The index key of a pawn structure (two bitboards): 63 bits of a hash.
pub fn pawns_key(white: u64, black: u64) -> u64 {
    mix(white ^ mix(black ^ 0x7061_776e_7300_0000)) & !MATERIAL_BIT
}

/// The pawn key of a board.
#[cfg(test)]
pub fn board_pawns_key(board: &Board) -> u64 {
    let pawns = board.by_role(Role::Pawn);
    pawns_key(
        (pawns & board.by_color(Color::White)).0,
        (pawns & board.by_color(Color::Black)).0,
    )
}

/// A game's distinct shapes, position by position.
#[derive(Debug, Default)]
pub struct GameShapes {
    material: Option<u64>,
    pawns: Option<(u64, u64)>,
}

impl GameShapes {
    /// Adds the shapes of the game's next position to `out` when they differ from the last
    /// position's: a material code with [`MATERIAL_BIT`] set, a pawn key.
    pub fn position(&mut self, board: &Board, out: &mut Vec<u64>) {
        let pawns = board.by_role(Role::Pawn);
        let pw = (
            (pawns & board.by_color(Color::White)).0,
            (pawns & board.by_color(Color::Black)).0,
        );
        if self.pawns != Some(pw) {
            self.pawns = Some(pw);
            out.push(pawns_key(pw.0, pw.1));
        }
        let m = material_code(board);
        if self.material != Some(m) {
            self.material = Some(m);
            out.push(m | MATERIAL_BIT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    #[test]
    fn codes_count_each_kind() {
        let b: Board = "1K1k4/1P6/8/8/8/8/r7/2R5"
            .parse::<Fen>()
            .map(|f| f.as_setup().board.clone())
            .unwrap();
        let code = material_code(&b);
        // White: a rook and a pawn; Black: a rook.
        assert_eq!(material_counts(code), [[0, 1, 0, 0, 1], [0, 1, 0, 0, 0]]);
        assert_eq!(code, 0x01001_01000);
        assert_eq!(code_of_counts(material_counts(code)), code);
        assert_ne!(material_key(code), material_key(code + 1));
        assert_eq!(board_pawns_key(&b) & MATERIAL_BIT, 0);
    }

    #[test]
    fn a_game_keeps_each_change_once() {
        use shakmaty::{Chess, Position, san::San};
        let mut pos = Chess::default();
        let (mut shapes, mut out) = (GameShapes::default(), Vec::new());
        shapes.position(pos.board(), &mut out);
        for san in ["e4", "d5", "exd5", "Qxd5", "Nc3"] {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            shapes.position(pos.board(), &mut out);
        }
        // Pawns: start, e4, d5, exd5, Qxd5 (the d5 pawn gone); Nc3 changes nothing.
        // Material: start, after exd5 (Black a pawn down), after Qxd5 (even).
        let pawns = out.iter().filter(|k| *k & MATERIAL_BIT == 0).count();
        let materials = out.iter().filter(|k| *k & MATERIAL_BIT != 0).count();
        assert_eq!((pawns, materials), (5, 3));
    }
}
