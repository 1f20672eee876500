//! A position as typed: `--fen` and `--play` (chess), an Othello line. The input is the
//! FEN, a newline, then the moves; a first byte of `o` makes it an Othello line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_service::{ChessPosition, OthelloPosition};

fuzz_target!(|data: &[u8]| {
    let Some(text) = tabiya_fuzz::text(data) else {
        return;
    };
    if let Some(line) = text.strip_prefix('o') {
        let _ = OthelloPosition::from_line(line);
        return;
    }
    let (fen, play) = match text.split_once('\n') {
        Some((f, p)) => (Some(f).filter(|f| !f.is_empty()), Some(p)),
        None => (Some(text), None),
    };
    let _ = ChessPosition::resolve(fen, play);
    let _ = ChessPosition::resolve(None, Some(text));
});
