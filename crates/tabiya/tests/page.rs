//! The web page in a real browser: `tests/page/test_page.py` drives Debian's headless
//! Chromium (through the Python package `playwright`, which the test command installs)
//! against a real `tabiya serve` of the demo's games, two years of WTHOR, a Polyglot and a
//! CTG book: the board clicked, rows clicked, back button, games opened and stepped through,
//! books, filters (totals against `/api/explore`), gamesets and criteria, a player's page and
//! its Preparation (against `/api/explore` filtered to the player), Othello, a bad FEN, a phone-sized screen,
//! the statistics view, and notes: one shown by the read-only server, others edited through
//! the page on a second server, started with `--writable` on a copy of the demo's games.
//! Every step must pass and none be skipped. Screenshots are left in
//! `target/tmp/page-screenshots/` to be looked at.

mod common;

use std::path::Path;
use std::process::Command;

use common::server::Server;
use common::{run_ok, shared};

#[test]
fn the_page_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let chess = dir.path().join("demo").display().to_string();
    let othello = dir.path().join("othello").display().to_string();
    run_ok(&["demo", "--db", &chess, "--no-serve"]);
    // The writable server's database: the same games, no note.
    let writable = dir.path().join("writable");
    std::fs::create_dir(&writable).unwrap();
    for f in std::fs::read_dir(dir.path().join("demo")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), writable.join(f.file_name())).unwrap();
    }
    // A gameset the page offers among its filters.
    run_ok(&[
        "gameset",
        "create",
        "--db",
        &chess,
        "strong",
        "--where",
        "avgelo >= 2400",
    ]);
    // A note the read-only server shows (and does not let the page edit).
    run_ok(&[
        "note",
        "set",
        "--db",
        &chess,
        "--play",
        "e2e4",
        "**King's pawn.** Best by test.",
    ]);
    run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
        &shared("wthor/WTH_1982.wtb").display().to_string(),
    ]);
    let book = shared("polyglot/gm2001.bin").display().to_string();
    let ctg = shared("ctg/PowerPlay17-Sicilienne.ctg")
        .display()
        .to_string();
    let server = Server::start(&[
        "--db",
        &format!("demo={chess}"),
        "--db",
        &format!("othello={othello}"),
        "--book",
        &format!("gm2001={book}"),
        "--book",
        &format!("sicilienne={ctg}"),
    ]);

    let editable = Server::start(&[
        "--db",
        &format!("demo={}", writable.display()),
        "--writable",
        "--no-engine",
    ]);

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-screenshots");
    let _ = std::fs::remove_dir_all(&shots);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/page/test_page.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.url)
        .arg(&shots)
        .arg(&editable.url)
        .output()
        .expect("python3 with playwright and Chromium (the test command installs them)");
    let report = format!(
        "{}{}\nserver: {}\nwritable server: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        server.stderr(),
        editable.stderr()
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains(" 0 failed, 0 skipped"), "{report}");
    eprintln!("{report}");
}
