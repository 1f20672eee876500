//! tabiya-db through its public surface alone (what the service and the benchmarks use):
//! import, the chess explorer's answer and game lists, stored games, Othello. Expected values
//! come from python-chess (`oracle/explore_oracle.py`, `oracle/count_positions.py`), from
//! the WTHOR files read by tabiya-othello, or from the input itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use tabiya_db::othello::{AskedPosition, GameFilter, NameSources, PlayerKind};
use tabiya_db::{Database, GameSort, ImportOptions, ImportProgress, Kind};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(name)
}

fn python(script: &Path, args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 with python-chess (the test command installs them)");
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle JSON")
}

fn twic() -> PathBuf {
    shared("pgn/twic/twic0920.pgn")
}

fn chess_db(opts: &ImportOptions) -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
    let s = db
        .import(&[twic()], opts, &ImportProgress::default())
        .unwrap();
    assert_eq!(s.imported, 2245);
    (dir, db)
}

/// The positions along a line of UCI moves from the start.
fn line_of(uci: &str) -> Vec<Chess> {
    let mut pos = Chess::default();
    let mut line = vec![pos.clone()];
    for u in uci.split(',').filter(|u| !u.is_empty()) {
        let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        line.push(pos.clone());
    }
    line
}

const LINES: [&str; 6] = [
    "",
    "e2e4",
    "e2e4,c7c5",
    "d2d4,g8f6,c2c4,e7e6,g1f3",
    "g1f3,g8f6,c2c4,e7e6,d2d4",
    "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6",
];

/// The first `plies` moves (UCI) of the `n`-th game of TWIC 920: positions rare enough to
/// be kept as single entries, not in the opening tree.
fn twic_line(n: usize, plies: usize) -> String {
    let text = std::fs::read(twic()).unwrap();
    let (_, game) = tabiya_pgn::read_all(text.as_slice())
        .nth(n)
        .unwrap()
        .unwrap();
    game.unwrap()
        .moves
        .iter()
        .take(plies)
        .map(|m| m.mv.to_uci(CastlingMode::Standard).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The explorer's answer and the game lists equal python-chess's counts — for popular
/// positions (the tree) and rare ones (single entries, some implicit) — imported in one run
/// and in many small ones merged.
#[test]
fn explore_and_games_equal_python_chess() {
    let mut lines: Vec<String> = LINES.iter().map(|s| s.to_string()).collect();
    for (n, plies) in [
        (0, 14),
        (0, 15),
        (500, 22),
        (500, 23),
        (1500, 30),
        (2000, 41),
    ] {
        lines.push(twic_line(n, plies));
    }
    let mut args = vec![twic().display().to_string(), "--".into()];
    args.extend(lines.iter().cloned());
    let expected = python(&oracle("explore_oracle.py"), &args);
    for opts in [
        ImportOptions::default(),
        ImportOptions {
            batch_games: 300,
            ..ImportOptions::default()
        },
    ] {
        let (_dir, db) = chess_db(&opts);
        let snap = db.snapshot().unwrap();
        for l in &lines {
            let l = l.as_str();
            let want = &expected[l];
            let line = line_of(l);
            let e = snap
                .chess_explore(&line, CastlingMode::Standard, 8)
                .unwrap();
            let got = serde_json::to_value(&e).unwrap();
            for f in ["white", "draws", "black", "unknown"] {
                assert_eq!(got[f], want["total"][f], "{l:?}: {f}");
            }
            let moves = got["moves"].as_array().unwrap();
            assert_eq!(
                moves.len(),
                want["moves"].as_object().unwrap().len(),
                "{l:?}"
            );
            for m in moves {
                let w = &want["moves"][m["uci"].as_str().unwrap()];
                for f in ["white", "draws", "black", "averageRating", "performance"] {
                    assert_eq!(m[f], w[f], "{l:?} {}: {f}", m["uci"]);
                }
            }
            // Every game reaching the position, once, by any move order.
            let pos = line.last().unwrap();
            let page = snap
                .chess_games(pos, CastlingMode::Standard, GameSort::Id, 0, usize::MAX)
                .unwrap();
            assert_eq!(page.total, want["games"].as_u64().unwrap(), "{l:?}");
            assert_eq!(page.games.len() as u64, page.total);
            let ids: Vec<u32> = page.games.iter().map(|g| g.id.parse().unwrap()).collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{l:?}: id order");
            // Each listed game does reach the position, and played the move it says.
            for g in page.games.iter().step_by(97) {
                let game = snap.chess_game(g.id.parse().unwrap()).unwrap().unwrap();
                let mut p = game.start.clone();
                let mut found = None;
                for (i, n) in game.moves.iter().enumerate() {
                    if p == *pos && found.is_none() {
                        found = Some(i);
                        assert_eq!(
                            g.uci.as_deref(),
                            Some(n.mv.to_uci(CastlingMode::Standard).to_string().as_str())
                        );
                    }
                    p.play_unchecked(n.mv);
                }
                assert!(found.is_some() || p == *pos, "game {} reaches {l:?}", g.id);
            }
        }
    }
}

/// Sorted pages are slices of one order: by rating (best first), by date (newest first).
#[test]
fn game_pages_are_slices_of_one_order() {
    let (_dir, db) = chess_db(&ImportOptions::default());
    let snap = db.snapshot().unwrap();
    let pos = line_of("e2e4").pop().unwrap();
    for sort in [GameSort::Rating, GameSort::Date, GameSort::Id] {
        let all = snap
            .chess_games(&pos, CastlingMode::Standard, sort, 0, usize::MAX)
            .unwrap();
        let mut paged = Vec::new();
        let mut offset = 0;
        loop {
            let p = snap
                .chess_games(&pos, CastlingMode::Standard, sort, offset, 37)
                .unwrap();
            assert_eq!(p.total, all.total);
            if p.games.is_empty() {
                break;
            }
            offset += p.games.len();
            paged.extend(p.games);
        }
        let ids = |v: &[tabiya_db::chess::GameRow]| -> Vec<String> {
            v.iter().map(|g| g.id.clone()).collect()
        };
        assert_eq!(ids(&paged), ids(&all.games), "{sort:?}");
        if sort == GameSort::Date {
            assert!(all.games.windows(2).all(|w| w[0].date >= w[1].date));
        }
    }
}

/// A game comes back from the store as it went in: the same tags and main line as the
/// PGN's own, and the database counts every position python-chess counts.
#[test]
fn stored_games_and_counted_positions_are_the_input_s() {
    let (_dir, db) = chess_db(&ImportOptions::default());
    let snap = db.snapshot().unwrap();
    let text = std::fs::read(twic()).unwrap();
    let originals: Vec<tabiya_pgn::Game> = tabiya_pgn::read_all(text.as_slice())
        .map(|r| r.unwrap().1.unwrap())
        .collect();
    let ids = snap.all_game_ids().unwrap();
    assert_eq!(ids.len(), originals.len());
    for (id, original) in ids.iter().zip(&originals) {
        let stored = snap.chess_game(*id).unwrap().unwrap();
        let mut a = original.tags.clone();
        let mut b = stored.tags.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "game {id}");
        assert_eq!(stored.moves, original.moves, "game {id}");
    }
    let counted = python(
        &oracle("count_positions.py"),
        &[twic().display().to_string()],
    );
    let stats = tabiya_db::collect_stats(&db).unwrap();
    assert_eq!(stats.positions, counted["positions"].as_u64().unwrap());
    // Importing the same file again adds nothing: every game is a duplicate.
    let again = db
        .import(
            &[twic()],
            &ImportOptions::default(),
            &ImportProgress::default(),
        )
        .unwrap();
    assert_eq!((again.imported, again.duplicates), (0, 2245));
    assert_eq!(db.game_count().unwrap(), 2245);
}

/// An Othello database answers from the WTHOR files: the start position holds every game,
/// the first move's answers sum to it, and filters select what the records say.
#[test]
fn othello_answers_from_the_wthor_records() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(dir.path(), Kind::Othello, None).unwrap();
    let files: Vec<PathBuf> = (1981..=1983)
        .map(|y| shared(&format!("wthor/WTH_{y}.wtb")))
        .collect();
    let s = db
        .import_wthor(
            &files,
            &NameSources::default(),
            &ImportOptions::default(),
            &ImportProgress::default(),
        )
        .unwrap();
    let records: Vec<tabiya_othello::wthor::GameFile> = files
        .iter()
        .map(|f| tabiya_othello::wthor::GameFile::read(f).unwrap())
        .collect();
    let total: usize = records.iter().map(|r| r.games.len()).sum();
    assert_eq!(s.summary.games as usize, total);
    let snap = db.snapshot().unwrap();
    let start = snap
        .othello_explore(&AskedPosition::from_line("").unwrap(), 5)
        .unwrap();
    assert_eq!(start.games, s.summary.imported);
    let after: u64 = start.moves.iter().map(|m| m.games).sum();
    assert_eq!(after, start.games, "every game plays a first move");
    // Games of 1982 only: as many as that file's imported records.
    let y1982 = snap
        .othello_games(
            &GameFilter {
                position: None,
                player: None,
                tournament: None,
                from: Some(1982),
                to: Some(1982),
                players: PlayerKind::Any,
            },
            GameSort::Id,
            0,
            usize::MAX,
        )
        .unwrap();
    assert_eq!(y1982.total as usize, records[1].games.len());
    assert!(y1982.games.iter().all(|g| g.year == 1982));
}

/// A database written in format 1 (no time-control classes, no players table) is brought
/// to format 2 when opened: the same players and classes as a database imported now.
#[test]
fn format_1_databases_are_upgraded_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let tcec = shared("pgn/tcec/tcec-partial.nocomments.pgn.zst");
    let import = |path: &Path| {
        let db = Database::open_or_create(path, Kind::Chess, None).unwrap();
        db.import(
            std::slice::from_ref(&tcec),
            &ImportOptions::default(),
            &ImportProgress::default(),
        )
        .unwrap();
    };
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    import(&old);
    import(&new);
    // Make `old` what format 1 wrote: version 1, no players, class 0 in every facts slot.
    {
        let db = Database::open(&old).unwrap();
        let store = db.store();
        let read = store.read().unwrap();
        let facts = read.table("facts").unwrap();
        let mut rows = Vec::new();
        facts
            .scan(&[], None, |k, v| {
                rows.push((k.to_vec(), v.to_vec()));
                true
            })
            .unwrap();
        drop(read);
        let w = store.write().unwrap();
        w.with_table("facts", |t| {
            for (k, mut v) in rows {
                for slot in v.chunks_mut(12 + 16) {
                    slot[11] = 0;
                }
                t.put(&k, &v)?;
            }
            Ok(())
        })
        .unwrap();
        w.with_table("players", |t| t.remove_range(&[], &[0xff; 8]).map(|_| ()))
            .unwrap();
        w.with_table("meta", |t| t.put(b"version", b"1")).unwrap();
        w.commit().unwrap();
    }
    let (a, b) = (Database::open(&old).unwrap(), Database::open(&new).unwrap());
    let (sa, sb) = (a.snapshot().unwrap(), b.snapshot().unwrap());
    let ids = sb.all_game_ids().unwrap();
    assert_eq!(sa.all_game_ids().unwrap(), ids);
    let mut classes = std::collections::HashSet::new();
    for &id in &ids {
        assert_eq!(sa.facts(id).unwrap(), sb.facts(id).unwrap(), "game {id}");
        assert_eq!(
            sa.players(id).unwrap(),
            sb.players(id).unwrap(),
            "game {id}"
        );
        classes.insert(sb.facts(id).unwrap().speed);
    }
    // The check was not vacuous: several classes, and players named.
    assert!(classes.len() >= 4, "{classes:?}");
    assert!(sb.players(ids[0]).unwrap()[0].is_some());
}

/// A move's average rating and performance are over the games its white/draws/black count:
/// Kasparov–Piket 2000 (pgnmentor's Kasparov file; `*`, both players rated) reaches
/// `r2qr1k1/1bpnbppp/p2p1n2/1p2p3/3PP3/2P2N1P/PPBN1PP1/R1BQR1K1 w - -` and plays Nf1 (the
/// only game there: an S entry), and before that the Closed Ruy Lopez after 9.h3 (33 games:
/// a T record) where it plays 9...Nb8; it counts as unknown in both and in none of the
/// averages. python-chess counts the same (`oracle/explore_oracle.py`).
#[test]
fn ratings_count_over_the_games_a_move_scores() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
    let file = shared("pgn/pgnmentor/Kasparov.pgn");
    let opts = ImportOptions {
        keep_duplicates: true,
        ..ImportOptions::default()
    };
    db.import(
        std::slice::from_ref(&file),
        &opts,
        &ImportProgress::default(),
    )
    .unwrap();
    let targets = [
        (
            "r2qr1k1/1bpnbppp/p2p1n2/1p2p3/3PP3/2P2N1P/PPBN1PP1/R1BQR1K1 w - - 0 12",
            "Nf1",
        ),
        (
            "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9",
            "Nb8",
        ),
    ];
    let mut args = vec![file.display().to_string(), "--".to_string()];
    args.extend(targets.iter().map(|(f, _)| f.to_string()));
    let want = python(&oracle("explore_oracle.py"), &args);
    let snap = db.snapshot().unwrap();
    for (fen, san) in targets {
        let pos: Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let got = serde_json::to_value(
            snap.chess_explore(&[pos], CastlingMode::Standard, 8)
                .unwrap(),
        )
        .unwrap();
        let row = got["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["san"] == san)
            .unwrap_or_else(|| panic!("{got}"));
        assert!(row["unknown"].as_u64().unwrap() >= 1, "{row}");
        let want = &want[fen];
        for m in got["moves"].as_array().unwrap() {
            let w = &want["moves"][m["uci"].as_str().unwrap()];
            for f in ["white", "draws", "black", "averageRating", "performance"] {
                assert_eq!(m[f], w[f], "{fen} {}: {f}", m["san"]);
            }
        }
    }
}
