//! Kvetka: build time for the 27,608 TCEC games (aggregate + write) and probes per second.
//!
//! `CARGO_TARGET_DIR=/work/target-kvetka cargo bench -p tabiya-books --bench kvetka`

use std::{hint::black_box, io::Read, ops::ControlFlow, time::Duration};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};
use tabiya_books::{
    BookGame, GameResult,
    kvetka::{GameFilter, KvetkaBook, KvetkaBookSpec, aggregate_games, write_book},
};

const TCEC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/pgn/tcec/tcec-partial.nocomments.pgn.zst"
);

#[derive(Default)]
struct G {
    fen: Option<String>,
    result: GameResult2,
    sans: Vec<SanPlus>,
}
#[derive(Default, Clone, Copy)]
struct GameResult2(Option<GameResult>);

struct V;
impl Visitor for V {
    type Tags = G;
    type Movetext = G;
    type Output = G;
    fn begin_tags(&mut self) -> ControlFlow<G, G> {
        ControlFlow::Continue(G::default())
    }
    fn tag(&mut self, g: &mut G, name: &[u8], value: RawTag<'_>) -> ControlFlow<G> {
        match name {
            b"FEN" => g.fen = Some(String::from_utf8_lossy(value.as_bytes()).into_owned()),
            b"Result" => {
                g.result = GameResult2(Some(match value.as_bytes() {
                    b"1-0" => GameResult::WhiteWins,
                    b"0-1" => GameResult::BlackWins,
                    b"1/2-1/2" => GameResult::Draw,
                    _ => GameResult::Unknown,
                }))
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, g: G) -> ControlFlow<G, G> {
        ControlFlow::Continue(g)
    }
    fn san(&mut self, g: &mut G, san: SanPlus) -> ControlFlow<G> {
        g.sans.push(san);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, g: G) -> G {
        g
    }
}

fn load_games() -> Vec<BookGame> {
    let mut raw = Vec::new();
    std::fs::File::open(TCEC)
        .unwrap()
        .read_to_end(&mut raw)
        .unwrap();
    let text = zstd::decode_all(&raw[..]).unwrap();
    let mut reader = Reader::new(&text[..]);
    let mut games = Vec::new();
    while let Some(g) = reader.read_game(&mut V).unwrap() {
        let start = match &g.fen {
            None => Chess::default(),
            Some(f) => match f
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Chess960).ok())
            {
                Some(p) => p,
                None => continue,
            },
        };
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(g.sans.len());
        for san in &g.sans {
            let Ok(m) = san.san.to_move(&pos) else { break };
            pos.play_unchecked(m);
            moves.push(m);
        }
        games.push(BookGame {
            start,
            standard_start: g.fen.is_none(),
            moves,
            result: g.result.0.unwrap_or(GameResult::Unknown),
            white_elo: None,
            black_elo: None,
            year: None,
            source: None,
        });
    }
    games
}

fn bench(c: &mut Criterion) {
    let games = load_games();
    assert!(games.len() > 27_000);
    let dir = tempfile::tempdir().unwrap();
    // The book probed below: whole games, written once outside any timing.
    let (inputs, _) = aggregate_games(
        games.iter().enumerate().map(|(i, g)| (i as u32, g)),
        &GameFilter::default(),
    );
    let report = write_book(dir.path(), "probe", &KvetkaBookSpec::default(), inputs).unwrap();
    eprintln!(
        "TCEC whole-game book: {} elements, {} blocks, {} bytes, {} files; positions skipped {}, \
         moves skipped: underpromotion {}, piece number {}, other {}",
        report.elements,
        report.blocks,
        report.bytes,
        report.files.len(),
        report.positions_skipped,
        report.moves_skipped_underpromotion,
        report.moves_skipped_piece_number,
        report.moves_skipped_other
    );
    let mut group = c.benchmark_group("kvetka");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    group.throughput(Throughput::Elements(games.len() as u64));
    for (label, max_move) in [
        ("build_tcec_40_plies", 40u8),
        ("build_tcec_whole_games", 0xFF),
    ] {
        group.bench_function(label, |b| {
            b.iter(|| {
                let filter = GameFilter {
                    max_move,
                    ..GameFilter::default()
                };
                let (inputs, _) = aggregate_games(
                    games.iter().enumerate().map(|(i, g)| (i as u32, g)),
                    &filter,
                );
                let spec = KvetkaBookSpec {
                    max_move,
                    ..KvetkaBookSpec::default()
                };
                black_box(write_book(dir.path(), label, &spec, inputs).unwrap())
            })
        });
    }

    // Probes: every position of the first 2,000 games against the whole-game book.
    let book = KvetkaBook::open(dir.path().join("probe")).unwrap();
    let mut probes = Vec::new();
    for g in games.iter().take(2000) {
        let mut pos = g.start.clone();
        probes.push(pos.clone());
        for m in &g.moves {
            pos.play_unchecked(*m);
            probes.push(pos.clone());
        }
    }
    group.throughput(Throughput::Elements(probes.len() as u64));
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("probe_detail", |b| {
        b.iter(|| {
            let mut found = 0u64;
            for p in &probes {
                found += u64::from(book.probe_detail(p).unwrap().element.is_some());
            }
            black_box(found)
        })
    });
    group.bench_function("find_key", |b| {
        let keys: Vec<_> = probes
            .iter()
            .filter_map(|p| tabiya_books::kvetka::position_key(p).ok())
            .map(|(k, _)| k)
            .collect();
        b.iter(|| {
            let mut found = 0u64;
            for k in &keys {
                found += u64::from(book.find(k).unwrap().is_some());
            }
            black_box(found)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
