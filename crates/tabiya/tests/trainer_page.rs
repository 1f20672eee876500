//! The page's flashcard trainer in a real browser: `tests/page/test_trainer.py` drives
//! Debian's headless Chromium (through `playwright`) against a `tabiya serve --writable` of a
//! database with three cards, and a read-only server of another: the trainer opened from the
//! header, moves played on the board (right and wrong) and typed, the verdict, the arrows,
//! the note, the same-day repetition of the failed card, what the database kept, a refused
//! answer, a phone-sized screen. Every step must pass. Screenshots are left in
//! `target/tmp/trainer-screenshots/` to be looked at.

mod common;

use std::path::Path;
use std::process::Command;

use common::BIN;
use common::server::Server;

const NOW: &str = "2026-04-20T09:00:00Z";

fn cards(db: &str, args: &[&str]) {
    let out = Command::new(BIN)
        .args(["cards", "add", "--db", db])
        .args(args)
        .env("TABIYA_NOW", NOW)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_trainer_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/annotated.pgn");
    let fixture = fixture.display().to_string();
    let db = dir.path().join("cards").display().to_string();
    let other = dir.path().join("read-only").display().to_string();
    for d in [&db, &other] {
        common::run_ok(&["import", "--db", d, &fixture]);
    }
    cards(&db, &["--move", "e4", "--note", "Best by test."]);
    cards(
        &db,
        &["--play", "e4", "--move", "c5", "--note", "The Sicilian."],
    );
    cards(&db, &["--play", "e4 c5", "--move", "Nf3", "--move", "Nc3"]);
    cards(&other, &["--move", "d4"]);

    let env = [("TABIYA_NOW", NOW)];
    let writable = Server::start_with_env(
        &["--db", &format!("cards={db}"), "--no-engine", "--writable"],
        &env,
    );
    let read_only =
        Server::start_with_env(&["--db", &format!("other={other}"), "--no-engine"], &env);

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trainer-screenshots");
    let _ = std::fs::remove_dir_all(&shots);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/page/test_trainer.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&writable.url)
        .arg(&read_only.url)
        .arg(&shots)
        .output()
        .expect("python3 with playwright and Chromium (the test command installs them)");
    let report = format!(
        "{}{}\nserver: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        writable.stderr()
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains(" 0 failed"), "{report}");
    eprintln!("{report}");
}
