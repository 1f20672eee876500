//! `tabiya note`: a note kept with a position is found by any move order, shown by
//! `explore` (and the API), written into exported games at the first move reaching the
//! position when asked, and deleted.

mod common;

use common::server::{Server, get, send};
use common::{json, run_ok, run_raw, shared};

#[test]
fn notes_follow_their_position_through_transpositions_and_into_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    let text = "**Queen's Indian** territory: b6 or d5.";
    let set = json(&[
        "note",
        "set",
        "--json",
        "--db",
        &db,
        "--play",
        "d2d4,g8f6,c2c4,e7e6,g1f3",
        text,
    ]);
    assert_eq!(set["note"], text);
    assert_eq!(set["replaced"], false);
    // Another move order reaches the same position: the same note.
    let other = "g1f3,g8f6,c2c4,e7e6,d2d4";
    let shown = json(&["note", "show", "--json", "--db", &db, "--play", other]);
    assert_eq!(shown["note"], text);
    assert_eq!(
        json(&["explore", "--json", "--db", &db, "--play", other])["note"],
        text
    );
    let out = run_ok(&["explore", "--db", &db, "--play", other]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("note: **Queen's Indian**"));
    // A position without one says so; the start position's explore has none.
    assert!(json(&["note", "show", "--json", "--db", &db])["note"].is_null());
    assert!(
        json(&["explore", "--json", "--db", &db])
            .get("note")
            .is_none()
    );

    // Exported with --notes: a comment at the first move reaching the position, in every
    // game that reaches it (and nowhere without --notes).
    let games = json(&[
        "games", "--json", "--db", &db, "--play", other, "--limit", "1",
    ]);
    let reaching = games["total"].as_u64().unwrap();
    assert!(reaching > 10, "{reaching}");
    let with = run_ok(&["export", "--db", &db, "--play", other, "--notes"]);
    let with = String::from_utf8_lossy(&with.stdout);
    assert_eq!(with.matches(text).count() as u64, reaching);
    let one = with.split("\n\n[Event").find(|g| g.contains(text)).unwrap();
    // The comment follows the fifth move of the game's own order (d4 Nf6 c4 e6 Nf3, or
    // another order of the same moves), before Black's fifth move.
    let at = one.find(&format!("{{{text}}}")).unwrap();
    assert!(one[..at].contains("3. "), "{one}");
    let without = run_ok(&["export", "--db", &db, "--play", other]);
    assert!(!String::from_utf8_lossy(&without.stdout).contains(text));

    // Replaced, then deleted.
    let again = json(&[
        "note",
        "set",
        "--json",
        "--db",
        &db,
        "--play",
        other,
        "Now shorter.",
    ]);
    assert_eq!(again["replaced"], true);
    let gone = json(&["note", "delete", "--json", "--db", &db, "--play", other]);
    assert_eq!(gone["replaced"], true);
    assert!(json(&["note", "show", "--json", "--db", &db, "--play", other])["note"].is_null());
    // An illegal line is refused with its reason.
    let out = run_raw(&["note", "set", "--db", &db, "--play", "e2e5", "x"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not legal"));
}

#[test]
fn notes_through_a_server_show_in_its_next_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    // The Sicilian after 1. e4 c5, by FEN (percent-encoded by hand: spaces and slashes).
    let fen =
        "rnbqkbnr%2Fpp1ppppp%2F8%2F2p5%2F4P3%2F8%2FPPPP1PPP%2FRNBQKBNR%20w%20KQkq%20-%200%202";
    {
        // Read only: the API refuses; `tabiya note set` on this machine hands the note over.
        let server = Server::start(&["--db", &db, "--no-engine"]);
        let url = format!("{}api/note?fen={fen}", server.url);
        let (status, body) = send("PUT", &url, r#"{"note": "from the web"}"#);
        assert_eq!(status, 403, "{body}");
        assert!(body["error"].as_str().unwrap().contains("--writable"));
        let out = run_ok(&["note", "set", "--db", &db, "--play", "e4 c5", "Sharp."]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("the server makes the change"));
        let shown = get(&format!("{}api/explore?play=e2e4,c7c5", server.url)).json();
        assert_eq!(shown["note"], "Sharp.");
    }
    {
        let server = Server::start(&["--db", &db, "--no-engine", "--writable"]);
        let url = format!("{}api/note?fen={fen}", server.url);
        let (status, body) = send("PUT", &url, r#"{"note": "Sharp, *very*."}"#);
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["replaced"], true);
        let shown = get(&format!("{}api/explore?fen={fen}", server.url)).json();
        assert_eq!(shown["note"], "Sharp, *very*.");
        // Bad calls: 400 with the reason, nothing changed.
        let (status, body) = send("PUT", &url, r#"{"text": "x"}"#);
        assert_eq!(status, 400, "{body}");
        assert!(body["error"].as_str().unwrap().contains("note"), "{body}");
        let (status, body) = send(
            "PUT",
            &format!("{}api/note?play=e2e5", server.url),
            r#"{"note": "x"}"#,
        );
        assert_eq!(status, 400, "{body}");
        let (status, body) = send("DELETE", &url, "");
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["replaced"], true);
        let shown = get(&format!("{}api/explore?fen={fen}", server.url)).json();
        assert!(shown.get("note").is_none(), "{shown}");
    }
    // Kept after the server stops.
    assert!(json(&["note", "show", "--json", "--db", &db, "--play", "e4 c5"])["note"].is_null());
}
