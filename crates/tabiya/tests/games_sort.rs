//! `tabiya games --sort eco|length|result|id` against an independent count: python-chess
//! (`oracle/games_sort_oracle.py`) reads Kasparov's games, finds those reaching each position
//! by any move order and sorts them itself. The whole list is read page by page (`--offset`,
//! `--limit`), so that the pages must follow one another exactly; with a filter (`--since`)
//! too. `/api/games` gives the same order (one page of it asked of a server).

mod common;

use common::server::{Server, get};
use common::{json, oracle_json, run_ok, shared};
use serde_json::Value;

const LINES: [&str; 2] = ["", "e2e4,c7c5"];
const SORTS: [&str; 4] = ["id", "eco", "length", "result"];

/// Every game id of the list, read `page` games at a time.
fn listed(db: &str, line: &str, sort: &str, since: Option<&str>, page: usize) -> Vec<u64> {
    let mut ids = Vec::new();
    loop {
        let offset = ids.len().to_string();
        let limit = page.to_string();
        let mut args = vec![
            "games", "--db", db, "--sort", sort, "--limit", &limit, "--offset", &offset, "--json",
        ];
        if !line.is_empty() {
            args.extend(["--play", line]);
        }
        if let Some(y) = since {
            args.extend(["--since", y]);
        }
        let got = json(&args);
        let games = got["games"].as_array().unwrap();
        ids.extend(
            games
                .iter()
                .map(|g| g["id"].as_str().unwrap().parse::<u64>().unwrap()),
        );
        if games.is_empty() || ids.len() as u64 >= got["total"].as_u64().unwrap() {
            assert_eq!(ids.len() as u64, got["total"].as_u64().unwrap());
            return ids;
        }
    }
}

fn want(oracle: &Value, line: &str, sort: &str) -> Vec<u64> {
    oracle[line][sort]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn games_sorted_by_eco_length_and_result_as_python_chess_sorts_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let pgn = shared("pgn/pgnmentor/Kasparov.pgn").display().to_string();
    run_ok(&["import", "--db", &db, &pgn]);
    for since in [None, Some("2000")] {
        let mut args: Vec<&str> = Vec::new();
        if let Some(y) = since {
            args.extend(["--since", y]);
        }
        args.extend([pgn.as_str(), "--"]);
        args.extend(LINES);
        let oracle = oracle_json("games_sort_oracle.py", &args);
        for line in LINES {
            for sort in SORTS {
                let want = want(&oracle, line, sort);
                assert!(want.len() > 20, "{line:?} {since:?}: {} games", want.len());
                // Pages of an odd size, so that ties fall across page boundaries.
                let got = listed(&db, line, sort, since, 97);
                assert_eq!(got, want, "{line:?} sorted by {sort}, since {since:?}");
            }
        }
    }
    // The API's pages: the same order.
    let server = Server::start(&["--db", &format!("k={db}"), "--no-engine"]);
    let oracle = oracle_json("games_sort_oracle.py", &[&pgn, "--", "e2e4,c7c5"]);
    for sort in ["eco", "length", "result"] {
        let want = want(&oracle, "e2e4,c7c5", sort);
        let mut got = Vec::new();
        for offset in (0..want.len()).step_by(50) {
            let url = format!(
                "{}api/games?db=k&play=e2e4,c7c5&sort={sort}&limit=50&offset={offset}&details=true",
                server.url
            );
            let reply = get(&url);
            assert_eq!(reply.status, 200, "{url}");
            let page = reply.json();
            for g in page["games"].as_array().unwrap() {
                got.push(g["id"].as_str().unwrap().parse::<u64>().unwrap());
            }
        }
        assert_eq!(got, want, "/api/games sorted by {sort}");
    }
    // An unknown order is refused, naming the ones there are.
    let url = format!("{}api/games?db=k&sort=colour", server.url);
    let reply = get(&url);
    assert_eq!(reply.status, 400, "{url}");
    let message = reply.json()["error"].to_string();
    assert!(message.contains("eco, length or result"), "{message}");
}
