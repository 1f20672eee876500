//! `tabiya train` on a real terminal: tmux runs it in a detached session (a pseudo-terminal,
//! UTF-8), keys are typed with `send-keys` and the screen read with `capture-pane` — the
//! Unicode board seen from the side to move, a wrong answer showing the right move, a right
//! one showing the card's note, `q` quitting, the same-day repetition of the failed card in a
//! second session — then the stored history and schedule are checked against SM-2 by hand.
//! tmux runs on a socket of this test's own, killed at the end.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{BIN, json, run_ok};

const NOW: &str = "2026-05-04T08:00:00Z";

/// A tmux server of this test's own (its socket in the test's temporary directory).
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-u", "-f", "/dev/null", "-S", &self.socket])
            .args(args)
            .env("LANG", "C.UTF-8")
            .output()
            .expect("tmux (the test command installs it)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts `command` in a new detached session of 100 × 60 characters.
    fn start(&self, session: &str, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "100",
            "-y",
            "60",
            command,
        ]);
        // The pane stays after the command ends, so its last screen can be read.
        self.run(&["set-option", "-t", session, "remain-on-exit", "on"]);
    }

    /// The pane's screen and scrollback.
    fn screen(&self, session: &str) -> String {
        self.run(&["capture-pane", "-p", "-J", "-S", "-500", "-t", session])
    }

    /// Types `keys` then Enter.
    fn type_line(&self, session: &str, keys: &str) {
        self.run(&["send-keys", "-t", session, "-l", keys]);
        self.run(&["send-keys", "-t", session, "Enter"]);
    }

    /// Waits until the screen shows `text` `times` times (at most 20 s).
    fn wait_for(&self, session: &str, text: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen(session);
            if s.matches(text).count() >= times {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the screen never showed {text:?} {times} times:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the command in the pane has ended (the database is closed then).
    fn wait_exit(&self, session: &str) {
        let start = Instant::now();
        while self
            .run(&["display-message", "-p", "-t", session, "#{pane_dead}"])
            .trim()
            != "1"
        {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "tabiya train did not end:\n{}",
                self.screen(session)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn training_in_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/annotated.pgn");
    run_ok(&["import", "--db", &db, &fixture.display().to_string()]);
    let add = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(["cards", "add", "--db", &db])
            .args(args)
            .env("TABIYA_NOW", NOW)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    add(&["--move", "e4"]);
    add(&[
        "--play",
        "e4",
        "--move",
        "c5",
        "--note",
        "The Sicilian: sharp.",
    ]);

    let tmux = Tmux {
        socket: dir.path().join("tmux.sock").display().to_string(),
    };
    let train = format!("env TABIYA_NOW={NOW} LANG=C.UTF-8 {BIN} train --db {db}");
    tmux.start("first", &train);

    // Card 1, White to move: White's pieces at the bottom, files a to h.
    let s = tmux.wait_for("first", "Your move:", 1);
    assert!(s.contains("2 cards due of 2."), "{s}");
    assert!(s.contains("Card 1/2 · #1 · White to move"), "{s}");
    for row in [
        "8  ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜",
        "2  ♙ ♙ ♙ ♙ ♙ ♙ ♙ ♙",
        "1  ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖",
        "   a b c d e f g h",
    ] {
        assert!(s.contains(row), "{row:?} not on the screen:\n{s}");
    }
    // A wrong answer (SAN): the right move is shown; a lapse.
    tmux.type_line("first", "Nf3");
    let s = tmux.wait_for("first", "Your move:", 2);
    assert!(
        s.contains("✗ Wrong: you played Nf3; the move is e4."),
        "{s}"
    );
    assert!(
        s.contains("A lapse: next review tomorrow (2026-05-05); asked again today (graded 1)."),
        "{s}"
    );
    // Card 2, Black to move after 1. e4: Black's pieces at the bottom, files h to a.
    assert!(
        s.contains("Card 2/2 · #2 · Black to move · after 1. e4"),
        "{s}"
    );
    for row in [
        "1  ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖",
        "4  · · · ♙ · · · ·",
        "8  ♜ ♞ ♝ ♚ ♛ ♝ ♞ ♜",
        "   h g f e d c b a",
    ] {
        assert!(s.contains(row), "{row:?} not on the screen:\n{s}");
    }
    // A right answer (UCI): the note follows; then the failed card comes back.
    tmux.type_line("first", "c7c5");
    let s = tmux.wait_for("first", "Your move:", 3);
    assert!(s.contains("✓ Right: c5."), "{s}");
    assert!(s.contains("Next review in 1 day (2026-05-05)."), "{s}");
    assert!(s.contains("Note: The Sicilian: sharp."), "{s}");
    assert!(
        s.contains("Again, until each scores 4 or more: 1 card."),
        "{s}"
    );
    // q quits: what was answered is kept.
    tmux.type_line("first", "q");
    let s = tmux.wait_for("first", "Stopped after 2 answers: 1 right, 1 wrong.", 1);
    assert!(s.contains("1 card due now of 2."), "{s}");
    tmux.wait_exit("first");

    // Kept: card 1 failed (q=1: n=0, one day, EF 2.5 − 0.54 = 1.96, asked again today),
    // card 2 right (q=4: n=1, one day, EF 2.5).
    let one = json(&["cards", "show", "1", "--json", "--db", &db]);
    assert_eq!(one["schedule"]["easiness"], 1.96);
    assert_eq!(one["schedule"]["lapses"], 1);
    assert_eq!(one["schedule"]["again"], true);
    assert_eq!(one["due"], "2026-05-05T08:00:00Z");
    let h = &one["history"][0];
    assert_eq!(
        (&h["given"], &h["uci"], &h["correct"], &h["grade"]),
        (&"Nf3".into(), &"g1f3".into(), &false.into(), &1.into())
    );
    let two = json(&["cards", "show", "2", "--json", "--db", &db]);
    assert_eq!(two["schedule"]["intervalDays"], 1);
    assert_eq!(two["schedule"]["easiness"], 2.5);
    assert_eq!(two["history"][0]["grade"], 4);

    // A second session the same day: the failed card is repeated (a drill: the schedule
    // stays), a typo is refused without a penalty, and the session ends by itself.
    tmux.start("second", &train);
    let s = tmux.wait_for("second", "Your move:", 1);
    assert!(s.contains("1 card due of 2."), "{s}");
    assert!(s.contains("Card 1/1 · #1 · White to move"), "{s}");
    tmux.type_line("second", "Ke9");
    let s = tmux.wait_for("second", "Your move:", 2);
    assert!(s.contains("\"Ke9\" is not a move"), "{s}");
    tmux.type_line("second", "e2e4");
    let s = tmux.wait_for("second", "0 cards due now of 2.", 1);
    assert!(s.contains("✓ Right: e4."), "{s}");
    assert!(
        s.contains("Repeated today: the schedule stays (next review 2026-05-05)."),
        "{s}"
    );
    assert!(s.contains("1 answer: 1 right, 0 wrong."), "{s}");
    tmux.wait_exit("second");
    let one = json(&["cards", "show", "1", "--json", "--db", &db]);
    assert_eq!(one["schedule"]["again"], false);
    assert_eq!(one["due"], "2026-05-05T08:00:00Z");
    let drill = &one["history"][1];
    assert_eq!(
        (&drill["drill"], &drill["grade"]),
        (&true.into(), &4.into())
    );
    eprintln!("{s}");
}
