//! Ctrl-C during `tabiya import`: the games read whole are committed, the command says how
//! many and how to finish, and exits 130; the same games imported again finish the job, the
//! kept ones skipped as duplicates. The input is standard input that never ends on its own
//! (TWIC 920 written again and again, each time in other rounds), so only the signal ends it.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use common::{BIN, json, shared};

const TWIC: &str = "pgn/twic/twic0920.pgn";

/// TWIC's games as repetition `k`: the same games in other rounds (not duplicates).
fn repetition(text: &str, k: usize) -> String {
    text.replace("[Round \"", &format!("[Round \"rep{k} "))
}

#[test]
fn ctrl_c_keeps_the_games_read_and_says_how_to_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    let text = std::fs::read_to_string(shared(TWIC)).unwrap();
    let per = text.matches("[Event ").count();
    let mut child = Command::new(BIN)
        .args(["import", "--db", d, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (enough, wait) = mpsc::channel();
    let source = text.clone();
    // Writes repetitions until the import stops reading; returns how many were begun.
    let writer = std::thread::spawn(move || {
        for k in 0..2000 {
            if k == 3 {
                let _ = enough.send(());
            }
            if stdin.write_all(repetition(&source, k).as_bytes()).is_err() {
                return k + 1;
            }
        }
        2000
    });
    wait.recv().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    let begun = writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let kept: u64 = stderr
        .split("interrupted: ")
        .nth(1)
        .and_then(|s| {
            s.split(" games kept; run the same command again to finish")
                .next()
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("says what it kept: {stderr}"));
    assert!(kept > 0, "games read before the signal: {kept}");
    assert!(kept < (begun * per) as u64);
    assert!(
        stderr.contains("stopping: keeping the games read so far"),
        "{stderr}"
    );
    let stats = json(&["stats", "--db", d, "--json"]);
    assert_eq!(
        stats["games"].as_u64(),
        Some(kept),
        "what it said it kept is stored"
    );

    // The same games again (every repetition begun, whole): the kept ones are duplicates.
    let again = tmp.path().join("again.pgn");
    let all: String = (0..begun).map(|k| repetition(&text, k)).collect();
    std::fs::write(&again, all).unwrap();
    let r = json(&["import", "--db", d, again.to_str().unwrap(), "--json"]);
    assert_eq!(r["interrupted"], serde_json::json!(false));
    assert_eq!(r["duplicates"].as_u64(), Some(kept));
    assert_eq!(r["databaseGames"].as_u64(), Some((begun * per) as u64));
}

/// On a terminal (`script` gives the import one), a file of known size shows how far the
/// import is through it and the time left; piped, nothing is drawn.
#[test]
fn a_terminal_sees_the_share_read_and_the_time_left() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let file = shared(TWIC);
    let command = format!("{BIN} import --db {} {}", db.display(), file.display());
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .output()
        .expect("script (util-linux) gives the import a terminal");
    assert!(out.status.success());
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(seen.contains("[1/1] twic0920.pgn"), "{seen}");
    assert!(seen.contains("% "), "a percentage: {seen}");
    assert!(seen.contains("(ETA "), "the time left: {seen}");
    let piped = Command::new(BIN)
        .args(["import", "--db"])
        .arg(tmp.path().join("db2"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("ETA"));
}
