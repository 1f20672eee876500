//! `tabiya edit` and `tabiya delete` end to end: after them, `explore` and `games` agree with
//! python-chess counting the same PGN edited by python-chess (`oracle/edit_pgn.py`), and a
//! process killed in the middle of a deletion leaves all of it or none.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod common;
use common::{BIN, json as run_json, run_raw, shared};

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(name)
}

fn twic() -> PathBuf {
    shared("pgn/twic/twic0920.pgn")
}

fn python(script: &Path, args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 with python-chess (the project's test command installs it)");
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn import(db: &Path) {
    run_json(&[
        "import",
        "--json",
        "--batch",
        "300",
        "--db",
        db.to_str().unwrap(),
        twic().to_str().unwrap(),
    ]);
}

fn ids_of(db: &Path, play: &str, n: usize) -> Vec<u64> {
    let g = run_json(&[
        "games",
        "--json",
        "--sort",
        "id",
        "--db",
        db.to_str().unwrap(),
        "--play",
        play,
    ]);
    g["games"].as_array().unwrap()[..n]
        .iter()
        .map(|g| g["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

const LINES: [&str; 7] = [
    "",
    "e2e4",
    "e2e4,c7c5",
    "d2d4",
    "d2d4,g8f6,c2c4,e7e6",
    "g1f3,g8f6,c2c4,e7e6,d2d4",
    "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6",
];

#[test]
fn edits_and_deletes_agree_with_python_chess_on_the_edited_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let d = db.to_str().unwrap();
    import(&db);
    // Game ids are places in the file (twic0920 has no duplicates).
    let start = run_json(&["explore", "--json", "--db", d]);
    let best: u64 = start["topGames"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let mut delete: Vec<u64> = ids_of(&db, "e2e4,c7c5", 6);
    delete.extend([1, 2, 3, best]);
    let mut args = vec!["delete", "--json", "--db", d, "--game"];
    let del: Vec<String> = delete.iter().map(u64::to_string).collect();
    args.extend(del.iter().map(String::as_str));
    let report = run_json(&args);
    assert_eq!(report["games"], delete.len());
    assert_eq!(report["games_left"], 2245 - delete.len());
    // Games to edit, among those left.
    let results = ids_of(&db, "d2d4,g8f6,c2c4,e7e6", 5);
    let ratings = ids_of(&db, "e2e4,e7e5", 4);
    let dates = ids_of(&db, "g1f3", 3);
    let mut sets: Vec<Value> = Vec::new();
    let mut unsets: Vec<Value> = Vec::new();
    let edit = |id: u64, set: &[(&str, &str)], unset: &[&str]| {
        let mut a: Vec<String> = vec!["edit".into(), "--json".into(), "--db".into(), d.into()];
        a.extend(["--game".into(), id.to_string()]);
        for (k, v) in set {
            a.extend(["--set".into(), format!("{k}={v}")]);
        }
        for k in unset {
            a.extend(["--unset".into(), k.to_string()]);
        }
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = run_json(&refs);
        assert_eq!(out["changed"], true, "{out}");
    };
    for (i, &id) in results.iter().enumerate() {
        let r = ["0-1", "1-0", "*", "1/2-1/2", "0-1"][i];
        edit(id, &[("Result", r)], &[]);
        sets.push(json!([id, "Result", r]));
    }
    for (i, &id) in ratings.iter().enumerate() {
        if i % 2 == 0 {
            edit(id, &[("WhiteElo", "2999"), ("BlackElo", "2998")], &[]);
            sets.push(json!([id, "WhiteElo", "2999"]));
            sets.push(json!([id, "BlackElo", "2998"]));
        } else {
            edit(id, &[], &["WhiteElo"]);
            unsets.push(json!([id, "WhiteElo"]));
        }
    }
    for &id in &dates {
        edit(id, &[("Date", "1850.01.01")], &[]);
        sets.push(json!([id, "Date", "1850.01.01"]));
    }

    let edits = dir.path().join("edits.json");
    let spec = json!({"delete": delete, "set": sets, "unset": unsets});
    std::fs::write(&edits, spec.to_string()).unwrap();
    let edited = dir.path().join("edited.pgn");
    let wrote = python(
        &oracle("edit_pgn.py"),
        &[
            twic().display().to_string(),
            edited.display().to_string(),
            edits.display().to_string(),
        ],
    );
    assert_eq!(wrote["written"], 2245 - delete.len());
    let mut args = vec![edited.display().to_string(), "--".into()];
    args.extend(LINES.iter().map(|s| s.to_string()));
    let expected = python(&oracle("explore_oracle.py"), &args);
    for line in LINES {
        let want = &expected[line];
        let got = if line.is_empty() {
            run_json(&["explore", "--json", "--db", d])
        } else {
            run_json(&["explore", "--json", "--db", d, "--play", line])
        };
        for f in ["white", "draws", "black", "unknown"] {
            assert_eq!(got[f], want["total"][f], "{line:?}: {f}");
        }
        let want_moves = want["moves"].as_object().unwrap();
        let got_moves = got["moves"].as_array().unwrap();
        assert_eq!(got_moves.len(), want_moves.len(), "{line:?}: moves");
        for m in got_moves {
            let uci = m["uci"].as_str().unwrap();
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
                assert_eq!(m[f], want_moves[uci][f], "{line:?} {uci}: {f}");
            }
        }
        if !line.is_empty() {
            let g = run_json(&["games", "--json", "--db", d, "--play", line, "--limit", "1"]);
            assert_eq!(g["total"], want["games"], "{line:?}: games");
        }
    }
    // A deleted game is gone; deleting it again says so.
    let gone = run_raw(&["export", "--db", d, "--game", &best.to_string()]);
    assert!(!gone.status.success());
    let again = run_json(&["delete", "--json", "--db", d, "--game", &best.to_string()]);
    assert_eq!(again["games"], 0);
    assert_eq!(again["missing"], json!([best]));
}

#[test]
fn bad_edits_are_refused_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let d = db.to_str().unwrap();
    import(&db);
    for (args, says) in [
        (
            vec!["--game", "5", "--set", "Result=2-0"],
            "1-0, 0-1, 1/2-1/2 or *",
        ),
        (
            vec!["--game", "5", "--set", "FEN=8/8/8/8/8/8/8/8 w - - 0 1"],
            "moves",
        ),
        (vec!["--game", "5", "--unset", "Result"], "set it to *"),
        (vec!["--game", "5", "--set", "NoValue"], "TAG=VALUE"),
        (vec!["--game", "5"], "nothing to change"),
        (
            vec!["--game", "99999", "--set", "Result=1-0"],
            "no game 99999",
        ),
    ] {
        let mut a = vec!["edit", "--db", d];
        a.extend(args);
        let out = run_raw(&a);
        assert!(!out.status.success(), "{a:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{a:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let e = run_json(&["explore", "--json", "--db", d]);
    assert_eq!(e["white"], 895, "nothing changed");
}

/// A deletion of 15,000 games (a few seconds) killed at random moments: the database opens
/// with all of them deleted or none, its answers those of one state or the other.
#[test]
fn killed_deletions_leave_all_of_it_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("gen.pgn");
    let db = dir.path().join("db");
    let d = db.to_str().unwrap();
    run_json(&[
        "gen",
        "--json",
        "--games",
        "30000",
        "--seed",
        "5",
        "-o",
        pgn.to_str().unwrap(),
    ]);
    run_json(&["import", "--json", "--db", d, pgn.to_str().unwrap()]);
    let before = run_json(&["explore", "--json", "--db", d, "--play", "e2e4"]);
    let ids: Vec<String> = (1..=30000).step_by(2).map(|i: u32| i.to_string()).collect();
    let mut args = vec!["delete", "--json", "--db", d, "--game"];
    args.extend(ids.iter().map(String::as_str));
    // Random moments, seeded by the clock (printed, to run a failure again).
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("kill moments seeded with {seed}");
    let mut done = false;
    for _ in 0..4 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let wait_ms = 30 + (seed >> 33) % 1500;
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        let _ = child.wait();
        let games = run_json(&["stats", "--json", "--db", d])["games"]
            .as_u64()
            .unwrap();
        let now = run_json(&["explore", "--json", "--db", d, "--play", "e2e4"]);
        println!("killed after {wait_ms} ms (finished: {finished}): {games} games");
        if games == 30000 {
            assert_eq!(now, before, "none of it: the answers of before");
        } else {
            assert_eq!(games, 15000, "all of it, or none");
            done = true;
            break;
        }
    }
    if !done {
        let r = run_json(&args);
        assert_eq!(r["games"], 15000);
    }
    // The deletion, whole, and once only: a fresh import of the games left answers the same.
    let after = run_json(&["explore", "--json", "--db", d, "--play", "e2e4"]);
    let left = dir.path().join("left.pgn");
    run_raw(&["export", "--db", d, "-o", left.to_str().unwrap()]);
    let fresh = dir.path().join("fresh");
    let f = fresh.to_str().unwrap();
    run_json(&["import", "--json", "--db", f, left.to_str().unwrap()]);
    let want = run_json(&["explore", "--json", "--db", f, "--play", "e2e4"]);
    let counts = |v: &Value| -> Vec<Value> {
        let mut out = vec![v["white"].clone(), v["draws"].clone(), v["black"].clone()];
        for m in v["moves"].as_array().unwrap() {
            for k in [
                "uci",
                "white",
                "draws",
                "black",
                "averageRating",
                "performance",
            ] {
                out.push(m[k].clone());
            }
        }
        out
    };
    assert_eq!(counts(&after), counts(&want));
}
