//! `tabiya search` against independent counts on real games (TWIC 920, Kasparov's games):
//! material signatures, pawn structures and bishops of opposite colours against python-chess
//! (`oracle/structure_oracle.py`: the matching games, the first matching ply of each, the
//! results, the moves played there), patterns against Debian's pgn-extract (`FENPattern`,
//! `FENPatternI`), with filters; games outside the structure index and in it, once it is
//! built for all, and again after edits and deletions.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{json, run_ok, shared};
use serde_json::{Value, json};

const TWIC: &str = "pgn/twic/twic0920.pgn";
const KASPAROV: &str = "pgn/pgnmentor/Kasparov.pgn";

/// The queries asked of python-chess and of Tabiya.
fn queries() -> Vec<Value> {
    let q = |material: Option<&str>, pawns: Option<&str>, either: bool, hold: u32, ocb: bool| json!({"material": material, "pawns": pawns, "either": either, "hold": hold, "ocb": ocb, "ratingMin": null});
    let mut v = vec![
        q(Some("KRPvKR"), None, false, 1, false),
        q(Some("KRPvKR"), None, true, 1, false),
        q(Some("KRvKR"), None, false, 1, false),
        q(Some("KQP*vKQP*"), None, true, 1, false),
        q(Some("KRP*vKRP*"), None, false, 1, false),
        q(Some("KRP*vKRP*"), None, false, 12, false),
        q(Some("KRP*vKmmP*"), None, true, 1, false),
        q(Some("KQP*vKRRP*"), None, true, 1, false),
        q(Some("KBP*vKNP*"), None, false, 1, false),
        q(Some("KQ+R*B*N*P*vKR*B*N*P*"), None, false, 1, false),
        q(Some("KBP*vKBP*"), None, false, 1, true),
        q(None, None, false, 1, true),
        // The start's pawns (every game, at ply 0), then common structures.
        q(None, Some("8/pppppppp/8/8/8/8/PPPPPPPP/8"), false, 1, false),
        q(
            None,
            Some("8/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/8"),
            false,
            1,
            false,
        ),
        q(
            None,
            Some("8/pp2pppp/3p4/8/4P3/8/PPP2PPP/8"),
            false,
            1,
            false,
        ),
        q(None, Some("8/pp3ppp/4p3/8/3P4/8/PP3PPP/8"), true, 1, false),
        q(
            None,
            Some("8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8"),
            true,
            1,
            false,
        ),
        q(
            Some("KQRRBBNNPPPPPPvKQRRBBNNPPPPPP"),
            Some("8/pp3ppp/4p3/8/3P4/8/PP3PPP/8"),
            false,
            1,
            false,
        ),
    ];
    // With a filter: games whose players' mean rating is 2400 or more.
    for i in [0, 4, 13, 15] {
        let mut f = v[i].clone();
        f["ratingMin"] = json!(2400);
        v.push(f);
    }
    v
}

/// `tabiya search` of one query, every game listed in id order.
fn tabiya(db: &Path, q: &Value) -> Value {
    tabiya_page(db, q, "id", 0, 100_000)
}

/// `tabiya search` of one query, a page of games in one order.
fn tabiya_page(db: &Path, q: &Value, sort: &str, offset: usize, limit: usize) -> Value {
    let args = search_args(db, q, sort, offset, limit);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&args)
}

/// `tabiya search`'s arguments for a query and a page of its games.
fn search_args(db: &Path, q: &Value, sort: &str, offset: usize, limit: usize) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "search".into(),
        "--db".into(),
        db.display().to_string(),
        "--json".into(),
        "--sort".into(),
        sort.into(),
        "--offset".into(),
        offset.to_string(),
        "--limit".into(),
        limit.to_string(),
        "--next".into(),
        "100000".into(),
    ];
    for (key, flag) in [("material", "--material"), ("pawns", "--pawns")] {
        if let Some(s) = q[key].as_str() {
            args.extend([flag.to_string(), s.to_string()]);
        }
    }
    if q["either"].as_bool() == Some(true) {
        args.push("--either-colour".into());
    }
    if q["ocb"].as_bool() == Some(true) {
        args.push("--opposite-bishops".into());
    }
    args.extend(["--for".into(), q["hold"].to_string()]);
    if let Some(r) = q["ratingMin"].as_u64() {
        args.extend(["--rating-min".into(), r.to_string()]);
    }
    args
}

/// Tabiya's answer in the oracle's terms: games with their first ply, totals, moves.
fn as_oracle(a: &Value) -> Value {
    let games: Vec<Value> = a["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| json!([g["id"].as_str().unwrap().parse::<u64>().unwrap(), g["ply"]]))
        .collect();
    let mut moves = BTreeMap::new();
    for m in a["moves"].as_array().unwrap() {
        moves.insert(
            m["uci"].as_str().unwrap().to_string(),
            json!({"white": m["white"], "draws": m["draws"], "black": m["black"], "unknown": m["unknown"]}),
        );
    }
    let mut out = json!({
        "games": games, "white": a["white"], "draws": a["draws"], "black": a["black"],
        "unknown": a["unknown"], "ended": a["ended"], "moves": moves,
    });
    if let Some(next) = a["next"].as_array().filter(|n| !n.is_empty()) {
        let mut by = BTreeMap::new();
        for n in next {
            by.insert(
                n["pawns"].as_str().unwrap().to_string(),
                json!({"white": n["white"], "draws": n["draws"], "black": n["black"], "unknown": n["unknown"]}),
            );
        }
        out["next"] = serde_json::to_value(by).unwrap();
    }
    out
}

/// python-chess's answers to every query in each scenario (`{"files": N, "drop": [...],
/// "results": {...}}`: the games of the first N files, some deleted, some results changed).
fn oracle(pgns: &[&Path], queries: &[Value], scenarios: &[Value], dir: &Path) -> Vec<Vec<Value>> {
    let qfile = dir.join("queries.json");
    std::fs::write(&qfile, serde_json::to_vec(queries).unwrap()).unwrap();
    let sfile = dir.join("scenarios.json");
    std::fs::write(&sfile, serde_json::to_vec(scenarios).unwrap()).unwrap();
    let mut args = vec![qfile.display().to_string(), sfile.display().to_string()];
    args.extend(pgns.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = common::oracle_json("structure_oracle.py", &args);
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_array().unwrap().clone())
        .collect()
}

/// Every query's answer equals python-chess's (moves keyed by UCI, sorted).
fn compare(db: &Path, queries: &[Value], expected: &[Value], when: &str) -> usize {
    let mut telling = 0;
    for (q, want) in queries.iter().zip(expected) {
        let got = as_oracle(&tabiya(db, q));
        let mut want = want.clone();
        let sorted: BTreeMap<String, Value> = serde_json::from_value(want["moves"].take()).unwrap();
        want["moves"] = serde_json::to_value(sorted).unwrap();
        if want.get("next").is_some() {
            let next: BTreeMap<String, Value> =
                serde_json::from_value(want["next"].take()).unwrap();
            want["next"] = serde_json::to_value(next).unwrap();
        }
        assert_eq!(got, want, "{when}: query {q}");
        pages_agree(db, q, when);
        let n = want["games"].as_array().unwrap().len();
        eprintln!("{when}: {q}: {n} games");
        if n > 0 {
            telling += 1;
        }
    }
    telling
}

/// The first pages in each order (what the shape statistics' lists answer for a popular
/// structure) are the first games of the whole list in that order, with the same totals.
fn pages_agree(db: &Path, q: &Value, when: &str) {
    let ids = |a: &Value| -> Vec<String> {
        a["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| format!("{}@{}", g["id"].as_str().unwrap(), g["ply"]))
            .collect()
    };
    // The first moves only (`--moves`): those of the whole list, and how many there are.
    let full = tabiya_page(db, q, "rating", 0, 1);
    let moves = full["moves"].as_array().unwrap();
    assert_eq!(full["distinctMoves"], moves.len(), "{when}: {q}");
    let mut args = search_args(db, q, "rating", 0, 1);
    args.extend(["--moves".into(), "3".into()]);
    let few = json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        few["moves"].as_array().unwrap()[..],
        moves[..moves.len().min(3)],
        "{when}: --moves 3 of {q}"
    );
    assert_eq!(few["distinctMoves"], moves.len(), "{when}: {q}");
    for sort in ["rating", "date", "id"] {
        let full = tabiya_page(db, q, sort, 0, 100_000);
        let all = ids(&full);
        for (offset, limit) in [(0, 20), (30, 34)] {
            let page = tabiya_page(db, q, sort, offset, limit);
            let want: Vec<String> = all.iter().skip(offset).take(limit).cloned().collect();
            assert_eq!(ids(&page), want, "{when}: {sort} {offset}+{limit} of {q}");
            for k in [
                "games", "white", "draws", "black", "unknown", "moves", "next",
            ] {
                assert_eq!(page[k], full[k], "{when}: {k} of {q}");
            }
        }
    }
}

#[test]
fn materials_and_pawn_structures_as_python_chess_counts_them_after_edits_and_deletions() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    let (pgn, kasparov) = (shared(TWIC), shared(KASPAROV));
    // TWIC's games outside the structure index, Kasparov's in it: a search reads both.
    run_ok(&["import", "--db", d, pgn.to_str().unwrap()]);
    run_ok(&[
        "import",
        "--db",
        d,
        "--structures",
        kasparov.to_str().unwrap(),
    ]);
    // The same games without the structure index: every search replays every game there.
    let plain = tmp.path().join("plain");
    let p = plain.to_str().unwrap();
    run_ok(&["import", "--db", p, pgn.to_str().unwrap()]);
    run_ok(&["import", "--db", p, kasparov.to_str().unwrap()]);
    let qs = queries();
    // A third file: TWIC's first 40 games again, in other rounds (so not duplicates).
    let again = tmp.path().join("again.pgn");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let cut = text.match_indices("[Event ").nth(40).unwrap().0;
    std::fs::write(&again, text[..cut].replace("[Round \"", "[Round \"again ")).unwrap();
    let files = [pgn.as_path(), kasparov.as_path(), again.as_path()];
    let mut answers = oracle(
        &files,
        &qs,
        &[json!({"files": 2}), json!({"files": 3})],
        tmp.path(),
    );
    let (expected, expected_again) = (answers.remove(0), answers.remove(0));
    let telling = compare(&db, &qs, &expected, "half indexed");
    assert!(telling >= 18, "most queries find games: {telling}");
    let first = tabiya(&db, &qs[0]);
    assert_eq!(
        first["unindexed"],
        json!(2245),
        "TWIC's games are read one by one"
    );
    let built = json(&["db", "structures", "--db", d, "--json"]);
    assert_eq!(built["games"], json!(2245), "{built}");
    assert_eq!(built["recounted"], json!(true), "{built}");
    // Over every stored game, no more (ids begin at 1).
    let stored = json(&["stats", "--db", d, "--json"])["games"].clone();
    assert!(stored.as_u64().unwrap() > 2245, "{stored}");
    assert_eq!(built["statistics"]["games"], stored, "{built}");
    // Asked again with nothing new: nothing built, the statistics kept as counted.
    let rebuilt = json(&["db", "structures", "--db", d, "--json"]);
    assert_eq!(rebuilt["games"], json!(0), "{rebuilt}");
    assert_eq!(rebuilt["squared"], json!(0), "{rebuilt}");
    assert_eq!(rebuilt["recounted"], json!(false), "{rebuilt}");
    assert_eq!(rebuilt["statistics"], built["statistics"], "{rebuilt}");
    compare(&db, &qs, &expected, "indexed");
    same_as_replayed(&db, &plain, &qs, "indexed");
    // The start's pawns: every game has them; the shape statistics answer (no replay).
    let start = tabiya_page(&db, &qs[12], "rating", 0, 20);
    assert_eq!(start["replayed"], json!(0), "{start}");
    let first = tabiya(&db, &qs[0]);
    assert_eq!(first["unindexed"], json!(0));
    assert_eq!(
        first["replayed"], first["games"],
        "an exact material signature's candidates are its games"
    );
    // Gamesets of structure criteria hold the same games, and stay current.
    run_ok(&[
        "gameset",
        "create",
        "rooks",
        "--db",
        d,
        "--where",
        "material(\"KRP*vKRP*\")",
    ]);
    run_ok(&[
        "gameset",
        "create",
        "open",
        "--db",
        d,
        "--where",
        "pawns \"8/pp2pppp/3p4/8/4P3/8/PPP2PPP/8\"",
    ]);
    let ids_of = |answer: &Value| -> Vec<u64> {
        answer["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g[0].as_u64().unwrap())
            .collect()
    };
    let gameset = |name: &str| -> Vec<u64> {
        let g = json(&[
            "gameset", "games", name, "--db", d, "--json", "--limit", "100000",
        ]);
        g["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(gameset("rooks"), ids_of(&expected[4]));
    assert_eq!(gameset("open"), ids_of(&expected[14]));
    // A later import without --structures keeps the index (the database keeps it).
    run_ok(&["import", "--db", d, again.to_str().unwrap()]);
    run_ok(&["import", "--db", p, again.to_str().unwrap()]);
    let after = tabiya(&db, &qs[12]);
    assert_eq!(
        after["unindexed"],
        json!(0),
        "the new games are in the index"
    );
    compare(&db, &qs, &expected_again, "imported again");
    same_as_replayed(&db, &plain, &qs, "imported again");
    assert_eq!(gameset("rooks"), ids_of(&expected_again[4]));
    assert_eq!(gameset("open"), ids_of(&expected_again[14]));

    // Delete some matching games and some others; change results of others.
    let first_of = |i: usize, k: usize| expected[i]["games"][k][0].as_u64().unwrap();
    // Game 0 names moves in many shape statistics (it is the first to play them): they are
    // named again by the next game that played each.
    let drop = [
        0,
        first_of(0, 0),
        first_of(4, 3),
        first_of(13, 5),
        17,
        1200,
        3000,
    ];
    let ids: Vec<String> = drop.iter().map(u64::to_string).collect();
    for on in [d, p] {
        let mut args = vec!["delete", "--db", on, "--game"];
        args.extend(ids.iter().map(String::as_str));
        run_ok(&args);
    }
    let mut results = serde_json::Map::new();
    for (id, result) in [
        (first_of(4, 0), "0-1"),
        (first_of(13, 1), "1-0"),
        (first_of(15, 0), "*"),
        (first_of(16, 0), "1/2-1/2"),
    ] {
        if drop.contains(&id) {
            continue;
        }
        for on in [d, p] {
            run_ok(&[
                "edit",
                "--db",
                on,
                "--game",
                &id.to_string(),
                "--set",
                &format!("Result={result}"),
            ]);
        }
        results.insert(id.to_string(), json!(result));
    }
    let changes = json!({"files": 3, "drop": drop, "results": results});
    let expected = oracle(&files, &qs, &[changes], tmp.path()).remove(0);
    compare(&db, &qs, &expected, "after edits and deletions");
    same_as_replayed(&db, &plain, &qs, "after edits and deletions");
}

/// Every answer of the indexed database (its shape statistics, its candidates) is the one
/// replaying every game of the same games gives, to the names of the moves (a move is
/// named by the first game that played it, even once that game is deleted), but for the
/// games replayed.
fn same_as_replayed(db: &Path, plain: &Path, queries: &[Value], when: &str) {
    let without = |mut a: Value| {
        a.as_object_mut().unwrap().remove("replayed");
        a.as_object_mut().unwrap().remove("unindexed");
        a
    };
    for q in queries {
        for (sort, limit) in [("id", 100_000), ("rating", 20), ("date", 50)] {
            assert_eq!(
                without(tabiya_page(db, q, sort, 0, limit)),
                without(tabiya_page(plain, q, sort, 0, limit)),
                "{when}: {sort} {limit} of {q}"
            );
        }
    }
}

/// The games pgn-extract selects with a `FENPattern` (or `FENPatternI`) criterion: each
/// game's White, Black, Date, Round and Result.
fn pgn_extract(file: &Path, tag: &str, pattern: &str, dir: &Path) -> Vec<[String; 5]> {
    let criteria = dir.join("criteria");
    std::fs::write(&criteria, format!("{tag} \"{pattern}\"\n")).unwrap();
    let out = dir.join("out.pgn");
    let _ = std::fs::remove_file(&out);
    let o = Command::new("/usr/games/pgn-extract")
        .args(["-s", "-t"])
        .arg(&criteria)
        .arg("-o")
        .arg(&out)
        .arg(file)
        .output()
        .expect("pgn-extract (Debian's pgn-extract) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let mut games = Vec::new();
    let mut tags: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('[')
            && let Some((name, value)) = rest.split_once(' ')
        {
            let value = value.trim_end_matches(']').trim_matches('"').to_string();
            if name == "Event" && !tags.is_empty() {
                games.push(identity(&tags));
                tags.clear();
            }
            tags.insert(name.to_string(), value);
        }
    }
    if !tags.is_empty() {
        games.push(identity(&tags));
    }
    games.sort();
    games
}

fn identity(tags: &BTreeMap<String, String>) -> [String; 5] {
    let t = |k: &str| tags.get(k).cloned().unwrap_or_else(|| "?".into());
    [t("White"), t("Black"), t("Date"), t("Round"), t("Result")]
}

#[test]
fn patterns_select_the_games_pgn_extract_selects() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let pgn = shared(TWIC);
    run_ok(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    let mut telling = 0;
    // Every game read, then the structure index's candidates (its square index: the games
    // that had each pinned piece on its square) replayed.
    for indexed in [false, true] {
        if indexed {
            run_ok(&["db", "structures", "--db", db.to_str().unwrap()]);
        }
        for pattern in [
            // An isolated queen's pawn: d4, no white pawn on the c- or e-file.
            "*/*/*/*/3P4/*/*/*",
            // A white knight on d5 before a black pawn on d6.
            "*/*/???p????/???N????/*/*/*/*",
            // A white rook on the seventh rank.
            "*/R*/*/*/*/*/*/*",
            // Kings castled on opposite wings.
            "?k*/*/*/*/*/*/*/??????K?",
            // A black piece on c6 and a white one on c3; d4 and e5 occupied, d5 and e4 empty.
            "*/*/2a*/*/*/2A*/*/*",
            "*/*/*/???1!???/???!1???/*/*/*",
            // Not a black pawn nor a black knight on f6, and a white bishop on g5.
            "*/*/?????[^pn]??/??????B?/*/*/*/*",
        ] {
            for (tag, either) in [("FENPattern", false), ("FENPatternI", true)] {
                let theirs = pgn_extract(&pgn, tag, pattern, tmp.path());
                let mut args = vec![
                    "search",
                    "--db",
                    db.to_str().unwrap(),
                    "--pattern",
                    pattern,
                    "--json",
                    "--limit",
                    "100000",
                ];
                if either {
                    args.push("--either-colour");
                }
                let a = json(&args);
                let mut mine: Vec<[String; 5]> = a["list"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| {
                        let s = |v: &Value| v.as_str().unwrap().to_string();
                        [
                            s(&g["white"]["name"]),
                            s(&g["black"]["name"]),
                            s(&g["date"]),
                            s(&g["round"]),
                            s(&g["result"]),
                        ]
                    })
                    .collect();
                mine.sort();
                assert_eq!(
                    a["games"].as_u64().unwrap() as usize,
                    theirs.len(),
                    "{tag} {pattern}"
                );
                assert_eq!(mine, theirs, "{tag} {pattern}");
                let count = |r: &str| theirs.iter().filter(|g| g[4] == r).count() as u64;
                assert_eq!(
                    a["white"].as_u64().unwrap(),
                    count("1-0"),
                    "{tag} {pattern}"
                );
                assert_eq!(
                    a["draws"].as_u64().unwrap(),
                    count("1/2-1/2"),
                    "{tag} {pattern}"
                );
                assert_eq!(
                    a["black"].as_u64().unwrap(),
                    count("0-1"),
                    "{tag} {pattern}"
                );
                let replayed = a["replayed"].as_u64().unwrap();
                eprintln!(
                    "{tag} {pattern}: {} games, {replayed} replayed (indexed: {indexed})",
                    theirs.len()
                );
                // A pattern that pins pieces (all but the sixth, whose squares need only be
                // occupied or empty) is narrowed by the square index: fewer games replayed
                // than TWIC's 2,245.
                let pins = !pattern.contains("???1!???");
                if indexed && pins {
                    assert!(replayed < 2245, "{tag} {pattern}: {replayed} replayed");
                    assert_eq!(a["unindexed"], json!(0), "{tag} {pattern}");
                } else {
                    assert_eq!(replayed, 2245, "{tag} {pattern}: every game");
                }
                if !theirs.is_empty() {
                    telling += 1;
                }
            }
        }
    }
    assert!(telling >= 20, "most patterns find games: {telling}");
}

#[test]
fn mistakes_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    run_ok(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        shared(TWIC).to_str().unwrap(),
    ]);
    let d = db.to_str().unwrap();
    for (args, says) in [
        (vec!["--material", "KRP"], "White's pieces, v, Black's"),
        (vec!["--pawns", "8/8/8"], "3 part(s)"),
        (
            vec!["--pawns", "P7/8/8/8/8/8/8/8"],
            "no pawn stands on the first or last rank",
        ),
        (vec!["--pattern", "8/8/8/8/8/8/8/9"], "pattern"),
        (
            vec![],
            "needs a pattern, a material signature or a pawn structure",
        ),
        (
            vec!["--material", "KRvKR", "--for", "5000"],
            "at most 1000 plies",
        ),
    ] {
        let mut all = vec!["search", "--db", d];
        all.extend(args.iter());
        let out = common::run_raw(&all);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
