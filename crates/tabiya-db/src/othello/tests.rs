use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use tabiya_othello::wthor::{GameFile, Name, NameFile, NameKind};
use tabiya_othello::{Board, Color, PositionKey, Replay, Square, format_transcript};

use super::keys::{M1, M1_INV, M2, M2_INV};
use super::*;
use crate::answers::GameSort;
use crate::game::NO_MOVE;
use crate::stats::Stats;
use crate::{Database, Error, ImportOptions, ImportProgress, Kind};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

fn wtb(years: std::ops::RangeInclusive<u16>) -> Vec<PathBuf> {
    years
        .map(|y| shared(&format!("wthor/WTH_{y}.wtb")))
        .collect()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn line(s: &str) -> Vec<Square> {
    tabiya_othello::parse_transcript(s).unwrap()
}

fn import(db: &Database, files: &[PathBuf], batch: usize) -> WthorImportSummary {
    let opts = ImportOptions {
        batch_games: batch,
        ..Default::default()
    };
    db.import_wthor(
        files,
        &NameSources::default(),
        &opts,
        &ImportProgress::default(),
    )
    .unwrap()
}

#[test]
fn index_keys_are_a_bijection() {
    assert_eq!(M1.wrapping_mul(M1_INV), 1);
    assert_eq!(M2.wrapping_mul(M2_INV), 1);
    let mut x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
    for _ in 0..10_000 {
        x = x
            .wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15)
            .wrapping_add(12345);
        assert_eq!(position_key_of(index_key(PositionKey(x))), PositionKey(x));
    }
    // Over the positions of real games, many canonical keys share their top 32 bits (a
    // rare position's query replays every game of its prefix); index keys almost never do.
    let mut keys = HashSet::new();
    let mut occs = Vec::new();
    for g in games_of(&wtb(1977..=1984)) {
        for ply in Replay::new(&g.moves) {
            keys.insert(ply.unwrap().canonical.key);
        }
        occurrences(&g.moves, &mut occs).unwrap();
    }
    let largest = |f: &dyn Fn(PositionKey) -> u32| {
        let mut groups: HashMap<u32, usize> = HashMap::new();
        for &k in &keys {
            *groups.entry(f(k)).or_default() += 1;
        }
        groups.values().copied().max().unwrap_or(0)
    };
    let raw = largest(&|k| (k.0 >> 96) as u32);
    let mixed = largest(&|k| (index_key(k) >> 96) as u32);
    assert!(keys.len() > 50_000, "{}", keys.len());
    assert!(
        raw > 500,
        "largest group of canonical keys with one prefix: {raw}"
    );
    assert!(
        mixed <= 2,
        "largest group of index keys with one prefix: {mixed}"
    );
}

#[test]
fn settle_passes_and_game_over() {
    // Black a1, white b1: black can play c1? No: c1 is beside white b1 with nothing of
    // black's beyond — black's a1 and white b1: black plays c1 and flips b1. White has no
    // move at all (no black disc between white and an empty square).
    let b = Board::new(sq("a1").bit(), sq("b1").bit(), Color::White).unwrap();
    assert_eq!(b.legal_moves(), 0);
    assert_eq!(settle(&b).side(), Color::Black, "white passes");
    let full = Board::new(u64::MAX, 0, Color::White).unwrap();
    assert_eq!(
        settle(&full).side(),
        Color::Black,
        "game over: black by convention"
    );
    let start = Board::start();
    assert_eq!(settle(&start), start);
}

#[test]
fn occurrences_fold_symmetric_first_moves_and_end_with_no_move() {
    let mut a = Vec::new();
    let mut b = Vec::new();
    // f5 d6 in WTHOR orientation and its image under the half turn: c4 e3.
    occurrences(&line("f5d6"), &mut a).unwrap();
    occurrences(&line("c4e3"), &mut b).unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a, b);
    assert_eq!(a[2].code, NO_MOVE);
    assert_eq!((a[0].mover, a[1].mover, a[2].mover), (0, 1, 0));
    // The other two first moves, d3 and e6, give the same first code.
    for first in ["d3", "e6"] {
        occurrences(&line(first), &mut b).unwrap();
        assert_eq!(b[0], a[0], "{first}");
    }
    assert!(occurrences(&line("f5f5"), &mut b).is_err());
}

#[test]
fn stored_form_writes_the_wthor_record_back() {
    for path in wtb(1977..=1985) {
        let file = GameFile::read(&path).unwrap();
        let mut bytes = Vec::new();
        for (i, rec) in file.games.iter().enumerate() {
            let g = StoredGame {
                year: file.header.year,
                tournament: rec.tournament,
                black: rec.black,
                white: rec.white,
                black_score: rec.black_score,
                theoretical_score: rec.theoretical_score,
                moves: file.squares(i).unwrap(),
            };
            let mut enc = Vec::new();
            g.encode(&mut enc);
            assert_eq!(enc.len(), 12 + g.moves.len());
            assert_eq!(StoredGame::decode(&enc).unwrap(), g);
            g.to_record().write_to(&mut bytes);
        }
        let raw = std::fs::read(&path).unwrap();
        assert_eq!(bytes, raw[16..], "{}", path.display());
    }
    assert!(StoredGame::decode(&[1, 0, 0]).is_err());
    assert!(
        StoredGame::decode(&[1, 0xc1, 7, 0, 0, 0, 0, 0, 0, 40, 40, 1, 64]).is_err(),
        "square 64"
    );
    assert!(
        StoredGame::decode(&[2, 0xc1, 7, 0, 0, 0, 0, 0, 0, 40, 40, 0]).is_err(),
        "format 2"
    );
}

/// Every game of the files, decoded independently of the database.
fn games_of(files: &[PathBuf]) -> Vec<StoredGame> {
    let mut out = Vec::new();
    for path in files {
        let f = GameFile::read(path).unwrap();
        for (i, r) in f.games.iter().enumerate() {
            out.push(StoredGame {
                year: f.header.year,
                tournament: r.tournament,
                black: r.black,
                white: r.white,
                black_score: r.black_score,
                theoretical_score: r.theoretical_score,
                moves: f.squares(i).unwrap(),
            });
        }
    }
    out
}

#[test]
fn index_answers_like_a_scan_of_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
    let files = wtb(1977..=1986);
    // Three imports of small batches: many runs, merged, with rare positions promoted
    // (and hidden predecessors made explicit) by replaying games.
    let mut imported = 0;
    for part in [&files[..6], &files[6..8], &files[8..]] {
        let s = import(&db, part, 700);
        assert_eq!(s.summary.skipped, 0);
        imported += s.summary.imported;
    }
    let games = games_of(&files);
    assert_eq!(imported, games.len() as u64);
    let snap = db.snapshot().unwrap();
    // Positions along a spread of games, at every depth (the deep ones are rare: S entries
    // checked by replaying games), plus every game's final position.
    let mut checked = 0;
    for g in games.iter().step_by(97) {
        for n in (0..=g.moves.len()).step_by(7).chain([g.moves.len()]) {
            let asked = AskedPosition::from_moves(g.moves[..n].to_vec()).unwrap();
            let (totals, moves, found) = scan_games(&games, &asked);
            let ps = snap
                .position_with(asked.index_key(), &asked.successor_keys(), 8)
                .unwrap();
            assert!(!found.is_empty());
            assert_eq!(ps.totals, totals, "{}", format_transcript(&asked.moves));
            let index_moves: HashMap<u16, Stats> = ps.moves.iter().cloned().collect();
            assert_eq!(index_moves, moves, "{}", format_transcript(&asked.moves));
            let (total, ids) = snap
                .position_games_with(
                    asked.index_key(),
                    &asked.successor_keys(),
                    GameSort::Id,
                    0,
                    usize::MAX,
                )
                .unwrap();
            assert_eq!(total as usize, found.len());
            // Game ids are 1 + the game's index in the files (nothing was skipped).
            let want: Vec<u32> = found.iter().map(|&i| i as u32 + 1).collect();
            assert_eq!(ids.iter().map(|p| p.0).collect::<Vec<_>>(), want);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn reimport_export_and_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
    let files = wtb(1977..=1984);
    let first = import(&db, &files, 50_000);
    assert_eq!(
        first.summary.imported,
        12 + 8 + 11 + 160 + 153 + 110 + 199 + 587
    );
    assert_eq!(first.names.players, 3884);
    assert_eq!(first.names.tournaments, 439);
    assert!(first.names.changed.is_empty());
    let again = import(&db, &files, 50_000);
    assert_eq!(again.summary.imported, 0);
    assert_eq!(again.summary.duplicates, first.summary.imported);
    assert_eq!(again.names.players_added + again.names.tournaments_added, 0);
    assert_eq!(db.game_count().unwrap(), first.summary.imported);
    // Export: the same bytes.
    let out = dir.path().join("out");
    let e = db.export_wthor(&out).unwrap();
    assert_eq!(e.games, first.summary.imported);
    for f in files
        .iter()
        .chain([&shared("wthor/WTHOR.JOU"), &shared("wthor/WTHOR.TRN")])
    {
        let name = f.file_name().unwrap();
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(f).unwrap(),
            "{name:?}"
        );
    }
    // A chess database refuses WTHOR files, an Othello database refuses PGN.
    let chess = Database::open_or_create(&dir.path().join("chess"), Kind::Chess, None).unwrap();
    let err = chess.import_wthor(
        &files,
        &NameSources::default(),
        &ImportOptions::default(),
        &ImportProgress::default(),
    );
    assert!(matches!(err, Err(Error::Usage(m)) if m.contains("chess database")));
    let err = db.import(
        &[shared("pgn/twic/twic0920.pgn")],
        &ImportOptions::default(),
        &ImportProgress::default(),
    );
    assert!(matches!(err, Err(Error::Usage(m)) if m.contains("Othello")));
    assert!(chess.export_wthor(&out).is_err());
}

#[test]
fn bad_games_are_skipped_with_file_game_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(shared("wthor/WTH_1977.wtb")).unwrap();
    // Game 3, move 2 (offset 16 + 3·68 + 9): a1, not a legal reply to f5.
    bytes[16 + 3 * 68 + 9] = 11;
    // Game 5, move 1: byte 19, no square.
    bytes[16 + 5 * 68 + 8] = 19;
    let path = dir.path().join("WTH_1977.wtb");
    std::fs::write(&path, &bytes).unwrap();
    for n in ["WTHOR.JOU", "WTHOR.TRN"] {
        std::fs::copy(shared(&format!("wthor/{n}")), dir.path().join(n)).unwrap();
    }
    let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
    let s = import(&db, std::slice::from_ref(&path), 100);
    assert_eq!(
        (s.summary.games, s.summary.imported, s.summary.skipped),
        (12, 10, 2)
    );
    assert_eq!(s.summary.skipped_by_reason.get("illegal move"), Some(&1));
    assert_eq!(s.summary.skipped_by_reason.get("bad move byte"), Some(&1));
    let illegal = &s.summary.problems[0];
    assert_eq!(illegal.game, 4, "1-based");
    assert!(
        illegal.reason.contains("game 3")
            && illegal
                .reason
                .contains(&format!("offset {}", 16 + 3 * 68 + 9)),
        "{}",
        illegal.reason
    );
    assert!(illegal.reason.contains("a1"), "{}", illegal.reason);
    let bad = &s.summary.problems[1];
    assert!(
        bad.reason.contains("game 5")
            && bad.reason.contains(&format!("offset {}", 16 + 5 * 68 + 8)),
        "{}",
        bad.reason
    );
}

#[test]
fn newer_names_files_correct_spellings_older_ones_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(&dir.path().join("db"), Kind::Othello, None).unwrap();
    let jou = shared("wthor/WTHOR.JOU");
    let mut file = NameFile::read(&jou, NameKind::Players).unwrap();
    // An older copy (made one year earlier) with player 5 misspelt and one name more.
    file.header.created_year -= 1;
    file.names[5] = Name::encode("Older Spelling", NameKind::Players).unwrap();
    file.names
        .push(Name::encode("Appended (prog)", NameKind::Players).unwrap());
    file.header.records += 1;
    let old_dir = dir.path().join("old");
    std::fs::create_dir(&old_dir).unwrap();
    file.write(old_dir.join("WTHOR.JOU")).unwrap();
    std::fs::copy(shared("wthor/WTHOR.TRN"), old_dir.join("WTHOR.TRN")).unwrap();
    std::fs::copy(shared("wthor/WTH_1977.wtb"), old_dir.join("WTH_1977.wtb")).unwrap();
    // The real file first, then the older one: the older spelling is not taken, the
    // appended name is.
    import(&db, &wtb(1977..=1977), 100);
    let s = import(&db, &[old_dir.join("WTH_1977.wtb")], 100);
    assert!(s.names.changed.is_empty());
    assert_eq!(s.names.players_added, 1);
    let names = db.snapshot().unwrap().wthor_names().unwrap();
    assert_eq!(
        names.player(5),
        NameFile::read(&jou, NameKind::Players)
            .unwrap()
            .name(5)
            .unwrap()
    );
    assert_eq!(names.player(3884), "Appended (prog)");
    assert!(names.is_program(3884));
    // The other way round: the newer file corrects the older spelling.
    let db2 = Database::open_or_create(&dir.path().join("db2"), Kind::Othello, None).unwrap();
    import(&db2, &[old_dir.join("WTH_1977.wtb")], 100);
    let s = import(&db2, &wtb(1977..=1977), 100);
    assert_eq!(s.names.changed.len(), 1);
    assert_eq!(s.names.changed[0].id, 5);
    assert_eq!(s.names.changed[0].old, "Older Spelling");
}
