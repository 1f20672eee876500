//! Files a user names that a book or a WTHOR reader opens — a Polyglot `.bin`, a CTG trio, a
//! Kvetka `.kob` with its `.kin` and `.ksf`, a book named by its stem, the PGN a Kvetka book
//! links its games to (`book game`), WTHOR `.wtb` files and their `--jou`/`--trn` names, a
//! Parquet file of games: each command refuses a FIFO no one writes to, `/dev/zero`, a
//! directory and a file past its format's bound, at once, naming the file and what it is
//! (`docs/reliability.md`, *Files named by users*). Every run is killed after 20 s, so that
//! a hang fails the test instead of holding the suite.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::bounded::run_bounded;
use common::{run_ok, shared};

/// How long a command may run before it is killed and the test fails: reading nothing of a
/// refused file takes milliseconds.
const LIMIT: u32 = 20;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn fifo(p: &Path) {
    let made = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(made.success());
}

/// `p` made a symbolic link to `/dev/zero` (a book or a WTHOR file is told by its name).
fn zero(p: &Path) {
    std::os::unix::fs::symlink("/dev/zero", p).unwrap();
}

/// A sparse file of `len` bytes.
fn sparse(p: &Path, len: u64) {
    std::fs::File::create(p).unwrap().set_len(len).unwrap();
}

/// `tabiya ARGS` (run in `dir`) fails within [`LIMIT`] and says every one of `want`
/// (standard error and output together: `book check` and `wthor check` report on standard
/// output).
fn refused(dir: &Path, args: &[&str], want: &[&str]) {
    let r = run_bounded(dir, LIMIT, args);
    let said = format!("{}{}", r.stderr, r.stdout);
    assert_ne!(r.code, 0, "tabiya {args:?} accepted: {said}");
    for w in want {
        assert!(said.contains(w), "tabiya {args:?}: {w:?} not in: {said}");
    }
}

/// The words that say what a file is: its path and its kind.
fn not_regular<'a>(path: &'a Path, is: &'a str) -> [&'a str; 3] {
    [s(path), is, "regular file"]
}

/// A Polyglot book's name given to a FIFO, to `/dev/zero`, to a directory: probed, told
/// about, dumped, converted and checked, each refused at once.
#[test]
fn polyglot_names_a_fifo_a_device_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (f, z, folder) = (d.join("f.bin"), d.join("zero.bin"), d.join("folder.bin"));
    fifo(&f);
    zero(&z);
    std::fs::create_dir(&folder).unwrap();
    let out = d.join("out.ctg");
    for (book, is) in [
        (&f, "FIFO"),
        (&z, "character device"),
        (&folder, "directory"),
    ] {
        let b = s(book);
        for args in [
            vec!["book", "probe", b],
            vec!["book", "info", b],
            vec!["book", "dump", b],
            vec!["book", "check", b],
            vec!["book", "convert", "-o", s(&out), b],
        ] {
            refused(d, &args, &not_regular(book, is));
        }
    }
    assert!(!out.exists());
}

/// A book named by its stem or without a known extension, when the name is a FIFO: refused
/// as a FIFO (before: "no such book"; a FIFO with a Polyglot-looking name waited for ever).
#[test]
fn a_book_without_extension_that_is_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("book");
    fifo(&f);
    refused(
        dir.path(),
        &["book", "probe", s(&f)],
        &not_regular(&f, "FIFO"),
    );
    refused(
        dir.path(),
        &["book", "convert", "-o", s(&dir.path().join("o.bin")), s(&f)],
        &not_regular(&f, "FIFO"),
    );
}

/// A CTG trio with one of its three files a FIFO, or `/dev/zero`: that file named.
#[test]
fn ctg_with_a_fifo_or_a_device_among_its_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, ext) in ["ctg", "cto", "ctb"].into_iter().enumerate() {
        for (j, (is, make)) in [("FIFO", fifo as fn(&Path)), ("character device", zero)]
            .into_iter()
            .enumerate()
        {
            let d = dir.path().join(format!("c{i}{j}"));
            std::fs::create_dir(&d).unwrap();
            for e in ["ctg", "cto", "ctb"] {
                if e != ext {
                    std::fs::copy(shared(&format!("ctg/simple.{e}")), d.join(format!("s.{e}")))
                        .unwrap();
                }
            }
            let odd = d.join(format!("s.{ext}"));
            make(&odd);
            let book = d.join("s.ctg");
            for args in [
                vec!["book", "probe", s(&book)],
                vec!["book", "check", s(&book)],
                vec!["book", "convert", "-o", s(&d.join("o.bin")), s(&book)],
            ] {
                refused(&d, &args, &not_regular(&odd, is));
            }
        }
    }
}

/// A Kvetka book built from the Kasparov–Deep Blue games, in `dir/NAME/`: `k_0.kob`,
/// `k.kin`, `k.ksf`, and the PGN its games link to (`g.pgn`). Its folder.
fn kvetka_book(dir: &Path, name: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir(&d).unwrap();
    let pgn = d.join("g.pgn");
    std::fs::copy(
        shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn"),
        &pgn,
    )
    .unwrap();
    run_ok(&[
        "book",
        "build",
        "--format",
        "kvetka",
        "-o",
        s(&d.join("k")),
        s(&pgn),
    ]);
    d
}

/// Each file of a Kvetka book replaced by a FIFO, `/dev/zero` or a directory (before: a
/// `.kob` FIFO waited for ever, a `.kin` or `.ksf` one was passed over in silence), and the
/// `.kin` and `.ksf` past their bounds: one key per block for the `.kin` (before: read
/// whole whatever its size), 1 GiB for the `.ksf`.
#[test]
fn kvetka_files_refused_each_naming_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    let mut case = |file: &str, is: &str, make: &dyn Fn(&Path)| {
        n += 1;
        let d = kvetka_book(dir.path(), &format!("k{n}"));
        let odd = d.join(file);
        std::fs::remove_file(&odd).unwrap();
        make(&odd);
        let book = d.join("k_0.kob");
        for args in [
            vec!["book", "probe", s(&book), "--play", "e2e4"],
            vec!["book", "check", s(&book)],
            vec!["book", "info", s(&book)],
        ] {
            refused(&d, &args, &not_regular(&odd, is));
        }
    };
    for file in ["k_0.kob", "k.kin", "k.ksf"] {
        case(file, "FIFO", &fifo);
        case(file, "character device", &zero);
        case(file, "directory", &|p: &Path| {
            std::fs::create_dir(p).unwrap()
        });
    }

    // A `.kin` one byte longer than one key per block; a `.ksf` past 1 GiB (sparse).
    let d = kvetka_book(dir.path(), "big");
    let kin = d.join("k.kin");
    let len = std::fs::metadata(&kin).unwrap().len();
    let blocks = len / 22;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&kin)
        .unwrap()
        .set_len(len + 1)
        .unwrap();
    let want_kin = format!("a .kin index of {blocks} blocks can be");
    refused(
        &d,
        &["book", "probe", s(&d.join("k_0.kob")), "--play", "e2e4"],
        &[s(&kin), "larger than", &want_kin],
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&kin)
        .unwrap()
        .set_len(len)
        .unwrap();
    let ksf = d.join("k.ksf");
    std::fs::remove_file(&ksf).unwrap();
    sparse(&ksf, (1 << 30) + 1);
    refused(
        &d,
        &["book", "check", s(&d.join("k_0.kob"))],
        &[s(&ksf), "larger than the 1 GiB", ".ksf"],
    );
}

/// `book game` reads the PGN a Kvetka book links a game to, by the offset and length the
/// book gives: a FIFO in its place is refused at once (before: waited for ever), and a file
/// shorter than the book says gives no game, saying the file's size (before: a buffer of the
/// book's length was allocated first, whatever it was).
#[test]
fn kvetka_linked_games_source_is_a_regular_file_within_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = kvetka_book(dir.path(), "k");
    let pgn = d.join("g.pgn");
    let book = d.join("k_0.kob");
    let game = ["book", "game", s(&book), "--play", "e2e4"];
    let whole = run_bounded(&d, LIMIT, &game);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert!(whole.stdout.contains("[White \"Deep Blue (Computer)\"]"));
    std::fs::remove_file(&pgn).unwrap();
    fifo(&pgn);
    refused(&d, &game, &not_regular(&pgn, "FIFO"));
    std::fs::remove_file(&pgn).unwrap();
    std::fs::write(&pgn, "[Event \"?\"]\n").unwrap();
    refused(&d, &game, &[s(&pgn), "no game of", "the file has 12 bytes"]);
}

/// A WTHOR import of a FIFO, `/dev/zero`, a folder and a file past 256 MiB named as a
/// `.wtb`; and of `--jou`/`--trn` names files that are a FIFO, `/dev/zero`, a directory, or
/// larger than their 16-bit count allows. Each refused, naming the file; the good games of
/// the same import are imported.
#[test]
fn wthor_import_refuses_each_odd_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = d.join("WTH_2016.wtb");
    std::fs::copy(shared("wthor/WTH_2016.wtb"), &good).unwrap();
    let (f, z, folder, big) = (
        d.join("f.wtb"),
        d.join("zero.wtb"),
        d.join("folder.wtb"),
        d.join("big.wtb"),
    );
    fifo(&f);
    zero(&z);
    std::fs::create_dir(&folder).unwrap();
    sparse(&big, (256 << 20) + 1);
    let mut n = 0;
    let mut db = || {
        n += 1;
        d.join(format!("db{n}")).display().to_string()
    };
    for (file, want) in [
        (&f, not_regular(&f, "FIFO").to_vec()),
        (&z, not_regular(&z, "character device").to_vec()),
        // A folder is a Parquet dataset to the import, and says so.
        (
            &folder,
            vec![s(&folder), "is a folder without a .parquet file"],
        ),
        (
            &big,
            vec![s(&big), "larger than the 256 MiB", "WTHOR game file"],
        ),
    ] {
        refused(d, &["import", "--db", &db(), s(file)], &want);
    }
    // The other file of the same import is read.
    let db_both = db();
    let r = run_bounded(d, LIMIT, &["import", "--db", &db_both, s(&f), s(&good)]);
    assert_ne!(r.code, 0);
    assert!(
        r.stdout.contains("imported 2013 of 2013 games"),
        "{}",
        r.stdout
    );

    // Names files: the flag names the file; the games are imported without its names.
    let (jf, tz, jd) = (d.join("f.jou"), d.join("zero.trn"), d.join("folder.jou"));
    fifo(&jf);
    zero(&tz);
    std::fs::create_dir(&jd).unwrap();
    let (jbig, tbig) = (d.join("big.jou"), d.join("big.trn"));
    sparse(&jbig, 16 + 65_535 * 20 + 1);
    sparse(&tbig, 16 + 65_535 * 26 + 1);
    for (flag, file, want) in [
        ("--jou", &jf, not_regular(&jf, "FIFO").to_vec()),
        ("--trn", &tz, not_regular(&tz, "character device").to_vec()),
        ("--jou", &jd, not_regular(&jd, "directory").to_vec()),
        (
            "--jou",
            &jbig,
            vec![s(&jbig), "larger than", "a WTHOR .jou file can be"],
        ),
        (
            "--trn",
            &tbig,
            vec![s(&tbig), "larger than", "a WTHOR .trn file can be"],
        ),
    ] {
        let db = db();
        refused(d, &["import", "--db", &db, s(&good), flag, s(file)], &want);
    }
    // `wthor check` reads through the same reader.
    refused(d, &["wthor", "check", s(&f)], &not_regular(&f, "FIFO"));
    refused(
        d,
        &["wthor", "check", s(&big)],
        &[s(&big), "larger than the 256 MiB"],
    );
}

/// A Parquet file's name given to a FIFO or to `/dev/zero`: refused at once (before: the
/// FIFO waited for ever), the PGN given with it imported.
#[test]
fn parquet_names_a_fifo_or_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (f, z) = (d.join("f.parquet"), d.join("zero.parquet"));
    fifo(&f);
    zero(&z);
    let pgn = d.join("g.pgn");
    std::fs::copy(
        shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn"),
        &pgn,
    )
    .unwrap();
    for (i, (file, is)) in [(&f, "FIFO"), (&z, "character device")]
        .into_iter()
        .enumerate()
    {
        let db = d.join(format!("db{i}")).display().to_string();
        refused(
            d,
            &["import", "--db", &db, s(file), s(&pgn)],
            &not_regular(file, is),
        );
        let games = run_ok(&["stats", "--db", &db, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&games.stdout).unwrap();
        assert_eq!(v["games"], 6, "{v}");
    }
}
