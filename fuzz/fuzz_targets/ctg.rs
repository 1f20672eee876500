//! ChessBase CTG: `.ctg`, `.cto` and `.ctb` together (one input cut in three, see
//! `tabiya_fuzz::parts`), opened, walked, every record read, the start position probed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shakmaty::Chess;
use tabiya_books::ctg::CtgBook;

fuzz_target!(|data: &[u8]| {
    let p = tabiya_fuzz::parts(data, 3);
    let Ok(book) = CtgBook::from_bytes(p[0].to_vec(), p[1].to_vec(), p[2].to_vec()) else {
        return;
    };
    let _ = book.probe(&Chess::default());
    for r in book.records().take(4096) {
        if let Ok(r) = r {
            let _ = r.trailer();
            let _ = r.move_pairs().count();
        }
    }
    for p in book.positions().take(4096) {
        let _ = p;
    }
    let _ = book.walk();
});
