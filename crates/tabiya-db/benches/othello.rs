//! Othello in the positional database, over the shared WTHOR files 1977–2021 (127,475 games):
//! the import with the full index, position queries, and the naive scan of every game for the
//! same positions (what WZebra's database window does without an index).
//!
//! `cargo bench -p tabiya-db --bench othello` (the import group takes about 10 runs of the
//! whole import; `cargo bench -p tabiya-db --bench othello -- query` skips it).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya_db::othello::{AskedPosition, NameSources, StoredGame, scan_games};
use tabiya_db::{Database, ImportOptions, ImportProgress, Kind};
use tabiya_othello::wthor::GameFile;

const WTHOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/wthor");

fn files() -> Vec<PathBuf> {
    (1977..=2021)
        .map(|y| Path::new(WTHOR).join(format!("WTH_{y}.wtb")))
        .collect()
}

fn import(dir: &Path) -> Database {
    let db = Database::open_or_create(dir, Kind::Othello, None).unwrap();
    let s = db
        .import_wthor(
            &files(),
            &NameSources::default(),
            &ImportOptions::default(),
            &ImportProgress::default(),
        )
        .unwrap();
    assert_eq!(s.summary.imported, 127_475);
    db
}

/// Every game in memory, as WZebra holds its database.
fn games() -> Vec<StoredGame> {
    let mut out = Vec::new();
    for path in files() {
        let f = GameFile::read(&path).unwrap();
        for (i, r) in f.games.iter().enumerate() {
            out.push(StoredGame {
                year: f.header.year,
                tournament: r.tournament,
                black: r.black,
                white: r.white,
                black_score: r.black_score,
                theoretical_score: r.theoretical_score,
                moves: f.squares(i).unwrap(),
            });
        }
    }
    out
}

fn bench_import(c: &mut Criterion) {
    let mut g = c.benchmark_group("othello_import");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(60))
        .warm_up_time(Duration::from_secs(1));
    g.bench_function("all 127,475 games with the full index", |b| {
        b.iter_with_large_drop(|| {
            let dir = tempfile::tempdir().unwrap();
            let db = import(&dir.path().join("db"));
            (db, dir)
        })
    });
    g.finish();
}

fn bench_queries(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let db = import(&dir.path().join("db"));
    let all = games();
    // The start position, the Tiger (46,844 games), a 20-move position of one game (rare:
    // answered by replaying the games of its index entries).
    let deep = {
        let g = &all[60_000];
        let line: String = g.moves[..20].iter().map(|s| s.to_string()).collect();
        line
    };
    let cases = [
        ("start", String::new()),
        ("tiger", "f5d6c3d3c4".to_string()),
        ("20 moves", deep),
    ];
    let mut g = c.benchmark_group("othello_query");
    g.sample_size(20);
    for (name, line) in &cases {
        let asked = AskedPosition::from_line(line).unwrap();
        let snap = db.snapshot().unwrap();
        let want = scan_games(&all, &asked).0;
        assert_eq!(
            snap.position_with(asked.index_key(), &asked.successor_keys(), 8)
                .unwrap()
                .totals,
            want
        );
        g.bench_function(format!("index: position statistics, {name}"), |b| {
            b.iter(|| {
                black_box(
                    snap.position_with(asked.index_key(), &asked.successor_keys(), 8)
                        .unwrap(),
                )
            })
        });
        g.bench_function(
            format!("index: explore answer (moves, opening, top games), {name}"),
            |b| b.iter(|| black_box(snap.othello_explore(&asked, 8).unwrap())),
        );
        g.bench_function(format!("naive scan of every game, {name}"), |b| {
            b.iter(|| black_box(scan_games(&all, &asked)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_queries, bench_import);
criterion_main!(benches);
