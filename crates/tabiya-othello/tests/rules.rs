//! Property tests of the bitboard rules against a simple array-based reference written here
//! (no bitboards, no code shared with the crate), symmetry group laws, canonical forms.

use proptest::prelude::*;
use tabiya_othello::{
    ALL_SYMMETRIES, Board, Color, PositionKey, Replay, Square, Symmetry, canonicalize,
};

/// Reference board: `cells[row][col]`, 0 empty, 1 black, 2 white; row 0 = row 1.
#[derive(Clone, PartialEq, Debug)]
struct RefBoard {
    cells: [[u8; 8]; 8],
    to_move: u8,
}

impl RefBoard {
    fn start() -> RefBoard {
        let mut cells = [[0u8; 8]; 8];
        cells[3][3] = 2; // d4
        cells[4][4] = 2; // e5
        cells[3][4] = 1; // e4
        cells[4][3] = 1; // d5
        RefBoard { cells, to_move: 1 }
    }

    fn flips(&self, row: usize, col: usize, me: u8) -> Vec<(usize, usize)> {
        if self.cells[row][col] != 0 {
            return vec![];
        }
        let opp = 3 - me;
        let mut out = vec![];
        for dr in -1i32..=1 {
            for dc in -1i32..=1 {
                if dr == 0 && dc == 0 {
                    continue;
                }
                let mut line = vec![];
                let (mut r, mut c) = (row as i32 + dr, col as i32 + dc);
                while (0..8).contains(&r)
                    && (0..8).contains(&c)
                    && self.cells[r as usize][c as usize] == opp
                {
                    line.push((r as usize, c as usize));
                    r += dr;
                    c += dc;
                }
                if !line.is_empty()
                    && (0..8).contains(&r)
                    && (0..8).contains(&c)
                    && self.cells[r as usize][c as usize] == me
                {
                    out.extend(line);
                }
            }
        }
        out
    }

    fn moves(&self, me: u8) -> Vec<(usize, usize)> {
        let mut v = vec![];
        for r in 0..8 {
            for c in 0..8 {
                if !self.flips(r, c, me).is_empty() {
                    v.push((r, c));
                }
            }
        }
        v
    }

    fn play(&mut self, row: usize, col: usize) {
        let me = self.to_move;
        let f = self.flips(row, col, me);
        assert!(!f.is_empty());
        self.cells[row][col] = me;
        for (r, c) in f {
            self.cells[r][c] = me;
        }
        self.to_move = 3 - me;
    }

    fn same_as(&self, b: &Board) -> bool {
        for r in 0..8 {
            for c in 0..8 {
                let sq = Square::from_coords(c as u8, r as u8).unwrap();
                let want = match self.cells[r][c] {
                    0 => None,
                    1 => Some(Color::Black),
                    _ => Some(Color::White),
                };
                if b.at(sq) != want {
                    return false;
                }
            }
        }
        let side = if self.to_move == 1 {
            Color::Black
        } else {
            Color::White
        };
        b.side() == side
    }
}

/// Plays a game from choice numbers: at each turn, move number `choice % n` among the legal
/// moves (passing when there are none). Returns the boards (bitboard and reference) after each
/// move, checking them against each other on the way.
fn play_game(choices: &[usize]) -> Vec<Board> {
    let mut b = Board::start();
    let mut r = RefBoard::start();
    let mut boards = vec![b];
    for &choice in choices {
        let me = r.to_move;
        let ref_moves = r.moves(me);
        let moves: Vec<Square> = Square::iter_bits(b.legal_moves()).collect();
        let as_rc: Vec<(usize, usize)> = moves
            .iter()
            .map(|s| (s.row() as usize, s.column() as usize))
            .collect();
        let mut ref_sorted = ref_moves.clone();
        ref_sorted.sort();
        let mut got_sorted = as_rc.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, ref_sorted, "legal moves differ on\n{b}");
        if moves.is_empty() {
            if r.moves(3 - me).is_empty() {
                assert!(b.is_game_over());
                break;
            }
            assert!(b.must_pass());
            r.to_move = 3 - me;
            b = b.play_move(tabiya_othello::Move::Pass).unwrap();
            continue;
        }
        let sq = moves[choice % moves.len()];
        // Flips agree with the reference.
        let ref_flips: u64 = r
            .flips(sq.row() as usize, sq.column() as usize, me)
            .iter()
            .map(|&(rr, cc)| Square::from_coords(cc as u8, rr as u8).unwrap().bit())
            .fold(0, |a, x| a | x);
        assert_eq!(b.flips(sq), ref_flips, "flips of {sq} on\n{b}");
        r.play(sq.row() as usize, sq.column() as usize);
        b = b.play(sq).unwrap();
        assert!(r.same_as(&b), "boards differ after {sq}:\n{b}");
        boards.push(b);
    }
    boards
}

fn symmetry() -> impl Strategy<Value = Symmetry> {
    (0u8..8).prop_map(|i| Symmetry::from_index(i).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn moves_and_flips_match_reference(choices in proptest::collection::vec(0usize..64, 0..64)) {
        play_game(&choices);
    }

    #[test]
    fn illegal_squares_are_refused(choices in proptest::collection::vec(0usize..64, 0..40), sq in 0u8..64) {
        let boards = play_game(&choices);
        let b = *boards.last().unwrap();
        let sq = Square::new(sq).unwrap();
        let legal = b.legal_moves() & sq.bit() != 0;
        prop_assert_eq!(b.play(sq).is_ok(), legal);
        prop_assert_eq!(b.flips(sq) != 0, legal);
    }

    #[test]
    fn group_laws(a in symmetry(), b in symmetry(), c in symmetry(), x in any::<u64>()) {
        // Composition is applying one after the other.
        prop_assert_eq!(a.then(b).apply_bits(x), b.apply_bits(a.apply_bits(x)));
        // Associativity.
        prop_assert_eq!(a.then(b).then(c), a.then(b.then(c)));
        // Identity and inverse.
        prop_assert_eq!(a.then(Symmetry::Identity), a);
        prop_assert_eq!(Symmetry::Identity.then(a), a);
        prop_assert_eq!(a.then(a.inverse()), Symmetry::Identity);
        prop_assert_eq!(a.inverse().apply_bits(a.apply_bits(x)), x);
        // A symmetry permutes bits.
        prop_assert_eq!(a.apply_bits(x).count_ones(), x.count_ones());
    }

    #[test]
    fn symmetries_commute_with_the_rules(choices in proptest::collection::vec(0usize..64, 0..50), s in symmetry()) {
        let boards = play_game(&choices);
        let b = *boards.last().unwrap();
        let img = s.apply_board(&b);
        prop_assert_eq!(img.legal_moves(), s.apply_bits(b.legal_moves()));
        for sq in Square::iter_bits(b.legal_moves()) {
            prop_assert_eq!(img.play(s.apply_square(sq)).unwrap(), s.apply_board(&b.play(sq).unwrap()));
        }
    }

    #[test]
    fn canonical_form_is_invariant(choices in proptest::collection::vec(0usize..64, 0..60), s in symmetry()) {
        let boards = play_game(&choices);
        for b in boards {
            let c = canonicalize(&b);
            let ci = canonicalize(&s.apply_board(&b));
            prop_assert_eq!(c.key, ci.key);
            prop_assert_eq!(c.board, ci.board);
            // The reported symmetry reaches the canonical board.
            prop_assert_eq!(c.symmetry.apply_board(&b), c.board);
            prop_assert_eq!(ci.symmetry.apply_board(&s.apply_board(&b)), ci.board);
            // The stabilizer lists exactly the symmetries that keep the canonical board.
            for t in ALL_SYMMETRIES {
                let keeps = t.apply_board(&c.board) == c.board;
                prop_assert_eq!(c.stabilizer & (1 << t.index()) != 0, keeps);
            }
            // It is the minimum over all images, black first.
            for t in ALL_SYMMETRIES {
                let im = t.apply_board(&b);
                prop_assert!((c.board.black(), c.board.white()) <= (im.black(), im.white()));
            }
            // The key is exact on reachable positions and orders like the canonical form.
            prop_assert_eq!(c.key.to_board(), c.board);
            prop_assert_eq!(PositionKey::from_bytes(c.key.to_bytes()), c.key);
            prop_assert_eq!(PositionKey::of_board(&b).to_board(), b);
            // Canonical moves map back to a move that leads to the same canonical child.
            for sq in Square::iter_bits(b.legal_moves()) {
                let cm = c.canonical_move(sq);
                prop_assert!(c.board.is_legal(cm));
                let back = c.to_original(cm);
                let child = canonicalize(&b.play(sq).unwrap()).key;
                prop_assert_eq!(canonicalize(&b.play(back).unwrap()).key, child);
                prop_assert_eq!(canonicalize(&c.board.play(cm).unwrap()).key, child);
                // The image position gives the same canonical move code.
                prop_assert_eq!(ci.canonical_move(s.apply_square(sq)), cm);
            }
        }
    }
}

#[test]
fn replay_yields_canonical_keys_and_moves() {
    // f5 d6 c3 d3 c4 (Tiger) and the same line rotated by a half turn (c4 e3 f6 e6 f5, as in
    // Gatliff's list) give the same canonical keys and canonical moves at every ply.
    let a = tabiya_othello::parse_transcript("f5d6c3d3c4").unwrap();
    let b = tabiya_othello::parse_transcript("c4e3f6e6f5").unwrap();
    let pa: Vec<_> = Replay::new(&a).map(|p| p.unwrap()).collect();
    let pb: Vec<_> = Replay::new(&b).map(|p| p.unwrap()).collect();
    assert_eq!(pa.len(), 5);
    for (x, y) in pa.iter().zip(&pb) {
        assert_eq!(x.canonical.key, y.canonical.key);
        assert_eq!(x.canonical_move, y.canonical_move);
        if x.index > 0 {
            // No position after f5 on this line has a symmetry of its own, so the canonical
            // move maps back to the very move played.
            assert_eq!(x.canonical.stabilizer, 1);
            assert_eq!(x.canonical.to_original(x.canonical_move), x.square);
        } else {
            assert_eq!(x.canonical.stabilizer.count_ones(), 4, "the start position");
        }
    }
    // An illegal move stops the replay with an error naming it.
    let bad = tabiya_othello::parse_transcript("f5a1").unwrap();
    let r: Vec<_> = Replay::new(&bad).collect();
    assert_eq!(r.len(), 2);
    let err = r[1].as_ref().unwrap_err();
    assert_eq!(err.index, 1);
    assert_eq!(err.to_string(), "move 2 (a1): a1 flips no disc for white");
}

#[test]
fn implicit_pass() {
    // A position built by hand: white to move has no move; black has one (a3 flips a2).
    // Black a1, white a2, everything else empty except … white on c1 so that white's discs
    // exist; white cannot move: it needs a black disc to outflank.
    let sq = |s: &str| s.parse::<Square>().unwrap();
    let black = sq("a1").bit();
    let white = sq("a2").bit();
    let b = Board::new(black, white, Color::White).unwrap();
    assert_eq!(b.legal_moves(), 0);
    assert!(b.must_pass());
    let (after, passed) = b.play_or_pass(sq("a3")).unwrap();
    assert!(passed);
    assert_eq!(
        after.black(),
        sq("a1").bit() | sq("a2").bit() | sq("a3").bit()
    );
    assert!(after.is_game_over());
    assert_eq!(after.final_score(), (64, 0));
}
