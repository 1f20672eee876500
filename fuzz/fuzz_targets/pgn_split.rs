//! PGN splitter: any bytes cut into games; every span inside its chunk.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_pgn::Splitter;

fuzz_target!(|data: &[u8]| {
    // A small chunk size makes games cross chunk boundaries, as they do in large files.
    let size = 64 + usize::from(data.first().copied().unwrap_or(0)) * 16;
    let mut s = Splitter::with_chunk_size(data, size);
    let mut total = 0usize;
    while let Ok(Some(chunk)) = s.next_chunk() {
        for span in &chunk.games {
            total += chunk.game_bytes(span).len();
        }
    }
    assert!(
        total <= data.len() + 3,
        "spans hold more bytes than the input"
    );
});
