//! CTG benchmarks on the real PowerPlay17 book: probes per second (positions of the book,
//! and positions not in it) and the full-book walk.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-ctg CARGO_BUILD_JOBS=1 cargo bench -p tabiya-books --bench ctg`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Chess, Position};
use tabiya_books::ctg::{CtgBook, Transform, encode_key};

const BOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/ctg/PowerPlay17-Sicilienne.ctg"
);

/// Deterministic xorshift, so that every run probes the same positions.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn positions(book: &CtgBook) -> (Vec<Chess>, Vec<Chess>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for rp in book.positions() {
        let rp = rp.expect("PowerPlay17 reads");
        let pos = rp.position.position;
        // Half of the positions probed as the colour-flipped real position (Black to move).
        let real = if rng.next().is_multiple_of(2) {
            Transform {
                flipped: true,
                mirrored: false,
            }
            .undo(&pos)
            .unwrap_or(pos.clone())
        } else {
            pos.clone()
        };
        // A position one random legal move further that the book does not hold.
        let moves = pos.legal_moves();
        if !moves.is_empty() {
            let m = moves[(rng.next() % moves.len() as u64) as usize];
            let next = pos.clone().play(m).expect("legal");
            if book
                .find(&encode_key(&next).expect("encodes"))
                .expect("reads")
                .is_none()
            {
                missing.push(next);
            }
        }
        found.push(real);
    }
    (found, missing)
}

fn bench(c: &mut Criterion) {
    let book = CtgBook::open(BOOK).expect("PowerPlay17 opens");
    let (found, missing) = positions(&book);
    let mut g = c.benchmark_group("ctg");
    g.throughput(Throughput::Elements(found.len() as u64));
    g.bench_function("probe_found_with_moves", |b| {
        b.iter(|| {
            for p in &found {
                black_box(book.probe(p).expect("probe"));
            }
        })
    });
    g.bench_function("lookup_found_key_only", |b| {
        b.iter(|| {
            for p in &found {
                let k = encode_key(p).expect("key");
                black_box(book.find(&k).expect("lookup"));
            }
        })
    });
    g.throughput(Throughput::Elements(missing.len() as u64));
    g.bench_function("probe_not_found", |b| {
        b.iter(|| {
            for p in &missing {
                black_box(book.probe(p).expect("probe"));
            }
        })
    });
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.bench_function("walk_full_book", |b| b.iter(|| black_box(book.walk())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
