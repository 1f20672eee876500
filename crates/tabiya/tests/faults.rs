//! Faults and crashes (docs/reliability.md, "Faults and crashes"): a damaged file, a full
//! disk, a read-only directory, two imports at once, `kill -9` during writes. Real child
//! processes on real store files. The full disk and the read-only directory are small tmpfs
//! mounts: these tests need root (CI runs as root) and fail saying so otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::{BIN, run_ok, run_raw, shared};

fn kasparov() -> PathBuf {
    shared("pgn/pgnmentor/Kasparov.pgn")
}

fn tcec() -> PathBuf {
    shared("pgn/tcec/tcec-partial.nocomments.pgn.zst")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// What a database answers: the explorer at the start and after 1. e4 c5, the games of a
/// position, the cards. (Each a single read: what a change killed part way must leave as
/// before or after it. Names' entries are computed in a transaction after an import's, so
/// a merge killed between them leaves its games with the earlier entries: not asked here.)
fn answers(db: &Path) -> Result<Vec<String>, String> {
    answers_of(db, false)
}

/// [`answers`], and every game exported under its entries' names, the statistics' counts, a
/// name search, and what only [`full_db`] holds: a gameset's games, a note.
fn full_answers(db: &Path) -> Result<Vec<String>, String> {
    answers_of(db, true)
}

fn answers_of(db: &Path, full: bool) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for args in [
        vec!["explore", "--json"],
        vec!["explore", "--json", "--play", "e4 c5"],
        vec!["games", "--json", "--play", "e4 c5 Nf3", "--limit", "200"],
        vec!["games", "--json", "--limit", "50", "--offset", "1000"],
        vec!["cards", "list", "--json"],
    ]
    .into_iter()
    .chain(
        full.then(|| {
            [
                vec!["export", "--canonical-names"],
                vec!["stats", "--json"],
                vec!["names", "search", "--json", "Kasp"],
                vec!["gameset", "games", "--json", "wins", "--limit", "100000"],
                vec!["note", "show", "--play", "e4 c5"],
            ]
        })
        .into_iter()
        .flatten(),
    ) {
        let o = Command::new(BIN)
            .env("TABIYA_NOW", "2026-03-01")
            .args(&args)
            .args(["--db", s(db)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        if !o.status.success() {
            return Err(err);
        }
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        if args[0] == "stats" {
            // The counts, not the bytes on disk (opening a store may move its free pages).
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            for k in ["fileBytes", "bytesPerGame", "parts"] {
                v.as_object_mut().unwrap().remove(k);
            }
            out.push(v.to_string());
        } else {
            out.push(text);
        }
    }
    Ok(out)
}

fn stats_counts(db: &Path) -> serde_json::Value {
    let mut v = common::json(&["stats", "--db", s(db), "--json"]);
    for k in ["fileBytes", "bytesPerGame", "parts"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

fn check(db: &Path) -> Output {
    run_raw(&["check", "--db", s(db)])
}

/// What a command printed, standard output then standard error.
fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn assert_checks(db: &Path) {
    let o = check(db);
    assert!(
        o.status.success(),
        "check failed on {}: {}",
        db.display(),
        said(&o)
    );
}

/// A small tmpfs, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let o = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                s(dir),
            ])
            .output()
            .expect("run mount");
        assert!(
            o.status.success(),
            "this test needs root to mount a tmpfs (a full disk, a read-only directory): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        Tmpfs(dir.to_path_buf())
    }

    fn remount_read_only(&self) {
        let o = Command::new("mount")
            .args(["-o", "remount,ro", s(&self.0)])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "remount ro: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A fresh database of Kasparov's games (1,999) in `dir`.
fn kasparov_db(dir: &Path) {
    run_ok(&["import", "--db", s(dir), s(&kasparov())]);
}

/// A database of Kasparov's games with something in every table a user can fill: a note,
/// a card, a gameset, an edited game (patches), a deleted one, a name rule, an evaluation.
fn full_db(dir: &Path) {
    kasparov_db(dir);
    let d = s(dir);
    for args in [
        vec!["note", "set", "--db", d, "--play", "e4 c5", "the Sicilian"],
        vec!["cards", "add", "--db", d, "--play", "e4", "--move", "c5"],
        vec![
            "gameset",
            "create",
            "--db",
            d,
            "--where",
            "result = '1-0'",
            "wins",
        ],
        vec!["edit", "--db", d, "--game", "5", "--set", "Result=0-1"],
        vec!["delete", "--db", d, "--game", "7"],
        vec![
            "names",
            "alias",
            "--db",
            d,
            "--to",
            "Kasparov, Gary",
            "Kasparov, G.",
        ],
        vec!["analyse", "--db", d, "--play", "e4 c5", "--depth", "6"],
    ] {
        run_ok(&args);
    }
}

/// The pages to damage, one of each kind, found through the store's own structure: the
/// header; the tables' directory; for every table, the root and the leaf on the path to its
/// first, middle and last entries; a game's record; a T block and an S block of the index.
/// (What, offset, length.) The pages a lookup reads are seen only in an optimised build
/// (`scripts/test` runs `cargo test --release`): redb built with debug assertions walks every
/// page of the file when it opens it, so nothing is left to read from disk afterwards.
fn pages_of_each_kind(db: &Path) -> Vec<(String, u64, u64)> {
    use tabiya_store::Store;
    let mut lookups: Vec<(String, String, Vec<u8>)> = Vec::new();
    {
        let store = Store::open(db).unwrap();
        let r = store.read().unwrap();
        for table in [
            "meta",
            "games",
            "facts",
            "players",
            "names",
            "runs",
            "blocks",
            "postings",
            "sketches",
            "evals",
            "entries",
            "name_rules",
            "notes",
            "gamesets",
            "gameset_ids",
            "cards",
            "card_keys",
            "patches",
        ] {
            let mut keys = Vec::new();
            r.table(table)
                .unwrap()
                .scan(&[], None, |k, _| {
                    keys.push(k.to_vec());
                    true
                })
                .unwrap();
            assert!(
                !keys.is_empty(),
                "table {table} is empty: fill it in full_db"
            );
            for (at, k) in [
                ("first", 0),
                ("middle", keys.len() / 2),
                ("last", keys.len() - 1),
            ] {
                lookups.push((
                    format!("{table}'s {at} entry"),
                    table.into(),
                    keys[k].clone(),
                ));
            }
            if table == "blocks" {
                for kind in [b'T', b'S'] {
                    let k = keys
                        .iter()
                        .find(|k| k[4] == kind)
                        .expect("a block of the kind");
                    lookups.push((format!("{} block", kind as char), table.into(), k.clone()));
                }
            }
        }
    }
    let mut out = vec![("the header".to_string(), 0, tabiya_store::UNIT)];
    for (what, table, key) in lookups {
        // A store just opened: every page of the lookup is read from disk.
        let store = Store::open(db).unwrap();
        let r = store.read().unwrap();
        let (t, directory) = store.reads_during(|| r.table(&table).unwrap());
        let (v, path) = store.reads_during(|| t.get(&key).unwrap());
        assert!(v.is_some(), "{what}: not found again");
        if let Some(&(o, l)) = directory.last() {
            out.push((format!("the tables' directory (opening {table})"), o, l));
        }
        // Nothing read: the entry's page was read already, while the store opened.
        let Some((&(o, l), above)) = path.split_last() else {
            continue;
        };
        out.push((format!("the leaf holding {what}"), o, l));
        if let Some(&(o, l)) = above.first() {
            out.push((format!("the branch above {what}"), o, l));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, o, _)| seen.insert(*o));
    out
}

#[test]
fn a_damaged_file_is_named_and_never_answered_wrongly_in_silence() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    full_db(&good);
    let pages = pages_of_each_kind(&good);
    let before = full_answers(&good).unwrap();
    let bad = tmp.path().join("bad");
    let file = bad.join("tabiya.redb");
    let damage = |at: u64| {
        copy_db(&good, &bad);
        let mut b = std::fs::read(&file).unwrap();
        b[at as usize] ^= 0x10;
        std::fs::write(&file, &b).unwrap();
    };
    for (what, offset, len) in &pages {
        // A byte in the middle of the page: inside what it holds, whatever its layout.
        let at = offset + len / 2;
        damage(at);
        let c = check(&bad);
        let said = said(&c);
        assert!(!said.contains("panicked"), "{what}: check panicked: {said}");
        assert!(
            !c.status.success(),
            "{what} (byte {at}): check found nothing: {said}"
        );
        assert!(
            said.contains(s(&file)),
            "{what}: check does not name the file: {said}"
        );
        assert!(said.contains("damaged"), "{what}: {said}");
        // The queries: the same answers, or an error naming the file (check may have
        // written to the copy: it is damaged again first).
        damage(at);
        match full_answers(&bad) {
            Ok(a) => assert_eq!(
                a, before,
                "{what} (byte {at}): a different answer, no error"
            ),
            Err(e) => assert!(
                e.contains(s(&file)) && e.contains("damaged"),
                "{what} (byte {at}): {e}"
            ),
        }
        // A server verifies every page before it serves: it refuses, naming the file.
        damage(at);
        match common::server::Server::try_start(&["--db", s(&bad), "--no-engine"], &[]) {
            Ok(mut server) => {
                assert!(server.stop());
                panic!("{what} (byte {at}): served a damaged file");
            }
            Err(e) => {
                assert!(!e.contains("panicked"), "{what}: {e}");
                assert!(e.contains(s(&file)), "{what}: {e}");
            }
        }
    }
    eprintln!("{} pages damaged, one at a time", pages.len());
    // The checksums file damaged: its header, its first chunk.
    for at in [20u64, tabiya_store::UNIT + 100] {
        copy_db(&good, &bad);
        let sums = bad.join("tabiya.sums");
        let mut b = std::fs::read(&sums).unwrap();
        b[at as usize] ^= 0x10;
        std::fs::write(&sums, &b).unwrap();
        match full_answers(&bad) {
            Ok(a) => assert_eq!(a, before, "tabiya.sums byte {at}: a different answer"),
            Err(e) => assert!(e.contains("tabiya.sums") && e.contains("damaged"), "{e}"),
        }
    }
    // Truncated files.
    let store = std::fs::read(good.join("tabiya.redb")).unwrap();
    for len in [
        0usize,
        100,
        4096,
        store.len() / 3,
        store.len() / 2,
        store.len() - 4096,
    ] {
        let _ = std::fs::remove_dir_all(&bad);
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::copy(good.join("tabiya.sums"), bad.join("tabiya.sums")).unwrap();
        std::fs::write(&file, &store[..len]).unwrap();
        let c = check(&bad);
        let said = said(&c);
        assert!(!said.contains("panicked"), "truncated to {len}: {said}");
        assert!(
            !c.status.success(),
            "truncated to {len}: check passed: {said}"
        );
        assert!(said.contains("tabiya.redb"), "truncated to {len}: {said}");
        std::fs::copy(good.join("tabiya.sums"), bad.join("tabiya.sums")).unwrap();
        std::fs::write(&file, &store[..len]).unwrap();
        match full_answers(&bad) {
            Ok(a) => assert_eq!(
                a, before,
                "truncated to {len}: a different answer, no error"
            ),
            Err(e) => assert!(
                e.contains("tabiya.redb") || e.contains("database"),
                "truncated to {len}: {e}"
            ),
        }
    }
}

#[test]
fn a_full_disk_gives_a_clear_error_and_leaves_the_database_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let mnt = Tmpfs::mount(&tmp.path().join("small"), "6m");
    let db = mnt.0.join("db");
    kasparov_db(&db);
    let before = answers(&db).unwrap();
    let stats = stats_counts(&db);
    // An import that does not fit (27,544 games).
    let o = run_raw(&["import", "--db", s(&db), s(&tcec())]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the import fitted: {err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        err.contains(s(&db.join("tabiya.redb"))),
        "the error does not name the file: {err}"
    );
    assert_eq!(answers(&db).unwrap(), before);
    assert_eq!(stats_counts(&db), stats);
    assert_checks(&db);
    // A book built onto the full disk.
    let filler = mnt.0.join("filler");
    let _ = std::fs::write(&filler, vec![1u8; 8 << 20]);
    let o = run_raw(&[
        "book",
        "build",
        "--format",
        "polyglot",
        "--min-game",
        "1",
        s(&tcec()),
        "-o",
        s(&mnt.0.join("book.bin")),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the book fitted: {err}");
    assert!(err.contains("No space left on device"), "{err}");
    // A note and an edit while the disk is full.
    let note = tmp.path().join("note.md");
    std::fs::write(&note, "a long note ".repeat(5_000)).unwrap();
    for args in [
        vec!["note", "set", "--file", s(&note)],
        vec![
            "edit",
            "--game",
            "3",
            "--set",
            "Result=0-1",
            "--set",
            "Annotator=Full Disk",
        ],
        vec!["analyse", "--play", "e4", "--depth", "8"],
    ] {
        let o = Command::new(BIN)
            .args(&args)
            .args(["--db", s(&db)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} went through on a full disk");
        assert!(
            err.contains("No space left on device") && err.contains("tabiya.redb"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_file(&filler).unwrap();
    assert_eq!(answers(&db).unwrap(), before);
    assert_eq!(stats_counts(&db), stats);
    assert_checks(&db);
}

#[test]
fn a_read_only_directory_answers_and_refuses_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let mnt = Tmpfs::mount(&tmp.path().join("ro"), "16m");
    let db = mnt.0.join("db");
    kasparov_db(&db);
    let before = answers(&db).unwrap();
    mnt.remount_read_only();
    assert_eq!(answers(&db).unwrap(), before);
    // A server answers from it too (with no import hand-over file: it takes no import).
    let mut server = common::server::Server::start(&["--db", s(&db)]);
    let explored = common::server::get(&format!(
        "{}api/explore?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20KQkq%20-%200%201",
        server.url
    ))
    .json();
    let direct = common::json(&["explore", "--db", s(&db), "--json"]);
    assert_eq!(explored["white"], direct["white"]);
    assert_eq!(
        explored["moves"].as_array().unwrap().len(),
        direct["moves"].as_array().unwrap().len()
    );
    assert!(server.stop());
    for args in [
        vec!["import", s(&shared("pgn/pgnmentor/Morphy.pgn"))],
        vec!["edit", "--game", "3", "--set", "Result=0-1"],
        vec!["note", "set", "a note"],
        vec!["delete", "--game", "3"],
    ] {
        let o = Command::new(BIN)
            .args(&args)
            .args(["--db", s(&db)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "{args:?} wrote to a read-only database"
        );
        assert!(
            err.contains("read-only") && err.contains("tabiya.redb"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(answers(&db).unwrap(), before);
    let o = check(&db);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_second_import_at_once_is_refused_and_nothing_is_corrupted() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let first = Command::new(BIN)
        .args(["import", "--db", s(&db), s(&tcec())])
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The first has the store open once its file exists.
    let t0 = std::time::Instant::now();
    while !db.join("tabiya.redb").exists() && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = run_raw(&["import", "--db", s(&db), s(&kasparov())]);
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "both imports ran at once");
    assert!(err.contains("open in another process"), "{err}");
    // The first's games only: 27,544 (the file's 27,608 less 64 exact duplicates).
    let stats = common::json(&["stats", "--db", s(&db), "--json"]);
    assert_eq!(stats["games"], 27_544);
    assert_checks(&db);
    // Run again, it adds the second file's games once.
    run_ok(&["import", "--db", s(&db), s(&kasparov())]);
    assert_eq!(
        common::json(&["stats", "--db", s(&db), "--json"])["games"],
        27_544 + 1_999
    );
    assert_checks(&db);
}

/// A seeded generator of kill moments.
struct Moments(u64);

impl Moments {
    fn next_ms(&mut self, max: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % max
    }
}

/// Runs `tabiya args` and kills it with SIGKILL after `ms` milliseconds (if still running).
fn kill_after(args: &[&str], ms: u64) -> bool {
    let mut child = Command::new(BIN)
        .env("TABIYA_NOW", "2026-03-01")
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(ms));
    let killed = matches!(child.try_wait(), Ok(None));
    let _ = child.kill();
    let _ = child.wait();
    killed
}

#[test]
fn kill_9_during_imports_keeps_whole_segments_and_a_rerun_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let started = std::time::Instant::now();
    run_ok(&["import", "--db", s(&whole), "--batch", "2000", s(&tcec())]);
    // The kills fall within the time a whole import takes on this machine, now: at fixed
    // moments they found imports of a fast machine done (3 of 8 killed in one CI run).
    let took = started.elapsed().as_millis() as u64;
    let expected = answers(&whole).unwrap();
    let total = common::json(&["stats", "--db", s(&whole), "--json"])["games"]
        .as_u64()
        .unwrap();
    let mut moments = Moments(17);
    let mut killed = 0;
    for round in 0..8 {
        let db = tmp.path().join(format!("k{round}"));
        // Between 5 % and 60 % of a whole import's time: before its end, whatever the
        // machine's speed, and spread over its segments.
        let ms = (took * (5 + moments.next_ms(56)) / 100).max(20);
        killed += u32::from(kill_after(
            &["import", "--db", s(&db), "--batch", "2000", s(&tcec())],
            ms,
        ));
        if db.join("tabiya.redb").exists() {
            assert_checks(&db);
            // Segments of 2,000 games are all or nothing.
            let games = common::json(&["stats", "--db", s(&db), "--json"])["games"]
                .as_u64()
                .unwrap();
            assert!(
                games.is_multiple_of(2000) || games == total,
                "after a kill at {ms} ms: {games} games"
            );
        }
        run_ok(&["import", "--db", s(&db), "--batch", "2000", s(&tcec())]);
        assert_eq!(
            common::json(&["stats", "--db", s(&db), "--json"])["games"],
            total
        );
        assert_checks(&db);
        let _ = expected.len();
    }
    assert!(
        killed >= 4,
        "only {killed} of 8 imports were still running when killed"
    );
}

/// The explorer's answer at the start without its evaluations, and the evaluation of 1. e4
/// when one is kept (its depth).
fn e4_eval(db: &Path) -> (serde_json::Value, Option<u64>) {
    let mut v = common::json(&["explore", "--db", s(db), "--json"]);
    let mut depth = None;
    for m in v["moves"].as_array_mut().unwrap() {
        if let Some(e) = m.as_object_mut().unwrap().remove("eval")
            && m["san"] == "e4"
        {
            depth = e["depth"].as_u64();
        }
    }
    (v, depth)
}

#[test]
fn kill_9_during_every_write_keeps_all_of_a_change_or_none() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    run_ok(&["import", "--db", s(&base), s(&tcec())]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        s(&base),
        "--where",
        "result = '1-0'",
        "wins",
    ]);
    let src = tmp.path().join("src");
    kasparov_db(&src);
    let before = answers(&base).unwrap();
    let mut moments = Moments(99);
    // Each write path ("DB" is the database written to).
    let paths: Vec<Vec<&str>> = vec![
        vec!["edit", "--db", "DB", "--game", "5", "--set", "Result=1-0"],
        vec!["delete", "--db", "DB", "--game", "7"],
        vec!["note", "set", "--db", "DB", "--play", "e4", "kill test"],
        vec![
            "cards", "add", "--db", "DB", "--play", "e4 e5", "--move", "Nf3",
        ],
        vec!["db", "merge", "--into", "DB", s(&src)],
        vec!["gameset", "refresh", "--db", "DB", "wins"],
    ];
    for p in &paths {
        // The state after the change, made without a kill.
        let done = tmp.path().join("done");
        copy_db(&base, &done);
        let args: Vec<&str> = p
            .iter()
            .map(|a| if *a == "DB" { s(&done) } else { a })
            .collect();
        let t0 = std::time::Instant::now();
        let o = Command::new(BIN)
            .env("TABIYA_NOW", "2026-03-01")
            .args(&args)
            .output()
            .unwrap();
        // Kills land within the time the change took (start-up included).
        let took = (t0.elapsed().as_millis() as u64).max(1);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let after = answers(&done).unwrap();
        let (mut none, mut all, mut mid) = (0, 0, 0);
        for round in 0..6 {
            let db = tmp.path().join("k");
            copy_db(&base, &db);
            let args: Vec<&str> = p
                .iter()
                .map(|a| if *a == "DB" { s(&db) } else { a })
                .collect();
            let ms = moments.next_ms(took);
            mid += u32::from(kill_after(&args, ms));
            assert_checks(&db);
            let now = answers(&db).unwrap();
            let differs = |x: &[String]| -> Option<(usize, String, String)> {
                let i = x.iter().zip(&now).position(|(a, b)| a != b)?;
                let cut = |t: &str| t.chars().take(400).collect::<String>();
                Some((i, cut(&x[i]), cut(&now[i])))
            };
            assert!(
                now == before || now == after,
                "{p:?} killed at {ms} ms (round {round}): neither the state before nor after: from before {:?}; from after {:?}",
                differs(&before),
                differs(&after)
            );
            none += u32::from(now == before && now != after);
            all += u32::from(now == after);
        }
        eprintln!("{p:?}: 6 kills, {mid} while running: {none} left none of the change, {all} all");
    }
    // An evaluation stored by `analyse`: the engine's numbers vary from run to run, so the
    // rest of the answer is compared, and the evaluation is either absent or whole.
    let (start, none_kept) = e4_eval(&base);
    assert_eq!(none_kept, None);
    let done = tmp.path().join("done");
    copy_db(&base, &done);
    let t0 = std::time::Instant::now();
    run_ok(&["analyse", "--db", s(&done), "--play", "e4", "--depth", "14"]);
    let analyse_took = t0.elapsed().as_millis() as u64;
    assert_eq!(e4_eval(&done).1, Some(14));
    let (mut none, mut all) = (0, 0);
    for round in 0..6 {
        let db = tmp.path().join("k");
        copy_db(&base, &db);
        let ms = moments.next_ms(analyse_took);
        kill_after(
            &["analyse", "--db", s(&db), "--play", "e4", "--depth", "14"],
            ms,
        );
        assert_checks(&db);
        let (now, depth) = e4_eval(&db);
        assert_eq!(now, start, "analyse killed at {ms} ms (round {round})");
        assert!(
            matches!(depth, None | Some(14)),
            "a partial evaluation: {depth:?}"
        );
        none += u32::from(depth.is_none());
        all += u32::from(depth.is_some());
    }
    eprintln!("analyse: 6 kills: {none} left no evaluation, {all} the whole one");
}

/// A copy of a database, its store and the store's checksums, in place of whatever `to`
/// held.
fn copy_db(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for f in ["tabiya.redb", "tabiya.sums"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

/// What the library answers from a database (the answers the command line and the server
/// serialise), in this process: the explorer at three positions, the games of one, every
/// game exported, the statistics' counts, a note, the cards, a gameset's games, a name
/// search. Or the first error.
fn answers_in_process(db: &Path) -> Result<Vec<String>, String> {
    use tabiya_service::{
        ChessPosition, Db, cards, explore, export, games, gamesets, names, notes,
    };
    let e = |e: tabiya_service::Error| e.to_string();
    let db = Db::open(db).map_err(e)?;
    let mut out = Vec::new();
    let at = |line: &str| ChessPosition::resolve(None, Some(line)).unwrap();
    for line in ["", "e4 c5", "d4 Nf6 c4 g6 Nc3 d5"] {
        let p = if line.is_empty() {
            ChessPosition::start()
        } else {
            at(line)
        };
        out.push(format!("{:?}", explore::chess(&db, &p, 8, &[]).map_err(e)?));
    }
    out.push(format!(
        "{:?}",
        games::chess(&db, &at("e4 c5"), games::GameSort::Id, 0, 10_000).map_err(e)?
    ));
    let mut pgn = Vec::new();
    export::pgn(&db, &export::Selection::All, &mut pgn).map_err(e)?;
    out.push(String::from_utf8_lossy(&pgn).into_owned());
    let mut stats = serde_json::to_value(db.stats().map_err(e)?).unwrap();
    for k in ["fileBytes", "bytesPerGame", "parts"] {
        stats.as_object_mut().unwrap().remove(k);
    }
    out.push(stats.to_string());
    out.push(format!("{:?}", notes::show(&db, &at("e4 c5")).map_err(e)?));
    let req = cards::ListRequest {
        due_only: false,
        side: None,
        limit: None,
    };
    out.push(format!(
        "{:?}",
        cards::list(&db, &req, 1_772_323_200).map_err(e)?
    ));
    out.push(format!(
        "{:?}",
        gamesets::games(&db, "wins", 0, 100_000).map_err(e)?
    ));
    out.push(format!(
        "{:?}",
        names::search(&db, names::NameKind::Player, "Kasp", 50).map_err(e)?
    ));
    Ok(out)
}

/// One bit flipped in every 4 KiB page of both files of a small database, one page at a
/// time: every answer the same, or an error that names the file and says it is damaged.
#[test]
fn a_bit_flipped_in_every_page_changes_no_answer_in_silence() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    full_db(&good);
    // Pages these answers must read (every game is exported, every game's facts counted):
    // the header, and the pages on the way to the games and their facts (the tables'
    // directory where it names them, their roots and leaves).
    let read_for_sure: Vec<(String, u64)> = pages_of_each_kind(&good)
        .into_iter()
        .filter(|(what, _, _)| {
            what == "the header"
                || ["games", "facts"].iter().any(|t| {
                    what.contains(&format!("{t}'s "))
                        || what == &format!("the tables' directory (opening {t})")
                })
        })
        .map(|(what, offset, _)| (what, offset))
        .collect();
    assert!(read_for_sure.len() > 3, "{read_for_sure:?}");
    let before = answers_in_process(&good).unwrap();
    let bad = tmp.path().join("bad");
    let (mut found, mut same) = (0, 0);
    let mut found_at = std::collections::HashSet::new();
    for name in ["tabiya.redb", "tabiya.sums"] {
        let bytes = std::fs::read(good.join(name)).unwrap();
        let unit = tabiya_store::UNIT as usize;
        for page in 0..bytes.len().div_ceil(unit) {
            copy_db(&good, &bad);
            // A bit in the page's middle third, at a place that moves from page to page.
            let at = (page * unit + unit / 3 + page * 131 % (unit / 3)).min(bytes.len() - 1);
            let mut b = bytes.clone();
            b[at] ^= 1 << (page % 8);
            std::fs::write(bad.join(name), &b).unwrap();
            match answers_in_process(&bad) {
                Ok(a) => {
                    assert!(
                        a == before,
                        "{name} byte {at}: a different answer, no error"
                    );
                    same += 1;
                }
                Err(e) => {
                    assert!(
                        e.contains(s(&bad)) && e.contains("damaged"),
                        "{name} byte {at}: {e}"
                    );
                    found += 1;
                    if name == "tabiya.redb" {
                        found_at.insert((page * unit) as u64);
                    }
                }
            }
        }
    }
    eprintln!(
        "{found} damaged pages found, {same} answered the same (pages none of these answers reads: free pages, the allocator's)"
    );
    // Not vacuous: the damage of every page the answers must read was found.
    eprintln!(
        "{} pages the answers must read: all found",
        read_for_sure.len()
    );
    for (what, offset) in &read_for_sure {
        assert!(
            found_at.contains(offset),
            "{what} (byte {offset}): damaged, and no answer said so"
        );
    }
}

#[test]
fn a_server_starts_on_a_full_disk_and_a_gone_servers_file_is_not_blamed() {
    let tmp = tempfile::tempdir().unwrap();
    let mnt = Tmpfs::mount(&tmp.path().join("mnt"), "48m");
    let db = mnt.0.join("db");
    kasparov_db(&db);
    // The disk filled to its last byte.
    let mut filler = std::fs::File::create(mnt.0.join("filler")).unwrap();
    while std::io::Write::write_all(&mut filler, &[1u8; 64 << 10]).is_ok() {}
    let _ = std::io::Write::write_all(&mut filler, &[1u8; 1]);
    drop(filler);
    let mut server = Command::new(BIN)
        .args([
            "serve",
            "--db",
            s(&db),
            "--no-engine",
            "--bind",
            "127.0.0.1:0",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("the server did not start on a full disk: {line}"))
        .to_string();
    let dbs: serde_json::Value = serde_json::from_str(
        &ureq::get(&format!("{url}api/databases"))
            .call()
            .unwrap()
            .into_body()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(dbs["databases"][0]["games"], 1999, "{dbs}");
    assert!(!db.join("serve.json").exists(), "nothing half written");
    Command::new("kill")
        .args(["-KILL", &server.id().to_string()])
        .status()
        .unwrap();
    let done = server.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&done.stderr);
    assert!(
        said.contains("serve.json") && said.contains("hand"),
        "{said}"
    );
    drop(mnt);

    // A server killed leaves its serve file. While another process holds the database (an
    // import waiting on a pipe), a command is told so, not sent to the server that is gone.
    let other = tmp.path().join("other");
    kasparov_db(&other);
    let gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    let _ = { gone }.wait();
    std::fs::write(
        other.join("serve.json"),
        format!(r#"{{"url": "http://127.0.0.1:9/", "token": "00", "pid": {pid}, "db": "other"}}"#),
    )
    .unwrap();
    let fifo = tmp.path().join("games.pgn");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut import = Command::new(BIN)
        .args(["import", "--db", s(&other), s(&fifo)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut said = String::new();
    for _ in 0..100 {
        let o = run_raw(&[
            "edit",
            "--db",
            s(&other),
            "--game",
            "1",
            "--set",
            "Annotator=x",
        ]);
        said = String::from_utf8_lossy(&o.stderr).into_owned();
        if !o.status.success() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = import.kill();
    let _ = import.wait();
    assert!(said.contains("open in another process"), "{said}");
    assert!(
        !said.contains("127.0.0.1:9"),
        "a gone server blamed: {said}"
    );
    assert!(
        !other.join("serve.json").exists(),
        "the stale file is removed"
    );
}

/// Questions that read the store afresh (the server caches none of them before they are
/// asked): games pages at many offsets, and the explorer at many positions.
fn fresh_questions(round: usize) -> Vec<String> {
    let lines = [
        "e2e4",
        "d2d4",
        "c2c4",
        "g1f3",
        "e2e4,c7c5",
        "e2e4,e7e5",
        "d2d4,g8f6",
        "d2d4,d7d5",
        "e2e4,c7c6",
        "e2e4,e7e6",
        "d2d4,g8f6,c2c4,g7g6",
        "e2e4,c7c5,g1f3,d7d6",
    ];
    let mut out = Vec::new();
    for (i, play) in lines.iter().enumerate() {
        out.push(format!(
            "api/explore?play={play}&top={}",
            round * 20 + i % 5 + 1
        ));
        out.push(format!(
            "api/games?play={play}&limit=7&offset={}",
            round * 3 + i
        ));
    }
    out
}

/// A disk that fills under a running server, then has room again: the server's failed
/// import is reported, and once there is room the server answers every question (the same
/// answers as the same database opened elsewhere) and takes the import, without a restart
/// (issue 31: redb fails every read after one failed write until the file is opened again).
#[test]
fn a_server_whose_disk_filled_answers_again_once_it_has_room() {
    let tmp = tempfile::tempdir().unwrap();
    let mnt = Tmpfs::mount(&tmp.path().join("mnt"), "48m");
    let db = mnt.0.join("db");
    kasparov_db(&db);
    // The same database on a disk with room: what the answers must be.
    let elsewhere = tmp.path().join("elsewhere");
    kasparov_db(&elsewhere);
    let more = shared("pgn/pgnmentor/Carlsen.pgn");
    let server = common::server::Server::start(&["--db", s(&db), "--no-engine"]);
    let ask = |path: &str| common::server::get(&format!("{}{path}", server.url));
    let before: Vec<_> = fresh_questions(0).iter().map(|q| ask(q)).collect();
    assert!(before.iter().all(|r| r.status == 200));

    // The disk filled to its last byte: an import handed to the server fails.
    let filler_path = mnt.0.join("filler");
    let mut filler = std::fs::File::create(&filler_path).unwrap();
    while std::io::Write::write_all(&mut filler, &[1u8; 64 << 10]).is_ok() {}
    let _ = std::io::Write::write_all(&mut filler, &[1u8; 1]);
    drop(filler);
    let failed = run_raw(&["import", "--db", s(&db), s(&more)]);
    assert!(!failed.status.success(), "{}", said(&failed));
    let why = said(&failed);
    assert!(
        why.contains("space") || why.contains("full"),
        "the failed import says the disk is full: {why}"
    );
    // While the disk is full, a question is answered rightly or refused: never wrongly, never
    // by a server that went away.
    let expected = common::server::Server::start(&["--db", s(&elsewhere), "--no-engine"]);
    let truth = |q: &str| common::server::get(&format!("{}{q}", expected.url));
    for q in fresh_questions(1) {
        let r = ask(&q);
        if r.status == 200 {
            assert_eq!(r.body, truth(&q).body, "{q} while the disk is full");
        } else {
            assert!(r.status >= 500, "{q}: {} {}", r.status, r.text());
        }
    }

    // Room again: every question is answered, as the same database answers elsewhere.
    std::fs::remove_file(&filler_path).unwrap();
    let questions = fresh_questions(2);
    let start = std::time::Instant::now();
    loop {
        let r = ask(&questions[0]);
        if r.status == 200 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "still {} {} {:?} after the disk had room again: {}",
            r.status,
            questions[0],
            start.elapsed(),
            r.text()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    for q in &questions {
        let r = ask(q);
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        assert_eq!(r.body, truth(q).body, "{q} once the disk had room again");
    }
    for (q, r) in fresh_questions(0).iter().zip(&before) {
        assert_eq!(ask(q).body, r.body, "{q}: the same answer as before");
    }
    drop(expected);

    // And the import goes through the same server now: the games it adds are those the
    // same import adds elsewhere.
    run_ok(&["import", "--db", s(&db), s(&more)]);
    run_ok(&["import", "--db", s(&elsewhere), s(&more)]);
    let expected = common::server::Server::start(&["--db", s(&elsewhere), "--no-engine"]);
    let truth = |q: &str| common::server::get(&format!("{}{q}", expected.url));
    for q in fresh_questions(3)
        .iter()
        .chain(&["api/databases".to_string()])
    {
        let (ours, theirs) = (ask(q), truth(q));
        assert_eq!(ours.status, 200, "{q}: {}", ours.text());
        if q.contains("databases") {
            assert_eq!(
                ours.json()["databases"][0]["games"],
                theirs.json()["databases"][0]["games"]
            );
        } else {
            assert_eq!(ours.body, theirs.body, "{q} after the import");
        }
    }
    drop(server);
    drop(mnt);
}
