//! The games of a gameset: a set of game ids, kept as a bitmap in memory and stored as
//! ranges of ids, one row per 65,536 ids (so that a change of one game rewrites one row).

use crate::codec::{Reader, put_varint};
use crate::error::DecodeError;

/// Ids per stored row.
pub const ROW_IDS: u32 = 1 << 16;

/// A set of game ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdSet {
    bits: Vec<u64>,
    len: u64,
}

impl IdSet {
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, id: u32) -> bool {
        self.bits
            .get((id / 64) as usize)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    /// Adds an id; returns whether it was new.
    pub fn insert(&mut self, id: u32) -> bool {
        let w = (id / 64) as usize;
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        let bit = 1u64 << (id % 64);
        let new = self.bits[w] & bit == 0;
        self.bits[w] |= bit;
        self.len += new as u64;
        new
    }

    /// Takes an id out; returns whether it was there.
    pub fn remove(&mut self, id: u32) -> bool {
        let w = (id / 64) as usize;
        let bit = 1u64 << (id % 64);
        let was = self.bits.get(w).is_some_and(|x| x & bit != 0);
        if was {
            self.bits[w] &= !bit;
            self.len -= 1;
        }
        was
    }

    /// The ids in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                let b = word.trailing_zeros();
                word &= word - 1;
                Some(w as u32 * 64 + b)
            })
        })
    }

    /// The ids as ranges `[first, last]`, in order.
    pub fn ranges(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        for id in self.iter() {
            match out.last_mut() {
                Some((_, last)) if *last + 1 == id => *last = id,
                _ => out.push((id, id)),
            }
        }
        out
    }

    /// The ids of one stored row (`row`: id / [`ROW_IDS`]), encoded: ranges as varints,
    /// each its start's distance from the previous range's end (from the row's start for
    /// the first) then its length minus one. `None` when the row holds no id.
    pub fn encode_row(&self, row: u32) -> Option<Vec<u8>> {
        let base = row * ROW_IDS;
        let words = (ROW_IDS / 64) as usize;
        let from = (base / 64) as usize;
        let slice = self.bits.get(from..(from + words).min(self.bits.len()))?;
        if slice.iter().all(|w| *w == 0) {
            return None;
        }
        let mut part = IdSet {
            bits: slice.to_vec(),
            len: 0,
        };
        part.len = part.bits.iter().map(|w| w.count_ones() as u64).sum();
        let mut out = Vec::new();
        let mut prev = 0u32;
        for (a, b) in part.ranges() {
            put_varint(&mut out, (a - prev) as u64);
            put_varint(&mut out, (b - a) as u64);
            prev = b + 1;
        }
        Some(out)
    }

    /// Adds the ids of a stored row.
    pub fn decode_row(&mut self, row: u32, data: &[u8]) -> Result<(), DecodeError> {
        let base = row as u64 * ROW_IDS as u64;
        let mut r = Reader::new(data);
        let mut at = 0u64;
        while !r.remaining().is_empty() {
            let start = at
                .checked_add(r.varint("range start")?)
                .ok_or_else(|| r.bad("range start"))?;
            let end = start
                .checked_add(r.varint("range length")?)
                .ok_or_else(|| r.bad("range length"))?;
            if end >= ROW_IDS as u64 {
                return Err(r.bad("range past its row"));
            }
            for id in start..=end {
                self.insert((base + id) as u32);
            }
            at = end + 1;
        }
        Ok(())
    }

    /// The rows that hold ids.
    pub fn rows(&self) -> Vec<u32> {
        let per = (ROW_IDS / 64) as usize;
        let mut out = Vec::new();
        for (i, chunk) in self.bits.chunks(per).enumerate() {
            if chunk.iter().any(|w| *w != 0) {
                out.push(i as u32);
            }
        }
        out
    }

    /// The ids in both.
    pub fn intersect(&mut self, other: &IdSet) {
        self.bits.truncate(other.bits.len());
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
        self.len = self.bits.iter().map(|w| w.count_ones() as u64).sum();
    }
}

impl FromIterator<u32> for IdSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> IdSet {
        let mut s = IdSet::default();
        for id in iter {
            s.insert(id);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_as_ranges() {
        let ids: Vec<u32> = [0, 1, 2, 5, 65535, 65536, 65537, 200_000, 200_001]
            .into_iter()
            .chain(70_000..70_100)
            .collect();
        let set: IdSet = ids.iter().copied().collect();
        assert_eq!(set.len(), ids.len() as u64);
        assert_eq!(set.rows(), vec![0, 1, 3]);
        let mut back = IdSet::default();
        for row in set.rows() {
            back.decode_row(row, &set.encode_row(row).unwrap()).unwrap();
        }
        assert_eq!(back, set);
        assert_eq!(set.encode_row(2), None);
        // Row 0: [0,2], [5,5], [65535,65535] → 0 2, 2 0, 65529 0.
        let mut want = Vec::new();
        for v in [0u64, 2, 2, 0, 65529, 0] {
            put_varint(&mut want, v);
        }
        assert_eq!(set.encode_row(0).unwrap(), want);
        assert_eq!(set.ranges()[..3], [(0, 2), (5, 5), (65535, 65537)]);
    }

    #[test]
    fn remove_and_intersect() {
        let mut a: IdSet = (0..100).collect();
        let b: IdSet = (50..200).collect();
        assert!(a.remove(10));
        assert!(!a.remove(10));
        a.intersect(&b);
        assert_eq!(a.len(), 50);
        assert_eq!(a.iter().next(), Some(50));
    }
}
