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
/// position, and the statistics' counts (not their bytes on disk).
fn answers(db: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for args in [
        vec!["explore", "--json"],
        vec!["explore", "--json", "--play", "e4 c5"],
        vec!["games", "--json", "--play", "e4 c5 Nf3", "--limit", "200"],
        vec!["games", "--json", "--limit", "50", "--offset", "1000"],
        vec!["cards", "list", "--json"],
    ] {
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
        out.push(String::from_utf8_lossy(&o.stdout).to_string());
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

#[test]
fn a_damaged_file_is_named_and_never_answered_wrongly_in_silence() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    kasparov_db(&good);
    let before = answers(&good).unwrap();
    let store = std::fs::read(good.join("tabiya.redb")).unwrap();
    let bad = tmp.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let file = bad.join("tabiya.redb");
    // The header's magic number and its commit slot; then pages all over the file (B-tree
    // branch and leaf pages, the games', the index's), chosen by a seeded generator.
    let mut offsets = vec![0usize, 200];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..14 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        offsets.push(8192 + (x as usize) % (store.len() - 8192));
    }
    let mut detected = 0;
    let mut refused = 0;
    for &off in &offsets {
        let mut b = store.clone();
        b[off] ^= 0x10;
        std::fs::write(&file, &b).unwrap();
        let c = check(&bad);
        let said = said(&c);
        assert!(
            !said.contains("panicked"),
            "check panicked at offset {off}: {said}"
        );
        if !c.status.success() {
            detected += 1;
            assert!(
                said.contains(s(&file)),
                "offset {off}: check does not name the file: {said}"
            );
            assert!(said.contains("damaged"), "offset {off}: {said}");
        }
        // Queries on the damaged copy (check may have rewritten its allocator state: the
        // original damage is written again first).
        std::fs::write(&file, &b).unwrap();
        match answers(&bad) {
            Ok(a) => assert_eq!(
                a, before,
                "offset {off}: a different answer, no error (check said: {said})"
            ),
            Err(e) => assert!(
                e.contains("tabiya.redb") || e.contains("damaged"),
                "offset {off}: {e}"
            ),
        }
        // A server verifies every page before it serves: damage that the pages' checksums
        // reveal keeps it from starting, saying which file; other damage it serves as the
        // queries above answer.
        std::fs::write(&file, &b).unwrap();
        let pages_damaged = said.contains(&format!("{}: store: ", s(&file)));
        match common::server::Server::try_start(&["--db", s(&bad), "--no-engine"], &[]) {
            Ok(mut server) => {
                assert!(
                    !pages_damaged,
                    "offset {off}: served what check found damaged: {said}"
                );
                assert!(server.stop());
            }
            Err(e) => {
                assert!(!e.contains("panicked"), "offset {off}: {e}");
                assert!(e.contains(s(&file)), "offset {off}: {e}");
                refused += 1;
            }
        }
        // The magic number (offset 200 falls in whichever commit slot is not the latest
        // from one import to the next: found or harmless).
        if off == 0 {
            assert!(
                !c.status.success(),
                "the magic number's damage not found: {said}"
            );
        }
    }
    assert!(
        detected >= offsets.len() / 2,
        "only {detected} of {} flips found",
        offsets.len()
    );
    assert!(
        refused >= detected / 2,
        "the server refused {refused} of the {detected} damaged files check found"
    );
    // Truncated files.
    for len in [
        0usize,
        100,
        4096,
        store.len() / 3,
        store.len() / 2,
        store.len() - 4096,
    ] {
        std::fs::write(&file, &store[..len]).unwrap();
        let c = check(&bad);
        let said = said(&c);
        assert!(!said.contains("panicked"), "truncated to {len}: {said}");
        assert!(
            !c.status.success(),
            "truncated to {len}: check passed: {said}"
        );
        assert!(said.contains("tabiya.redb"), "truncated to {len}: {said}");
        std::fs::write(&file, &store[..len]).unwrap();
        match answers(&bad) {
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
    run_ok(&["import", "--db", s(&whole), "--batch", "2000", s(&tcec())]);
    let expected = answers(&whole).unwrap();
    let total = common::json(&["stats", "--db", s(&whole), "--json"])["games"]
        .as_u64()
        .unwrap();
    let mut moments = Moments(17);
    let mut killed = 0;
    for round in 0..8 {
        let db = tmp.path().join(format!("k{round}"));
        let ms = 100 + moments.next_ms(3000);
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
        let _ = std::fs::remove_dir_all(&done);
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
            let _ = std::fs::remove_dir_all(&db);
            copy_db(&base, &db);
            let args: Vec<&str> = p
                .iter()
                .map(|a| if *a == "DB" { s(&db) } else { a })
                .collect();
            let ms = moments.next_ms(took);
            mid += u32::from(kill_after(&args, ms));
            assert_checks(&db);
            let now = answers(&db).unwrap();
            assert!(
                now == before || now == after,
                "{p:?} killed at {ms} ms (round {round}): neither the state before nor after"
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
    let _ = std::fs::remove_dir_all(&done);
    copy_db(&base, &done);
    let t0 = std::time::Instant::now();
    run_ok(&["analyse", "--db", s(&done), "--play", "e4", "--depth", "14"]);
    let analyse_took = t0.elapsed().as_millis() as u64;
    assert_eq!(e4_eval(&done).1, Some(14));
    let (mut none, mut all) = (0, 0);
    for round in 0..6 {
        let db = tmp.path().join("k");
        let _ = std::fs::remove_dir_all(&db);
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

fn copy_db(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("tabiya.redb"), to.join("tabiya.redb")).unwrap();
}
