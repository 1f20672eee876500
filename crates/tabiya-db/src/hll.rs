//! HyperLogLog: an estimate of the number of distinct positions that merges like the index
//! runs do (register-wise maximum), in 12 KB per run. Standard error ≈ 1.04/√16384 ≈ 0.8 %;
//! below about 40,000 positions linear counting makes it near exact.

use crate::codec::DecodeError;

const P: u32 = 14;
const M: usize = 1 << P;
/// Encoded size: 6 bits per register.
pub const ENCODED_LEN: usize = M * 6 / 8;

#[derive(Clone, PartialEq, Eq)]
pub struct Hll {
    regs: Vec<u8>,
}

impl Default for Hll {
    fn default() -> Self {
        Hll { regs: vec![0; M] }
    }
}

impl std::fmt::Debug for Hll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hll(≈{})", self.estimate())
    }
}

impl Hll {
    /// Adds a position key (already a well-mixed 128-bit hash).
    pub fn add(&mut self, key: u128) {
        // Use bits not used by the S prefix, mixed once more.
        let h = (key as u64) ^ ((key >> 64) as u64).rotate_left(17);
        let h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let idx = (h >> (64 - P)) as usize;
        let rest = (h << P) | (1 << (P - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        if rank > self.regs[idx] {
            self.regs[idx] = rank;
        }
    }

    pub fn merge(&mut self, other: &Hll) {
        for (a, b) in self.regs.iter_mut().zip(&other.regs) {
            *a = (*a).max(*b);
        }
    }

    pub fn estimate(&self) -> u64 {
        let m = M as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let mut sum = 0.0;
        let mut zeros = 0;
        for &r in &self.regs {
            sum += 2f64.powi(-(r as i32));
            if r == 0 {
                zeros += 1;
            }
        }
        let raw = alpha * m * m / sum;
        let est = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        est.round() as u64
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ENCODED_LEN);
        for c in self.regs.chunks(4) {
            let v = (c[0] as u32) | (c[1] as u32) << 6 | (c[2] as u32) << 12 | (c[3] as u32) << 18;
            out.extend_from_slice(&v.to_le_bytes()[..3]);
        }
        out
    }

    pub fn decode(data: &[u8]) -> Result<Hll, DecodeError> {
        if data.len() != ENCODED_LEN {
            return Err(DecodeError {
                what: "distinct-count sketch",
                offset: 0,
                cause: None,
            });
        }
        let mut regs = Vec::with_capacity(M);
        for c in data.chunks(3) {
            let v = c[0] as u32 | (c[1] as u32) << 8 | (c[2] as u32) << 16;
            for i in 0..4 {
                regs.push(((v >> (6 * i)) & 63) as u8);
            }
        }
        Ok(Hll { regs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> u128 {
        // A simple mixer standing in for Zobrist keys.
        let mut x =
            (i as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ 0x1234_5678;
        x ^= x >> 61;
        x.wrapping_mul(0xD6E8_FEB8_6659_FD93_0000_0000_0000_0001)
    }

    #[test]
    fn estimates_within_two_percent_and_merges() {
        for n in [1_000u64, 30_000, 200_000] {
            let mut h = Hll::default();
            for i in 0..n {
                h.add(key(i));
                h.add(key(i)); // duplicates do not count
            }
            let e = h.estimate() as f64;
            assert!(
                (e - n as f64).abs() / (n as f64) < 0.02,
                "n={n} estimate={e}"
            );
            assert_eq!(Hll::decode(&h.encode()).unwrap(), h);
        }
        let mut a = Hll::default();
        let mut b = Hll::default();
        for i in 0..50_000 {
            a.add(key(i));
            b.add(key(i + 25_000));
        }
        a.merge(&b);
        let e = a.estimate() as f64;
        assert!((e - 75_000.0).abs() / 75_000.0 < 0.02, "{e}");
    }
}
