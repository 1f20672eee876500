//! The common aggregator on small game sets counted by hand.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Position};
use tabiya_books::aggregate::{
    AggregateOptions, PerformanceSide, aggregate, aggregate_with_report, fide_dp,
};
use tabiya_books::{BookGame, BookPosition, BookStats, GameResult};

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn game_from(
    start: Chess,
    sans: &str,
    result: GameResult,
    white: Option<u16>,
    black: Option<u16>,
) -> BookGame {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for s in sans.split_whitespace() {
        let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    BookGame {
        standard_start: start == Chess::default(),
        start,
        moves,
        result,
        white_elo: white,
        black_elo: black,
        year: None,
        source: None,
    }
}

fn game(sans: &str, result: GameResult, white: Option<u16>, black: Option<u16>) -> BookGame {
    game_from(Chess::default(), sans, result, white, black)
}

fn after(sans: &str) -> Chess {
    game(sans, GameResult::Unknown, None, None)
        .moves
        .iter()
        .fold(Chess::default(), |mut p, &m| {
            p.play_unchecked(m);
            p
        })
}

fn find<'a>(positions: &'a [BookPosition], pos: &Chess) -> &'a BookPosition {
    positions
        .iter()
        .find(|p| &p.position == pos)
        .expect("position in the result")
}

fn san_of(p: &BookPosition, i: usize) -> String {
    San::from_move(&p.position, p.moves[i].mv).to_string()
}

#[allow(clippy::too_many_arguments)]
fn stats(
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    rg: u64,
    rs: u64,
    pg: u64,
    ps: u64,
) -> BookStats {
    BookStats {
        games,
        wins,
        draws,
        losses,
        rating_games: rg,
        rating_sum: rs,
        performance_games: pg,
        performance_sum: ps,
    }
}

/// G1 1.e4 e5 2.Nf3 1-0 (2400 vs 2200), G2 1.e4 c5 0-1 (2300 vs ?), G3 1.d4 ½ (? vs 2500),
/// G4 1.e4 e5 * (2000 vs 2100).
fn four_games() -> Vec<BookGame> {
    vec![
        game("e4 e5 Nf3", GameResult::WhiteWins, Some(2400), Some(2200)),
        game("e4 c5", GameResult::BlackWins, Some(2300), None),
        game("d4", GameResult::Draw, None, Some(2500)),
        game("e4 e5", GameResult::Unknown, Some(2000), Some(2100)),
    ]
}

#[test]
fn hand_counted_totals_and_moves() {
    let (positions, report) = aggregate_with_report(four_games(), &AggregateOptions::default());
    assert_eq!(report.games_used, 4);
    // start, 1.e4, 1.d4, 1.e4 e5, 1.e4 c5, 1.e4 e5 2.Nf3
    assert_eq!(positions.len(), 6);
    assert_eq!(report.positions, 6);

    let start = &positions[0];
    assert_eq!(start.position, Chess::default(), "first occurrence order");
    // White to move. Results for White: G1 win, G2 loss, G3 draw, G4 unknown.
    // Both ratings known (the database's rule) in G1 and G4: (2400 + 2200 + 2000 + 2100) / 2.
    // FIDE performance of White (result and both ratings known): G1 only, opponent 2200,
    // score 100 % → dp 800 → 3000, stored as 1 game × 3000.
    assert_eq!(start.stats, Some(stats(4, 1, 1, 1, 2, 4350, 1, 3000)));
    assert_eq!(start.moves.len(), 2);
    assert_eq!(san_of(start, 0), "e4", "most games first");
    assert_eq!(
        start.moves[0].stats,
        Some(stats(3, 1, 0, 1, 2, 4350, 1, 3000))
    );
    assert_eq!(san_of(start, 1), "d4");
    // G3 has no White rating: no rated game, no performance.
    assert_eq!(start.moves[1].stats, Some(stats(1, 0, 1, 0, 0, 0, 0, 0)));

    // After 1.e4, Black to move: G1 loss, G2 win, G4 unknown for Black.
    // Rated games G1, G4 as above. Black's FIDE performance: G1 only (G2 lacks Black's
    // rating, G4 a result): opponent 2400, score 0 → dp −800 → 1600.
    let e4 = find(&positions, &after("e4"));
    assert_eq!(e4.stats, Some(stats(3, 1, 0, 1, 2, 4350, 1, 1600)));
    assert_eq!(san_of(e4, 0), "e5");
    assert_eq!(e4.moves[0].stats, Some(stats(2, 0, 0, 1, 2, 4350, 1, 1600)));
    assert_eq!(san_of(e4, 1), "c5");
    assert_eq!(e4.moves[1].stats, Some(stats(1, 1, 0, 0, 0, 0, 0, 0)));

    // Leaves: the final positions count as positions without moves.
    let d4 = find(&positions, &after("d4"));
    assert!(d4.moves.is_empty());
    assert_eq!(d4.stats, Some(stats(1, 0, 1, 0, 0, 0, 0, 0)));
    let nf3 = find(&positions, &after("e4 e5 Nf3"));
    assert_eq!(nf3.position.turn(), Color::Black);
    // G1: rated (2400 + 2200) / 2; Black's performance 2400 − 800.
    assert_eq!(nf3.stats, Some(stats(1, 0, 0, 1, 1, 2300, 1, 1600)));
    // 1.e4 e5: White to move, G1 (win, perf 3000) and G4 (unknown result, rated).
    let e4e5 = find(&positions, &after("e4 e5"));
    assert_eq!(e4e5.stats, Some(stats(2, 1, 0, 0, 2, 4350, 1, 3000)));
    assert_eq!(e4e5.moves.len(), 1);
}

#[test]
fn repetitions_count_once_per_game_at_the_first_occurrence() {
    // The start position occurs at plies 0 and 4; the second time 3.e4 is played, which is
    // not counted. 1.Nf3 is counted once.
    let g = game("Nf3 Nf6 Ng1 Ng8 e4", GameResult::WhiteWins, None, None);
    let positions = aggregate(vec![g], &AggregateOptions::default());
    let start = find(&positions, &Chess::default());
    assert_eq!(start.stats.as_ref().unwrap().games, 1);
    assert_eq!(start.stats.as_ref().unwrap().wins, 1);
    assert_eq!(start.moves.len(), 1);
    assert_eq!(san_of(start, 0), "Nf3");
    // Positions: start, Nf3, Nf3 Nf6, Nf3 Nf6 Ng1, (start again), e4 = 5 distinct.
    assert_eq!(positions.len(), 5);
}

#[test]
fn transpositions_merge_across_games() {
    let games = vec![
        game("Nf3 d5 d4", GameResult::WhiteWins, None, None),
        game("d4 d5 Nf3", GameResult::Draw, None, None),
    ];
    let positions = aggregate(games, &AggregateOptions::default());
    let both = find(&positions, &after("d4 d5 Nf3"));
    assert_eq!(
        both.stats,
        Some(stats(2, 0, 1, 1, 0, 0, 0, 0)),
        "Black to move: a loss and a draw"
    );
    // start, Nf3, Nf3 d5, d4, d4 d5, and the common position.
    assert_eq!(positions.len(), 6);
}

#[test]
fn en_passant_square_only_when_the_capture_is_legal() {
    // d6 capture possible (legal): a different position from the one without the square.
    let with_ep = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    let without = position("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
    // exd6 would expose the king on h5 to the rook on a5: the square does not count.
    let pinned_ep = position("4k3/8/8/r2pP2K/8/8/8/8 w - d6 0 2");
    let pinned = position("4k3/8/8/r2pP2K/8/8/8/8 w - - 0 2");
    let games = vec![
        game_from(with_ep, "Kd1", GameResult::Draw, None, None),
        game_from(without, "Kd1", GameResult::Draw, None, None),
        game_from(pinned_ep, "Kg4", GameResult::Draw, None, None),
        game_from(pinned, "Kg4", GameResult::Draw, None, None),
    ];
    let positions = aggregate(games, &AggregateOptions::default());
    let starts: Vec<&BookPosition> = positions
        .iter()
        .filter(|p| p.position.turn() == Color::White)
        .collect();
    let games_of: Vec<u64> = starts
        .iter()
        .map(|p| p.stats.as_ref().unwrap().games)
        .collect();
    // with_ep (1), without (1), pinned both (2).
    assert_eq!(games_of, vec![1, 1, 2]);
    // After Kd1 the two first games reach the same position (no en passant any more).
    let kd1: Vec<u64> = positions
        .iter()
        .filter(|p| p.position.turn() == Color::Black)
        .map(|p| p.stats.as_ref().unwrap().games)
        .collect();
    assert_eq!(kd1, vec![2, 2]);
}

#[test]
fn max_ply_min_games_and_colour_filters() {
    // max_ply 1: positions at plies 0 and 1, moves from ply 0 only.
    let positions = aggregate(
        four_games(),
        &AggregateOptions {
            max_ply: 1,
            ..Default::default()
        },
    );
    assert_eq!(positions.len(), 3, "start, 1.e4, 1.d4");
    assert!(find(&positions, &after("e4")).moves.is_empty());

    // min_games 2: 1.d4 (1 game) and 1...c5 (1 game) go, and every position reached once.
    let positions = aggregate(
        four_games(),
        &AggregateOptions {
            min_games: 2,
            ..Default::default()
        },
    );
    let fens: Vec<usize> = positions.iter().map(|p| p.moves.len()).collect();
    // start (e4), 1.e4 (e5), 1.e4 e5 (no move left: Nf3 was played once).
    assert_eq!(fens, vec![1, 1, 0]);
    let positions = aggregate(
        four_games(),
        &AggregateOptions {
            min_games: 2,
            keep_leaves: false,
            ..Default::default()
        },
    );
    assert_eq!(positions.len(), 2);

    let black = aggregate(
        four_games(),
        &AggregateOptions {
            only_black: true,
            ..Default::default()
        },
    );
    assert!(black.iter().all(|p| p.position.turn() == Color::Black));
    assert_eq!(black.len(), 3, "1.e4, 1.d4, 1.e4 e5 2.Nf3");
    let white = aggregate(
        four_games(),
        &AggregateOptions {
            only_white: true,
            ..Default::default()
        },
    );
    assert_eq!(white.len(), 3, "start, 1.e4 e5, 1.e4 c5");
}

#[test]
fn non_standard_starts_and_illegal_moves() {
    let fen_game = game_from(
        position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
        "e4 Kd7",
        GameResult::WhiteWins,
        None,
        None,
    );
    let mut bad = game("e4 e5", GameResult::Draw, None, None);
    bad.moves.swap(0, 1);
    let (positions, report) = aggregate_with_report(
        vec![fen_game.clone(), bad.clone()],
        &AggregateOptions::default(),
    );
    assert_eq!(report.illegal_games, 1);
    assert_eq!(report.games_used, 2);
    // FEN game: 3 positions; the bad game stops at once: only the start position, no move.
    assert_eq!(positions.len(), 4);
    let start = find(&positions, &Chess::default());
    assert!(start.moves.is_empty());
    assert_eq!(start.stats.as_ref().unwrap().draws, 1);

    let (positions, report) = aggregate_with_report(
        vec![fen_game, bad],
        &AggregateOptions {
            include_non_standard_start: false,
            ..Default::default()
        },
    );
    assert_eq!(report.skipped_non_standard_start, 1);
    assert_eq!(positions.len(), 1);
}

#[test]
fn castling_moves_come_back_as_castling() {
    let g = game(
        "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O",
        GameResult::WhiteWins,
        None,
        None,
    );
    let positions = aggregate(vec![g], &AggregateOptions::default());
    let p = find(&positions, &after("e4 e5 Nf3 Nc6 Bc4 Bc5"));
    assert_eq!(san_of(p, 0), "O-O");
    assert!(p.moves[0].mv.is_castle());
}

#[test]
fn fide_performance_and_average_rating_as_the_database() {
    // Ga 2500 vs 2300 1-0, Gb 2500 vs 2400 ½-½.
    let games = || {
        vec![
            game("e4", GameResult::WhiteWins, Some(2500), Some(2300)),
            game("e4", GameResult::Draw, Some(2500), Some(2400)),
        ]
    };
    let positions = aggregate(games(), &AggregateOptions::default());
    let start = find(&positions, &Chess::default());
    // Average rating ⌊(2500 + 2300 + 2500 + 2400) / 4⌋ = 2425 (sum stored halved: 4850).
    // White: opponents 2300, 2400 → 2350; score 1.5 / 2 = 75 % → dp 193 → 2543.
    assert_eq!(start.stats, Some(stats(2, 1, 1, 0, 2, 4850, 2, 2 * 2543)));
    // Black after 1.e4: opponents 2500; score 25 % → dp −193 → 2307.
    let e4 = find(&positions, &after("e4"));
    assert_eq!(e4.stats, Some(stats(2, 0, 1, 1, 2, 4850, 2, 2 * 2307)));

    // The last mover's performance: after 1.e4 that is White's (2543); at the start, where
    // nobody has moved, the side not to move (Black, 2307). Move statistics stay the mover's.
    let positions = aggregate(
        games(),
        &AggregateOptions {
            performance_side: PerformanceSide::LastMover,
            ..Default::default()
        },
    );
    let start = find(&positions, &Chess::default());
    assert_eq!(start.stats.as_ref().unwrap().performance_sum, 2 * 2307);
    assert_eq!(
        start.moves[0].stats.as_ref().unwrap().performance_sum,
        2 * 2543
    );
    let e4 = find(&positions, &after("e4"));
    assert_eq!(e4.stats.as_ref().unwrap().performance_sum, 2 * 2543);

    // FIDE table 8.1(a) values read from the handbook.
    assert_eq!(fide_dp(50), 0);
    assert_eq!(fide_dp(75), 193);
    assert_eq!(fide_dp(25), -193);
    assert_eq!(fide_dp(99), 677);
    assert_eq!(fide_dp(100), 800);
    assert_eq!(fide_dp(0), -800);
}
