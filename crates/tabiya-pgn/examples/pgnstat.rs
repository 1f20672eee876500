//! Reads PGN files and prints how many games parsed, failed, and the time taken.
//! `cargo run --release -p tabiya-pgn --example pgnstat -- FILE...`
use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let t = Instant::now();
        let input = tabiya_pgn::input::open(std::path::Path::new(&path)).expect("open");
        let (mut ok, mut bad, mut plies) = (0u64, 0u64, 0u64);
        for item in tabiya_pgn::read_all(input.reader) {
            let (_span, game) = item.expect("read");
            match game {
                Ok(g) => {
                    ok += 1;
                    plies += g.moves.len() as u64;
                }
                Err(e) => {
                    bad += 1;
                    if bad <= 10 {
                        eprintln!("{path}:{e}");
                    }
                }
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{path}: {ok} games, {bad} errors, {plies} plies, {s:.3}s, {:.0} games/s",
            ok as f64 / s
        );
    }
}
