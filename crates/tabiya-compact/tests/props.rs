//! Property tests: random legal positions (random legal moves from the standard start and
//! from Chess960 starts) round-trip through B32 and CDB; random bytes never panic.

mod common;

use std::num::NonZeroU32;

use common::{chess960_start, random_walk};
use proptest::prelude::*;
use shakmaty::{Chess, EnPassantMode, Position};
use tabiya_compact::{decode_b32, decode_cdb, decode_cdb_setup, encode_b32, encode_cdb};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_games_round_trip(
        start in prop_oneof![Just(None), (0u32..960).prop_map(Some)],
        choices in prop::collection::vec(any::<u16>(), 0..250),
        half in 0u32..=127,
        full in 1u32..=65535,
    ) {
        let start = start.map(chess960_start).unwrap_or_default();
        for pos in random_walk(start, &choices) {
            for mode in [EnPassantMode::Legal, EnPassantMode::Always] {
                let mut setup = pos.to_setup(mode);
                setup.halfmoves = half;
                setup.fullmoves = NonZeroU32::new(full).unwrap();
                let bytes = encode_b32(&setup).unwrap();
                prop_assert_eq!(decode_b32(&bytes).unwrap(), setup);
            }
            let bytes = encode_cdb(&pos).unwrap();
            let back: Chess = decode_cdb(&bytes).unwrap();
            prop_assert_eq!(&back, &pos);
            prop_assert_eq!(back.ep_square(EnPassantMode::Legal), pos.ep_square(EnPassantMode::Legal));
        }
    }

    #[test]
    fn random_b32_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 32)) {
        if let Ok(setup) = decode_b32(&bytes) {
            // Whatever decodes re-encodes to a record that decodes to the same setup.
            let again = encode_b32(&setup).unwrap();
            prop_assert_eq!(decode_b32(&again).unwrap(), setup);
        }
    }

    #[test]
    fn random_cdb_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 24)) {
        let _ = decode_cdb_setup(&bytes);
        if let Ok(pos) = decode_cdb(&bytes) {
            prop_assert_eq!(encode_cdb(&pos).unwrap().to_vec(), bytes);
        }
    }

    #[test]
    fn sparse_cdb_bytes_never_panic(
        bitmap in prop::collection::vec(prop_oneof![Just(0u8), any::<u8>()], 8),
        codes in prop::collection::vec(any::<u8>(), 16),
    ) {
        let mut bytes = bitmap;
        bytes.extend(codes);
        let _ = decode_cdb_setup(&bytes);
        if let Ok(pos) = decode_cdb(&bytes) {
            prop_assert_eq!(encode_cdb(&pos).unwrap().to_vec(), bytes);
        }
    }
}

#[test]
fn chess960_start_518_is_standard() {
    assert_eq!(chess960_start(518), Chess::default());
}
