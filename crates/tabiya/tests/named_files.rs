//! Files a user names that a command reads whole — a repertoire (`repertoire check|games
//! --rep`, `explore --rep`, `cards from-rep`), a repertoire a gameset follows (`gameset
//! create --where "follows FILE"`), a note (`note set --file`), a spelling file (`names
//! load-spelling`), games judged for novelties (`novelty FILE`), a Polyglot book checked
//! (`book check`): each command refuses `/dev/zero`, a FIFO, a directory, a file past its
//! bound and a file it may not read, at once, naming the file and the reason; every run is
//! watched and killed after 20 s, so that a hang fails the test instead of holding the suite.
//! Over HTTP a gameset's `follows` reads no file of the server's machine at all.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::server::{Server, get};
use common::{BIN, run_ok};
use serde_json::Value;

/// How long a command may run before it is killed and the test fails.
const WATCHDOG: Duration = Duration::from_secs(20);

/// `tabiya ARGS` with a watchdog: its success, standard error and time; killed (and the test
/// failed, saying so) if it runs past [`WATCHDOG`].
fn run_watched(args: &[String]) -> (bool, String, Duration) {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tabiya");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let outs = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
    });
    let errs = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tabiya {args:?} still running after {WATCHDOG:?}: killed (it hangs)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    let _ = outs.join();
    (status.success(), errs.join().unwrap(), elapsed)
}

/// A command reading a named file whole: its arguments around the file, the file's bound
/// (as `docs/reliability.md` states it) and the extension its file needs.
struct Reader {
    name: &'static str,
    args: fn(db: &str, file: &str) -> Vec<String>,
    bound: u64,
    bound_text: &'static str,
    what: &'static str,
    ext: &'static str,
}

/// The size in words the messages give: one decimal in the largest unit that fits.
fn size_text(bytes: u64) -> String {
    let (v, unit) = match bytes {
        b if b >= 1 << 30 => (b as f64 / (1u64 << 30) as f64, "GiB"),
        b if b >= 1 << 20 => (b as f64 / (1u64 << 20) as f64, "MiB"),
        b => (b as f64 / 1024.0, "KiB"),
    };
    format!("{v:.1} {unit}")
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn readers() -> Vec<Reader> {
    vec![
        Reader {
            name: "repertoire check",
            args: |db, f| {
                strings(&[
                    "repertoire",
                    "check",
                    "--db",
                    db,
                    "--rep",
                    f,
                    "--side",
                    "white",
                ])
            },
            bound: 64 << 20,
            bound_text: "64 MiB",
            what: "a repertoire",
            ext: ".pgn",
        },
        Reader {
            name: "repertoire games",
            args: |db, f| {
                strings(&[
                    "repertoire",
                    "games",
                    "--db",
                    db,
                    "--rep",
                    f,
                    "--side",
                    "white",
                ])
            },
            bound: 64 << 20,
            bound_text: "64 MiB",
            what: "a repertoire",
            ext: ".pgn",
        },
        Reader {
            name: "explore --rep",
            args: |db, f| strings(&["explore", "--db", db, "--rep", f]),
            bound: 64 << 20,
            bound_text: "64 MiB",
            what: "a repertoire",
            ext: ".pgn",
        },
        Reader {
            name: "cards from-rep",
            args: |db, f| strings(&["cards", "from-rep", f, "--db", db, "--side", "white"]),
            bound: 64 << 20,
            bound_text: "64 MiB",
            what: "a repertoire",
            ext: ".pgn",
        },
        Reader {
            name: "gameset create --where follows",
            args: |db, f| {
                vec![
                    "gameset".into(),
                    "create".into(),
                    "--db".into(),
                    db.into(),
                    "rep".into(),
                    "--where".into(),
                    format!("follows '{f}'"),
                ]
            },
            bound: 16 << 20,
            bound_text: "16 MiB",
            what: "a repertoire a gameset follows",
            ext: ".pgn",
        },
        Reader {
            name: "novelty",
            args: |db, f| strings(&["novelty", "--db", db, f]),
            bound: 64 << 20,
            bound_text: "64 MiB",
            what: "games judged for novelties",
            ext: ".pgn",
        },
        Reader {
            name: "note set --file",
            args: |db, f| strings(&["note", "set", "--db", db, "--play", "e2e4", "--file", f]),
            bound: 64 << 10,
            bound_text: "64 KiB",
            what: "a note",
            ext: ".md",
        },
        Reader {
            name: "names load-spelling",
            args: |db, f| strings(&["names", "load-spelling", "--db", db, f]),
            bound: 256 << 20,
            bound_text: "256 MiB",
            what: "a spelling file",
            ext: ".ssp",
        },
        Reader {
            name: "book check",
            args: |_, f| strings(&["book", "check", f]),
            bound: 4 << 30,
            bound_text: "4 GiB",
            what: "a Polyglot book checked whole",
            ext: ".bin",
        },
    ]
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A chess database of the hand-made fixture's games, in `dir`.
fn small_db(dir: &Path) -> String {
    let db = dir.join("db").display().to_string();
    run_ok(&["import", "--db", &db, &fixture("repertoire-hand-db.pgn")]);
    db
}

/// Whether this process reads a file whatever its mode says (root, or CAP_DAC_OVERRIDE):
/// then `chmod 000` stops nothing and that case cannot be made.
fn reads_anything(locked: &Path) -> bool {
    std::fs::read(locked).is_ok()
}

#[test]
fn every_command_refuses_a_device_a_fifo_a_directory_a_huge_or_an_unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let mut skipped_unreadable = false;
    for (i, r) in readers().into_iter().enumerate() {
        let files = dir.path().join(format!("files{i}"));
        std::fs::create_dir(&files).unwrap();
        let at = |stem: &str| files.join(format!("{stem}{}", r.ext));
        let refused = |file: &Path, what: &str, want: &[String]| {
            let args = (r.args)(&db, file.to_str().unwrap());
            let (ok, err, took) = run_watched(&args);
            assert!(!ok, "{}: {what} accepted: {err}", r.name);
            for w in want {
                assert!(
                    err.contains(w.as_str()),
                    "{}: {what}: {w:?} not in {err}",
                    r.name
                );
            }
            // Promptly: nothing is read of a file refused (the watchdog allows 20 s).
            assert!(
                took < Duration::from_secs(10),
                "{}: {what}: {took:?}",
                r.name
            );
        };
        // `/dev/zero` (for `book check`, which tells a book by its extension, as `zero.bin`).
        let zero = if r.ext == ".bin" {
            let link = at("zero");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            link
        } else {
            "/dev/zero".into()
        };
        refused(
            &zero,
            "/dev/zero",
            &[format!(
                "{} is a character device: only a regular file is read for {}",
                zero.display(),
                r.what
            )],
        );
        // A FIFO no one writes to: opening it for reading would wait for ever.
        let fifo = at("fifo");
        let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        refused(
            &fifo,
            "a FIFO",
            &[format!(
                "{} is a FIFO (a named pipe): only a regular file is read for {}",
                fifo.display(),
                r.what
            )],
        );
        // A directory.
        let folder = at("folder");
        std::fs::create_dir(&folder).unwrap();
        refused(
            &folder,
            "a directory",
            &[format!(
                "{} is a directory: only a regular file is read for {}",
                folder.display(),
                r.what
            )],
        );
        // A (sparse) file one byte past the bound.
        let big = at("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(r.bound + 1)
            .unwrap();
        refused(
            &big,
            "a file past the bound",
            &[format!(
                "{} is {} ({} bytes); at most {} is read for {}",
                big.display(),
                size_text(r.bound + 1),
                r.bound + 1,
                r.bound_text,
                r.what
            )],
        );
        std::fs::remove_file(&big).unwrap();
        // A file this process may not read.
        let locked = at("locked");
        std::fs::write(&locked, "1. d4 *\n").unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        if reads_anything(&locked) {
            skipped_unreadable = true;
        } else {
            refused(
                &locked,
                "an unreadable file",
                &[format!(
                    "cannot read {}: permission denied",
                    locked.display()
                )],
            );
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    if skipped_unreadable {
        eprintln!(
            "running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not stop reading, so the unreadable-file case was skipped"
        );
    }
}

/// A repertoire compressed is bounded once unpacked too: 65 MiB of spaces in a small
/// `.pgn.zst` is refused, in bounded time.
#[test]
fn a_compressed_repertoire_is_bounded_once_unpacked() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let bomb = dir.path().join("bomb.pgn.zst");
    let packed = zstd::encode_all(std::io::repeat(b' ').take(65 << 20), 3).unwrap();
    assert!(packed.len() < 1 << 20);
    std::fs::write(&bomb, packed).unwrap();
    let args = strings(&[
        "repertoire",
        "check",
        "--db",
        &db,
        "--rep",
        bomb.to_str().unwrap(),
        "--side",
        "white",
    ]);
    let (ok, err, _) = run_watched(&args);
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "{} unpacks to more than 64 MiB; at most 64 MiB is read for a repertoire",
            bomb.display()
        )),
        "{err}"
    );
}

/// The same commands on ordinary files still work: a gameset follows a repertoire named
/// relative to where the command runs, a note comes from a file.
#[test]
fn ordinary_named_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    std::fs::copy(
        fixture("repertoire-hand.pgn"),
        dir.path().join("my rep.pgn"),
    )
    .unwrap();
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "gameset",
            "create",
            "--json",
            "--db",
            &db,
            "rep",
            "--where",
            "follows 'my rep.pgn' 4",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(made["files"][0], "my rep.pgn");
    let note = dir.path().join("note.md");
    std::fs::write(&note, "Played *for* the centre.\n").unwrap();
    let out = run_ok(&[
        "note",
        "set",
        "--json",
        "--db",
        &db,
        "--play",
        "e2e4",
        "--file",
        note.to_str().unwrap(),
    ]);
    let set: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(set["note"], "Played *for* the centre.");
}

/// The server's peak resident memory, kB (`VmHWM`).
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Bytes the server has read through system calls (sockets included), if it may be known.
fn read_bytes(pid: u32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|v| v.trim().parse().ok())
}

/// `POST url` with a JSON body: `Content-Type: application/json`, and the page's grant as
/// `Authorization: Bearer` when the server gives one (`GET /api/grant`).
fn post_json(url: &str, grant: Option<&str>, body: &Value) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(WATCHDOG))
        .build()
        .into();
    let mut req = agent.post(url).header("Content-Type", "application/json");
    if let Some(g) = grant {
        req = req.header("Authorization", &format!("Bearer {g}"));
    }
    let resp = req
        .send(body.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.into_body().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn over_http_a_gameset_follows_no_file_of_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine", "--writable"]);
    let url = server.url.clone();
    let grant = {
        let g = get(&format!("{url}api/grant"));
        (g.status == 200).then(|| g.json()["grant"].as_str().unwrap().to_string())
    };
    let make = |body: Value| post_json(&format!("{url}api/gamesets"), grant.as_deref(), &body);
    // A file that exists and one that does not: the same 400, nothing of either said.
    let (s1, e1) = make(serde_json::json!({"name": "a", "where": "follows /etc/passwd"}));
    let (s2, e2) = make(serde_json::json!({"name": "b", "where": "follows /nonexistent"}));
    assert_eq!((s1, s2), (400, 400), "{e1} {e2}");
    let e1 = e1["error"].as_str().unwrap().to_string();
    let e2 = e2["error"].as_str().unwrap().to_string();
    assert_eq!(
        e1.replace("/etc/passwd", "FILE"),
        e2.replace("/nonexistent", "FILE"),
        "the answer depends on the file"
    );
    assert!(
        e1.starts_with("follows /etc/passwd: no file is read for a request over HTTP; a repertoire is sent in the request"),
        "{e1}"
    );
    // Still up, and nothing was made.
    let list = get(&format!("{url}api/gamesets"));
    assert_eq!(list.status, 200);
    assert_eq!(list.json(), serde_json::json!([]));
    // `/dev/zero` is not read either: the server neither grows nor reads.
    let pid = server.pid();
    let (peak, read) = (peak_kb(pid), read_bytes(pid));
    let (s, e) = make(serde_json::json!({"name": "z", "where": "follows /dev/zero"}));
    assert_eq!(s, 400, "{e}");
    assert!(
        peak_kb(pid) < peak + 16 * 1024,
        "{peak} kB, then {}",
        peak_kb(pid)
    );
    if let (Some(before), Some(after)) = (read, read_bytes(pid)) {
        assert!(after - before < 1 << 20, "read {} bytes", after - before);
    }
    // A criterion of a GET's `where=` never reads one either.
    let got = get(&format!("{url}api/explore?where=follows%20%2Fetc%2Fpasswd"));
    assert_eq!(got.status, 400, "{}", got.text());
    assert!(!got.text().contains("root"), "{}", got.text());
    // The repertoire sent in the request is followed and kept, by the criterion's name.
    let rep = std::fs::read_to_string(fixture("repertoire-hand.pgn")).unwrap();
    let (s, made) = make(serde_json::json!({
        "name": "qgd", "where": "follows rep.pgn 4", "repertoires": {"rep.pgn": rep}
    }));
    assert_eq!(s, 200, "{made}");
    assert_eq!(made["files"], serde_json::json!(["rep.pgn"]));
    // One the criterion does not follow is a mistake.
    let (s, e) = make(serde_json::json!({
        "name": "x", "where": "annotated", "repertoires": {"rep.pgn": "1. e4 *"}
    }));
    assert_eq!(s, 400, "{e}");
    // `tabiya gameset create` on the server's machine reads the file itself (bounded) and
    // sends its text: the server reads none, and the gameset follows it.
    let local = dir.path().join("local.pgn");
    std::fs::write(&local, "1. d4 *\n").unwrap();
    let (ok, err, _) = run_watched(&[
        "gameset".into(),
        "create".into(),
        "--db".into(),
        db.clone(),
        "local".into(),
        "--where".into(),
        format!("follows '{}'", local.display()),
    ]);
    assert!(ok, "{err}");
    let list = get(&format!("{url}api/gamesets"));
    assert_eq!(list.json().as_array().unwrap().len(), 2);
    // And a device named to it is refused by the command, before anything is sent.
    let (ok, err, _) = run_watched(&[
        "gameset".into(),
        "create".into(),
        "--db".into(),
        db.clone(),
        "zero".into(),
        "--where".into(),
        "follows /dev/zero".into(),
    ]);
    assert!(!ok);
    assert!(err.contains("/dev/zero"), "{err}");
    let list = get(&format!("{url}api/gamesets"));
    assert_eq!(list.json().as_array().unwrap().len(), 2);
}
