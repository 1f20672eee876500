//! A set of databases opened as one (`--db` given several times; `serve --db NAME=A,B,C`):
//! Carlsen's games split by year into three databases answer `explore` and `games` as
//! python-chess counts all the games, and exactly as one database holding them all does
//! (every figure, the best games and game lists in the same order, pages included); its
//! games are named `MEMBER:ID`; what needs one database, and writes, are refused clearly.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

mod common;
use common::server::{Server, get, send};
use common::{json as run_json, oracle_json, run_raw, shared};

const LINES: [&str; 5] = [
    "",
    "e2e4",
    "d2d4,g8f6",
    "e2e4,c7c5,g1f3",
    "e2e4,e7e5,g1f3,b8c6",
];

/// Carlsen's games in three PGN files by year (up to 2004, 2005–2007, from 2008), each
/// imported into a database of its own, and all of them into one: the set's directories
/// and the whole's.
struct Split {
    _tmp: tempfile::TempDir,
    members: Vec<String>,
    whole: String,
    pgn: String,
}

fn split() -> Split {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = shared("pgn/pgnmentor/Carlsen.pgn");
    let bytes = std::fs::read(&pgn).unwrap();
    let mut starts: Vec<usize> = (0..bytes.len())
        .filter(|&i| (i == 0 || bytes[i - 1] == b'\n') && bytes[i..].starts_with(b"[Event "))
        .collect();
    starts.push(bytes.len());
    let mut parts = [Vec::new(), Vec::new(), Vec::new()];
    for w in starts.windows(2) {
        let game = &bytes[w[0]..w[1]];
        let year = find(game, b"[Date \"")
            .and_then(|i| std::str::from_utf8(&game[i + 7..i + 11]).ok()?.parse().ok())
            .unwrap_or(0u32);
        let part = match year {
            ..=2004 => 0,
            2005..=2007 => 1,
            _ => 2,
        };
        parts[part].extend_from_slice(game);
    }
    let mut members = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        assert!(part.len() > 10_000, "part {i} has games");
        let file = tmp.path().join(format!("part{i}.pgn"));
        std::fs::write(&file, part).unwrap();
        let dir = tmp.path().join(format!("m{i}")).display().to_string();
        run_json(&[
            "import",
            "--json",
            "--db",
            &dir,
            &file.display().to_string(),
        ]);
        members.push(dir);
    }
    let whole = tmp.path().join("all").display().to_string();
    let pgn = pgn.display().to_string();
    run_json(&["import", "--json", "--db", &whole, &pgn]);
    Split {
        _tmp: tmp,
        members,
        whole,
        pgn,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `--db M` for each member.
fn set_args(s: &Split) -> Vec<String> {
    s.members
        .iter()
        .flat_map(|m| ["--db".to_string(), m.clone()])
        .collect()
}

fn run(cmd: &[&str], db: &[String], rest: &[&str]) -> Value {
    let mut args: Vec<&str> = cmd.to_vec();
    args.extend(db.iter().map(String::as_str));
    args.extend(rest);
    run_json(&args)
}

/// The answer without its game ids (which name games differently in a set and the whole).
fn without_ids(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "id")
                .map(|(k, v)| (k.clone(), without_ids(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_ids).collect()),
        v => v.clone(),
    }
}

/// Every id in an answer (`id` fields, at any depth).
fn ids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("id", Value::String(s)) => out.push(s.clone()),
                    _ => ids(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| ids(v, out)),
        _ => {}
    }
}

fn is_set_id(id: &str, members: usize) -> bool {
    id.split_once(':').is_some_and(|(m, n)| {
        m.parse::<usize>().is_ok_and(|m| (1..=members).contains(&m)) && n.parse::<u32>().is_ok()
    })
}

const RESULTS: [&str; 4] = ["white", "draws", "black", "unknown"];

#[test]
fn a_set_counts_as_python_chess_and_as_one_database() {
    let s = split();
    let set = set_args(&s);
    let whole = vec!["--db".to_string(), s.whole.clone()];
    // Unfiltered: every figure of python-chess's count (ratings and performance from sums).
    let mut oracle_args = vec![s.pgn.as_str(), "--"];
    oracle_args.extend(LINES);
    let oracle = oracle_json("explore_oracle.py", &oracle_args);
    for line in LINES {
        let a = run(
            &["explore", "--json", "--top", "12"],
            &set,
            &["--play", line],
        );
        let b = run(
            &["explore", "--json", "--top", "12"],
            &whole,
            &["--play", line],
        );
        assert_eq!(without_ids(&a), without_ids(&b), "explore {line:?}");
        let o = &oracle[line];
        for k in RESULTS.iter().chain(&["averageRating"]) {
            assert_eq!(a[k], o["total"][k], "{line:?} {k}");
        }
        let moves = a["moves"].as_array().unwrap();
        assert_eq!(
            moves.len(),
            o["moves"].as_object().unwrap().len(),
            "{line:?}"
        );
        for m in moves {
            let want = &o["moves"][m["uci"].as_str().unwrap()];
            for k in
                RESULTS
                    .iter()
                    .chain(&["averageRating", "performance", "firstYear", "lastYear"])
            {
                assert_eq!(m[k], want[k], "{line:?} {} {k}", m["uci"]);
            }
        }
        let mut found = Vec::new();
        ids(&a, &mut found);
        assert!(!found.is_empty() || line.len() > 20, "{line:?} has games");
        for id in found {
            assert!(is_set_id(&id, 3), "{id:?} names a member and its game");
        }
    }
    // Filtered: python-chess's counts, and the whole's answers and game lists.
    let filters: [(&[&str], Value); 4] = [
        (&["--player", "Anand,V"], json!({"player": "Anand,V"})),
        (
            &["--player", "Aronian,L", "--color", "black"],
            json!({"player": "Aronian,L", "color": "black"}),
        ),
        (
            &["--since", "2005", "--until", "2008-06"],
            json!({"since": 200500, "until": 200806}),
        ),
        (
            &["--rating-min", "2600"],
            json!({"ratings": [[2600, 65535]]}),
        ),
    ];
    let spec = Value::Array(filters.iter().map(|(_, o)| o.clone()).collect());
    let spec = spec.to_string();
    let mut args = vec![spec.as_str(), s.pgn.as_str(), "--"];
    args.extend(LINES);
    let counted = oracle_json("filtered_oracle.py", &args);
    for (i, (flags, _)) in filters.iter().enumerate() {
        for line in LINES {
            let mut rest = vec!["--play", line];
            rest.extend(*flags);
            let a = run(&["explore", "--json", "--top", "10"], &set, &rest);
            let b = run(&["explore", "--json", "--top", "10"], &whole, &rest);
            assert_eq!(
                without_ids(&a),
                without_ids(&b),
                "explore {flags:?} {line:?}"
            );
            let o = &counted[i][line];
            for k in RESULTS {
                assert_eq!(a[k], o["total"][k], "{flags:?} {line:?} {k}");
            }
            for m in a["moves"].as_array().unwrap() {
                let want = &o["moves"][m["uci"].as_str().unwrap()];
                for k in RESULTS {
                    assert_eq!(m[k], want[k], "{flags:?} {line:?} {} {k}", m["uci"]);
                }
            }
            for sort in ["rating", "date", "id"] {
                let mut rest = rest.clone();
                rest.extend(["--sort", sort, "--limit", "25", "--offset", "3"]);
                let a = run(&["games", "--json"], &set, &rest);
                let b = run(&["games", "--json"], &whole, &rest);
                assert_eq!(a["total"], o["games"], "games {flags:?} {line:?}");
                assert_eq!(
                    without_ids(&a),
                    without_ids(&b),
                    "games {flags:?} {line:?} {sort}"
                );
            }
        }
    }
    // A player by a spelling grouped with others: each member's entries as the whole's.
    for line in LINES {
        let rest = ["--play", line, "--player", "Carlsen,M", "--color", "white"];
        let a = run(&["explore", "--json"], &set, &rest);
        let b = run(&["explore", "--json"], &whole, &rest);
        assert_eq!(without_ids(&a), without_ids(&b), "Carlsen,M {line:?}");
    }
}

#[test]
fn a_set_pages_through_every_game_in_the_order_of_one_database() {
    let s = split();
    let set = set_args(&s);
    let whole = vec!["--db".to_string(), s.whole.clone()];
    for sort in ["rating", "date"] {
        let rest = ["--play", "e2e4,c7c5", "--sort", sort, "--limit", "1000"];
        let all = run(&["games", "--json"], &whole, &rest);
        let total = all["total"].as_u64().unwrap() as usize;
        assert!(total > 100, "{total} games");
        let mut paged = Vec::new();
        let mut offset = 0;
        while offset < total + 13 {
            let off = offset.to_string();
            let page = run(
                &["games", "--json"],
                &set,
                &[
                    "--play",
                    "e2e4,c7c5",
                    "--sort",
                    sort,
                    "--limit",
                    "13",
                    "--offset",
                    &off,
                ],
            );
            assert_eq!(page["total"], all["total"]);
            paged.extend(page["games"].as_array().unwrap().iter().map(without_ids));
            offset += 13;
        }
        assert_eq!(
            Value::Array(paged),
            without_ids(&all["games"]),
            "pages by {sort}"
        );
    }
}

fn fails(args: &[&str], says: &str) {
    let out = run_raw(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_set_refuses_what_it_cannot_be() {
    let tmp = tempfile::tempdir().unwrap();
    let d = |n: &str| tmp.path().join(n).display().to_string();
    let morphy = shared("pgn/pgnmentor/Morphy.pgn").display().to_string();
    run_json(&["import", "--json", "--db", &d("a"), &morphy]);
    run_json(&["import", "--json", "--db", &d("b"), &morphy]);
    let wthor: PathBuf = shared("wthor/WTH_1980.wtb");
    run_json(&[
        "import",
        "--json",
        "--db",
        &d("o"),
        &wthor.display().to_string(),
    ]);
    let same = format!("{}/.", d("a"));
    fails(
        &["explore", "--db", &d("a"), "--db", &same],
        "same database",
    );
    fails(&["explore", "--db", &d("a"), "--db", &d("o")], "one kind");
    fails(&["games", "--db", &d("a"), "--db", &d("none")], "none");
    fails(
        &["explore", "--db", &d("a"), "--db", &d("b"), "--by-year"],
        "set of 2 databases",
    );
    fails(
        &["games", "--db", &d("a"), "--db", &d("b"), "--novelties"],
        "set of 2 databases",
    );
    // Two copies of the same games are distinct databases: each game counted twice.
    let one = run_json(&["explore", "--json", "--db", &d("a")]);
    let two = run_json(&["explore", "--json", "--db", &d("a"), "--db", &d("b")]);
    for k in RESULTS {
        assert_eq!(
            two[k].as_u64().unwrap(),
            2 * one[k].as_u64().unwrap(),
            "{k}"
        );
    }
    assert_eq!(two["averageRating"], one["averageRating"]);
}

#[test]
fn a_served_set_answers_as_one_database_over_http() {
    let s = split();
    let set = format!("carlsen={}", s.members.join(","));
    let whole = format!("whole={}", s.whole);
    let mut server = Server::start(&["--db", &set, "--db", &whole, "--no-engine", "--writable"]);
    let url = |path: &str| format!("{}{path}", server.url);
    let dbs = get(&url("api/databases")).json();
    assert_eq!(dbs["databases"][0]["name"], "carlsen");
    assert_eq!(dbs["databases"][0]["games"], dbs["databases"][1]["games"]);
    for line in LINES {
        for q in [
            format!("lichess?play={line}&topGames=8&recentGames=4"),
            format!("masters?play={line}&topGames=15"),
            format!("lichess?play={line}&ratings=2500&since=2006-01"),
            format!("api/explore?play={line}&top=10"),
            format!("api/games?play={line}&sort=date&limit=30&offset=2"),
            format!("api/games?play={line}&sort=rating&limit=30&player=Anand,V"),
        ] {
            let a = get(&url(&format!("{q}&db=carlsen")));
            let b = get(&url(&format!("{q}&db=whole")));
            assert_eq!(a.status, 200, "{q}: {}", a.text());
            assert_eq!(without_ids(&a.json()), without_ids(&b.json()), "{q}");
        }
    }
    // Each listed game is the whole's same game, by its MEMBER:ID.
    let a = get(&url("api/games?db=carlsen&play=e2e4&limit=6")).json();
    let b = get(&url("api/games?db=whole&play=e2e4&limit=6")).json();
    for (x, y) in a["games"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["games"].as_array().unwrap())
    {
        let (ix, iy) = (x["id"].as_str().unwrap(), y["id"].as_str().unwrap());
        assert!(is_set_id(ix, 3), "{ix}");
        let gx = get(&url(&format!("api/game/{ix}?db=carlsen"))).json();
        let gy = get(&url(&format!("api/game/{iy}?db=whole"))).json();
        assert_eq!(gx["id"], ix);
        assert_eq!(without_ids(&gx), without_ids(&gy));
        let px = get(&url(&format!("masters/pgn/{ix}?db=carlsen")));
        assert_eq!(px.status, 200);
        assert_eq!(
            px.text(),
            get(&url(&format!("masters/pgn/{iy}?db=whole"))).text()
        );
        assert_eq!(
            get(&url(&format!("api/game/{ix}/pgn?db=carlsen"))).text(),
            px.text()
        );
    }
    // Ids a set does not have, questions and writes it cannot answer: 4xx, never a 500.
    for bad in ["42", "0:1", "4:1", "1:x", "1:99999999"] {
        let r = get(&url(&format!("api/game/{bad}?db=carlsen")));
        assert_eq!(r.status, 404, "{bad}: {}", r.text());
    }
    for q in [
        "api/years?play=e2e4",
        "api/transpositions?play=e2e4",
        "api/stats?",
    ] {
        let r = get(&url(&format!("{q}&db=carlsen")));
        assert_eq!(r.status, 400, "{q}: {}", r.text());
        assert!(r.text().contains("set of 3 databases"), "{}", r.text());
    }
    let id = a["games"][0]["id"].as_str().unwrap().to_string();
    for (method, path, body) in [
        (
            "PATCH",
            format!("api/game/{id}"),
            r#"{"set": {"Result": "1-0"}}"#,
        ),
        ("PUT", "api/note?play=e2e4".to_string(), r#"{"note": "x"}"#),
        ("POST", "api/games/delete?".to_string(), r#"{"ids": [1]}"#),
        (
            "POST",
            "api/gamesets?".to_string(),
            r#"{"name": "x", "where": "year >= 2005"}"#,
        ),
    ] {
        let sep = if path.contains('?') { "&" } else { "?" };
        let (status, answer) = send(method, &url(&format!("{path}{sep}db=carlsen")), body);
        assert!(
            (400..500).contains(&status),
            "{method} {path}: {status} {answer}"
        );
    }
    // No member is announced as served: a set takes no import or change handed over.
    for m in &s.members {
        assert!(!Path::new(m).join("serve.json").exists(), "{m}");
    }
    assert!(Path::new(&s.whole).join("serve.json").exists());
    assert!(server.stop(), "{}", server.stderr());
}
