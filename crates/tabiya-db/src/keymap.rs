//! Hash maps keyed by 128-bit position keys and digests. Those keys are already uniformly
//! distributed hashes (Zobrist keys, digests), so hashing them again with SipHash (the
//! standard library's default, made to resist chosen keys) only costs time: their own bits
//! serve as the hash.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A map from 128-bit keys.
pub type KeyMap<V> = HashMap<u128, V, BuildHasherDefault<KeyHasher>>;
/// A set of 128-bit keys.
pub type KeySet = HashSet<u128, BuildHasherDefault<KeyHasher>>;

/// Folds a 128-bit key into 64 bits. Other input (never given by this crate's maps) is
/// mixed byte by byte, so the hasher stays correct for any key type.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u128(&mut self, k: u128) {
        self.0 ^= (k as u64) ^ ((k >> 64) as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_and_distinct_keys_are_kept_apart() {
        let mut m: KeyMap<u32> = KeyMap::default();
        // Keys differing only in their high half, only in their low half, and equal halves.
        let keys = [
            1u128,
            1 << 64,
            (1 << 64) | 1,
            u128::MAX,
            0,
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
        ];
        for (i, &k) in keys.iter().enumerate() {
            m.insert(k, i as u32);
        }
        assert_eq!(m.len(), keys.len());
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(m.get(&k), Some(&(i as u32)));
        }
        assert_eq!(m.get(&2), None);
    }
}
