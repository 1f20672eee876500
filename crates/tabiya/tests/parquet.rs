//! Parquet both ways on the real data: shared PGN written as Parquet by pyarrow
//! (`scripts/pgn-to-parquet`: the Lichess database's schema and types, a Hive-partitioned
//! folder) and imported gives the answers the same games give as PGN — `explore --json`,
//! `games --json`, `export`; what is wrong with a file is reported naming the file and the
//! column or row, the rest going in; `export --format parquet` is read by pyarrow and
//! imported again exports the same PGN. The test command installs pyarrow.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json, run_ok, run_raw, shared};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pgn-to-parquet")
}

fn twic() -> PathBuf {
    shared("pgn/twic/twic0920.pgn")
}

/// Runs `scripts/pgn-to-parquet` (python3 with pyarrow).
fn to_parquet(args: &[&str]) {
    let out = Command::new("python3")
        .arg(script())
        .args(args)
        .output()
        .expect("python3 runs scripts/pgn-to-parquet");
    assert!(
        out.status.success(),
        "pgn-to-parquet {args:?} failed (is pyarrow installed? scripts/test installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs python3 with pyarrow on `code` (`sys.argv[1:]` are `args`); its standard output.
fn python(code: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(code)
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn import(db: &Path, files: &[&Path]) -> Value {
    let mut args = vec!["import", "--json", "--db", db.to_str().unwrap()];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    json(&args)
}

fn export(db: &Path) -> String {
    String::from_utf8(run_ok(&["export", "--db", db.to_str().unwrap()]).stdout).unwrap()
}

/// Positions the answers are compared at: the start, main openings, a transposition.
const LINES: [&str; 6] = [
    "",
    "e4",
    "e4,c5",
    "d4,Nf6,c4,e6",
    "Nf3,Nf6,c4,e6,d4",
    "e4,e5,Nf3,Nc6,Bb5",
];

/// Every answer compared: explore and games at each position, the export of every game.
fn assert_same_answers(a: &Path, b: &Path) {
    for line in LINES {
        for cmd in ["explore", "games"] {
            let args = |db: &Path| {
                let mut v = vec![
                    cmd.to_string(),
                    "--json".into(),
                    "--db".into(),
                    db.display().to_string(),
                ];
                if !line.is_empty() {
                    v.extend(["--play".into(), line.into()]);
                }
                if cmd == "games" {
                    v.extend(["--limit".into(), "100000".into()]);
                }
                v
            };
            let (x, y) = (args(a), args(b));
            let x: Vec<&str> = x.iter().map(String::as_str).collect();
            let y: Vec<&str> = y.iter().map(String::as_str).collect();
            assert_eq!(json(&x), json(&y), "{cmd} at {line:?}");
        }
    }
    assert_eq!(export(a), export(b), "export");
}

/// twic0920 written as Parquet (the Lichess columns typed, every other tag in the `tags`
/// map, zstd) answers exactly as twic0920 itself: same games, same order, same tags.
#[test]
fn twic_as_parquet_answers_as_twic() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("twic.parquet");
    to_parquet(&[
        "--compression",
        "zstd",
        twic().to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let types = python(
        "import sys, pyarrow.parquet as pq; s = pq.read_schema(sys.argv[1]); print(s.field('WhiteElo').type, s.field('UTCDate').type, s.field('UTCTime').type)",
        &[file.to_str().unwrap()],
    );
    // Parquet's TIME has no seconds: pyarrow keeps time32[s] as milliseconds.
    assert_eq!(types.trim(), "int16 date32[day] time32[ms]");
    let (pq, pgn) = (dir.path().join("pq"), dir.path().join("pgn"));
    let s = import(&pq, &[&file]);
    assert_eq!(s["imported"], 2245, "{s}");
    assert_eq!(s["files"][0]["file"], file.to_str().unwrap());
    import(&pgn, &[&twic()]);
    assert_same_answers(&pq, &pgn);
}

/// The same games made Lichess-like (UTCDate and UTCTime, rating changes, `[%eval]` and
/// `[%clk]` comments) in a Hive-partitioned folder (year=/month=, snappy): importing the
/// folder answers as importing the same games as PGN, and the comments are kept.
#[test]
fn lichess_dataset_answers_as_the_same_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let twin = dir.path().join("twin.pgn");
    to_parquet(&[
        "--lichess",
        "--partition",
        "--pgn-out",
        twin.to_str().unwrap(),
        twic().to_str().unwrap(),
        data.to_str().unwrap(),
    ]);
    let parts = tabiya_files(&data);
    assert!(parts.len() >= 2, "{parts:?}");
    assert!(parts[0].contains("year=2012/month="), "{parts:?}");
    let (pq, pgn) = (dir.path().join("pq"), dir.path().join("pgn"));
    let s = import(&pq, &[&data]);
    assert_eq!(s["imported"], 2245, "{s}");
    assert_eq!(s["files"].as_array().unwrap().len(), parts.len());
    import(&pgn, &[&twin]);
    assert_same_answers(&pq, &pgn);
    // The game's Date is its UTCDate; clocks and evaluations are kept as comments.
    let one =
        String::from_utf8(run_ok(&["export", "--db", pq.to_str().unwrap(), "--game", "1"]).stdout)
            .unwrap();
    assert!(one.contains("[UTCDate \"2012.02.11\"]"), "{one}");
    assert!(one.contains("[Date \"2012.02.11\"]"), "{one}");
    assert!(one.contains("[WhiteRatingDiff \"+"), "{one}");
    assert!(
        one.contains("{[%eval") && one.contains("[%clk 1:29:52]}"),
        "{one}"
    );
}

/// The .parquet files below a folder, as paths relative to it, sorted.
fn tabiya_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// Column names in another case, and tags as columns of their own, read the same.
#[test]
fn column_names_in_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let morphy = shared("pgn/pgnmentor/Morphy.pgn");
    for (i, other) in ["map", "columns"].iter().enumerate() {
        let file = dir.path().join(format!("morphy-{i}.parquet"));
        let twin = dir.path().join(format!("morphy-{i}.pgn"));
        let mut args = vec!["--other-tags", other, "--pgn-out", twin.to_str().unwrap()];
        if *other == "map" {
            args.push("--lowercase");
        }
        args.extend([morphy.to_str().unwrap(), file.to_str().unwrap()]);
        to_parquet(&args);
        if *other == "map" {
            let names = python(
                "import sys, pyarrow.parquet as pq; print(','.join(pq.read_schema(sys.argv[1]).names))",
                &[file.to_str().unwrap()],
            );
            assert!(
                names.starts_with("event,site,white,black,result,"),
                "{names}"
            );
        }
        let (pq, pgn) = (
            dir.path().join(format!("pq{i}")),
            dir.path().join(format!("pgn{i}")),
        );
        let s = import(&pq, &[&file]);
        assert_eq!(s["skipped"], 0, "{s}");
        import(&pgn, &[&twin]);
        assert_same_answers(&pq, &pgn);
    }
}

/// A file without a movetext column and one with a column of the wrong type are named with
/// the column, and the command fails once the rest is in; a row with an illegal move is
/// reported with its file and row while the others go in.
#[test]
fn bad_files_and_rows_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    python(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
pq.write_table(pa.table({"Event": ["a"], "moves": ["1. e4 e5 *"]}), d + "/no-movetext.parquet")
pq.write_table(pa.table({"movetext": ["1. e4 *"], "UTCDate": [1.5]}), d + "/mistyped.parquet")
pq.write_table(pa.table({
    "Event": ["one", "two", "three"],
    "WhiteElo": pa.array([2400, None, 2500], pa.int16()),
    "Result": ["1-0", "*", "0-1"],
    "movetext": ["1. e4 e5 2. Qh5 1-0", "1. e4 Ke7 2. Nf3 *", "1. d4 d5 0-1"],
}), d + "/rows.parquet", compression="snappy")
"#,
        &[d.to_str().unwrap()],
    );
    let db = d.join("db");
    let files = ["no-movetext", "rows", "mistyped"].map(|f| d.join(format!("{f}.parquet")));
    let out = run_raw(&[
        "import",
        "--json",
        "--db",
        db.to_str().unwrap(),
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        files[2].to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-movetext.parquet") && err.contains("mistyped.parquet"),
        "{err}"
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["imported"], 2, "{s}");
    let problems = s["problems"].as_array().unwrap();
    let of = |f: &str| {
        problems
            .iter()
            .find(|p| p["file"].as_str().unwrap().ends_with(f))
            .unwrap_or_else(|| panic!("no problem for {f}: {s}"))
    };
    let p = of("no-movetext.parquet");
    assert_eq!(p["game"], 0);
    let r = p["reason"].as_str().unwrap();
    assert!(
        r.contains("no movetext column") && r.contains("Event, moves"),
        "{r}"
    );
    let r = of("mistyped.parquet")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(r.contains("column UTCDate holds Float64"), "{r}");
    let p = of("rows.parquet");
    assert_eq!((p["row"].clone(), p["game"].clone()), (2.into(), 2.into()));
    assert!(
        p["reason"].as_str().unwrap().contains("illegal move Ke7"),
        "{p}"
    );
    // The terminal names the row too.
    let out = run_raw(&[
        "import",
        "--db",
        d.join("db2").to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rows.parquet: row 2: move 1... Ke7"), "{err}");
    // Rows 1 and 3 are in, with their tags; the null rating is no tag.
    let pgn = export(&db);
    assert!(pgn.contains("[Event \"one\"]") && pgn.contains("[WhiteElo \"2400\"]"));
    assert!(pgn.contains("[Event \"three\"]") && !pgn.contains("[Event \"two\"]"));
    assert_eq!(pgn.matches("[WhiteElo").count(), 2);
}

/// `export --format parquet` (or `-o FILE.parquet`) writes what pyarrow reads — the
/// columns, the rows, Lichess's types, `Date` a date, `GameId` — and imported again exports
/// the same PGN, with the selections export takes (DuckDB and Polars too:
/// `parquet_readers.rs`).
#[test]
fn exported_parquet_is_standard_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("db");
    let annotated = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/annotated.pgn");
    let mut files = vec![annotated, twic()];
    let mut edge: Vec<PathBuf> = std::fs::read_dir(shared("pgn/edge-cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    edge.sort();
    files.extend(edge);
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let s = import(&db, &refs);
    let games = s["databaseGames"].as_u64().unwrap();
    let out = d.join("all.parquet");
    run_ok(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let info = python(
        r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(t.num_rows)
print(",".join(t.column_names))
print(t.schema.field("WhiteElo").type, t.schema.field("UTCDate").type, t.schema.field("Date").type, t.schema.field("GameId").type, t.schema.field("tags").type)
row = t.slice(0, 1).to_pylist()[0]
print(row["Event"], "|", dict(row["tags"])["Annotator"], "|", row["movetext"][:20])
"#,
        &[out.to_str().unwrap()],
    );
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(lines[0], games.to_string());
    assert_eq!(
        lines[1],
        "GameId,Event,Site,Date,Round,White,Black,Result,WhiteTitle,BlackTitle,WhiteElo,BlackElo,WhiteRatingDiff,BlackRatingDiff,UTCDate,UTCTime,ECO,Opening,Termination,TimeControl,tags,movetext"
    );
    assert!(
        lines[2].starts_with("int16 date32[day] date32[day] int64 map<string, string"),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[3],
        "Annotated \"test\" game | Tabiya tests | {The game starts.} 1"
    );
    let again = d.join("again");
    let s = import(&again, &[&out]);
    assert_eq!(s["imported"].as_u64(), Some(games), "{s}");
    assert_eq!(export(&again), export(&db), "the round trip is exact");
    // A selection, named explicitly.
    let sic = d.join("sicilian.pq");
    run_ok(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--play",
        "e4,c5",
        "--format",
        "parquet",
        "-o",
        sic.to_str().unwrap(),
    ]);
    let n = python(
        "import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)",
        &[sic.to_str().unwrap()],
    );
    let e = json(&[
        "explore",
        "--json",
        "--db",
        db.to_str().unwrap(),
        "--play",
        "e4,c5",
    ]);
    let total = ["white", "draws", "black"]
        .iter()
        .map(|k| e[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(n.trim(), total.to_string());
    // Parquet goes to a file.
    let out = run_raw(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "parquet",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o FILE.parquet"));
}

/// Telling Parquet from PGN never reads from a pipe (what it read would be lost to the
/// PGN reader): a process substitution imports every game.
#[test]
fn a_pipe_is_read_as_pgn_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' import --json --db '{}' <(cat '{}')",
            common::BIN,
            db.display(),
            twic().display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["imported"], 2245, "{s}");
}
