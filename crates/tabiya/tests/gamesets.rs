//! Gamesets end to end: made from criteria on half of a real file, kept current through the
//! other half's import, edits and deletions, their games equal to what python-chess selects
//! from the PGN edited the same way (`oracle/gameset_oracle.py`, the criteria coded by hand
//! there), and the explorer over a gameset equal to python-chess counting those games.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod common;
use common::{BIN, json as run_json, run_ok, run_raw, shared};

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(name)
}

fn python(args: &[String]) -> Value {
    let out = Command::new("python3")
        .args(args)
        .output()
        .expect("python3 with python-chess (the project's test command installs it)");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Games with comments, a NAG and a variation (TWIC has none), one a Sicilian.
const ANNOTATED: &str = "\n[Event \"Notes\"]\n[Site \"Here\"]\n[Date \"2012.06.20\"]\n[Round \"1\"]\n[White \"Author, A\"]\n[Black \"Reader, R\"]\n[Result \"1-0\"]\n[WhiteElo \"2100\"]\n[BlackElo \"2000\"]\n\n1. e4 c5 {The Sicilian.} 2. Nf3 d6 (2... Nc6 3. d4) 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 $1 1-0\n\n[Event \"Notes\"]\n[Site \"Here\"]\n[Date \"2012.06.21\"]\n[Round \"2\"]\n[White \"Reader, R\"]\n[Black \"Author, A\"]\n[Result \"0-1\"]\n\n{A short one.} 1. d4 d5 2. c4 e6 0-1\n";

/// The two halves of TWIC 920 (games 1–1200, then the rest and two annotated games), as
/// files, and the whole.
fn halves(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let text = std::fs::read_to_string(shared("pgn/twic/twic0920.pgn")).unwrap();
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    assert_eq!(starts.len(), 2245);
    let (a, b, w) = (
        dir.join("first.pgn"),
        dir.join("second.pgn"),
        dir.join("whole.pgn"),
    );
    std::fs::write(&a, &text[..starts[1200]]).unwrap();
    std::fs::write(&b, format!("{}{ANNOTATED}", &text[starts[1200]..])).unwrap();
    std::fs::write(&w, format!("{text}{ANNOTATED}")).unwrap();
    (a, b, w)
}

const REPERTOIRE: &str = "[Event \"rep\"]\n[Result \"*\"]\n\n1. e4 c5 (1... e5 2. Nf3 Nc6 3. Bb5) 2. Nf3 d6 (2... Nc6 3. d4 cxd4 4. Nxd4) (2... e6) 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 *\n\n[Event \"rep\"]\n[Result \"*\"]\n\n1. d4 Nf6 2. c4 e6 3. Nf3 (3. Nc3 Bb4) b6 *\n";

/// (case, criteria, parent)
fn cases(rep: &str) -> Vec<(&'static str, String, Option<&'static str>)> {
    vec![
        ("strong", "avgelo >= 2500 and result = '1-0'".into(), None),
        ("sicilian", "reaches e4 c5".into(), None),
        (
            "sicstrong",
            "avgelo >= 2600 or annotated".into(),
            Some("sicilian"),
        ),
        (
            "endings",
            "material queenless and result = draw and plies >= 60".into(),
            None,
        ),
        (
            "eco",
            "not event ~ 'ch-RUS' and (eco = B90 or eco ~ e)".into(),
            None,
        ),
        (
            "dated",
            "date = 2012.06.16..2012.06.18 and whiteelo > 2600".into(),
            None,
        ),
        ("opening", "opening = 'Sicilian Defense'".into(), None),
        ("repertoire", format!("follows '{rep}' 8"), None),
        ("annotated", "annotated".into(), None),
    ]
}

/// Fingerprints of the games of each gameset named, as exported.
fn exported(db: &str, names: &[&str], dir: &Path) -> Vec<Vec<Value>> {
    let files: Vec<String> = names
        .iter()
        .map(|name| {
            let out = dir.join(format!("{name}.pgn"));
            run_ok(&[
                "gameset",
                "export",
                "--db",
                db,
                name,
                "-o",
                out.to_str().unwrap(),
            ]);
            out.display().to_string()
        })
        .collect();
    let mut args = vec![
        oracle("gameset_oracle.py").display().to_string(),
        "fingerprints".into(),
    ];
    args.extend(files.iter().cloned());
    let all = python(&args);
    files
        .iter()
        .map(|f| all[f].as_array().unwrap().clone())
        .collect()
}

/// What python-chess selects for every case.
fn selected(rep: &Path, pgn: &Path) -> Value {
    python(&[
        oracle("gameset_oracle.py").display().to_string(),
        "select".into(),
        rep.display().to_string(),
        pgn.display().to_string(),
    ])
}

fn members(db: &str, name: &str) -> Vec<u64> {
    let page = run_json(&[
        "gameset", "games", "--json", "--db", db, name, "--limit", "100000",
    ]);
    page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn gamesets_stay_equal_to_python_chess_through_imports_edits_and_deletions() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second, whole) = halves(dir.path());
    let rep = dir.path().join("rep.pgn");
    std::fs::write(&rep, REPERTOIRE).unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    run_ok(&["import", "--db", db, first.to_str().unwrap()]);
    let rep_s = rep.display().to_string();
    let on_first = selected(&rep, &first);
    for (name, criteria, parent) in cases(&rep_s) {
        let mut args = vec!["gameset", "create", "--json", "--db", db, name];
        args.extend(["--where", criteria.as_str()]);
        if let Some(p) = parent {
            args.extend(["--from", p]);
        }
        let made = run_json(&args);
        assert_eq!(made["name"], name);
        let want = on_first[name].as_array().unwrap().len();
        assert_eq!(made["games"], want, "{name} on the first half");
    }
    // The second half joins them as it is imported.
    run_ok(&["import", "--db", db, second.to_str().unwrap()]);

    // Edits and deletions: strong games lose, others win; Sicilians go.
    let strong = members(db, "strong");
    let sicilian = members(db, "sicilian");
    assert!(strong.len() > 10 && sicilian.len() > 10);
    let mut sets = vec![];
    for &id in &strong[..3] {
        run_ok(&[
            "edit",
            "--db",
            db,
            "--game",
            &id.to_string(),
            "--set",
            "Result=0-1",
        ]);
        sets.push(json!([id, "Result", "0-1"]));
    }
    // A game of no strong criterion made one: both ratings high, White won.
    let outsider = (1..2245u64)
        .find(|id| !strong.contains(id) && !sicilian.contains(id))
        .unwrap();
    run_ok(&[
        "edit",
        "--db",
        db,
        "--game",
        &outsider.to_string(),
        "--set",
        "WhiteElo=2700",
        "--set",
        "BlackElo=2650",
        "--set",
        "Result=1-0",
        "--set",
        "ECO=B90",
        "--set",
        "Date=2012.06.17",
    ]);
    for (t, v) in [
        ("WhiteElo", "2700"),
        ("BlackElo", "2650"),
        ("Result", "1-0"),
        ("ECO", "B90"),
        ("Date", "2012.06.17"),
    ] {
        sets.push(json!([outsider, t, v]));
    }
    let gone: Vec<u64> = sicilian[..4].to_vec();
    let mut del = vec!["delete", "--db", db, "--game"];
    let gone_s: Vec<String> = gone.iter().map(u64::to_string).collect();
    del.extend(gone_s.iter().map(String::as_str));
    run_ok(&del);

    // python-chess edits the whole file the same way, then selects.
    let spec = dir.path().join("edits.json");
    std::fs::write(&spec, json!({"delete": gone, "set": sets}).to_string()).unwrap();
    let edited = dir.path().join("edited.pgn");
    python(&[
        oracle("edit_pgn.py").display().to_string(),
        whole.display().to_string(),
        edited.display().to_string(),
        spec.display().to_string(),
    ]);
    let wanted = selected(&rep, &edited);
    let names: Vec<&str> = cases(&rep_s).iter().map(|c| c.0).collect();
    let got_all = exported(db, &names, dir.path());
    for (name, got) in names.iter().zip(got_all) {
        let want = wanted[name].as_array().unwrap().clone();
        assert!(
            !want.is_empty(),
            "{name}: a case without games tests nothing"
        );
        assert_eq!(got.len(), want.len(), "{name}: games");
        assert_eq!(got, want, "{name}: the same games");
        // Computing it again from scratch finds the same games.
        let again = run_json(&["gameset", "refresh", "--json", "--db", db, name]);
        assert_eq!(again[0]["games"], want.len(), "{name}: refreshed");
    }
    assert!(members(db, "strong").contains(&outsider));
    assert!(!members(db, "sicilian").contains(&gone[0]));

    // The explorer over a gameset: python-chess counts the same games.
    let subset = dir.path().join("sicilian-games.pgn");
    python(&[
        oracle("gameset_oracle.py").display().to_string(),
        "write".into(),
        "sicstrong".into(),
        rep.display().to_string(),
        subset.display().to_string(),
        edited.display().to_string(),
    ]);
    let lines = ["e2e4,c7c5", "e2e4,c7c5,g1f3", "e2e4,c7c5,g1f3,d7d6"];
    let mut args = vec![subset.display().to_string(), "--".into()];
    args.extend(lines.iter().map(|s| s.to_string()));
    let mut call = vec![oracle("explore_oracle.py").display().to_string()];
    call.extend(args);
    let expected = python(&call);
    for line in lines {
        let got = run_json(&[
            "explore",
            "--json",
            "--db",
            db,
            "--gameset",
            "sicstrong",
            "--play",
            line,
        ]);
        let want = &expected[line];
        for f in ["white", "draws", "black", "unknown"] {
            assert_eq!(got[f], want["total"][f], "{line}: {f}");
        }
        let want_moves = want["moves"].as_object().unwrap();
        let got_moves = got["moves"].as_array().unwrap();
        assert_eq!(got_moves.len(), want_moves.len(), "{line}: moves");
        for m in got_moves {
            let uci = m["uci"].as_str().unwrap();
            for f in [
                "white",
                "draws",
                "black",
                "averageRating",
                "performance",
                "firstYear",
                "lastYear",
            ] {
                assert_eq!(m[f], want_moves[uci][f], "{line} {uci}: {f}");
            }
        }
        let g = run_json(&[
            "games",
            "--json",
            "--db",
            db,
            "--gameset",
            "sicstrong",
            "--play",
            line,
        ]);
        assert_eq!(g["total"], want["games"], "{line}: games");
    }
    // Criteria given directly answer as the gameset made of them.
    let by_set = run_json(&["explore", "--json", "--db", db, "--gameset", "strong"]);
    let by_where = run_json(&[
        "explore",
        "--json",
        "--db",
        db,
        "--where",
        "avgelo >= 2500 and result = '1-0'",
    ]);
    assert_eq!(by_set, by_where);
}

#[test]
fn mistakes_are_refused_with_the_word_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    run_ok(&[
        "import",
        "--db",
        db,
        shared("pgn/twic/twic0920.pgn").to_str().unwrap(),
    ]);
    let fail = |args: &[&str], says: &[&str]| {
        let out = run_raw(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        for s in says {
            assert!(err.contains(s), "{args:?}: {err} lacks {s:?}");
        }
        assert!(!err.contains("panicked"), "{err}");
    };
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "x",
            "--where",
            "avgelo >= 25x0",
        ],
        &["a rating expected", "25x0", "column 11", "^^^^"],
    );
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "x",
            "--where",
            "reaches e4 e5 Ke3",
        ],
        &["move 2. \"Ke3\"", "not legal here", "column 15"],
    );
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "x",
            "--where",
            "(year = 2012",
        ],
        &["`)`"],
    );
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "x",
            "--where",
            "result = won",
        ],
        &["1-0, 0-1"],
    );
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "x",
            "--where",
            "follows nowhere.pgn",
        ],
        &["nowhere.pgn", "cannot read"],
    );
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "sic",
        "--where",
        "reaches e4 c5",
    ]);
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "SIC",
            "--where",
            "annotated",
        ],
        &["exists already"],
    );
    fail(
        &[
            "gameset",
            "create",
            "--db",
            db,
            "y",
            "--where",
            "annotated",
            "--from",
            "nope",
        ],
        &["no gameset \"nope\""],
    );
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "najdorf",
        "--from",
        "sic",
        "--where",
        "eco = B90",
    ]);
    fail(
        &["gameset", "delete", "--db", db, "sic"],
        &["parent of najdorf"],
    );
    fail(
        &["explore", "--db", db, "--gameset", "nope"],
        &["no gameset \"nope\"", "sic", "najdorf"],
    );
    // Nothing was made of the mistakes.
    let all = run_json(&["gameset", "list", "--json", "--db", db]);
    assert_eq!(all.as_array().unwrap().len(), 2);
    run_ok(&["gameset", "delete", "--db", db, "najdorf"]);
    run_ok(&["gameset", "delete", "--db", db, "sic"]);
    let all = run_json(&["gameset", "list", "--json", "--db", db]);
    assert!(all.as_array().unwrap().is_empty());
}

#[test]
fn an_import_killed_at_any_moment_leaves_the_gamesets_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second, whole) = halves(dir.path());
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    run_ok(&["import", "--db", db, first.to_str().unwrap()]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "sic",
        "--where",
        "reaches e4 c5",
    ]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "strong",
        "--where",
        "avgelo >= 2500 and not result = draw",
    ]);
    for delay_ms in [30u64, 90, 150, 250] {
        let mut child = Command::new(BIN)
            .args([
                "import",
                "--db",
                db,
                "--batch",
                "50",
                second.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for name in ["sic", "strong"] {
            let kept = run_json(&["gameset", "show", "--json", "--db", db, name]);
            let again = run_json(&["gameset", "refresh", "--json", "--db", db, name]);
            assert_eq!(
                kept["games"], again[0]["games"],
                "{name} after a kill at {delay_ms} ms"
            );
        }
    }
    run_ok(&["import", "--db", db, second.to_str().unwrap()]);
    let rep = dir.path().join("rep.pgn");
    std::fs::write(&rep, REPERTOIRE).unwrap();
    let want = selected(&rep, &whole)["sicilian"].clone();
    assert_eq!(
        Value::from(exported(db, &["sic"], dir.path())[0].clone()),
        want
    );
}

#[test]
fn every_command_that_reads_games_takes_a_gameset() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let twic = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", db, twic.to_str().unwrap()]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "sic",
        "--where",
        "reaches e4 c5",
    ]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "few",
        "--from",
        "sic",
        "--where",
        "avgelo >= 2650",
    ]);
    let sic = run_json(&["gameset", "show", "--json", "--db", db, "sic"]);
    let n = sic["games"].as_u64().unwrap();

    // export --gameset is gameset export.
    let a = run_ok(&["export", "--db", db, "--gameset", "sic"]).stdout;
    let b = run_ok(&["gameset", "export", "--db", db, "sic"]).stdout;
    assert_eq!(a, b);
    let pgn = dir.path().join("sic.pgn");
    std::fs::write(&pgn, &a).unwrap();

    // A book of the gameset is the book of its games' PGN, byte for byte.
    let (from_db, from_pgn) = (dir.path().join("db.bin"), dir.path().join("pgn.bin"));
    run_ok(&[
        "book",
        "build",
        "--format",
        "polyglot",
        "--db",
        db,
        "--gameset",
        "sic",
        "-o",
        from_db.to_str().unwrap(),
    ]);
    run_ok(&[
        "book",
        "build",
        "--format",
        "polyglot",
        "-o",
        from_pgn.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    let (x, y) = (
        std::fs::read(&from_db).unwrap(),
        std::fs::read(&from_pgn).unwrap(),
    );
    assert!(!x.is_empty());
    assert_eq!(x, y, "the gameset's book and its PGN's book");

    // db subset: a new database of its games, whose explorer counts them as the gameset does.
    let subp = dir.path().join("sub");
    let sub = subp.to_str().unwrap();
    let made = run_json(&[
        "db",
        "subset",
        "--json",
        "--db",
        db,
        "--gameset",
        "sic",
        "-o",
        sub,
    ]);
    assert_eq!(made["import"]["imported"], n, "{made}");
    for line in ["e2e4,c7c5", "e2e4,c7c5,g1f3"] {
        let here = run_json(&[
            "explore",
            "--json",
            "--db",
            db,
            "--gameset",
            "sic",
            "--play",
            line,
        ]);
        let there = run_json(&["explore", "--json", "--db", sub, "--play", line]);
        for f in ["white", "draws", "black", "unknown", "averageRating"] {
            assert_eq!(here[f], there[f], "{line}: {f}");
        }
        let moves = |v: &Value| -> Vec<(Value, Value, Value)> {
            v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["uci"].clone(),
                        m["white"].clone(),
                        m["performance"].clone(),
                    )
                })
                .collect()
        };
        assert_eq!(moves(&here), moves(&there), "{line}");
    }
    let again = run_raw(&["db", "subset", "--db", db, "--gameset", "sic", "-o", sub]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));

    // annotate --gameset: the gameset's games, no more.
    let few = run_json(&["gameset", "show", "--json", "--db", db, "few"]);
    assert!(few["games"].as_u64().unwrap() > 0);
    let report = run_json(&[
        "annotate",
        "--json",
        "--db",
        db,
        "--gameset",
        "few",
        "--depth",
        "1",
    ]);
    assert_eq!(report["games"], few["games"]);

    // delete --gameset: its games go, from the database and from every gameset.
    let before = run_json(&["stats", "--json", "--db", db])["games"]
        .as_u64()
        .unwrap();
    let gone = run_json(&["delete", "--json", "--db", db, "--gameset", "sic"]);
    assert_eq!(gone["games"], n);
    assert_eq!(gone["games_left"], before - n);
    let sic = run_json(&["gameset", "show", "--json", "--db", db, "sic"]);
    assert_eq!(sic["games"], 0);
    let few = run_json(&["gameset", "show", "--json", "--db", db, "few"]);
    assert_eq!(few["games"], 0);
    let e = run_json(&["explore", "--json", "--db", db, "--play", "e2e4,c7c5"]);
    assert_eq!(
        e["white"].as_u64().unwrap()
            + e["draws"].as_u64().unwrap()
            + e["black"].as_u64().unwrap()
            + e["unknown"].as_u64().unwrap(),
        0
    );
}

#[test]
fn gamesets_through_the_server() {
    use common::server::{Server, get, send};
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let twic = shared("pgn/twic/twic0920.pgn");
    run_ok(&["import", "--db", db, twic.to_str().unwrap()]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "sic",
        "--where",
        "reaches e4 c5",
    ]);
    let cli = run_json(&[
        "explore",
        "--json",
        "--db",
        db,
        "--gameset",
        "sic",
        "--play",
        "e2e4,c7c5,g1f3",
    ]);
    let cli_pgn = run_ok(&["export", "--db", db, "--gameset", "sic"]).stdout;
    let cli_where = run_json(&[
        "explore",
        "--json",
        "--db",
        db,
        "--where",
        "avgelo >= 2500",
        "--play",
        "e2e4",
    ]);
    {
        let server = Server::start(&["--db", db, "--no-engine"]);
        let url = &server.url;
        let list = get(&format!("{url}api/gamesets")).json();
        assert_eq!(list[0]["name"], "sic");
        let api = get(&format!("{url}api/explore?play=e2e4,c7c5,g1f3&gameset=sic")).json();
        assert_eq!(api["white"], cli["white"]);
        assert_eq!(api["moves"], cli["moves"]);
        let api = get(&format!(
            "{url}api/explore?play=e2e4&where=avgelo%20%3E%3D%202500"
        ))
        .json();
        assert_eq!(api["moves"], cli_where["moves"]);
        let page = get(&format!("{url}api/gamesets/sic/games?limit=5")).json();
        assert_eq!(page["total"], list[0]["games"]);
        assert_eq!(page["games"].as_array().unwrap().len(), 5);
        let pgn = get(&format!("{url}api/gamesets/sic/pgn"));
        assert_eq!(pgn.status, 200);
        assert_eq!(pgn.body, cli_pgn);
        // Mistakes are 4xx with the reason.
        let bad = get(&format!("{url}api/explore?where=avgelo%20%3E%3D%20x"));
        assert_eq!(bad.status, 400);
        assert!(bad.text().contains("a rating expected"), "{}", bad.text());
        let none = get(&format!("{url}api/gamesets/nope"));
        assert_eq!(none.status, 404);
        // Read-only: refused; `tabiya gameset create` hands its gameset over.
        let (status, _) = send(
            "POST",
            &format!("{url}api/gamesets"),
            r#"{"name": "x", "where": "annotated"}"#,
        );
        assert_eq!(status, 403);
        let out = run_ok(&[
            "gameset",
            "create",
            "--db",
            db,
            "strong",
            "--where",
            "avgelo >= 2600",
        ]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("the server makes the change"));
        let list = get(&format!("{url}api/gamesets")).json();
        assert_eq!(list.as_array().unwrap().len(), 2);
        run_ok(&["gameset", "delete", "--db", db, "strong"]);
        let list = get(&format!("{url}api/gamesets")).json();
        assert_eq!(list.as_array().unwrap().len(), 1);
    }
    {
        let server = Server::start(&["--db", db, "--no-engine", "--writable"]);
        let url = &server.url;
        let (status, made) = send(
            "POST",
            &format!("{url}api/gamesets"),
            r#"{"name": "najdorf", "where": "eco = B90", "from": "sic"}"#,
        );
        assert_eq!(status, 200, "{made}");
        assert_eq!(made["parent"], "sic");
        let (status, body) = send(
            "POST",
            &format!("{url}api/gamesets"),
            r#"{"name": "y", "where": "eco = "}"#,
        );
        assert_eq!(status, 400, "{body}");
        let (status, body) = send("DELETE", &format!("{url}api/gamesets/sic"), "");
        assert_eq!(status, 400, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("parent of najdorf")
        );
        let (status, _) = send("DELETE", &format!("{url}api/gamesets/najdorf"), "");
        assert_eq!(status, 200);
        // Deleting a gameset's games through the API.
        let n = get(&format!("{url}api/gamesets/sic")).json()["games"]
            .as_u64()
            .unwrap();
        let (status, gone) = send(
            "POST",
            &format!("{url}api/games/delete"),
            r#"{"gameset": "sic"}"#,
        );
        assert_eq!(status, 200, "{gone}");
        assert_eq!(gone["games"], n);
        let e = get(&format!("{url}api/explore?play=e2e4,c7c5")).json();
        assert_eq!(e["white"], 0);
    }
}

fn game(white: &str, black: &str, result: &str, moves: &str) -> String {
    format!(
        "[Event \"Club\"]\n[Site \"?\"]\n[Date \"1970.01.01\"]\n[Round \"?\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n"
    )
}

#[test]
fn a_gameset_of_a_player_follows_what_the_names_mean() {
    let dir = tempfile::tempdir().unwrap();
    let dbp = dir.path().join("db");
    let db = dbp.to_str().unwrap();
    let first = dir.path().join("a.pgn");
    std::fs::write(
        &first,
        [
            game("Fischer, Robert J", "Spassky, Boris", "1-0", "1. e4 e5"),
            game("Spassky, Boris", "Fischer, Robert J", "0-1", "1. d4 d5"),
            game("Bobby Fischer", "Tal, Mikhail", "1/2-1/2", "1. c4 c5"),
            game("Tal, Mikhail", "Spassky, Boris", "1-0", "1. Nf3 Nf6"),
        ]
        .concat(),
    )
    .unwrap();
    run_ok(&["import", "--db", db, first.to_str().unwrap()]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "bobby",
        "--where",
        "player = 'Fischer, Robert J'",
    ]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        db,
        "bobby-white",
        "--from",
        "bobby",
        "--where",
        "result = '1-0' or result = draw",
    ]);
    let games = |name: &str| {
        run_json(&["gameset", "show", "--json", "--db", db, name])["games"]
            .as_u64()
            .unwrap()
    };
    // Counted by hand: the two games of "Fischer, Robert J"; of them, one White won.
    assert_eq!((games("bobby"), games("bobby-white")), (2, 1));
    // "Bobby Fischer" said to be him: his draw joins both, in the same transaction.
    run_ok(&[
        "names",
        "alias",
        "--db",
        db,
        "Bobby Fischer",
        "--to",
        "Fischer, Robert J",
    ]);
    assert_eq!((games("bobby"), games("bobby-white")), (3, 2));
    run_ok(&["names", "unalias", "--db", db, "Bobby Fischer"]);
    assert_eq!((games("bobby"), games("bobby-white")), (2, 1));
    // A new spelling that normalisation gives him, imported later: it joins as well.
    let second = dir.path().join("b.pgn");
    std::fs::write(
        &second,
        game("Fischer, R.", "Tal, Mikhail", "1-0", "1. e4 c5"),
    )
    .unwrap();
    run_ok(&["import", "--db", db, second.to_str().unwrap()]);
    assert_eq!((games("bobby"), games("bobby-white")), (3, 2));
    // And a refresh computes the same.
    let again = run_json(&["gameset", "refresh", "--json", "--db", db, "bobby"]);
    assert_eq!(again[0]["games"], 3);
    assert_eq!(again[1]["games"], 2);
}
