//! The transposition-aware explorer: each move's `reached` — the games reaching the position
//! after it by any move order, by result — equals python-chess counting the games of the same
//! PGN that reach that position (`oracle/explore_oracle.py`), beside the games that played the
//! move here.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json as run_json, run_ok, shared};

#[test]
fn every_move_says_how_many_games_reach_its_position_by_any_move_order() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let twic = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", db, twic.to_str().unwrap()]);
    // Lines where other move orders meet (the Sicilian main line, the Queen's Gambit
    // Declined by way of 1. Nf3 and 1. c4, an English that turns into a Queen's Gambit).
    let lines = [
        "e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4,g8f6",
        "d2d4,g8f6,c2c4,e7e6",
        "g1f3,d7d5,d2d4",
        "c2c4,e7e6,b1c3",
    ];
    let mut children = Vec::new();
    let mut answers = Vec::new();
    for line in lines {
        let e = run_json(&["explore", "--json", "--db", db, "--play", line]);
        for m in e["moves"].as_array().unwrap() {
            children.push(format!("{line},{}", m["uci"].as_str().unwrap()));
        }
        answers.push(e);
    }
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/explore_oracle.py");
    let out = Command::new("python3")
        .arg(oracle)
        .arg(&twic)
        .arg("--")
        .args(&children)
        .output()
        .expect("python3 with python-chess");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut transposed = 0;
    for (line, e) in lines.iter().zip(&answers) {
        for m in e["moves"].as_array().unwrap() {
            let child = format!("{line},{}", m["uci"].as_str().unwrap());
            let w = &want[&child];
            let r = &m["reached"];
            for f in ["white", "draws", "black", "unknown"] {
                assert_eq!(r[f], w["total"][f], "{child}: reached {f}");
            }
            let here: u64 = ["white", "draws", "black", "unknown"]
                .iter()
                .map(|f| m[f].as_u64().unwrap())
                .sum();
            let all: u64 = w["games"].as_u64().unwrap();
            assert!(here <= all, "{child}: {here} here, {all} in all");
            transposed += all - here;
        }
    }
    assert!(
        transposed > 0,
        "no line here meets another move order: the test tests nothing"
    );
    // The text table shows both.
    let text = run_ok(&["explore", "--db", db, "--play", lines[0]]).stdout;
    assert!(String::from_utf8_lossy(&text).contains("in all"));
}
