//! Writes that would lose a game later, and copies that lose one (issue 31): an edit, a name
//! to show, a note, are refused when the import would refuse what they make (the one check
//! they share, `tabiya_pgn::bounds`); every command that copies games — `export` (PGN,
//! Parquet), `db merge`, `db subset` — fails, naming the game and why, when a game cannot be
//! copied, and copies every game otherwise. Games and tags are counted by python-chess and
//! pyarrow, not by Tabiya.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::server::{Server, get, send};
use common::{run_ok, run_raw};

/// Three games, written by hand.
const GAMES: &str = "\
[Event \"A\"]\n[Site \"S\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n[White \"Alpha\"]\n[Black \"Beta\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
[Event \"B\"]\n[Site \"S\"]\n[Date \"2020.01.02\"]\n[Round \"2\"]\n[White \"Gamma\"]\n[Black \"Delta\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n\
[Event \"C\"]\n[Site \"S\"]\n[Date \"2020.01.03\"]\n[Round \"3\"]\n[White \"Alpha\"]\n[Black \"Delta\"]\n[Result \"1/2-1/2\"]\n\n1. c4 1/2-1/2\n\n";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A database of [`GAMES`] (imported `times` times, copies kept).
fn three_games(dir: &Path, name: &str, times: usize) -> PathBuf {
    let pgn = dir.join(format!("{name}.pgn"));
    std::fs::write(&pgn, GAMES.repeat(times)).unwrap();
    let db = dir.join(name);
    run_ok(&["import", "--keep-duplicates", "--db", s(&db), s(&pgn)]);
    db
}

/// The tags of every game of a PGN file, as python-chess reads them.
fn pgn_games(path: &Path) -> Vec<Value> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import chess.pgn, json, sys\n\
             out = []\n\
             with open(sys.argv[1], encoding='utf-8') as f:\n\
             \x20   while (g := chess.pgn.read_game(f)) is not None:\n\
             \x20       out.append(dict(g.headers))\n\
             print(json.dumps(out))",
            s(path),
        ])
        .output()
        .expect("python3 with python-chess");
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The rows of a Parquet file, as pyarrow counts them.
fn parquet_rows(path: &Path) -> u64 {
    let out = Command::new("python3")
        .args([
            "-c",
            "import pyarrow.parquet as pq, sys; print(pq.read_metadata(sys.argv[1]).num_rows)",
            s(path),
        ])
        .output()
        .expect("python3 with pyarrow");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).trim().parse().unwrap()
}

/// The games of a database, exported as PGN and read by python-chess.
fn games_of(db: &Path, dir: &Path) -> Vec<Value> {
    let out = dir.join(format!(
        "{}-all.pgn",
        db.file_name().unwrap().to_str().unwrap()
    ));
    run_ok(&["export", "--db", s(db), "-o", s(&out)]);
    pgn_games(&out)
}

/// `[Annotator "…"]` is 14 bytes besides its value (`[`, 9, ` "`, `"]`): 8,178 bytes of
/// value make the longest line the import reads (8 KiB, 8,192 bytes), 8,179 one too long.
#[test]
fn an_edit_the_import_would_refuse_is_refused_naming_game_tag_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let db = three_games(dir.path(), "db", 1);
    let long = format!("Annotator={}", "a".repeat(8179));
    let out = run_raw(&["edit", "--db", s(&db), "--game", "2", "--set", &long]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("game 2"), "{err}");
    assert!(err.contains("tag Annotator"), "{err}");
    assert!(err.contains("8193 bytes"), "{err}");
    assert!(err.contains("8 KiB (8192 bytes)"), "{err}");
    for refused in ["Variant=Atomic", "Bad Name=x", "_x=1"] {
        let out = run_raw(&["edit", "--db", s(&db), "--game", "2", "--set", refused]);
        assert!(!out.status.success(), "{refused}");
        assert!(
            text(&out.stderr).contains("game 2"),
            "{}",
            text(&out.stderr)
        );
    }
    // At the bound, and a name with PGN's symbol characters: kept, and copied.
    let at_bound = format!("Annotator={}", "a".repeat(8178));
    run_ok(&[
        "edit",
        "--db",
        s(&db),
        "--game",
        "2",
        "--set",
        &at_bound,
        "--set",
        "Foo-Bar=1",
    ]);
    let games = games_of(&db, dir.path());
    assert_eq!(games.len(), 3);
    assert_eq!(games[1]["Annotator"].as_str().unwrap().len(), 8178);
    assert_eq!(games[1]["Foo-Bar"], "1");
    // Exported and imported again: every game, the tags whole.
    let again = dir.path().join("again");
    run_ok(&[
        "import",
        "--db",
        s(&again),
        s(&dir.path().join("db-all.pgn")),
    ]);
    let games = games_of(&again, dir.path());
    assert_eq!(games.len(), 3);
    assert_eq!(games[1]["Annotator"].as_str().unwrap().len(), 8178);
    assert_eq!(games[1]["Foo-Bar"], "1");
    // And through Parquet.
    let parquet = dir.path().join("db.parquet");
    run_ok(&["export", "--db", s(&db), "-o", s(&parquet)]);
    let from_parquet = dir.path().join("from-parquet");
    run_ok(&["import", "--db", s(&from_parquet), s(&parquet)]);
    let games = games_of(&from_parquet, dir.path());
    assert_eq!(games.len(), 3);
    assert_eq!(games[1]["Annotator"].as_str().unwrap().len(), 8178);
    assert_eq!(games[1]["Foo-Bar"], "1");
}

/// The server refuses what `tabiya edit` refuses (the same library call), and a note the
/// games could not carry when exported with them.
#[test]
fn the_api_refuses_the_same_edits_and_notes() {
    let dir = tempfile::tempdir().unwrap();
    let db = three_games(dir.path(), "db", 1);
    let server = Server::start(&["--db", s(&db), "--no-engine", "--writable"]);
    let body = serde_json::json!({"set": {"Annotator": "a".repeat(8179)}}).to_string();
    let (status, answer) = send("PATCH", &format!("{}api/game/2", server.url), &body);
    assert_eq!(status, 400, "{answer}");
    let err = answer["error"].as_str().unwrap();
    assert!(
        err.contains("game 2") && err.contains("tag Annotator"),
        "{err}"
    );
    assert!(err.contains("8 KiB (8192 bytes)"), "{err}");
    let (status, answer) = send(
        "PATCH",
        &format!("{}api/game/2", server.url),
        r#"{"set": {"Annotator": "a\u0000b"}}"#,
    );
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("NUL"),
        "{answer}"
    );
    let game = get(&format!("{}api/game/2", server.url)).json();
    assert!(!game.to_string().contains("Annotator"), "{game}");
    let (status, answer) = send(
        "PUT",
        &format!("{}api/note?play=e2e4", server.url),
        r#"{"note": "a\u0000b"}"#,
    );
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("NUL"),
        "{answer}"
    );
}

/// A name shown for players or events is written into the games by `export
/// --canonical-names`: one the import would refuse as a tag is refused.
#[test]
fn a_name_to_show_that_no_export_could_carry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = three_games(dir.path(), "db", 1);
    let long = "x".repeat(9000);
    let out = run_raw(&[
        "names",
        "rename",
        "--db",
        s(&db),
        "--kind",
        "event",
        "A",
        &long,
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("8 KiB"), "{}", text(&out.stderr));
    let out = run_raw(&[
        "names",
        "rename",
        "--db",
        s(&db),
        "--kind",
        "player",
        "Alpha",
        "Al\npha",
    ]);
    assert!(!out.status.success());
    run_ok(&[
        "names",
        "rename",
        "--db",
        s(&db),
        "--kind",
        "player",
        "Alpha",
        "Alpha Prime",
    ]);
    let out = dir.path().join("canonical.pgn");
    run_ok(&["export", "--db", s(&db), "--canonical-names", "-o", s(&out)]);
    let games = pgn_games(&out);
    assert_eq!(games.len(), 3);
    assert_eq!(games[0]["White"], "Alpha Prime");
}

/// A database holding a game stored before the bounds existed (made by the library below
/// the check): every copy fails, naming it and why, and loses no other game; the same
/// commands on a database without it copy every game and succeed.
#[test]
fn every_copy_fails_loudly_when_a_game_cannot_be_copied() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = three_games(d, "db", 1);
    {
        let store = tabiya_db::Database::open(&db).unwrap();
        store
            .edit_games_past_bounds(&[(
                2,
                vec![tabiya_db::TagEdit::Set(
                    "Annotator".into(),
                    "a".repeat(9000),
                )],
            )])
            .unwrap();
    }
    // 9,000 bytes of value: a line of 9,014.
    let says = |out: &std::process::Output, what: &str| {
        assert!(!out.status.success(), "{what} succeeded");
        let err = text(&out.stderr);
        assert!(err.contains("game 2 (tag Annotator"), "{what}: {err}");
        assert!(err.contains("9014 bytes"), "{what}: {err}");
    };

    // PGN export: every game written, the command failing.
    let pgn = d.join("out.pgn");
    says(
        &run_raw(&["export", "--db", s(&db), "-o", s(&pgn)]),
        "export",
    );
    assert_eq!(pgn_games(&pgn).len(), 3);
    // The round trip: the import refuses that game, and says so.
    let back = d.join("back");
    let out = run_ok(&["import", "--db", s(&back), s(&pgn)]);
    assert!(
        text(&out.stderr).contains("9014 bytes"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(games_of(&back, d).len(), 2);

    // Parquet export.
    let parquet = d.join("out.parquet");
    says(
        &run_raw(&[
            "export",
            "--db",
            s(&db),
            "--format",
            "parquet",
            "-o",
            s(&parquet),
        ]),
        "parquet export",
    );
    assert_eq!(parquet_rows(&parquet), 3);

    // Merge: the other games are in, the command fails naming the one that is not.
    let merged = d.join("merged");
    let out = run_raw(&["db", "merge", "--into", s(&merged), s(&db)]);
    says(&out, "merge");
    assert!(
        text(&out.stderr).contains("1 of the 3 games"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(games_of(&merged, d).len(), 2);

    // Subset.
    let sub = d.join("sub");
    says(
        &run_raw(&[
            "db",
            "subset",
            "--db",
            s(&db),
            "--where",
            "plies >= 0",
            "-o",
            s(&sub),
        ]),
        "subset",
    );

    // Mended by an edit (allowed: it makes the game readable), every copy succeeds.
    run_ok(&[
        "edit",
        "--db",
        s(&db),
        "--game",
        "2",
        "--set",
        "Annotator=short",
    ]);
    run_ok(&["export", "--db", s(&db), "-o", s(&pgn)]);
    assert_eq!(pgn_games(&pgn).len(), 3);
    run_ok(&["db", "merge", "--into", s(&merged), s(&db)]);
    assert_eq!(games_of(&merged, d).len(), 3);
}

/// Without such a game every copy holds every game: three by python-chess and pyarrow; a
/// subset keeps a game stored twice (a copy of all the games is all the games).
#[test]
fn every_copy_of_a_sound_database_holds_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = three_games(d, "db", 1);
    assert_eq!(games_of(&db, d).len(), 3);
    let parquet = d.join("out.parquet");
    run_ok(&["export", "--db", s(&db), "-o", s(&parquet)]);
    assert_eq!(parquet_rows(&parquet), 3);
    let from_parquet = d.join("from-parquet");
    run_ok(&["import", "--db", s(&from_parquet), s(&parquet)]);
    assert_eq!(games_of(&from_parquet, d).len(), 3);
    let merged = d.join("merged");
    run_ok(&["db", "merge", "--into", s(&merged), s(&db)]);
    assert_eq!(games_of(&merged, d).len(), 3);
    let sub = d.join("sub");
    run_ok(&[
        "db",
        "subset",
        "--db",
        s(&db),
        "--where",
        "plies >= 0",
        "-o",
        s(&sub),
    ]);
    assert_eq!(games_of(&sub, d).len(), 3);

    let twice = three_games(d, "twice", 2);
    assert_eq!(games_of(&twice, d).len(), 6);
    let sub2 = d.join("sub2");
    run_ok(&[
        "db",
        "subset",
        "--db",
        s(&twice),
        "--where",
        "plies >= 0",
        "-o",
        s(&sub2),
    ]);
    assert_eq!(games_of(&sub2, d).len(), 6);
}

/// Each tag within its bound, the game past its own: 4,200 tags of 8,170 bytes make some
/// 34 million bytes of PGN, more than the 32 MiB (33,554,432 bytes) the import reads.
/// Refused, nothing changed; 100 of them are kept.
#[test]
fn an_edit_growing_the_game_past_its_bound_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = three_games(dir.path(), "db", 1);
    let value = "a".repeat(8170);
    let tags = |n: usize| -> Vec<tabiya_db::TagEdit> {
        (0..n)
            .map(|i| tabiya_db::TagEdit::Set(format!("T{i}"), value.clone()))
            .collect()
    };
    {
        let store = tabiya_db::Database::open(&db).unwrap();
        let e = store.edit_game(1, &tags(4200)).unwrap_err().to_string();
        assert!(
            e.contains("game 1: after this edit the import would refuse"),
            "{}",
            &e[..200.min(e.len())]
        );
        assert!(
            e.contains("more than the 32 MiB"),
            "{}",
            &e[..200.min(e.len())]
        );
        store.edit_game(1, &tags(100)).unwrap();
    }
    let games = games_of(&db, dir.path());
    assert_eq!(games.len(), 3);
    assert_eq!(games[0]["T99"].as_str().unwrap().len(), 8170);
    assert!(games[0].get("T100").is_none());
}
