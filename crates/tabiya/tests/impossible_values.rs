//! Values an import could turn into silent wrong answers (issue 31): WTHOR disc counts no
//! board can have, a Parquet file of no rows, ratings and other numbers past what a column
//! or a field holds. Expected values come from the files themselves (the French Othello
//! Federation's WTHOR bytes), from python-chess and pyarrow, or from the test's own text.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json, run_ok, shared};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn python(code: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(code)
        .args(args)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// The tags of every game of a PGN file, as python-chess reads them.
fn pgn_games(path: &Path) -> Vec<Value> {
    let out = python(
        "import chess.pgn, json, sys\n\
         out = []\n\
         with open(sys.argv[1], encoding='utf-8') as f:\n\
         \x20   while (g := chess.pgn.read_game(f)) is not None:\n\
         \x20       out.append(dict(g.headers))\n\
         print(json.dumps(out))",
        &[s(path)],
    );
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A WTHOR record is 68 bytes after the 16-byte header: black's discs at its byte 6, the
/// theoretical score at byte 7 (`../shared/docs/format-notes.md`, seed 002).
fn record(i: usize) -> usize {
    16 + 68 * i
}

/// WTH_2001.wtb with record 3's disc count made 255 and record 5's theoretical score 200:
/// the import says so for each (file, record, the byte, what it stored), stores the counts
/// of the games replayed — which, both games being finished, are the Federation's own black
/// counts of those records — and every other byte as it was; the averages are those of the
/// Federation's counts (the theoretical score of record 5 being its black count).
#[test]
fn impossible_disc_counts_are_warned_and_replaced_by_the_replayed_count() {
    let dir = tempfile::tempdir().unwrap();
    let wthor = dir.path().join("wthor");
    std::fs::create_dir(&wthor).unwrap();
    for f in ["WTH_2001.wtb", "WTHOR.JOU", "WTHOR.TRN"] {
        std::fs::copy(shared(&format!("wthor/{f}")), wthor.join(f)).unwrap();
    }
    let original = std::fs::read(wthor.join("WTH_2001.wtb")).unwrap();
    let mut patched = original.clone();
    patched[record(3) + 6] = 255;
    patched[record(5) + 7] = 200;
    let file = wthor.join("WTH_2001.wtb");
    std::fs::write(&file, &patched).unwrap();

    let db = dir.path().join("db");
    let out = run_ok(&["import", "--db", s(&db), s(&file)]);
    let err = text(&out.stderr);
    let name = file.display().to_string();
    let at3 = format!(
        "{name}: game 3 (record at offset {}): black's disc count 255 (byte at offset {}) is impossible",
        record(3),
        record(3) + 6
    );
    assert!(err.contains(&at3), "{err}");
    assert!(
        err.contains(&format!("stored as {}", original[record(3) + 6])),
        "{err}"
    );
    let at5 = format!(
        "{name}: game 5 (record at offset {}): the theoretical score 200 (byte at offset {}) is impossible",
        record(5),
        record(5) + 7
    );
    assert!(err.contains(&at5), "{err}");
    assert!(err.contains("replayed"), "{err}");
    assert!(
        text(&out.stdout).contains("replaced by the game's replayed count: 2 games"),
        "{}",
        text(&out.stdout)
    );

    // Written back: the Federation's file, but for record 5's theoretical score, which is
    // its black count.
    let back = dir.path().join("back");
    run_ok(&["wthor", "export", "--db", s(&db), "-o", s(&back)]);
    let written = std::fs::read(back.join("WTH_2001.wtb")).unwrap();
    let mut want = original.clone();
    want[record(5) + 7] = original[record(5) + 6];
    assert!(written == want, "the file written back differs");

    // The averages over every game, from the bytes.
    let n = (original.len() - 16) / 68;
    let (mut discs, mut theory) = (0u64, 0u64);
    for i in 0..n {
        discs += want[record(i) + 6] as u64;
        theory += want[record(i) + 7] as u64;
    }
    let e = json(&["explore", "--db", s(&db), "--json"]);
    assert_eq!(e["games"], n as u64);
    assert_eq!(e["averageBlackDiscs"], discs as f64 / n as f64);
    assert_eq!(e["averageTheoreticalScore"], theory as f64 / n as f64);
}

/// A Parquet file of Tabiya's columns with no rows (pyarrow) is an empty file, not a damaged
/// one: no game, a note saying so, success.
#[test]
fn a_parquet_file_of_no_rows_imports_as_no_games() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.parquet");
    python(
        "import pyarrow as pa, pyarrow.parquet as pq, sys\n\
         schema = pa.schema([('Event', pa.string()), ('Site', pa.string()), ('White', pa.string()),\n\
         \x20   ('Black', pa.string()), ('Result', pa.string()), ('WhiteElo', pa.int16()),\n\
         \x20   ('BlackElo', pa.int16()), ('UTCDate', pa.date32()), ('movetext', pa.string())])\n\
         pq.write_table(schema.empty_table(), sys.argv[1])",
        &[s(&file)],
    );
    let db = dir.path().join("db");
    let out = run_ok(&["import", "--db", s(&db), s(&file)]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("imported 0 of 0 games"), "{stdout}");
    assert!(stdout.contains("the table holds no rows"), "{stdout}");
    // Nothing imported: no empty database is left behind, and the summary says so.
    assert!(!db.exists(), "an import of nothing leaves no database");
    assert!(
        stdout.contains("nothing imported: no database made at"),
        "{stdout}"
    );
    let report = json(&["import", "--json", "--db", s(&db), s(&file)]);
    assert_eq!(report["problems"], serde_json::json!([]), "{report}");
    assert_eq!(report["notes"][0]["file"], s(&file), "{report}");
}

/// A game whose ratings and numbers no field of Tabiya's holds (2^64 − 1, -1, 2^64): every
/// tag comes back as its text — PGN, Parquet and back — and no rating is counted from it.
#[test]
fn numbers_past_what_is_stored_come_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let tags = [
        ("WhiteElo", "18446744073709551615"),
        ("BlackElo", "-1"),
        ("EventDate", "18446744073709551615"),
        ("Round", "18446744073709551616"),
        ("PlyCount", "99999999999999999999"),
        ("FideId", "18446744073709551615"),
        ("WhiteRatingDiff", "+18446744073709551615"),
    ];
    let mut pgn = String::from("[Event \"E\"]\n[Site \"S\"]\n[Date \"2020.01.01\"]\n");
    pgn += "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n";
    for (n, v) in tags {
        pgn += &format!("[{n} \"{v}\"]\n");
    }
    pgn += "\n1. e4 e5 1-0\n";
    let file = dir.path().join("big.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.path().join("db");
    run_ok(&["import", "--db", s(&db), s(&file)]);
    let check = |path: &PathBuf| {
        let games = pgn_games(path);
        assert_eq!(games.len(), 1);
        for (n, v) in tags {
            assert_eq!(games[0][n], v, "{n} in {}", path.display());
        }
    };
    let out = dir.path().join("out.pgn");
    run_ok(&["export", "--db", s(&db), "-o", s(&out)]);
    check(&out);
    let parquet = dir.path().join("out.parquet");
    run_ok(&["export", "--db", s(&db), "-o", s(&parquet)]);
    let again = dir.path().join("again");
    run_ok(&["import", "--db", s(&again), s(&parquet)]);
    let out2 = dir.path().join("out2.pgn");
    run_ok(&["export", "--db", s(&again), "-o", s(&out2)]);
    check(&out2);
    let games = json(&["games", "--db", s(&db), "--json"]);
    assert_eq!(games["games"][0]["white"]["rating"], Value::Null, "{games}");
    assert_eq!(games["games"][0]["black"]["rating"], Value::Null, "{games}");
}

/// The same numbers in typed Parquet columns (pyarrow: `uint64` ratings and an extra
/// column, an `int64` -1, a `uint64` rating change): read as the numbers they are (2^64 − 1
/// was read `as i64`, -1).
#[test]
fn whole_number_columns_of_any_width_are_read_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.parquet");
    python(
        "import pyarrow as pa, pyarrow.parquet as pq, sys\n\
         t = pa.table({'Event': ['E'], 'White': ['A'], 'Black': ['B'], 'Result': ['1-0'],\n\
         \x20   'WhiteElo': pa.array([2**64 - 1], pa.uint64()), 'BlackElo': pa.array([-1], pa.int64()),\n\
         \x20   'WhiteRatingDiff': pa.array([2**64 - 1], pa.uint64()),\n\
         \x20   'PlyCount': pa.array([2**64 - 1], pa.uint64()), 'movetext': ['1. e4 e5 1-0']})\n\
         pq.write_table(t, sys.argv[1])",
        &[s(&file)],
    );
    let db = dir.path().join("db");
    run_ok(&["import", "--db", s(&db), s(&file)]);
    let out = dir.path().join("out.pgn");
    run_ok(&["export", "--db", s(&db), "-o", s(&out)]);
    let games = pgn_games(&out);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["WhiteElo"], "18446744073709551615");
    assert_eq!(games[0]["BlackElo"], "-1");
    assert_eq!(games[0]["WhiteRatingDiff"], "+18446744073709551615");
    assert_eq!(games[0]["PlyCount"], "18446744073709551615");
}
