//! Kvetka: `.kob`, `.kin` and `.ksf` together (one input cut in three; an empty `.kin` or
//! `.ksf` part is absent), opened in memory, verified, dumped, read whole, the start probed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shakmaty::Chess;
use tabiya_books::kvetka::{KvetkaBook, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let p = tabiya_fuzz::parts(data, 3);
    let some = |b: &[u8]| (!b.is_empty()).then(|| b.to_vec());
    let book = KvetkaBook::from_bytes(
        p[0].to_vec(),
        some(p[1]),
        some(p[2]),
        ReadOptions::default(),
    );
    let Ok(book) = book else {
        return;
    };
    let _ = book.probe(&Chess::default());
    let _ = book.probe_detail(&Chess::default());
    let _ = book.verify();
    let _ = book.dump(&mut std::io::sink());
    let _ = book.read_positions();
});
