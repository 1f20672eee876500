//! Flashcards through `tabiya serve`: `GET /api/cards` gives what `tabiya cards list --json`
//! gives; `POST /api/cards/{id}/answer` is refused (403) by a read-only server, but
//! `tabiya train` on this machine hands its answers over with the server's secret; a
//! `--writable` server takes answers (SAN or UCI), grades and reschedules them (SM-2 by
//! hand), and answers bad calls with a 4xx saying why.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::server::{Server, get};
use common::{BIN, shared};
use serde_json::Value;

const NOW: &str = "2026-06-10T12:00:00Z";

fn tabiya(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("TABIYA_NOW", NOW)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// POSTed as the server's own page does (its grant, a JSON body).
fn post(url: &str, body: &str) -> (u16, Value) {
    common::server::send("POST", url, body)
}

#[test]
fn cards_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/annotated.pgn");
    common::run_ok(&["import", "--db", &db, &fixture.display().to_string()]);
    let (ok, _, err) = tabiya(
        &[
            "cards",
            "from-line",
            "--db",
            &db,
            "--play",
            "e4 c5 Nf3 d6 d4",
            "--side",
            "white",
        ],
        "",
    );
    assert!(ok, "{err}");
    let (ok, _, err) = tabiya(
        &[
            "cards",
            "add",
            "--db",
            &db,
            "--play",
            "e4",
            "--move",
            "e5",
            "--move",
            "c5",
            "--note",
            "Open or Sicilian.",
        ],
        "",
    );
    assert!(ok, "{err}");
    let (ok, listed, _) = tabiya(&["cards", "list", "--json", "--db", &db], "");
    assert!(ok);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["total"], 4);

    let env = [("TABIYA_NOW", NOW)];
    {
        let server = Server::start_with_env(&["--db", &db, "--no-engine"], &env);
        let cards = |q: &str| get(&format!("{}api/cards{q}", server.url));
        // The same JSON as the command line's.
        assert_eq!(cards("").json(), listed);
        let black = cards("?due=1&side=black").json();
        assert_eq!((&black["total"], &black["due"]), (&1.into(), &1.into()));
        assert_eq!(black["cards"][0]["note"], "Open or Sicilian.");
        assert_eq!(
            cards("?limit=2").json()["cards"].as_array().unwrap().len(),
            2
        );
        for (q, says) in [
            ("?due=maybe", "give 1 or 0"),
            ("?side=red", "give white or black"),
            ("?limit=99999", "at most 10000"),
            ("?db=nope", "no such database"),
        ] {
            let r = cards(q);
            assert!(r.status == 400 || r.status == 404, "{q}: {}", r.status);
            assert!(
                r.json()["error"].as_str().unwrap().contains(says),
                "{q}: {}",
                r.text()
            );
        }

        // Read only: the API refuses answers.
        let (status, body) = post(
            &format!("{}api/cards/1/answer", server.url),
            r#"{"move": "e4"}"#,
        );
        assert_eq!(status, 403, "{body}");
        assert!(body["error"].as_str().unwrap().contains("--writable"));
        // tabiya train here hands its answers to the server (with the secret).
        let (ok, out, err) = tabiya(&["train", "--db", &db, "--limit", "1"], "e4\n");
        assert!(ok, "{err}\n{out}");
        assert!(err.contains("the answers go to the server"), "{err}");
        assert!(err.contains(&server.url), "{err}");
        assert!(out.contains("✓ Right: e4."), "{out}");
        assert!(out.contains("Next review in 1 day (2026-06-11)."), "{out}");
        let first = &cards("").json()["cards"];
        let one = first
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == 1)
            .unwrap();
        assert_eq!(one["schedule"]["reviews"], 1);
        assert_eq!(one["isDue"], false);
        // Cards are made only here: a clear message names the server.
        let (ok, _, err) = tabiya(&["cards", "add", "--db", &db, "--move", "d4"], "");
        assert!(!ok);
        assert!(
            err.contains(&format!("is served by {}", server.url)),
            "{err}"
        );
        assert!(err.contains("stop the server"), "{err}");
        let (ok, _, err) = tabiya(&["cards", "list", "--db", &db], "");
        assert!(!ok);
        assert!(err.contains(&server.url), "{err}");
    }
    {
        let server = Server::start_with_env(&["--db", &db, "--no-engine", "--writable"], &env);
        let answer =
            |id: &str, body: &str| post(&format!("{}api/cards/{id}/answer", server.url), body);
        // Card 2: White after 1. e4 c5 2. Nf3? The line's cards: 1 (start), 2 (after 1. e4
        // c5), 3 (after 2. Nf3 d6); 4 is Black's after 1. e4.
        let (status, v) = answer("2", r#"{"move": "g1f3"}"#);
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            (&v["correct"], &v["grade"], &v["drill"]),
            (&true.into(), &4.into(), &false.into())
        );
        assert_eq!(v["played"]["san"], "Nf3");
        assert_eq!(v["card"]["due"], "2026-06-11T12:00:00Z");
        // A wrong answer: the expected move is said; q=1, a lapse, EF 2.5 − 0.54.
        let (status, v) = answer("3", r#"{"move": "Bb5+"}"#);
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["correct"], false);
        assert_eq!(v["expected"][0]["san"], "d4");
        assert_eq!(v["expected"][0]["uci"], "d2d4");
        assert_eq!(v["card"]["schedule"]["easiness"], 1.96);
        assert_eq!(v["card"]["schedule"]["lapses"], 1);
        assert_eq!(v["card"]["schedule"]["again"], true);
        // Black's card: either move is right; a grade given (5: EF 2.6).
        let (status, v) = answer("4", r#"{"move": "c5", "grade": 5}"#);
        assert_eq!(status, 200, "{v}");
        assert_eq!((&v["correct"], &v["grade"]), (&true.into(), &5.into()));
        assert_eq!(v["card"]["schedule"]["easiness"], 2.6);
        assert_eq!(v["card"]["note"], "Open or Sicilian.");
        // Bad calls: 4xx with the reason, nothing kept.
        for (id, body, status, says) in [
            ("3", r#"{"move": "e2e5"}"#, 400, "not a legal move"),
            ("3", r#"{"mov": "d4"}"#, 400, "an answer is JSON like"),
            (
                "3",
                r#"{"move": "d4", "grade": 1}"#,
                400,
                "grade 1 is for a wrong answer",
            ),
            ("3", r#"{"move": "d4", "grade": 9}"#, 400, "give 0 to 5"),
            ("99", r#"{"move": "d4"}"#, 404, "no card 99"),
            ("x", r#"{"move": "d4"}"#, 404, "no card"),
        ] {
            let (got, v) = answer(id, body);
            assert_eq!(got, status, "{id} {body}: {v}");
            assert!(
                v["error"].as_str().unwrap().contains(says),
                "{id} {body}: {v}"
            );
        }
        let three = get(&format!("{}api/cards?due=1", server.url)).json();
        // Card 3 is asked again today (after the day's due cards: none left).
        let due: Vec<u64> = three["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_u64().unwrap())
            .collect();
        assert_eq!(due, [3]);
    }
    // Kept after the server stops: four answers in all.
    let (ok, stats, _) = tabiya(&["cards", "stats", "--json", "--db", &db], "");
    assert!(ok);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!((&stats["answers"], &stats["right"]), (&4.into(), &3.into()));

    // An Othello database has no cards.
    let othello = dir.path().join("othello").display().to_string();
    common::run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    let server = Server::start_with_env(&["--db", &othello, "--no-engine"], &env);
    let r = get(&format!("{}api/cards", server.url));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Othello"), "{}", r.text());
}
