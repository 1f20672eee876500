//! The index built on Apache Spark: a real standalone cluster on loopback (a master and two
//! workers, separate processes: `scripts/spark-cluster`), `scripts/spark/tabiya_build.py`
//! submitted to it with the real `tabiya` binary on the executors, the result loaded with
//! `tabiya db load` — and every answer compared with a database `tabiya import` made of the
//! same files in the same order: `explore --json` at the start, after common openings, deep
//! in particular games and at a position of one game only; `games --json`; the export of
//! every game. The job's counts are checked against the input (games counted in the files
//! by this test) and against the import's. Parquet input (a Lichess-schema file and a
//! Hive-partitioned folder, written by pyarrow) likewise.
//!
//! Needs pyspark 4 (with pandas and pyarrow) and Java 17: `scripts/test` installs them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{BIN, json, run_ok, shared};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// pyspark's bundled Spark (`$SPARK_HOME`); fails, saying what installs it, when missing.
fn spark_home() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, pyspark, pandas, pyarrow; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "pyspark 4 (with pandas and pyarrow) is not installed: scripts/test installs it \
         (python3 -m pip install pyspark pandas pyarrow); {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A running cluster; stopped when dropped, whatever happened.
struct Cluster {
    dir: PathBuf,
    url: String,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let out = Command::new(repo("scripts/spark-cluster"))
            .arg("start")
            .arg(dir)
            .output()
            .expect("scripts/spark-cluster");
        // From here on the guard stops whatever was started.
        let mut c = Cluster {
            dir: dir.to_path_buf(),
            url: String::new(),
        };
        assert!(
            out.status.success(),
            "scripts/spark-cluster start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        c.url = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert!(c.url.starts_with("spark://127.0.0.1:"), "{}", c.url);
        c
    }

    /// The workers the master lists as alive (its JSON).
    fn alive_workers(&self) -> usize {
        let ui = std::fs::read_to_string(self.dir.join("webui-url")).unwrap();
        let out = Command::new("python3")
            .args([
                "-c",
                "import json, sys, urllib.request; d = json.load(urllib.request.urlopen(sys.argv[1] + '/json')); print(sum(w['state'] == 'ALIVE' for w in d['workers']))",
                ui.trim(),
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }

    /// Runs the build on the cluster; its summary.
    fn build(
        &self,
        inputs: &[&Path],
        out: &Path,
        partitions: u32,
        batch: u32,
        split: &str,
    ) -> Value {
        let summary = out.with_extension("summary.json");
        let mut cmd = Command::new(spark_home().join("bin/spark-submit"));
        cmd.env("SPARK_LOCAL_IP", "127.0.0.1")
            .args(["--master", &self.url])
            .args(["--conf", "spark.executor.memory=1g"])
            .args(["--conf", "spark.executor.cores=1"])
            .args(["--conf", "spark.driver.memory=1g"])
            .args(["--conf", "spark.ui.showConsoleProgress=false"])
            .arg(repo("scripts/spark/tabiya_build.py"))
            .args(inputs)
            .arg("--out")
            .arg(out)
            .args(["--partitions", &partitions.to_string()])
            .args(["--batch", &batch.to_string()])
            .args(["--split", split])
            .args(["--tabiya", BIN])
            .arg("--summary")
            .arg(&summary);
        let o = cmd.output().expect("spark-submit");
        assert!(
            o.status.success(),
            "spark-submit tabiya_build.py failed: {}\n{}",
            tail(&String::from_utf8_lossy(&o.stderr), 6000),
            tail(&String::from_utf8_lossy(&o.stdout), 6000)
        );
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(repo("scripts/spark-cluster"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Games in a PGN file, counted by this test: lines starting with `[Event `.
fn games_in(file: &Path) -> u64 {
    let bytes = std::fs::read(file).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"[Event "))
        .count() as u64
}

/// The bytes of game `n` (0-based) of a PGN file whose games each start with `[Event `.
fn game_text(file: &Path, n: usize) -> Vec<u8> {
    let bytes = std::fs::read(file).unwrap();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            bytes
                .windows(8)
                .enumerate()
                .filter(|(_, w)| w == b"\n[Event ")
                .map(|(i, _)| i + 1),
        )
        .collect();
    let end = starts.get(n + 1).copied().unwrap_or(bytes.len());
    bytes[starts[n]..end].to_vec()
}

fn import(db: &Path, files: &[&Path]) -> Value {
    let mut args = vec!["import", "--json", "--db", p(db)];
    args.extend(files.iter().map(|f| p(f)));
    json(&args)
}

fn load(out: &Path, db: &Path) {
    run_ok(&["db", "load", p(out), "--db", p(db)]);
}

fn export(db: &Path) -> String {
    String::from_utf8(run_ok(&["export", "--db", p(db)]).stdout).unwrap()
}

/// A position: `--play` moves or a `--fen`.
enum At {
    Play(&'static str),
    Fen(String),
}

impl At {
    fn args(&self) -> Vec<String> {
        match self {
            At::Play("") => vec![],
            At::Play(line) => vec!["--play".into(), line.to_string()],
            At::Fen(f) => vec!["--fen".into(), f.clone()],
        }
    }
}

fn answer(cmd: &str, db: &Path, at: &At) -> Value {
    let mut args: Vec<String> = vec![cmd.into(), "--json".into(), "--db".into(), p(db).into()];
    args.extend(at.args());
    if cmd == "games" {
        args.extend(["--limit".into(), "100000".into()]);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    json(&refs)
}

/// The games counted in an explore answer (the three results and the unknown ones).
fn explored(e: &Value) -> u64 {
    ["white", "draws", "black", "unknown"]
        .iter()
        .map(|k| e[k].as_u64().unwrap_or(0))
        .sum()
}

/// Every answer compared; each position must be reached by some game.
fn assert_same_answers(spark: &Path, imported: &Path, at: &[At]) {
    for a in at {
        let (x, y) = (answer("explore", spark, a), answer("explore", imported, a));
        assert!(explored(&y) > 0, "no game at {:?}", a.args());
        assert_eq!(x, y, "explore at {:?}", a.args());
        let (x, y) = (answer("games", spark, a), answer("games", imported, a));
        assert_eq!(x, y, "games at {:?}", a.args());
    }
    let (x, y) = (export(spark), export(imported));
    assert!(!y.is_empty());
    assert!(x == y, "the exports differ");
}

/// Positions deep in particular games, from python-chess (an independent reader): for each
/// (file, game, ply) the FEN after that many plies (`-1`: the game's final position).
fn fens(picks: &[(&Path, usize, i64)]) -> Vec<String> {
    let code = r#"
import sys, chess.pgn
out = []
args = sys.argv[1:]
for i in range(0, len(args), 3):
    path, n, ply = args[i], int(args[i + 1]), int(args[i + 2])
    with open(path, encoding="latin-1") as f:
        for _ in range(n):
            chess.pgn.skip_game(f)
        g = chess.pgn.read_game(f)
    b = g.board()
    moves = list(g.mainline_moves())
    for m in moves[: len(moves) if ply < 0 else ply]:
        b.push(m)
    out.append(b.fen())
print("\n".join(out))
"#;
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(code);
    for (f, n, ply) in picks {
        cmd.arg(f).arg(n.to_string()).arg(ply.to_string());
    }
    let out = cmd.output().expect("python3 with python-chess");
    assert!(
        out.status.success(),
        "python-chess: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const LINES: [&str; 9] = [
    "",
    "e4",
    "e4,c5",
    "d4,Nf6,c4,e6",
    "Nf3,Nf6,c4,e6,d4",
    "e4,e5,Nf3,Nc6,Bb5,a6",
    "d4,d5,c4,c6",
    "e4,c6,d4,d5",
    "e4,e6,d4,d5",
];

fn check_counts(s: &Value, read: u64, imp: &Value) {
    assert_eq!(s["gamesRead"], read, "games read: {s}");
    assert_eq!(s["gamesKept"], imp["imported"], "{s}\n{imp}");
    assert_eq!(s["duplicates"], imp["duplicates"], "{s}\n{imp}");
    assert_eq!(s["rejected"], imp["skipped"], "{s}\n{imp}");
    assert_eq!(
        s["gamesRead"].as_u64().unwrap(),
        imp["games"].as_u64().unwrap(),
        "{imp}"
    );
}

/// PGN files (real, generated, a file of a duplicate and a bad game) built on two workers in
/// six partitions answer as the same files imported; then Parquet input likewise.
#[test]
fn spark_build_answers_as_import() {
    let home = spark_home();
    assert!(home.join("bin/spark-submit").exists(), "{home:?}");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // The inputs: generated games first, then real ones (Kasparov and PolgarJ are Latin-1
    // in places; Kasparov's and Topalov's games overlap), then a file holding a copy of a
    // twic game and of a generated one (later copies: dropped) and a game with an illegal
    // move (rejected).
    let generated = d.join("generated.pgn");
    run_ok(&[
        "gen",
        "--games",
        "8000",
        "--seed",
        "20",
        "-o",
        p(&generated),
    ]);
    let twic = shared("pgn/twic/twic0920.pgn");
    let mentor: Vec<PathBuf> = [
        "Carlsen", "Kasparov", "PolgarJ", "Tal", "Topalov", "Fischer",
    ]
    .iter()
    .map(|n| shared(&format!("pgn/pgnmentor/{n}.pgn")))
    .collect();
    let extra = d.join("extra.pgn");
    let mut bytes = game_text(&twic, 41);
    bytes.extend(b"\n[Event \"bad game\"]\n[Site \"?\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 Nf6 1-0\n\n");
    bytes.extend(game_text(&generated, 5000));
    std::fs::write(&extra, &bytes).unwrap();
    let mut inputs: Vec<&Path> = vec![&generated, &twic];
    inputs.extend(mentor.iter().map(PathBuf::as_path));
    inputs.push(&extra);
    let read: u64 = inputs.iter().map(|f| games_in(f)).sum();
    assert!(read >= 20_000, "{read}");

    let cluster = Cluster::start(&d.join("cluster"));
    assert_eq!(cluster.alive_workers(), 2);

    let out = d.join("out");
    let s = cluster.build(&inputs, &out, 6, 1500, "prefix");
    let imported = d.join("imported");
    let imp = import(&imported, &inputs);
    check_counts(&s, read, &imp);
    assert!(s["rejected"].as_u64().unwrap() >= 1, "{s}");
    assert!(s["duplicates"].as_u64().unwrap() >= 2, "{s}");
    assert!(
        s["firstErrors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["input"] == p(&extra) && e["error"].as_str().unwrap().contains("Ke3")),
        "{s}"
    );
    assert_eq!(s["partitions"], 6);
    assert_eq!(s["split"], "prefix");
    // The games' counted positions are the occurrences written, one at least a game.
    assert_eq!(s["occurrences"], s["positions"], "{s}");
    assert!(s["occurrences"].as_u64() > s["gamesKept"].as_u64(), "{s}");
    // Six range partitions of the index (Spark writes no file for an empty one).
    let index_files = std::fs::read_dir(out.join("index"))
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap().file_name();
            let e = e.to_string_lossy();
            e.starts_with("part-") && e.ends_with(".parquet")
        })
        .count();
    assert!((2..=6).contains(&index_files), "{index_files}");

    let spark_db = d.join("spark-db");
    load(&out, &spark_db);

    let mut at: Vec<At> = LINES.iter().map(|l| At::Play(l)).collect();
    let kasparov = &mentor[1];
    let picks: Vec<(&Path, usize, i64)> = vec![
        (&twic, 7, 24),
        (&twic, 300, 40),
        (&twic, 1500, 31),
        (&twic, 2200, -1),
        (kasparov, 1000, 30),
        (&mentor[3], 2000, 45),
        (&generated, 4321, 60), // deep in one generated game: a position of one game only
        (&generated, 6001, -1),
    ];
    at.extend(fens(&picks).into_iter().map(At::Fen));
    assert_same_answers(&spark_db, &imported, &at);

    // Parquet: a Lichess-schema file (UTCTime, a TIME column Spark's own reader rejects)
    // and a Hive-partitioned folder, read by the executors with pyarrow; the index split
    // by Spark's sampled ranges this time (above: equal ranges of the keys' prefixes).
    let pq_file = d.join("twic.parquet");
    let pq_dir = d.join("carlsen");
    for args in [
        vec!["--lichess", "--compression", "zstd", p(&twic), p(&pq_file)],
        vec![
            "--lichess",
            "--partition",
            p(&shared("pgn/pgnmentor/Carlsen.pgn")),
            p(&pq_dir),
        ],
    ] {
        let o = Command::new("python3")
            .arg(repo("scripts/pgn-to-parquet"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "pgn-to-parquet: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let pq_inputs: [&Path; 2] = [&pq_file, &pq_dir];
    let out2 = d.join("out-parquet");
    let s2 = cluster.build(&pq_inputs, &out2, 3, 700, "range");
    let imported2 = d.join("imported-parquet");
    let imp2 = import(&imported2, &pq_inputs);
    check_counts(
        &s2,
        games_in(&twic) + games_in(&shared("pgn/pgnmentor/Carlsen.pgn")),
        &imp2,
    );
    assert_eq!(s2["inputs"][1]["kind"], "parquet");
    assert!(s2["inputs"][1]["files"].as_u64().unwrap() >= 2, "{s2}");
    let spark_db2 = d.join("spark-db-parquet");
    load(&out2, &spark_db2);
    let mut at2: Vec<At> = LINES[..6].iter().map(|l| At::Play(l)).collect();
    at2.extend(
        fens(&[(&twic, 100, 30), (&twic, 2000, -1)])
            .into_iter()
            .map(At::Fen),
    );
    assert_same_answers(&spark_db2, &imported2, &at2);
    drop(cluster);
}

/// What is wrong is said: an output folder that exists, an input that does not.
#[test]
fn bad_arguments_are_refused() {
    let home = spark_home();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| {
        let o = Command::new(home.join("bin/spark-submit"))
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .args(["--master", "local[1]"])
            .arg(repo("scripts/spark/tabiya_build.py"))
            .args(args)
            .args(["--tabiya", BIN])
            .output()
            .unwrap();
        assert!(!o.status.success());
        // spark-submit sends the Python driver's standard error to its standard output.
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let missing = d.join("missing.pgn");
    let err = run(&[p(&missing), "--out", p(&d.join("o"))]);
    assert!(err.contains("missing.pgn: no such file or folder"), "{err}");
    let err = run(&[p(&shared("pgn/pgnmentor/Morphy.pgn")), "--out", p(d)]);
    assert!(err.contains("exists: give a new folder for --out"), "{err}");
}
