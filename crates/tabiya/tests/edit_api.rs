//! Games edited and deleted through a running server: refused unless it was started with
//! `--writable` (or the change comes from `tabiya edit`/`delete` on the same machine, which
//! hand it over), shown in the very next answer, and the same as the change made offline.

use serde_json::Value;

mod common;
use common::server::{Server, get, send};
use common::{json, run_ok, shared};

fn import(dir: &std::path::Path, name: &str) -> String {
    let db = dir.join(name).display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    db
}

#[test]
fn changes_through_the_api_show_at_once_and_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let served = import(dir.path(), "served");
    let offline = import(dir.path(), "offline");
    // The same changes offline.
    // (Games 2, 191, 147, 75 and 77 are among the best of 1. e4: Svidler–Navara,
    // Nepomniachtchi–Andreikin, Jakovenko–Khismatullin, Popov–Nepomniachtchi,
    // Inarkiev–Timofeev.)
    run_ok(&[
        "edit",
        "--db",
        &offline,
        "--game",
        "191",
        "--set",
        "Result=0-1",
        "--set",
        "WhiteElo=2999",
    ]);
    run_ok(&["edit", "--db", &offline, "--game", "2", "--set", "Result=*"]);
    run_ok(&["delete", "--db", &offline, "--game", "147", "75", "77"]);
    let want = json(&["explore", "--json", "--db", &offline, "--play", "e2e4"]);

    {
        // Read only: the API refuses, `tabiya edit` hands its change over.
        let server = Server::start(&["--db", &served, "--no-engine"]);
        // The page learns that it may not offer changes.
        let catalog = get(&format!("{}api/databases", server.url)).json();
        assert_eq!(catalog["writable"], false, "{catalog}");
        let before = get(&format!("{}api/explore?play=e2e4", server.url)).json();
        let (status, body) = send(
            "PATCH",
            &format!("{}api/game/191", server.url),
            r#"{"set": {"Result": "0-1"}}"#,
        );
        assert_eq!(status, 403);
        assert!(
            body["error"].as_str().unwrap().contains("--writable"),
            "{body}"
        );
        let (status, _) = send("DELETE", &format!("{}api/game/147", server.url), "");
        assert_eq!(status, 403);
        assert_eq!(
            get(&format!("{}api/explore?play=e2e4", server.url)).json(),
            before
        );
        let out = run_ok(&[
            "edit", "--db", &served, "--game", "2", "--set", "Result=*", "--json",
        ]);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("the server makes the change"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let edited: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(edited["changed"], true);
        let now = get(&format!("{}api/explore?play=e2e4", server.url)).json();
        assert_ne!(now, before, "the next answer shows the change");
    }

    let server = Server::start(&["--db", &served, "--no-engine", "--writable"]);
    let u = |p: &str| format!("{}{p}", server.url);
    assert_eq!(get(&u("api/databases")).json()["writable"], true);
    let (status, body) = send(
        "PATCH",
        &u("api/game/191"),
        r#"{"set": {"Result": "0-1", "WhiteElo": "2999"}}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["changed"], true);
    let (status, body) = send("DELETE", &u("api/game/147"), "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["games"], 1);
    let (status, body) = send("POST", &u("api/games/delete"), r#"{"ids": [75, 77]}"#);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["games"], 2);
    let got = get(&u("api/explore?play=e2e4")).json();
    for k in ["white", "draws", "black", "averageRating", "moves"] {
        assert_eq!(
            got[k], want[k],
            "{k}: the answer of the same changes made offline"
        );
    }
    // Requests' faults are 4xx with reasons.
    for (method, path, body, status, says) in [
        ("DELETE", "api/game/147", "", 404, "no game 147"),
        (
            "PATCH",
            "api/game/7",
            r#"{"set": {"Result": "2-0"}}"#,
            400,
            "a result is",
        ),
        (
            "PATCH",
            "api/game/7",
            r#"{"sett": {}}"#,
            400,
            "an edit is JSON",
        ),
        (
            "PATCH",
            "api/game/99999",
            r#"{"set": {"Result": "1-0"}}"#,
            404,
            "no game 99999",
        ),
        (
            "PATCH",
            "api/game/x",
            r#"{"set": {"Result": "1-0"}}"#,
            404,
            "no game",
        ),
        (
            "POST",
            "api/games/delete",
            r#"[1]"#,
            400,
            "a deletion is JSON",
        ),
    ] {
        let (s, b) = send(method, &u(path), body);
        assert_eq!(s, status, "{method} {path}: {b}");
        assert!(
            b["error"].as_str().unwrap_or("").contains(says),
            "{method} {path}: {b}"
        );
    }
}
