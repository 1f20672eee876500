//! PGN parser: one game's bytes through the full parser (every move checked), the import's
//! parser (direct path first) and the tags-only reader.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_pgn::{GameParser, read_tags, write_game};

fuzz_target!(|data: &[u8]| {
    let mut p = GameParser::new();
    if let Ok(g) = p.parse_full(data, 1) {
        let mut out = String::new();
        write_game(&g, &mut out);
    }
    let _ = p.parse(data, 1);
    let _ = read_tags(data);
});
