//! What gamesets cost: making one (criteria on facts, on tags, on positions through the
//! index, on moves replayed), the explorer over a gameset at popular positions (beside the
//! same answer unfiltered), and an edit of a game while gamesets are kept current.
//!
//! `TABIYA_BENCH_DB=DIR cargo bench -p tabiya-db --bench gamesets` works on a copy of that
//! database (e.g. the 1M-game one of BENCHMARKS.md; the copy goes under `target/`), never
//! on the database itself; without it, on a copy of a TWIC 920 database built under
//! `target/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position, san::San};
use tabiya_db::chess::GameFilter;
use tabiya_db::{Database, ImportOptions, ImportProgress, TagEdit};

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).expect("copy dir");
    for e in std::fs::read_dir(from).expect("read db dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn line(sans: &str) -> Vec<Chess> {
    let mut pos = Chess::default();
    let mut out = vec![pos.clone()];
    for s in sans.split_whitespace() {
        let m = s.parse::<San>().expect("san").to_move(&pos).expect("legal");
        pos.play_unchecked(m);
        out.push(pos.clone());
    }
    out
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target");
    let source = match std::env::var_os("TABIYA_BENCH_DB") {
        Some(d) => PathBuf::from(d),
        None => {
            let d = root.join("bench-db-twic");
            if !d.join("tabiya.redb").exists() {
                let db =
                    Database::open_or_create(&d, tabiya_db::Kind::Chess, None).expect("create");
                let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../../shared/data/pgn/twic/twic0920.pgn");
                db.import(
                    &[twic],
                    &ImportOptions::default(),
                    &ImportProgress::default(),
                )
                .expect("import");
            }
            d
        }
    };
    let dir = root.join("bench-gamesets-copy");
    copy_dir(&source, &dir);
    let db = Database::open(&dir).expect("open the copy");
    let games = db
        .snapshot()
        .expect("snapshot")
        .all_game_ids()
        .expect("ids")
        .len();
    eprintln!("{games} games");

    println!("## Making a gameset ({games} games; median of 3)");
    let criteria = [
        ("facts", "avgelo >= 2500 and result = '1-0'"),
        ("a player", "player = 'Carlsen, Magnus'"),
        ("reaches (index)", "reaches e4 c5"),
        (
            "reaches, deep (index)",
            "reaches e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6",
        ),
        ("a tag", "eco ~ B9 or event ~ 'open'"),
        ("moves replayed", "material queenless and plies >= 80"),
    ];
    for (what, c) in criteria {
        let mut times = Vec::new();
        let mut n = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let g = db
                .create_gameset("bench", c, None, Vec::new())
                .expect("create");
            times.push(t.elapsed());
            n = g.games;
            db.delete_gameset("bench").expect("delete");
        }
        println!("{what:<24} {:>9} games  {:>8.1} ms   {c}", n, median(times));
    }

    println!("\n## The explorer over a gameset (median of 21, warm)");
    db.create_gameset("strong", "avgelo >= 2500", None, Vec::new())
        .expect("create");
    db.create_gameset("sicilian", "reaches e4 c5", None, Vec::new())
        .expect("create");
    let snap = db.snapshot().expect("snapshot");
    snap.warm_cache().expect("warm");
    for set in ["strong", "sicilian"] {
        let (g, ids) = snap.gameset(set).expect("gameset");
        let filter = GameFilter {
            games: Some(Arc::new(ids)),
            ..GameFilter::default()
        };
        for at in ["", "e4", "e4 c5", "e4 c5 Nf3 d6"] {
            let l = line(at);
            let time = |f: &GameFilter| {
                let mut v = Vec::new();
                for _ in 0..21 {
                    let t = Instant::now();
                    snap.chess_explore_filtered(&l, CastlingMode::Standard, f, 8, None)
                        .expect("explore");
                    v.push(t.elapsed());
                }
                median(v)
            };
            let with = time(&filter);
            let without = time(&GameFilter::default());
            println!(
                "{set:<9} ({:>7} games) at {:<14} {:>8.2} ms   (every game: {:.2} ms)",
                g.games,
                if at.is_empty() { "the start" } else { at },
                with,
                without
            );
        }
    }
    drop(snap);

    println!("\n## An edit while gamesets are kept current (median of 30)");
    db.create_gameset("carlsen", "player = 'Carlsen, Magnus'", None, Vec::new())
        .expect("create");
    let sets = db
        .snapshot()
        .expect("snapshot")
        .gamesets()
        .expect("list")
        .len();
    let mut times = Vec::new();
    for i in 0..30u32 {
        let id = 1 + (i * 7919) % games as u32;
        let t = Instant::now();
        db.edit_game(
            id,
            &[TagEdit::Set(
                "Result".into(),
                ["1-0", "0-1", "1/2-1/2"][i as usize % 3].into(),
            )],
        )
        .expect("edit");
        times.push(t.elapsed());
    }
    println!("edit with {sets} gamesets: {:.1} ms", median(times));
}
