//! `tabiya db merge`: databases merged count as python-chess counts their games (each game
//! once: what both hold is skipped; edits and deletions made in a source come along), the
//! sources' name corrections come along, and a merge killed at random moments finishes when
//! run again with the answers of one never killed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod common;
use common::{BIN, json as run_json, shared};

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
        .expect("python3 with python-chess (the project's test command installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const LINES: [&str; 5] = ["", "e2e4", "d2d4,g8f6", "e2e4,c7c5,g1f3", "c2c4"];

#[test]
fn merged_databases_count_each_game_once_as_python_chess_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    let twic = shared("pgn/twic/twic0920.pgn").display().to_string();
    let tal = shared("pgn/pgnmentor/Tal.pgn").display().to_string();
    run_json(&["import", "--json", "--db", &d("a"), &twic]);
    // The second holds Tal's games and twic's again; one of Tal's games deleted, one
    // edited, one player's spelling aliased.
    run_json(&["import", "--json", "--db", &d("b"), &tal, &twic]);
    run_json(&["delete", "--json", "--db", &d("b"), "--game", "1"]);
    run_json(&[
        "edit",
        "--json",
        "--db",
        &d("b"),
        "--game",
        "2",
        "--set",
        "Result=*",
    ]);
    let alias = run_json(&[
        "names",
        "alias",
        "--json",
        "--db",
        &d("b"),
        "Petrosian, Arshak B",
        "--to",
        "Petrosian, Tigran V",
    ]);
    let merged = run_json(&["db", "merge", "--json", "--into", &d("m"), &d("a"), &d("b")]);
    assert_eq!(
        merged["import"]["duplicates"], 2245,
        "twic's games, held by both"
    );
    assert_eq!(merged["rules"], 1);
    // python-chess on the same games: twic, and Tal's file with game 1 left out and game 2
    // without a result.
    let edits = dir.path().join("edits.json");
    std::fs::write(
        &edits,
        json!({"delete": [1], "set": [[2, "Result", "*"]]}).to_string(),
    )
    .unwrap();
    let tal_edited = dir.path().join("tal.pgn");
    python(
        &oracle("edit_pgn.py"),
        &[
            tal.clone(),
            tal_edited.display().to_string(),
            edits.display().to_string(),
        ],
    );
    let mut args = vec![twic.clone(), tal_edited.display().to_string(), "--".into()];
    args.extend(LINES.iter().map(|s| s.to_string()));
    let want = python(&oracle("explore_oracle.py"), &args);
    for line in LINES {
        let got = if line.is_empty() {
            run_json(&["explore", "--json", "--db", &d("m")])
        } else {
            run_json(&["explore", "--json", "--db", &d("m"), "--play", line])
        };
        for f in ["white", "draws", "black", "unknown"] {
            assert_eq!(got[f], want[line]["total"][f], "{line:?}: {f}");
        }
        for m in got["moves"].as_array().unwrap() {
            let uci = m["uci"].as_str().unwrap();
            for f in [
                "white",
                "draws",
                "black",
                "averageRating",
                "performance",
                "firstYear",
                "lastYear",
            ] {
                assert_eq!(m[f], want[line]["moves"][uci][f], "{line:?} {uci}: {f}");
            }
        }
    }
    // The alias came along: the two Petrosians are one player here as there.
    let tal_there = run_json(&[
        "names",
        "show",
        "--json",
        "--db",
        &d("b"),
        "Petrosian, Arshak B",
    ]);
    let tal_here = run_json(&[
        "names",
        "show",
        "--json",
        "--db",
        &d("m"),
        "Petrosian, Arshak B",
    ]);
    assert_eq!(tal_here["games"], tal_there["games"], "{alias}");
    assert_eq!(tal_here["names"], tal_there["names"]);
    // Merging into one of its own sources is refused.
    let out = common::run_raw(&["db", "merge", "--into", &d("a"), &d("a")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("the database merged into"));
}

#[test]
fn a_killed_merge_finishes_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    for (name, seed) in [("a", "11"), ("b", "12")] {
        let pgn = dir.path().join(format!("{name}.pgn"));
        run_json(&[
            "gen",
            "--json",
            "--games",
            "20000",
            "--seed",
            seed,
            "-o",
            pgn.to_str().unwrap(),
        ]);
        run_json(&[
            "import",
            "--json",
            "--batch",
            "3000",
            "--db",
            &d(name),
            pgn.to_str().unwrap(),
        ]);
    }
    run_json(&[
        "db",
        "merge",
        "--json",
        "--into",
        &d("whole"),
        &d("a"),
        &d("b"),
    ]);
    let want = run_json(&["explore", "--json", "--db", &d("whole"), "--play", "e2e4"]);
    let games = |db: &str| {
        run_json(&["stats", "--json", "--db", db])["games"]
            .as_u64()
            .unwrap()
    };
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("kill moments seeded with {seed}");
    for _ in 0..3 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let wait = std::time::Duration::from_millis(50 + (seed >> 33) % 1500);
        let mut child = Command::new(BIN)
            .args([
                "db",
                "merge",
                "--batch",
                "2000",
                "--into",
                &d("killed"),
                &d("a"),
                &d("b"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(wait);
        let _ = child.kill();
        let _ = child.wait();
        if Path::new(&d("killed")).join("tabiya.redb").exists() {
            // Whatever it holds opens, and holds no game twice.
            let n = games(&d("killed"));
            assert!(n <= games(&d("whole")), "{n}");
            println!("killed after {wait:?}: {n} games");
        }
    }
    run_json(&[
        "db",
        "merge",
        "--json",
        "--batch",
        "2000",
        "--into",
        &d("killed"),
        &d("a"),
        &d("b"),
    ]);
    assert_eq!(games(&d("killed")), games(&d("whole")));
    let got = run_json(&["explore", "--json", "--db", &d("killed"), "--play", "e2e4"]);
    for f in ["white", "draws", "black", "unknown", "averageRating"] {
        assert_eq!(got[f], want[f], "{f}");
    }
    let moves = |v: &Value| -> Vec<Value> {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                json!([
                    m["uci"],
                    m["white"],
                    m["draws"],
                    m["black"],
                    m["averageRating"],
                    m["performance"]
                ])
            })
            .collect()
    };
    assert_eq!(moves(&got), moves(&want));
}
