//! Explorer latency: p50/p90/p99 of answering a position (statistics of every move plus the
//! headers of the best games — what `tabiya explore --json` computes), on an open database.
//!
//! `TABIYA_BENCH_DB=DIR cargo bench -p tabiya-db --bench explore` measures that database (e.g.
//! the 1M-game one of BENCHMARKS.md); without it, a database of TWIC 920 is built under
//! `target/`. Positions are drawn from the database's own games (a fixed seed): a quarter
//! in the first 10 plies, a quarter at plies 10–30, half anywhere in the game.

use std::path::PathBuf;
use std::time::Instant;

use shakmaty::Position;
use tabiya_db::chess;
use tabiya_db::{Database, ImportOptions, ImportProgress};

fn rng(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() {
    let dir = match std::env::var_os("TABIYA_BENCH_DB") {
        Some(d) => PathBuf::from(d),
        None => {
            let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-db-twic");
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
    let db = Database::open(&dir).expect("open database");
    for r in db.runs().expect("runs") {
        eprintln!(
            "run {}: {} games, {} T records in {} blocks, {} S entries in {} blocks, {} implicit, {} bytes",
            r.id,
            r.games,
            r.t_records,
            r.t_first.len(),
            r.s_entries,
            r.s_first.len(),
            r.implicit,
            r.bytes
        );
    }
    let snap = db.snapshot().expect("snapshot");
    let ids = snap.all_game_ids().expect("ids");
    let mut state = 42u64;
    let queries = std::env::var("TABIYA_BENCH_QUERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000usize);
    // Replaying stored games (what verifying a rare position and merging runs cost).
    {
        let n = ids.len().min(20_000);
        let (mut occs, mut plies) = (Vec::new(), Vec::new());
        let t = Instant::now();
        let mut read_only = 0.0;
        for &id in &ids[..n] {
            let t1 = Instant::now();
            let data = snap.game_record(id).expect("record").expect("game");
            read_only += t1.elapsed().as_secs_f64();
            chess::replay_record(&data, None, &mut occs, &mut plies).expect("replay");
        }
        let total = t.elapsed().as_secs_f64();
        println!(
            "replay: {n} games in {:.3} s: {:.1} µs a game ({:.1} µs reading and decompressing it)",
            total,
            total * 1e6 / n as f64,
            read_only * 1e6 / n as f64
        );
    }
    // Fresh process: the store's page cache holds only what the set-up above read.
    let first = pick_positions(&snap, &ids, &mut state, queries);
    measure(&db, &snap, &dir, &ids, &first, 50, "fresh process");
    // Steady state: the whole database in the page cache (as after a server's first minutes),
    // other positions than those just asked.
    let t = Instant::now();
    let bytes = snap.warm_cache().expect("warm");
    eprintln!(
        "read the whole database into the page cache: {:.0} MB in {:.2} s",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let second = pick_positions(&snap, &ids, &mut state, queries);
    measure(&db, &snap, &dir, &ids, &second, 0, "database cached");
    // The whole answer `explore --json` gives (moves named, each move's position looked up
    // for the games reaching it by any move order, the best games' headers), cached.
    let third = pick_positions(&snap, &ids, &mut state, queries);
    let mut times = Vec::with_capacity(third.len());
    let mut with_reached = 0usize;
    for pos in &third {
        let t = Instant::now();
        let e = snap
            .chess_explore(
                std::slice::from_ref(pos),
                shakmaty::CastlingMode::Standard,
                8,
            )
            .expect("explore");
        times.push(t.elapsed().as_secs_f64() * 1e6);
        with_reached += e.moves.iter().filter(|m| m.reached.is_some()).count();
    }
    // Of that, the lookups of `reached` alone: the position after each move.
    let mut reached_times = Vec::with_capacity(third.len());
    let (mut moves, looked_before) = (0usize, snap.reached_lookups());
    for pos in &third {
        let ps = snap.chess_position(pos, 0).expect("query");
        let played: Vec<shakmaty::Move> = ps
            .moves
            .iter()
            .filter_map(|(code, _)| chess::code_to_move(pos, *code))
            .collect();
        moves += played.len();
        let t = Instant::now();
        let _ = snap.chess_reached(pos, &played).expect("query");
        reached_times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    reached_times.sort_by(|a, b| a.partial_cmp(b).expect("numbers"));
    let rp = |p: f64| {
        reached_times[((reached_times.len() as f64 * p) as usize).min(reached_times.len() - 1)]
    };
    println!(
        "of which every move's reached (from the record's whole moves and lists, else a lookup: {} of {moves} moves looked up), database cached: µs p50 {:.0}  p90 {:.0}  p99 {:.0}  max {:.0}",
        snap.reached_lookups() - looked_before,
        rp(0.5),
        rp(0.9),
        rp(0.99),
        reached_times[reached_times.len() - 1]
    );
    times.sort_by(|a, b| a.partial_cmp(b).expect("numbers"));
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "whole answer with each move's reached, database cached: {} queries ({with_reached} moves); µs p50 {:.0}  p90 {:.0}  p99 {:.0}  max {:.0}",
        times.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        times[times.len() - 1]
    );
}

fn pick_positions(
    snap: &tabiya_db::Snapshot<'_>,
    ids: &[u32],
    state: &mut u64,
    queries: usize,
) -> Vec<shakmaty::Chess> {
    let mut positions = Vec::with_capacity(queries);
    while positions.len() < queries {
        let id = ids[(rng(state) % ids.len() as u64) as usize];
        let Some(data) = snap.game_record(id).expect("record") else {
            continue;
        };
        let (start, _, moves, _) = chess::decode_line(&data).expect("decode");
        let kind = positions.len() % 4;
        let len = moves.len();
        let ply = match kind {
            0 => (rng(state) % 10) as usize,
            1 => 10 + (rng(state) % 21) as usize,
            _ => (rng(state) % (len as u64 + 1)) as usize,
        }
        .min(len);
        let mut pos = start;
        for m in &moves[..ply] {
            pos.play_unchecked(*m);
        }
        positions.push(pos);
    }
    if let Ok(fen) = std::env::var("TABIYA_BENCH_FEN") {
        // One position, many times (for profiling).
        let pos: shakmaty::Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .expect("FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("position");
        positions = vec![pos; queries];
    }
    positions
}

fn measure(
    db: &Database,
    snap: &tabiya_db::Snapshot<'_>,
    dir: &std::path::Path,
    ids: &[u32],
    positions: &[shakmaty::Chess],
    warm_up: usize,
    what: &str,
) {
    for pos in positions.iter().take(warm_up) {
        let _ = snap.chess_position(pos, 8).expect("query");
    }
    let mut times = Vec::with_capacity(positions.len());
    let mut found = 0;
    for pos in positions {
        let t = Instant::now();
        let ps = snap.chess_position(pos, 8).expect("query");
        for &(g, _) in &ps.top_games {
            let _ = snap.chess_tags(g).expect("tags");
        }
        times.push(t.elapsed().as_secs_f64() * 1e6);
        if ps.totals.games() > 0 {
            found += 1;
        }
    }
    if std::env::var_os("TABIYA_BENCH_SLOWEST").is_some() {
        let mut idx: Vec<usize> = (0..times.len()).collect();
        idx.sort_by(|&a, &b| times[b].partial_cmp(&times[a]).expect("numbers"));
        for &i in idx.iter().take(10) {
            let fen =
                shakmaty::fen::Fen::from_position(&positions[i], shakmaty::EnPassantMode::Legal);
            eprintln!("{:>8.0} µs  {fen}", times[i]);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).expect("numbers"));
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "explore on {} ({} games, {} runs), {what}: {} queries, {} found; µs p50 {:.0}  p90 {:.0}  p99 {:.0}  max {:.0}  mean {:.0}",
        dir.display(),
        ids.len(),
        db.runs().map(|r| r.len()).unwrap_or(0),
        times.len(),
        found,
        pct(0.5),
        pct(0.9),
        pct(0.99),
        times[times.len() - 1],
        mean
    );
}
