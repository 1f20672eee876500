//! Who may ask a running `tabiya serve` what (docs/api.md, "Security"): the `Host` a request
//! names (DNS rebinding), the page it comes from (`Origin`, `Sec-Fetch-Site`), its body's
//! type, the grant a change needs (the page's, the server's secret), which answers are
//! shared with other origins, and `--writable` on an address other machines reach. Then
//! real pages of other sites in Chromium (`tests/page/test_cross_site.py`).

mod common;

use std::path::Path;
use std::process::Command;

use common::server::{Server, get, get_with, send, send_with};
use common::{BIN, run_ok};

/// The sample games with a note on 1. e4, in `dir`.
fn demo_db(dir: &Path) -> String {
    let db = dir.join("demo").display().to_string();
    run_ok(&["demo", "--db", &db, "--no-serve"]);
    run_ok(&["note", "set", "--db", &db, "--play", "e2e4", "King's pawn."]);
    db
}

fn games(server: &Server) -> u64 {
    get(&format!("{}api/databases", server.url)).json()["databases"][0]["games"]
        .as_u64()
        .unwrap()
}

/// `http://127.0.0.1:PORT` of a server's URL.
fn host_of(server: &Server) -> String {
    server
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

#[test]
fn a_name_the_server_was_not_given_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let server = Server::start(&[
        "--db",
        &format!("demo={db}"),
        "--no-engine",
        "--allow-host",
        "explorer.example.org",
    ]);
    let port = host_of(&server).rsplit(':').next().unwrap().to_string();
    let u = |p: &str| format!("{}{p}", server.url);
    for (host, allowed) in [
        (format!("127.0.0.1:{port}"), true),
        (format!("localhost:{port}"), true),
        (format!("[::1]:{port}"), true),
        ("explorer.example.org".to_string(), true),
        (format!("Explorer.Example.ORG:{port}"), true),
        (format!("rebind.example:{port}"), false),
        (format!("127.0.0.1.rebind.example:{port}"), false),
        (format!("localhost.rebind.example:{port}"), false),
    ] {
        for path in ["api/explore?db=demo&play=e2e4", "", "masters", "api/grant"] {
            let r = get_with(&u(path), &[("Host", &host)]);
            if allowed {
                assert!(
                    !r.text().contains("--allow-host"),
                    "{host} {path}: {}",
                    r.text()
                );
            } else {
                assert_eq!(r.status, 403, "{host} {path}: {}", r.text());
                let e = r.json();
                let said = e["error"].as_str().unwrap();
                assert!(said.contains("--allow-host"), "{said}");
                assert!(!r.text().contains("King's pawn"), "{host} {path}");
            }
        }
    }
}

#[test]
fn a_change_needs_a_grant_a_json_body_and_the_servers_own_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let server = Server::start(&["--db", &format!("demo={db}"), "--no-engine", "--writable"]);
    let u = |p: &str| format!("{}{p}", server.url);
    let n = games(&server);
    let grant = get(&u("api/grant"));
    assert_eq!(grant.status, 200);
    assert_eq!(grant.header("cache-control"), Some("no-store"));
    let grant = grant.json()["grant"].as_str().unwrap().to_string();
    assert_eq!(grant.len(), 32, "128 bits as hex");
    let bearer = format!("Bearer {grant}");
    let everything = r#"{"where": "plies >= 0"}"#;
    let delete = u("api/games/delete?db=demo");
    let json = ("Content-Type", "application/json");
    // No grant, a wrong one, one of the right length but not it: refused.
    let wrong = format!("Bearer {}", "0".repeat(32));
    for headers in [
        vec![json],
        vec![json, ("Authorization", "Bearer nope")],
        vec![json, ("Authorization", wrong.as_str())],
        vec![json, ("Authorization", grant.as_str())],
    ] {
        let (status, e) = send_with("POST", &delete, everything, &headers);
        assert_eq!(status, 403, "{headers:?}: {e}");
        assert!(e["error"].as_str().unwrap().contains("grant"), "{e}");
    }
    // A body typed as anything but JSON: refused, whatever it holds.
    for ty in [
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
    ] {
        let (status, e) = send_with(
            "POST",
            &delete,
            everything,
            &[("Content-Type", ty), ("Authorization", &bearer)],
        );
        assert_eq!(status, 415, "{ty}: {e}");
        assert!(e["error"].as_str().unwrap().contains("application/json"));
    }
    let (status, _) = send_with("POST", &delete, everything, &[("Authorization", &bearer)]);
    assert_eq!(status, 415, "no Content-Type at all");
    // Another page, even one showing the grant: refused.
    for (name, value) in [
        ("Origin", "http://rebind.example"),
        ("Origin", "null"),
        ("Origin", "http://127.0.0.1:1"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let (status, e) = send_with(
            "POST",
            &delete,
            everything,
            &[json, ("Authorization", &bearer), (name, value)],
        );
        assert_eq!(status, 403, "{name}: {value}: {e}");
    }
    for method in ["PATCH", "PUT", "DELETE"] {
        let url = if method == "PUT" {
            u("api/note?db=demo&play=e2e4")
        } else {
            u("api/game/1?db=demo")
        };
        let (status, e) = send_with(method, &url, r#"{"note": "x"}"#, &[json]);
        assert_eq!(status, 403, "{method} without a grant: {e}");
    }
    assert_eq!(games(&server), n, "nothing deleted");
    // The server's own page: its origin, the grant, JSON.
    let origin = server.url.trim_end_matches('/').to_string();
    let (status, e) = send_with(
        "PATCH",
        &u("api/game/1?db=demo"),
        r#"{"set": {"Annotator": "the page"}}"#,
        &[
            json,
            ("Authorization", &bearer),
            ("Origin", &origin),
            ("Sec-Fetch-Site", "same-origin"),
        ],
    );
    assert_eq!(status, 200, "{e}");
    // A program on the machine: the server's secret from serve.json (no Origin).
    let secret: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&db).join("serve.json")).unwrap()).unwrap();
    let secret = format!("Bearer {}", secret["token"].as_str().unwrap());
    let (status, e) = send_with(
        "DELETE",
        &u("api/game/2?db=demo"),
        "",
        &[("Authorization", &secret)],
    );
    assert_eq!(status, 200, "{e}");
    assert_eq!(games(&server), n - 1);
    // The page's grant never imports: the hand-over of imports takes the secret only.
    let (status, _) = send_with(
        "POST",
        &u("api/admin/import"),
        r#"{"db": "demo", "files": ["/etc/passwd"]}"#,
        &[json, ("Authorization", &bearer)],
    );
    assert_eq!(status, 401);
}

#[test]
fn a_read_only_server_gives_no_grant_and_changes_only_for_its_secret() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let server = Server::start(&["--db", &format!("demo={db}"), "--no-engine"]);
    let u = |p: &str| format!("{}{p}", server.url);
    let r = get(&u("api/grant"));
    assert_eq!(r.status, 403);
    assert!(r.json()["error"].as_str().unwrap().contains("--writable"));
    let (status, e) = send("PATCH", &u("api/game/1?db=demo"), r#"{"set": {"X": "y"}}"#);
    assert_eq!(status, 403, "{e}");
    assert!(e["error"].as_str().unwrap().contains("--writable"), "{e}");
    // `tabiya edit` on the same machine hands its change over with the secret.
    run_ok(&["edit", "--db", &db, "--game", "1", "--set", "Annotator=cli"]);
    let g = get(&u("api/game/1?db=demo")).json();
    assert!(g.to_string().contains("cli"), "{g}");
}

#[test]
fn private_answers_are_shared_with_no_other_origin_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let origin = ("Origin", "https://elsewhere.example");
    let server = Server::start(&["--db", &format!("demo={db}"), "--no-engine", "--writable"]);
    let u = |p: &str| format!("{}{p}", server.url);
    // The Lichess-compatible endpoints: open to every origin, as Lichess's.
    let r = get_with(&u("masters?play=e2e4"), &[origin]);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    // Tabiya's own: notes, cards, preparation, the page, the grant — to no other origin.
    for path in [
        "api/explore?db=demo&play=e2e4",
        "api/cards?db=demo",
        "api/databases",
        "api/grant",
        "",
    ] {
        let r = get_with(&u(path), &[origin]);
        assert_eq!(r.header("access-control-allow-origin"), None, "{path}");
    }
    drop(server);
    // Asked for one origin: that origin reads the API, never the grant.
    let server = Server::start(&[
        "--db",
        &format!("demo={db}"),
        "--no-engine",
        "--writable",
        "--cors",
        "https://elsewhere.example",
    ]);
    let u = |p: &str| format!("{}{p}", server.url);
    let r = get_with(&u("api/explore?db=demo&play=e2e4"), &[origin]);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://elsewhere.example")
    );
    let r = get_with(
        &u("api/explore?db=demo&play=e2e4"),
        &[("Origin", "https://other.example")],
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
    let r = get_with(&u("api/grant"), &[origin]);
    assert_eq!(r.header("access-control-allow-origin"), None);
    // Nor may it send a change: the browser's question before one is answered without
    // leave, and the change itself is refused for its Origin.
    let (status, _) = send_with(
        "POST",
        &u("api/games/delete?db=demo"),
        r#"{"ids": [1]}"#,
        &[("Content-Type", "application/json"), origin],
    );
    assert_eq!(status, 403);
}

#[test]
fn writable_on_an_address_others_reach_needs_a_flag_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let out = Command::new(BIN)
        .args([
            "serve",
            "--db",
            &db,
            "--no-engine",
            "--writable",
            "--bind",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--allow-remote-changes"), "{said}");
    // Without --writable the flag is refused as meaningless.
    let out = Command::new(BIN)
        .args(["serve", "--db", &db, "--allow-remote-changes"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // With it, the server starts (and is stopped at once).
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--db",
            &db,
            "--no-engine",
            "--writable",
            "--allow-remote-changes",
            "--bind",
            "0.0.0.0:0",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert!(line.contains("http://"), "{line}");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{:?}: {line}{rest}{}",
        done.status,
        String::from_utf8_lossy(&done.stderr)
    );
}

#[test]
fn pages_of_other_sites_change_and_read_nothing_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path());
    let server = Server::start(&["--db", &format!("demo={db}"), "--no-engine", "--writable"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/page/test_cross_site.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.url)
        .arg("demo")
        .output()
        .expect("python3 with playwright and Chromium (the test command installs them)");
    let report = format!(
        "{}{}\nserver: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        server.stderr()
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains(" 0 failed, 0 skipped"), "{report}");
}
