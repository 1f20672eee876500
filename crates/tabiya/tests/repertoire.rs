//! Repertoires keyed by position: `repertoire check` (gaps with the probabilities of all
//! paths summed, bad moves, rare lines, contradictions), `repertoire games`, the explorer's
//! overlay, cards from a repertoire, and `/api/repertoire/…` — on a hand-countable database
//! (the numbers worked out in the comments) and on Kasparov's games, where
//! `oracle/repertoire_oracle.py` (python-chess) computes the same answers from the words of
//! the contract.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::server::{Server, send};
use common::{json as run_json, run_ok, run_raw, shared};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn oracle(args: &[&str]) -> Value {
    common::oracle_json("repertoire_oracle.py", args)
}

/// A FEN without its clocks (the key a position has whatever way led to it).
fn key(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn gap_of<'a>(report: &'a Value, fen_key: &str) -> &'a Value {
    report["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| key(g["fen"].as_str().unwrap()) == fen_key)
        .unwrap_or_else(|| panic!("no gap at {fen_key}: {report}"))
}

// The hand database (fixtures/repertoire-hand-db.pgn):
//   G1 1. d4 d5 2. c4 e6 3. Nf3 Nf6 4. Nc3 Be7     1-0
//   G2 1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7     0-1
//   G3 1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 c6      ½-½
//   G4 1. d4 Nf6 2. c4 g6 3. Nc3 Bg7               1-0
// The repertoire (fixtures/repertoire-hand.pgn), for White:
//   1. d4 Nf6 (1... d5 2. c4 e6 3. Nf3) 2. c4 e6 (2... g6 3. Nc3) 3. Nf3 d5 4. Nc3
// By hand: after 1. d4 Black played d5 once, Nf6 three times: 1/4 and 3/4. After 1... d5 2.
// c4 e6 3. Nf3 the one game played Nf6, reaching P, the position after 1... Nf6 2. c4 e6 3.
// Nf3 d5: 1/4 that way. After 1... Nf6 2. c4, e6 twice and g6 once: 3/4 · 2/3 = 1/2 for e6,
// then d5 both times: P gets 1/2 more, 3/4 in all — one position, the repertoire's 4. Nc3
// answers it. After 4. Nc3 the three games reaching it (G1 by the other order too) played Be7
// twice and c6 once: gaps 3/4 · 2/3 = 1/2 (2 games) and 3/4 · 1/3 = 1/4; and 1/4 · 1 after 2...
// g6 3. Nc3 Bg7. A gap finder following paths would see P twice, at 1/4 and 1/2, neither the
// 3/4 of the position.
const BE7: &str = "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq -";
const C6: &str = "rnbqkb1r/pp3ppp/2p1pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq -";
const BG7: &str = "rnbqk2r/ppppppbp/5np1/8/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq -";

fn hand_db(dir: &Path) -> String {
    let db = dir.join("hand").to_str().unwrap().to_string();
    let pgn = fixture("repertoire-hand-db.pgn");
    run_ok(&["import", "--db", &db, pgn.to_str().unwrap()]);
    db
}

#[test]
fn gaps_by_hand_count_a_transposition_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = hand_db(dir.path());
    let rep = fixture("repertoire-hand.pgn");
    let rep = rep.to_str().unwrap();
    let r = run_json(&[
        "repertoire",
        "check",
        "--db",
        &db,
        "--rep",
        rep,
        "--side",
        "white",
        "--rare",
        "0.3",
        "--json",
    ]);
    assert_eq!(r["gapCount"], 3, "{r}");
    let be7 = gap_of(&r, BE7);
    assert!(close(be7["probability"].as_f64().unwrap(), 0.5), "{be7}");
    assert_eq!(be7["games"], 2);
    assert!(close(gap_of(&r, C6)["probability"].as_f64().unwrap(), 0.25));
    assert!(close(
        gap_of(&r, BG7)["probability"].as_f64().unwrap(),
        0.25
    ));
    assert_eq!(
        key(r["gaps"][0]["fen"].as_str().unwrap()),
        BE7,
        "the most likely first"
    );
    // Its line leads there (whichever of the two ways it names).
    let line: Vec<&str> = r["gaps"][0]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let there = run_json(&["explore", "--db", &db, "--play", &line.join(","), "--json"]);
    assert_eq!(key(there["fen"].as_str().unwrap()), BE7);
    // Rare at 30 %: 1... d5 (1/4; below it 2. c4, 2... e6, 3. Nf3) and 2... g6 (1/4; 3. Nc3).
    let mut rare: Vec<(String, f64, u64)> = r["rareLines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["san"].as_str().unwrap().to_string(),
                l["probability"].as_f64().unwrap(),
                l["positionsBelow"].as_u64().unwrap(),
            )
        })
        .collect();
    rare.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(rare.len(), 2, "{rare:?}");
    assert_eq!((rare[0].0.as_str(), rare[0].2), ("d5", 3));
    assert_eq!((rare[1].0.as_str(), rare[1].2), ("g6", 1));
    assert!(rare.iter().all(|l| close(l.1, 0.25)));
    // python-chess says the same.
    let want = oracle(&[
        "check",
        rep,
        "white",
        "20",
        "0.01",
        "10",
        "0.05",
        "0.3",
        fixture("repertoire-hand-db.pgn").to_str().unwrap(),
    ]);
    compare_check(&r, &want);
    // A minimum share above a gap leaves it out; below the 1/4 gaps' parents, nothing is
    // followed that far.
    let r = run_json(&[
        "repertoire",
        "check",
        "--db",
        &db,
        "--rep",
        rep,
        "--side",
        "white",
        "--min-share",
        "30%",
        "--json",
    ]);
    assert_eq!(r["gapCount"], 1);
    assert_eq!(key(r["gaps"][0]["fen"].as_str().unwrap()), BE7);
    // The table names the gap's line and probability.
    let text = String::from_utf8(
        run_ok(&[
            "repertoire",
            "check",
            "--db",
            &db,
            "--rep",
            rep,
            "--side",
            "white",
        ])
        .stdout,
    )
    .unwrap();
    assert!(text.contains("50.0%"), "{text}");
    assert!(text.contains("Nc3 Be7"), "{text}");
}

/// Every gap, bad move, rare line and contradiction of `got` is the oracle's, and no other.
fn compare_check(got: &Value, want: &Value) {
    let gaps = got["gaps"].as_array().unwrap();
    let want_gaps = want["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), want_gaps.len(), "gaps: {got}\n{want}");
    for w in want_gaps {
        let g = gap_of(got, &key(w["fen"].as_str().unwrap()));
        let (p, q) = (
            g["probability"].as_f64().unwrap(),
            w["probability"].as_f64().unwrap(),
        );
        assert!(close(p, q), "{}: {p} against {q}", w["fen"]);
        assert_eq!(g["games"], w["games"], "{}", w["fen"]);
        // The candidates: most games first, with their shares.
        for (c, wc) in g["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .zip(w["candidates"].as_array().unwrap())
        {
            assert_eq!(c["games"], wc[1], "{}", w["fen"]);
            assert!(close(c["share"].as_f64().unwrap(), wc[2].as_f64().unwrap()));
        }
    }
    let set = |v: &Value, field: &str| -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = v[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    key(x["fen"].as_str().unwrap()),
                    x["uci"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        out.sort();
        out
    };
    assert_eq!(set(got, "badMoves"), set(want, "badMoves"), "bad moves");
    for b in want["badMoves"].as_array().unwrap() {
        let g = got["badMoves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| {
                key(x["fen"].as_str().unwrap()) == key(b["fen"].as_str().unwrap())
                    && x["uci"] == b["uci"]
            })
            .unwrap();
        assert!(close(
            g["score"].as_f64().unwrap(),
            b["score"].as_f64().unwrap()
        ));
        assert!(close(
            g["positionScore"].as_f64().unwrap(),
            b["positionScore"].as_f64().unwrap()
        ));
        assert_eq!(g["games"], b["games"]);
    }
    assert_eq!(set(got, "rareLines"), set(want, "rareLines"), "rare lines");
    for l in want["rareLines"].as_array().unwrap() {
        let g = got["rareLines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| {
                key(x["fen"].as_str().unwrap()) == key(l["fen"].as_str().unwrap())
                    && x["uci"] == l["uci"]
            })
            .unwrap();
        assert!(close(
            g["probability"].as_f64().unwrap(),
            l["probability"].as_f64().unwrap()
        ));
        assert_eq!(g["games"], l["games"]);
    }
    let mut inc: Vec<String> = got["inconsistent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| key(i["fen"].as_str().unwrap()))
        .collect();
    let mut want_inc: Vec<String> = want["inconsistent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| key(f.as_str().unwrap()))
        .collect();
    inc.sort();
    want_inc.sort();
    assert_eq!(inc, want_inc, "positions answered differently");
}

#[test]
fn kasparovs_games_agree_with_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("k");
    let db = dbp.to_str().unwrap();
    let pgn = shared("pgn/pgnmentor/Kasparov.pgn");
    let pgn = pgn.to_str().unwrap();
    run_ok(&["import", "--db", db, pgn]);
    let rep = fixture("repertoire-qgd.pgn");
    let rep = rep.to_str().unwrap();
    let r = run_json(&[
        "repertoire",
        "check",
        "--db",
        db,
        "--rep",
        rep,
        "--side",
        "white",
        "--limit",
        "1000",
        "--min-games",
        "5",
        "--bad-margin",
        "2%",
        "--rare",
        "2%",
        "--json",
    ]);
    let want = oracle(&[
        "check", rep, "white", "20", "0.01", "5", "0.02", "0.02", pgn,
    ]);
    compare_check(&r, &want);
    // Real games reach some gap by two move orders: it is one gap, its paths summed.
    assert!(
        want["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["paths"].as_u64().unwrap() > 1),
        "no gap is reached by two move orders: the test tests nothing"
    );
    assert!(
        !r["badMoves"].as_array().unwrap().is_empty()
            || !r["rareLines"].as_array().unwrap().is_empty()
    );
    // The repertoire answers 1. d4 d5 2. c4 e6 3. Nf3 Nf6 with 4. Bg5, and the same position
    // after 1. d4 Nf6 2. c4 e6 3. Nf3 d5 with 4. Nc3.
    assert_eq!(
        r["inconsistent"].as_array().unwrap().len(),
        1,
        "{}",
        r["inconsistent"]
    );

    // Where Kasparov's games (every one of them, as White) left the repertoire.
    let g = run_json(&[
        "repertoire",
        "games",
        "--db",
        db,
        "--rep",
        rep,
        "--side",
        "white",
        "--json",
    ]);
    let want = oracle(&["games", rep, "white", pgn]);
    for (name, w) in want["counts"].as_object().unwrap() {
        let s = &g[name];
        let got = [
            &s["games"],
            &s["wins"],
            &s["draws"],
            &s["losses"],
            &s["unknown"],
        ]
        .map(|v| v.as_u64().unwrap());
        let w: Vec<u64> = w
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(got.to_vec(), w, "{name}");
    }
    let deps = g["departures"].as_array().unwrap();
    assert_eq!(deps.len(), want["departures"].as_object().unwrap().len());
    for d in deps {
        let k = format!(
            "{} {}",
            key(d["fen"].as_str().unwrap()),
            d["uci"].as_str().unwrap()
        );
        let w = &want["departures"][&k];
        assert_eq!(d["games"], w[0], "{k}");
        assert_eq!(d["who"], w[5], "{k}");
    }
    // A player's games with the repertoire's side only.
    let g = run_json(&[
        "repertoire",
        "games",
        "--db",
        db,
        "--rep",
        rep,
        "--side",
        "black",
        "--player",
        "Kasparov, Gary",
        "--limit",
        "10000",
        "--json",
    ]);
    let listed = g["games"].as_array().unwrap();
    assert!(!listed.is_empty());
    assert!(
        listed
            .iter()
            .all(|x| x["black"].as_str().unwrap().starts_with("Kasparov"))
    );
    let none = run_raw(&[
        "repertoire",
        "games",
        "--db",
        db,
        "--rep",
        rep,
        "--side",
        "white",
        "--player",
        "Nobody, Such",
    ]);
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("Nobody, Such"));
}

#[test]
fn the_explorer_marks_the_repertoires_moves_by_any_move_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = hand_db(dir.path());
    let rep = fixture("repertoire-qgd.pgn");
    let rep = rep.to_str().unwrap();
    // P by the order the repertoire's main line does not take: its answers are there.
    let e = run_json(&[
        "explore",
        "--db",
        &db,
        "--play",
        "d4,d5,c4,e6,g1f3,g8f6",
        "--rep",
        rep,
        "--rep-side",
        "white",
        "--json",
    ]);
    let o = &e["repertoire"];
    assert_eq!(o["known"], true);
    assert_eq!(o["yours"], true);
    let moves: Vec<&str> = o["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["Nc3", "Bg5"]);
    let text = String::from_utf8(
        run_ok(&[
            "explore",
            "--db",
            &db,
            "--play",
            "d4,d5,c4,e6,g1f3,g8f6",
            "--rep",
            rep,
        ])
        .stdout,
    )
    .unwrap();
    assert!(text.contains("Nc3 *"), "{text}");
    assert!(text.contains("Bg5 (no game)"), "{text}");
    // A position it does not have.
    let e = run_json(&[
        "explore", "--db", &db, "--play", "e4", "--rep", rep, "--json",
    ]);
    assert_eq!(e["repertoire"]["known"], false);
    // A file that is not there is an error naming it.
    let bad = run_raw(&["explore", "--db", &db, "--rep", "/nonexistent/rep.pgn"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/nonexistent/rep.pgn"));
}

#[test]
fn cards_from_a_repertoire_make_one_card_per_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = hand_db(dir.path());
    let rep = fixture("repertoire-hand.pgn");
    let rep = rep.to_str().unwrap();
    // White's positions with a move: the start, after 1... Nf6, after 1... d5, after 2... e6
    // (by either first move of Black's: two positions), after 2... g6, and P — reached by
    // both orders, one card: 7.
    let r = run_json(&[
        "cards", "from-rep", rep, "--db", &db, "--side", "white", "--json",
    ]);
    assert_eq!(r["created"], 7, "{r}");
    let again = run_json(&[
        "cards", "from-rep", rep, "--db", &db, "--side", "white", "--json",
    ]);
    assert_eq!(again["created"], 0);
    assert_eq!(again["unchanged"], 7);
}

#[test]
fn the_api_checks_a_repertoire_sent_as_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let db = hand_db(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine"]);
    let pgn = std::fs::read_to_string(fixture("repertoire-hand.pgn")).unwrap();
    let (status, r) = send(
        "POST",
        &format!("{}api/repertoire/check?side=white", server.url),
        &pgn,
    );
    assert_eq!(status, 200, "{r}");
    assert!(close(gap_of(&r, BE7)["probability"].as_f64().unwrap(), 0.5));
    let (status, t) = send("POST", &format!("{}api/repertoire", server.url), &pgn);
    assert_eq!(status, 200);
    assert!(
        t["positions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["moves"][0] == "d2d4")
    );
    for (url, body, want) in [
        ("api/repertoire/check?side=green", pgn.as_str(), "side"),
        ("api/repertoire/check?side=white", "", "body"),
        (
            "api/repertoire/check?side=white&minShare=2",
            pgn.as_str(),
            "minShare",
        ),
        (
            "api/repertoire/check?side=white",
            "1. e4 e5 2. Qxh8 *",
            "Qxh8",
        ),
        (
            "api/repertoire/games?side=white",
            "not a game at all",
            "no moves",
        ),
    ] {
        let (status, e) = send("POST", &format!("{}{url}", server.url), body);
        assert_eq!(status, 400, "{url}: {e}");
        assert!(e["error"].as_str().unwrap().contains(want), "{url}: {e}");
    }
}
