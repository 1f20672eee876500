//! Damaged files of every other format Tabiya reads — WTHOR (`.wtb`, `.jou`, `.trn`), CTG
//! (`.ctg`, `.cto`, `.ctb`), Polyglot, Kvetka, Scid's spelling file, Parquet — truncated
//! at several offsets or with a wrong header: each with the exact error expected, its
//! numbers worked out by hand from the format (record sizes, header fields), a non-zero
//! exit, and what was stored before still there. (PGN: `hostile_input.rs`.)

mod common;

use std::path::{Path, PathBuf};

use common::bounded::run_bounded;
use common::{json, run_ok, run_raw, shared};

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The first `n` bytes of `from`, written to `dir/name`.
fn cut(from: &Path, n: usize, dir: &Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(from).unwrap();
    let to = dir.join(name);
    std::fs::write(&to, &bytes[..n.min(bytes.len())]).unwrap();
    to
}

/// WTH_2000.wtb cut short: `wthor check` says the file is truncated (the header's count,
/// the whole games, the record cut and its offset) and fails; the import takes the whole
/// games, says why the rest is missing, and fails; the games stored before stay.
#[test]
fn wthor_truncated_at_several_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let wtb = shared("wthor/WTH_2000.wtb");
    let bytes = std::fs::read(&wtb).unwrap();
    // The header's game count: little-endian at offset 4 (docs/formats/wthor.md).
    let declared = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    assert_eq!(declared, 4253);
    for name in ["WTHOR.JOU", "WTHOR.TRN"] {
        std::fs::copy(shared(&format!("wthor/{name}")), dir.path().join(name)).unwrap();
    }
    // A database with the 12 games of 1977 first.
    std::fs::copy(
        shared("wthor/WTH_1977.wtb"),
        dir.path().join("WTH_1977.wtb"),
    )
    .unwrap();
    let db = dir.path().join("db");
    run_ok(&[
        "import",
        "--db",
        s(&db),
        s(&dir.path().join("WTH_1977.wtb")),
    ]);
    let mut stored = 12;
    // (cut, whole games, bytes of the game cut): records of 68 bytes after 16.
    for (n, whole, part) in [
        (16, 0, 0),
        (16 + 3 * 68, 3, 0),
        (1000, 14, 32),
        (5000, 73, 20),
    ] {
        assert_eq!((n - 16) / 68, whole);
        assert_eq!((n - 16) % 68, part);
        let t = cut(&wtb, n, dir.path(), &format!("cut{n}.wtb"));
        let out = run_raw(&["wthor", "check", s(&t)]);
        assert!(!out.status.success(), "{n}");
        let damage = if part > 0 {
            format!(
                "{}: truncated: the header declares 4253 games, the file holds {whole} whole and {part} bytes of game {whole} at offset {}",
                t.display(),
                16 + whole * 68
            )
        } else {
            format!(
                "{}: truncated: the header declares 4253 games, the file ends after {whole}",
                t.display()
            )
        };
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains(&format!("  DAMAGED: {damage}\n")),
            "{stdout}"
        );
        assert!(
            text(&out.stderr).contains("0 of 1 files could not be read or checked, 1 damaged"),
            "{}",
            text(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_slice(&run_raw(&["wthor", "check", "--json", s(&t)]).stdout).unwrap();
        assert_eq!(
            (v["damagedFiles"].as_u64(), v["games"].as_u64()),
            (Some(1), Some(whole as u64))
        );
        assert_eq!(v["files"][0]["damaged"], damage.as_str());

        let out = run_raw(&["import", "--json", "--db", s(&db), s(&t)]);
        assert!(!out.status.success(), "{n}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Games an earlier cut imported already are duplicates.
        let imported = v["imported"].as_u64().unwrap();
        assert_eq!(
            imported + v["duplicates"].as_u64().unwrap(),
            whole as u64,
            "{n}"
        );
        stored += imported;
        let reasons: Vec<&str> = v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["reason"].as_str().unwrap())
            .collect();
        let mut want = vec![format!(
            "{}: header (offset 4) declares 4253 records, the file holds {whole}; {whole} read",
            t.display()
        )];
        if part > 0 {
            want.push(format!(
                "{}: game {whole} at offset {}: truncated record, {part} of 68 bytes",
                t.display(),
                16 + whole * 68
            ));
        }
        assert_eq!(reasons, want, "{n}");
        assert!(text(&out.stderr).contains("could not be read whole"));
    }
    // Shorter than the header; a board size byte (offset 12) that is not 0, 8 or 10.
    let t = cut(&wtb, 10, dir.path(), "cut10.wtb");
    let out = run_raw(&["wthor", "check", s(&t)]);
    assert!(!out.status.success());
    assert!(
        text(&out.stdout).contains(&format!(
            "{}: ERROR: {}: 10 bytes, shorter than the 16-byte WTHOR header",
            t.display(),
            t.display()
        )),
        "{}",
        text(&out.stdout)
    );
    let mut wrong = bytes[..16 + 68].to_vec();
    wrong[12] = 7;
    let w = dir.path().join("board7.wtb");
    std::fs::write(&w, &wrong).unwrap();
    let out = run_raw(&["import", "--json", "--db", s(&db), s(&w)]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["problems"][0]["reason"],
        format!(
            "{}: offset 12: board size 7 is not 0, 8 or 10; the record size is unknown (file skipped)",
            w.display()
        )
    );
    let v = json(&["games", "--db", s(&db), "--json", "--limit", "1"]);
    assert_eq!(v["total"], stored, "{v}");
}

/// `.jou` and `.trn` cut inside a record: the import names the file, the record and its
/// offset, keeps the names read whole, imports the games, and fails.
#[test]
fn wthor_names_truncated() {
    let dir = tempfile::tempdir().unwrap();
    // 10 players and 5 bytes (records of 20 after 16); 4 tournaments and 3 bytes (26).
    let jou = cut(
        &shared("wthor/WTHOR.JOU"),
        16 + 10 * 20 + 5,
        dir.path(),
        "WTHOR.JOU",
    );
    let trn = cut(
        &shared("wthor/WTHOR.TRN"),
        16 + 4 * 26 + 3,
        dir.path(),
        "WTHOR.TRN",
    );
    let wtb = dir.path().join("WTH_1977.wtb");
    std::fs::copy(shared("wthor/WTH_1977.wtb"), &wtb).unwrap();
    let db = dir.path().join("db");
    let out = run_raw(&["import", "--json", "--db", s(&db), s(&wtb)]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["imported"], 12);
    let reasons: Vec<String> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["reason"].as_str().unwrap().to_string())
        .collect();
    let header = |p: &Path, at: usize| {
        let b = std::fs::read(shared(&format!(
            "wthor/{}",
            p.file_name().unwrap().to_str().unwrap()
        )))
        .unwrap();
        u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
    };
    for want in [
        format!(
            "{}: header (offset 8) declares {} records, the file holds 10; 10 read",
            jou.display(),
            header(&jou, 8)
        ),
        format!(
            "{}: player 10 at offset 216: truncated record, 5 of 20 bytes",
            jou.display()
        ),
        format!(
            "{}: header (offset 8) declares {} records, the file holds 4; 4 read",
            trn.display(),
            header(&trn, 8)
        ),
        format!(
            "{}: tournament 4 at offset 120: truncated record, 3 of 26 bytes",
            trn.display()
        ),
    ] {
        assert!(reasons.contains(&want), "{want}\n{reasons:#?}");
    }
}

/// A directory and `/dev/zero` given as WTHOR files: refused at once, saying what they are.
#[test]
fn wthor_directory_and_dev_zero() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("games.wtb");
    std::fs::create_dir(&folder).unwrap();
    let r = run_bounded(
        dir.path(),
        60,
        &["wthor", "check", "games.wtb", "/dev/zero"],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("games.wtb: ERROR: games.wtb is a directory, not a regular file"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("/dev/zero: ERROR: /dev/zero is a character device, not a regular file"),
        "{}",
        r.stdout
    );
}

/// Polyglot books whose length is not a multiple of 16 (no magic to be wrong: a text file
/// is as good a start): the entry cut and its offset, a non-zero exit.
#[test]
fn polyglot_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let book = shared("polyglot/gm2001.bin");
    for n in [15usize, 17, 1000, 100_008] {
        let t = cut(&book, n, dir.path(), &format!("p{n}.bin"));
        let out = run_raw(&["book", "check", s(&t)]);
        assert!(!out.status.success(), "{n}");
        let whole = n / 16 * 16;
        assert!(
            text(&out.stdout).contains(&format!(
                "{}: truncated: {n} bytes is not a multiple of 16; the last {} byte(s) from offset {whole} are not a whole entry",
                t.display(),
                n - whole
            )),
            "{n}: {}",
            text(&out.stdout)
        );
        let out = run_raw(&["book", "probe", s(&t)]);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains(&format!(
                "{}: truncated Polyglot book: {n} bytes is not a multiple of 16",
                t.display()
            )),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A CTG book with each of its three files cut short: a `.ctg` shorter than its header
/// page, one ending inside a data page (`simple.ctg`: the records still read, the cut
/// reported), a `.cto` holding fewer slots than its header claims, a `.ctb` shorter than
/// its 12 bytes.
#[test]
fn ctg_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |sub: &str, stem: &str| -> PathBuf {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).unwrap();
        for ext in ["ctg", "cto", "ctb"] {
            std::fs::copy(
                shared(&format!("ctg/{stem}.{ext}")),
                d.join(format!("{stem}.{ext}")),
            )
            .unwrap();
        }
        d
    };
    let check = |ctg: &Path| {
        let out = run_raw(&["book", "check", s(ctg)]);
        assert!(!out.status.success(), "{}", ctg.display());
        (text(&out.stdout), text(&out.stderr))
    };
    // .ctg: 4000 bytes, the 4096-byte header page not whole.
    let d = copy("a", "simple");
    let ctg = cut(&shared("ctg/simple.ctg"), 4000, &d, "simple.ctg");
    let (_, err) = check(&ctg);
    assert!(
        err.contains(&format!(
            "{}: 4000 bytes, shorter than the 4096-byte header page",
            ctg.display()
        )),
        "{err}"
    );
    // .ctg: 5000 bytes, data page 0 holding 5000 − 4096 = 904.
    let d = copy("b", "simple");
    let ctg = cut(&shared("ctg/simple.ctg"), 5000, &d, "simple.ctg");
    let (out, _) = check(&ctg);
    assert!(
        out.contains("truncated: 5000 bytes, not a whole number of 4096-byte pages (data page 0 has 904 bytes)"),
        "{out}"
    );
    // .cto: the header (big-endian slots at offset 4: 0x37c = 892) claims more slots than
    // the (100 − 16) / 4 = 21 the file holds.
    let d = copy("c", "PowerPlay17-Sicilienne");
    cut(
        &shared("ctg/PowerPlay17-Sicilienne.cto"),
        100,
        &d,
        "PowerPlay17-Sicilienne.cto",
    );
    let (_, err) = check(&d.join("PowerPlay17-Sicilienne.ctg"));
    assert!(
        err.contains("PowerPlay17-Sicilienne.cto: header at offset 4 claims 892 slots, the file holds 21 (truncated at offset 100)"),
        "{err}"
    );
    // .ctb: 5 bytes of 12.
    let d = copy("d", "simple");
    cut(&shared("ctg/simple.ctb"), 5, &d, "simple.ctb");
    let (_, err) = check(&d.join("simple.ctg"));
    assert!(
        err.contains("simple.ctb: 5 bytes, shorter than the 12-byte header"),
        "{err}"
    );
}

/// A Kvetka book (built here from a PGN file) with each of its files cut: `.kob` (a 22-byte
/// header, blocks of 2048), `.kin` (22 bytes a block), `.ksf` (its sources): the file, the
/// offset and what is missing.
#[test]
fn kvetka_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn");
    let whole = dir.path().join("whole");
    std::fs::create_dir(&whole).unwrap();
    run_ok(&[
        "book",
        "build",
        "--format",
        "kvetka",
        "-o",
        s(&whole.join("k")),
        s(&pgn),
    ]);
    let blocks = (std::fs::metadata(whole.join("k_0.kob")).unwrap().len() as usize - 22) / 2048;
    assert_eq!(
        std::fs::metadata(whole.join("k.kin")).unwrap().len() as usize,
        22 * blocks
    );
    let cases: Vec<(&str, usize, String)> = vec![
        ("k_0.kob", 100, "k_0.kob: byte offset 22: file ends inside a block: 78 bytes after the last whole block (truncated?)".into()),
        ("k_0.kob", 10_000, "k_0.kob: byte offset 8214: file ends inside a block: 1786 bytes after the last whole block (truncated?)".into()),
        ("k.kin", 100, format!("k.kin: byte offset 100: .kin holds 100 bytes, {blocks} blocks need {}", 22 * blocks)),
        ("k.ksf", 7, "k.ksf: byte offset 0: 1 sources do not fit in a file of 7 bytes".into()),
    ];
    for (i, (file, n, want)) in cases.into_iter().enumerate() {
        let d = dir.path().join(format!("cut{i}"));
        std::fs::create_dir(&d).unwrap();
        for f in ["k_0.kob", "k.kin", "k.ksf"] {
            std::fs::copy(whole.join(f), d.join(f)).unwrap();
        }
        cut(&whole.join(file), n, &d, file);
        let out = run_raw(&["book", "check", s(&d.join("k.kin"))]);
        assert!(!out.status.success(), "{file} {n}");
        assert!(
            text(&out.stderr).contains(&want),
            "{file} {n}: {}",
            text(&out.stderr)
        );
    }
}

/// A database of the Deep Blue games in `db`; its names (`names list --json`).
fn names_of_deep_blue_db(db: &Path) -> String {
    run_ok(&[
        "import",
        "--db",
        s(db),
        s(&shared(
            "pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn",
        )),
    ]);
    text(&run_ok(&["names", "list", "--db", s(db), "--json"]).stdout)
}

/// Scid's spelling file cut short (inside its zstd frame) or not a spelling file: refused,
/// naming it; the names of the database unchanged.
#[test]
fn spelling_file_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let before = names_of_deep_blue_db(&db);
    for n in [3usize, 100_000, 5_000_000] {
        let t = cut(
            &shared("names/spelling.ssp.zst"),
            n,
            dir.path(),
            &format!("s{n}.ssp.zst"),
        );
        let out = run_raw(&["names", "load-spelling", "--db", s(&db), s(&t)]);
        assert!(!out.status.success(), "{n}");
        let err = text(&out.stderr);
        let head = format!("tabiya: error: {}: ", t.display());
        assert!(err.starts_with(&head), "{err}");
        if n == 3 {
            // Not even a zstd magic number: read as text, no section.
            assert!(err.contains("no @PLAYER, @EVENT, @SITE or @ROUND section with names: not a Scid spelling file"), "{err}");
        } else {
            assert!(
                err.contains("zstd data truncated or damaged after ")
                    && err.contains(" bytes unpacked ("),
                "{err}"
            );
        }
    }
    assert_eq!(
        text(&run_ok(&["names", "list", "--db", s(&db), "--json"]).stdout),
        before
    );
}

/// A spelling file that unpacks past the bound of 256 MiB (a decompression bomb: some hundred
/// kilobytes holding 1 GiB of one name): refused, naming it, its memory near the bound and
/// far below the bomb; the names of the database unchanged.
#[test]
fn spelling_file_bomb_is_refused_in_bounded_memory() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let before = names_of_deep_blue_db(&db);
    let bomb = dir.path().join("bomb.ssp.zst");
    let mut enc =
        zstd::stream::write::Encoder::new(std::fs::File::create(&bomb).unwrap(), 3).unwrap();
    enc.write_all(b"@PLAYER\n").unwrap();
    let block = b"Kasparov, Garry\n".repeat(1 << 16);
    for _ in 0..1024 {
        enc.write_all(&block).unwrap();
    }
    enc.finish().unwrap();
    assert!(std::fs::metadata(&bomb).unwrap().len() < 1 << 20);
    let r = run_bounded(
        dir.path(),
        120,
        &["names", "load-spelling", "--db", "db", "bomb.ssp.zst"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("bomb.ssp.zst: unpacks to more than 256 MiB: not a spelling file"),
        "{}",
        r.stderr
    );
    assert!(r.peak_rss < 400 << 20, "peak {} bytes", r.peak_rss);
    assert_eq!(
        text(&run_ok(&["names", "list", "--db", s(&db), "--json"]).stdout),
        before
    );
}

/// A Parquet file cut short (its footer, at the end, gone): refused, naming it; the other
/// files imported; nothing stored lost.
#[test]
fn parquet_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let pgn = shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn");
    run_ok(&["import", "--db", s(&db), s(&pgn)]);
    let parquet = dir.path().join("k.parquet");
    run_ok(&["export", "--db", s(&db), "-o", s(&parquet)]);
    let len = std::fs::metadata(&parquet).unwrap().len() as usize;
    let other = dir.path().join("other.pgn");
    std::fs::write(&other, "[Event \"other\"]\n\n1. c4 *\n").unwrap();
    for n in [100, len / 2, len - 10] {
        let t = cut(&parquet, n, dir.path(), &format!("k{n}.parquet"));
        let out = run_raw(&["import", "--json", "--db", s(&db), s(&t), s(&other)]);
        assert!(!out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["problems"][0]["reason"],
            "not a Parquet file Tabiya can read: Parquet error: Invalid Parquet file. Corrupt footer"
        );
        assert_eq!(v["problems"][0]["file"], s(&t));
    }
    // The six games, and the other file's once (the next times are duplicates).
    let v = json(&["games", "--db", s(&db), "--json", "--limit", "1"]);
    assert_eq!(v["total"], 7, "{v}");
}
