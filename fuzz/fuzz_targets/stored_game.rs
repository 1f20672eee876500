//! A stored game's bytes as a damaged database would hand them over: the chess decoders
//! (whole game, tags, line, replay, successors, players and extra tags), the Othello
//! record, the record unpacker.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: tabiya_fuzz::write_seeds_if_asked(false),
    |data: &[u8]| {
    tabiya_db::fuzzing::stored_game(data);
    }
);
