//! `tabiya serve` over real HTTP on a free loopback port: every endpoint, every error case,
//! the same JSON as the command line for the same question, the Lichess-compatible shapes,
//! imports handed to the server while it answers, and a clean stop on SIGTERM.

mod common;

use std::path::Path;

use common::server::{Server, get, get_with};
use common::{json, run_ok, shared};
use serde_json::Value;

/// A chess database of TWIC 920 and an Othello one of WTHOR 1981–1982, in `dir`.
fn databases(dir: &Path) -> (String, String) {
    let chess = dir.join("chess").display().to_string();
    let othello = dir.join("othello").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &chess,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
        &shared("wthor/WTH_1982.wtb").display().to_string(),
    ]);
    (chess, othello)
}

/// The JSON without what measures time or disk bytes (they change by themselves).
fn steady(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        for k in ["fileBytes", "bytesPerGame", "seconds", "gamesPerSecond"] {
            m.remove(k);
        }
        for p in m
            .get_mut("parts")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Value::Object(p) = p {
                p.remove("bytes");
                p.remove("bytesPerGame");
            }
        }
    }
    v
}

#[test]
fn the_server_answers_as_the_command_line_and_refuses_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let (chess, othello) = databases(dir.path());
    let book = shared("polyglot/gm2001.bin").display().to_string();
    // The command line's answers first: a served database is the server's alone.
    let lines = [
        "",
        "e2e4",
        "e2e4,c7c5,g1f3",
        "d2d4,g8f6,c2c4,e7e6,g1f3,d7d5",
    ];
    let cli: Vec<Value> = lines
        .iter()
        .map(|l| {
            let mut a = vec!["explore", "--json", "--db", &chess, "--book", &book];
            if !l.is_empty() {
                a.extend(["--play", l]);
            }
            json(&a)
        })
        .collect();
    let cli_games = json(&[
        "games", "--json", "--db", &chess, "--play", "e2e4", "--sort", "date", "--limit", "7",
        "--offset", "3",
    ]);
    let cli_stats = json(&["stats", "--json", "--db", &chess]);
    let cli_othello = json(&["explore", "--json", "--db", &othello, "--moves", "f5d6"]);
    let cli_othello_games = json(&[
        "games", "--json", "--db", &othello, "--moves", "f5", "--from", "1982", "--limit", "5",
    ]);

    let mut server = Server::start(&[
        "--db",
        &format!("chess={chess}"),
        "--db",
        &format!("othello={othello}"),
        "--book",
        &format!("gm2001={book}"),
    ]);
    let u = |path: &str| format!("{}{path}", server.url);

    // What is served.
    let served = get(&u("api/databases")).json();
    assert_eq!(served["databases"][0]["name"], "chess");
    assert_eq!(served["databases"][0]["games"], 2245);
    assert_eq!(served["databases"][1]["kind"], "othello");
    assert_eq!(served["books"][0]["format"], "polyglot");

    // The same JSON as the command line, for the same questions.
    for (l, want) in lines.iter().zip(&cli) {
        let r = get(&u(&format!("api/explore?db=chess&play={l}&books=gm2001")));
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type, "application/json");
        assert_eq!(&r.json(), want, "explore {l:?}");
    }
    let g = get(&u(
        "api/games?db=chess&play=e2e4&sort=date&limit=7&offset=3",
    ))
    .json();
    assert_eq!(g, cli_games);
    assert_eq!(
        steady(get(&u("api/stats?db=chess")).json()),
        steady(cli_stats)
    );
    assert_eq!(
        get(&u("api/explore?db=othello&moves=f5d6")).json(),
        cli_othello
    );
    assert_eq!(
        get(&u("api/games?db=othello&moves=f5&from=1982&limit=5")).json(),
        cli_othello_games
    );

    // One game, as JSON and as PGN; a book's answer; a name search.
    let id = cli_games["games"][0]["id"].as_str().unwrap();
    let game = get(&u(&format!("api/game/{id}?db=chess"))).json();
    let white = game["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "White")
        .unwrap()["value"]
        .clone();
    assert_eq!(white, cli_games["games"][0]["white"]["name"]);
    assert_eq!(game["moves"][0]["san"], "e4");
    assert_eq!(
        game["moves"][0]["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let pgn = get(&u(&format!("api/game/{id}/pgn?db=chess")));
    assert!(pgn.content_type.starts_with("application/x-chess-pgn"));
    assert!(pgn.header("content-disposition").unwrap().contains(".pgn"));
    assert!(
        pgn.text()
            .contains(&format!("[White \"{}\"]", white.as_str().unwrap()))
    );
    let books = get(&u("api/books?play=e2e4")).json();
    assert_eq!(books[0]["name"], "gm2001");
    assert_eq!(books[0]["found"], true);
    assert_eq!(books[0]["moves"], cli[1]["books"][0]["moves"]);
    let who = white.as_str().unwrap();
    let prefix: String = who.chars().take(4).collect();
    let names = get(&u(&format!(
        "api/names?db=chess&q={}",
        prefix.to_lowercase()
    )))
    .json();
    assert!(
        names.as_array().unwrap().iter().any(|n| n["name"] == who),
        "{prefix}: {names}"
    );
    // Any case: the same names.
    let upper = get(&u(&format!(
        "api/names?db=chess&q={}",
        prefix.to_uppercase()
    )))
    .json();
    assert_eq!(upper, names);

    // Bad requests: 400 with a JSON error that says what was wrong; unknown things: 404.
    for (path, status, says) in [
        ("api/explore?fen=not-a-fen", 400, "invalid FEN"),
        ("api/explore?play=e2e4,e2e4", 400, "not legal"),
        ("api/explore?db=nosuch", 404, "nosuch"),
        ("api/games?limit=1000000000", 400, "limit"),
        ("api/games?sort=elo", 400, "sort"),
        ("api/explore?since=2020-13", 400, "since"),
        ("api/explore?speeds=fast", 400, "speed"),
        ("api/explore?top=nine", 400, "top"),
        ("api/game/99999999?db=chess", 404, "no game"),
        ("api/game/abc?db=chess", 404, "no game"),
        ("api/explore?db=othello&moves=f5f5", 400, "f5"),
        (
            "api/books?fen=8/8/8/8/8/8/8/8%20w%20-%20-%200%201",
            400,
            "illegal",
        ),
        ("api/names?kind=city", 400, "kind"),
        ("api/nothing", 404, "no such endpoint"),
    ] {
        let r = get(&u(path));
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert_eq!(r.content_type, "application/json", "{path}");
        let e = r.json();
        assert!(e["error"].as_str().unwrap().contains(says), "{path}: {e}");
    }
    // The Lichess-compatible endpoints answer errors as Lichess does: text.
    for (path, status, starts) in [
        ("masters?fen=not-a-fen", 400, "bad request: "),
        ("lichess?play=e2e5", 400, "bad request: "),
        ("lichess?variant=antichess", 400, "bad request: "),
        ("player?player=x", 400, "bad request: "),
        ("masters/pgn/99999999", 404, "not found"),
    ] {
        let r = get(&u(path));
        assert_eq!(r.status, status, "{path}");
        assert!(r.content_type.starts_with("text/plain"), "{path}");
        assert!(r.text().starts_with(starts), "{path}: {}", r.text());
    }

    // CORS open for GET; gzip when asked.
    let r = get_with(&u("masters"), &[("Origin", "https://example.org")]);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let r = get_with(&u("api/explore?db=chess"), &[("Accept-Encoding", "gzip")]);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(&r.body[..2], &[0x1f, 0x8b]);

    // The page and its assets.
    let page = get(&server.url);
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.text().contains("/assets/"));
    assert_eq!(get(&u("assets/vendor/chessground.js")).status, 200);
    assert_eq!(get(&u("assets/../Cargo.toml")).status, 404);

    // A clean stop: SIGTERM, exit 0, the serve files gone.
    assert!(Path::new(&chess).join("serve.json").exists());
    assert!(server.stop(), "{}", server.stderr());
    assert!(!Path::new(&chess).join("serve.json").exists());
}

#[test]
fn lichess_endpoints_have_lichess_shapes_and_the_database_s_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (chess, _) = databases(dir.path());
    let cli = json(&[
        "explore", "--json", "--db", &chess, "--play", "e2e4", "--top", "15",
    ]);
    let server = Server::start(&["--db", &chess]);
    let u = |path: &str| format!("{}{path}", server.url);
    let m = get(&u("masters?play=e2e4&moves=3&topGames=2"));
    assert_eq!(m.status, 200);
    let m = m.json();
    for k in ["white", "draws", "black"] {
        assert_eq!(m[k], cli[k], "{k}");
    }
    let moves = m["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    for (a, b) in moves.iter().zip(cli["moves"].as_array().unwrap()) {
        for k in ["uci", "san", "white", "draws", "black", "averageRating"] {
            assert_eq!(a[k], b[k], "{k}");
        }
        assert!(a.get("game").is_some(), "moves carry their game (or null)");
        assert!(
            a.get("performance").is_none(),
            "only /player moves have a performance"
        );
    }
    let top = m["topGames"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    for (g, c) in top.iter().zip(cli["topGames"].as_array().unwrap()) {
        for k in ["id", "uci", "winner", "white", "black", "year", "month"] {
            assert_eq!(g[k], c[k], "{k}");
        }
    }
    assert_eq!(m["opening"], cli["opening"]);
    // Each move carries the opening it leads to (null when the table names none), as
    // Lichess's do: after 1. e4, 1... c5 is the table's "1. e4 c5" line.
    let eco = std::fs::read_to_string(shared("eco/b.tsv")).unwrap();
    let sicilian: Vec<&str> = eco
        .lines()
        .find(|l| l.ends_with("\t1. e4 c5"))
        .unwrap()
        .split('\t')
        .collect();
    let all = get(&u("masters?play=e2e4&moves=50")).json();
    let all = all["moves"].as_array().unwrap();
    assert!(
        all.iter().all(|m| m.get("opening").is_some()),
        "opening or null on every move"
    );
    let c5 = all.iter().find(|m| m["uci"] == "c7c5").unwrap();
    assert_eq!(c5["opening"]["eco"], sicilian[0]);
    assert_eq!(c5["opening"]["name"], sicilian[1]);
    assert!(
        top.iter().all(|g| g.get("speed").is_none()),
        "masters games carry no speed, as Lichess's"
    );
    // The masters endpoint caps its top games at 15, as Lichess does.
    let m = get(&u("masters?topGames=100")).json();
    assert_eq!(m["topGames"].as_array().unwrap().len(), 15);
    // /lichess: recent and top games, 4 at most.
    let l = get(&u("lichess?play=e2e4&recentGames=9&topGames=9")).json();
    assert_eq!(l["recentGames"].as_array().unwrap().len(), 4);
    assert_eq!(l["topGames"].as_array().unwrap().len(), 4);
    // /player: NDJSON, one line, the player's games as that colour only.
    let name = cli["topGames"][0]["white"]["name"].as_str().unwrap();
    let p = get(&u(&format!(
        "player?player={}&color=white&recentGames=3",
        name.replace(' ', "+")
    )));
    assert_eq!(p.content_type, "application/x-ndjson");
    let lines: Vec<&str> = std::str::from_utf8(&p.body).unwrap().lines().collect();
    assert_eq!(lines.len(), 1);
    let line: Value = serde_json::from_str(lines[0]).unwrap();
    for g in line["recentGames"].as_array().unwrap() {
        assert_eq!(g["white"]["name"], name);
    }
    let played = |v: &Value| -> u64 {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().unwrap())
            .sum()
    };
    assert!(played(&line) > 0 && played(&line) < played(&cli));
    // A game's PGN under both names.
    let id = cli["topGames"][0]["id"].as_str().unwrap();
    for path in [format!("masters/pgn/{id}"), format!("master/pgn/{id}")] {
        let r = get(&u(&path));
        assert_eq!(r.status, 200);
        assert!(r.text().contains(&format!("[White \"{name}\"]")), "{path}");
    }
}

#[test]
fn imports_handed_to_the_server_show_without_a_restart_and_no_request_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (chess, _) = databases(dir.path());
    let more: Vec<String> = ["Carlsen.pgn", "Kasparov.pgn"]
        .iter()
        .map(|f| shared(&format!("pgn/pgnmentor/{f}")).display().to_string())
        .collect();
    // What the database says after the same import done offline, in another copy.
    let copy = dir.path().join("copy").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &copy,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    let mut args = vec!["import", "--db", &copy];
    args.extend(more.iter().map(String::as_str));
    run_ok(&args);
    let want = json(&["explore", "--json", "--db", &copy, "--play", "e2e4"]);
    let before = json(&["explore", "--json", "--db", &chess, "--play", "e2e4"]);

    let server = Server::start(&["--db", &chess]);
    let url = format!("{}api/explore?play=e2e4", server.url);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let asker = {
        let stop = std::sync::Arc::clone(&stop);
        let url = url.clone();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let r = get(&url);
                assert_eq!(r.status, 200, "{}", r.text());
                let v = r.json();
                seen.push(
                    v["white"].as_u64().unwrap()
                        + v["draws"].as_u64().unwrap()
                        + v["black"].as_u64().unwrap(),
                );
            }
            seen
        })
    };
    // `tabiya import` into the served database: the server does it, in several
    // transactions, while the asker asks.
    let mut args = vec!["import", "--db", &chess, "--batch", "500", "--json"];
    args.extend(more.iter().map(String::as_str));
    let out = run_ok(&args);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the server imports"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(summary["imported"].as_u64().unwrap() > 1000);
    assert!(summary["runsWritten"].as_u64().unwrap() > 1);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = asker.join().unwrap();
    assert!(seen.len() > 5, "{} answers during the import", seen.len());
    // No answer saw part of the import: each is the database before it or after it, in
    // that order.
    let total = |v: &Value| -> u64 {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().unwrap())
            .sum()
    };
    let (b, a) = (total(&before), total(&want));
    assert!(
        seen.iter().all(|t| *t == b || *t == a),
        "{seen:?} not {b} or {a}"
    );
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    // Without a restart, the answer is the offline import's.
    let after = get(&url).json();
    for k in ["white", "draws", "black", "unknown", "moves", "topGames"] {
        assert_eq!(after[k], want[k], "{k}");
    }
    assert_ne!(after["white"], before["white"]);
}

/// `/lichess` and `/player` games carry their speed, read from the time control as Lichess
/// classes it: the 2023 world championship's 40/7200:20/3600:900+30 is classical.
#[test]
fn lichess_games_carry_their_speed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/edge-cases/data_pgn_nepomniachtchi-liren-game1.pgn")
            .display()
            .to_string(),
    ]);
    let server = Server::start(&["--db", &db]);
    let l = get(&format!("{}lichess?topGames=4&recentGames=4", server.url)).json();
    assert_eq!(l["topGames"][0]["speed"], "classical", "{l}");
    assert_eq!(l["recentGames"][0]["speed"], "classical", "{l}");
    let m = get(&format!("{}masters", server.url)).json();
    assert!(m["topGames"][0].get("speed").is_none(), "{m}");
}
