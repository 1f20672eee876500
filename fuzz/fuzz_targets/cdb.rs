//! CDB's 24-byte positions: any bytes decoded as a setup and as a legal position; a legal
//! position decoded is encoded again and gives the same bytes' position back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_compact::{decode_cdb, decode_cdb_setup, encode_cdb};

fuzz_target!(|data: &[u8]| {
    let _ = decode_cdb_setup(data);
    if let Ok(pos) = decode_cdb(data) {
        if let Ok(bytes) = encode_cdb(&pos) {
            assert_eq!(
                decode_cdb(&bytes).ok(),
                Some(pos),
                "re-encoded position differs"
            );
        }
    }
});
