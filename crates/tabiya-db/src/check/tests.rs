//! The check finds what is wrong in a database whose pages are sound: index entries and facts
//! changed through the store (checksums and all), as a bug of ours would leave them.

use super::check;
use crate::codec::put_varint;
use crate::index::record::{decode_t_block, encode_record};
use crate::index::{BLOCKS, block_key, decode_s_block, sblock::encode_s_block};
use crate::{Database, ImportOptions, ImportProgress, Kind};

fn morphy(dir: &std::path::Path) {
    let pgn = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/pgnmentor/Morphy.pgn");
    let db = Database::open_or_create(dir, Kind::Chess, None).unwrap();
    db.import(
        &[pgn],
        &ImportOptions::default(),
        &ImportProgress::default(),
    )
    .unwrap();
}

#[test]
fn a_sound_database_checks_and_a_lost_s_entry_a_wrong_top_game_or_changed_facts_do_not() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    morphy(&dir);
    let r = check(&dir).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.games, 211);

    // One S entry dropped from the first S block of the run.
    {
        let db = Database::open(&dir).unwrap();
        let run = db.runs().unwrap()[0].clone();
        let w = db.store.write().unwrap();
        w.with_table(BLOCKS, |t| {
            let key = block_key(run.id, b'S', 0);
            let mut entries = decode_s_block(&t.get(&key)?.unwrap()).unwrap();
            entries.remove(entries.len() / 2);
            t.put(&key, &encode_s_block(&entries))
        })
        .unwrap();
        w.commit().unwrap();
    }
    let r = check(&dir).unwrap();
    assert!(!r.ok());
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "index" && p.what.contains("in no T record and no S entry")),
        "{:?}",
        r.problems
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "runs" && p.what.contains("S entries")),
        "{:?}",
        r.problems
    );

    // A top game of a T record said to play another of the position's moves.
    let dir = tmp.path().join("db3");
    morphy(&dir);
    let changed = {
        let db = Database::open(&dir).unwrap();
        let run = db.runs().unwrap()[0].clone();
        let w = db.store.write().unwrap();
        let mut changed = None;
        w.with_table(BLOCKS, |t| {
            let key = block_key(run.id, b'T', 0);
            let mut records = decode_t_block(&t.get(&key)?.unwrap()).unwrap();
            let rec = records
                .iter_mut()
                .find(|r| !r.top.is_empty() && r.moves.len() > 1)
                .expect("a T record with top games and two moves");
            let top = &mut rec.top[0];
            top.slot = (top.slot + 1) % rec.moves.len() as u8;
            changed = Some((top.game, top.slot));
            let mut block = Vec::new();
            put_varint(&mut block, records.len() as u64);
            for r in &records {
                encode_record(r, &mut block);
            }
            t.put(&key, &block)
        })
        .unwrap();
        w.commit().unwrap();
        changed.unwrap()
    };
    let r = check(&dir).unwrap();
    let said = format!(
        "lists game {} (move slot {}) among its top games: that game does not play that move here",
        changed.0, changed.1
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "index" && p.what == said),
        "{:?}",
        r.problems
    );

    // A game's result changed in the facts table alone.
    let dir = tmp.path().join("db2");
    morphy(&dir);
    {
        let db = Database::open(&dir).unwrap();
        let w = db.store.write().unwrap();
        w.with_table(crate::facts::FACTS, |t| {
            let mut row = t.get(&0u32.to_be_bytes())?.unwrap();
            // Game 3's facts start its slot; its first byte holds the result.
            let slot = crate::stats::GameFacts::ENCODED_LEN + 16;
            row[3 * slot] ^= 0x03;
            t.put(&0u32.to_be_bytes(), &row)
        })
        .unwrap();
        w.commit().unwrap();
    }
    let r = check(&dir).unwrap();
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "facts" && p.place == "game 3"),
        "{:?}",
        r.problems
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "index" && p.what.contains("its games' facts")),
        "{:?}",
        r.problems
    );
}
