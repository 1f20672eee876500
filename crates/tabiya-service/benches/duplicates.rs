//! `duplicates::find` on one pairing: N generated games (the bundled sample's openings, a
//! fixed seed) all of `?` against `?` — as real files have them — and every 100th game
//! again with another round (a copy to find). One run each (the pairwise comparison this
//! replaced took 90 s at 20,000 games).
//!
//! `TABIYA_BENCH_GAMES=20000,100000 cargo bench -p tabiya-service --bench duplicates`
//! (default 20,000 and 100,000). The databases are made once under `target/`. With
//! `TABIYA_BENCH_DUMP=DIR` the sets are written there as JSON (`duplicates-N.json`).

use std::path::PathBuf;
use std::time::Instant;

use tabiya_service::database::Db;
use tabiya_service::duplicates;
use tabiya_service::generate::{GenRequest, generate};
use tabiya_service::import::{self, ImportProgress, ImportRequest};

/// The games of one pairing: every player `?`, every 100th game twice.
fn pairing_pgn(games: u64) -> String {
    let mut raw = Vec::new();
    let req = GenRequest {
        games,
        seed: 1,
        from: Vec::new(),
    };
    generate(&req, &mut raw, |_| {}).expect("generate");
    let text = String::from_utf8(raw).expect("UTF-8");
    let mut out = String::with_capacity(text.len() + text.len() / 50);
    for (i, game) in text.split("\n\n[").enumerate() {
        let game = if i == 0 {
            game.to_string()
        } else {
            format!("[{game}")
        };
        let game: String = game
            .lines()
            .map(|l| {
                if l.starts_with("[White \"") {
                    "[White \"?\"]"
                } else if l.starts_with("[Black \"") {
                    "[Black \"?\"]"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        out += game.trim_end();
        out += "\n\n";
        if i % 100 == 0 {
            let copy: Vec<String> = game
                .lines()
                .filter(|l| !l.starts_with("[Round \""))
                .map(|l| {
                    if l.starts_with("[Event \"") {
                        format!("{l}\n[Round \"copy\"]")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            out += copy.join("\n").trim_end();
            out += "\n\n";
        }
    }
    out
}

fn main() {
    let sizes: Vec<u64> = std::env::var("TABIYA_BENCH_GAMES")
        .unwrap_or_else(|_| "20000,100000".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("TABIYA_BENCH_GAMES: numbers, comma-separated")
        })
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target");
    for n in sizes {
        let dir = root.join(format!("bench-duplicates-{n}"));
        if !dir.join("tabiya.redb").exists() {
            let _ = std::fs::remove_dir_all(&dir);
            let file = root.join(format!("bench-duplicates-{n}.pgn"));
            std::fs::write(&file, pairing_pgn(n)).expect("write the pairing's PGN");
            let req = ImportRequest {
                files: vec![file.clone()],
                ..ImportRequest::default()
            };
            import::import(&dir, &req, &ImportProgress::default()).expect("import");
            let _ = std::fs::remove_file(file);
        }
        let db = Db::open(&dir).expect("open");
        let started = Instant::now();
        let d = duplicates::find(&db, false).expect("duplicates");
        let secs = started.elapsed().as_secs_f64();
        if let Some(out) = std::env::var_os("TABIYA_BENCH_DUMP") {
            // The sets whole, to compare two builds' answers.
            let path = PathBuf::from(out).join(format!("duplicates-{n}.json"));
            std::fs::write(&path, serde_json::to_vec(&d.sets).expect("JSON")).expect("dump");
        }
        let why = |w: &str| d.sets.iter().filter(|s| s.why == w).count();
        println!(
            "{n} generated games + {} copies, one pairing: {secs:.2} s; {} sets ({} same moves, {} one line begins the other, {} both), {} copies",
            d.games_left - n,
            d.sets.len(),
            why("same moves"),
            why("one line begins the other"),
            why("same moves, and one line begins the other"),
            d.copies
        );
    }
}
