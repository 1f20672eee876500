//! `names::search` over 100,000 player names, four of them as long as a tag line may be
//! (8 KiB: two of one word, two of a thousand words): an ordinary prefix, a typo, two
//! words, a query of 100 characters (the longest searched), and a stored 8 KiB name given
//! as the query (refused since issue 31; before, an edit distance of every such pair whole:
//! seconds and 512 MB a search).
//!
//! `cargo bench -p tabiya-service --bench names`. The database is made once under
//! `target/bench-names-db` from generated names (a fixed seed).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use tabiya_service::database::Db;
use tabiya_service::import::{self, ImportProgress, ImportRequest};
use tabiya_service::names::{self, NameKind};

fn rng(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const SYLLABLES: [&str; 24] = [
    "kar", "pov", "kas", "pa", "rov", "ni", "ko", "lai", "ev", "an", "to", "ly", "mi", "sha",
    "vic", "ber", "ger", "stein", "mann", "ova", "jo", "sef", "ha", "len",
];

fn word(state: &mut u64, syllables: usize) -> String {
    let mut w: String = (0..syllables)
        .map(|_| SYLLABLES[(rng(state) % SYLLABLES.len() as u64) as usize])
        .collect();
    w[..1].make_ascii_uppercase();
    w
}

/// The 8 KiB names: one word of 8,107 letters (twice), a thousand words then `Karpov`.
fn long_names() -> [String; 4] {
    [
        format!("Karpova{}", "x".repeat(8_100)),
        format!("Kasparova{}", "y".repeat(8_100)),
        format!("{}Karpov", "Anatoly ".repeat(1_000)),
        format!("{}Kasparov", "Garry ".repeat(1_300)),
    ]
}

/// The database: 50,000 games, 100,000 distinct players.
fn database() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-names-db");
    if dir.join("tabiya.redb").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut state = 31;
    let mut seen = std::collections::HashSet::new();
    let mut players: Vec<String> = long_names().into();
    seen.extend(players.iter().cloned());
    while players.len() < 100_000 {
        let (a, b) = (2 + rng(&mut state) % 3, 1 + rng(&mut state) % 3);
        let n = format!(
            "{}, {}",
            word(&mut state, a as usize),
            word(&mut state, b as usize)
        );
        if seen.insert(n.clone()) {
            players.push(n);
        }
    }
    let mut pgn = String::new();
    for pair in players.chunks(2) {
        pgn += &format!(
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
            pair[0], pair[1]
        );
    }
    let file = dir.with_extension("pgn");
    std::fs::write(&file, pgn).expect("write the names' PGN");
    let req = ImportRequest {
        files: vec![file.clone()],
        ..ImportRequest::default()
    };
    import::import(Path::new(&dir), &req, &ImportProgress::default()).expect("import");
    let _ = std::fs::remove_file(file);
    dir
}

fn search(c: &mut Criterion) {
    let db = Db::open(&database()).expect("open the names database");
    let long = long_names();
    let hundred = "karpovsky ".repeat(10);
    let queries: [(&str, &str); 5] = [
        ("prefix", "kar"),
        ("typo", "kasprovi"),
        ("two words", "anto kar"),
        ("100 characters", hundred.trim_end()),
        ("8 KiB stored name", &long[0]),
    ];
    let mut g = c.benchmark_group("names search, 100,000 players");
    g.sample_size(10);
    for (label, q) in queries {
        match names::search(&db, NameKind::Player, q, usize::MAX) {
            // Every hit, in order, as a digest: to compare two builds' answers.
            Ok(hits) => eprintln!(
                "{label}: {} hits, digest {:016x}",
                hits.len(),
                hits.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, hit| {
                    format!("{}\u{0}{}\u{0}", hit.name, hit.fuzzy)
                        .bytes()
                        .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
                })
            ),
            Err(e) => eprintln!("{label}: {e}"),
        }
        g.bench_function(label, |b| {
            b.iter(|| black_box(names::search(&db, NameKind::Player, black_box(q), 20)).ok())
        });
    }
    g.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
