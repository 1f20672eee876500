//! A position drawn in Unicode for a terminal: the chess symbols (♔♕♖♗♘♙ White, ♚♛♜♝♞♟
//! Black), `·` for an empty square, ranks and files labelled, seen from one side (its
//! pieces at the bottom).

use shakmaty::{Color, File, Position as _, Rank, Role, Square};

use super::view::{Side, position};
use crate::error::Result;

fn symbol(color: Color, role: Role) -> char {
    let white = ['♙', '♘', '♗', '♖', '♕', '♔'];
    let black = ['♟', '♞', '♝', '♜', '♛', '♚'];
    let i = match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    };
    if color.is_white() { white[i] } else { black[i] }
}

/// The diagram of `fen` seen from `from`: nine lines (eight ranks, then the files), each
/// ending in a newline.
pub fn diagram(fen: &str, from: Side) -> Result<String> {
    let pos = position(fen)?;
    let board = pos.board();
    let ranks: Vec<u32> = if from.is_white() {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let files: Vec<u32> = if from.is_white() {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let mut out = String::new();
    for &r in &ranks {
        out.push_str(&format!("{} ", r + 1));
        for &f in &files {
            let sq = Square::from_coords(File::new(f), Rank::new(r));
            out.push(' ');
            out.push(board.piece_at(sq).map_or('·', |p| symbol(p.color, p.role)));
        }
        out.push('\n');
    }
    out.push_str("  ");
    for &f in &files {
        out.push(' ');
        out.push(char::from(b'a' + f as u8));
    }
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sicilian_from_either_side() {
        // 1. e4 c5 2. Nf3, drawn by hand.
        let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
        let white = [
            "8  ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜",
            "7  ♟ ♟ · ♟ ♟ ♟ ♟ ♟",
            "6  · · · · · · · ·",
            "5  · · ♟ · · · · ·",
            "4  · · · · ♙ · · ·",
            "3  · · · · · ♘ · ·",
            "2  ♙ ♙ ♙ ♙ · ♙ ♙ ♙",
            "1  ♖ ♘ ♗ ♕ ♔ ♗ · ♖",
            "   a b c d e f g h",
        ];
        assert_eq!(diagram(fen, Side::White).unwrap(), white.join("\n") + "\n");
        let black = [
            "1  ♖ · ♗ ♔ ♕ ♗ ♘ ♖",
            "2  ♙ ♙ ♙ · ♙ ♙ ♙ ♙",
            "3  · · ♘ · · · · ·",
            "4  · · · ♙ · · · ·",
            "5  · · · · · ♟ · ·",
            "6  · · · · · · · ·",
            "7  ♟ ♟ ♟ ♟ ♟ · ♟ ♟",
            "8  ♜ ♞ ♝ ♚ ♛ ♝ ♞ ♜",
            "   h g f e d c b a",
        ];
        assert_eq!(diagram(fen, Side::Black).unwrap(), black.join("\n") + "\n");
    }
}
