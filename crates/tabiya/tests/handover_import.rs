//! Imports handed over to a running `tabiya serve`: the command opens and reads every
//! input and sends bytes, the server opens no file a request names. Each hand-over is
//! compared with the same import, from the same folder with the same names, into an
//! unserved copy of the database: the same summaries (problems naming the command's paths),
//! then the same `explore --json` and `games --json`.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::server::{Server, send_with};
use common::{BIN, json, run_ok, shared};
use serde_json::Value;

/// `tabiya ARGS` run in `cwd`, its standard input from `stdin` when given.
fn tabiya_in(cwd: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let mut c = Command::new(BIN);
    c.current_dir(cwd).args(args);
    if let Some(f) = stdin {
        c.stdin(std::fs::File::open(f).unwrap());
    } else {
        c.stdin(Stdio::null());
    }
    c.output().expect("run tabiya")
}

/// An import's JSON summary without what depends on the clock or on how it was split.
fn steady(out: &Output) -> Value {
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    for k in ["seconds", "gamesPerSecond", "runsWritten", "merges"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

/// The same import into the served database and into the copy, from `cwd`: both
/// summaries, which must be equal, and whether both succeeded.
fn import_both(
    cwd: &Path,
    served: &str,
    copy: &str,
    files: &[&str],
    stdin: Option<&Path>,
) -> (Value, bool) {
    import_fed(cwd, served, copy, files, stdin, &|| None)
}

/// [`import_both`], `feed` started before each import (a FIFO's writer) and waited for.
fn import_fed(
    cwd: &Path,
    served: &str,
    copy: &str,
    files: &[&str],
    stdin: Option<&Path>,
    feed: &dyn Fn() -> Option<std::thread::JoinHandle<()>>,
) -> (Value, bool) {
    let run = |db: &str| {
        let mut args = vec!["import", "--db", db, "--json"];
        args.extend_from_slice(files);
        let writer = feed();
        let out = tabiya_in(cwd, &args, stdin);
        if let Some(w) = writer {
            w.join().unwrap();
        }
        out
    };
    let handed = run(served);
    let stderr = String::from_utf8_lossy(&handed.stderr);
    assert!(stderr.contains("the server imports"), "{stderr}");
    let local = run(copy);
    assert_eq!(handed.status.success(), local.status.success(), "{stderr}");
    let (h, l) = (steady(&handed), steady(&local));
    assert_eq!(h, l, "{files:?}: handed over, then local");
    // The last line of the command's error (an input not read whole) reads the same too.
    let last = |o: &Output| {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    };
    if !handed.status.success() {
        assert_eq!(last(&handed), last(&local));
    }
    (h, handed.status.success())
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

#[test]
fn a_served_chess_database_takes_pgn_compressed_parquet_pipes_and_damaged_files_as_a_copy_does() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    let pgn = |f: &str| shared(&format!("pgn/pgnmentor/{f}"));
    std::fs::create_dir(t.join("in")).unwrap();
    std::fs::copy(pgn("Carlsen.pgn"), t.join("in/Carlsen.pgn")).unwrap();
    let zst = |f: &str| zstd::encode_all(&std::fs::read(pgn(f)).unwrap()[..], 3).unwrap();
    std::fs::write(t.join("in/Kasparov.pgn.zst"), zst("Kasparov.pgn")).unwrap();
    // Cut half way: the games before the cut go in, the file is reported.
    let whole = zst("Morozevich.pgn");
    std::fs::write(t.join("in/cut.pgn.zst"), &whole[..whole.len() / 2]).unwrap();
    std::fs::copy(pgn("Tal.pgn"), t.join("in/Tal.pgn")).unwrap();
    // A Parquet file, as `export --format parquet` writes it.
    let fischer = t.join("fischer-db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &fischer,
        &pgn("Fischer.pgn").display().to_string(),
    ]);
    let parquet = t.join("in/fischer.parquet").display().to_string();
    run_ok(&[
        "export", "--db", &fischer, "--format", "parquet", "-o", &parquet,
    ]);

    let (served, copy) = ("served", "copy");
    for db in [served, copy] {
        let out = tabiya_in(
            t,
            &[
                "import",
                "--db",
                db,
                &pgn("Morphy.pgn").display().to_string(),
            ],
            None,
        );
        assert!(out.status.success());
    }
    let server = Server::start(&["--db", &t.join(served).display().to_string(), "--no-engine"]);

    // (a) plain PGN, (b) zstd, (c) Parquet.
    let (a, _) = import_both(t, served, copy, &["in/Carlsen.pgn"], None);
    assert!(u(&a["imported"]) > 1000, "{a}");
    assert_eq!(a["files"][0]["file"], "in/Carlsen.pgn");
    let (b, _) = import_both(t, served, copy, &["in/Kasparov.pgn.zst"], None);
    assert!(u(&b["imported"]) > 1000, "{b}");
    let (c, _) = import_both(t, served, copy, &["in/fischer.parquet"], None);
    assert!(u(&c["imported"]) > 500, "{c}");
    assert_eq!(c["files"][0]["file"], "in/fischer.parquet");
    // (d) standard input, then a FIFO: the command's own streams.
    let (d, _) = import_both(t, served, copy, &["-"], Some(&pgn("PolgarJ.pgn")));
    assert!(u(&d["imported"]) > 1000, "{d}");
    assert_eq!(d["files"][0]["file"], "<stdin>");
    let fifo = t.join("in/pipe.pgn");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let marshall = std::fs::read(pgn("Marshall.pgn")).unwrap();
    // A writer for each import (the served one's, then the copy's).
    let feed = || {
        let (fifo, bytes) = (fifo.clone(), marshall.clone());
        Some(std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            w.write_all(&bytes).unwrap();
        }))
    };
    let (p, _) = import_fed(t, served, copy, &["in/pipe.pgn"], None, &feed);
    assert!(u(&p["imported"]) > 500, "{p}");
    // (e) a file damaged part way, then a good one: the good one goes in, the damaged one
    // is reported by the command's path, and the command fails once the rest is in.
    let (e, ok) = import_both(t, served, copy, &["in/cut.pgn.zst", "in/Tal.pgn"], None);
    assert!(!ok);
    assert_eq!(e["files"][0]["file"], "in/cut.pgn.zst");
    assert_eq!(e["files"][1]["file"], "in/Tal.pgn");
    assert!(u(&e["files"][0]["imported"]) > 0, "{e}");
    assert!(u(&e["files"][1]["imported"]) > 1000, "{e}");
    let problem = e["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["game"] == 0)
        .unwrap_or_else(|| panic!("{e}"));
    assert_eq!(problem["file"], "in/cut.pgn.zst", "{e}");
    // A missing file is reported as the import here reports it, the rest goes in.
    let (m, ok) = import_both(t, served, copy, &["in/missing.pgn", "in/Tal.pgn"], None);
    assert!(!ok);
    assert_eq!(m["problems"][0]["file"], "in/missing.pgn", "{m}");

    // Nothing of the copies the server kept to read Parquet is left behind.
    let left: Vec<String> = std::fs::read_dir(t.join(served))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("handover"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    drop(server);

    // The same database either way.
    for args in [
        &["explore", "--json", "--play", "e2e4"][..],
        &["explore", "--json", "--play", "d2d4 g8f6"][..],
        &["games", "--json", "--play", "e2e4 c7c5", "--limit", "40"][..],
        &["games", "--json", "--limit", "40"][..],
    ] {
        let ask = |db: &str| {
            let mut a = args.to_vec();
            let db = t.join(db).display().to_string();
            a.extend(["--db", &db]);
            json(&a)
        };
        assert_eq!(ask(served), ask(copy), "{args:?}");
    }
}

#[test]
fn a_served_othello_database_takes_wthor_files_with_their_names_as_a_copy_does() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    let wthor = shared("wthor");
    let (served, copy) = (t.join("served"), t.join("copy"));
    let (served, copy) = (served.to_str().unwrap(), copy.to_str().unwrap());
    for db in [served, copy] {
        run_ok(&[
            "import",
            "--db",
            db,
            &wthor.join("WTH_1977.wtb").display().to_string(),
        ]);
    }
    let server = Server::start(&["--db", served, "--no-engine"]);
    // By the names given in the folder: the names files found beside them.
    let (w, _) = import_both(
        &wthor,
        served,
        copy,
        &["WTH_1978.wtb", "WTH_1979.wtb", "WTH_1980.wtb"],
        None,
    );
    assert!(u(&w["imported"]) > 100, "{w}");
    assert_eq!(w["files"][1]["file"], "WTH_1979.wtb");
    assert!(u(&w["names"]["players"]) > 1000, "{w}");
    // The names given with --jou/--trn, and a game file that is not there.
    let (n, ok) = import_both(
        &wthor,
        served,
        copy,
        &[
            "WTH_1981.wtb",
            "WTH_1801.wtb",
            "WTH_1990.wtb",
            "--jou",
            "WTHOR.JOU",
            "--trn",
            "./WTHOR.TRN",
        ],
        None,
    );
    assert!(!ok, "{n}");
    assert!(u(&n["imported"]) > 100, "{n}");
    assert!(
        n["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["file"] == "WTH_1801.wtb"),
        "{n}"
    );
    drop(server);
    for args in [
        &["explore", "--json", "--moves", "f5"][..],
        &["explore", "--json", "--moves", "f5d6c3"][..],
        &["games", "--json", "--moves", "f5d6", "--limit", "40"][..],
    ] {
        let ask = |db: &str| {
            let mut a = args.to_vec();
            a.extend(["--db", db]);
            json(&a)
        };
        assert_eq!(ask(served), ask(copy), "{args:?}");
    }
}

/// The request names no file any more: a body in the old form (a path in JSON) is refused
/// without a file opened, and the route takes the server's secret only.
#[test]
fn the_import_route_takes_bytes_with_the_secret_and_never_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db_s = db.display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db_s,
        &shared("pgn/pgnmentor/Morphy.pgn").display().to_string(),
    ]);
    let total = || json(&["games", "--json", "--db", &db_s, "--limit", "1"])["total"].clone();
    let before = total();
    let server = Server::start(&[
        "--db",
        &format!("chess={db_s}"),
        "--no-engine",
        "--writable",
    ]);
    let url = format!("{}api/admin/import", server.url);
    let serve: Value =
        serde_json::from_slice(&std::fs::read(db.join("serve.json")).unwrap()).unwrap();
    let secret = format!("Bearer {}", serve["token"].as_str().unwrap());
    let old = r#"{"db": "chess", "files": ["/etc/shadow"], "keep_duplicates": false, "batch": 0, "memory_mib": null, "max_ply": null, "jou": null, "trn": null}"#;
    let no_leak = |answer: &Value| {
        let text = answer.to_string();
        assert!(
            !text.contains("shadow")
                && !text.contains("ermission")
                && !text.contains("No such file"),
            "{text}"
        );
    };
    // The old request as it was sent: JSON is not what the route takes.
    let (status, answer) = send_with(
        "POST",
        &url,
        old,
        &[
            ("Authorization", &secret),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 415, "{answer}");
    no_leak(&answer);
    // The same bytes as a stream: not a header Tabiya's hand-over sends.
    let (status, answer) = send_with(
        "POST",
        &url,
        old,
        &[
            ("Authorization", &secret),
            ("Content-Type", "application/octet-stream"),
        ],
    );
    assert_eq!(status, 400, "{answer}");
    no_leak(&answer);
    // A header in the new frame that names files the old way: refused, nothing opened.
    let header = r#"{"db": "chess", "inputs": [], "files": ["/etc/shadow"]}"#;
    assert!(header.len() < 0x80, "its length one ASCII byte");
    let mut framed = (header.len() as u32).to_le_bytes().to_vec();
    framed.extend_from_slice(header.as_bytes());
    let framed = String::from_utf8(framed).expect("a length of ASCII bytes");
    let (status, answer) = send_with(
        "POST",
        &url,
        &framed,
        &[
            ("Authorization", &secret),
            ("Content-Type", "application/octet-stream"),
        ],
    );
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("unknown field"),
        "{answer}"
    );
    no_leak(&answer);
    // Without the secret, or with the page's grant: 401.
    let grant = common::server::get(&format!("{}api/grant", server.url)).json();
    let grant = format!("Bearer {}", grant["grant"].as_str().unwrap());
    for auth in [None, Some(grant.as_str())] {
        let mut headers = vec![("Content-Type", "application/octet-stream")];
        if let Some(a) = auth {
            headers.push(("Authorization", a));
        }
        let (status, answer) = send_with("POST", &url, &framed, &headers);
        assert_eq!(status, 401, "{auth:?}: {answer}");
    }
    // The database is as it was.
    drop(server);
    assert_eq!(total(), before);
}
