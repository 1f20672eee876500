//! B32 (32-byte positions): any bytes decoded; a position decoded is encoded again and gives
//! the same position back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_compact::{decode_b32, encode_b32};

fuzz_target!(|data: &[u8]| {
    if let Ok(setup) = decode_b32(data) {
        if let Ok(bytes) = encode_b32(&setup) {
            assert_eq!(
                decode_b32(&bytes).ok(),
                Some(setup),
                "re-encoded position differs"
            );
        }
    }
});
