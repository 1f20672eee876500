//! The CTG writer: books written from positions are read back by the reader (whose lookup
//! is the one of the format notes) with every position found and every statistic intact.

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::ops::ControlFlow;

use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Setup, Square};
use tabiya_books::ctg::{
    CtgBook, CtgWriteOptions, DuplicatePolicy, Trailer, Transform, write_book,
};
use tabiya_books::{BookMove, BookPosition, BookStats};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/");

/// Trailer fields a `BookPosition` carries (the unknown bytes at +12 and +31 are not part
/// of the shared model and are recomputed / zero in a written book).
fn known(t: &Trailer) -> [u32; 11] {
    [
        t.games,
        t.wins,
        t.losses,
        t.draws,
        t.rating_games,
        t.rating_sum,
        t.performance_games,
        t.performance_sum,
        u32::from(t.recommendation),
        u32::from(t.commentary),
        0,
    ]
}

fn rewrite_powerplay(options: &CtgWriteOptions) {
    let original = CtgBook::open(format!("{DATA}ctg/PowerPlay17-Sicilienne.ctg")).unwrap();
    let positions = original.book_positions().unwrap();
    assert_eq!(positions.len(), 13_305);
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("pp17");
    let rep = write_book(&stem, positions.clone(), options).unwrap();
    if options.base_level == Some(5) {
        assert!(rep.split_buckets >= 32, "{}", rep.split_buckets);
        assert!(rep.upper_bound > rep.lower_bound);
    }
    assert_eq!(rep.positions_given, 13_305);
    assert_eq!(rep.records_written, 13_305);
    assert_eq!(rep.moves_written, 13_406);
    assert_eq!(rep.duplicates_merged, 0);
    assert_eq!(rep.children_synthesised, 0);
    assert_eq!(rep.moves_without_child, 0);
    assert_eq!(rep.games, 499);
    for f in &rep.files {
        assert!(f.exists(), "{f:?}");
    }

    let copy = CtgBook::open(&stem).unwrap();
    assert_eq!(copy.games(), 499);
    assert_eq!(copy.data_pages(), rep.data_pages);
    assert_eq!(copy.header().slots, rep.slots);
    assert_eq!(copy.header().lower_bound, rep.lower_bound);
    assert_eq!(copy.header().upper_bound, rep.upper_bound);
    // Like the real books, the table ends at the highest used slot.
    assert!(copy.slot(rep.slots - 1).is_some());
    let walk = copy.walk();
    assert!(
        walk.is_clean(),
        "{:?}",
        &walk.problems[..walk.problems.len().min(5)]
    );
    assert_eq!(walk.records, 13_305);
    assert_eq!(walk.found_via_cto, 13_305);
    assert_eq!(walk.children_found, 13_406);

    // Every record answers identically, probed as stored and as the colour-flipped real
    // position.
    for rp in original.positions() {
        let rp = rp.unwrap();
        for t in [
            Transform::IDENTITY,
            Transform {
                flipped: true,
                mirrored: false,
            },
        ] {
            let real = t.undo(&rp.position.position).unwrap();
            let a = original.probe(&real).unwrap();
            let b = copy.probe(&real).unwrap();
            assert_eq!(a.key, b.key);
            assert_eq!(a.to_book_probe(), b.to_book_probe());
            let (ea, eb) = (a.entry.unwrap(), b.entry.expect("found in the copy"));
            assert_eq!(known(&ea.trailer), known(&eb.trailer));
            assert_eq!(ea.moves.len(), eb.moves.len());
            for (ma, mb) in ea.moves.iter().zip(&eb.moves) {
                assert_eq!(
                    (ma.code, ma.annotation, &ma.uci, &ma.san),
                    (mb.code, mb.annotation, &mb.uci, &mb.san)
                );
                assert_eq!(
                    known(&ma.child.unwrap().trailer),
                    known(&mb.child.unwrap().trailer)
                );
            }
        }
    }
}

#[test]
fn rewriting_powerplay_answers_every_probe_identically() {
    rewrite_powerplay(&CtgWriteOptions::default());
}

#[test]
fn rewriting_powerplay_with_forced_bucket_splits() {
    // 32 base buckets of ~23 KB each: every bucket is split, several levels deep.
    rewrite_powerplay(&CtgWriteOptions {
        base_level: Some(5),
        ..CtgWriteOptions::default()
    });
}

#[test]
fn default_layout_sizes_like_the_real_book() {
    // PowerPlay17 uses 256 base buckets (level 8) with one split: the writer's default
    // fill target picks the same base level for the same records.
    let original = CtgBook::open(format!("{DATA}ctg/PowerPlay17-Sicilienne.ctg")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rep = write_book(
        &dir.path().join("pp"),
        original.book_positions().unwrap(),
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.base_level, 8);
    assert_eq!(rep.lower_bound, 255);
    assert!(
        rep.data_pages >= 250 && rep.data_pages <= 300,
        "{}",
        rep.data_pages
    );
}

// ---------------------------------------------------------------------------------------
// Books from real games: TWIC 920, main lines, first 12 plies.

struct Game {
    moves: Vec<SanPlus>,
    result: Option<Color>,
    draw: bool,
    white_elo: Option<u32>,
    black_elo: Option<u32>,
}

struct Collect;

impl Visitor for Collect {
    type Tags = (Option<u32>, Option<u32>, String);
    type Movetext = (Vec<SanPlus>, (Option<u32>, Option<u32>, String));
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue((None, None, String::new()))
    }
    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let v = value.decode_utf8_lossy().to_string();
        match name {
            b"WhiteElo" => tags.0 = v.parse().ok(),
            b"BlackElo" => tags.1 = v.parse().ok(),
            b"Result" => tags.2 = v,
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue((Vec::new(), tags))
    }
    fn begin_variation(&mut self, _m: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }
    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        m.0.push(san);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        let (moves, (white_elo, black_elo, result)) = m;
        Game {
            moves,
            result: match result.as_str() {
                "1-0" => Some(Color::White),
                "0-1" => Some(Color::Black),
                _ => None,
            },
            draw: result == "1/2-1/2",
            white_elo,
            black_elo,
        }
    }
}

/// The test's own normalisation (independent of the library): flip for Black to move, then
/// mirror files without castling rights when the king to move is on files a–d. Returns the
/// normalised FEN without counters.
fn normalised_fen(pos: &Chess) -> String {
    let mut setup: Setup = pos.to_setup(EnPassantMode::Legal);
    if setup.turn == Color::Black {
        setup.mirror();
    }
    let king = setup.board.king_of(Color::White).unwrap();
    if setup.castling_rights.is_empty() && king.file() <= shakmaty::File::D {
        setup.board.flip_horizontal();
        setup.ep_square = setup.ep_square.map(Square::flip_horizontal);
    }
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    Fen::try_from_setup(setup)
        .expect("plain chess setup")
        .to_string()
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn add(stats: &mut BookStats, game: &Game, turn: Color) {
    stats.games += 1;
    match game.result {
        Some(c) if c == turn => stats.wins += 1,
        Some(_) => stats.losses += 1,
        None if game.draw => stats.draws += 1,
        None => {}
    }
    let (me, them) = match turn {
        Color::White => (game.white_elo, game.black_elo),
        Color::Black => (game.black_elo, game.white_elo),
    };
    if let Some(e) = me {
        stats.rating_games += 1;
        stats.rating_sum += u64::from(e);
    }
    if let Some(e) = them {
        stats.performance_games += 1;
        stats.performance_sum += u64::from(e);
    }
}

fn sum(a: &mut BookStats, b: &BookStats) {
    a.games += b.games;
    a.wins += b.wins;
    a.draws += b.draws;
    a.losses += b.losses;
    a.rating_games += b.rating_games;
    a.rating_sum += b.rating_sum;
    a.performance_games += b.performance_games;
    a.performance_sum += b.performance_sum;
}

#[test]
fn book_from_twic_games_reads_back_exactly() {
    let file = File::open(format!("{DATA}pgn/twic/twic0920.pgn")).unwrap();
    let mut reader = Reader::new(file);
    // Real positions (by FEN) with their stats and moves.
    let mut order: Vec<String> = Vec::new();
    let mut real: HashMap<String, (Chess, BookStats, Vec<Move>)> = HashMap::new();
    let mut games = 0;
    while let Some(game) = reader.read_game(&mut Collect).unwrap() {
        games += 1;
        let mut pos = Chess::default();
        for ply in 0..=12 {
            let f = fen(&pos);
            let entry = real.entry(f.clone()).or_insert_with(|| {
                order.push(f.clone());
                (pos.clone(), BookStats::default(), Vec::new())
            });
            add(&mut entry.1, &game, pos.turn());
            if ply == 12 || ply >= game.moves.len() {
                break;
            }
            let Ok(m) = game.moves[ply].san.to_move(&pos) else {
                break;
            };
            if !entry.2.contains(&m) {
                entry.2.push(m);
            }
            pos.play_unchecked(m);
        }
    }
    assert!(games > 2000, "{games}");

    // Expected: totals per normalised position (real positions that normalise alike are
    // merged by the writer; their stats add up).
    let mut groups: HashMap<String, BookStats> = HashMap::new();
    for (pos, stats, _) in real.values() {
        sum(groups.entry(normalised_fen(pos)).or_default(), stats);
    }
    // Some real positions are colour flips or mirrors of others (1.e3 e5 2.e4 and 1.e4 e5).
    assert!(groups.len() < real.len(), "{} {}", groups.len(), real.len());

    let positions: Vec<BookPosition> = order
        .iter()
        .map(|f| {
            let (pos, stats, moves) = &real[f];
            BookPosition {
                position: pos.clone(),
                stats: Some(stats.clone()),
                recommendation: None,
                commentary: None,
                moves: moves
                    .iter()
                    .map(|&mv| BookMove {
                        mv,
                        annotation: None,
                        weight: None,
                        learn: None,
                        stats: None,
                        green: None,
                        red: None,
                        commentary: None,
                    })
                    .collect(),
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("twic920.ctg");
    let rep = write_book(&stem, positions, &CtgWriteOptions::default()).unwrap();
    assert_eq!(rep.positions_given as usize, real.len());
    assert_eq!(rep.records_written as usize, groups.len());
    assert_eq!(rep.duplicates_merged as usize, real.len() - groups.len());
    assert_eq!(rep.positions_skipped, 0);
    assert_eq!(
        rep.moves_dropped_underpromotion + rep.moves_dropped_no_code,
        0
    );
    assert_eq!(rep.moves_without_child, 0);
    assert_eq!(rep.games as usize, games);

    let book = CtgBook::open(dir.path().join("twic920.cto")).unwrap();
    let walk = book.walk();
    assert!(
        walk.is_clean(),
        "{:?}",
        &walk.problems[..walk.problems.len().min(5)]
    );
    assert_eq!(walk.records as usize, groups.len());
    for f in &order {
        let (pos, _, moves) = &real[f];
        let expected = &groups[&normalised_fen(pos)];
        let probe = book.probe(pos).unwrap();
        let e = probe.entry.unwrap_or_else(|| panic!("{f} not found"));
        let got = e.trailer.stats();
        assert_eq!(&got, expected, "{f}");
        // Every move played from this real position is offered, with the statistics of the
        // child (its normalised group) from the mover's side.
        let offered: BTreeSet<String> = e.moves.iter().map(|m| m.uci.clone()).collect();
        for m in moves {
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            assert!(offered.contains(&uci), "{f}: {uci} missing");
        }
        for m in &e.moves {
            let child = pos.clone().play(m.mv).unwrap();
            let cs = &groups[&normalised_fen(&child)];
            let mover = m.child.expect("child").trailer.mover_stats();
            assert_eq!(mover.games, cs.games);
            assert_eq!(mover.wins, cs.losses);
            assert_eq!(mover.losses, cs.wins);
            assert_eq!(mover.draws, cs.draws);
            assert_eq!(mover.rating_sum, cs.rating_sum);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-made cases.

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn bm(mv: Move) -> BookMove {
    BookMove {
        mv,
        annotation: None,
        weight: None,
        learn: None,
        stats: None,
        green: None,
        red: None,
        commentary: None,
    }
}

fn stats(games: u64, wins: u64, draws: u64, losses: u64) -> BookStats {
    BookStats {
        games,
        wins,
        draws,
        losses,
        ..BookStats::default()
    }
}

#[test]
fn underpromotions_are_left_out_and_counted() {
    // Black to move, pawn on b2 can promote on b1 (or take on a1).
    let p = pos("4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1");
    let moves: Vec<Move> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.is_promotion())
        .collect();
    assert_eq!(moves.len(), 8);
    let dir = tempfile::tempdir().unwrap();
    let rep = write_book(
        &dir.path().join("promo"),
        [BookPosition {
            position: p.clone(),
            stats: Some(stats(3, 1, 1, 1)),
            recommendation: Some(0x80),
            commentary: Some(14),
            moves: moves.iter().map(|&m| bm(m)).collect(),
        }],
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.moves_dropped_underpromotion, 6);
    assert_eq!(rep.moves_written, 2);
    assert_eq!(rep.dropped.len(), 6);
    // No statistics on the moves and no child positions given: childless, counted.
    assert_eq!(rep.moves_without_child, 2);
    let book = CtgBook::open(dir.path().join("promo.ctg")).unwrap();
    let probe = book.probe(&p).unwrap();
    // Black to move, king on e8 (files e–h after the flip): flipped, not mirrored.
    assert_eq!(
        probe.transform,
        Transform {
            flipped: true,
            mirrored: false
        }
    );
    let e = probe.entry.unwrap();
    assert_eq!(
        (
            e.trailer.games,
            e.trailer.wins,
            e.trailer.draws,
            e.trailer.losses
        ),
        (3, 1, 1, 1)
    );
    assert_eq!((e.trailer.recommendation, e.trailer.commentary), (0x80, 14));
    let ucis: BTreeSet<&str> = e.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, BTreeSet::from(["b2a1q", "b2b1q"]));
    assert!(e.moves.iter().all(|m| m.child.is_none()));
}

#[test]
fn mirrored_positions_and_synthesised_children() {
    // No castling rights, White king on c1: stored mirrored.
    let p = pos("4k3/8/8/8/8/8/3P4/2K5 w - - 0 1");
    let push = p
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == Square::D4)
        .unwrap();
    let mut m = bm(push);
    m.stats = Some(BookStats {
        games: 5,
        wins: 3,
        draws: 1,
        losses: 1,
        rating_games: 2,
        rating_sum: 4000,
        performance_games: 1,
        performance_sum: 2100,
    });
    m.green = Some(true);
    m.commentary = Some(16);
    m.annotation = Some(5);
    let dir = tempfile::tempdir().unwrap();
    let rep = write_book(
        &dir.path().join("mirror"),
        [BookPosition {
            position: p.clone(),
            stats: Some(stats(6, 3, 1, 1)),
            recommendation: None,
            commentary: None,
            moves: vec![m],
        }],
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.children_synthesised, 1);
    assert_eq!(rep.records_written, 2);
    assert_eq!(rep.games, 6);
    let book = CtgBook::open(dir.path().join("mirror.ini")).unwrap();
    let probe = book.probe(&p).unwrap();
    assert_eq!(
        probe.transform,
        Transform {
            flipped: false,
            mirrored: true
        }
    );
    let bp = probe.to_book_probe();
    assert!(bp.found);
    assert_eq!(bp.moves.len(), 1);
    let mv = &bp.moves[0];
    assert_eq!((mv.uci.as_str(), mv.san.as_str()), ("d2d4", "d4"));
    assert_eq!(
        (mv.games, mv.wins, mv.draws, mv.losses),
        (Some(5), Some(3), Some(1), Some(1))
    );
    assert_eq!(
        (mv.average_rating, mv.performance),
        (Some(2000), Some(2100))
    );
    assert_eq!(
        (mv.green, mv.red, mv.commentary, mv.annotation),
        (Some(true), Some(false), Some(16), Some(5))
    );
    // The mirrored twin (king on f1, pawn on e2) is the same record.
    let twin = pos("3k4/8/8/8/8/8/4P3/5K2 w - - 0 1");
    let tp = book.probe(&twin).unwrap();
    assert_eq!(tp.key, probe.key);
    assert_eq!(tp.transform, Transform::IDENTITY);
    assert_eq!(tp.to_book_probe().moves[0].uci, "e2e4");
}

#[test]
fn duplicates_merge_or_fail() {
    // 1.e3 e5 2.e4 (Black to move) is the colour flip of 1.e4 e5 (White to move).
    let mut a = Chess::default();
    for u in ["e2e4", "e7e5"] {
        let m = u
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&a)
            .unwrap();
        a.play_unchecked(m);
    }
    let mut b = Chess::default();
    for u in ["e2e3", "e7e5", "e3e4"] {
        let m = u
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&b)
            .unwrap();
        b.play_unchecked(m);
    }
    let nf3 = "g1f3"
        .parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(&a)
        .unwrap();
    let nc6 = "b8c6"
        .parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(&b)
        .unwrap();
    let nf6 = "g8f6"
        .parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(&b)
        .unwrap();
    let given = || {
        [
            BookPosition {
                position: a.clone(),
                stats: Some(stats(10, 4, 3, 3)),
                recommendation: None,
                commentary: None,
                moves: vec![bm(nf3)],
            },
            BookPosition {
                position: b.clone(),
                stats: Some(stats(2, 1, 0, 1)),
                recommendation: None,
                commentary: None,
                // Nf6 for Black is Nf3 on the flipped board: merged into one move.
                moves: vec![bm(nc6), bm(nf6)],
            },
        ]
    };
    let dir = tempfile::tempdir().unwrap();
    let err = write_book(
        &dir.path().join("dup"),
        given(),
        &CtgWriteOptions {
            duplicates: DuplicatePolicy::Error,
            ..CtgWriteOptions::default()
        },
    );
    assert!(err.is_err());
    let rep = write_book(
        &dir.path().join("dup"),
        given(),
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.duplicates_merged, 1);
    assert_eq!(rep.records_written, 1);
    let book = CtgBook::open(dir.path().join("dup")).unwrap();
    let pa = book.probe(&a).unwrap();
    let pb = book.probe(&b).unwrap();
    assert_eq!(pa.key, pb.key);
    let t = pa.entry.unwrap().trailer;
    assert_eq!((t.games, t.wins, t.draws, t.losses), (12, 5, 3, 4));
    let ucis: Vec<String> = pb
        .entry
        .unwrap()
        .moves
        .iter()
        .map(|m| m.uci.clone())
        .collect();
    assert_eq!(ucis, vec!["g8f6", "b8c6"]);
}

#[test]
fn moves_beyond_the_table_and_the_record_limit() {
    // 218 legal moves; nine queens, three knights: many moves have no code.
    let p = pos("3Q4/1Q4Q1/4Q3/2Q4R/Q4Q2/3Q4/1Q4Rp/1K1BBNNk w - - 0 1");
    let legal = p.legal_moves();
    assert_eq!(legal.len(), 218);
    let dir = tempfile::tempdir().unwrap();
    let rep = write_book(
        &dir.path().join("many"),
        [BookPosition {
            position: p.clone(),
            stats: Some(stats(1, 1, 0, 0)),
            recommendation: None,
            commentary: None,
            moves: legal.iter().map(|&m| bm(m)).collect(),
        }],
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!(
        rep.moves_written + rep.moves_dropped_no_code + rep.moves_dropped_too_many,
        218
    );
    assert!(rep.moves_dropped_no_code > 0);
    assert!(rep.moves_written <= 127);
    let book = CtgBook::open(dir.path().join("many")).unwrap();
    let e = book.probe(&p).unwrap().entry.unwrap();
    assert_eq!(e.moves.len() as u64, rep.moves_written);
    assert!(e.unknown_moves.is_empty());
    // Each stored move is one of the given moves (the position has no pawn move).
    for m in &e.moves {
        assert!(legal.contains(&m.mv));
        assert_ne!(m.mv.role(), Role::Pawn);
    }
}

#[test]
fn empty_book_finds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let rep = write_book(
        &dir.path().join("empty"),
        Vec::new(),
        &CtgWriteOptions::default(),
    )
    .unwrap();
    assert_eq!((rep.records_written, rep.data_pages, rep.slots), (0, 0, 0));
    let book = CtgBook::open(dir.path().join("empty")).unwrap();
    assert!(book.probe(&Chess::default()).unwrap().entry.is_none());
    assert!(book.walk().is_clean());
}
