//! `tabiya explore --later-structures` against python-chess on real games (Kasparov's games,
//! TWIC 920): for positions reached by many move orders, the pawn structures the games hold
//! afterwards, each counted once per game, with results, plies after and mean rating
//! (`oracle/later_structures_oracle.py`); with a rating filter, over a set of two databases,
//! and after deletions and edited results.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{json, run_ok, run_raw, shared};
use serde_json::{Value, json};

const KASPAROV: &str = "pgn/pgnmentor/Kasparov.pgn";
const TWIC: &str = "pgn/twic/twic0920.pgn";

/// The positions asked (by a line from the start), the plies a structure must hold, and
/// a rating filter.
fn cases() -> Vec<Value> {
    let c = |line: &str, held: u32, rating: Option<u32>| json!({"line": line.split_whitespace().collect::<Vec<_>>(), "held": held, "ratingMin": rating});
    vec![
        // The Queen's Gambit Declined: the Carlsbad structure and its kin.
        c("d2d4 d7d5 c2c4 e7e6 b1c3 g8f6", 4, None),
        c("e2e4 c7c5", 4, Some(2500)),
        c("e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4", 8, None),
        // Reached by several orders (1. Nf3 d5 2. d4 is 1. d4 d5 2. Nf3), every structure.
        c("g1f3 d7d5 d2d4", 1, None),
        c("e2e4 e7e5 g1f3 b8c6 f1b5", 2, None),
        // Every game.
        c("", 6, None),
    ]
}

/// python-chess's answer for every case over the first `files` files, less the games
/// dropped, with results changed.
fn oracle(files: &[&Path], scenario: Value, dir: &Path) -> Vec<Value> {
    let cfile = dir.join("cases.json");
    std::fs::write(&cfile, serde_json::to_vec(&cases()).unwrap()).unwrap();
    let sfile = dir.join("scenario.json");
    std::fs::write(&sfile, serde_json::to_vec(&scenario).unwrap()).unwrap();
    let mut args = vec![cfile.display().to_string(), sfile.display().to_string()];
    args.extend(files.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = common::oracle_json("later_structures_oracle.py", &args);
    v.as_array().unwrap().clone()
}

/// The oracle's answer in Tabiya's terms: the figures each structure row shows.
fn expected(o: &Value) -> Value {
    let mut by = BTreeMap::new();
    for (pawns, r) in o["structures"].as_object().unwrap() {
        let games = r["games"].as_u64().unwrap();
        let rated = r["rated"].as_u64().unwrap();
        by.insert(
            pawns.clone(),
            json!({
                "games": games, "white": r["white"], "draws": r["draws"], "black": r["black"],
                "unknown": r["unknown"], "averagePlies": r["plies"].as_u64().unwrap() / games,
                "averageRating": (rated > 0).then(|| r["ratingSum"].as_u64().unwrap() / (2 * rated)),
            }),
        );
    }
    json!({"games": o["games"], "distinct": o["distinct"], "structures": by})
}

/// Tabiya's answer for a case: every structure (the list asked long enough to hold all).
fn tabiya(dbs: &[&Path], case: &Value) -> Value {
    let line: Vec<&str> = case["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let play = line.join(" ");
    let held = case["held"].to_string();
    let mut args = vec!["explore"];
    for db in dbs {
        args.extend(["--db", db.to_str().unwrap()]);
    }
    if !play.is_empty() {
        args.extend(["--play", &play]);
    }
    args.extend(["--later-structures", "1000000", "--held", &held, "--json"]);
    let rating = case["ratingMin"].to_string();
    if !case["ratingMin"].is_null() {
        args.extend(["--rating-min", &rating]);
    }
    let a = json(&args);
    assert_eq!(a["held"], case["held"]);
    let rows = a["structures"].as_array().unwrap();
    // Most frequent first, ties by the structure's text.
    for w in rows.windows(2) {
        let (x, y) = (&w[0], &w[1]);
        assert!(
            x["games"].as_u64() > y["games"].as_u64()
                || (x["games"] == y["games"] && x["pawns"].as_str() < y["pawns"].as_str()),
            "order: {x} before {y}"
        );
    }
    let mut by = BTreeMap::new();
    for r in rows {
        by.insert(
            r["pawns"].as_str().unwrap().to_string(),
            json!({
                "games": r["games"], "white": r["white"], "draws": r["draws"], "black": r["black"],
                "unknown": r["unknown"], "averagePlies": r["averagePlies"], "averageRating": r["averageRating"],
            }),
        );
    }
    json!({"games": a["games"], "distinct": a["distinct"], "structures": by})
}

fn compare(dbs: &[&Path], want: &[Value], when: &str) {
    for (case, o) in cases().iter().zip(want) {
        let want = expected(o);
        let got = tabiya(dbs, case);
        assert_eq!(got, want, "{when}: {case}");
        eprintln!(
            "{when}: {case}: {} games, {} structures",
            want["games"], want["distinct"]
        );
    }
}

#[test]
fn the_structures_reached_later_are_python_chess_s_after_edits_and_in_a_set() {
    let tmp = tempfile::tempdir().unwrap();
    let (kasparov, twic) = (shared(KASPAROV), shared(TWIC));
    let files = [kasparov.as_path(), twic.as_path()];
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    run_ok(&["import", "--db", d, kasparov.to_str().unwrap()]);
    let want = oracle(&files, json!({"files": 1}), tmp.path());
    assert!(
        want.iter()
            .filter(|o| o["distinct"].as_u64().unwrap() >= 10)
            .count()
            >= 5,
        "the cases find structures: {:?}",
        want.iter().map(|o| &o["distinct"]).collect::<Vec<_>>()
    );
    compare(&[&db], &want, "Kasparov");

    // A set of two databases answers as one over both files.
    let other = tmp.path().join("twic");
    run_ok(&[
        "import",
        "--db",
        other.to_str().unwrap(),
        twic.to_str().unwrap(),
    ]);
    let both = oracle(&files, json!({"files": 2}), tmp.path());
    compare(&[&db, &other], &both, "a set");

    // Deleted games leave, edited results move.
    let qgd = &want[0]["structures"];
    assert!(qgd.as_object().unwrap().len() > 3);
    run_ok(&["delete", "--db", d, "--game", "3", "40", "1000"]);
    let mut results = serde_json::Map::new();
    for (id, result) in [(5, "0-1"), (41, "1-0"), (77, "*")] {
        run_ok(&[
            "edit",
            "--db",
            d,
            "--game",
            &id.to_string(),
            "--set",
            &format!("Result={result}"),
        ]);
        results.insert(id.to_string(), json!(result));
    }
    let after = oracle(
        &files,
        json!({"files": 1, "drop": [3, 40, 1000], "results": results}),
        tmp.path(),
    );
    assert_ne!(after, want, "the changes touch the cases");
    compare(&[&db], &after, "after edits and deletions");
}

#[test]
fn mistakes_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    run_ok(&[
        "import",
        "--db",
        d,
        shared("pgn/edge-cases/data_pgn_molinari-bordais-1979.pgn")
            .to_str()
            .unwrap(),
    ]);
    let o = run_raw(&["explore", "--db", d, "--later-structures", "--held", "5000"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("held 5000: at most 1000 plies"), "{err}");
    let o = run_raw(&["explore", "--db", d, "--held", "3"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--later-structures"), "{err}");
    // A position no game reaches: none, said so.
    let a = json(&[
        "explore",
        "--db",
        d,
        "--play",
        "h2h4 h7h5",
        "--later-structures",
        "--json",
    ]);
    assert_eq!(a["games"], json!(0));
    assert_eq!(a["structures"], json!([]));
}
