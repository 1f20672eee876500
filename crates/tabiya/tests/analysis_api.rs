//! `GET /api/analysis` of a real `tabiya serve` with the real Stockfish: server-sent events
//! (`stored`, `line`..., `done`), the result kept and shown by `/api/explore` at once, a newer
//! request of the same client superseding an older one, a closed stream stopping the engine,
//! and clear errors.

mod common;

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use common::run_ok;
use common::server::{Server, get};
use serde_json::Value;

/// The events of an event stream, as (name, data) pairs, until it ends.
fn events(url: &str) -> Vec<(String, Value)> {
    let resp = ureq::get(url)
        .call()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let ct = resp
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    read_events(BufReader::new(resp.into_body().into_reader()), usize::MAX)
}

fn read_events(r: impl BufRead, max: usize) -> Vec<(String, Value)> {
    let (mut out, mut name) = (Vec::new(), String::new());
    for line in r.lines() {
        let Ok(line) = line else { break };
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            out.push((name.clone(), serde_json::from_str(d).unwrap()));
            if out.len() >= max {
                break;
            }
        }
    }
    out
}

fn database(dir: &std::path::Path) -> String {
    let db = dir.join("db").display().to_string();
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
    )
    .unwrap();
    run_ok(&["import", "--db", &db, &pgn.display().to_string()]);
    db
}

#[test]
fn analysis_streams_its_lines_and_keeps_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let server = Server::start(&["--db", &db]);
    let engine = get(&format!("{}api/engine", server.url)).json();
    assert!(
        engine["name"].as_str().unwrap().starts_with("Stockfish"),
        "{engine}"
    );
    // Nothing kept yet: the explorer shows no evaluation beside 1...e5.
    let before = get(&format!("{}api/explore?play=e4", server.url)).json();
    assert!(before["moves"][0].get("eval").is_none(), "{before}");
    let ev = events(&format!(
        "{}api/analysis?play=e4,e5&depth=12&multipv=2",
        server.url
    ));
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.last(), Some(&"done"), "{names:?}");
    assert!(
        names.iter().filter(|n| **n == "line").count() >= 12,
        "{names:?}"
    );
    let done = &ev.last().unwrap().1;
    assert_eq!(done["depth"], 12);
    assert_eq!(done["stored"], true);
    assert_eq!(done["pvs"].as_array().unwrap().len(), 2);
    // Each line as it came: depths rising to 12, moves legal (in SAN), best line first.
    let lines: Vec<&Value> = ev
        .iter()
        .filter(|(n, _)| n == "line")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(lines.last().unwrap()["depth"], 12);
    for l in &lines {
        let uci = l["moves"].as_str().unwrap().split(' ').count();
        assert_eq!(l["san"].as_array().unwrap().len(), uci, "{l}");
    }
    assert_eq!(
        done["best"]["uci"],
        done["pvs"][0]["moves"]
            .as_str()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
    );
    // The explorer shows it at once (a cached answer is not given once evaluations changed).
    let after = get(&format!("{}api/explore?play=e4", server.url)).json();
    let e5 = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["san"] == "e5")
        .unwrap();
    assert_eq!(e5["eval"]["depth"], 12, "{after}");
    assert_eq!(e5["eval"]["cp"], done["pvs"][0]["cp"]);
    // Asked again, shallower: the kept one answers at once, first as `stored`, then `done`.
    let ev = events(&format!("{}api/analysis?play=e4,e5&depth=8", server.url));
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert_eq!(ev[0].0, "stored");
    assert_eq!(ev[1].0, "done");
    assert_eq!(ev[1].1["source"], "stored");
    // Errors before the stream starts are plain JSON errors.
    for (q, status) in [
        ("fen=nonsense", 400),
        ("play=e4,e4", 400),
        ("depth=0", 400),
        ("depth=61", 400),
        ("multipv=6", 400),
        ("depth=5&movetime=100", 400),
    ] {
        let r = get(&format!("{}api/analysis?{q}", server.url));
        assert_eq!(r.status, status, "{q}: {}", r.text());
        assert!(r.json()["error"].is_string());
    }
}

#[test]
fn a_newer_request_of_the_same_client_supersedes_and_a_closed_stream_stops() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let server = Server::start(&["--db", &db]);
    let url = format!("{}api/analysis?play=d4&depth=60&client=tab-1", server.url);
    let first = ureq::get(&url).call().unwrap();
    let mut first = BufReader::new(first.into_body().into_reader());
    // It runs: a line came.
    let ev = read_events(&mut first, 1);
    assert_eq!(ev[0].0, "line");
    // The same client asks of another position: the first ends, stopped.
    let second = std::thread::spawn({
        let url = format!("{}api/analysis?play=d4,d5&depth=8&client=tab-1", server.url);
        move || events(&url)
    });
    let rest = read_events(&mut first, usize::MAX);
    let (name, last) = rest.last().unwrap();
    assert_eq!(name, "done", "{rest:?}");
    assert_eq!(last["stopped"], true);
    let second = second.join().unwrap();
    assert_eq!(second.last().unwrap().0, "done");
    assert_eq!(second.last().unwrap().1["stopped"], false);
    // A client that goes away stops its analysis: the engine is idle again soon.
    {
        let r = ureq::get(&format!("{}api/analysis?play=c4&depth=60", server.url))
            .call()
            .unwrap();
        let mut r = BufReader::new(r.into_body().into_reader());
        assert_eq!(read_events(&mut r, 1)[0].0, "line");
    }
    let began = Instant::now();
    let cpu = |pid: &str| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let f: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        f.get(11).and_then(|s| s.parse().ok()).unwrap_or(0)
            + f.get(12).and_then(|s| s.parse().ok()).unwrap_or(0)
    };
    let pid = common::engines_of(server.pid())[0].to_string();
    // Idle: its CPU time stops growing within a few seconds.
    loop {
        let a = cpu(&pid);
        std::thread::sleep(Duration::from_millis(700));
        if cpu(&pid) == a {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the engine still searches"
        );
    }
}

#[test]
fn a_server_without_an_engine_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine"]);
    let r = get(&format!("{}api/analysis?play=e4", server.url));
    assert_eq!(r.status, 404);
    assert!(r.text().contains("no engine"), "{}", r.text());
    drop(server);
    // A named engine that cannot start stops the server from starting, saying why.
    let out = common::run_raw(&[
        "serve",
        "--db",
        &db,
        "--engine",
        "/nonexistent/sf",
        "--bind",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/sf"));
}
