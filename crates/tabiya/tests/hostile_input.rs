//! Damaged and hostile PGN given to `tabiya import`: each case with the exact error expected,
//! the other games of the file and of the other files imported, what was stored before
//! still there, memory bounded and no run without end. Expected counts come from the input
//! as built here or counted by hand (`[Event ` lines), and independent tools (`zstd`,
//! `gzip`, `bzip2` on the command line) make and unpack the compressed files.
//! (Books, WTHOR, the spelling file, Parquet: `hostile_formats.rs`.)

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::bounded::run_bounded;
use common::{BIN, json, run_raw, shared};
use serde_json::Value;

/// A game of the kind every file here is made of: its own event, so no two are equal.
fn game(event: &str) -> String {
    format!(
        "[Event \"{event}\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n"
    )
}

fn games(prefix: &str, n: usize) -> String {
    (1..=n).map(|i| game(&format!("{prefix} {i}"))).collect()
}

/// Games at the start position of a database (every chess game starts there), from
/// `explore --json`'s totals.
fn stored(db: &Path) -> u64 {
    let v = json(&["explore", "--db", db.to_str().unwrap(), "--json"]);
    ["white", "draws", "black", "unknown"]
        .iter()
        .map(|k| v[k].as_u64().unwrap())
        .sum()
}

/// `tabiya import --json --keep-duplicates --db DB FILES…`: exit status, summary, stderr.
fn import(db: &Path, files: &[&Path]) -> (bool, Value, String) {
    let out = Command::new(BIN)
        .args(["import", "--json", "--keep-duplicates", "--db"])
        .arg(db)
        .args(files)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bad JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        out.status.success(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn problems(v: &Value) -> Vec<(String, u64, u64, String)> {
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
                p["game"].as_u64().unwrap(),
                p["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Pseudo-random bytes from a fixed seed (the same every run).
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u8
        })
        .collect()
}

/// A database holding `n` games of a good file, imported first: what every case below
/// must leave as it is.
fn database_with_good_games(dir: &Path, n: usize) -> PathBuf {
    let good = dir.join("good.pgn");
    std::fs::write(&good, games("good", n)).unwrap();
    let db = dir.join("db");
    let (ok, v, err) = import(&db, &[&good]);
    assert!(ok, "{err}");
    assert_eq!(v["imported"], n as u64);
    db
}

/// 300 KB of random bytes: no game, nothing imported, the file named with the reason,
/// a non-zero exit; the games stored before and those of another file given with it are
/// all there.
#[test]
fn random_bytes_are_no_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 5);
    let rand = dir.path().join("rand.pgn");
    std::fs::write(&rand, noise(300_000, 42)).unwrap();
    let more = dir.path().join("more.pgn");
    std::fs::write(&more, games("more", 3)).unwrap();
    let (ok, v, err) = import(&db, &[&rand, &more]);
    assert!(!ok);
    assert_eq!(
        (v["games"].as_u64(), v["imported"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(v["files"][0]["games"], 0);
    assert_eq!(v["files"][0]["imported"], 0);
    assert_eq!(v["duplicates"], 0);
    let p = problems(&v);
    assert_eq!(p.len(), 1, "{p:?}");
    let (file, line, game, reason) = &p[0];
    assert_eq!(
        (file.as_str(), *line, *game),
        (rand.to_str().unwrap(), 0, 0)
    );
    let pieces = v["files"][0]["notPgn"].as_u64().unwrap();
    assert!(pieces > 0);
    assert_eq!(
        reason,
        &format!(
            "no PGN game found (300000 bytes read: {pieces} piece(s) of text without a tag pair or a move); nothing imported from it"
        )
    );
    assert!(
        err.contains(&format!(
            "1 of 2 input file(s) could not be read whole: {}",
            rand.display()
        )),
        "{err}"
    );
    assert_eq!(stored(&db), 8);
}

/// `/dev/zero` ends with an error naming it, the game and the offset, in bounded memory.
#[test]
fn dev_zero_is_given_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 2);
    let r = run_bounded(
        dir.path(),
        300,
        &["import", "--memory", "64", "--db", "db", "/dev/zero"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "/dev/zero: game 1 (line 1, offset 0) has no end after 256 MiB: the text is not PGN (binary data, or a comment or line that never ends); the rest of the input is not read"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("imported 0 of 0 games"), "{}", r.stdout);
    assert!(r.peak_rss < 512 << 20, "peak {} bytes", r.peak_rss);
    assert_eq!(stored(&db), 2);
}

/// Writes plain bytes (made by `fill`) to `path` compressed as its extension says (`.zst`,
/// `.gz`, `.bz2`), as a stream: gigabytes of input never held.
fn compressed_stream(path: &Path, fill: impl FnOnce(&mut dyn Write)) {
    let file = std::fs::File::create(path).unwrap();
    match path.extension().and_then(|e| e.to_str()) {
        Some("zst") => {
            let mut enc = zstd::stream::write::Encoder::new(file, 1).unwrap();
            fill(&mut enc);
            enc.finish().unwrap();
        }
        Some("gz") => {
            let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::best());
            fill(&mut enc);
            enc.finish().unwrap();
        }
        Some("bz2") => {
            let mut enc = bzip2::write::BzEncoder::new(file, bzip2::Compression::best());
            fill(&mut enc);
            enc.finish().unwrap();
        }
        other => panic!("no compression for {other:?}"),
    }
}

/// Decompression bombs: a `.pgn.zst` of 4 GiB of zeros after two games, and games whose
/// comment never ends — 4 GiB of `x` in zstd, 1 GiB in gzip and in bzip2 (four times the
/// bound of one game). Each is read up to the bound and given up with the game and its
/// offset; the games before it are imported; memory stays far below what the bomb unpacks
/// to.
#[test]
fn decompression_bombs_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 4);
    let before = games("before", 2);
    let zeros = dir.path().join("zeros.pgn.zst");
    let comment = dir.path().join("comment.pgn.zst");
    let comment_gz = dir.path().join("comment.pgn.gz");
    let comment_bz2 = dir.path().join("comment.pgn.bz2");
    let head = "[Event \"bomb\"]\n\n1. e4 {";
    for (path, fill_byte, tail, mib) in [
        (&zeros, 0u8, "", 4096),
        (&comment, b'x', head, 4096),
        (&comment_gz, b'x', head, 1024),
        (&comment_bz2, b'x', head, 1024),
    ] {
        compressed_stream(path, |w| {
            w.write_all(before.as_bytes()).unwrap();
            w.write_all(tail.as_bytes()).unwrap();
            let block = vec![fill_byte; 1 << 20];
            for _ in 0..mib {
                w.write_all(&block).unwrap();
            }
        });
        // A bomb: some hundred times smaller than what it unpacks to (gzip's most is 1,032).
        let size = std::fs::metadata(path).unwrap().len();
        assert!(size < mib << 12, "{}: {size} bytes", path.display());
    }
    // Zeros after the second game's text carry on that game (no line starting with `[`
    // follows): it is the one without an end, at the second game's offset and line (7 lines
    // a game). The comment starts a third game after the two.
    let second = game("before 1").len();
    let cases = [
        (&zeros, 2, 8, second, 1),
        (&comment, 3, 15, before.len(), 2),
        (&comment_gz, 3, 15, before.len(), 2),
        (&comment_bz2, 3, 15, before.len(), 2),
    ];
    for (path, number, line, offset, imported) in cases {
        let name = path.file_name().unwrap().to_str().unwrap();
        let r = run_bounded(
            dir.path(),
            300,
            &[
                "import",
                "--keep-duplicates",
                "--memory",
                "64",
                "--db",
                "db",
                name,
            ],
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "{name}: game {number} (line {line}, offset {offset}) has no end after 256 MiB"
            )),
            "{}",
            r.stderr
        );
        assert!(
            r.stdout
                .contains(&format!("imported {imported} of {imported} games")),
            "{}",
            r.stdout
        );
        assert!(r.peak_rss < 512 << 20, "{name}: peak {} bytes", r.peak_rss);
    }
    // The first game of the zeros' file; both of each comment file's.
    assert_eq!(stored(&db), 4 + 1 + 2 * 3);
}

/// The games of a file, compressed by a command-line tool.
fn compress(tool: &str, text: &[u8], out: &Path) {
    let mut child = Command::new(tool)
        .args(["-c", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::fs::File::create(out).unwrap())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(text).unwrap();
    assert!(child.wait().unwrap().success());
}

/// What an independent decoder unpacks of a truncated file before it fails: the `zstd` and
/// `gzip` commands; for bzip2, Python's `bz2` (the `bzip2` command holds back the last
/// 5,000 bytes it decoded when the input ends early).
fn unpack_prefix(tool: &str, file: &Path) -> Vec<u8> {
    let out = if tool == "bzip2" {
        Command::new("python3")
            .args([
                "-c",
                "import bz2, sys; sys.stdout.buffer.write(bz2.BZ2Decompressor().decompress(open(sys.argv[1], 'rb').read()))",
            ])
            .arg(file)
            .output()
    } else {
        Command::new(tool)
            .args(["-d", "-c", "-q"])
            .arg(file)
            .output()
    };
    out.unwrap().stdout
}

/// `.pgn.zst`, `.pgn.gz`, `.pgn.bz2` truncated at several offsets: the games whole before
/// the cut are imported (the games of the tool's own unpacked prefix that the next game's
/// start follows), the one it cut is not, and the error names the file.
#[test]
fn truncated_compressed_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 3);
    let mut total = 3;
    let text = std::fs::read(shared("pgn/twic/twic0920.pgn")).unwrap();
    for (tool, ext) in [("zstd", "zst"), ("gzip", "gz"), ("bzip2", "bz2")] {
        let whole = dir.path().join(format!("twic.pgn.{ext}"));
        compress(tool, &text, &whole);
        let bytes = std::fs::read(&whole).unwrap();
        for part in [3, 50, 97] {
            let cut = bytes.len() * part / 100;
            let path = dir.path().join(format!("twic-{part}.pgn.{ext}"));
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let prefix = unpack_prefix(tool, &path);
            let starts = prefix
                .split(|&b| b == b'\n')
                .filter(|l| l.starts_with(b"[Event "))
                .count();
            let expected = starts.saturating_sub(1) as u64;
            let (ok, v, err) = import(&db, &[&path]);
            assert!(!ok, "{tool} {part}%");
            assert_eq!(
                v["imported"].as_u64(),
                Some(expected),
                "{tool} {part}%: {err}"
            );
            total += expected;
            let p = problems(&v);
            assert_eq!(p.len(), 1, "{tool} {part}%: {p:?}");
            assert_eq!((p[0].1, p[0].2), (0, 0));
            assert!(
                p[0].3.starts_with("read error after ")
                    && p[0]
                        .3
                        .contains(&format!(" bytes ({tool}: truncated or damaged?): "))
                    && p[0].3.ends_with("; the games before it were read"),
                "{tool} {part}%: {}",
                p[0].3
            );
        }
    }
    assert!(total > 3 + 2245, "the cuts let games through: {total}");
    assert_eq!(stored(&db), total);
}

/// A game with a NUL byte is refused with its number, its line and the byte's place; the
/// games around it go in.
#[test]
fn nul_bytes_refuse_their_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 1);
    let mut text = games("a", 2).into_bytes();
    // Game 3 starts on line 15 (seven lines a game). Its movetext is line 20, 54 bytes into
    // the game (tag lines of 14, 12, 12 and 15 bytes, a blank line); the NUL goes after
    // its "1. e4", at byte 59.
    let mut third = game("nul").into_bytes();
    let movetext = game("nul").find("1. e4").unwrap();
    assert_eq!(movetext, 54);
    third.insert(movetext + 5, 0);
    text.extend_from_slice(&third);
    text.extend_from_slice(games("b", 2).as_bytes());
    let path = dir.path().join("nul.pgn");
    std::fs::write(&path, &text).unwrap();
    let (ok, v, _) = import(&db, &[&path]);
    assert!(ok, "a game refused does not fail the import");
    assert_eq!(
        (v["games"].as_u64(), v["imported"].as_u64()),
        (Some(5), Some(4))
    );
    assert_eq!(
        problems(&v),
        [(
            path.display().to_string(),
            20,
            3,
            "NUL byte at byte 59 of the game: not PGN text (a damaged or binary file?); game refused".to_string()
        )]
    );
    assert_eq!(stored(&db), 5);
}

/// The monsters: ten megabytes of comments in one game (imported), a tag of one megabyte
/// (refused, naming its line), variations nested 10,000 deep (imported with the first 256
/// levels, a warning), a game of a million moves (imported whole: exported again, every
/// move is there), a game of 40 MiB (refused with its size and offset). The games between
/// them all go in.
#[test]
fn monster_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 2);
    let mut text = String::new();
    text.push_str(&game("g1"));
    let comment = "c".repeat(10 << 20);
    text.push_str(&format!(
        "[Event \"comments\"]\n\n1. e4 {{{comment}}} e5 *\n\n"
    ));
    text.push_str(&game("g2"));
    let tag_line = text.matches('\n').count() + 2;
    text.push_str(&format!(
        "[Event \"tag\"]\n[Site \"{}\"]\n\n1. d4 *\n\n",
        "s".repeat(1 << 20)
    ));
    text.push_str(&game("g3"));
    let mut deep = String::from("[Event \"deep\"]\n\n1. e4 e5 ");
    deep.push_str(&"(1... c5 ".repeat(10_000));
    deep.push_str(&")".repeat(10_000));
    deep.push_str(" *\n\n");
    text.push_str(&deep);
    text.push_str(&game("g4"));
    text.push_str("[Event \"million\"]\n\n");
    for n in 0..250_000 {
        let m = 2 * n + 1;
        text.push_str(&format!("{m}. Nf3 Nf6 {}. Ng1 Ng8 ", m + 1));
    }
    text.push_str("*\n\n");
    text.push_str(&game("g5"));
    let huge_offset = text.len();
    let huge_line = text.matches('\n').count() + 1;
    let huge = format!(
        "[Event \"huge\"]\n\n1. e4 {{{}}} *\n\n",
        "h".repeat(40 << 20)
    );
    text.push_str(&huge);
    text.push_str(&game("g6"));
    let path = dir.path().join("monsters.pgn");
    std::fs::write(&path, &text).unwrap();
    let (ok, v, err) = import(&db, &[&path]);
    assert!(ok, "{err}");
    // 6 small games, the comments, the deep and the million-move game; the tag refused,
    // the huge one refused.
    assert_eq!(
        (v["games"].as_u64(), v["imported"].as_u64()),
        (Some(11), Some(9))
    );
    assert_eq!(v["warnings"], 1);
    assert_eq!(
        problems(&v),
        [
            (
                path.display().to_string(),
                tag_line as u64,
                4,
                "tag line of 1048585 bytes, longer than the 8 KiB a tag may hold; game refused"
                    .to_string()
            ),
            (
                path.display().to_string(),
                huge_line as u64,
                10,
                format!(
                    "game too long: {} bytes from offset {huge_offset}, more than the 32 MiB a game may hold (refused; the reading goes on at the next game)",
                    huge.len()
                )
            ),
        ]
    );
    assert_eq!(stored(&db), 2 + 9);
    // The million moves, written back.
    let exported = Command::new(BIN)
        .args(["export", "--db"])
        .arg(&db)
        .args(["--where", "event = \"million\""])
        .output()
        .unwrap();
    assert!(
        exported.status.success(),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );
    let pgn = String::from_utf8(exported.stdout).unwrap();
    let moves = pgn
        .split_whitespace()
        .filter(|t| t.starts_with('N'))
        .count();
    assert_eq!(moves, 1_000_000);
}

/// CRLF and lone-CR line ends: the games stored are the same as from the LF file (written
/// back byte for byte alike).
#[test]
fn crlf_and_lone_cr_import_as_lf() {
    let dir = tempfile::tempdir().unwrap();
    let mut lf = games("le", 3);
    lf.push_str(
        "[Event \"c\"]\n\n1. e4 {two\nlines} e5 ; rest of line\n2. Nf3 (2. Nc3\nNc6) *\n\n",
    );
    let mut exported = Vec::new();
    for (name, text) in [
        ("lf", lf.clone()),
        ("crlf", lf.replace('\n', "\r\n")),
        ("cr", lf.replace('\n', "\r")),
    ] {
        let path = dir.path().join(format!("{name}.pgn"));
        std::fs::write(&path, &text).unwrap();
        let db = dir.path().join(format!("db-{name}"));
        let (ok, v, err) = import(&db, &[&path]);
        assert!(ok, "{name}: {err}");
        assert_eq!(v["imported"], 4, "{name}");
        let out = Command::new(BIN)
            .args(["export", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        exported.push(out.stdout);
    }
    assert!(String::from_utf8_lossy(&exported[0]).contains("{two\nlines}"));
    assert_eq!(exported[1], exported[0], "CRLF");
    assert_eq!(exported[2], exported[0], "lone CR");
}

/// Names in Latin-1 and bytes that are not UTF-8: read as ISO-8859-1, byte for byte,
/// stored and shown as such; valid UTF-8 as it is.
#[test]
fn latin1_and_invalid_utf8_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.pgn");
    let mut text = Vec::new();
    text.extend_from_slice(
        b"[Event \"e\"]\n[White \"M\xfcller, J\xf6rg\"]\n[Black \"\xff\xfe\xc3\"]\n\n1. e4 *\n\n",
    );
    text.extend_from_slice(
        "[Event \"f\"]\n[White \"Zürich, Anna\"]\n[Black \"B\"]\n\n1. d4 *\n".as_bytes(),
    );
    std::fs::write(&path, &text).unwrap();
    let db = dir.path().join("db");
    let (ok, _, err) = import(&db, &[&path]);
    assert!(ok, "{err}");
    let out = Command::new(BIN)
        .args(["export", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let pgn = String::from_utf8(out.stdout).expect("written as UTF-8");
    assert!(pgn.contains("[White \"Müller, Jörg\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"\u{ff}\u{fe}\u{c3}\"]"), "{pgn}");
    assert!(pgn.contains("[White \"Zürich, Anna\"]"), "{pgn}");
}

/// A folder with no Parquet file in it, a missing file: refused, saying what they are;
/// nothing stored is lost.
#[test]
fn a_folder_or_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_with_good_games(dir.path(), 2);
    let folder = dir.path().join("pgns");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("a.pgn"), game("a")).unwrap();
    let out = run_raw(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        folder.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "tabiya: error: {} is a folder without a .parquet file (a folder is read as a Parquet dataset; name PGN files one by one)",
            folder.display()
        )
    );
    let missing = dir.path().join("missing.pgn");
    let (ok, v, _) = import(&db, &[&missing, &folder.join("a.pgn")]);
    assert!(!ok);
    assert_eq!(v["imported"], 1);
    let p = problems(&v);
    assert_eq!(p.len(), 1);
    assert!(
        p[0].3
            .starts_with(&format!("cannot read: {}: No such file", missing.display())),
        "{p:?}"
    );
    assert_eq!(stored(&db), 3);
}
