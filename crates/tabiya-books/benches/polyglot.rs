//! Polyglot builder and reader speed.
//!
//! * `build/twic0920`, `build/tcec`: `polyglot::build` from games already parsed (the
//!   builder's own part: replay, hashing, sort-based aggregation, filtering), reported as
//!   games/s.
//! * `parse+build/twic0920`: PGN parsing with pgn-reader + building, comparable to
//!   `polyglot make-book` which parses too.
//! * `probe/performance.bin`: probes of positions of twic0920 (key + binary search + move
//!   decoding), reported as probes/s.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-polyglot cargo bench -p tabiya-books --bench polyglot`.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Chess, Position};
use tabiya_books::polyglot::{self, EntrySource, PolyglotBuildOptions, PolyglotReader};

#[path = "../tests/polyglot_support.rs"]
mod support;

fn benches(c: &mut Criterion) {
    let twic_bytes = std::fs::read(support::shared("pgn/twic/twic0920.pgn")).expect("twic0920.pgn");
    let twic = support::parse_pgn(&twic_bytes).games;
    let tcec = support::parse_pgn(&support::tcec_bytes()).games;
    let opts = PolyglotBuildOptions::default();

    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(twic.len() as u64));
    group.bench_function("twic0920", |b| {
        b.iter_batched(
            || twic.clone(),
            |g| polyglot::build(g, &opts),
            BatchSize::LargeInput,
        )
    });
    group.throughput(Throughput::Elements(tcec.len() as u64));
    group.bench_function("tcec", |b| {
        b.iter_batched(
            || tcec.clone(),
            |g| polyglot::build(g, &opts),
            BatchSize::LargeInput,
        )
    });
    group.finish();

    let mut group = c.benchmark_group("parse+build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(twic.len() as u64));
    group.bench_function("twic0920", |b| {
        b.iter(|| polyglot::build(support::parse_pgn(black_box(&twic_bytes)).games, &opts))
    });
    group.finish();

    let reader =
        PolyglotReader::open(support::shared("polyglot/performance.bin")).expect("performance.bin");
    let mut positions: Vec<Chess> = Vec::new();
    for g in twic.iter().take(200) {
        let mut pos = g.start.clone();
        for &m in g.moves.iter().take(30) {
            positions.push(pos.clone());
            pos.play_unchecked(m);
        }
    }
    let mut group = c.benchmark_group("probe");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("performance.bin/entries", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for p in &positions {
                n += reader.probe_entries(black_box(p)).len();
            }
            n
        })
    });
    group.bench_function("performance.bin/key-only", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for p in &positions {
                n += reader.key_range(polyglot::key(black_box(p))).len();
            }
            n
        })
    });
    group.finish();
}

criterion_group!(polyglot_benches, benches);
criterion_main!(polyglot_benches);
