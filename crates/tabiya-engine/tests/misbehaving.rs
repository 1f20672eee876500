//! Engines that misbehave, one way each (`tests/fake_engine.py`): every case ends in a clear
//! error within its deadline, leaves no process behind (not even a zombie), and the pool
//! starts a new engine for the next search.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess};
mod common;

use common::{assert_gone, fake};
use tabiya_engine::{Engine, EngineConfig, EngineError, EnginePool, Limit, Search};

fn search(limit: Limit) -> Search {
    Search {
        start: Chess::default(),
        moves: Vec::new(),
        mode: CastlingMode::Standard,
        limit,
        multipv: 1,
    }
}

/// Children of this process running `fake_engine.py MODE`, with their state letter (`Z`:
/// a zombie nobody reaped).
fn leftovers(mode: &str) -> Vec<(u32, char)> {
    let me = std::process::id();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let mut f = after.split_whitespace();
        let state = f.next().and_then(|s| s.chars().next()).unwrap_or('?');
        let ppid: u32 = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        if ppid != me {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        // A zombie has no command line left: count it for every mode.
        if state == 'Z' || args.iter().any(|a| a == mode) {
            out.push((pid, state));
        }
    }
    out
}

#[test]
fn an_engine_that_never_answers_uci_times_out() {
    let began = Instant::now();
    let err = Engine::start(&fake("silent", &[])).err().expect("an error");
    assert!(matches!(err, EngineError::Handshake { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("did not answer `uci` with `uciok` within 2 s"),
        "{msg}"
    );
    assert!(began.elapsed() < Duration::from_secs(6));
    assert!(leftovers("silent").is_empty(), "{:?}", leftovers("silent"));
}

#[test]
fn an_engine_printing_garbage_is_reported_with_what_it_printed() {
    let err = Engine::start(&fake("garbage", &[]))
        .err()
        .expect("an error");
    let msg = err.to_string();
    assert!(msg.contains("Hello, I am not an engine"), "{msg}");
    assert!(leftovers("garbage").is_empty());
}

#[test]
fn a_missing_engine_names_its_path() {
    let err = Engine::start(&EngineConfig::new("/nonexistent/stockfish"))
        .err()
        .expect("an error");
    assert!(err.to_string().contains("/nonexistent/stockfish"), "{err}");
}

#[test]
fn an_engine_that_crashes_mid_search_is_reaped_and_reported() {
    let mut e = Engine::start(&fake("crash", &[])).unwrap();
    let pid = e.pid();
    let err = e
        .search(&search(Limit::Depth(5)), &AtomicBool::new(false), |_| {})
        .unwrap_err();
    assert!(matches!(err, EngineError::Exited { .. }), "{err}");
    assert!(err.to_string().contains("exit status 3"), "{err}");
    assert!(!e.is_alive());
    assert_gone(pid);
    // Asked again, it says it is dead instead of hanging.
    assert!(
        e.search(&search(Limit::Depth(5)), &AtomicBool::new(false), |_| {})
            .is_err()
    );
}

#[test]
fn an_engine_that_hangs_mid_search_is_killed() {
    let mut e = Engine::start(&fake("hang", &[])).unwrap();
    let pid = e.pid();
    let began = Instant::now();
    let err = e
        .search(&search(Limit::Depth(5)), &AtomicBool::new(false), |_| {})
        .unwrap_err();
    assert!(matches!(err, EngineError::Unresponsive { .. }), "{err}");
    assert!(
        err.to_string().contains("did not answer `isready`"),
        "{err}"
    );
    // Silence (1 s) plus the `isready` deadline (2 s), with slack for a busy machine.
    assert!(
        began.elapsed() < Duration::from_secs(8),
        "{:?}",
        began.elapsed()
    );
    assert_gone(pid);
}

#[test]
fn an_engine_that_floods_one_endless_line_is_killed() {
    let mut e = Engine::start(&fake("flood", &[])).unwrap();
    let pid = e.pid();
    let err = e
        .search(&search(Limit::Depth(5)), &AtomicBool::new(false), |_| {})
        .unwrap_err();
    assert!(matches!(err, EngineError::Unresponsive { .. }), "{err}");
    assert_gone(pid);
}

#[test]
fn an_illegal_bestmove_is_an_error() {
    let mut e = Engine::start(&fake("illegal", &[])).unwrap();
    let pid = e.pid();
    let err = e
        .search(&search(Limit::Depth(5)), &AtomicBool::new(false), |_| {})
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("bestmove e2e5") && msg.contains("rnbqkbnr/pppppppp"),
        "{msg}"
    );
    assert_gone(pid);
}

#[test]
fn an_engine_that_ignores_stop_is_killed() {
    let mut e = Engine::start(&fake("deaf", &[])).unwrap();
    let pid = e.pid();
    let cancel = AtomicBool::new(false);
    let err = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        e.search(&search(Limit::Infinite), &cancel, |_| {})
            .unwrap_err()
    });
    assert!(
        err.to_string()
            .contains("gave no bestmove within 1 s of `stop`"),
        "{err}"
    );
    assert_gone(pid);
}

#[test]
fn a_good_engine_searches_stops_and_quits() {
    let mut e = Engine::start(&fake("good", &[])).unwrap();
    assert_eq!(e.name(), "Fake good");
    assert_eq!(e.author(), "Tabiya tests");
    assert!(e.options().iter().any(|o| o.name == "MultiPV"));
    let r = e
        .search(&search(Limit::Depth(2)), &AtomicBool::new(false), |_| {})
        .unwrap();
    assert_eq!(r.bestmove.as_deref(), Some("e2e4"));
    assert_eq!(r.ponder.as_deref(), Some("e7e5"));
    assert_eq!(r.lines.len(), 1);
    assert_eq!(r.lines[0].info.pv, ["e2e4", "e7e5"]);
    assert!(!r.stopped);
    // An infinite search ends when cancelled, its result marked stopped.
    let cancel = AtomicBool::new(true);
    let r = e.search(&search(Limit::Infinite), &cancel, |_| {}).unwrap();
    assert!(r.stopped);
    assert!(e.set_option("Nonsense", "1").is_err());
    let pid = e.pid();
    drop(e);
    assert_gone(pid);
}

#[test]
fn the_pool_starts_a_new_engine_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("starts");
    let pool = EnginePool::new(fake("crash-once", &[counter.to_str().unwrap()]), 1);
    let first = pool
        .submit(search(Limit::Depth(2)), "me", false)
        .wait(|_| {});
    let err = first.unwrap_err();
    assert!(
        err.to_string().contains("starts again on the next request"),
        "{err}"
    );
    let second = pool
        .submit(search(Limit::Depth(2)), "me", false)
        .wait(|_| {});
    assert_eq!(second.unwrap().bestmove.as_deref(), Some("e2e4"));
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "2");
    drop(pool);
    assert!(leftovers(counter.to_str().unwrap()).is_empty());
}

#[test]
fn the_pool_takes_clients_in_turn() {
    let pool = EnginePool::new(fake("slow", &[]), 1);
    let order = std::sync::Mutex::new(Vec::new());
    let a: Vec<_> = (0..5)
        .map(|_| pool.submit(search(Limit::Depth(2)), "annotate", false))
        .collect();
    let b = pool.submit(search(Limit::Depth(2)), "page", false);
    std::thread::scope(|s| {
        for (i, t) in a.into_iter().enumerate() {
            let order = &order;
            s.spawn(move || {
                t.wait(|_| {}).unwrap();
                order.lock().unwrap().push(format!("a{i}"));
            });
        }
        s.spawn(|| {
            b.wait(|_| {}).unwrap();
            order.lock().unwrap().push("b".to_string());
        });
    });
    let order = order.into_inner().unwrap();
    let b_at = order.iter().position(|x| x == "b").unwrap();
    // One search of the busy client may run before the other's, at most two if the first
    // had started already.
    assert!(b_at <= 2, "{order:?}");
}

#[test]
fn a_newer_request_supersedes_an_older_one_of_the_same_client() {
    let pool = EnginePool::new(fake("good", &[]), 1);
    let old = pool.submit(search(Limit::Infinite), "page-1", true);
    // Wait until it runs.
    match old.next() {
        Some(tabiya_engine::Event::Info(_)) => {}
        other => panic!("{other:?}"),
    }
    let queued = pool.submit(search(Limit::Infinite), "page-1", false);
    let new = pool.submit(search(Limit::Depth(2)), "page-1", true);
    let old = old.wait(|_| {}).unwrap();
    assert!(old.stopped);
    assert!(queued.wait(|_| {}).unwrap_err().is_cancelled());
    assert!(!new.wait(|_| {}).unwrap().stopped);
    // Another client's search is left alone.
    let other = pool.submit(search(Limit::Infinite), "page-2", true);
    let mine = pool.submit(search(Limit::Depth(2)), "page-3", true);
    other.cancel();
    match other.wait(|_| {}) {
        Ok(r) => assert!(r.stopped),
        Err(e) => assert!(e.is_cancelled(), "{e}"),
    }
    assert!(mine.wait(|_| {}).is_ok());
}
