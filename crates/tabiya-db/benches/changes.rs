//! What an edit and a deletion cost: the time from asking until the change is visible to a
//! new query (the commit), for single games and a batch of 10,000 deletions, and how long
//! a reader asking meanwhile waits (readers are never blocked: they answer from the state
//! before the change until it commits).
//!
//! `TABIYA_BENCH_DB=DIR cargo bench -p tabiya-db --bench changes` works on a copy of that
//! database (e.g. the 1M-game one of BENCHMARKS.md; the copy goes under `target/`), never
//! on the database itself; without it, on a copy of a TWIC 920 database built under
//! `target/`. Games are drawn with a fixed seed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tabiya_db::chess::position_key;
use tabiya_db::{Database, ImportOptions, ImportProgress, TagEdit};

fn rng(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

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

fn percentiles(mut v: Vec<Duration>) -> String {
    v.sort();
    let p = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    format!(
        "p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms ({} runs)",
        p(0.5),
        p(0.9),
        p(1.0),
        v.len()
    )
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
    let dir = root.join("bench-changes-copy");
    copy_dir(&source, &dir);
    let t = Instant::now();
    let db = Database::open(&dir).expect("open the copy");
    eprintln!("opened the copy in {:.2} s", t.elapsed().as_secs_f64());
    let ids = db
        .snapshot()
        .expect("snapshot")
        .all_game_ids()
        .expect("ids");
    eprintln!("{} games", ids.len());
    let mut state = 7u64;
    let mut pick = || ids[(rng(&mut state) % ids.len() as u64) as usize];

    // Single edits: the result flipped, then a rating (both change the statistics).
    let mut edits = Vec::new();
    let mut records = 0;
    for i in 0..40 {
        let id = pick();
        let edit = if i % 2 == 0 {
            TagEdit::Set("Result".into(), ["1-0", "0-1", "1/2-1/2"][i % 3].into())
        } else {
            TagEdit::Set("WhiteElo".into(), (2000 + i * 17).to_string())
        };
        let t = Instant::now();
        let e = db.edit_game(id, &[edit]).expect("edit");
        edits.push(t.elapsed());
        records += e.records;
    }
    println!(
        "edit one game (until visible): {}; {:.1} T records patched an edit",
        percentiles(edits),
        records as f64 / 40.0
    );

    let mut deletes = Vec::new();
    let mut records = 0;
    for _ in 0..40 {
        let id = pick();
        let t = Instant::now();
        let d = db.delete_games(&[id]).expect("delete");
        deletes.push(t.elapsed());
        records += d.records;
    }
    println!(
        "delete one game (until visible): {}; {:.1} T records patched a deletion",
        percentiles(deletes),
        records as f64 / 40.0
    );

    // A batch of 10,000 deletions while a reader asks the start position again and again.
    let batch: Vec<u32> = (0..10_000).map(|_| pick()).collect();
    let stop = AtomicBool::new(false);
    let (batch_time, reads) = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let key = position_key(&shakmaty::Chess::default());
            let succ = tabiya_db::chess::successor_keys(&shakmaty::Chess::default());
            let mut waits = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let snap = db.snapshot().expect("snapshot");
                snap.position_with(key, &succ, 8).expect("query");
                waits.push(t.elapsed());
            }
            waits
        });
        let t = Instant::now();
        let d = db.delete_games(&batch).expect("delete batch");
        let took = t.elapsed();
        stop.store(true, Ordering::Relaxed);
        println!(
            "delete 10,000 games in one transaction: {:.2} s ({} deleted, {} already gone; {} T records patched)",
            took.as_secs_f64(),
            d.games,
            d.missing.len(),
            d.records
        );
        (took, reader.join().expect("reader"))
    });
    let _ = batch_time;
    println!(
        "a reader meanwhile (the start position): {}",
        percentiles(reads)
    );
    let t = Instant::now();
    let snap = db.snapshot().expect("snapshot");
    let key = position_key(&shakmaty::Chess::default());
    let succ = tabiya_db::chess::successor_keys(&shakmaty::Chess::default());
    snap.position_with(key, &succ, 8).expect("query");
    println!(
        "the start position after the changes: {:.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    drop(snap);

    // Names: the entries computed again (after every import and every new spelling), and
    // Scid's spelling file loaded and applied.
    let t = Instant::now();
    db.rebuild_names().expect("rebuild names");
    println!(
        "entries of every name computed again: {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let ssp = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/names/spelling.ssp.zst");
    if let Ok(bytes) = std::fs::read(&ssp) {
        let t = Instant::now();
        let (_, _, after) = db
            .load_spelling("spelling.ssp.zst", &bytes)
            .expect("load spelling");
        let players = after
            .iter()
            .find(|e| e.dict == tabiya_db::Dict::Player)
            .expect("players");
        println!(
            "Scid's spelling file loaded and applied: {:.2} s ({} player entries, {} from the file, {} spellings left alone as ambiguous)",
            t.elapsed().as_secs_f64(),
            players.entries.len(),
            players
                .entries
                .iter()
                .filter(|e| e.source == tabiya_db::NameSource::Spelling)
                .count(),
            players.ambiguous.len()
        );
        let t = Instant::now();
        db.rebuild_names().expect("rebuild names");
        println!(
            "entries computed again with the spelling file: {:.2} s",
            t.elapsed().as_secs_f64()
        );
    }
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}
