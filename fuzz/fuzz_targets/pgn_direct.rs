//! PGN direct path (plain games): any game it takes, the full parser takes too, with the
//! same tags, moves and end (`ARCHITECTURE.md`: "accepts exactly the same inputs").
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_pgn::GameParser;
use tabiya_pgn::fast::parse_plain;

fuzz_target!(|data: &[u8]| {
    let Some(plain) = parse_plain(data) else {
        return;
    };
    let full = GameParser::new()
        .parse_full(data, 1)
        .expect("the direct path took a game the full parser refuses");
    assert_eq!(plain.tags, full.tags, "tags differ");
    assert_eq!(plain.moves.len(), full.moves.len(), "main lines differ");
    assert_eq!(plain.termination, full.termination, "ends differ");
});
