//! `tabiya prepare`: a player's repertoire by position equals python-chess's over the same
//! PGN (`oracle/prepare_oracle.py`) — every position and move, games, results from the
//! player's side, latest game — with transpositions merged, `--since`, `--depth` and
//! `--min-games`; the PGN it writes reads back in python-chess with the same statistics,
//! the Polyglot book's weights are the games, the CTG book probes back; names resolve in any
//! case, accents or order; an unknown player and a bad colour are clear errors, and
//! `/api/prepare` gives the same JSON (400 and 404 for them).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

mod common;
use common::server::{Server, get};
use common::{json as run_json, run_ok, run_raw, shared};

const NAME: &str = "Fischer, Robert James";

fn python(args: &[&str]) -> Value {
    common::oracle_json("prepare_oracle.py", args)
}

/// A FEN without its clocks (the oracle's key).
fn fen4(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

const STATS: [&str; 4] = ["games", "wins", "draws", "losses"];

/// Every position and move of Tabiya's answer equals the oracle's; returns the number of
/// positions the shown tree reaches by two move orders or more.
fn compare(got: &Value, want: &Value, what: &str) -> usize {
    for f in STATS {
        assert_eq!(got[f], want[f], "{what}: {f}");
    }
    assert_eq!(got["otherStarts"], want["otherStarts"], "{what}");
    let positions = got["positions"].as_array().unwrap();
    let want_positions = want["positions"].as_object().unwrap();
    assert_eq!(positions.len(), want_positions.len(), "{what}: positions");
    let fen_of: HashMap<&str, String> = positions
        .iter()
        .map(|p| (p["key"].as_str().unwrap(), fen4(p["fen"].as_str().unwrap())))
        .collect();
    let fens: HashSet<&String> = fen_of.values().collect();
    assert_eq!(
        fens.len(),
        positions.len(),
        "{what}: a position listed twice"
    );
    let mut arrivals: HashMap<&str, usize> = HashMap::new();
    for p in positions {
        let fen = fen4(p["fen"].as_str().unwrap());
        let w = &want_positions[&fen];
        for f in STATS {
            assert_eq!(p[f], w[f], "{what}: {fen}: {f}");
        }
        let moves = p["moves"].as_array().unwrap();
        let want_moves = w["moves"].as_object().unwrap();
        assert_eq!(moves.len(), want_moves.len(), "{what}: {fen}: moves");
        let mut last = u64::MAX;
        for m in moves {
            let uci = m["uci"].as_str().unwrap();
            let wm = &want_moves[uci];
            for f in STATS {
                assert_eq!(m[f], wm[f], "{what}: {fen} {uci}: {f}");
            }
            for f in ["id", "date", "opponent", "event"] {
                assert_eq!(m["latest"][f], wm["latest"][f], "{what}: {fen} {uci}: {f}");
            }
            assert_eq!(
                fen_of[m["to"].as_str().unwrap()],
                wm["to"].as_str().unwrap()
            );
            let games = m["games"].as_u64().unwrap();
            assert!(games <= last, "{what}: {fen}: most played first");
            last = games;
            *arrivals.entry(m["to"].as_str().unwrap()).or_default() += 1;
        }
    }
    let transposed = want_positions
        .values()
        .filter(|p| p["incoming"].as_u64().unwrap() > 1)
        .count();
    assert_eq!(
        arrivals.values().filter(|&&n| n > 1).count(),
        transposed,
        "{what}: positions reached by several moves"
    );
    transposed
}

#[test]
fn a_players_repertoire_by_position_agrees_with_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let pgn = shared("pgn/pgnmentor/Fischer.pgn");
    let pgn = pgn.to_str().unwrap();
    // Every game kept, so ids are places in the file (the oracle's latest game ids).
    run_ok(&["import", "--db", db, "--keep-duplicates", pgn]);
    let prep = |extra: &[&str]| {
        let mut args = vec!["prepare", "--json", "--db", db];
        args.extend(extra);
        run_json(&args)
    };

    // As White, every move shown: 1. e4 c5 2. Nf3 d6 3. d4 and 2. d4 … meet, and so on.
    let got = prep(&["--player", NAME, "--color", "white", "--min-games", "1"]);
    let want = python(&[pgn, NAME, "white", "--min-games", "1"]);
    let transposed = compare(&got, &want, "white");
    assert!(
        transposed > 10,
        "{transposed} positions reached by two move orders"
    );
    assert_eq!(got["player"], NAME);
    assert_eq!(got["games"], 433);

    // As Black, moves of at least 2 games (the default), 12 plies.
    let got = prep(&["--player", NAME, "--color", "black", "--depth", "12"]);
    let want = python(&[pgn, NAME, "black", "--depth", "12"]);
    compare(&got, &want, "black, depth 12");
    // Where they vary most: their own positions, most spread first.
    let varies = got["variesMost"].as_array().unwrap();
    assert!(!varies.is_empty());
    let entropy: Vec<f64> = varies
        .iter()
        .map(|v| v["entropy"].as_f64().unwrap())
        .collect();
    assert!(entropy.windows(2).all(|w| w[0] >= w[1]), "{entropy:?}");
    for v in varies {
        assert!(
            v["line"].as_array().unwrap().len() % 2 == 1,
            "Black to move"
        );
        assert!(v["moves"].as_array().unwrap().len() >= 2);
    }

    // Since 1970: fewer games, the same rules.
    let got = prep(&[
        "--player",
        NAME,
        "--color",
        "white",
        "--since",
        "1970",
        "--min-games",
        "1",
    ]);
    let want = python(&[pgn, NAME, "white", "--since", "1970", "--min-games", "1"]);
    compare(&got, &want, "white since 1970");
    assert!(got["games"].as_u64().unwrap() < 433);
    assert_eq!(got["since"], 1970);

    // Any case, accents, the other way round: the same player.
    let plain = prep(&["--player", NAME, "--color", "black"]);
    for name in ["FISCHER, ROBERT JAMES", "Robert James Físcher"] {
        let other = prep(&["--player", name, "--color", "black"]);
        assert_eq!(other["player"], NAME, "{name}");
        assert_eq!(other["positions"], plain["positions"], "{name}");
    }

    // The PGN: one game with variations, python-chess reads every move with its numbers.
    let want = python(&[pgn, NAME, "black"]);
    let file = dir.path().join("out/fischer-black.pgn");
    run_ok(&[
        "prepare",
        "--db",
        db,
        "--player",
        NAME,
        "--color",
        "black",
        "-o",
        file.to_str().unwrap(),
    ]);
    let read = python(&["--read-pgn", file.to_str().unwrap()]);
    assert_eq!(read["headers"]["Black"], NAME);
    let moves = read["moves"].as_array().unwrap();
    let shown: usize = want["positions"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p["moves"].as_object().unwrap().len())
        .sum();
    assert_eq!(moves.len(), shown, "every move once");
    let mut seen = HashSet::new();
    for m in moves {
        let (fen, uci) = (m["fen"].as_str().unwrap(), m["uci"].as_str().unwrap());
        assert!(seen.insert((fen, uci)), "{fen} {uci} twice");
        let w = &want["positions"][fen]["moves"][uci];
        for f in STATS {
            assert_eq!(m[f], w[f], "PGN {fen} {uci}: {f}");
        }
        assert!(
            m["comment"]
                .as_str()
                .unwrap()
                .contains(w["latest"]["date"].as_str().unwrap()),
            "{m}"
        );
        if m["main"].as_bool().unwrap() {
            let most = want["positions"][fen]["moves"]
                .as_object()
                .unwrap()
                .values()
                .map(|x| x["games"].as_u64().unwrap())
                .max();
            assert_eq!(m["games"].as_u64(), most, "main line most played: {fen}");
        }
    }

    // The Polyglot book: the moves shown, weighted by their games (python-chess reads it).
    let book = dir.path().join("fischer-black.bin");
    run_ok(&[
        "prepare",
        "--db",
        db,
        "--player",
        NAME,
        "--color",
        "black",
        "-o",
        book.to_str().unwrap(),
    ]);
    let mut args = vec!["--read-polyglot", book.to_str().unwrap()];
    let fens: Vec<&String> = want["positions"].as_object().unwrap().keys().collect();
    args.extend(fens.iter().map(|f| f.as_str()));
    let weights = python(&args);
    for fen in fens {
        let expected: HashMap<&str, u64> = want["positions"][fen]["moves"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(u, m)| (u.as_str(), m["games"].as_u64().unwrap()))
            .collect();
        let got: HashMap<&str, u64> = weights[fen]
            .as_object()
            .unwrap()
            .iter()
            .map(|(u, w)| (u.as_str(), w.as_u64().unwrap()))
            .collect();
        assert_eq!(got, expected, "polyglot {fen}");
    }

    // The CTG book: Tabiya's reader probes its start and the player's answers to 1. e4.
    let ctg = dir.path().join("ctg/fischer");
    run_ok(&[
        "prepare",
        "--db",
        db,
        "--player",
        NAME,
        "--color",
        "black",
        "--format",
        "ctg",
        "-o",
        ctg.to_str().unwrap(),
    ]);
    let ctg_file = dir.path().join("ctg/fischer.ctg");
    for play in ["", "e2e4"] {
        let mut args = vec!["book", "probe", "--json", ctg_file.to_str().unwrap()];
        if !play.is_empty() {
            args.extend(["--play", play]);
        }
        let probe = run_json(&args);
        let fen = fen4(probe["fen"].as_str().unwrap());
        let w = &want["positions"][&fen];
        assert_eq!(probe["games"], w["games"], "ctg {fen}");
        let moves: HashMap<&str, u64> = probe["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["uci"].as_str().unwrap(), m["games"].as_u64().unwrap()))
            .collect();
        for (uci, m) in w["moves"].as_object().unwrap() {
            assert_eq!(moves.get(uci.as_str()), m["games"].as_u64().as_ref());
        }
    }

    // The table names the player and the first moves.
    let out = run_ok(&["prepare", "--db", db, "--player", NAME, "--color", "white"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Fischer, Robert James as White: 433 games"));
    assert!(text.contains("\n1. e4 "), "{text}");
    assert!(text.contains("transposes to"));
    assert!(text.contains("Where they vary most:"));

    // Errors: an unknown player (not found, with a hint), a bad colour, a bad output.
    let bad = run_raw(&[
        "prepare",
        "--db",
        db,
        "--player",
        "Nobody, Here",
        "--color",
        "white",
    ]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("no player named \"Nobody, Here\"") && err.contains("names search"),
        "{err}"
    );
    let bad = run_raw(&["prepare", "--db", db, "--player", NAME, "--color", "green"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("color \"green\": give white or black"),
        "{err}"
    );
    let bad = run_raw(&[
        "prepare", "--db", db, "--player", NAME, "--color", "white", "-o", "out.txt",
    ]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("give --format pgn, polyglot or ctg"));
    let bad = run_raw(&[
        "prepare",
        "--db",
        db,
        "--player",
        NAME,
        "--color",
        "white",
        "--min-games",
        "0",
    ]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("min-games 0"));
}

#[test]
fn the_api_gives_the_same_tree_and_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let pgn = shared("pgn/pgnmentor/Fischer.pgn");
    run_ok(&["import", "--db", db, pgn.to_str().unwrap()]);
    let cli = run_json(&[
        "prepare",
        "--json",
        "--db",
        db,
        "--player",
        NAME,
        "--color",
        "black",
        "--since",
        "1960",
        "--depth",
        "10",
        "--min-games",
        "3",
    ]);
    let server = Server::start(&["--db", &format!("mentor={db}")]);
    let u = |q: &str| format!("{}api/prepare?{q}", server.url);
    let r = get(&u(
        "db=mentor&player=fischer,+robert+james&color=black&since=1960&depth=10&minGames=3",
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.content_type, "application/json");
    assert_eq!(r.json(), cli);
    for (q, status, says) in [
        (
            "player=Fischer&color=green",
            400,
            "color \"green\": give white or black",
        ),
        ("color=white", 400, "player=NAME"),
        (
            "player=Nobody&color=white",
            404,
            "no player named \"Nobody\"",
        ),
        (
            "player=fischer,+robert+james&color=white&depth=0",
            400,
            "depth 0",
        ),
        (
            "player=fischer,+robert+james&color=white&since=soon",
            400,
            "since \"soon\"",
        ),
    ] {
        let r = get(&u(q));
        assert_eq!(r.status, status, "{q}: {}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains(says), "{q}");
    }
}
