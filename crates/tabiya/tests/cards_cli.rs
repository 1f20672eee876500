//! `tabiya cards` and `tabiya train` (answers piped in): cards by hand and from a line merge
//! by position (any move order), cards from a Polyglot book and from the database's most
//! played moves are what `oracle/cards_oracle.py` (python-chess) makes of the same book and
//! PGN, and answers reschedule cards as SM-2's published formulas give by hand. The clock is
//! set with `TABIYA_NOW`.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{BIN, shared};
use serde_json::Value;

/// Runs `tabiya` at a time (`TABIYA_NOW`), with `input` on its standard input.
fn at(now: &str, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("TABIYA_NOW", now)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabiya");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn ok(now: &str, args: &[&str], input: &str) -> String {
    let out = at(now, args, input);
    assert!(
        out.status.success(),
        "tabiya {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_at(now: &str, args: &[&str]) -> Value {
    let text = ok(now, args, "");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

fn oracle(args: &[&str]) -> Value {
    common::oracle_json("cards_oracle.py", args)
}

/// Cards by the position part of their FEN (no move counters), with their moves.
fn by_position(cards: &Value) -> BTreeMap<String, Vec<String>> {
    cards
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let fen: Vec<&str> = c["fen"].as_str().unwrap().split(' ').take(4).collect();
            let moves = c["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.get("uci").unwrap_or(m).as_str().unwrap().to_string())
                .collect();
            (fen.join(" "), moves)
        })
        .collect()
}

fn new_db(dir: &Path) -> String {
    let db = dir.join("db").display().to_string();
    common::run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    db
}

const DAY1: &str = "2026-03-01T09:00:00Z";

#[test]
fn cards_by_hand_and_from_lines_gather_by_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let line = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6";
    let made = json_at(
        DAY1,
        &[
            "cards",
            "from-line",
            "--json",
            "--db",
            &db,
            "--play",
            line,
            "--side",
            "black",
        ],
    );
    let want = oracle(&["line", "black", line]);
    assert_eq!(by_position(&made["cards"]), by_position(&want));
    assert_eq!(made["created"], 5);
    assert_eq!(made["cards"][0]["side"], "black");
    assert_eq!(made["cards"][0]["moves"][0]["san"], "c5");
    assert_eq!(made["cards"][1]["lineText"], "1. e4 c5 2. Nf3");
    assert_eq!(made["cards"][4]["line"].as_array().unwrap().len(), 9);

    // The Najdorf's position by another move order, by hand with a second move: the card
    // of the line gets it (SAN given, UCI kept; python-chess's SAN).
    let other = "Nf3 c5 e4 d6 d4 cxd4 Nxd4 Nf6 Nc3";
    let added = json_at(
        DAY1,
        &[
            "cards",
            "add",
            "--json",
            "--db",
            &db,
            "--play",
            other,
            "--move",
            "g6",
            "--move",
            "a7a6",
            "--note",
            "Najdorf or Dragon",
        ],
    );
    assert_eq!(
        (&added["created"], &added["extended"]),
        (&0.into(), &1.into())
    );
    let card = &added["cards"][0];
    assert_eq!(card["outcome"], "extended");
    assert_eq!(card["id"], made["cards"][4]["id"]);
    let ucis: Vec<&str> = card["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis, ["a7a6", "g7g6"]);
    assert_eq!(card["note"], "Najdorf or Dragon");
    // The line that first reached it is kept.
    assert_eq!(
        card["lineText"],
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3"
    );

    // A line through a position twice (knights out and back): one card, its move once.
    let back = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6";
    let made = json_at(
        DAY1,
        &[
            "cards",
            "from-line",
            "--json",
            "--db",
            &db,
            "--play",
            back,
            "--side",
            "white",
        ],
    );
    assert_eq!(
        by_position(&made["cards"]),
        by_position(&oracle(&["line", "white", back]))
    );
    assert_eq!(made["cards"].as_array().unwrap().len(), 2);
    assert_eq!(made["created"], 2);

    // Listed due first; a FEN card; shown with its note; deleted.
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let one = json_at(
        DAY1,
        &[
            "cards", "add", "--json", "--db", &db, "--fen", fen, "--move", "Ng5", "--move", "d2d3",
        ],
    );
    let id = one["cards"][0]["id"].as_u64().unwrap().to_string();
    assert_eq!(one["cards"][0]["line"].as_array().unwrap().len(), 0);
    let list = json_at(DAY1, &["cards", "list", "--json", "--db", &db]);
    assert_eq!(list["total"], 8);
    assert_eq!(list["due"], 8);
    let white = json_at(
        DAY1,
        &["cards", "list", "--json", "--db", &db, "--side", "white"],
    );
    assert_eq!(white["total"], 3);
    let shown = json_at(DAY1, &["cards", "show", &id, "--json", "--db", &db]);
    assert_eq!(shown["fen"], fen);
    let text = ok(DAY1, &["cards", "show", &id, "--db", &db], "");
    assert!(text.contains("White to move: Ng5 or d3"), "{text}");
    assert!(text.contains("4  · · ♗ · ♙ · · ·"), "{text}");
    ok(DAY1, &["cards", "delete", &id, "--db", &db], "");
    let out = at(DAY1, &["cards", "show", &id, "--db", &db], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no card {id}")));

    // Bad input: clear errors, nothing made.
    for (args, says) in [
        (
            vec!["cards", "add", "--db", &db, "--play", "e4", "--move", "e4"],
            "not a legal move",
        ),
        (
            vec![
                "cards", "add", "--db", &db, "--play", "e4 e4", "--move", "e5",
            ],
            "not legal",
        ),
        (
            vec![
                "cards",
                "from-line",
                "--db",
                &db,
                "--play",
                "e4",
                "--side",
                "black",
            ],
            "no move of Black's",
        ),
    ] {
        let out = at(DAY1, &args, "");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let out = at("soon", &["cards", "list", "--db", &db], "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("TABIYA_NOW"));
    assert_eq!(
        json_at(DAY1, &["cards", "list", "--json", "--db", &db])["total"],
        7
    );
}

#[test]
fn cards_from_a_book_and_from_the_database_are_what_python_chess_walks() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let book = shared("polyglot/gm2001.bin").display().to_string();
    for (side, depth, best) in [("black", "4", "1"), ("white", "5", "2")] {
        let made = json_at(
            DAY1,
            &[
                "cards",
                "from-book",
                &book,
                "--json",
                "--db",
                &db,
                "--side",
                side,
                "--depth",
                depth,
                "--best",
                best,
            ],
        );
        let want = oracle(&["book", side, depth, best, &book]);
        let got = by_position(&made["cards"]);
        assert_eq!(got, by_position(&want), "{side} {depth}");
        assert!(got.len() > 10, "{side}: {}", got.len());
        assert!(made["cards"][0]["source"].as_str().unwrap() == "book gm2001.bin");
    }

    // The database's most played moves (TWIC 920), White's side, moves of 5 games or more.
    let fresh = tempfile::tempdir().unwrap();
    let db = new_db(fresh.path());
    let made = json_at(
        DAY1,
        &[
            "cards",
            "from-db",
            "--json",
            "--db",
            &db,
            "--side",
            "white",
            "--depth",
            "6",
            "--min-games",
            "5",
        ],
    );
    let pgn = shared("pgn/twic/twic0920.pgn").display().to_string();
    let want = oracle(&["db", "white", "6", "1", "5", &pgn]);
    assert_eq!(by_position(&made["cards"]), by_position(&want));
    assert!(
        made["created"].as_u64().unwrap() > 10,
        "{}",
        made["created"]
    );
    assert!(made.get("truncated").is_none());
    // A limit of cards stops the walk and says so.
    let cut = json_at(
        DAY1,
        &[
            "cards",
            "from-db",
            "--json",
            "--db",
            &db,
            "--side",
            "black",
            "--depth",
            "6",
            "--min-games",
            "5",
            "--max-cards",
            "3",
        ],
    );
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["cards"].as_array().unwrap().len(), 3);
}

/// A card's schedule and answers, as `cards show --json` gives them.
fn schedule(db: &str, id: &str, now: &str) -> (Value, Vec<Value>) {
    let c = json_at(now, &["cards", "show", id, "--json", "--db", db]);
    (
        c["schedule"].clone(),
        c["history"].as_array().cloned().unwrap_or_default(),
    )
}

#[test]
fn training_reschedules_by_sm2() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    // Two cards: White's 1. e4 (or d4) and Black's reply to 1. e4, with a note.
    ok(
        DAY1,
        &["cards", "add", "--db", &db, "--move", "e4", "--move", "d4"],
        "",
    );
    ok(
        DAY1,
        &[
            "cards",
            "add",
            "--db",
            &db,
            "--play",
            "e4",
            "--move",
            "c5",
            "--note",
            "The Sicilian.",
        ],
        "",
    );
    // Day 1: e4 right (grade 4), then a typo (asked again, not counted), then a wrong
    // move for Black (grade 1, a lapse), then the same-day repetition answered right.
    let out = ok(DAY1, &["train", "--db", &db], "e2e4\nNf9\ne5\nc7c5\n");
    assert!(out.contains("2 cards due of 2"), "{out}");
    assert!(out.contains("✓ Right: e4 (also right: d4)."), "{out}");
    assert!(out.contains("Next review in 1 day (2026-03-02)."), "{out}");
    assert!(out.contains("\"Nf9\" is not a move"), "{out}");
    assert!(
        out.contains("✗ Wrong: you played e5; the move is c5."),
        "{out}"
    );
    assert!(out.contains("Note: The Sicilian."), "{out}");
    assert!(
        out.contains("Again, until each scores 4 or more: 1 card."),
        "{out}"
    );
    assert!(
        out.contains("Repeated today: the schedule stays (next review 2026-03-02)"),
        "{out}"
    );
    assert!(
        out.contains("3 answers: 2 right, 1 wrong. 0 cards due now of 2."),
        "{out}"
    );
    // Black's card is drawn from Black's side: rank 1 on top, files h to a.
    assert!(out.contains("1  ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖"), "{out}");
    assert!(out.contains("   h g f e d c b a"), "{out}");

    // By hand (SM-2): White's card, q=4 → n=1, I(1)=1 day, EF 2.5.
    let (s, h) = schedule(&db, "1", DAY1);
    assert_eq!(
        (s["repetitions"].as_u64(), s["intervalDays"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(s["easiness"], 2.5);
    assert_eq!(h.len(), 1);
    assert_eq!(
        (h[0]["given"].as_str(), h[0]["grade"].as_u64()),
        (Some("e2e4"), Some(4))
    );
    // Black's card: q=1 → n=0, I=1, EF 2.5 − 0.54 = 1.96, one lapse; the drill (q=4)
    // moved nothing but the flag.
    let (s, h) = schedule(&db, "2", DAY1);
    assert_eq!(s["easiness"], 1.96);
    assert_eq!(
        (s["repetitions"].as_u64(), s["lapses"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(s["again"], false);
    let grades: Vec<(u64, bool, bool)> = h
        .iter()
        .map(|r| {
            (
                r["grade"].as_u64().unwrap(),
                r["correct"].as_bool().unwrap(),
                r["drill"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(grades, [(1, false, false), (4, true, true)]);

    // Nothing more is due on day 1.
    let out = ok(DAY1, &["train", "--db", &db], "");
    assert!(out.contains("No card is due (2 cards in all)"), "{out}");

    // Day 2: e4 again, marked easy (q=5: I(2)=6 days, EF 2.6); Black's card only.
    let day2 = "2026-03-02T09:30:00Z";
    let out = ok(day2, &["train", "--db", &db, "--side", "white"], "e4!\n");
    assert!(out.contains("1 card due of 1"), "{out}");
    assert!(out.contains("Next review in 6 days (2026-03-08)."), "{out}");
    let (s, _) = schedule(&db, "1", day2);
    assert_eq!(
        (s["intervalDays"].as_u64(), s["easiness"].as_f64()),
        (Some(6), Some(2.6))
    );
    // Day 8: q=4 → ⌈6 × 2.6⌉ = ⌈15.6⌉ = 16 days (EF stays 2.6).
    let day8 = "2026-03-08T10:00:00Z";
    let out = ok(day8, &["train", "--db", &db, "--side", "white"], "d2d4\n");
    assert!(
        out.contains("Next review in 16 days (2026-03-24)."),
        "{out}"
    );
    assert!(
        out.contains("1 answer: 1 right, 0 wrong. 0 cards due now of 1."),
        "{out}"
    );
    // Black's card (due since day 2), right but hard (q=3): n=1, I(1)=1 day, EF 1.96 − 0.14
    // = 1.82; asked again the same day, but --limit 1 ends the session.
    let out = ok(day8, &["train", "--db", &db, "--limit", "1"], "c5?\n");
    assert!(
        out.contains("Card 1/1 · #2 · Black to move · after 1. e4"),
        "{out}"
    );
    assert!(out.contains("asked again today (graded 3)"), "{out}");
    assert!(
        out.contains("1 answer: 1 right, 0 wrong. 1 card due now of 2."),
        "{out}"
    );
    // q quits, keeping what was answered.
    let out = ok(day8, &["train", "--db", &db], "q\n");
    assert!(out.contains("Stopped after 0 answers"), "{out}");
    let (s, h) = schedule(&db, "2", day8);
    assert_eq!(
        (
            s["intervalDays"].as_u64(),
            s["easiness"].as_f64(),
            s["again"].as_bool()
        ),
        (Some(1), Some(1.82), Some(true))
    );
    assert_eq!(h.len(), 3);
    let stats = json_at(day8, &["cards", "stats", "--json", "--db", &db]);
    assert_eq!(stats["cards"], 2);
    assert_eq!(stats["due"], 1);
    // Six answers (three a card), five right.
    assert_eq!(stats["answers"], 6);
    assert_eq!(stats["right"], 5);
    assert_eq!(stats["successRate"].as_f64(), Some(5.0 / 6.0));
    assert_eq!(stats["lapses"], 1);
}

#[test]
fn othello_databases_have_no_cards() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("othello").display().to_string();
    common::run_ok(&[
        "import",
        "--db",
        &db,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    for args in [
        vec!["cards", "add", "--db", &db, "--move", "e4"],
        vec!["cards", "list", "--db", &db],
        vec!["train", "--db", &db],
    ] {
        let out = at(DAY1, &args, "");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("Othello database: flashcards are kept on chess positions"),
            "{args:?}: {err}"
        );
    }
}
