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

#[test]
fn results_over_time_agree_with_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let files = [
        shared("pgn/pgnmentor/PolgarJ.pgn"),
        shared("pgn/pgnmentor/Tal.pgn"),
    ];
    let mut args = vec!["import", "--db", db];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    run_ok(&args);
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/years_oracle.py");
    for line in ["", "e2e4,c7c5", "d2d4,g8f6,c2c4,e7e6"] {
        let mut call = Command::new("python3");
        call.arg(&oracle).args(&files).arg("--").arg(line);
        let out = call.output().expect("python3 with python-chess");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut a = vec!["explore", "--json", "--by-year", "--db", db];
        if !line.is_empty() {
            a.extend(["--play", line]);
        }
        let got = run_json(&a);
        let as_list = |y: &Value| {
            vec![
                y["white"].clone(),
                y["draws"].clone(),
                y["black"].clone(),
                y["unknown"].clone(),
            ]
        };
        let years = got["years"].as_array().unwrap();
        assert!(years.len() > 10, "{line:?}: {} years", years.len());
        assert_eq!(
            years.len(),
            want["years"].as_object().unwrap().len(),
            "{line:?}"
        );
        for y in years {
            let k = y["year"].to_string();
            assert_eq!(Value::from(as_list(y)), want["years"][&k], "{line:?} {k}");
        }
        assert_eq!(got["noYear"], want["noYear"], "{line:?}");
        for m in got["moves"].as_array().unwrap() {
            let uci = m["uci"].as_str().unwrap();
            let ys = m["years"].as_array().unwrap();
            assert_eq!(
                ys.len(),
                want["moves"][uci].as_object().unwrap().len(),
                "{line:?} {uci}"
            );
            for y in ys {
                let k = y["year"].to_string();
                assert_eq!(
                    Value::from(as_list(y)),
                    want["moves"][uci][&k],
                    "{line:?} {uci} {k}"
                );
            }
        }
    }
}

#[test]
fn the_move_orders_into_a_position_agree_with_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let twic = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", db, twic.to_str().unwrap()]);
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/routes_oracle.py");
    let mut others = 0;
    for line in [
        "e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4,g8f6",
        "d2d4,g8f6,c2c4,e7e6,g1f3",
        "d2d4,d7d5,c2c4,e7e6",
    ] {
        let out = Command::new("python3")
            .arg(&oracle)
            .arg(&twic)
            .arg("--")
            .arg(line)
            .output()
            .expect("python3 with python-chess");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got = run_json(&[
            "explore",
            "--json",
            "--db",
            db,
            "--play",
            line,
            "--transpositions",
            "1000",
        ]);
        assert_eq!(got["games"], want["games"], "{line}");
        let routes = got["routes"].as_array().unwrap();
        let want_routes = want["routes"].as_object().unwrap();
        assert_eq!(routes.len(), want_routes.len(), "{line}: move orders");
        assert_eq!(got["distinct"], want_routes.len(), "{line}");
        for r in routes {
            let seq: Vec<&str> = r["uci"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_str().unwrap())
                .collect();
            let k = seq.join(" ");
            assert_eq!(r["games"], want_routes[&k], "{line}: {k}");
            let by_result: u64 = ["white", "draws", "black", "unknown"]
                .iter()
                .map(|f| r[f].as_u64().unwrap())
                .sum();
            assert_eq!(r["games"].as_u64().unwrap(), by_result);
        }
        let asked = line.replace(',', " ");
        assert_eq!(
            got["byAsked"],
            want_routes.get(&asked).cloned().unwrap_or(Value::from(0)),
            "{line}"
        );
        others += got["games"].as_u64().unwrap() - got["byAsked"].as_u64().unwrap();
    }
    assert!(
        others > 0,
        "no game came by another move order: the test tests nothing"
    );
}
