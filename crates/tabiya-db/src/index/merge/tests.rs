use std::path::PathBuf;
use std::sync::atomic::Ordering;

use super::streams::{S_CACHE_LIMIT, S_CACHE_MAX};
use crate::index::{BLOCKS, POSTINGS, RUNS};
use crate::{Database, ImportOptions, ImportProgress, Kind};

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
