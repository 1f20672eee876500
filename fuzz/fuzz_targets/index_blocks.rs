//! The index's stored blocks and rows as a damaged database would hand them over: T blocks
//! and records, S blocks, long postings, a run's directory, amendments, gameset id rows,
//! name rows.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: tabiya_fuzz::write_seeds_if_asked(true),
    |data: &[u8]| {
    tabiya_db::fuzzing::index_blocks(data);
    }
);
