//! End-to-end tests of Othello in the positional database: `tabiya import` of the shared WTHOR
//! files, `explore --moves`, `games` with its filters, `wthor export`, and the refusals of
//! mixed kinds.
//!
//! Expected values come from `oracle/othello_positions.py`, an independent Python
//! reader and referee that finds the games reaching a position by comparing boards with the 8
//! images of the asked board (no canonical keys), from the WTHOR files' own bytes, and from
//! `shared/docs/format-notes.md` (127,475 games, 413 unfinished). Tests that need python3 skip
//! with a message when it is absent.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

mod common;
use common::{json, run_ok as ok, run_raw as run, shared};

fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/othello_positions.py")
}

fn old_files() -> Vec<PathBuf> {
    (1977..=2021)
        .map(|y| shared(&format!("wthor/WTH_{y}.wtb")))
        .collect()
}

fn new_files() -> Vec<PathBuf> {
    (2022..=2023)
        .map(|y| shared(&format!("wthor-2022-2023/WTH_{y}.wtb")))
        .collect()
}

fn failure(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        !out.status.success(),
        "tabiya {args:?} should fail: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn import(db: &Path, files: &[PathBuf]) -> Value {
    let mut args: Vec<String> = vec![
        "import".into(),
        "--json".into(),
        "--db".into(),
        db.display().to_string(),
    ];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&refs)
}

fn explore(db: &Path, moves: &str) -> Value {
    json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--moves",
        moves,
    ])
}

fn python3() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: python3 is not installed; the oracle comparisons need it");
    }
    found
}

fn oracle(args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg(oracle_script())
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "oracle {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle JSON")
}

fn oracle_explore(moves: &str, files: &[PathBuf], list: bool) -> Value {
    let mut args = vec![
        "explore".to_string(),
        "--moves".to_string(),
        moves.to_string(),
    ];
    if list {
        args.push("--list".into());
    }
    args.extend(files.iter().map(|f| f.display().to_string()));
    oracle(&args)
}

/// The database of all 1977–2021 games, imported once for the whole test binary.
struct Full {
    _dir: tempfile::TempDir,
    db: PathBuf,
    summary: Value,
}

fn full() -> &'static Full {
    static FULL: OnceLock<Full> = OnceLock::new();
    FULL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let summary = import(&db, &old_files());
        Full {
            _dir: dir,
            db,
            summary,
        }
    })
}

/// A private copy of the full database, for tests that change it.
fn copy_of_full() -> (tempfile::TempDir, PathBuf) {
    let src = &full().db;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    std::fs::create_dir(&db).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), db.join(entry.file_name())).unwrap();
    }
    (dir, db)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The squares of an explore move entry: the move shown and its equivalents, sorted.
fn squares_of(m: &Value) -> Vec<String> {
    let mut s = vec![m["move"].as_str().unwrap().to_string()];
    if let Some(eq) = m["equivalent"].as_array() {
        s.extend(eq.iter().map(|e| e.as_str().unwrap().to_string()));
    }
    s.sort();
    s
}

/// Compares tabiya's explore answer with the oracle's, count for count.
fn assert_same_as_oracle(t: &Value, o: &Value, what: &str) {
    for k in ["games", "black", "draws", "white", "ended"] {
        assert_eq!(t[k], o[k], "{what}: {k}");
    }
    assert_eq!(t["sideToMove"], o["sideToMove"], "{what}");
    let games = u(&o["games"]) as f64;
    let avg = |k: &str| u(&o[k]) as f64 / games;
    assert!(
        (t["averageBlackDiscs"].as_f64().unwrap() - avg("sumBlackScore")).abs() < 1e-9,
        "{what}"
    );
    assert!(
        (t["averageTheoreticalScore"].as_f64().unwrap() - avg("sumTheoreticalScore")).abs() < 1e-9,
        "{what}"
    );
    // Both sorted by games, most first, then by squares (tabiya breaks ties by move code).
    let mut tm = t["moves"].as_array().unwrap().clone();
    tm.sort_by(|a, b| {
        u(&b["games"])
            .cmp(&u(&a["games"]))
            .then(squares_of(a).cmp(&squares_of(b)))
    });
    let om = o["moves"].as_array().unwrap();
    assert_eq!(tm.len(), om.len(), "{what}: moves {tm:?} vs {om:?}");
    let black_to_move = o["sideToMove"] == "black";
    for (a, b) in tm.iter().zip(om) {
        let want: Vec<String> = b["squares"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        assert_eq!(squares_of(a), want, "{what}");
        for k in ["games", "black", "draws", "white"] {
            assert_eq!(a[k], b[k], "{what}: {want:?} {k}");
        }
        let wins = if black_to_move {
            u(&b["black"])
        } else {
            u(&b["white"])
        };
        let rate = (wins as f64 + u(&b["draws"]) as f64 / 2.0) / u(&b["games"]) as f64;
        assert!(
            (a["winRate"].as_f64().unwrap() - rate).abs() < 1e-12,
            "{what}: {want:?} win rate"
        );
    }
}

#[test]
fn full_import_and_the_start_position() {
    let s = &full().summary;
    let (_dir, db) = copy_of_full();
    // Figures of shared/docs/format-notes.md and shared/README.md.
    assert_eq!(u(&s["games"]), 127_475);
    assert_eq!(u(&s["imported"]), 127_475);
    assert_eq!(u(&s["skipped"]), 0);
    assert_eq!(u(&s["duplicates"]), 0);
    assert_eq!(u(&s["unfinished"]), 413);
    assert_eq!(u(&s["databaseGames"]), 127_475);
    assert_eq!(s["years"].as_array().unwrap().len(), 45);
    // Names: (77696 − 16) / 20 players, (11430 − 16) / 26 tournaments.
    assert_eq!(u(&s["names"]["players"]), 3884);
    assert_eq!(u(&s["names"]["tournaments"]), 439);
    let start = explore(&db, "");
    let no_moves = json(&["explore", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(start, no_moves, "no --moves is the start position");
    assert_eq!(
        start["moves"][0]["move"], "f5",
        "representative of f5/d3/c4/e6"
    );
    assert!(start["opening"].is_null());
    if !python3() {
        return;
    }
    let o = oracle_explore("", &old_files(), false);
    assert_eq!(u(&o["games"]), 127_475);
    assert_same_as_oracle(&start, &o, "start");
}

/// The 8 images of a line: (column, row) maps built here by hand. Only 0, 3, 4 and 7 (identity,
/// half turn, the two diagonals) keep the start position, so only their images are games.
type SquareMap = fn(u8, u8) -> (u8, u8);

fn images(line: &str) -> Vec<String> {
    let maps: [SquareMap; 8] = [
        |c, r| (c, r),
        |c, r| (c, 7 - r),
        |c, r| (7 - c, r),
        |c, r| (7 - c, 7 - r),
        |c, r| (r, c),
        |c, r| (7 - r, c),
        |c, r| (r, 7 - c),
        |c, r| (7 - r, 7 - c),
    ];
    maps.iter()
        .map(|m| {
            line.as_bytes()
                .chunks(2)
                .map(|p| {
                    let (c, r) = m(p[0] - b'a', p[1] - b'1');
                    format!("{}{}", (b'a' + c) as char, r + 1)
                })
                .collect()
        })
        .collect()
}

#[test]
fn transpositions_and_orientations_give_the_same_statistics() {
    let (_dir, db) = copy_of_full();
    // The Tiger, its 4 orientations, and a transposition (f5 d6 c4 d3 c3 reaches the same
    // board: checked by the oracle's board comparison below).
    let tiger = images("f5d6c3d3c4");
    let mut lines: Vec<String> = [0, 3, 4, 7].iter().map(|&i| tiger[i].clone()).collect();
    lines.push("f5d6c4d3c3".to_string());
    lines.push(images("f5d6c4d3c3")[3].clone());
    let base = explore(&db, "f5d6c3d3c4");
    assert_eq!(
        u(&base["games"]),
        46_844,
        "the Tiger count of docs/formats/wthor.md"
    );
    assert_eq!(base["opening"]["name"], "Tiger");
    let have_python = python3();
    for line in &lines {
        let e = explore(&db, line);
        for k in [
            "games",
            "black",
            "draws",
            "white",
            "averageBlackDiscs",
            "averageTheoreticalScore",
            "key",
        ] {
            assert_eq!(e[k], base[k], "{line}: {k}");
        }
        assert_eq!(
            e["opening"]["name"], "Tiger",
            "{line}: opening by canonical position"
        );
        assert_eq!(
            e["moves"].as_array().unwrap().len(),
            base["moves"].as_array().unwrap().len()
        );
        if have_python {
            assert_same_as_oracle(&e, &oracle_explore(line, &old_files(), false), line);
        }
    }
    // In the half-turned orientation (c4 e3 f6 e6 f5) the main reply f4 is c5.
    let turned = explore(&db, &images("f5d6c3d3c4")[3]);
    assert_eq!(base["moves"][0]["move"], "f4");
    assert_eq!(turned["moves"][0]["move"], "c5");
}

/// The first `n` moves of game `index` of a .wtb file, from its bytes.
fn line_of(file: &Path, index: usize, n: usize) -> String {
    let bytes = std::fs::read(file).unwrap();
    let rec = &bytes[16 + 68 * index + 8..16 + 68 * index + 68];
    rec.iter()
        .take(n)
        .take_while(|&&b| b != 0)
        .map(|&b| format!("{}{}", (b'a' + b % 10 - 1) as char, b / 10))
        .collect()
}

#[test]
fn deep_positions_through_the_rare_index() {
    if !python3() {
        return;
    }
    let (_dir, db) = copy_of_full();
    // Deep positions of real games, in a turned orientation: reached by few games, answered
    // by replaying them. The last one is a whole game's final position.
    let whole = line_of(&shared("wthor/WTH_2005.wtb"), 100, 60);
    let cases = [
        images(&line_of(&shared("wthor/WTH_2010.wtb"), 0, 20))[4].clone(),
        images(&line_of(&shared("wthor/WTH_1995.wtb"), 7, 30))[7].clone(),
        line_of(&shared("wthor/WTH_1988.wtb"), 3, 12),
        whole.clone(),
    ];
    for line in &cases {
        let e = explore(&db, line);
        let o = oracle_explore(line, &old_files(), true);
        assert!(u(&o["games"]) >= 1, "{line}");
        assert_same_as_oracle(&e, &o, line);
        // `games --moves` lists exactly the oracle's games: ids are 1 + the index of the
        // game over the files in order (everything was imported).
        let starts = game_id_starts();
        let want: Vec<u64> = o["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| starts[m[0].as_str().unwrap()] + u(&m[1]) + 1)
            .collect();
        let g = json(&[
            "games",
            "--json",
            "--db",
            db.to_str().unwrap(),
            "--moves",
            line,
            "--sort",
            "id",
            "--limit",
            "1000",
        ]);
        let got: Vec<u64> = g["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| u(&r["id"]))
            .collect();
        assert_eq!(got, want, "{line}");
    }
    let e = explore(&db, &whole);
    assert!(u(&e["ended"]) >= 1 && e["moves"].as_array().unwrap().is_empty());
}

/// For each 1977–2021 file (as the oracle names it), how many games come before it.
fn game_id_starts() -> std::collections::HashMap<String, u64> {
    let mut out = std::collections::HashMap::new();
    let mut n = 0u64;
    for f in old_files() {
        out.insert(f.display().to_string(), n);
        let bytes = std::fs::read(&f).unwrap();
        n += u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as u64;
    }
    out
}

/// Names of a WTHOR names file, straight from its bytes.
fn names_in(path: &Path, size: usize) -> Vec<String> {
    let b = std::fs::read(path).unwrap();
    let n = u16::from_le_bytes([b[8], b[9]]) as usize;
    (0..n)
        .map(|i| {
            let raw = &b[16 + size * i..16 + size * (i + 1)];
            let end = raw.iter().position(|&x| x == 0).unwrap_or(size);
            raw[..end].iter().map(|&x| x as char).collect()
        })
        .collect()
}

#[test]
fn newer_files_add_their_games_and_names_without_moving_ids() {
    let (_dir, db) = copy_of_full();
    let before = json(&[
        "games",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--sort",
        "id",
        "--limit",
        "50",
        "--offset",
        "60000",
    ]);
    let s = import(&db, &new_files());
    assert_eq!(u(&s["imported"]), 1142 + 1086);
    assert_eq!(u(&s["databaseGames"]), 127_475 + 2228);
    // Names appended and corrected, from the two names files' bytes.
    let old_players = names_in(&shared("wthor/WTHOR.JOU"), 20);
    let new_players = names_in(&shared("wthor-2022-2023/WTHOR.JOU"), 20);
    let old_trn = names_in(&shared("wthor/WTHOR.TRN"), 26);
    let new_trn = names_in(&shared("wthor-2022-2023/WTHOR.TRN"), 26);
    assert_eq!(
        u(&s["names"]["playersAdded"]),
        (new_players.len() - old_players.len()) as u64
    );
    assert_eq!(
        u(&s["names"]["tournamentsAdded"]),
        (new_trn.len() - old_trn.len()) as u64
    );
    let mut want: Vec<(u64, String, String)> = Vec::new();
    for (i, (a, b)) in old_players.iter().zip(&new_players).enumerate() {
        if a != b {
            want.push((i as u64, a.clone(), b.clone()));
        }
    }
    assert!(old_trn.iter().zip(&new_trn).all(|(a, b)| a == b));
    assert_eq!(want.len(), 4, "the README's 4 corrected names");
    let got: Vec<(u64, String, String)> = s["names"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["kind"], "player");
            (
                u(&c["id"]),
                c["old"].as_str().unwrap().to_string(),
                c["new"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
    // Old games keep their ids and now show the corrected names.
    let after = json(&[
        "games",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--sort",
        "id",
        "--limit",
        "50",
        "--offset",
        "60000",
    ]);
    for (a, b) in before["games"]
        .as_array()
        .unwrap()
        .iter()
        .zip(after["games"].as_array().unwrap())
    {
        assert_eq!(a["id"], b["id"]);
        assert_eq!(a["moves"], b["moves"]);
        assert_eq!(
            b["black"]["name"].as_str().unwrap(),
            new_players[u(&b["black"]["id"]) as usize]
        );
    }
    // The new years are there, with ids after the old ones.
    let y2023 = json(&[
        "games",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--from",
        "2023",
        "--sort",
        "id",
        "--limit",
        "1",
    ]);
    assert_eq!(u(&y2023["total"]), 1086);
    assert_eq!(u(&y2023["games"][0]["id"]), 127_475 + 1142 + 1);
    // Importing them again changes nothing; the export writes the newer files back.
    let again = import(&db, &new_files());
    assert_eq!((u(&again["imported"]), u(&again["duplicates"])), (0, 2228));
    let out = tempfile::tempdir().unwrap();
    ok(&[
        "wthor",
        "export",
        "--db",
        db.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
    ]);
    for f in new_files().iter().chain([
        &shared("wthor-2022-2023/WTHOR.JOU"),
        &shared("wthor-2022-2023/WTHOR.TRN"),
    ]) {
        let name = f.file_name().unwrap();
        assert!(
            std::fs::read(out.path().join(name)).unwrap() == std::fs::read(f).unwrap(),
            "{name:?} differs"
        );
    }
    assert!(
        std::fs::read(out.path().join("WTH_1999.wtb")).unwrap()
            == std::fs::read(shared("wthor/WTH_1999.wtb")).unwrap()
    );
}

#[test]
fn reimport_changes_nothing() {
    let (_dir, db) = copy_of_full();
    let before = explore(&db, "f5d6c3");
    let s = import(&db, &old_files());
    assert_eq!(u(&s["imported"]), 0);
    assert_eq!(u(&s["duplicates"]), 127_475);
    assert_eq!(u(&s["databaseGames"]), 127_475);
    let n = &s["names"];
    assert_eq!((u(&n["playersAdded"]), u(&n["tournamentsAdded"])), (0, 0));
    assert!(n["changed"].as_array().unwrap().is_empty());
    assert_eq!(explore(&db, "f5d6c3"), before);
}

#[test]
fn export_writes_the_shared_files_back_byte_for_byte() {
    let (_dir, db) = copy_of_full();
    let out = tempfile::tempdir().unwrap();
    let e = json(&[
        "wthor",
        "export",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(u(&e["games"]), 127_475);
    assert_eq!(e["files"].as_array().unwrap().len(), 45 + 2);
    for src in old_files()
        .iter()
        .chain([&shared("wthor/WTHOR.JOU"), &shared("wthor/WTHOR.TRN")])
    {
        let name = src.file_name().unwrap();
        let written = std::fs::read(out.path().join(name)).unwrap();
        assert!(
            written == std::fs::read(src).unwrap(),
            "{name:?} differs from the shared file"
        );
    }
}

#[test]
fn games_filters_match_the_files() {
    if !python3() {
        return;
    }
    let (_dir, db) = copy_of_full();
    let db = db.to_str().unwrap();
    let mut args = vec!["rows".to_string()];
    args.extend(old_files().iter().map(|p| p.display().to_string()));
    let rows = oracle(&args);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 127_475);
    let id_of = |i: usize| i as u64 + 1;
    let name = |r: &Value, k: &str| r[k].as_str().unwrap().to_lowercase();
    let program = |r: &Value| name(r, "black").contains('(') || name(r, "white").contains('(');
    let check = |flags: &[&str], keep: &dyn Fn(&Value) -> bool| {
        let mut want: Vec<(u64, u64)> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| keep(r))
            .map(|(i, r)| (u(&r["year"]), id_of(i)))
            .collect();
        // --sort date: newest year first, then id.
        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut a = vec![
            "games", "--json", "--db", db, "--sort", "date", "--limit", "30",
        ];
        a.extend_from_slice(flags);
        let g = json(&a);
        assert_eq!(u(&g["total"]), want.len() as u64, "{flags:?}");
        let got: Vec<u64> = g["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| u(&r["id"]))
            .collect();
        let want: Vec<u64> = want.iter().take(30).map(|w| w.1).collect();
        assert_eq!(got, want, "{flags:?}");
        assert!(!want.is_empty(), "{flags:?} selects nothing");
    };
    check(&["--player", "tamenori"], &|r| {
        name(r, "black").contains("tamenori") || name(r, "white").contains("tamenori")
    });
    check(&["--tournament", "championnat de france"], &|r| {
        name(r, "tournament").contains("championnat de france")
    });
    check(&["--from", "1990", "--to", "1992"], &|r| {
        (1990..=1992).contains(&u(&r["year"]))
    });
    check(&["--programs", "--to", "1985"], &|r| {
        program(r) && u(&r["year"]) <= 1985
    });
    check(&["--humans", "--from", "2020"], &|r| {
        !program(r) && u(&r["year"]) >= 2020
    });
    // Combined with a position: the oracle's Tiger games of one player.
    let tiger = oracle_explore("f5d6c3d3c4", &old_files(), true);
    let starts = game_id_starts();
    let tiger_ids: std::collections::HashSet<u64> = tiger["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| starts[m[0].as_str().unwrap()] + u(&m[1]) + 1)
        .collect();
    check(&["--moves", "f5d6c3d3c4", "--player", "shaman"], &|r| {
        let i = rows.iter().position(|x| std::ptr::eq(x, r)).unwrap();
        tiger_ids.contains(&id_of(i))
            && (name(r, "black").contains("shaman") || name(r, "white").contains("shaman"))
    });
    // The move shown is the one played in the asked orientation.
    let g = json(&[
        "games",
        "--json",
        "--db",
        db,
        "--moves",
        &images("f5d6c3d3c4")[3],
        "--limit",
        "400",
        "--sort",
        "id",
    ]);
    for r in g["games"].as_array().unwrap() {
        let played: String = r["moves"].as_str().unwrap()[10..12].to_string();
        let turned = &images(&played)[3];
        assert_eq!(r["move"].as_str().unwrap(), turned, "game {}", r["id"]);
    }
}

#[test]
fn kinds_are_not_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let othello = dir.path().join("othello");
    let chess = dir.path().join("chess");
    import(&othello, &[shared("wthor/WTH_1977.wtb")]);
    let pgn = shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn");
    json(&[
        "import",
        "--json",
        "--db",
        chess.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    let wtb = shared("wthor/WTH_1978.wtb");
    let e = failure(&[
        "import",
        "--db",
        othello.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    assert!(
        e.contains("is an Othello database") && e.contains("not"),
        "{e}"
    );
    let e = failure(&[
        "import",
        "--db",
        chess.to_str().unwrap(),
        wtb.to_str().unwrap(),
    ]);
    assert!(
        e.contains("is a chess database") && e.contains("Othello database"),
        "{e}"
    );
    let e = failure(&[
        "import",
        "--db",
        dir.path().join("new").to_str().unwrap(),
        wtb.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    assert!(e.contains("cannot import WTHOR files"), "{e}");
    assert!(!dir.path().join("new").exists(), "nothing created");
    let e = failure(&[
        "explore",
        "--db",
        othello.to_str().unwrap(),
        "--play",
        "e2e4",
    ]);
    assert!(e.contains("--moves"), "{e}");
    let e = failure(&["explore", "--db", chess.to_str().unwrap(), "--moves", "f5"]);
    assert!(e.contains("chess database"), "{e}");
    let e = failure(&[
        "games",
        "--db",
        chess.to_str().unwrap(),
        "--tournament",
        "x",
    ]);
    assert!(e.contains("Othello"), "{e}");
    // (A player is a filter of both kinds; the chess filters are chess's.)
    let e = failure(&[
        "games",
        "--db",
        othello.to_str().unwrap(),
        "--since",
        "2001",
    ]);
    assert!(e.contains("chess"), "{e}");
    let e = failure(&[
        "explore",
        "--db",
        othello.to_str().unwrap(),
        "--player",
        "x",
    ]);
    assert!(e.contains("chess"), "{e}");
    let e = failure(&[
        "wthor",
        "export",
        "--db",
        chess.to_str().unwrap(),
        "-o",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert!(e.contains("chess database"), "{e}");
    let e = failure(&[
        "explore",
        "--db",
        othello.to_str().unwrap(),
        "--moves",
        "f5f5",
    ]);
    assert!(e.contains("move 2"), "{e}");
    // The terminal table.
    let t = String::from_utf8(
        ok(&[
            "explore",
            "--db",
            othello.to_str().unwrap(),
            "--moves",
            "f5",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        t.starts_with("f5\n") && t.contains("12 games") && t.contains("white to move"),
        "{t}"
    );
}
