//! `children::kill_all` (what Tabiya's signal handler calls) kills and reaps every engine.
//! A test binary of its own: it kills every engine of the process.

mod common;

use common::{assert_gone, fake};
use tabiya_engine::Engine;

#[test]
fn kill_all_leaves_no_engine() {
    // The fake engine counts its starts in the file it is given: one under a temporary
    // directory, never in the source tree.
    let dir = tempfile::tempdir().unwrap();
    let (ca, cb) = (dir.path().join("a"), dir.path().join("b"));
    let a = Engine::start(&fake("good", &[ca.to_str().unwrap()])).unwrap();
    let b = Engine::start(&fake("good", &[cb.to_str().unwrap()])).unwrap();
    let (pa, pb) = (a.pid(), b.pid());
    assert!(tabiya_engine::children::running().contains(&pa));
    assert!(tabiya_engine::children::kill_all() >= 2);
    assert_gone(pa);
    assert_gone(pb);
    // The engines know they are gone.
    let mut a = a;
    let r = a.search(
        &tabiya_engine::Search {
            start: shakmaty::Chess::default(),
            moves: Vec::new(),
            mode: shakmaty::CastlingMode::Standard,
            limit: tabiya_engine::Limit::Depth(1),
            multipv: 1,
        },
        &std::sync::atomic::AtomicBool::new(false),
        |_| {},
    );
    assert!(r.is_err());
    drop((a, b));
}
