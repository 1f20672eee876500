//! The check finds what is wrong in a database whose pages are sound: index entries and facts
//! changed through the store (checksums and all), as a bug of ours would leave them.

use super::check;
use crate::codec::put_varint;
use crate::index::record::{Elsewhere, TRecord, decode_t_block, encode_record};
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

/// Changes the first record of the first T block that `pick` picks, as `change` says, and
/// writes the block back.
fn change_a_record<T>(
    dir: &std::path::Path,
    pick: impl Fn(&TRecord) -> bool,
    change: impl FnOnce(&mut TRecord) -> T,
) -> T {
    let db = Database::open(dir).unwrap();
    let run = db.runs().unwrap()[0].clone();
    let w = db.store.write().unwrap();
    let mut changed = None;
    w.with_table(BLOCKS, |t| {
        let key = block_key(run.id, b'T', 0);
        let mut records = decode_t_block(&t.get(&key)?.unwrap()).unwrap();
        let rec = records
            .iter_mut()
            .find(|r| pick(r))
            .expect("a record to change");
        changed = Some(change(rec));
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
}

/// `tabiya check` of `dir` reports a problem of the index that `said` recognises.
fn assert_reported(dir: &std::path::Path, said: impl Fn(&str) -> bool) {
    let r = check(dir).unwrap();
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "index" && said(&p.what)),
        "{:?}",
        r.problems
    );
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
    let changed = change_a_record(
        &dir,
        |r| !r.top.is_empty() && r.moves.len() > 1,
        |rec| {
            let top = &mut rec.top[0];
            top.slot = (top.slot + 1) % rec.moves.len() as u8;
            (top.game, top.slot)
        },
    );
    let said = format!(
        "lists game {} (move slot {}) among its top games: that game does not play that move here",
        changed.0, changed.1
    );
    assert_reported(&dir, |what| what == said);

    // Its newest games out of order, and a single-played move's game named wrong.
    let dir = tmp.path().join("db4");
    morphy(&dir);
    change_a_record(
        &dir,
        |r| r.recent.as_ref().is_some_and(|n| n.len() > 1),
        |rec| rec.recent.as_mut().unwrap().swap(0, 1),
    );
    assert_reported(&dir, |what| {
        what.contains("as its newest games, its games' dates say")
    });
    let dir = tmp.path().join("db5");
    morphy(&dir);
    change_a_record(
        &dir,
        |r| r.singles.as_ref().is_some_and(|s| !s.is_empty()),
        |rec| rec.singles.as_mut().unwrap()[0].1 += 1,
    );
    assert_reported(&dir, |what| what.contains("for move slot"));

    // Every move of every record said to be the whole of where it leads (a transposition
    // into a popular position says otherwise).
    let dir = tmp.path().join("db6");
    morphy(&dir);
    assert!(check(&dir).unwrap().ok());
    {
        let db = Database::open(&dir).unwrap();
        let run = db.runs().unwrap()[0].clone();
        let w = db.store.write().unwrap();
        w.with_table(BLOCKS, |t| {
            for b in 0..run.t_first.len() as u32 {
                let key = block_key(run.id, b'T', b);
                let mut records = decode_t_block(&t.get(&key)?.unwrap()).unwrap();
                let mut block = Vec::new();
                put_varint(&mut block, records.len() as u64);
                for r in &mut records {
                    r.whole = vec![true; r.moves.len()];
                    encode_record(r, &mut block);
                }
                t.put(&key, &block)?;
            }
            Ok(())
        })
        .unwrap();
        w.commit().unwrap();
    }
    assert_reported(&dir, |what| what.contains("games reach it"));

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

#[test]
fn a_record_wrong_about_where_its_moves_lead_other_ways_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let whole_with_list = |r: &TRecord| r.elsewhere.is_some() && r.whole.contains(&true);

    // A whole move said to be reached by another game too (the query would count it).
    let dir = tmp.path().join("a");
    morphy(&dir);
    assert!(check(&dir).unwrap().ok());
    let code = change_a_record(&dir, whole_with_list, |rec| {
        let slot = rec.whole.iter().position(|&w| w).unwrap();
        rec.whole[slot] = false;
        let code = rec.moves[slot].code;
        let list = rec.elsewhere.as_mut().unwrap();
        list.push(Elsewhere {
            code,
            games: Some(vec![1]),
        });
        list.sort_by_key(|e| e.code);
        code
    });
    assert_reported(&dir, |what| {
        what.contains(&format!("says of move {code} that games [1] reach"))
            && what.ends_with("the stored games say []")
    });

    // A move that is not legal there listed (code 0: a1 to a1).
    let dir = tmp.path().join("b");
    morphy(&dir);
    change_a_record(
        &dir,
        |r| r.elsewhere.is_some(),
        |rec| {
            rec.elsewhere.as_mut().unwrap().insert(
                0,
                Elsewhere {
                    code: 0,
                    games: Some(Vec::new()),
                },
            )
        },
    );
    assert_reported(&dir, |what| {
        what.contains("lists move 0 as reached other ways; it is not a legal move")
    });

    // A move reached by other games no longer listed (the query would miss them).
    let dir = tmp.path().join("c");
    morphy(&dir);
    let dropped = change_a_record(
        &dir,
        |r| {
            r.elsewhere.as_ref().is_some_and(|l| {
                l.iter()
                    .any(|e| e.games.as_ref().is_some_and(|g| !g.is_empty()))
            })
        },
        |rec| {
            let list = rec.elsewhere.as_mut().unwrap();
            let at = list
                .iter()
                .position(|e| e.games.as_ref().is_some_and(|g| !g.is_empty()))
                .unwrap();
            list.remove(at)
        },
    );
    let games = dropped.games.unwrap();
    assert_reported(&dir, |what| {
        what.contains(&format!(
            "says of move {} that no other game of its run reaches where it leads; the stored \
             games say {games:?}",
            dropped.code
        ))
    });
}

/// Morphy's games imported with the structure index kept.
fn morphy_structures(dir: &std::path::Path) {
    let pgn = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/pgnmentor/Morphy.pgn");
    let db = crate::shapes::imported_with_structures(dir, &[pgn]);
    assert!(db.keeps_structures().unwrap());
}

/// The first row of `kind` in the `shapes` table: its key and its pairs (fingerprint, game).
fn first_row(db: &Database, kind: u8) -> (Vec<u8>, Vec<(u16, u32)>) {
    let read = db.store.read().unwrap();
    let seg = crate::shapes::read_segments(&read).unwrap()[0];
    let mut found = None;
    crate::shapes::rows::each_row(&read, &seg, kind, |row, pairs| {
        if found.is_none() {
            let mut key = vec![kind];
            key.extend_from_slice(&seg.first.to_be_bytes());
            key.extend_from_slice(&row.to_be_bytes());
            found = Some((key, pairs.unwrap()));
        }
    })
    .unwrap();
    found.unwrap()
}

#[test]
fn the_structure_index_checks_and_a_lost_row_a_lost_game_or_overlapping_segments_do_not() {
    use crate::shapes::rows::{MATERIAL, PAWNS};
    use crate::shapes::{SHAPES, read_segments};
    let tmp = tempfile::tempdir().unwrap();

    // Without the index: nothing said of it.
    let dir = tmp.path().join("plain");
    morphy(&dir);
    let r = check(&dir).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!((r.shape_segments, r.shape_games), (0, 0));

    // With it: every game's shapes found, and still after a deletion.
    let dir = tmp.path().join("db");
    morphy_structures(&dir);
    let r = check(&dir).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.shape_games, 211);
    assert_eq!(r.line_games, 211);
    assert!(r.shape_segments >= 1);
    Database::open(&dir).unwrap().delete_games(&[5]).unwrap();
    let r = check(&dir).unwrap();
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.shape_games, 210);

    // A pawn row whose pairs lose one game.
    let (seg, lost) = {
        let db = Database::open(&dir).unwrap();
        let seg = read_segments(&db.store.read().unwrap()).unwrap()[0];
        let (key, pairs) = first_row(&db, PAWNS);
        let lost = pairs
            .iter()
            .copied()
            .find(|&(_, g)| g != 5)
            .expect("a game of a stored game");
        let kept: Vec<_> = pairs.iter().copied().filter(|&p| p != lost).collect();
        let mut value = Vec::new();
        put_varint(&mut value, kept.len() as u64);
        let (mut fp, mut game) = (0u16, seg.first);
        for &(f, g) in &kept {
            if f != fp {
                game = seg.first;
            }
            put_varint(&mut value, u64::from(f - fp));
            put_varint(&mut value, u64::from(g - game));
            (fp, game) = (f, g);
        }
        let w = db.store.write().unwrap();
        w.with_table(SHAPES, |t| t.put(&key, &value)).unwrap();
        w.commit().unwrap();
        (seg, lost.1)
    };
    let r = check(&dir).unwrap();
    let at = format!("segment {}..{} game {lost}", seg.first, seg.end);
    assert!(
        r.problems.iter().any(|p| p.part == "shapes"
            && p.place == at
            && p.what.starts_with("its pawn structure")
            && p.what.contains("is missing from pawn row 0")),
        "{:?}",
        r.problems
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.part == "shapes" && p.what.contains("pawn pairs, its rows hold")),
        "{:?}",
        r.problems
    );

    // A material row lost whole: each of its games' codes missing, bounded.
    let dir = tmp.path().join("db2");
    morphy_structures(&dir);
    {
        let db = Database::open(&dir).unwrap();
        let (key, pairs) = first_row(&db, MATERIAL);
        assert!(!pairs.is_empty());
        let w = db.store.write().unwrap();
        w.with_table(SHAPES, |t| t.remove(&key).map(|_| ()))
            .unwrap();
        w.commit().unwrap();
    }
    let r = check(&dir).unwrap();
    assert!(!r.ok());
    let missing: Vec<_> = r
        .problems
        .iter()
        .filter(|p| p.part == "shapes" && p.what.contains("is missing from material row"))
        .collect();
    assert!(!missing.is_empty(), "{:?}", r.problems);
    assert!(missing[0].place.contains(" game "), "{:?}", missing[0]);
    assert!(r.problems.len() <= super::KEPT + 1, "{}", r.problems.len());

    // A segment overlapping another, past the next game id; a directory that does not decode.
    let dir = tmp.path().join("db3");
    morphy_structures(&dir);
    let seg = {
        let db = Database::open(&dir).unwrap();
        let seg = read_segments(&db.store.read().unwrap()).unwrap()[0];
        let w = db.store.write().unwrap();
        w.with_table(SHAPES, |t| {
            let mut key = vec![b'S'];
            key.extend_from_slice(&(seg.first + 1).to_be_bytes());
            let mut value = Vec::new();
            put_varint(&mut value, u64::from(seg.end + 10));
            value.extend_from_slice(&[0, 0, 0, 0]);
            t.put(&key, &value)?;
            let mut key = vec![b'D'];
            key.extend_from_slice(&seg.first.to_be_bytes());
            t.put(&key, &[0xff])
        })
        .unwrap();
        w.commit().unwrap();
        seg
    };
    let r = check(&dir).unwrap();
    let fake = format!("segment {}..{}", seg.first + 1, seg.end + 10);
    for (place, what) in [
        (
            fake.as_str(),
            format!("overlaps segment {}..{}", seg.first, seg.end),
        ),
        (
            fake.as_str(),
            format!("covers ids past the next game id, {}", seg.end),
        ),
    ] {
        assert!(
            r.problems
                .iter()
                .any(|p| p.part == "shapes" && p.place == place && p.what == what),
            "{place}: {what}: {:?}",
            r.problems
        );
    }
    assert!(
        r.problems.iter().any(|p| p.part == "shapes"
            && p.place == format!("segment {}..{}", seg.first, seg.end)
            && p.what.starts_with("its material directory does not decode")),
        "{:?}",
        r.problems
    );
}

/// A search line that is not its record's main line (two moves swapped, as a bug of ours
/// could write them) is reported with its game; the others still check.
#[test]
fn a_search_line_unlike_its_record_is_reported() {
    use crate::shapes::SHAPES;
    use crate::shapes::lines::block_key;
    use crate::shapes::squares::read_square_segments;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    morphy_structures(&dir);
    let (game, seg) = {
        let db = Database::open(&dir).unwrap();
        let read = db.store.read().unwrap();
        let seg = read_square_segments(&read)
            .unwrap()
            .into_iter()
            .find(|s| s.end > 1)
            .unwrap();
        assert!(seg.lines);
        // The segment's first stored game (ids begin at 1): its first two codes swapped.
        // A block: each game's count of codes plus one (two bytes), then the codes.
        let game = seg.first.max(1);
        let key = block_key(seg.first, 0);
        let mut block = read.table(SHAPES).unwrap().get(&key).unwrap().unwrap();
        let games = (seg.end - seg.first).min(32) as usize;
        let count = |i: usize| usize::from(u16::from_le_bytes([block[2 * i], block[2 * i + 1]]));
        let slot = (game - seg.first) as usize;
        let at = 2 * games
            + (0..slot)
                .map(|i| 2 * count(i).saturating_sub(1))
                .sum::<usize>();
        assert!(count(slot) > 2, "a line of two moves at least");
        let (a, b) = (block[at..at + 2].to_vec(), block[at + 2..at + 4].to_vec());
        block[at..at + 2].copy_from_slice(&b);
        block[at + 2..at + 4].copy_from_slice(&a);
        drop(read);
        let w = db.store.write().unwrap();
        w.with_table(SHAPES, |t| t.put(&key, &block)).unwrap();
        w.commit().unwrap();
        (game, seg)
    };
    let r = check(&dir).unwrap();
    let at = format!("square segment {}..{} game {game}", seg.first, seg.end);
    assert_eq!(r.problem_count, 1, "{:?}", r.problems);
    assert!(
        r.problems.iter().any(|p| p.part == "shapes"
            && p.place == at
            && p.what == "its search line is not its main line"),
        "{:?}",
        r.problems
    );
    assert_eq!(r.line_games, 211);
}
