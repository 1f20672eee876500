//! The web page in a real browser: `tests/page/test_page.py` drives Debian's headless
//! Chromium (through the Python package `playwright`, which the test command installs)
//! against a real `tabiya serve` of the demo's games, two years of WTHOR, a Polyglot and a
//! CTG book: the board clicked, rows clicked, back button, games opened and stepped through,
//! books, filters (totals against `/api/explore`), gamesets and criteria, a player's page and
//! its Preparation (against `/api/explore` filtered to the player), Othello, a bad FEN, a phone-sized screen,
//! the statistics view, nothing cut or overlapping at 1400, 1024 and 800 px (element boxes
//! measured), and notes: one shown by the read-only server, others edited through the page on a
//! second server, started with `--writable --no-engine` on a copy of the demo's games (also the
//! server without an engine: no failed request, no console error, a neutral eval bar).
//! Every step must pass and none be skipped. Screenshots are left in
//! `target/tmp/page-screenshots/` to be looked at.
//!
//! The structure search (`view=search`) has two tests of its own, `tests/page/test_search.py`
//! against a server of Kasparov's games: a search set up on the board editor by clicking, its
//! answer against `/api/search`, a game opened at its ply; and bad searches, the server's
//! message shown (screenshots in `target/tmp/search-screenshots/`).

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

/// The structure search (`view=search`, `web/search-view.js`) against a server of Kasparov's
/// games: `tests/page/test_search.py` run with `which` (`search` or `errors`). Screenshots are
/// left in `target/tmp/search-screenshots/`.
fn structure_search_in_a_browser(which: &str) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kasparov").display().to_string();
    let pgn = shared("pgn/pgnmentor/Kasparov.pgn").display().to_string();
    run_ok(&["import", "--db", &db, &pgn]);
    let server = Server::start(&["--db", &format!("kasparov={db}"), "--no-engine"]);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("search-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for f in std::fs::read_dir(&shots).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with(which) {
            let _ = std::fs::remove_file(f.path());
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/page/test_search.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.url)
        .arg(&shots)
        .arg(which)
        .output()
        .expect("python3 with playwright and Chromium (the test command installs them)");
    let report = format!(
        "{}{}\nserver: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        server.stderr()
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains(" 0 failed, 0 skipped"), "{report}");
    eprintln!("{report}");
}

/// A pawn structure set on the board editor by clicking, searched: the count, a move row and
/// a game row against `/api/search`; a structure reached next, paging, sorting, a game opened
/// in the viewer at the ply where the search holds (its FEN the game's `fen`), the search kept
/// in the URL, a pattern and a material signature.
#[test]
fn structure_search_on_the_page() {
    structure_search_in_a_browser("search");
}

/// A bad pattern, material signature or pawn structure: the server's message shown on the
/// page; nothing to search for: the page's own message, no request.
#[test]
fn structure_search_shows_a_bad_pattern() {
    structure_search_in_a_browser("errors");
}
