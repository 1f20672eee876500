use std::collections::HashMap;

use tabiya_pgn::parse_game;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, CastlingMode, Chess, EnPassantMode, Move, Position, Role, Square};

use super::moves::target_squares;
use super::*;
use crate::codec::Reader;

#[derive(Default)]
struct MemNames(HashMap<(Dict, String), u32>, HashMap<(Dict, u32), String>);

impl Names for MemNames {
    fn id(&mut self, dict: Dict, name: &str) -> u32 {
        let n = self.0.len() as u32;
        let id = *self.0.entry((dict, name.to_string())).or_insert(n);
        self.1.insert((dict, id), name.to_string());
        id
    }
}

impl NameLookup for MemNames {
    fn name(&self, dict: Dict, id: u32) -> Option<String> {
        self.1.get(&(dict, id)).cloned()
    }
}

#[test]
fn game_round_trips_through_stored_form() {
    let pgn = "[Event \"E\"]\n[Site \"S\"]\n[Date \"1997.??.??\"]\n[Round \"?\"]\n[White \"W, X\"]\n[Black \"B\"]\n[Result \"0-1\"]\n[WhiteElo \"?\"]\n[BlackElo \"2700\"]\n[ECO \"B20\"]\n\n{c} 1. e4 $1 c5 (1... e5 {x} 2. Nf3 (2. f4)) 2. Nf3 {y} 0-1";
    let g = parse_game(pgn.as_bytes(), 1).unwrap();
    let mut names = MemNames::default();
    let mut out = Vec::new();
    encode_game(&g, &mut names, &mut out);
    let back = decode_game(&out, &names).unwrap();
    let mut a = g.tags.clone();
    let mut b = back.tags.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert_eq!(back.moves, g.moves);
    assert_eq!(back.comments, g.comments);
    // The start of the line alone: as many moves as asked, the same ones.
    let (_, _, all, outcome) = decode_line(&out).unwrap();
    for n in [0, 1, 3, 99] {
        let (start, _, some, o) = decode_line_start(&out, n).unwrap();
        assert_eq!(start, g.start);
        assert_eq!(some[..], all[..n.min(all.len())]);
        assert_eq!(o, outcome);
    }
}

#[test]
fn one_pass_preparation_equals_the_separate_steps() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/pgn/twic/twic0920.pgn"
    );
    let text = std::fs::read(path).expect("shared data");
    for item in tabiya_pgn::read_all(text.as_slice()).take(300) {
        let g = item.unwrap().1.unwrap();
        for cap in [None, Some(7)] {
            let (mut body, mut occs, mut plies) = (Vec::new(), Vec::new(), Vec::new());
            prepare(&g, cap, &mut body, &mut occs, &mut plies);
            let mut body2 = Vec::new();
            encode_body(&g, &mut body2);
            assert_eq!(body, body2);
            let moves: Vec<Move> = g.main_line().copied().collect();
            let (mut occs2, mut plies2) = (Vec::new(), Vec::new());
            occurrences_with_plies(&g.start, &moves, cap, &mut occs2, Some(&mut plies2));
            assert_eq!(occs, occs2);
            assert_eq!(plies, plies2);
            // Replaying the stored form gives them too.
            let mut stored = Vec::new();
            stored.push(0);
            stored.extend_from_slice(&body);
            let (mut occs3, mut plies3) = (Vec::new(), Vec::new());
            replay_record(&stored, cap, &mut occs3, &mut plies3).unwrap();
            assert_eq!(occs, occs3);
            assert_eq!(plies, plies3);
        }
    }
}

#[test]
fn occurrences_count_first_occurrence_and_final_position() {
    // 1. Nf3 Nf6 2. Ng1 Ng8 returns to the start: the start position counts once.
    let g = parse_game(b"1. Nf3 Nf6 2. Ng1 Ng8 3. e4 *", 1).unwrap();
    let moves: Vec<Move> = g.main_line().copied().collect();
    let mut occ = Vec::new();
    occurrences(&g.start, &moves, None, &mut occ);
    // Positions: start, after Nf3, after Nf6, after Ng1, (start again: skipped), after e4.
    assert_eq!(occ.len(), 5);
    assert_eq!(occ[0].code, move_code(&moves[0]));
    assert_eq!(occ[4].code, NO_MOVE);
    occurrences(&g.start, &moves, Some(2), &mut occ);
    assert_eq!(occ.len(), 3);
    assert_eq!(occ[2].code, move_code(&moves[2]));
}

/// The move codes as first defined: a walk over the piece's targets in order (ascending
/// square, a promotion square four times: queen, rook, bishop, knight), counting until
/// the move's own. Kept to check that counting bits gives the same bytes: stored games
/// depend on it.
fn targets_reference(pos: &Chess, from: Square, mut f: impl FnMut(Square, Option<Role>) -> bool) {
    let (squares, promoting) = target_squares(pos, from, pos.ep_square(EnPassantMode::Legal));
    for to in squares {
        if promoting {
            for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                if !f(to, Some(r)) {
                    return;
                }
            }
        } else if !f(to, None) {
            return;
        }
    }
}

fn encode_move_reference(pos: &Chess, m: &Move, out: &mut Vec<u8>) {
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
    let piece_idx = (pos.us() & Bitboard((1u64 << from as u32) - 1)).count() as u8;
    let mut idx = 0usize;
    let mut found = None;
    targets_reference(pos, from, |sq, r| {
        if sq == to && r == promo {
            found = Some(idx);
            return false;
        }
        idx += 1;
        true
    });
    let t = found.unwrap_or(0);
    if t < 15 {
        out.push(piece_idx << 4 | t as u8);
    } else {
        out.push(piece_idx << 4 | 15);
        out.push((t - 15) as u8);
    }
}

/// Every legal move of every position of TWIC 920's games (and of the round-trip test's
/// special positions) gets the same code as the reference walk gives.
#[test]
fn move_codes_equal_the_reference_walk() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/pgn/twic/twic0920.pgn"
    );
    let data = std::fs::read(path).unwrap();
    let mut checked = 0usize;
    let mut check = |pos: &Chess| {
        for m in pos.legal_moves() {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            encode_move(pos, &m, &mut a);
            encode_move_reference(pos, &m, &mut b);
            assert_eq!(
                a,
                b,
                "{} {m}",
                shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal)
            );
            checked += 1;
        }
    };
    for f in [
        "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
        "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
        "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
        "1k6/8/8/8/8/8/8/Q2QK2Q w - - 0 1",
    ] {
        let setup = Fen::from_ascii(f.as_bytes()).unwrap();
        let mode = CastlingMode::detect(setup.as_setup());
        check(&setup.into_position(mode).unwrap());
    }
    for item in tabiya_pgn::read_all(data.as_slice()) {
        let game = item.unwrap().1.unwrap();
        let mut pos = game.start.clone();
        for m in game.main_line() {
            check(&pos);
            pos.play_unchecked(*m);
        }
    }
    assert!(checked > 5_000_000, "{checked} moves checked");
}

#[test]
fn move_codes_round_trip_every_legal_move() {
    // Positions with castling (both sides), en passant, promotions and underpromotions,
    // and a Chess960 start.
    let fens = [
        "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
        "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
        "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
        "1k6/8/8/8/8/8/8/Q2QK2Q w - - 0 1",
    ];
    for f in fens {
        let setup = Fen::from_ascii(f.as_bytes()).unwrap();
        let mode = CastlingMode::detect(setup.as_setup());
        let pos: Chess = setup.into_position(mode).unwrap();
        for m in pos.legal_moves() {
            let mut out = Vec::new();
            encode_move(&pos, &m, &mut out);
            let mut r = Reader::new(&out);
            assert_eq!(decode_move(&pos, &mut r).unwrap(), m, "{f} {m}");
            assert!(r.is_empty());
        }
    }
}

#[test]
fn incremental_keys_equal_full_keys_on_real_games() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/pgn/twic/twic0920.pgn"
    );
    let text = std::fs::read(path).expect("shared data");
    let mut checked = 0;
    for item in tabiya_pgn::read_all(text.as_slice()).take(400) {
        let g = item.unwrap().1.unwrap();
        let mut pos = g.start.clone();
        for n in &g.moves {
            let key = position_key(&pos);
            let ep = pos.ep_square(EnPassantMode::Legal);
            // Every legal move, not only the one played.
            for m in pos.legal_moves() {
                let mut p = pos.clone();
                p.play_unchecked(m);
                assert_eq!(
                    next_key(&pos, &p, m, key, ep, p.ep_square(EnPassantMode::Legal)),
                    position_key(&p),
                    "{m}"
                );
                checked += 1;
            }
            pos.play_unchecked(n.mv);
        }
    }
    assert!(checked > 500_000);
    // Chess960 castling, en passant and promotions.
    for f in [
        "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
        "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
        "1r2k2r/8/8/8/8/8/8/R3KR2 w KQk - 0 1",
    ] {
        let setup = Fen::from_ascii(f.as_bytes()).unwrap();
        let pos: Chess = setup
            .clone()
            .into_position(CastlingMode::detect(setup.as_setup()))
            .unwrap();
        let key = position_key(&pos);
        let ep = pos.ep_square(EnPassantMode::Legal);
        for m in pos.legal_moves() {
            let mut p = pos.clone();
            p.play_unchecked(m);
            assert_eq!(
                next_key(&pos, &p, m, key, ep, p.ep_square(EnPassantMode::Legal)),
                position_key(&p),
                "{f} {m}"
            );
        }
    }
}

#[test]
fn en_passant_only_when_legal() {
    // After 1. e4 the e3 square is not capturable: same key as the position without ep.
    let a: Chess = Fen::from_ascii(b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let b: Chess = Fen::from_ascii(b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    assert_eq!(position_key(&a), position_key(&b));
}
