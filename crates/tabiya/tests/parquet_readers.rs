//! `export --format parquet` as other tools read it: pyarrow, DuckDB and Polars each read the
//! exported file and find the `Date` column a date type holding each game's PGN `Date` (a
//! whole day; null for a partial, unknown or impossible date, whose exact text is in `tags`),
//! `GameId` the ids `tabiya games --json` lists, the movetext on one line, a row a game. The
//! expected dates are python-chess's reading of the PGN files imported, never Tabiya's own
//! output. Imported again, the file gives the same PGN (partial dates byte for byte) and its
//! `GameId` column is not read. The test command (`scripts/test`) installs python-chess,
//! pyarrow, duckdb and polars; a missing module fails the test, naming it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{json, run_ok, shared};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn dates_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dates.pgn")
}

/// python-chess's tags of the PGN files (`argv[2:]`, each game by its Event, Site, Round,
/// White and Black) and what pyarrow, DuckDB and Polars read in the Parquet file
/// (`argv[1]`), as JSON.
const READERS: &str = r#"
import sys, json, re, datetime
missing = []
for module, package in [("chess.pgn", "chess"), ("pyarrow.parquet", "pyarrow"),
                        ("duckdb", "duckdb"), ("polars", "polars")]:
    try:
        __import__(module)
    except ImportError:
        missing.append(package)
if missing:
    sys.exit("missing Python modules: " + ", ".join(missing) +
             " (scripts/test installs them: python3 -m pip install " + " ".join(missing) + ")")
import chess.pgn, pyarrow.parquet as pq, duckdb, polars as pl

parquet, pgns = sys.argv[1], sys.argv[2:]
KEY = ["Event", "Site", "Round", "White", "Black"]

class Tags(chess.pgn.BaseVisitor):
    """A game's tags as the file writes them (python-chess's Game fills a missing Date in)."""
    def begin_game(self):
        self.tags = {}
    def visit_header(self, name, value):
        self.tags.setdefault(name, value)
    def result(self):
        return self.tags

def day(text):
    """The day a PGN date names, when it names one: YYYY.MM.DD of a real day."""
    m = re.fullmatch(r"(\d{4})\.(\d{2})\.(\d{2})", text or "")
    if not m:
        return None
    try:
        return datetime.date(*map(int, m.groups())).isoformat()
    except ValueError:  # 2023.02.30, year 0
        return None

expected = {}
for path in pgns:
    with open(path, encoding="utf-8-sig") as f:
        while (tags := chess.pgn.read_game(f, Visitor=Tags)) is not None:
            key = json.dumps([tags.get(k) for k in KEY])
            if key in expected:
                sys.exit(f"two games named {key} in the PGN files: the test cannot tell them apart")
            expected[key] = {"text": tags.get("Date"), "day": day(tags.get("Date"))}

def iso(d):
    return None if d is None else d.isoformat()

readers = {}
t = pq.read_table(parquet)
readers["pyarrow"] = {
    "date_type": str(t.schema.field("Date").type),
    "id_type": str(t.schema.field("GameId").type),
    "rows": [[r["GameId"], json.dumps([r[k] for k in KEY]), iso(r["Date"]),
              dict(r["tags"]).get("Date"), r["movetext"].count("\n")] for r in t.to_pylist()],
}

con = duckdb.connect()
src = "read_parquet('" + parquet.replace("'", "''") + "')"
types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {src})").fetchall())
rows = con.execute(
    f"SELECT GameId, {', '.join(KEY)}, Date, length(movetext) - length(replace(movetext, chr(10), '')) FROM {src}"
).fetchall()
readers["duckdb"] = {
    "date_type": types["Date"],
    "id_type": types["GameId"],
    "rows": [[r[0], json.dumps(list(r[1:6])), iso(r[6]), None, r[7]] for r in rows],
}

df = pl.read_parquet(parquet)
rows = df.select(["GameId", *KEY, "Date", pl.col("movetext").str.count_matches("\n", literal=True)]).rows()
readers["polars"] = {
    "date_type": str(df.schema["Date"]),
    "id_type": str(df.schema["GameId"]),
    "rows": [[r[0], json.dumps(list(r[1:6])), iso(r[6]), None, r[7]] for r in rows],
}

print(json.dumps({"expected": expected, "readers": readers}))
"#;

fn python(code: &str, args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg("-c")
        .arg(code)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The ids and players `tabiya games --json` lists for every game of `db`, in id order (an
/// id is written as text there: a set of databases names a game `MEMBER:ID`).
fn listed(db: &Path) -> Vec<(u64, Value, Value)> {
    let page = json(&[
        "games",
        "--json",
        "--db",
        s(db),
        "--sort",
        "id",
        "--limit",
        "1000000",
    ]);
    page["games"]
        .as_array()
        .unwrap_or_else(|| panic!("no games in {page}"))
        .iter()
        .map(|g| {
            let id = g["id"].as_str().and_then(|t| t.parse().ok());
            (
                id.unwrap_or_else(|| panic!("an id: {g}")),
                g["white"]["name"].clone(),
                g["black"]["name"].clone(),
            )
        })
        .collect()
}

fn export_pgn(db: &Path) -> String {
    String::from_utf8(run_ok(&["export", "--db", s(db)]).stdout).unwrap()
}

#[test]
fn duckdb_polars_and_pyarrow_read_dates_ids_and_one_line_movetext() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("db");
    let pgns = [dates_fixture(), shared("pgn/twic/twic0920.pgn")];
    let mut args = vec!["import", "--json", "--db", s(&db)];
    args.extend(pgns.iter().map(|p| s(p)));
    let summary = json(&args);
    let games = summary["databaseGames"].as_u64().unwrap();
    let file = d.join("games.parquet");
    run_ok(&["export", "--db", s(&db), "-o", s(&file)]);

    let mut py_args = vec![s(&file)];
    py_args.extend(pgns.iter().map(|p| s(p)));
    let got = python(READERS, &py_args);
    let expected = got["expected"].as_object().unwrap();
    assert_eq!(
        expected.len() as u64,
        games,
        "python-chess's games, imported"
    );
    let partial = expected.values().filter(|e| e["day"].is_null()).count();
    // The fixture's partial, unknown, impossible and missing dates (python-chess's count).
    assert_eq!(partial, 7, "{expected:?}");

    let ids = listed(&db);
    assert_eq!(ids.len() as u64, games);
    let types = [
        ("pyarrow", "date32[day]", "int64"),
        ("duckdb", "DATE", "BIGINT"),
        ("polars", "Date", "Int64"),
    ];
    for (reader, date_type, id_type) in types {
        let r = &got["readers"][reader];
        assert_eq!(
            r["date_type"], date_type,
            "{reader}: the Date column's type"
        );
        assert_eq!(r["id_type"], id_type, "{reader}: the GameId column's type");
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len() as u64, games, "{reader}: rows");
        let mut nulls = 0;
        for (row, (id, white, black)) in rows.iter().zip(&ids) {
            let key = row[1].as_str().unwrap();
            let want = &expected
                .get(key)
                .unwrap_or_else(|| panic!("{reader}: a row python-chess has no game of: {key}"));
            // The id `tabiya games` lists for the game of this row (same players).
            assert_eq!(row[0].as_u64(), Some(*id), "{reader}: {key}");
            let players: Value = serde_json::from_str(key).unwrap();
            assert_eq!(
                (&players[3], &players[4]),
                (white, black),
                "{reader}: game {id}"
            );
            assert_eq!(row[2], want["day"], "{reader}: the date of {key}");
            nulls += usize::from(row[2].is_null());
            assert_eq!(row[4], 0, "{reader}: line breaks in the movetext of {key}");
            if reader == "pyarrow" {
                // A date that is no whole day: its exact text in `tags`.
                let kept = if want["day"].is_null() {
                    want["text"].clone()
                } else {
                    Value::Null
                };
                assert_eq!(row[3], kept, "tags' Date of {key}");
            }
        }
        assert_eq!(nulls, partial, "{reader}: null dates");
    }

    // Imported again: the same PGN, partial dates byte for byte; GameId is no tag.
    let again = d.join("again");
    let s2 = json(&["import", "--json", "--db", s(&again), s(&file)]);
    assert_eq!(s2["imported"].as_u64(), Some(games), "{s2}");
    let (a, b) = (export_pgn(&db), export_pgn(&again));
    assert!(a == b, "the round trip changed the PGN");
    for date in [
        "1990.??.??",
        "1851.07.??",
        "????.??.??",
        "2023.02.30",
        "2024.3.7",
        "0000.01.01",
    ] {
        assert!(b.contains(&format!("[Date \"{date}\"]")), "{date}");
    }
    assert!(!b.contains("GameId"));

    // A selection has ids with gaps; imported, its games are numbered anew, from 1.
    let sel = d.join("sicilian.parquet");
    run_ok(&["export", "--db", s(&db), "--play", "e4,c5", "-o", s(&sel)]);
    let sel_ids = python(
        "import sys, json, pyarrow.parquet as pq; print(json.dumps(pq.read_table(sys.argv[1])['GameId'].to_pylist()))",
        &[s(&sel)],
    );
    let sel_ids: Vec<u64> = sel_ids
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(sel_ids.len() > 10, "{sel_ids:?}");
    assert!(sel_ids.windows(2).all(|w| w[0] < w[1]));
    assert_ne!(sel_ids, (1..=sel_ids.len() as u64).collect::<Vec<_>>());
    let db3 = d.join("sicilian");
    json(&["import", "--json", "--db", s(&db3), s(&sel)]);
    let new: Vec<u64> = listed(&db3).into_iter().map(|(id, ..)| id).collect();
    assert_eq!(new, (1..=sel_ids.len() as u64).collect::<Vec<_>>());
}
