//! `tabiya stats` against independent counts of the same games: python-chess counting the PGN
//! (`oracle/db_stats.py`: games by year, by result, by time-control class, the ratings
//! histogram, positions, the named openings most reached, games per player and event
//! spelling) after an import and after deletions (a deleted game counts nowhere); the WTHOR
//! reader of `oracle/wthor_oracle.py` for an Othello database. Notes are counted.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json as run_json, run_ok, shared};

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(name)
}

fn python(script: &Path, args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 with python-chess (the project's test command installs it)");
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Real games of every kind the view counts: 2012 (TWIC, rated), 1987–2011 with one game
/// without a result (Judit Polgar's), the 1850s without ratings (Morphy), a classical and a
/// rapid time control.
fn files() -> Vec<String> {
    [
        "pgn/twic/twic0920.pgn",
        "pgn/pgnmentor/PolgarJ.pgn",
        "pgn/pgnmentor/Morphy.pgn",
        "pgn/edge-cases/data_pgn_nepomniachtchi-liren-game1.pgn",
        "pgn/edge-cases/data_pgn_stockfish-learning.pgn",
    ]
    .iter()
    .map(|f| shared(f).display().to_string())
    .collect()
}

fn stats(db: &str) -> Value {
    run_json(&["stats", "--json", "--db", db])
}

/// Games per entry of a dictionary, from games per spelling (the oracle's): each listed
/// name's games are the sum over the spellings `tabiya names list` gives it.
fn by_entry(db: &str, kind: &str, per_spelling: &Value) -> BTreeMap<String, u64> {
    let list = run_json(&[
        "names", "list", "--json", "--db", db, "--kind", kind, "--limit", "100000",
    ]);
    let mut out = BTreeMap::new();
    for e in list["entries"].as_array().unwrap() {
        let games: u64 = e["spellings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| per_spelling[s.as_str().unwrap()].as_u64().unwrap_or(0))
            .sum();
        *out.entry(e["name"].as_str().unwrap().to_string())
            .or_default() += games;
    }
    out
}

fn unknown_name(n: &str) -> bool {
    let n = n.trim();
    n.chars().all(|c| c == '?') || ["-", "NN", "N.N.", "N. N.", "N.N"].contains(&n)
}

/// The top list shown is the names with the most games, as counted independently: every
/// shown count right, most first (then by name), and no name left out with more games than
/// the last shown.
fn check_top(what: &str, shown: &Value, counted: &BTreeMap<String, u64>) {
    let shown: Vec<(String, u64)> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["games"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut want: Vec<(String, u64)> = counted
        .iter()
        .filter(|(n, g)| **g > 0 && !unknown_name(n))
        .map(|(n, g)| (n.clone(), *g))
        .collect();
    want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    want.truncate(20);
    assert_eq!(shown, want, "{what}");
}

fn check(db: &str, got: &Value, want: &Value) {
    let games = want["games"].as_u64().unwrap();
    assert_eq!(got["games"], games);
    let years: BTreeMap<String, u64> = got["years"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| (y["year"].to_string(), y["games"].as_u64().unwrap()))
        .collect();
    let want_years: BTreeMap<String, u64> = serde_json::from_value(want["years"].clone()).unwrap();
    assert_eq!(years, want_years, "games by year");
    assert_eq!(got["noYear"], want["noYear"]);
    assert_eq!(got["results"], want["results"], "games by result");
    let r = &got["ratings"];
    let w = &want["ratings"];
    let bins: BTreeMap<String, u64> = r["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["from"].to_string(), b["ratings"].as_u64().unwrap()))
        .collect();
    let want_bins: BTreeMap<String, u64> = serde_json::from_value(w["bins"].clone()).unwrap();
    assert_eq!(bins, want_bins, "the ratings' bins");
    assert_eq!(r["binWidth"], 100);
    for f in [
        "ratings",
        "lowest",
        "highest",
        "gamesBothRated",
        "gamesOneRated",
        "gamesUnrated",
    ] {
        assert_eq!(r[f], w[f], "ratings: {f}");
    }
    let speeds = &got["speeds"];
    for c in speeds["classes"].as_array().unwrap() {
        let s = c["speed"].as_str().unwrap();
        assert_eq!(c["games"], want["speeds"][s], "speed {s}");
    }
    assert_eq!(speeds["unknown"], want["speedUnknown"]);
    let openings: Vec<Value> = got["topOpenings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            serde_json::json!({"eco": o["eco"], "name": o["name"], "uci": o["uci"], "games": o["games"]})
        })
        .collect();
    assert_eq!(
        Value::from(openings),
        want["topOpenings"],
        "the openings most reached"
    );
    check_top(
        "players",
        &got["topPlayers"],
        &by_entry(db, "player", &want["players"]),
    );
    check_top(
        "events",
        &got["topEvents"],
        &by_entry(db, "event", &want["events"]),
    );
    let k = &got["positionKinds"];
    let kinds: u64 = ["tree", "single", "implicit"]
        .iter()
        .map(|f| k[f].as_u64().unwrap())
        .sum();
    assert_eq!(kinds, got["positions"].as_u64().unwrap(), "{k}");
}

#[test]
fn stats_agree_with_python_chess_before_and_after_deletions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let d = db.to_str().unwrap();
    let files = files();
    // The game without a result, by its place: the `[Event` tags up to its `[Result "*"]`.
    let mut no_result = Vec::new();
    let mut place = 0u64;
    for f in &files {
        for line in String::from_utf8_lossy(&std::fs::read(f).unwrap()).lines() {
            let line = line.trim_start_matches('\u{feff}');
            if line.starts_with("[Event ") {
                place += 1;
            } else if line == "[Result \"*\"]" {
                no_result.push(place);
            }
        }
    }
    assert_eq!(
        no_result.len(),
        1,
        "Judit Polgar's file has one game without a result"
    );
    let total = place;
    let mut args = vec!["import", "--json", "--batch", "1000", "--db", d];
    args.extend(files.iter().map(String::as_str));
    let report = run_json(&args);
    // Every game is kept (none a duplicate, none refused): ids are places in the files.
    assert_eq!(report["imported"], total, "{report}");
    assert_eq!(report["duplicates"], 0);
    assert_eq!(report["skipped"], 0);

    // Deleted: TWIC's first three, its last, Polgar's first, the game without a result,
    // Morphy's last, the classical game, some games here and there, and six Sicilians.
    let sicilians = run_json(&[
        "games",
        "--json",
        "--sort",
        "id",
        "--db",
        d,
        "--play",
        "e2e4,c7c5",
        "--limit",
        "6",
    ]);
    let mut delete: Vec<u64> = sicilians["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().parse().unwrap())
        .collect();

    // (TWIC: 1..=2245; Polgar: 2246..=3890; Morphy: 3891..=4101; then the two timed games.)
    assert_eq!(total, 4103);
    delete.extend([1, 2, 3, 1000, 2245, 2246, 3000, 3900, 4101, 4102]);
    delete.extend(&no_result);
    delete.sort_unstable();
    delete.dedup();
    let listed: Vec<String> = delete.iter().map(u64::to_string).collect();
    let mut oracle_args = vec!["--delete".to_string(), listed.join(",")];
    oracle_args.extend(files.iter().cloned());
    let want = python(&oracle("db_stats.py"), &oracle_args);
    assert_eq!(want["errors"], 0);
    assert_eq!(want["read"], total);
    assert_eq!(want["noResult"], serde_json::json!(no_result));

    let before = stats(d);
    check(d, &before, &want["all"]);
    // Positions counted: each game's distinct positions.
    assert_eq!(before["positions"], want["all"]["positions"]);
    assert_eq!(before["results"]["unknown"], 1);
    // Nothing above was compared empty.
    for list in ["topOpenings", "topPlayers", "topEvents"] {
        assert_eq!(before[list].as_array().unwrap().len(), 20, "{list}");
    }
    assert!(before["years"].as_array().unwrap().len() > 30);
    assert!(before["ratings"]["gamesUnrated"].as_u64().unwrap() >= 211);
    let timed: Vec<u64> = before["speeds"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["games"].as_u64().unwrap())
        .collect();
    assert_eq!(timed, [0, 0, 0, 1, 1, 0], "one rapid, one classical game");
    assert_eq!(before["notes"], 0);

    let mut args = vec!["delete", "--json", "--db", d, "--game"];
    args.extend(listed.iter().map(String::as_str));
    let deleted = run_json(&args);
    assert_eq!(deleted["games"], delete.len(), "{deleted}");
    let after = stats(d);
    check(d, &after, &want["kept"]);
    assert_eq!(after["games"], total - delete.len() as u64);
    assert_eq!(after["results"]["unknown"], 0);
    // The runs still count the deleted games' positions until they are merged again
    // (docs/database.md, "Editing and deleting games").
    assert_eq!(after["positions"], before["positions"]);

    // Notes: two positions noted, one by two move orders (the same position: one note).
    run_ok(&["note", "set", "--db", d, "--play", "e2e4,c7c5", "Sharp."]);
    run_ok(&["note", "set", "--db", d, "--play", "g1f3,d7d5,d2d4", "QP."]);
    run_ok(&[
        "note",
        "set",
        "--db",
        d,
        "--play",
        "d2d4,d7d5,g1f3",
        "Queen's Pawn.",
    ]);
    assert_eq!(stats(d)["notes"], 2);

    // Gamesets and flashcards are counted too: a gameset of the games from 2000 on (as
    // many as the years above, which python-chess counted, say), two cards made by hand.
    assert_eq!(stats(d)["gamesets"].as_array().unwrap().len(), 0);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        d,
        "later",
        "--where",
        "year >= 2000",
    ]);
    let later: u64 = after["years"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|y| y["year"].as_u64().unwrap() >= 2000)
        .map(|y| y["games"].as_u64().unwrap())
        .sum();
    let s = stats(d);
    assert_eq!(s["gamesets"][0]["name"], "later");
    assert_eq!(s["gamesets"][0]["games"], later);
    run_ok(&[
        "cards", "add", "--db", d, "--play", "e2e4", "--move", "c7c5",
    ]);
    run_ok(&["cards", "add", "--db", d, "--move", "e2e4"]);
    assert_eq!(stats(d)["cards"], 2);
}

#[test]
fn othello_stats_agree_with_the_wthor_reader() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("othello");
    let d = db.to_str().unwrap();
    let files: Vec<String> = ["wthor/WTH_1981.wtb", "wthor/WTH_1982.wtb"]
        .iter()
        .map(|f| shared(f).display().to_string())
        .collect();
    let mut args = vec!["import", "--json", "--db", d];
    args.extend(files.iter().map(String::as_str));
    let report = run_json(&args);
    let mut rows_args = vec!["rows".to_string()];
    rows_args.extend(files.iter().cloned());
    let rows = python(&oracle("wthor_oracle.py"), &rows_args);
    let rows = rows.as_array().unwrap();
    assert_eq!(report["imported"], rows.len());

    let got = stats(d);
    assert_eq!(got["kind"], "othello");
    assert_eq!(got["games"], rows.len());
    // What only chess has is left out.
    for f in ["ratings", "speeds", "topOpenings"] {
        assert!(got.get(f).is_none(), "{f} in {got}");
    }
    let (mut black, mut draws, mut white) = (0u64, 0u64, 0u64);
    let mut years: BTreeMap<String, u64> = BTreeMap::new();
    let mut players: HashMap<String, u64> = HashMap::new();
    let mut tournaments: HashMap<String, u64> = HashMap::new();
    for r in rows {
        match r["blackScore"].as_u64().unwrap() {
            s if s > 32 => black += 1,
            32 => draws += 1,
            _ => white += 1,
        }
        *years.entry(r["year"].to_string()).or_default() += 1;
        for side in ["blackPlayerName", "whitePlayerName"] {
            *players
                .entry(r[side].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        *tournaments
            .entry(r["tournamentName"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    assert_eq!(
        got["results"],
        serde_json::json!({"black": black, "draws": draws, "white": white, "unknown": 0})
    );
    let got_years: BTreeMap<String, u64> = got["years"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| (y["year"].to_string(), y["games"].as_u64().unwrap()))
        .collect();
    assert_eq!(got_years, years);
    check_top(
        "Othello players",
        &got["topPlayers"],
        &players.into_iter().collect(),
    );
    check_top(
        "tournaments",
        &got["topEvents"],
        &tournaments.into_iter().collect(),
    );
}
