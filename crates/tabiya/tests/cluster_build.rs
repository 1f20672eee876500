//! A cluster build without the cluster: the input cut into partitions as Spark cuts it,
//! each run through the worker commands (`tabiya spark games`, `tabiya spark occurrences`),
//! duplicates removed and ids given in input order, every occurrence sorted by key and cut
//! into key ranges — done here by hand, the way the job does it with Spark — then `tabiya db
//! load`. The database answers exactly as `tabiya import` of the same files.

mod common;

use std::path::{Path, PathBuf};

use common::{json, run_ok, run_raw, shared};
use serde_json::Value;
use tabiya_parquet::cluster::{OccReader, OccRow, read_prepared, write_games, write_occurrences};

/// The games of PGN files, one text each, in file order (cut before each `[Event `).
fn game_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut games: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Event ") || games.is_empty() {
            games.push(String::new());
        }
        let g = games.last_mut().unwrap();
        g.push_str(line);
        g.push('\n');
    }
    games.retain(|g| !g.trim().is_empty());
    games
}

fn worker(stage: &str, input: &Path, output: &Path) -> Value {
    json(&[
        "spark",
        stage,
        input.to_str().unwrap(),
        output.to_str().unwrap(),
        "--json",
    ])
}

/// The build of `inputs` cut into `k` partitions, into `out` (games/ and index/ of `ranges`
/// key ranges). Returns (games read, refused, duplicates).
fn build(inputs: &[PathBuf], k: usize, ranges: usize, out: &Path) -> (usize, usize, usize) {
    let texts: Vec<String> = inputs.iter().flat_map(|p| game_texts(p)).collect();
    let work = out.join("work");
    std::fs::create_dir_all(&work).unwrap();
    // Stage 1 on each partition of the input.
    let per = texts.len().div_ceil(k);
    let mut prepared = Vec::new();
    for (i, part) in texts.chunks(per).enumerate() {
        let (inp, outp) = (
            work.join(format!("in-{i}.parquet")),
            work.join(format!("prep-{i}.parquet")),
        );
        write_games(&inp, None, part, None).unwrap();
        let r = worker("games", &inp, &outp);
        assert_eq!(r["rows"], part.len());
        prepared.extend(read_prepared(&outp).unwrap());
    }
    assert_eq!(prepared.len(), texts.len());
    // What the cluster does: refused games out, the first of equal digests kept, ids in order.
    let mut seen = std::collections::HashSet::new();
    let (mut refused, mut duplicates) = (0, 0);
    let mut kept: Vec<(String, i32)> = Vec::new();
    for r in prepared {
        match r.digest {
            None => refused += 1,
            Some(d) if !seen.insert(d) => duplicates += 1,
            Some(_) => kept.push((r.pgn, r.positions.unwrap())),
        }
    }
    let ids: Vec<i64> = (1..=kept.len() as i64).collect();
    // Stage 2 on other partitions (by id), then every occurrence sorted and cut by key.
    let mut occs: Vec<OccRow> = Vec::new();
    let per = kept.len().div_ceil(k + 1);
    for (i, (ids, part)) in ids.chunks(per).zip(kept.chunks(per)).enumerate() {
        let (inp, outp) = (
            work.join(format!("ids-{i}.parquet")),
            work.join(format!("occ-{i}.parquet")),
        );
        let pgn: Vec<String> = part.iter().map(|g| g.0.clone()).collect();
        write_games(&inp, Some(ids), &pgn, None).unwrap();
        let r = worker("occurrences", &inp, &outp);
        assert_eq!(r["rows"], part.len());
        occs.extend(OccReader::open(&outp).unwrap().map(|o| o.unwrap()));
    }
    let counted: i64 = kept.iter().map(|g| i64::from(g.1)).sum();
    assert_eq!(occs.len() as i64, counted, "every counted position, once");
    occs.sort_by_key(|o| (o.key, o.game));
    let index = out.join("index");
    std::fs::create_dir_all(&index).unwrap();
    let per = occs.len().div_ceil(ranges);
    for (i, part) in occs.chunks(per).enumerate() {
        write_occurrences(&index.join(format!("part-{i:05}.parquet")), part).unwrap();
    }
    let games = out.join("games");
    std::fs::create_dir_all(&games).unwrap();
    let per = kept.len().div_ceil(2);
    for (i, (ids, part)) in ids.chunks(per).zip(kept.chunks(per)).enumerate() {
        let pgn: Vec<String> = part.iter().map(|g| g.0.clone()).collect();
        let n: Vec<i32> = part.iter().map(|g| g.1).collect();
        write_games(
            &games.join(format!("part-{i:05}.parquet")),
            Some(ids),
            &pgn,
            Some(&n),
        )
        .unwrap();
    }
    (texts.len(), refused, duplicates)
}

fn ask(db: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--db", db.to_str().unwrap(), "--json"]);
    json(&all)
}

#[test]
fn a_build_in_partitions_loads_as_the_import_of_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    // Real games, generated ones, a game twice and a game with an illegal move.
    let generated = dir.path().join("gen.pgn");
    run_ok(&[
        "gen",
        "--games",
        "3000",
        "--seed",
        "7",
        "--output",
        generated.to_str().unwrap(),
    ]);
    let twic = shared("pgn/twic/twic0920.pgn");
    let extra = dir.path().join("extra.pgn");
    let again = game_texts(&twic)[4].clone();
    std::fs::write(
        &extra,
        format!("{again}\n[Event \"Broken\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n"),
    )
    .unwrap();
    // A row of two games (the second without an [Event tag, as a cut at "[Event " leaves
    // it) is refused as a whole, never half taken.
    let two = dir.path().join("two.parquet");
    let rows = vec![
        "[Event \"A\"]\n[Result \"*\"]\n\n1. d4 *\n\n[White \"X\"]\n[Result \"*\"]\n\n1. c4 *\n"
            .to_string(),
        "[Event \"B\"]\n[Result \"*\"]\n\n1. e4 *\n".to_string(),
    ];
    tabiya_parquet::cluster::write_games(&two, None, &rows, None).unwrap();
    let found = dir.path().join("two-found.parquet");
    let r = worker("games", &two, &found);
    assert_eq!(
        (r["accepted"].clone(), r["refused"].clone()),
        (1.into(), 1.into())
    );
    let prepared = read_prepared(&found).unwrap();
    let why = prepared[0].error.as_deref().unwrap_or("");
    assert!(why.contains("holds 2 games"), "{why}");
    let inputs = vec![twic, shared("pgn/pgnmentor/Fischer.pgn"), generated, extra];
    let build_dir = dir.path().join("build");
    let (read, refused, duplicates) = build(&inputs, 3, 5, &build_dir);
    assert_eq!(
        (refused, duplicates),
        (1, 1),
        "the broken game and the copy"
    );

    let loaded = dir.path().join("loaded");
    let l = json(&[
        "db",
        "load",
        build_dir.to_str().unwrap(),
        "--db",
        loaded.to_str().unwrap(),
        "--json",
    ]);
    let imported = dir.path().join("imported");
    let mut args = vec!["import", "--db", imported.to_str().unwrap(), "--json"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let i = json(&args);
    assert_eq!(i["games"], read as u64);
    assert_eq!(l["imported"], i["imported"]);
    assert_eq!(i["duplicates"], 1);

    // Positions: the start, popular openings, deep and rare positions of real games.
    let mut lines: Vec<String> = [
        "",
        "e2e4",
        "e2e4 c7c5",
        "d2d4 g8f6 c2c4 e7e6",
        "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let pgn_of = |db: &Path| {
        let out = run_ok(&["export", "--db", db.to_str().unwrap()]);
        String::from_utf8(out.stdout).unwrap()
    };
    let exported = pgn_of(&imported);
    assert_eq!(pgn_of(&loaded), exported, "every game, as stored");
    // Deep positions: the first 10, 25 and 40 plies of some games (SAN from the export).
    let games = game_texts_str(&exported);
    for idx in [3, 900, 2500, 4100] {
        let moves = san_moves(&games[idx.min(games.len() - 1)]);
        for plies in [10, 25, 40] {
            if moves.len() >= plies {
                lines.push(moves[..plies].join(" "));
            }
        }
    }
    let mut compared = 0;
    for line in &lines {
        let mut args = vec!["explore", "--top", "12"];
        if !line.is_empty() {
            args.extend(["--play", line.as_str()]);
        }
        let (a, b) = (ask(&imported, &args), ask(&loaded, &args));
        assert_eq!(a, b, "explore {line:?}");
        let mut gargs = vec!["games", "--limit", "50", "--sort", "id"];
        if !line.is_empty() {
            gargs.extend(["--play", line.as_str()]);
        }
        assert_eq!(
            ask(&imported, &gargs),
            ask(&loaded, &gargs),
            "games {line:?}"
        );
        compared += 1;
    }
    assert!(compared >= 15, "{compared} positions");
    let stats = |db: &Path| ask(db, &["stats"]);
    let (a, b) = (stats(&imported), stats(&loaded));
    assert_eq!(a["games"], b["games"]);
    assert_eq!(a["positions"], b["positions"]);
}

fn game_texts_str(text: &str) -> Vec<String> {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), text).unwrap();
    game_texts(f.path())
}

/// The main line's moves of a game as exported (no comments or variations in these games'
/// main lines matter: move numbers and results are left out).
fn san_moves(game: &str) -> Vec<String> {
    let body: String = game
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut depth = 0i32;
    let mut clean = String::new();
    for c in body.chars() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    clean
        .split_whitespace()
        .filter(|t| {
            !t.ends_with('.')
                && !t.starts_with('$')
                && !["1-0", "0-1", "1/2-1/2", "*"].contains(t)
                && !t.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn a_load_refuses_a_build_out_of_order_or_a_database_with_games() {
    let dir = tempfile::tempdir().unwrap();
    let build_dir = dir.path().join("build");
    build(&[shared("pgn/twic/twic0920.pgn")], 2, 3, &build_dir);
    // Index files whose key ranges are swapped: a clear error, and no database half made.
    let index = build_dir.join("index");
    std::fs::rename(index.join("part-00000.parquet"), index.join("x.parquet")).unwrap();
    std::fs::rename(
        index.join("part-00002.parquet"),
        index.join("part-00000.parquet"),
    )
    .unwrap();
    std::fs::rename(index.join("x.parquet"), index.join("part-00002.parquet")).unwrap();
    let db = dir.path().join("db");
    let out = run_raw(&[
        "db",
        "load",
        build_dir.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("out of order"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A database with games refuses a load.
    let other = dir.path().join("other");
    run_ok(&[
        "import",
        "--db",
        other.to_str().unwrap(),
        shared("pgn/pgnmentor/Fischer.pgn").to_str().unwrap(),
    ]);
    let out = run_raw(&[
        "db",
        "load",
        build_dir.to_str().unwrap(),
        "--db",
        other.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("new database"), "{err}");
    assert!(!db.exists(), "a failed load leaves no database behind");
}
