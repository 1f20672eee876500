//! End-to-end tests of `tabiya book …` on the real files in `../shared/data`. Expected values
//! come from the independent reader's files next to the CTG books, from python-chess (run by
//! the tests; skipped with a message when python3 or python-chess is missing), from Debian's
//! `polyglot` (make-book, merge-book, dump-book; skipped when missing), from the database
//! (`tabiya explore`, and `tabiya_db` queries), or from the format notes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

mod common;
use common::{BIN, json, run_ok as run, run_raw, shared};

fn twic() -> PathBuf {
    shared("pgn/twic/twic0920.pgn")
}

fn tcec() -> PathBuf {
    shared("pgn/tcec/tcec-partial.nocomments.pgn.zst")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn probe(book: &Path, fen: &str) -> Value {
    json(&["book", "probe", &s(book), "--fen", fen, "--json"])
}

fn u(v: &Value) -> Option<u64> {
    v.as_u64()
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn parse_fen(f: &str) -> Chess {
    let fen: Fen = f.parse().unwrap();
    let mode = CastlingMode::detect(fen.as_setup());
    fen.into_position(mode).unwrap()
}

fn play(line: &str) -> Chess {
    let mut pos = Chess::default();
    for t in line.split_whitespace() {
        let m = t
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
    }
    pos
}

/// python3 with python-chess, or `None` (the test then says it is skipped).
fn python_chess() -> Option<&'static str> {
    let ok = Command::new("python3")
        .args(["-c", "import chess, chess.polyglot"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Some("python3")
    } else {
        eprintln!("SKIPPED: python3 with python-chess is not installed");
        None
    }
}

fn python(script: &str, args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn polyglot_bin() -> Option<&'static str> {
    for p in ["/usr/games/polyglot", "/usr/bin/polyglot"] {
        if Path::new(p).exists() {
            return Some(p);
        }
    }
    eprintln!("SKIPPED: Debian's polyglot is not installed (apt-get install polyglot)");
    None
}

// ---------------------------------------------------------------------------------------
// CTG probes against the independent reader's expected files.

/// Compares one expected line with `tabiya book probe --json`.
fn check_ctg_line(book: &Path, e: &Value) {
    let fen = e["fen"].as_str().unwrap();
    let p = probe(book, fen);
    assert_eq!(p["found"], e["found"], "{fen}");
    if e["found"] != Value::Bool(true) {
        return;
    }
    let avg = |sum: &Value, n: &Value| (u(n).unwrap() > 0).then(|| u(sum).unwrap() / u(n).unwrap());
    assert_eq!(u(&p["games"]), u(&e["total"]), "{fen}");
    assert_eq!(u(&p["wins"]), u(&e["stm_wins"]), "{fen}");
    assert_eq!(u(&p["losses"]), u(&e["stm_losses"]), "{fen}");
    assert_eq!(u(&p["draws"]), u(&e["draws"]), "{fen}");
    assert_eq!(
        u(&p["averageRating"]),
        avg(&e["rating_sum"], &e["rated_games"]),
        "{fen}"
    );
    assert_eq!(
        u(&p["performance"]),
        avg(&e["perf_sum"], &e["perf_games"]),
        "{fen}"
    );
    assert_eq!(u(&p["recommendation"]), u(&e["recommendation"]), "{fen}");
    assert_eq!(u(&p["commentary"]), u(&e["commentary"]), "{fen}");
    let em = e["moves"].as_array().unwrap();
    let pm = p["moves"].as_array().unwrap();
    assert_eq!(pm.len(), em.len(), "{fen}: moves");
    for (m, x) in pm.iter().zip(em) {
        assert_eq!(m["uci"], x["uci"], "{fen}");
        assert_eq!(m["san"], x["san"], "{fen}");
        let nag = u(&x["annotation"]).unwrap() & 0x1f;
        assert_eq!(
            u(&m["annotation"]),
            (nag != 0).then_some(nag),
            "{fen} {}",
            x["uci"]
        );
        assert_eq!(u(&m["games"]), u(&x["child_total"]), "{fen} {}", x["uci"]);
        assert_eq!(u(&m["wins"]), u(&x["mover_wins"]), "{fen} {}", x["uci"]);
        assert_eq!(u(&m["losses"]), u(&x["mover_losses"]), "{fen} {}", x["uci"]);
        assert_eq!(u(&m["draws"]), u(&x["draws"]), "{fen} {}", x["uci"]);
        assert_eq!(
            u(&m["averageRating"]),
            u(&x["child_avg_rating"]),
            "{fen} {}",
            x["uci"]
        );
        assert_eq!(
            u(&m["performance"]),
            u(&x["child_avg_perf"]),
            "{fen} {}",
            x["uci"]
        );
        let rec = u(&x["child_recommendation"]).unwrap();
        assert_eq!(m["green"], Value::Bool(rec & 0x80 != 0));
        assert_eq!(m["red"], Value::Bool(rec & 0x40 != 0));
        assert_eq!(u(&m["commentary"]), u(&x["child_commentary"]));
    }
}

#[test]
fn ctg_probes_equal_the_expected_files() {
    for (book, expected) in [
        ("ctg/simple.ctg", "ctg/simple.expected.jsonl"),
        (
            "ctg/PowerPlay17-Sicilienne.ctg",
            "ctg/PowerPlay17-Sicilienne.expected_ply6.jsonl",
        ),
    ] {
        let text = std::fs::read_to_string(shared(expected)).unwrap();
        let mut n = 0;
        for line in text.lines().filter(|l| !l.contains("\"_meta\"")) {
            check_ctg_line(&shared(book), &serde_json::from_str(line).unwrap());
            n += 1;
        }
        assert!(n >= 4, "{expected}: {n} lines");
    }
    // The same book opened by its stem, its .cto and with an explicit format.
    let stem = shared("ctg/PowerPlay17-Sicilienne");
    for p in [s(&stem), format!("{}.cto", s(&stem))] {
        let v = json(&["book", "probe", &p, "--json", "--fen", "startpos"]);
        assert_eq!(u(&v["games"]), Some(499));
        assert_eq!(v["format"], "ctg");
    }
}

// ---------------------------------------------------------------------------------------
// Polyglot probes against python-chess.

const PY_POLYGLOT_WALK: &str = r#"
import sys, json, chess, chess.polyglot
path, limit = sys.argv[1], int(sys.argv[2])
out = []
negatives = 0
with chess.polyglot.open_reader(path) as r:
    # Breadth first: book moves from positions with entries; every legal move from a
    # position without entries whose parent had some (a one-ply bridge, as for one-colour
    # books); the root counts as having a parent with entries.
    queue = [(chess.Board(), True)]
    seen = set()
    while queue and len(out) < limit:
        b, parent_had = queue.pop(0)
        k = chess.polyglot.zobrist_hash(b)
        if k in seen:
            continue
        seen.add(k)
        entries = list(r.find_all(b, minimum_weight=0))
        if entries or negatives < 10:
            negatives += 0 if entries else 1
            out.append({"fen": b.fen(en_passant="legal"), "moves": [{"uci": e.move.uci(), "weight": e.weight, "learn": e.learn} for e in entries]})
        if entries:
            for e in entries:
                c = b.copy(); c.push(e.move); queue.append((c, True))
        elif parent_had:
            for m in b.legal_moves:
                c = b.copy(); c.push(m); queue.append((c, False))
print(json.dumps(out))
"#;

#[test]
fn polyglot_probes_equal_python_chess() {
    if python_chess().is_none() {
        return;
    }
    for book in [
        "polyglot/gm2001.bin",
        "polyglot/performance.bin",
        "polyglot/lasker-trap.bin",
    ] {
        let path = shared(book);
        let expected = python(PY_POLYGLOT_WALK, &[s(&path), "120".into()]);
        let list = expected.as_array().unwrap();
        assert!(!list.is_empty());
        let mut found = 0;
        for e in list {
            let fen = e["fen"].as_str().unwrap();
            let p = probe(&path, fen);
            let em = e["moves"].as_array().unwrap();
            assert_eq!(p["found"], Value::Bool(!em.is_empty()), "{book} {fen}");
            found += usize::from(!em.is_empty());
            let pm = p["moves"].as_array().unwrap();
            let ours: Vec<(String, u64, u64)> = pm
                .iter()
                .map(|m| {
                    (
                        m["uci"].as_str().unwrap().to_string(),
                        u(&m["weight"]).unwrap(),
                        u(&m["learn"]).unwrap(),
                    )
                })
                .collect();
            let theirs: Vec<(String, u64, u64)> = em
                .iter()
                .map(|m| {
                    (
                        m["uci"].as_str().unwrap().to_string(),
                        u(&m["weight"]).unwrap(),
                        u(&m["learn"]).unwrap(),
                    )
                })
                .collect();
            assert_eq!(ours, theirs, "{book} {fen}");
            // Polyglot holds no statistics: those fields are left out.
            assert!(p.get("games").is_none() && pm.iter().all(|m| m.get("games").is_none()));
        }
        assert!(found > 0, "{book}");
    }
    // lasker-trap's underpromotion fxg1=N+ at the end of its line.
    let after = fen_of(&play("d4 d5 c4 e5 dxe5 d4 e3 Bb4+ Bd2 dxe3 Bxb4 exf2+ Ke2"));
    let p = probe(&shared("polyglot/lasker-trap.bin"), &after);
    let ucis: Vec<&str> = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis, ["f2g1n"], "{p}");
    assert_eq!(p["moves"][0]["san"], "fxg1=N+");
}

// ---------------------------------------------------------------------------------------
// Polyglot build: byte-identical to `polyglot make-book`.

fn make_book(pgn: &Path, out: &Path, args: &[&str]) {
    let poly = polyglot_bin().unwrap();
    let o = Command::new(poly)
        .args(["make-book", "-pgn"])
        .arg(pgn)
        .arg("-bin")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success() && out.exists(),
        "polyglot make-book: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

fn tabiya_build(format: &str, out: &Path, inputs: &[PathBuf], args: &[&str]) -> Value {
    let mut a: Vec<String> = vec![
        "book".into(),
        "build".into(),
        "--format".into(),
        format.into(),
        "-o".into(),
        s(out),
        "--json".into(),
    ];
    a.extend(args.iter().map(|x| x.to_string()));
    a.extend(inputs.iter().map(|p| s(p)));
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    json(&refs)
}

fn same_bytes(label: &str, a: &Path, b: &Path) {
    let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    if x != y {
        let at = x
            .iter()
            .zip(&y)
            .position(|(p, q)| p != q)
            .unwrap_or(x.len().min(y.len()));
        panic!(
            "{label}: {} vs {} bytes, first difference at byte {at} (entry {})",
            x.len(),
            y.len(),
            at / 16
        );
    }
}

/// The polyglot flag list as tabiya's.
fn tabiya_flags(args: &[&str]) -> Vec<String> {
    args.iter()
        .map(|a| match *a {
            "-min-game" => "--min-game".to_string(),
            "-max-ply" => "--max-ply".to_string(),
            "-only-white" => "--only-white".to_string(),
            "-only-black" => "--only-black".to_string(),
            "-uniform" => "--uniform".to_string(),
            x => x.to_string(),
        })
        .collect()
}

#[test]
fn polyglot_build_is_byte_identical_to_make_book() {
    if polyglot_bin().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // twic with several option sets.
    for (i, args) in [
        &[][..],
        &["-min-game", "1", "-max-ply", "20"][..],
        &["-only-white"][..],
        &["-only-black", "-uniform", "-min-game", "2"][..],
    ]
    .iter()
    .enumerate()
    {
        let theirs = d.join(format!("twic-p{i}.bin"));
        let ours = d.join(format!("twic-t{i}.bin"));
        make_book(&twic(), &theirs, args);
        let flags = tabiya_flags(args);
        let refs: Vec<&str> = flags.iter().map(String::as_str).collect();
        let r = tabiya_build("polyglot", &ours, &[twic()], &refs);
        assert_eq!(u(&r["gamesUsed"]), Some(2245));
        same_bytes(&format!("twic {args:?}"), &ours, &theirs);
    }
    // pgnmentor, all ten files concatenated, and given to tabiya as ten inputs.
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared("pgn/pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in &files {
        all.extend(std::fs::read(f).unwrap());
    }
    let cat = d.join("pgnmentor.pgn");
    std::fs::write(&cat, &all).unwrap();
    make_book(&cat, &d.join("pm-p.bin"), &[]);
    tabiya_build("polyglot", &d.join("pm-t.bin"), &files, &[]);
    same_bytes("pgnmentor", &d.join("pm-t.bin"), &d.join("pm-p.bin"));

    // TCEC: tabiya reads the zstd file whole and skips the FEN games; polyglot gets the file
    // without them (it would replay them from the standard start and stop).
    let text =
        String::from_utf8(zstd::decode_all(std::fs::File::open(tcec()).unwrap()).unwrap()).unwrap();
    let (standard, dropped) = drop_non_standard_fen_games(&text);
    let plain = d.join("tcec-standard.pgn");
    std::fs::write(&plain, standard).unwrap();
    make_book(&plain, &d.join("tcec-p.bin"), &[]);
    let r = tabiya_build("polyglot", &d.join("tcec-t.bin"), &[tcec()], &[]);
    assert_eq!(u(&r["skippedNonStandardStart"]), Some(dropped as u64));
    same_bytes("tcec", &d.join("tcec-t.bin"), &d.join("tcec-p.bin"));

    // Standard input, gzip-compressed.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &std::fs::read(twic()).unwrap()).unwrap();
    let gz = gz.finish().unwrap();
    let mut child = Command::new(BIN)
        .args([
            "book",
            "build",
            "--format",
            "polyglot",
            "-o",
            &s(&d.join("stdin.bin")),
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &gz).unwrap();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    same_bytes(
        "twic from gzip stdin",
        &d.join("stdin.bin"),
        &d.join("twic-p0.bin"),
    );
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Drops games whose FEN is not the standard start (split at a tag line after movetext).
fn drop_non_standard_fen_games(text: &str) -> (String, usize) {
    let mut games: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_tags = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with('[') {
            if !in_tags && !current.is_empty() {
                games.push(std::mem::take(&mut current));
            }
            in_tags = true;
        } else if !line.trim().is_empty() {
            in_tags = false;
        }
        current.push_str(line);
    }
    games.push(current);
    let mut out = String::new();
    let mut dropped = 0;
    for g in games {
        let fen = g
            .lines()
            .find_map(|l| l.strip_prefix("[FEN \""))
            .map(|l| l.trim_end().trim_end_matches("\"]"));
        if fen.is_some_and(|f| f != START_FEN) {
            dropped += 1;
        } else {
            out.push_str(&g);
        }
    }
    (out, dropped)
}

#[test]
fn merge_and_dump_as_polyglot_does() {
    let Some(poly) = polyglot_bin() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = d.join("a.bin");
    let b = d.join("b.bin");
    tabiya_build(
        "polyglot",
        &a,
        &[shared("pgn/pgnmentor/Tal.pgn")],
        &["--min-game", "1"],
    );
    tabiya_build(
        "polyglot",
        &b,
        &[shared("pgn/pgnmentor/Fischer.pgn")],
        &["--min-game", "1"],
    );
    let theirs = d.join("merged-p.bin");
    let o = Command::new(poly)
        .args(["merge-book", "-in1"])
        .arg(&a)
        .arg("-in2")
        .arg(&b)
        .arg("-out")
        .arg(&theirs)
        .output()
        .unwrap();
    assert!(
        theirs.exists(),
        "merge-book: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v = json(&[
        "book",
        "merge",
        &s(&a),
        &s(&b),
        "-o",
        &s(&d.join("merged-t.bin")),
        "--json",
    ]);
    assert_eq!(
        u(&v["entries"]),
        Some(std::fs::metadata(&theirs).unwrap().len() / 16)
    );
    same_bytes("merge", &d.join("merged-t.bin"), &theirs);

    // dump of lasker-trap (Black's moves), as `polyglot dump-book` writes it.
    let book = shared("polyglot/lasker-trap.bin");
    let out = d.join("dump.txt");
    Command::new(poly)
        .args(["dump-book", "-bin"])
        .arg(&book)
        .args(["-color", "black", "-out"])
        .arg(&out)
        .output()
        .unwrap();
    let theirs = std::fs::read_to_string(&out).unwrap();
    assert!(theirs.contains("fxg1=N+"), "{theirs}");
    let ours =
        String::from_utf8(run(&["book", "dump", &s(&book), "--color", "black"]).stdout).unwrap();
    assert_eq!(ours, theirs);

    // Merging a CTG book is refused with the file named.
    let e = run_raw(&[
        "book",
        "merge",
        &s(&shared("ctg/simple.ctg")),
        &s(&a),
        "-o",
        &s(&d.join("x.bin")),
    ]);
    assert!(!e.status.success());
    assert!(String::from_utf8_lossy(&e.stderr).contains("simple.ctg"));
}

// ---------------------------------------------------------------------------------------
// check and info.

#[test]
fn check_and_info_on_the_real_books() {
    let v = json(&[
        "book",
        "check",
        &s(&shared("ctg/PowerPlay17-Sicilienne.ctg")),
        "--json",
    ]);
    assert_eq!(v["clean"], Value::Bool(true), "{v}");
    assert_eq!(u(&v["records"]), Some(13_305));
    assert_eq!(u(&v["foundViaCto"]), Some(13_305));
    assert_eq!(u(&v["dataPages"]), Some(257));
    assert_eq!(u(&v["legalMoves"]), Some(13_406));
    // performance.bin: 92,954 entries, 90,208 reachable from the start (the polyglot page's
    // numbers, found by walking the book).
    let v = json(&[
        "book",
        "check",
        &s(&shared("polyglot/performance.bin")),
        "--json",
    ]);
    assert_eq!(v["clean"], Value::Bool(true), "{v}");
    assert_eq!(u(&v["entries"]), Some(92_954));
    assert_eq!(u(&v["unreachableEntries"]), Some(92_954 - 90_208));
    let v = json(&["book", "info", &s(&shared("polyglot/gm2001.bin")), "--json"]);
    assert_eq!(u(&v["entries"]), Some(30_416));
    let v = json(&[
        "book",
        "info",
        &s(&shared("ctg/PowerPlay17-Sicilienne.ctg")),
        "--json",
    ]);
    assert_eq!(u(&v["games"]), Some(499));
    assert_eq!(u(&v["records"]), Some(13_305));
    assert_eq!(u(&v["lowerBound"]), Some(248));
    assert_eq!(u(&v["upperBound"]), Some(384));
    // Dump of every CTG record.
    let v = json(&[
        "book",
        "dump",
        &s(&shared("ctg/PowerPlay17-Sicilienne.ctg")),
        "--json",
    ]);
    assert_eq!(v.as_array().unwrap().len(), 13_305);
}

// ---------------------------------------------------------------------------------------
// Damaged files: errors name the file and the offset.

#[test]
fn damaged_books_are_errors_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Polyglot cut short.
    let mut bytes = std::fs::read(shared("polyglot/gm2001.bin")).unwrap();
    bytes.truncate(16 * 100 + 7);
    let bad = d.join("cut.bin");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run_raw(&["book", "probe", &s(&bad), "--fen", "startpos"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("cut.bin") && err.contains("offset 1600"),
        "{err}"
    );
    let o = run_raw(&["book", "check", &s(&bad)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success() && out.contains("offset 1600"), "{out}");
    // Polyglot out of order: check names every misplaced entry's offset.
    let mut bytes = std::fs::read(shared("polyglot/gm2001.bin")).unwrap();
    let (a, b) = (16 * 10, 16 * 20);
    let tmp: Vec<u8> = bytes[a..a + 16].to_vec();
    bytes.copy_within(b..b + 16, a);
    bytes[b..b + 16].copy_from_slice(&tmp);
    let bad = d.join("unsorted.bin");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run_raw(&["book", "check", &s(&bad), "--json"]);
    assert!(!o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(u(&v["unsortedEntries"]).unwrap() >= 1);
    assert!(v["problems"].to_string().contains("unsorted.bin"));

    // CTG: a data page whose "bytes used" field runs past the page.
    for ext in ["ctg", "cto", "ctb"] {
        std::fs::copy(
            shared(&format!("ctg/PowerPlay17-Sicilienne.{ext}")),
            d.join(format!("pp.{ext}")),
        )
        .unwrap();
    }
    let mut ctg = std::fs::read(d.join("pp.ctg")).unwrap();
    // The start position lives on data page 237 (expected file): file offset 238 × 4096.
    let page = 238 * 4096;
    ctg[page + 2] = 0xff;
    ctg[page + 3] = 0xff;
    std::fs::write(d.join("pp.ctg"), &ctg).unwrap();
    let o = run_raw(&["book", "probe", &s(&d.join("pp.ctg")), "--fen", "startpos"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("pp.ctg")
            && err.contains("237")
            && err.contains("offset"),
        "{err}"
    );
    let o = run_raw(&["book", "check", &s(&d.join("pp.ctg"))]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !o.status.success() && out.contains("pp.ctg") && out.contains("byte offset"),
        "{out}"
    );

    // Kvetka: a block whose length field is out of range.
    let kv = d.join("kv").join("t");
    tabiya_build("kvetka", &kv, &[shared("pgn/pgnmentor/Morphy.pgn")], &[]);
    let kob = d.join("kv").join("t_0.kob");
    let mut k = std::fs::read(&kob).unwrap();
    let header = k.len() % 2048;
    let second_block = header + 2048;
    k[second_block] = 0xff;
    k[second_block + 1] = 0xff;
    std::fs::write(&kob, &k).unwrap();
    let o = run_raw(&["book", "check", &s(&kob)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("t_0.kob")
            && err.contains(&format!("offset {second_block}")),
        "{err}"
    );

    // Not a book at all.
    let junk = d.join("notes.txt");
    std::fs::write(&junk, "hello").unwrap();
    let o = run_raw(&["book", "info", &s(&junk)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("notes.txt"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Books built from games agree with the database.

/// Position totals of `explore` from the side to move: (games, wins, draws, losses,
/// unknown).
fn explore_totals(e: &Value, turn: Color) -> (u64, u64, u64, u64, u64) {
    let (w, d, b, x) = (
        u(&e["white"]).unwrap(),
        u(&e["draws"]).unwrap(),
        u(&e["black"]).unwrap(),
        u(&e["unknown"]).unwrap(),
    );
    let (win, loss) = if turn == Color::White { (w, b) } else { (b, w) };
    (w + d + b + x, win, d, loss, x)
}

/// Sample positions of twic: the start, openings, and positions deep in games.
fn twic_sample() -> Vec<Chess> {
    let mut v: Vec<Chess> = [
        "",
        "e4",
        "d4",
        "e4 c5",
        "e4 e5 Nf3 Nc6 Bb5",
        "d4 Nf6 c4 e6",
        "d4 d5 c4",
        "e4 c6",
        "c4",
        "Nf3",
    ]
    .iter()
    .map(|l| play(l))
    .collect();
    let text = std::fs::read_to_string(twic()).unwrap();
    let games: Vec<&str> = text.split("\n[Event ").collect();
    for (i, g) in games.iter().enumerate().filter(|(i, _)| i % 150 == 7) {
        let movetext: String = g
            .lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join(" ");
        let mut pos = Chess::default();
        let mut ply = 0;
        for tok in movetext.split_whitespace() {
            let t = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            let Ok(san) = t.parse::<shakmaty::san::San>() else {
                continue;
            };
            let Ok(m) = san.to_move(&pos) else { break };
            pos.play_unchecked(m);
            ply += 1;
            if [12, 25, 40, 61].contains(&ply) {
                v.push(pos.clone());
            }
        }
        let _ = i;
    }
    assert!(v.len() > 40, "{} sample positions", v.len());
    v
}

fn import_twic(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    json(&["import", "--json", "--db", &s(&db), &s(&twic())]);
    db
}

#[test]
fn books_built_from_twic_agree_with_explore() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = import_twic(d);
    let books = [
        ("ctg", d.join("from-db.ctg"), true),
        ("ctg", d.join("from-pgn.ctg"), false),
        ("kvetka", d.join("kv-db").join("twic"), true),
        ("kvetka", d.join("kv-pgn").join("twic"), false),
    ];
    for (format, out, from_db) in &books {
        if *from_db {
            run(&[
                "book",
                "build",
                "--format",
                format,
                "-o",
                &s(out),
                "--db",
                &s(&db),
            ]);
        } else {
            tabiya_build(format, out, &[twic()], &[]);
        }
    }
    let mut compared_moves = 0;
    for pos in twic_sample() {
        let fen = fen_of(&pos);
        let e = json(&["explore", "--json", "--db", &s(&db), "--fen", &fen]);
        let (games, wins, draws, losses, unknown) = explore_totals(&e, pos.turn());
        assert!(games > 0, "{fen} is in the database");
        for (format, book, _) in &books {
            let p = probe(book, &fen);
            assert_eq!(
                p["found"],
                Value::Bool(true),
                "{format} {}: {fen}",
                book.display()
            );
            let expect_games = if *format == "kvetka" {
                games - unknown
            } else {
                games
            };
            assert_eq!(
                (
                    u(&p["games"]),
                    u(&p["wins"]),
                    u(&p["draws"]),
                    u(&p["losses"])
                ),
                (Some(expect_games), Some(wins), Some(draws), Some(losses)),
                "{format} {}: {fen}",
                book.display()
            );
            if *format == "ctg" {
                assert_eq!(p["averageRating"], e["averageRating"], "{fen}");
                // A move's statistics are its child's record: equal to explore's move row
                // when no other move order reaches the child.
                for em in e["moves"].as_array().unwrap() {
                    let n = u(&em["white"]).unwrap()
                        + u(&em["draws"]).unwrap()
                        + u(&em["black"]).unwrap()
                        + u(&em["unknown"]).unwrap();
                    let Some(bm) = p["moves"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|m| m["uci"] == em["uci"])
                    else {
                        panic!("{fen}: move {} missing from the CTG book", em["uci"]);
                    };
                    if u(&bm["games"]) != Some(n) {
                        continue;
                    }
                    let (w, b) = (u(&em["white"]).unwrap(), u(&em["black"]).unwrap());
                    let (mw, ml) = if pos.turn() == Color::White {
                        (w, b)
                    } else {
                        (b, w)
                    };
                    assert_eq!(
                        (u(&bm["wins"]), u(&bm["losses"]), u(&bm["draws"])),
                        (Some(mw), Some(ml), u(&em["draws"])),
                        "{fen} {}",
                        em["uci"]
                    );
                    assert_eq!(
                        bm["averageRating"], em["averageRating"],
                        "{fen} {}",
                        em["uci"]
                    );
                    assert_eq!(bm["performance"], em["performance"], "{fen} {}", em["uci"]);
                    compared_moves += 1;
                }
            }
        }
    }
    assert!(compared_moves > 100, "{compared_moves} move rows compared");
}

/// Every record of a CTG (or element of a Kvetka) book built from twic, read back, against
/// the database's totals for the real positions it stands for.
#[test]
fn every_position_of_books_from_twic_reads_back_with_the_database_totals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db_dir = import_twic(d);
    let ctg = d.join("twic.ctg");
    let r = tabiya_build("ctg", &ctg, &[twic()], &[]);
    let merged = r["lost"]["positionsMergedWithTwin"].as_u64().unwrap_or(0);
    let kv = d.join("kv").join("twic");
    tabiya_build("kvetka", &kv, &[twic()], &[]);
    // Every record found through the .cto.
    let c = json(&["book", "check", &s(&ctg), "--json"]);
    assert_eq!(c["clean"], Value::Bool(true), "{c}");
    assert_eq!(c["records"], c["foundViaCto"]);
    assert_eq!(u(&c["records"]), u(&r["positions"]));

    let db = tabiya_db::Database::open(&db_dir).unwrap();
    let snap = db.snapshot().unwrap();
    let totals = |pos: &Chess| -> Option<tabiya_db::Stats> {
        let key = tabiya_db::chess::position_key(pos);
        let st = snap
            .position_with(key, &tabiya_db::chess::successor_keys(pos), 0)
            .unwrap();
        (st.totals.games() > 0).then_some(st.totals)
    };
    // The real positions a normalised (White-to-move) record stands for.
    let variants = |n: &Chess| -> Vec<Chess> {
        let mut v = Vec::new();
        for (flipped, mirrored) in [(false, false), (true, false), (false, true), (true, true)] {
            if mirrored && n.castles().any() {
                continue;
            }
            let t = tabiya_books::ctg::Transform { flipped, mirrored };
            if let Ok(p) = t.undo(n)
                && !v.contains(&p)
            {
                v.push(p);
            }
        }
        v
    };
    let mut checked = 0u64;
    let mut twins = 0u64;
    for (book, format) in [(&ctg, "ctg"), (&kv, "kvetka")] {
        let dump = json(&["book", "dump", &s(book), "--json"]);
        let records = dump.as_array().unwrap();
        assert!(
            records.len() > 150_000,
            "{format}: {} records",
            records.len()
        );
        for rec in records {
            let n = parse_fen(rec["fen"].as_str().unwrap());
            let found: Vec<(Chess, tabiya_db::Stats)> = variants(&n)
                .into_iter()
                .filter_map(|p| totals(&p).map(|t| (p, t)))
                .collect();
            assert!(
                !found.is_empty(),
                "{format}: record {} is no position of the database",
                rec["fen"]
            );
            if found.len() > 1 {
                twins += 1;
            }
            let (mut g, mut w, mut dr, mut l, mut unk, mut rated, mut rsum) = (0, 0, 0, 0, 0, 0, 0);
            for (p, t) in &found {
                g += t.games();
                unk += t.unknown;
                dr += t.draws;
                let (a, b) = if p.turn() == Color::White {
                    (t.first, t.second)
                } else {
                    (t.second, t.first)
                };
                w += a;
                l += b;
                rated += t.rating_games;
                rsum += t.rating_sum;
            }
            let games = if format == "kvetka" { g - unk } else { g };
            if format == "kvetka" && found.len() > 1 {
                // Kvetka counts a game once per key: a game reaching two twins (a position
                // and its mirror, say) counts once, the database twice. CTG adds twins up.
                let most = found
                    .iter()
                    .map(|(_, t)| t.games() - t.unknown)
                    .max()
                    .unwrap_or(0);
                let got = u(&rec["games"]).unwrap();
                assert!(
                    most <= got && got <= games,
                    "kvetka twin {}: {got} not in {most}..={games}",
                    rec["fen"]
                );
                checked += 1;
                continue;
            }
            assert_eq!(
                (
                    u(&rec["games"]),
                    u(&rec["wins"]),
                    u(&rec["draws"]),
                    u(&rec["losses"])
                ),
                (Some(games), Some(w), Some(dr), Some(l)),
                "{format}: {}",
                rec["fen"]
            );
            if format == "ctg" && found.len() == 1 {
                let avg = (rated > 0).then(|| rsum / (2 * rated));
                assert_eq!(u(&rec["averageRating"]), avg, "{}", rec["fen"]);
            }
            checked += 1;
        }
    }
    assert!(
        twins >= merged,
        "{twins} twin records, {merged} merged by the writer"
    );
    assert!(checked > 300_000);
}

#[test]
fn fide_table_of_the_books_is_the_databases() {
    for p in 0..=100 {
        assert_eq!(
            tabiya_books::aggregate::fide_dp(p),
            tabiya_db::fide_dp(p),
            "p = {p}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Kvetka sources: `book game` prints the game's text.

/// The games of a PGN text, split where a tag line follows movetext.
fn split_games(text: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_tags = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with('[') {
            if !in_tags && !current.trim().is_empty() {
                games.push(std::mem::take(&mut current));
            }
            in_tags = true;
        } else if !line.trim().is_empty() {
            in_tags = false;
        }
        current.push_str(line);
    }
    games.push(current);
    games.into_iter().map(|g| g.trim().to_string()).collect()
}

#[test]
fn kvetka_book_game_prints_the_source_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read_to_string(twic()).unwrap();
    let games = split_games(&text);
    assert_eq!(games.len(), 2245);
    let kv = d.join("kv").join("twic");
    tabiya_build("kvetka", &kv, &[twic()], &[]);
    let db = import_twic(d);
    let kvdb = d.join("kvdb").join("twic");
    run(&[
        "book",
        "build",
        "--format",
        "kvetka",
        "-o",
        &s(&kvdb),
        "--db",
        &s(&db),
    ]);
    // Deep positions of a few games are reached by that game only: its text comes back.
    let mut checked = 0;
    for (i, g) in games.iter().enumerate().step_by(311) {
        let line = g
            .lines()
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join(" ");
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for tok in line.split_whitespace() {
            let t = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            let Ok(san) = t.parse::<shakmaty::san::San>() else {
                continue;
            };
            let Ok(m) = san.to_move(&pos) else { break };
            pos.play_unchecked(m);
            moves.push(m);
        }
        if moves.len() < 30 {
            continue;
        }
        let mut deep = Chess::default();
        for m in &moves[..30] {
            deep.play_unchecked(*m);
        }
        let fen = fen_of(&deep);
        let v = json(&["book", "game", &s(&kv), "--fen", &fen, "--json"]);
        let linked = v["games"].as_array().unwrap();
        assert!(!linked.is_empty());
        assert_eq!(
            linked[0]["pgn"].as_str().unwrap().trim(),
            g.as_str(),
            "game {i}"
        );
        let printed = String::from_utf8(
            run(&["book", "game", &s(&kv), "--fen", &fen, "--index", "0"]).stdout,
        )
        .unwrap();
        assert_eq!(printed.trim(), g.as_str());
        // From the database: the exported text, whose moves are the game's.
        let v = json(&["book", "game", &s(&kvdb), "--fen", &fen, "--json"]);
        let pgn = v["games"][0]["pgn"].as_str().unwrap();
        let header = g.lines().find(|l| l.starts_with("[White ")).unwrap();
        assert!(pgn.contains(header), "game {i}: {pgn}");
        checked += 1;
    }
    assert!(checked >= 5);
    // The ECO comment of the Sicilian after 1.e4 c5 (Lichess table: B20 Sicilian Defense).
    let v = json(&[
        "book",
        "game",
        &s(&kv),
        "--play",
        "e4,c5",
        "--json",
        "--index",
        "0",
    ]);
    assert_eq!(v["eco"]["eco"], "B20", "{v}");
    assert_eq!(v["eco"]["name"], "Sicilian Defense");
}

// ---------------------------------------------------------------------------------------
// Conversions.

/// `book dump --json` as fen → (wins, draws, losses, sorted move UCIs).
fn dump_map(book: &Path) -> BTreeMap<String, (u64, u64, u64, Vec<String>)> {
    let v = json(&["book", "dump", &s(book), "--json"]);
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut moves: Vec<String> = r["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["uci"].as_str().unwrap().to_string())
                .collect();
            moves.sort();
            (
                r["fen"].as_str().unwrap().to_string(),
                (
                    u(&r["wins"]).unwrap(),
                    u(&r["draws"]).unwrap(),
                    u(&r["losses"]).unwrap(),
                    moves,
                ),
            )
        })
        .collect()
}

#[test]
fn ctg_converts_to_kvetka_and_back_and_to_polyglot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pp = shared("ctg/PowerPlay17-Sicilienne.ctg");
    let kv = d.join("kv").join("pp");
    let r = json(&[
        "book",
        "convert",
        &s(&pp),
        "-o",
        &s(&kv),
        "--format",
        "kvetka",
        "--json",
    ]);
    assert_eq!(u(&r["read"]["positions"]), Some(13_305));
    assert_eq!(u(&r["positionsWritten"]), Some(13_305));
    // Kvetka has no ratings, recommendations or trailer bytes: counted.
    assert!(u(&r["lost"]["ratings"]).unwrap() > 0, "{r}");
    assert!(u(&r["lost"]["recommendations"]).unwrap() > 0, "{r}");
    let back = d.join("back.ctg");
    json(&["book", "convert", &s(&kv), "-o", &s(&back), "--json"]);
    let (a, b, c) = (dump_map(&pp), dump_map(&kv), dump_map(&back));
    assert_eq!(a.len(), 13_305);
    assert_eq!(
        a, b,
        "CTG → Kvetka keeps every position, its results and its moves"
    );
    assert_eq!(a, c, "and back");
    // The round trip through Kvetka keeps probes' results too.
    for line in ["", "e4", "e4 c5", "e4 c5 Nc3 Nc6"] {
        let fen = fen_of(&play(line));
        let (x, y) = (probe(&pp, &fen), probe(&back, &fen));
        for k in ["wins", "draws", "losses"] {
            assert_eq!(x[k], y[k], "{fen} {k}");
        }
    }

    // CTG → Polyglot: reachable positions, weights 2 × wins + draws (+ games without a
    // result), as make-book counts them, from each move's statistics.
    let pg = d.join("pp.bin");
    let r = json(&["book", "convert", &s(&pp), "-o", &s(&pg), "--json"]);
    assert!(u(&r["lost"]["positionStatistics"]).unwrap() > 10_000, "{r}");
    let text =
        std::fs::read_to_string(shared("ctg/PowerPlay17-Sicilienne.expected_ply6.jsonl")).unwrap();
    let mut compared = 0;
    for line in text.lines().filter(|l| !l.contains("\"_meta\"")) {
        let e: Value = serde_json::from_str(line).unwrap();
        let fen = e["fen"].as_str().unwrap();
        let p = probe(&pg, fen);
        let expect: Vec<(String, u64)> = e["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let (w, dr, l, g) = (
                    u(&m["mover_wins"]).unwrap(),
                    u(&m["draws"]).unwrap(),
                    u(&m["mover_losses"]).unwrap(),
                    u(&m["child_total"]).unwrap(),
                );
                (
                    m["uci"].as_str().unwrap().to_string(),
                    2 * w + dr + (g - w - dr - l),
                )
            })
            .filter(|(_, w)| *w > 0)
            .collect();
        let mut got: Vec<(String, u64)> = p["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["uci"].as_str().unwrap().to_string(),
                    u(&m["weight"]).unwrap(),
                )
            })
            .collect();
        let mut expect_sorted = expect.clone();
        expect_sorted.sort();
        got.sort();
        assert_eq!(got, expect_sorted, "{fen}");
        compared += 1;
    }
    assert!(compared > 20);
    // And Polyglot → CTG: moves kept, weights counted as lost.
    let pc = d.join("pp-from-bin.ctg");
    let r = json(&["book", "convert", &s(&pg), "-o", &s(&pc), "--json"]);
    assert!(u(&r["lost"]["weights"]).unwrap() > 0);
    let fen = fen_of(&play("e4 c5"));
    let m1: HashSet<String> = probe(&pg, &fen)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect();
    let m2: HashSet<String> = probe(&pc, &fen)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(m1, m2);
}

#[test]
fn kvetka_round_trips_and_polyglot_conversion_keeps_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let kv = d.join("kv").join("twic");
    let r = tabiya_build("kvetka", &kv, &[twic()], &[]);
    assert_eq!(u(&r["lost"]["underpromotions"]), Some(3), "{r}");
    // Kvetka → Kvetka and Kvetka → CTG → Kvetka.
    let kv2 = d.join("kv2").join("twic");
    json(&[
        "book",
        "convert",
        &s(&kv),
        "-o",
        &s(&kv2),
        "--format",
        "kvetka",
        "--json",
    ]);
    let ctg = d.join("twic.ctg");
    json(&["book", "convert", &s(&kv), "-o", &s(&ctg), "--json"]);
    let kv3 = d.join("kv3").join("twic");
    let r = json(&[
        "book",
        "convert",
        &s(&ctg),
        "-o",
        &s(&kv3),
        "--format",
        "kvetka",
        "--json",
    ]);
    assert!(r["lost"].get("underpromotions").is_none());
    let a = dump_map(&kv);
    assert_eq!(a, dump_map(&kv2));
    assert_eq!(a, dump_map(&kv3));
    assert_eq!(a, dump_map(&ctg));
    // ECO comments are rebuilt from the opening tables by the Kvetka writer.
    let info = json(&["book", "info", &s(&kv3), "--json"]);
    let orig = json(&["book", "info", &s(&kv), "--json"]);
    assert_eq!(info["comments"], orig["comments"]);
    assert_eq!(info["elements"], orig["elements"]);

    // Polyglot → Polyglot keeps every reachable entry as it was.
    let gm = shared("polyglot/gm2001.bin");
    let out = d.join("gm.bin");
    let r = json(&["book", "convert", &s(&gm), "-o", &s(&out), "--json"]);
    assert_eq!(u(&r["lost"]["unreachedRecords"]), Some(30_416 - 29_960));
    let before = json(&["book", "info", &s(&gm), "--json"]);
    let after = json(&["book", "info", &s(&out), "--json"]);
    assert_eq!(after["entries"], before["reachableEntries"]);
    assert_eq!(after["reachableEntries"], before["reachableEntries"]);
    for line in ["", "e4", "d4 Nf6", "e4 c5 Nf3"] {
        let fen = fen_of(&play(line));
        assert_eq!(
            probe(&gm, &fen)["moves"],
            probe(&out, &fen)["moves"],
            "{fen}"
        );
    }
}

/// The explorer's book source.
#[test]
fn probe_of_every_format_has_the_shared_shape() {
    let dir = tempfile::tempdir().unwrap();
    let kv = dir.path().join("k").join("m");
    tabiya_build("kvetka", &kv, &[shared("pgn/pgnmentor/Morphy.pgn")], &[]);
    let fen = fen_of(&play("e4 e5"));
    let mut formats = HashMap::new();
    for book in [
        shared("ctg/PowerPlay17-Sicilienne.ctg"),
        shared("polyglot/gm2001.bin"),
        kv.clone(),
    ] {
        let v = probe(&book, &fen);
        formats.insert(v["format"].as_str().unwrap().to_string(), v.clone());
        for k in ["found", "moves"] {
            assert!(v.get(k).is_some(), "{k} in {v}");
        }
    }
    assert_eq!(formats.len(), 3);
    // Castling is standard UCI in every format.
    let fen = &fen_of(&play("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6"));
    let v = probe(&shared("polyglot/performance.bin"), fen);
    let ucis: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert!(ucis.contains(&"e1g1"), "{ucis:?}");
    let v = probe(&kv, fen);
    assert!(
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["uci"] != "e1h1")
    );
    // A Kvetka book's totals leave out what Kvetka does not store.
    let v = probe(&kv, &fen_of(&Chess::default()));
    assert!(v.get("averageRating").is_none() && v.get("recommendation").is_none());
    assert!(
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("weight").is_none() && m.get("annotation").is_none())
    );
}

/// Tag value of a game's text, by hand (no Tabiya code).
fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name} \"");
    game.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.strip_suffix("\"]"))
}

#[test]
fn kvetka_header_filters_links_and_split_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = std::fs::read_to_string(twic()).unwrap();
    let games = split_games(&text);
    // Games the filters let in, counted from the tags: stronger ≥ 2600 and weaker ≥ 2400
    // (an unrated player fails); the start position counts those with a result.
    let elo = |g: &str, t: &str| tag(g, t).and_then(|v| v.parse::<u16>().ok()).unwrap_or(0);
    let kept: Vec<&String> = games
        .iter()
        .filter(|g| {
            let (w, b) = (elo(g, "WhiteElo"), elo(g, "BlackElo"));
            w.max(b) >= 2600 && w.min(b) >= 2400
        })
        .collect();
    let decided = kept
        .iter()
        .filter(|g| tag(g, "Result") != Some("*"))
        .count() as u64;
    assert!(
        kept.len() > 50 && kept.len() < games.len() / 2,
        "{}",
        kept.len()
    );
    let kv = d.join("kv").join("strong");
    let r = tabiya_build(
        "kvetka",
        &kv,
        &[twic()],
        &[
            "--min-stronger-elo",
            "2600",
            "--min-weaker-elo",
            "2400",
            "--split-size",
            "65536",
        ],
    );
    assert_eq!(u(&r["gamesUsed"]), Some(kept.len() as u64), "{r}");
    assert_eq!(
        u(&r["lost"]["gamesBelowMinElo"]),
        Some((games.len() - kept.len()) as u64),
        "{r}"
    );
    let info = json(&["book", "info", &s(&kv), "--json"]);
    assert_eq!(u(&info["minStrongerElo"]), Some(2600), "{info}");
    assert_eq!(u(&info["minWeakerElo"]), Some(2400));
    assert_eq!(u(&info["minWhiteElo"]), Some(0));
    assert_eq!(u(&info["elementType"]).map(|t| t & 1), Some(1));
    // 65,536 bytes = 32 blocks a file: the book is split, every file a whole number of blocks.
    let files = info["files"].as_array().unwrap();
    assert!(files.len() > 1, "{info}");
    for f in files {
        let len = std::fs::metadata(f.as_str().unwrap()).unwrap().len();
        assert!(len <= 65536, "{f}: {len}");
    }
    let start = probe(
        &kv,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(u(&start["games"]), Some(decided), "{start}");
    // Without game links: no .ksf, element_type bit 0 clear, same statistics.
    let nl = d.join("nl").join("strong");
    tabiya_build(
        "kvetka",
        &nl,
        &[twic()],
        &[
            "--min-stronger-elo",
            "2600",
            "--min-weaker-elo",
            "2400",
            "--no-game-links",
        ],
    );
    assert!(!d.join("nl").join("strong.ksf").exists());
    let info = json(&["book", "info", &s(&nl), "--json"]);
    assert_eq!(u(&info["elementType"]).map(|t| t & 1), Some(0), "{info}");
    let start2 = probe(
        &nl,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(start2["games"], start["games"]);
    assert_eq!(start2["moves"], start["moves"]);
    // Kvetka options on another format are refused with a reason.
    let out = run_raw(&[
        "book",
        "build",
        "--format",
        "polyglot",
        "-o",
        &s(&d.join("x.bin")),
        "--min-white-elo",
        "2000",
        &s(&twic()),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Kvetka option"));
}
