//! The in-memory part of an import: a chunk of games cut by the splitter, parsed and
//! walked by the import's own chunk parser (digests, counted positions, plies), and made
//! the index's sorted occurrences. No store.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_db::chess::cluster::{keyed_occurrences, prepare_chunk};
use tabiya_pgn::Splitter;

fuzz_target!(|data: &[u8]| {
    let mut s = Splitter::new(data);
    let mut keyed = Vec::new();
    let mut id = 0u32;
    while let Ok(Some(chunk)) = s.next_chunk() {
        prepare_chunk(&chunk, None, |g| {
            if let Ok(g) = g {
                assert_eq!(g.occs.len(), g.plies.len());
                let _ = keyed_occurrences(id, &g, &mut keyed);
            }
            id += 1;
        });
        keyed.clear();
    }
});
