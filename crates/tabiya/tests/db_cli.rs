//! End-to-end tests of `tabiya import | explore | games | export | stats` on the real data in
//! `../shared/data`, with expected values from the issue, from python-chess (an independent
//! oracle in the workspace's `oracle/`), from pgn-extract, or counted by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;
use common::{BIN, json, run_ok as run, shared};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(name)
}

fn import(db: &Path, files: &[PathBuf], extra: &[&str]) -> Value {
    let mut args: Vec<String> = vec![
        "import".into(),
        "--json".into(),
        "--db".into(),
        db.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(files.iter().map(|f| f.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&refs)
}

fn explore(db: &Path, play: &str) -> Value {
    json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--play",
        play,
    ])
}

/// Runs a python-chess oracle script; python3 with python-chess is a test dependency that
/// the project's test command installs.
fn python(script: &Path, args: &[String]) -> Value {
    let out = Command::new("python3").arg(script).args(args).output().expect(
        "python3 is required for the oracle tests (run the project's test command, which installs python3-chess)",
    );
    assert!(
        out.status.success(),
        "{} failed (is python-chess installed? `pip install chess`): {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle JSON")
}

/// A Debian tool: on PATH, or in /usr/games where Debian puts game tools.
fn tool(name: &str) -> PathBuf {
    let games = Path::new("/usr/games").join(name);
    if games.exists() {
        games
    } else {
        PathBuf::from(name)
    }
}

fn twic() -> PathBuf {
    shared("pgn/twic/twic0920.pgn")
}

fn db_with_twic() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let s = import(&db, &[twic()], &[]);
    assert_eq!(s["imported"], 2245);
    (dir, db)
}

#[test]
fn twic_start_position_has_the_issue_counts() {
    let (_d, db) = db_with_twic();
    let e = json(&["explore", "--json", "--db", db.to_str().unwrap()]);
    // From the issue: twic0920's start position is 895 white wins, 695 draws, 655 black wins.
    assert_eq!(
        (
            e["white"].as_u64(),
            e["draws"].as_u64(),
            e["black"].as_u64()
        ),
        (Some(895), Some(695), Some(655))
    );
    // Moves are sorted by number of games.
    let moves = e["moves"].as_array().unwrap();
    let games: Vec<u64> = moves
        .iter()
        .map(|m| {
            m["white"].as_u64().unwrap()
                + m["draws"].as_u64().unwrap()
                + m["black"].as_u64().unwrap()
        })
        .collect();
    assert!(games.windows(2).all(|w| w[0] >= w[1]), "{games:?}");
    // Every game either moved from the start or ended there (games without moves).
    assert_eq!(
        games.iter().sum::<u64>() + e["ended"].as_u64().unwrap(),
        2245
    );
}

/// The position after `plies` half-moves of the first game of twic0920, as UCI moves.
fn first_game_line(plies: usize) -> String {
    let text = std::fs::read(twic()).unwrap();
    let (_, game) = tabiya_pgn::read_all(text.as_slice())
        .next()
        .unwrap()
        .unwrap();
    let game = game.unwrap();
    game.moves
        .iter()
        .take(plies)
        .map(|n| n.mv.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn explore_agrees_with_python_chess_on_twic() {
    let (_d, db) = db_with_twic();
    let mut lines: Vec<String> = vec![
        String::new(),
        "e2e4".into(),
        "e2e4,c7c5".into(),
        "d2d4,g8f6,c2c4,e7e6".into(),
        "g1f3,g8f6,c2c4,e7e6,d2d4".into(),
        "d2d4,g8f6,c2c4,e7e6,g1f3".into(),
        "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6".into(),
    ];
    lines.push(first_game_line(14));
    lines.push(first_game_line(40));
    let mut args = vec![twic().display().to_string(), "--".into()];
    args.extend(lines.iter().cloned());
    let expected = python(&oracle("explore_oracle.py"), &args);
    for line in &lines {
        let want = &expected[line.as_str()];
        let got = if line.is_empty() {
            json(&["explore", "--json", "--db", db.to_str().unwrap()])
        } else {
            explore(&db, line)
        };
        let t = &want["total"];
        for f in ["white", "draws", "black", "unknown"] {
            assert_eq!(got[f], t[f], "position {line:?}: total {f}");
        }
        let want_moves = want["moves"].as_object().unwrap();
        let got_moves = got["moves"].as_array().unwrap();
        assert_eq!(
            got_moves.len(),
            want_moves.len(),
            "position {line:?}: number of moves"
        );
        for m in got_moves {
            let uci = m["uci"].as_str().unwrap();
            let w = &want_moves[uci];
            for f in [
                "white",
                "draws",
                "black",
                "unknown",
                "averageRating",
                "performance",
                "firstYear",
                "lastYear",
            ] {
                assert_eq!(m[f], w[f], "position {line:?} move {uci}: {f}");
            }
        }
        assert!(
            want["games"].as_u64().unwrap() > 0,
            "position {line:?} should be in twic"
        );
    }
}

#[test]
fn transpositions_reach_the_same_statistics() {
    let (_d, db) = db_with_twic();
    let a = explore(&db, "d2d4,g8f6,c2c4,e7e6,g1f3");
    let b = explore(&db, "g1f3,g8f6,c2c4,e7e6,d2d4");
    let c = explore(&db, "c2c4,e7e6,g1f3,g8f6,d2d4");
    assert!(a["moves"].as_array().unwrap().len() > 3);
    for other in [&b, &c] {
        for f in ["white", "draws", "black", "moves", "topGames", "opening"] {
            assert_eq!(a[f], other[f], "{f}");
        }
        // Same position; only the move counters of the FEN differ.
        let board = |v: &Value| {
            v["fen"]
                .as_str()
                .unwrap()
                .split(' ')
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(board(&a), board(other));
    }
    // The opening is named after the position, whatever the move order: e.tsv has
    // "E10 Indian Defense: Anti-Nimzo-Indian 1. d4 Nf6 2. c4 e6 3. Nf3".
    assert_eq!(a["opening"]["eco"], "E10");
    assert_eq!(a["opening"]["name"], "Indian Defense: Anti-Nimzo-Indian");
}

#[test]
fn importing_twice_changes_nothing() {
    let (_d, db) = db_with_twic();
    let stats1 = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
    let e1 = explore(&db, "e2e4,c7c5");
    let again = import(&db, &[twic()], &[]);
    assert_eq!(again["imported"], 0);
    assert_eq!(again["duplicates"], 2245);
    let stats2 = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
    for f in ["games", "positions", "distinctPositions"] {
        assert_eq!(stats1[f], stats2[f], "{f}");
    }
    assert_eq!(e1, explore(&db, "e2e4,c7c5"));
    // --keep-duplicates keeps them.
    let kept = import(&db, &[twic()], &["--keep-duplicates"]);
    assert_eq!(kept["imported"], 2245);
    let e = json(&["explore", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(e["white"], 2 * 895);
}

#[test]
fn edge_cases_import_or_fail_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared("pgn/edge-cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let s = import(&db, &files, &[]);
    // Counted by hand from the files: 22 games; 4 of variants Tabiya does not index
    // (2 antichess, 2 crazyhouse). The one with a null move (Z0) in its main line is kept.
    assert_eq!(s["games"], 22, "{s}");
    assert_eq!(s["skipped"], 4, "{s}");
    assert_eq!(s["imported"], 18, "{s}");
    let problems = s["problems"].as_array().unwrap();
    let by_file = |name: &str| {
        problems
            .iter()
            .filter(|p| p["file"].as_str().unwrap().ends_with(name))
            .collect::<Vec<_>>()
    };
    for p in by_file("antichess-programfox.pgn")
        .iter()
        .chain(by_file("zh-lichess.pgn").iter())
    {
        assert!(
            p["reason"]
                .as_str()
                .unwrap()
                .contains("unsupported variant"),
            "{p}"
        );
        assert!(p["line"].as_u64().unwrap() >= 1);
    }
    assert!(by_file("anastasian-lewis.pgn").is_empty());
    // The UCI-move game and the Chess960 games are in.
    let cute = &s["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["file"]
                .as_str()
                .unwrap()
                .ends_with("cutechess-fischerrandom.pgn")
        })
        .unwrap()
        .clone();
    assert_eq!(cute["imported"], 4);
}

#[test]
fn malformed_game_is_reported_and_the_rest_goes_in() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let s = import(&db, &[fixture("malformed.pgn")], &[]);
    assert_eq!(s["imported"], 2);
    assert_eq!(s["skipped"], 1);
    let p = &s["problems"][0];
    assert!(p["file"].as_str().unwrap().ends_with("malformed.pgn"));
    assert_eq!(p["game"], 2);
    // "5. Nf3 Ke5" is on line 15 of the fixture.
    assert_eq!(p["line"], 15);
    let reason = p["reason"].as_str().unwrap();
    assert!(
        reason.contains("Ke5") && reason.contains("illegal"),
        "{reason}"
    );
    // The terminal report names file, line and game too.
    let out = Command::new(BIN)
        .args([
            "import",
            "--db",
            db.to_str().unwrap(),
            fixture("malformed.pgn").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("malformed.pgn:15: game 2:"), "{err}");
}

/// A file that cannot be read is named and fails the command; the other files still go in.
#[test]
fn an_unreadable_file_fails_the_import_after_the_rest_goes_in() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let missing = dir.path().join("not-there.pgn");
    let out = Command::new(BIN)
        .args(["import", "--json", "--db"])
        .arg(&db)
        .arg(&missing)
        .arg(twic())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not-there.pgn") && err.contains("could not be read"),
        "{err}"
    );
    // The JSON summary is still printed, and says which file and why.
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["imported"], 2245, "every game of the readable file");
    let p = &s["problems"][0];
    assert_eq!(p["game"], 0);
    assert!(
        p["reason"].as_str().unwrap().contains("No such file"),
        "{p}"
    );
    let stats = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(stats["games"], 2245);
}

#[test]
fn export_round_trips_through_python_chess_and_pgn_extract() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let annotated = fixture("annotated.pgn");
    import(&db, &[annotated.clone(), twic()], &[]);
    let out = dir.path().join("out.pgn");
    run(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // Originals in import order: the fixture, then twic.
    let both = dir.path().join("both.pgn");
    let mut text = std::fs::read(&annotated).unwrap();
    text.extend_from_slice(b"\n\n");
    text.extend(std::fs::read(twic()).unwrap());
    std::fs::write(&both, text).unwrap();
    let cmp = python(
        &oracle("compare_pgn.py"),
        &[both.display().to_string(), out.display().to_string()],
    );
    assert_eq!(cmp["games_a"], 2248);
    assert_eq!(cmp["games_b"], 2248);
    assert_eq!(
        cmp["mismatches"].as_array().unwrap().len(),
        0,
        "{}",
        cmp["mismatches"]
    );
    // pgn-extract reads every exported game without complaint and finds the same moves.
    let pe = |path: &Path| {
        let o = Command::new(tool("pgn-extract"))
            .args([
                "-s",
                "-Wuci",
                "--notags",
                "--nocomments",
                "--novars",
                "--nonags",
            ])
            .arg(path)
            .output()
            .expect("pgn-extract is required (the project's test command installs it)");
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (moves_out, err_out) = pe(&out);
    let (moves_in, _) = pe(&both);
    assert!(
        !err_out.to_lowercase().contains("error"),
        "pgn-extract: {err_out}"
    );
    assert_eq!(moves_out, moves_in);
    // One game, and the games of a position.
    let one = run(&["export", "--db", db.to_str().unwrap(), "--game", "3"]);
    assert!(String::from_utf8_lossy(&one.stdout).contains("[Variant \"Chess960\"]"));
    let pos = run(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--fen",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 40",
    ]);
    assert!(String::from_utf8_lossy(&pos.stdout).contains("exd6"));
}

#[test]
fn fen_and_chess960_games_are_indexed_from_their_own_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    import(
        &db,
        &[
            shared("pgn/edge-cases/data_pgn_cutechess-fischerrandom.pgn"),
            fixture("annotated.pgn"),
        ],
        &[],
    );
    let e = json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--fen",
        "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
    ]);
    assert_eq!(e["moves"][0]["uci"], "d2d4");
    assert_eq!(
        e["white"].as_u64().unwrap() + e["draws"].as_u64().unwrap() + e["black"].as_u64().unwrap(),
        1
    );
    // En passant is part of the position only when the capture is legal: the fixture's
    // start has it, and the game counts there.
    let e = json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--fen",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 40",
    ]);
    assert_eq!(e["unknown"], 1);
    assert_eq!(e["moves"][0]["san"], "exd6");
    // Castling in Chess960 is king-takes-rook in UCI.
    let e = json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--fen",
        "bq1brkrn/pppppp1p/3n2p1/8/8/3N2P1/PPPPPP1P/BQ1BRKRN w KQkq - 2 3",
    ]);
    assert_eq!(e["moves"][0]["uci"], "f1g1");
    assert_eq!(e["moves"][0]["san"], "O-O");
}

#[test]
fn max_ply_caps_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    import(&db, &[twic()], &["--max-ply", "4"]);
    let line4 = first_game_line(4);
    let line5 = first_game_line(5);
    let e4 = explore(&db, &line4);
    assert!(
        !e4["moves"].as_array().unwrap().is_empty(),
        "ply 4 is indexed with the move played there"
    );
    let e5 = explore(&db, &line5);
    assert_eq!(
        e5["white"].as_u64().unwrap()
            + e5["draws"].as_u64().unwrap()
            + e5["black"].as_u64().unwrap(),
        0
    );
    // The cap is fixed when the database is created.
    let out = Command::new(BIN)
        .args(["import", "--db", db.to_str().unwrap(), "--max-ply", "6"])
        .arg(twic())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("max-ply"));
}

#[test]
fn compressed_inputs_and_stdin_give_the_same_database() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(shared("pgn/pgnmentor/Fischer.pgn")).unwrap();
    let gz = dir.path().join("f.pgn.gz");
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    e.write_all(&text).unwrap();
    e.finish().unwrap();
    let bz = dir.path().join("f.pgn.bz2");
    let mut e = bzip2::write::BzEncoder::new(
        std::fs::File::create(&bz).unwrap(),
        bzip2::Compression::default(),
    );
    e.write_all(&text).unwrap();
    e.finish().unwrap();
    let zs = dir.path().join("f.pgn.zst");
    std::fs::write(&zs, zstd::encode_all(text.as_slice(), 3).unwrap()).unwrap();
    let reference = {
        let db = dir.path().join("plain");
        import(&db, &[shared("pgn/pgnmentor/Fischer.pgn")], &[]);
        explore(&db, "e2e4,e7e5")
    };
    for (name, f) in [("gz", &gz), ("bz2", &bz), ("zst", &zs)] {
        let db = dir.path().join(name);
        let s = import(&db, &[f.to_path_buf()], &[]);
        assert_eq!(s["imported"], 827, "{name}");
        assert_eq!(explore(&db, "e2e4,e7e5"), reference, "{name}");
    }
    let db = dir.path().join("stdin");
    let mut child = Command::new(BIN)
        .args(["import", "--json", "--db", db.to_str().unwrap(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["imported"], 827);
    assert_eq!(explore(&db, "e2e4,e7e5"), reference);
}

#[test]
fn games_lists_every_game_of_a_position_sorted_and_paged() {
    let (_d, db) = db_with_twic();
    let d = db.to_str().unwrap();
    let e = explore(&db, "e2e4,c7c5,g1f3");
    let total = e["white"].as_u64().unwrap()
        + e["draws"].as_u64().unwrap()
        + e["black"].as_u64().unwrap()
        + e["unknown"].as_u64().unwrap();
    let g = json(&[
        "games",
        "--json",
        "--db",
        d,
        "--play",
        "e2e4,c7c5,g1f3",
        "--limit",
        "1000",
    ]);
    assert_eq!(g["total"].as_u64().unwrap(), total);
    let games = g["games"].as_array().unwrap();
    assert_eq!(games.len() as u64, total);
    let mean = |x: &Value| match (x["white"]["rating"].as_u64(), x["black"]["rating"].as_u64()) {
        (Some(a), Some(b)) => (a + b) / 2,
        _ => 0,
    };
    let ratings: Vec<u64> = games.iter().map(mean).collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "sorted by rating");
    // The transposed move order finds the same games.
    let t = json(&[
        "games",
        "--json",
        "--db",
        d,
        "--fen",
        e["fen"].as_str().unwrap(),
        "--limit",
        "1000",
    ]);
    assert_eq!(t["games"], g["games"]);
    // Paging.
    let p2 = json(&[
        "games",
        "--json",
        "--db",
        d,
        "--play",
        "e2e4,c7c5,g1f3",
        "--limit",
        "10",
        "--offset",
        "10",
    ]);
    assert_eq!(p2["games"].as_array().unwrap()[..], games[10..20]);
    // By date, newest first.
    let by_date = json(&[
        "games",
        "--json",
        "--db",
        d,
        "--play",
        "e2e4,c7c5,g1f3",
        "--limit",
        "1000",
        "--sort",
        "date",
    ]);
    let dates: Vec<String> = by_date["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["date"].as_str().unwrap().to_string())
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn stats_report_games_positions_and_bytes() {
    let (_d, db) = db_with_twic();
    let s = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(s["games"], 2245);
    // python-chess: sum over games of distinct positions per game (first occurrences).
    let expected = python(
        &oracle("count_positions.py"),
        &[twic().display().to_string()],
    );
    assert_eq!(s["positions"], expected["positions"]);
    let distinct = expected["distinct"].as_f64().unwrap();
    let est = s["distinctPositions"].as_f64().unwrap();
    assert!(
        (est - distinct).abs() / distinct < 0.03,
        "estimate {est} vs exact {distinct}"
    );
    let parts = s["parts"].as_array().unwrap();
    for name in ["games", "names", "index"] {
        assert!(
            parts
                .iter()
                .any(|p| p["name"] == name && p["bytes"].as_u64().unwrap() > 0),
            "{name}"
        );
    }
}

/// Total games counted in a position's statistics (results known or not, ended there or not).
fn counted(e: &Value) -> u64 {
    ["white", "draws", "black", "unknown"]
        .iter()
        .map(|f| e[*f].as_u64().unwrap())
        .sum()
}

#[test]
fn killed_imports_leave_a_consistent_database_and_finish_on_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared("pgn/pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let probes = ["", "e2e4", "d2d4,g8f6,c2c4", "e2e4,c7c5,g1f3,d7d6"];
    let snapshot = |db: &Path| -> (Value, Vec<Value>) {
        let s = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
        let e = probes
            .iter()
            .map(|p| {
                if p.is_empty() {
                    json(&["explore", "--json", "--db", db.to_str().unwrap()])
                } else {
                    explore(db, p)
                }
            })
            .collect();
        (s, e)
    };
    let reference = dir.path().join("reference");
    let started = std::time::Instant::now();
    import(&reference, &files, &["--batch", "500"]);
    let full_ms = started.elapsed().as_millis() as u64;
    let (ref_stats, ref_explore) = snapshot(&reference);
    let total = ref_stats["games"].as_u64().unwrap();

    // Kill at several moments spread over the import's own duration on this machine (the
    // games go in during the first part; merging the index runs comes last).
    let mut partial = 0;
    for (i, pct) in [5u64, 12, 20, 30, 45, 65, 90].into_iter().enumerate() {
        let delay_ms = full_ms * pct / 100;
        let db = dir.path().join(format!("killed{i}"));
        let mut child = Command::new(BIN)
            .args(["import", "--db", db.to_str().unwrap(), "--batch", "500"])
            .args(&files)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SIGKILL: no chance to clean up.
        child.kill().unwrap();
        child.wait().unwrap();
        if db.join("tabiya.redb").exists() {
            // The database opens, and every statistic counts only whole games.
            let s = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
            let start = json(&["explore", "--json", "--db", db.to_str().unwrap()]);
            assert_eq!(
                counted(&start),
                s["games"].as_u64().unwrap(),
                "kill after {delay_ms} ms: start position counts every stored game once"
            );
            let listed = json(&[
                "games",
                "--json",
                "--db",
                db.to_str().unwrap(),
                "--limit",
                "0",
            ]);
            assert_eq!(listed["total"], s["games"]);
            let games = s["games"].as_u64().unwrap();
            if games > 0 && games < total {
                partial += 1;
            }
        }
        // Running the same import again finishes the job.
        import(&db, &files, &["--batch", "500"]);
        let (stats, explored) = snapshot(&db);
        for f in ["games", "positions", "distinctPositions"] {
            assert_eq!(stats[f], ref_stats[f], "kill after {delay_ms} ms: {f}");
        }
        for (a, b) in explored.iter().zip(&ref_explore) {
            for f in ["white", "draws", "black", "unknown", "moves"] {
                assert_eq!(a[f], b[f], "kill after {delay_ms} ms: {f} of {}", a["fen"]);
            }
        }
    }
    assert!(
        partial >= 2,
        "only {partial} kills landed in the middle of the import ({full_ms} ms); the test did not test much"
    );
}

#[test]
fn merging_index_runs_changes_no_answer() {
    // One batch (checked against python-chess above) and 24 batches of 97 games, merged.
    let (_d, one) = db_with_twic();
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    import(&many, &[twic()], &["--batch", "97"]);
    let s = json(&["stats", "--json", "--db", many.to_str().unwrap()]);
    assert_eq!(s["runs"], 1, "small runs are merged after the import");
    let s1 = json(&["stats", "--json", "--db", one.to_str().unwrap()]);
    assert_eq!(s["positions"], s1["positions"]);
    for line in [
        "",
        "e2e4",
        "e2e4,c7c5",
        "d2d4,g8f6,c2c4,e7e6,g1f3",
        "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6",
        &first_game_line(25),
        &first_game_line(60),
    ] {
        let a = if line.is_empty() {
            json(&["explore", "--json", "--db", one.to_str().unwrap()])
        } else {
            explore(&one, line)
        };
        let b = if line.is_empty() {
            json(&["explore", "--json", "--db", many.to_str().unwrap()])
        } else {
            explore(&many, line)
        };
        assert_eq!(a, b, "position {line:?}");
        let ga = json(&[
            "games",
            "--json",
            "--db",
            one.to_str().unwrap(),
            "--play",
            line,
            "--limit",
            "100000",
            "--sort",
            "id",
        ]);
        let gb = json(&[
            "games",
            "--json",
            "--db",
            many.to_str().unwrap(),
            "--play",
            line,
            "--limit",
            "100000",
            "--sort",
            "id",
        ]);
        assert_eq!(ga, gb, "games of {line:?}");
    }
}

#[test]
fn explore_shows_books_next_to_the_database() {
    let (_d, db) = db_with_twic();
    let books = [
        shared("polyglot/gm2001.bin"),
        shared("ctg/PowerPlay17-Sicilienne.ctg"),
    ];
    let e = json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--play",
        "e2e4,c7c5",
        "--book",
        books[0].to_str().unwrap(),
        "--book",
        books[1].to_str().unwrap(),
    ]);
    let answers = e["books"].as_array().unwrap();
    assert_eq!(answers.len(), 2);
    for (answer, book) in answers.iter().zip(&books) {
        // The same answer as probing the book on its own.
        let probe = json(&[
            "book",
            "probe",
            book.to_str().unwrap(),
            "--play",
            "e2e4,c7c5",
            "--json",
        ]);
        assert_eq!(answer["file"], book.display().to_string());
        for (k, v) in answer.as_object().unwrap() {
            if k != "file" {
                assert_eq!(v, &probe[k.as_str()], "{k}");
            }
        }
        assert_eq!(answer["found"], true);
    }
    // gm2001 is a Polyglot book: weights, no statistics.
    assert!(answers[0]["moves"][0]["weight"].as_u64().is_some());
    assert!(answers[0]["moves"][0].get("games").is_none());
}

#[test]
fn gen_is_deterministic_and_its_games_are_legal_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = |name: &str, seed: &str| -> (PathBuf, Value) {
        let p = d.join(name);
        let v = json(&[
            "gen",
            "--games",
            "300",
            "--seed",
            seed,
            "--from",
            twic().to_str().unwrap(),
            "-o",
            p.to_str().unwrap(),
            "--json",
        ]);
        (p, v)
    };
    let (a, va) = out("a.pgn", "7");
    let (b, _) = out("b.pgn", "7");
    let (c, _) = out("c.pgn", "8");
    assert_eq!(va["games"], 300);
    // It learns from the games python-chess sees starting from the standard position with a move.
    let source = python(
        &oracle("count_positions.py"),
        &[twic().display().to_string()],
    );
    assert_eq!(va["learnedGames"], source["standardWithMoves"], "{va}");
    assert_eq!(
        va["bytes"].as_u64(),
        Some(std::fs::metadata(&a).unwrap().len())
    );
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same seed, same bytes"
    );
    assert_ne!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&c).unwrap(),
        "another seed, other games"
    );
    // python-chess reads every generated game without an error, and the database indexes
    // exactly the positions it counts.
    let expected = python(&oracle("count_positions.py"), &[a.display().to_string()]);
    assert_eq!(expected["games"], 300, "{expected}");
    assert_eq!(expected["errors"], 0, "{expected}");
    let db = d.join("db");
    let s = import(&db, std::slice::from_ref(&a), &[]);
    assert_eq!(s["imported"], 300, "{s}");
    let stats = json(&["stats", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(stats["positions"], expected["positions"]);
    // Zstandard output holds the same games.
    let z = d.join("a.pgn.zst");
    json(&[
        "gen",
        "--games",
        "300",
        "--seed",
        "7",
        "--from",
        twic().to_str().unwrap(),
        "-o",
        z.to_str().unwrap(),
        "--json",
    ]);
    let plain = zstd::decode_all(std::fs::File::open(&z).unwrap()).unwrap();
    assert_eq!(plain, std::fs::read(&a).unwrap());
    // `-o -` is standard output (as `import -` is standard input): no file named `-`.
    let twic = twic();
    let args = ["gen", "--games", "300", "--seed", "7", "--from"];
    let mut cmd = Command::new(BIN);
    cmd.current_dir(d).args(args).arg(&twic).args(["-o", "-"]);
    let piped = cmd.output().unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(piped.stdout, std::fs::read(&a).unwrap());
    assert!(!d.join("-").exists(), "a file named - was written");
}

/// Anastasian–Lewis (World Senior Teams 2016): Black's 41st move is ChessBase's null move
/// `Z0`, then 42.Ke1 Qh1+. The game is kept whole: indexed up to the null move (where it
/// counts as ending: no position after a pass is one of chess), exported back with `--`,
/// which python-chess reads as the same game.
#[test]
fn a_game_with_a_null_move_is_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let file = shared("pgn/edge-cases/data_pgn_anastasian-lewis.pgn");
    let s = import(&db, std::slice::from_ref(&file), &[]);
    assert_eq!(s["imported"], 1, "{s}");
    let db = db.display().to_string();
    // The position before the null move (after 41.Bxf3), worked out with python-chess.
    let before = "5rk1/2p1R2p/p5pb/2PPR2q/8/2Q2B2/5P2/5K2 b - - 0 41";
    let e = json(&["explore", "--db", &db, "--fen", before, "--json"]);
    assert_eq!(
        (e["white"].as_u64(), e["ended"].as_u64()),
        (Some(1), Some(1)),
        "{e}"
    );
    // After the pass and 42.Ke1 (White's king on e1, Black to move): not indexed.
    let after = "5rk1/2p1R2p/p5pb/2PPR2q/8/2Q2B2/5P2/4K3 b - - 2 42";
    let e = json(&["explore", "--db", &db, "--fen", after, "--json"]);
    assert_eq!(
        e["white"].as_u64().unwrap() + e["draws"].as_u64().unwrap() + e["black"].as_u64().unwrap(),
        0
    );
    // Exported, python-chess reads the same moves (the null move included) and tags.
    let out = dir.path().join("out.pgn");
    run(&["export", "--db", &db, "-o", &out.display().to_string()]);
    let check = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, chess.pgn\n\
             a = chess.pgn.read_game(open(sys.argv[1], encoding='latin-1'))\n\
             b = chess.pgn.read_game(open(sys.argv[2]))\n\
             assert [m.uci() for m in a.mainline_moves()] == [m.uci() for m in b.mainline_moves()]\n\
             assert '0000' in [m.uci() for m in b.mainline_moves()]\n\
             assert dict(a.headers) == dict(b.headers)\n\
             assert a.end().board().fen() == b.end().board().fen()\n",
        )
        .arg(&file)
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
