//! `tabiya analyse`, `annotate`, the explorer's evaluations and `export --evals` with the
//! real Stockfish (Debian's, installed by the test command). Expected values come from the
//! positions and games themselves, worked out by hand (see each test).

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, engines_of, json, run_ok, run_raw, shared};
use serde_json::Value;

#[test]
fn mates_are_found_with_their_scores_from_whites_side() {
    // King h8 alone against rooks a1, b2: one rook cuts off the seventh rank (Rb7 or Ra7),
    // the other mates on the eighth; no check mates at once (the king slips to g7 or h7).
    let a = json(&[
        "analyse",
        "--fen",
        "7k/8/8/8/8/8/1R6/R5K1 w - - 0 1",
        "--depth",
        "12",
        "--json",
    ]);
    assert_eq!(a["pvs"][0]["mate"], 2, "{a}");
    let best = a["best"]["uci"].as_str().unwrap();
    assert!(["b2b7", "a1a7"].contains(&best), "{best}");
    // The same pattern for Black (rooks a8, b7 against the king on h1; Rb2 or Ra2, then
    // mate on the first rank): Black mates, so the score, from White's side, is a mate
    // against White.
    let a = json(&[
        "analyse",
        "--fen",
        "r6k/1r6/8/8/8/8/8/7K b - - 0 1",
        "--depth",
        "12",
        "--json",
    ]);
    assert_eq!(a["pvs"][0]["mate"], -2, "{a}");
    assert!(
        ["b7b2", "a8a2"].contains(&a["best"]["uci"].as_str().unwrap()),
        "{a}"
    );
    // Mate in one, in SAN with its mark: 1.e4 e5 2.Bc4 Nc6 3.Qf3 d6?? 4.Qxf7#.
    let a = json(&[
        "analyse",
        "--play",
        "e4 e5 Bc4 Nc6 Qf3 d6",
        "--depth",
        "8",
        "--multipv",
        "2",
        "--json",
    ]);
    assert_eq!(a["pvs"][0]["mate"], 1);
    assert_eq!(a["pvs"][0]["san"][0], "Qxf7#");
    assert_eq!(a["pvs"].as_array().unwrap().len(), 2);
}

#[test]
fn evaluations_survive_a_restart_and_are_found_from_another_move_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let pgn = dir.path().join("g.pgn");
    // Two games reaching the same position by two move orders.
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n\n[Result \"0-1\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Bc4 0-1\n",
    )
    .unwrap();
    run_ok(&["import", "--db", &db, &pgn.display().to_string()]);
    let first = json(&[
        "analyse",
        "--db",
        &db,
        "--play",
        "e4 e5 Nf3 Nc6",
        "--depth",
        "12",
        "--json",
    ]);
    assert_eq!(first["source"], "engine");
    assert_eq!(first["stored"], true);
    // Stockfish gives win/draw/loss chances (per mille, White's side) with each line.
    let wdl: u64 = first["pvs"][0]["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(wdl, 1000);
    // Another process (the database opened again), another move order, the same position.
    let again = json(&[
        "analyse",
        "--db",
        &db,
        "--play",
        "Nf3 Nc6 e4 e5",
        "--depth",
        "10",
        "--json",
    ]);
    assert_eq!(again["source"], "stored");
    assert_eq!(again["pvs"], first["pvs"]);
    assert_eq!(again["depth"], 12);
    // Deeper than kept: the engine runs, and the deeper one replaces it.
    let deeper = json(&[
        "analyse",
        "--db",
        &db,
        "--play",
        "Nf3 Nc6 e4 e5",
        "--depth",
        "13",
        "--json",
    ]);
    assert_eq!(
        (deeper["source"].as_str(), deeper["stored"].as_bool()),
        (Some("engine"), Some(true))
    );
    // Shallower with --fresh: computed again and kept instead.
    let fresh = json(&[
        "analyse",
        "--db",
        &db,
        "--play",
        "e4 e5 Nf3 Nc6",
        "--depth",
        "9",
        "--fresh",
        "--json",
    ]);
    assert_eq!(
        (fresh["source"].as_str(), fresh["depth"].as_u64()),
        (Some("engine"), Some(9))
    );
    // The explorer shows it: for the position, and beside the move leading to it.
    let e = json(&["explore", "--db", &db, "--play", "e4 e5 Nf3 Nc6", "--json"]);
    assert_eq!(e["eval"]["depth"], 9);
    assert_eq!(e["eval"]["pvs"], fresh["pvs"]);
    let e = json(&["explore", "--db", &db, "--play", "Nf3 Nc6 e4", "--json"]);
    let e5 = e["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["san"] == "e5")
        .unwrap();
    assert_eq!(e5["eval"]["depth"], 9);
    assert_eq!(e5["eval"]["cp"], fresh["pvs"][0]["cp"]);
    // Positions nobody analysed show none.
    let e = json(&["explore", "--db", &db, "--json"]);
    assert!(e.get("eval").is_none());
    assert!(e["moves"][0].get("eval").is_none());
    let table = String::from_utf8(run_ok(&["explore", "--db", &db, "--play", "Nf3 Nc6 e4"]).stdout)
        .unwrap();
    assert!(table.contains("eval"), "{table}");
}

/// TWIC 920, Dahl–Feshir, Minneapolis 2012, round 4.1: Black, a piece up, played
/// 32...Qxf3?? and 33.Qg8# followed (the f7 pawn guards g8; the knight on g6 takes the
/// king's last square). Before it Black was winning; after it Black is mated: a blunder
/// whatever the exact evaluation before.
#[test]
fn annotate_finds_a_known_blunder_in_a_twic_game_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    let games = json(&[
        "games",
        "--db",
        &db,
        "--fen",
        "q3Q3/5Ppk/p5np/1pn5/3r4/1BP2R1P/Pr4PK/R7 b - - 2 32",
        "--json",
    ]);
    assert_eq!(games["total"], 1);
    assert_eq!(games["games"][0]["white"]["name"], "Dahl,M");
    let id = games["games"][0]["id"].as_str().unwrap().to_string();
    let pgn = dir.path().join("annotated.pgn");
    let r = json(&[
        "annotate",
        "--db",
        &db,
        "--game",
        &id,
        "--depth",
        "10",
        "--engines",
        "2",
        "--pgn",
        &pgn.display().to_string(),
        "--json",
    ]);
    assert_eq!(r["engines"], 2);
    assert_eq!(r["games"], 1);
    // 65 moves: 66 positions, all different; the last (mate) needs no search.
    assert_eq!(r["positions"], 66);
    assert_eq!(r["distinct"], 66);
    assert_eq!(r["evaluated"], 65);
    assert_eq!(r["failed"], 0);
    let game = &r["reports"][0];
    let blunder = game["judged"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["ply"] == 64)
        .unwrap_or_else(|| panic!("32...Qxf3 not judged: {game}"));
    assert_eq!(blunder["san"], "Qxf3");
    assert_eq!(blunder["number"], "32...");
    assert_eq!(blunder["judgement"], "blunder");
    assert_eq!(blunder["after"]["mate"], 1, "White mates in one after it");
    assert_ne!(blunder["best"], "Qxf3");
    assert!(game["blackTally"]["blunders"].as_u64().unwrap() >= 1);
    // The PGN: the move with $4, its evaluation, and the engine's better line.
    let text = std::fs::read_to_string(&pgn).unwrap();
    // (Lines wrap at 80 characters wherever the evaluations put them.)
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("32... Qxf3 $4"), "{text}");
    assert!(flat.contains("[%eval #1]"), "{text}");
    assert!(flat.contains("Blunder."), "{text}");
    assert!(flat.contains("33. Qg8# 1-0"), "{text}");
    // Again: everything is known, nothing searched; the same judgements.
    let again = json(&[
        "annotate", "--db", &db, "--game", &id, "--depth", "10", "--json",
    ]);
    assert_eq!(again["evaluated"], 0);
    assert_eq!(again["alreadyKnown"], 66);
    assert_eq!(again["reports"][0]["judged"], game["judged"]);
    // export --evals writes the same annotated game.
    let out = run_ok(&["export", "--db", &db, "--game", &id, "--evals"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
}

#[test]
fn bad_requests_and_missing_engines_are_clear_errors() {
    let cases: [(&[&str], &str); 6] = [
        (&["analyse", "--fen", "not a fen"], "invalid FEN"),
        (&["analyse", "--depth", "0"], "depth 0 is out of range"),
        (&["analyse", "--multipv", "11"], "between 1 and 10"),
        (
            &["analyse", "--engine", "/nonexistent/engine", "--depth", "5"],
            "/nonexistent/engine",
        ),
        (
            &["analyse", "--option", "NoSuchOption=1", "--depth", "5"],
            "has no option \"NoSuchOption\"",
        ),
        (
            &["annotate", "--db", "/nonexistent/db", "--all"],
            "/nonexistent/db",
        ),
    ];
    for (args, wanted) in cases {
        let out = run_raw(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Othello games are not for a chess engine.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("o").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    let out = run_raw(&["annotate", "--db", &db, "--all", "--depth", "5"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Othello"),
        "{out:?}"
    );
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn sigterm_and_ctrl_c_leave_no_engine_behind() {
    for sig in ["-TERM", "-INT"] {
        let child = Command::new(BIN)
            .args(["analyse", "--movetime", "60000", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let began = Instant::now();
        let engine = loop {
            if let Some(&e) = engines_of(child.id()).first() {
                break e;
            }
            assert!(
                began.elapsed() < Duration::from_secs(20),
                "no engine started"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        // Searching for a moment (long enough for a loaded machine to load the engine's
        // network and give a first line), then the signal.
        std::thread::sleep(Duration::from_millis(2500));
        signal(child.id(), sig);
        let out = child.wait_with_output().unwrap();
        assert!(began.elapsed() < Duration::from_secs(30));
        // The engine is gone, reaped (no /proc entry, not even a zombie).
        assert!(
            !std::path::Path::new(&format!("/proc/{engine}")).exists(),
            "{sig}: engine {engine} left"
        );
        // What was found so far is given, marked stopped.
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert_eq!(
            v["stopped"],
            true,
            "{sig}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Killed (SIGKILL: nothing can be tidied) in the middle, an annotation keeps what it had
/// written (it writes every 2 s), and the same command goes on from there.
#[test]
fn annotate_resumes_after_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    // The ten Najdorfs with 6.Be3 of TWIC 920.
    let line = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3";
    let args = [
        "annotate",
        "--db",
        &db,
        "--play",
        line,
        "--depth",
        "12",
        "--engines",
        "2",
        "--json",
    ];
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(5));
    let finished_already = child.try_wait().unwrap().is_some();
    signal(child.id(), "-KILL");
    let _ = child.wait();
    let r = json(&args);
    assert_eq!(r["games"], 10);
    let known = r["alreadyKnown"].as_u64().unwrap();
    let distinct = r["distinct"].as_u64().unwrap();
    assert_eq!(
        known + r["evaluated"].as_u64().unwrap() + r["failed"].as_u64().unwrap(),
        distinct
    );
    // At least one batch was kept (it ran for more than 2 s), and not all was done.
    assert!(known > 10, "{known} of {distinct} kept");
    assert!(
        finished_already || known < distinct,
        "{known} of {distinct}"
    );
    // Every move of every game is judged now.
    for g in r["reports"].as_array().unwrap() {
        assert_eq!(g["unevaluated"], 0, "{g}");
    }
}
