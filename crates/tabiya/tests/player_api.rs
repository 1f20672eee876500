//! `GET /api/player` over real HTTP, on TWIC 920: a player's card against python-chess's count
//! of the same PGN (`oracle/player_card.py`: games, results by colour, years, ratings, the
//! openings by the Lichess tables), the same JSON as `tabiya names show --json`, any case and
//! punctuation; a missing name, an Othello database (400) and an unknown player (404).

mod common;

use std::path::Path;

use common::server::{Server, get};
use common::{json, run_ok, shared};
use serde_json::Value;

/// The card python-chess counts for `name` in `pgn`.
fn oracle(name: &str, pgn: &Path) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::process::Command::new("python3")
        .arg(root.join("oracle/player_card.py"))
        .arg(name)
        .arg(root.join("data/eco"))
        .arg(pgn)
        .output()
        .expect("python3 with python-chess");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_players_card_over_http_counts_as_python_chess_does() {
    let dir = tempfile::tempdir().unwrap();
    let chess = dir.path().join("chess").display().to_string();
    let othello = dir.path().join("othello").display().to_string();
    let pgn = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", &chess, &pgn.display().to_string()]);
    run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    // (Grover,S plays the most games of the file, 14; Hoang Thanh Trang's name has spaces.)
    let players = ["Grover,S", "Hoang Thanh Trang"];
    let want: Vec<Value> = players.iter().map(|p| oracle(p, &pgn)).collect();
    // The command line's answer first: a served database is the server's alone.
    let cli = json(&["names", "show", "--db", &chess, "--json", players[0]]);

    let server = Server::start(&[
        "--db",
        &format!("chess={chess}"),
        "--db",
        &format!("othello={othello}"),
    ]);
    let u = |path: &str| format!("{}{path}", server.url);

    for (name, want) in players.iter().zip(&want) {
        let r = get(&u(&format!(
            "api/player?db=chess&name={}",
            query_value(name)
        )));
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_eq!(r.content_type, "application/json");
        let got = r.json();
        assert_eq!(got["names"], serde_json::json!([name]), "{name}");
        assert_eq!(got["games"], want["games"], "{name}");
        assert!(
            want["games"].as_u64().unwrap() > 0,
            "{name}: the oracle found no game"
        );
        for colour in ["white", "black"] {
            assert_eq!(got[colour], want[colour], "{name} as {colour}");
        }
        for k in ["firstYear", "lastYear", "ratingMin", "ratingMax"] {
            assert_eq!(got[k], want[k], "{name}: {k}");
        }
        assert_eq!(got["openings"], want["openings"], "{name}: openings");
        // Asked again: the cached answer, the same bytes.
        let again = get(&u(&format!(
            "api/player?db=chess&name={}",
            query_value(name)
        )));
        assert_eq!(again.body, r.body);
    }
    // Hand-checked too (grep of the file): Grover,S has 7 games as White and 7 as Black.
    assert_eq!(want[0]["white"]["games"], 7);
    assert_eq!(want[0]["black"]["games"], 7);

    // The command line's JSON; any case, punctuation and spacing find the same player.
    let first = get(&u("api/player?db=chess&name=Grover%2CS")).json();
    assert_eq!(first, cli);
    assert_eq!(get(&u("api/player?db=chess&name=grover+s")).json(), first);
    assert_eq!(get(&u("api/player?name=GROVER%2C%20S")).json(), first);

    // Bad requests: 400; no such player: 404; JSON errors saying what was wrong.
    for (path, status, kind, says) in [
        ("api/player?db=chess", 400, "badRequest", "name"),
        ("api/player?db=chess&name=", 400, "badRequest", "name"),
        ("api/player?db=chess&name=%20%20", 400, "badRequest", "name"),
        ("api/player?db=othello&name=x", 400, "badRequest", "Othello"),
        (
            "api/player?db=chess&name=Nobody%2CX",
            404,
            "notFound",
            "no player named \"Nobody,X\"",
        ),
        ("api/player?db=nosuch&name=x", 404, "notFound", "nosuch"),
    ] {
        let r = get(&u(path));
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert_eq!(r.content_type, "application/json", "{path}");
        let e = r.json();
        assert_eq!(e["kind"], kind, "{path}: {e}");
        assert!(e["error"].as_str().unwrap().contains(says), "{path}: {e}");
    }
}

/// `s` as a query value: letters and digits as they are, spaces `+`, the rest `%XX`.
fn query_value(s: &str) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => out.push(b as char),
            b' ' => out.push('+'),
            _ => write!(out, "%{b:02X}").expect("write to a string"),
        }
    }
    out
}
