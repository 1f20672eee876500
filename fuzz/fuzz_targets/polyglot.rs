//! Polyglot: any bytes as a book, its entries, the info and dump walks, the positions
//! reached from the start, the start probed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shakmaty::{Chess, Color};
use tabiya_books::polyglot::{PolyglotBook, PolyglotReader, dump, info, read_positions};

fuzz_target!(|data: &[u8]| {
    let _ = PolyglotBook::from_bytes("fuzz.bin", data);
    let Ok(r) = PolyglotReader::from_bytes("fuzz.bin", data.to_vec()) else {
        return;
    };
    let _ = r.iter().count();
    let _ = info(&r);
    let _ = dump(&r, Color::White);
    let _ = dump(&r, Color::Black);
    for p in read_positions(&r, &[Chess::default()]).take(4096) {
        let _ = p;
    }
    let _ = r.to_book();
});
