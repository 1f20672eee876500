use std::path::PathBuf;
use std::sync::atomic::Ordering;

use super::streams::{S_CACHE_LIMIT, S_CACHE_MAX};
use crate::index::{BLOCKS, POSTINGS, RUNS};
use crate::{Database, ImportOptions, ImportProgress, Kind};

/// The contents of a database's one run, in an order that does not depend on how it was
/// built: each T record's key, its moves' statistics by move, its games with the move each
/// played, its best games; then every S entry; then the run's counts.
type RunContents = (
    Vec<(
        u128,
        Vec<(u16, crate::stats::Stats)>,
        Vec<(u32, u16)>,
        Vec<u32>,
    )>,
    Vec<crate::index::record::SEntry>,
    (u64, u64, u64, bool),
);

fn run_contents(db: &Database) -> RunContents {
    let read = db.store.read().unwrap();
    let runs = crate::index::load_runs(&read).unwrap();
    assert_eq!(runs.len(), 1, "one run");
    let run = &runs[0];
    let blocks = read.table(BLOCKS).unwrap();
    let postings = read.table(POSTINGS).unwrap();
    let mut trees = Vec::new();
    for b in 0..run.t_first.len() {
        let data = blocks
            .get(&crate::index::block_key(run.id, b'T', b as u32))
            .unwrap()
            .unwrap();
        for rec in crate::index::decode_t_block(&data).unwrap() {
            let list = match &rec.postings {
                Some(p) => p.clone(),
                None => {
                    let data = postings
                        .get(&crate::index::postings_key(run.id, rec.key))
                        .unwrap()
                        .unwrap();
                    crate::index::decode_external_postings(&data, rec.n_postings).unwrap()
                }
            };
            let code = |slot: u8| rec.moves[slot as usize].code;
            let mut moves: Vec<(u16, crate::stats::Stats)> =
                rec.moves.iter().map(|m| (m.code, m.stats)).collect();
            moves.sort_by_key(|m| m.0);
            let games: Vec<(u32, u16)> = list.iter().map(|p| (p.game, code(p.slot))).collect();
            let top: Vec<u32> = rec.top.iter().map(|p| p.game).collect();
            trees.push((rec.key, moves, games, top));
        }
    }
    let mut singles = Vec::new();
    for b in 0..run.s_first.len() {
        let data = blocks
            .get(&crate::index::block_key(run.id, b'S', b as u32))
            .unwrap()
            .unwrap();
        singles.extend(crate::index::decode_s_block(&data).unwrap());
    }
    (
        trees,
        singles,
        (run.t_records, run.s_entries, run.implicit, run.complete),
    )
}

fn twic_import(opts: &ImportOptions) -> (tempfile::TempDir, Database) {
    let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/twic/twic0920.pgn");
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
    let summary = db
        .import(
            std::slice::from_ref(&twic),
            opts,
            &ImportProgress::default(),
        )
        .unwrap();
    assert!(summary.imported > 2000);
    (dir, db)
}

/// An import of several segments merged from their spilled occurrences holds exactly the
/// run an import of one segment builds: the same T records (every game of the position in
/// them), the same S entries, the same positions left implicit — and no spill is left.
#[test]
fn segments_merged_from_sorted_occurrences_equal_one_segment() {
    let (_a, whole) = twic_import(&ImportOptions::default());
    let one = run_contents(&whole);
    assert!(
        one.0.len() > 300 && one.1.len() > 10_000,
        "a real run: {} T records, {} S entries",
        one.0.len(),
        one.1.len()
    );
    assert!(one.2.2 > 10_000, "{} implicit positions", one.2.2);
    for batch in [61, 700] {
        let (dir, split) = twic_import(&ImportOptions {
            batch_games: batch,
            ..ImportOptions::default()
        });
        let merged = run_contents(&split);
        assert_eq!(merged.2, one.2, "counts, segments of {batch} games");
        assert!(merged.0 == one.0, "T records, segments of {batch} games");
        assert!(merged.1 == one.1, "S entries, segments of {batch} games");
        assert!(!dir.path().join("spill").exists(), "spill removed");
    }
}

/// A merge reading the S entries again from the parts' blocks writes the same run as one
/// keeping them in memory.
#[test]
fn merging_from_memory_or_from_the_blocks_gives_the_same_run() {
    let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/twic/twic0920.pgn");
    let build = |limit: u64| {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
        S_CACHE_LIMIT.store(limit, Ordering::Relaxed);
        let opts = ImportOptions {
            batch_games: 61,
            merge_sorted: false,
            ..ImportOptions::default()
        };
        db.import(
            std::slice::from_ref(&twic),
            &opts,
            &ImportProgress::default(),
        )
        .unwrap();
        S_CACHE_LIMIT.store(S_CACHE_MAX, Ordering::Relaxed);
        let read = db.store.read().unwrap();
        let mut tables = Vec::new();
        for name in [RUNS, BLOCKS, POSTINGS] {
            let mut rows: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            read.table(name)
                .unwrap()
                .scan(&[], None, |k, v| {
                    rows.push((k.to_vec(), v.to_vec()));
                    true
                })
                .unwrap();
            tables.push(rows);
        }
        tables
    };
    let streamed = build(0);
    let cached = build(S_CACHE_MAX);
    assert_eq!(streamed[0].len(), 1, "one run after merging");
    assert!(streamed[1].len() > 10, "{} blocks", streamed[1].len());
    assert!(streamed == cached, "the two merges differ");
}
