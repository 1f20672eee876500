//! `tabiya novelty`: the earlier games in each position of a game equal python-chess's count
//! over the same PGN (`oracle/novelty_oracle.py`), for stored games and for games of a file
//! that are not stored; the novelty is the first move whose position has none.

use serde_json::Value;

mod common;
use common::{json as run_json, run_ok, run_raw, shared};

fn oracle(args: &[&str]) -> Value {
    common::oracle_json("novelty_oracle.py", args)
}

fn check(got: &Value, want: &Value, what: &str) {
    assert_eq!(got["start_earlier"], want["start"], "{what}: start");
    let plies: Vec<u64> = got["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["earlier"].as_u64().unwrap())
        .collect();
    let want_plies: Vec<u64> = want["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(plies, want_plies, "{what}: plies");
    let first_new = want_plies.iter().position(|&n| n == 0);
    assert_eq!(
        got["novelty"]["ply"].as_u64(),
        first_new.map(|i| i as u64 + 1),
        "{what}: novelty"
    );
}

#[test]
fn earlier_games_per_ply_agree_with_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let twic = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", db, twic.to_str().unwrap()]);

    // Stored games: the first 40, each judged against the others.
    let text = std::fs::read_to_string(&twic).unwrap();
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    let forty = dir.path().join("forty.pgn");
    std::fs::write(&forty, &text[..starts[40]]).unwrap();
    let want = oracle(&[twic.to_str().unwrap(), forty.to_str().unwrap(), "--self"]);
    let ids: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
    let mut args = vec!["novelty", "--json", "--db", db, "--game"];
    args.extend(ids.iter().map(String::as_str));
    let got = run_json(&args);
    let mut novelties = 0;
    for (i, (g, w)) in got
        .as_array()
        .unwrap()
        .iter()
        .zip(want.as_array().unwrap())
        .enumerate()
    {
        check(g, w, &format!("game {}", i + 1));
        novelties += g["novelty"].is_object() as u32;
    }
    assert!(novelties > 10, "{novelties} novelties among 40 games");

    // Games of a file, not stored: the same games dated a year later (all of TWIC is then
    // earlier) and one with no date (every game is earlier).
    let moved = text[..starts[3]]
        .replace("[Date \"2012.", "[Date \"2013.")
        .replacen("[Date \"2013.", "[Date \"????.", 1);
    let file = dir.path().join("new.pgn");
    std::fs::write(&file, &moved).unwrap();
    let want = oracle(&[twic.to_str().unwrap(), file.to_str().unwrap()]);
    let got = run_json(&["novelty", "--json", "--db", db, file.to_str().unwrap()]);
    for (i, (g, w)) in got
        .as_array()
        .unwrap()
        .iter()
        .zip(want.as_array().unwrap())
        .enumerate()
    {
        check(g, w, &format!("file game {}", i + 1));
    }
    // The text report names the move.
    let out = run_ok(&["novelty", "--db", db, "--game", "2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("novelty "));
    // A file that is not PGN, a game that is not there: errors with reasons.
    let bad = run_raw(&["novelty", "--db", db, "/nonexistent.pgn"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot read /nonexistent.pgn"));
    let bad = run_raw(&["novelty", "--db", db, "--game", "999999"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no game 999999"));
}
