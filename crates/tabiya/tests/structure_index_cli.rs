//! The structure index from the command line: `tabiya check` verifies it (a database
//! imported with `--structures`, then more games, passes), and an Othello database refuses
//! it (`import --structures`, `db structures`) as a usage error, the games unchanged.

use std::path::Path;

use serde_json::Value;

mod common;
use common::{json, run_ok, run_raw, shared};

fn failure(args: &[&str]) -> (Option<i32>, String) {
    let out = run_raw(args);
    assert!(
        !out.status.success(),
        "tabiya {args:?} should fail: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What a database holds, as `tabiya check --json` counts it (and that it is sound).
fn checked(db: &Path) -> Value {
    let r = json(&["check", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(r["problemCount"], 0, "{r}");
    r
}

/// A check's counts without the file's size.
fn counts_of(report: &Value) -> Value {
    let mut r = report.clone();
    r.as_object_mut().unwrap().remove("fileBytes");
    r
}

#[test]
fn check_verifies_the_structure_index() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    let morphy = shared("pgn/pgnmentor/Morphy.pgn");
    let kasparov = shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn");
    run_ok(&[
        "import",
        "--db",
        d,
        "--structures",
        morphy.to_str().unwrap(),
    ]);
    // The next import keeps it without being asked.
    run_ok(&["import", "--db", d, kasparov.to_str().unwrap()]);
    let r = checked(&db);
    assert_eq!(r["shapeSegments"], 2, "{r}");
    assert_eq!(r["shapeGames"], r["games"], "{r}");
    assert_eq!(r["lineGames"], r["games"], "{r}");
    let out = run_ok(&["check", "--db", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("ok: "), "{out:?}");
    let games = &r["games"];
    let said = format!(
        "structure index: 2 segments, {games} games' shapes found, {games} games' search lines"
    );
    assert!(text.contains(&said), "{text}");
}

#[test]
fn an_othello_database_refuses_the_structure_index() {
    let tmp = tempfile::tempdir().unwrap();
    let othello = tmp.path().join("othello");
    let o = othello.to_str().unwrap();
    let (w1977, w1978) = (shared("wthor/WTH_1977.wtb"), shared("wthor/WTH_1978.wtb"));
    run_ok(&["import", "--db", o, w1977.to_str().unwrap()]);
    let before = checked(&othello);
    assert_eq!(before["shapeSegments"], 0, "{before}");

    // Another usage error of an Othello import, for its exit status.
    let (usage, e) = failure(&[
        "import",
        "--db",
        o,
        "--max-ply",
        "20",
        w1978.to_str().unwrap(),
    ]);
    assert!(e.contains("--max-ply is for chess"), "{e}");

    let (code, e) = failure(&["import", "--db", o, "--structures", w1978.to_str().unwrap()]);
    assert_eq!(code, usage, "{e}");
    assert!(
        e.contains(o) && e.contains("is an Othello database") && e.contains("is for chess"),
        "{e}"
    );
    let (code, e) = failure(&["db", "structures", "--db", o]);
    assert_eq!(code, usage, "{e}");
    assert!(
        e.contains(o) && e.contains("is an Othello database") && e.contains("is for chess"),
        "{e}"
    );
    // (Every opening rewrites the file's header: what it holds is compared.)
    let after = checked(&othello);
    assert_eq!(counts_of(&after), counts_of(&before));
    assert_eq!(after["shapeSegments"], 0, "{after}");

    // WTHOR files into a new database: refused before it is created.
    let new = tmp.path().join("new");
    let (code, e) = failure(&[
        "import",
        "--db",
        new.to_str().unwrap(),
        "--structures",
        w1978.to_str().unwrap(),
    ]);
    assert_eq!(code, usage, "{e}");
    assert!(
        e.contains(new.to_str().unwrap()) && e.contains("is for chess"),
        "{e}"
    );
    assert!(!new.exists(), "nothing created");
}
