//! Benchmarks over the shared WTHOR files (1977–2021, 127,475 games): reading, replaying, and a
//! naive "scan every game for a position" query (what WZebra does without an index).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya_othello::wthor::GameFile;
use tabiya_othello::{Board, PositionKey, Square, canonicalize, parse_transcript, replay_game};

const WTHOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/wthor");

fn files() -> Vec<PathBuf> {
    (1977..=2021)
        .map(|y| Path::new(WTHOR).join(format!("WTH_{y}.wtb")))
        .collect()
}

fn load_bytes() -> Vec<(PathBuf, Vec<u8>)> {
    files()
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect()
}

fn all_games(bytes: &[(PathBuf, Vec<u8>)]) -> Vec<Vec<Square>> {
    let mut games = Vec::new();
    for (p, b) in bytes {
        let f = GameFile::parse(b, p).unwrap();
        for i in 0..f.games.len() {
            games.push(f.squares(i).unwrap());
        }
    }
    games
}

/// Counts the games that pass through `target` (any orientation): replays each game and
/// compares canonical keys, skipping positions with the wrong number of discs.
fn scan(games: &[Vec<Square>], target: PositionKey, discs: u8) -> usize {
    let mut hits = 0;
    for moves in games {
        let mut board = Board::start();
        for &sq in moves {
            if board.disc_count() == discs && canonicalize(&board).key == target {
                hits += 1;
                break;
            }
            if board.disc_count() > discs {
                break;
            }
            match board.play_or_pass(sq) {
                Ok((b, _)) => board = b,
                Err(_) => break,
            }
        }
    }
    hits
}

fn benches(c: &mut Criterion) {
    let bytes = load_bytes();
    let total: usize = bytes.iter().map(|(_, b)| (b.len() - 16) / 68).sum();
    assert_eq!(total, 127_475);

    let mut g = c.benchmark_group("wthor");
    g.sample_size(10);
    g.bench_function("read_all_127475_games_from_disk", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in files() {
                n += GameFile::read(&p).unwrap().games.len();
            }
            black_box(n)
        })
    });
    g.bench_function("parse_and_decode_all_games_in_memory", |b| {
        b.iter(|| black_box(all_games(&bytes).len()))
    });

    let games = all_games(&bytes);
    g.bench_function("replay_all_games", |b| {
        b.iter(|| {
            let mut finished = 0;
            for m in &games {
                finished += replay_game(m).unwrap().0.finished as usize;
            }
            black_box(finished)
        })
    });
    g.bench_function("replay_all_games_with_canonical_keys", |b| {
        b.iter(|| {
            let mut x = 0u128;
            for m in &games {
                for p in tabiya_othello::Replay::new(m) {
                    let p = p.unwrap();
                    x ^= p.canonical.key.0 ^ p.canonical_move.index() as u128;
                }
            }
            black_box(x)
        })
    });
    // The Tiger (f5 d6 c3 d3 c4), in any orientation and move order.
    let tiger = parse_transcript("f5d6c3d3c4").unwrap();
    let mut board = Board::start();
    for &sq in &tiger {
        board = board.play(sq).unwrap();
    }
    let key = canonicalize(&board).key;
    let hits = scan(&games, key, board.disc_count());
    eprintln!(
        "naive scan: {hits} of {} games pass through the Tiger",
        games.len()
    );
    g.bench_function("naive_scan_all_games_for_a_position", |b| {
        b.iter(|| black_box(scan(&games, key, board.disc_count())))
    });
    // A deep position: after 20 moves of the first game of 2021.
    let deep_line = &all_games(&bytes[bytes.len() - 1..])[0][..20];
    let mut deep = Board::start();
    for &sq in deep_line {
        deep = deep.play_or_pass(sq).unwrap().0;
    }
    let deep_key = canonicalize(&deep).key;
    let deep_hits = scan(&games, deep_key, deep.disc_count());
    eprintln!(
        "naive scan: {deep_hits} of {} games pass through the position after 20 moves of 2021's first game",
        games.len()
    );
    g.bench_function("naive_scan_all_games_for_a_20_move_position", |b| {
        b.iter(|| black_box(scan(&games, deep_key, deep.disc_count())))
    });
    g.finish();
}

criterion_group!(wthor, benches);
criterion_main!(wthor);
