//! The real engine: Debian's Stockfish (the test command installs it). Expected moves and
//! scores are worked out by hand from the positions, and the mates checked with shakmaty.

use std::sync::atomic::AtomicBool;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use tabiya_engine::{Engine, EngineConfig, Limit, Score, Search, san_line};

fn stockfish() -> Engine {
    let path = tabiya_engine::default_engine()
        .expect("Stockfish is not installed: the test command (scripts/test) installs it");
    let mut c = EngineConfig::new(path);
    c.options = vec![("Threads".into(), "1".into()), ("Hash".into(), "16".into())];
    Engine::start(&c).expect("Stockfish starts")
}

fn at(fen: &str, limit: Limit, multipv: u32) -> Search {
    let fen: Fen = fen.parse().unwrap();
    Search {
        start: fen.into_position(CastlingMode::Standard).unwrap(),
        moves: Vec::new(),
        mode: CastlingMode::Standard,
        limit,
        multipv,
    }
}

/// Plays `pv` from `pos`; whether it ends in checkmate.
fn mates(pos: &Chess, pv: &[String]) -> bool {
    let mut pos = pos.clone();
    for m in pv {
        let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
    }
    pos.is_checkmate()
}

#[test]
fn mate_in_one_scholars_mate() {
    let mut sf = stockfish();
    assert!(sf.name().starts_with("Stockfish"), "{}", sf.name());
    // 1.e4 e5 2.Bc4 Nc6 3.Qf3 with Black to move... White to move here: Qxf7 is mate (f7
    // guarded by the king alone, the queen backed by the bishop on c4, e7/d7... all covered).
    let s = at(
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        Limit::Depth(10),
        1,
    );
    let r = sf.search(&s, &AtomicBool::new(false), |_| {}).unwrap();
    assert_eq!(r.bestmove.as_deref(), Some("f3f7"));
    assert_eq!(r.lines[0].info.score, Some(Score::Mate(1)));
    assert_eq!(san_line(&s.root(), &r.lines[0].info.pv), ["Qxf7#"]);
}

#[test]
fn mate_in_two_with_two_rooks() {
    let mut sf = stockfish();
    // King h8 alone against rooks a1, b2: one rook cuts off the seventh rank (Rb7 or Ra7),
    // the other mates on the eighth. No check mates at once (the king escapes to g7/h7).
    let s = at("7k/8/8/8/8/8/1R6/R5K1 w - - 0 1", Limit::Depth(12), 1);
    let r = sf.search(&s, &AtomicBool::new(false), |_| {}).unwrap();
    assert_eq!(r.lines[0].info.score, Some(Score::Mate(2)));
    let best = r.bestmove.unwrap();
    assert!(["b2b7", "a1a7"].contains(&best.as_str()), "{best}");
    assert!(mates(&s.root(), &r.lines[0].info.pv));
    // The side to move being mated scores negative.
    let s = at("7k/1R6/8/8/8/8/8/R5K1 b - - 0 1", Limit::Depth(10), 1);
    let r = sf.search(&s, &AtomicBool::new(false), |_| {}).unwrap();
    assert_eq!(r.lines[0].info.score, Some(Score::Mate(-1)));
}

#[test]
fn a_checkmated_position_has_no_best_move() {
    let mut sf = stockfish();
    // Fool's mate: 1.f3 e5 2.g4 Qh4#.
    let s = at(
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        Limit::Depth(5),
        1,
    );
    let r = sf.search(&s, &AtomicBool::new(false), |_| {}).unwrap();
    assert_eq!(r.bestmove, None);
    assert!(r.lines.iter().all(|l| l.info.pv.is_empty()));
}

#[test]
fn several_lines_stop_and_moves_from_a_game() {
    let mut sf = stockfish();
    let start = Chess::default();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for san in ["e4", "e5", "Nf3", "Nc6"] {
        let m = san
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    let s = Search {
        start,
        moves,
        mode: CastlingMode::Standard,
        limit: Limit::Depth(8),
        multipv: 3,
    };
    let mut infos = 0;
    let r = sf
        .search(&s, &AtomicBool::new(false), |_| infos += 1)
        .unwrap();
    assert!(infos > 3);
    assert_eq!(r.lines.len(), 3);
    let firsts: std::collections::HashSet<_> =
        r.lines.iter().map(|l| l.info.pv[0].clone()).collect();
    assert_eq!(firsts.len(), 3, "three different first moves");
    assert_eq!(r.lines[0].info.pv[0], r.bestmove.clone().unwrap());
    assert!(r.lines.iter().all(|l| l.info.depth == Some(8)));
    // Lines are legal from the position after the moves (SAN as long as the PV).
    for l in &r.lines {
        assert_eq!(san_line(&pos, &l.info.pv).len(), l.info.pv.len());
    }
    // An infinite search runs until stopped.
    let cancel = AtomicBool::new(false);
    let began = std::time::Instant::now();
    let r = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(500));
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        sf.search(
            &Search {
                limit: Limit::Infinite,
                multipv: 1,
                ..s.clone()
            },
            &cancel,
            |_| {},
        )
        .unwrap()
    });
    assert!(r.stopped);
    assert!(began.elapsed() >= std::time::Duration::from_millis(500));
    assert!(r.bestmove.is_some());
    // movetime and nodes limits.
    let r = sf
        .search(
            &Search {
                limit: Limit::MoveTime(200),
                ..s.clone()
            },
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
    assert!(!r.stopped && r.bestmove.is_some());
    let r = sf
        .search(
            &Search {
                limit: Limit::Nodes(5000),
                multipv: 1,
                ..s
            },
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
    assert!(r.lines[0].info.nodes.unwrap() >= 1);
}
