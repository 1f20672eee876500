//! A line of moves written as movetext (`1. e4 c5 2. Nf3`, `12... Nf6` from a position with
//! Black to move): how repertoire answers name the way to a position.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move, Position};

/// The moves from `start` as numbered SAN.
pub fn movetext(start: &Chess, moves: &[Move]) -> String {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(moves.len());
    for (i, &m) in moves.iter().enumerate() {
        let number = pos.fullmoves().get();
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
        if pos.turn().is_black() {
            out.push(format!("{number}. {san}"));
        } else if i == 0 {
            out.push(format!("{number}... {san}"));
        } else {
            out.push(san);
        }
    }
    out.join(" ")
}

/// One move in SAN from `pos`.
pub fn san(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// One move in UCI (standard castling notation).
pub fn uci(m: Move) -> String {
    shakmaty::uci::UciMove::from_standard(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn moves(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut pos = start.clone();
        ucis.iter()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn numbers_white_and_black_moves() {
        let start = Chess::default();
        let line = moves(&start, &["e2e4", "c7c5", "g1f3"]);
        assert_eq!(movetext(&start, &line), "1. e4 c5 2. Nf3");
        let mut after = start.clone();
        after.play_unchecked(line[0]);
        assert_eq!(movetext(&after, &line[1..]), "1... c5 2. Nf3");
        assert_eq!(movetext(&start, &[]), "");
    }
}
