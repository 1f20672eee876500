//! S blocks: a run's S entries, Rice-coded by key prefix with checkpoints every [`STRIDE`]
//! entries so a lookup decodes a few dozen entries, not the block.

use super::record::SEntry;
use crate::codec::{DecodeError, Reader, put_varint};

/// Bits needed for `v`.
pub(crate) fn bit_width(v: u32) -> u8 {
    (32 - v.leading_zeros()) as u8
}

/// Exact encoded size of S entries with the best Rice parameter, and that parameter.
pub(crate) fn s_block_size(entries: &[SEntry]) -> (usize, u8) {
    let Some(first) = entries.first() else {
        return (0, 0);
    };
    let (min_g, max_g) = entries.iter().fold((u32::MAX, 0), |(lo, hi), e| {
        (lo.min(e.game), hi.max(e.game))
    });
    let w = bit_width(max_g - min_g) as usize;
    let span = (entries[entries.len() - 1].prefix - first.prefix) as u64;
    let k0 = rice_guess(span, entries.len() as u64);
    let mut best = (usize::MAX, 0u8);
    for k in k0.saturating_sub(1)..=(k0 + 1).min(31) {
        let mut bits = 0usize;
        let mut last = first.prefix;
        for e in &entries[1..] {
            bits += ((e.prefix - last) >> k) as usize + 1 + k as usize;
            last = e.prefix;
        }
        bits += entries.len() * (w + 1);
        let size = bits.div_ceil(8) + checkpoint_bytes(entries.len());
        if size < best.0 {
            best = (size, k);
        }
    }
    (best.0 + S_HEADER, best.1)
}

/// Bytes of an S block's checkpoints, at most.
pub(crate) fn checkpoint_bytes(n: usize) -> usize {
    (n / STRIDE) * 8
}

/// Bytes of an S block's header, at most.
pub(crate) const S_HEADER: usize = 16;

/// The Rice parameter for a mean gap of `span / n`: about log2(mean × ln 2).
pub(crate) fn rice_guess(span: u64, n: u64) -> u8 {
    let mean = (span as f64 / n.max(1) as f64) * std::f64::consts::LN_2;
    if mean < 1.0 {
        0
    } else {
        (mean.log2().floor() as u8).min(31)
    }
}

struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    /// Appends the low `bits` bits of `v` (at most 32), least significant first.
    fn put(&mut self, v: u64, bits: u32) {
        debug_assert!(bits <= 32);
        // Fewer than 32 bits wait in the accumulator: 32 more always fit.
        self.acc |= (v & ((1u64 << bits) - 1)) << self.n;
        self.n += bits;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// Bits written so far.
    fn bit_pos(&self) -> u64 {
        self.out.len() as u64 * 8 + self.n as u64
    }

    fn unary(&mut self, q: u32) {
        for _ in 0..q / 32 {
            self.put(u32::MAX as u64, 32);
        }
        self.put((1u64 << (q % 32)) - 1, q % 32 + 1);
    }

    fn finish(mut self) -> Vec<u8> {
        let bytes = self.n.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
        self.out
    }
}

struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    acc: u64,
    n: u32,
}

impl BitReader<'_> {
    fn refill(&mut self) {
        while self.n <= 56 && self.pos < self.data.len() {
            self.acc |= (self.data[self.pos] as u64) << self.n;
            self.pos += 1;
            self.n += 8;
        }
    }

    fn get(&mut self, bits: u32) -> Option<u64> {
        if bits == 0 {
            return Some(0);
        }
        self.refill();
        if self.n < bits {
            return None;
        }
        let v = self.acc & ((1u64 << bits) - 1);
        self.acc >>= bits;
        self.n -= bits;
        Some(v)
    }

    fn unary(&mut self) -> Option<u32> {
        let mut q = 0u32;
        loop {
            self.refill();
            if self.n == 0 {
                return None;
            }
            let ones = (!self.acc).trailing_zeros().min(self.n);
            if ones < self.n {
                q += ones;
                // 63 ones and their zero fill the whole word: a shift by 64 (found by fuzzing).
                self.acc = self.acc.checked_shr(ones + 1).unwrap_or(0);
                self.n -= ones + 1;
                return Some(q);
            }
            q += ones;
            self.acc = 0;
            self.n = 0;
            if q > 1 << 26 {
                return None;
            }
        }
    }
}

/// Every this many entries an S block records where decoding may start.
const STRIDE: usize = 64;

/// Encodes S entries (sorted by prefix, then game):
/// `varint count, u32 LE first prefix, u8 k, u8 w, varint min game`, then the checkpoints —
/// `varint n`, and for the entries at indices STRIDE, 2 × STRIDE, …: `varint` prefix minus the
/// previous checkpoint's (the first prefix for the first), `varint` bit offset minus the
/// previous one's, the offset pointing at the entry's game bits — then a bit stream (LSB
/// first) with, per entry, the gap to the previous prefix Rice-coded with parameter `k`
/// (quotient in unary as ones ended by a zero, then `k` low bits; absent for the first
/// entry), the game id minus the block's smallest in `w` bits, and the `pred` bit. A lookup
/// decodes from the checkpoint before the prefix it wants: at most about STRIDE entries.
pub fn encode_s_block(entries: &[SEntry]) -> Vec<u8> {
    let (_, k) = s_block_size(entries);
    let mut out = Vec::new();
    put_varint(&mut out, entries.len() as u64);
    let Some(first) = entries.first() else {
        return out;
    };
    let (min_g, max_g) = entries.iter().fold((u32::MAX, 0), |(lo, hi), e| {
        (lo.min(e.game), hi.max(e.game))
    });
    let w = bit_width(max_g - min_g);
    out.extend_from_slice(&first.prefix.to_le_bytes());
    out.push(k);
    out.push(w);
    put_varint(&mut out, min_g as u64);
    let mut bw = BitWriter {
        out: Vec::with_capacity(entries.len() * 4),
        acc: 0,
        n: 0,
    };
    let mut checkpoints: Vec<(u32, u64)> = Vec::new();
    let mut last = first.prefix;
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            let gap = e.prefix - last;
            bw.unary(gap >> k);
            bw.put(
                (gap & ((1u64 << k) as u32).wrapping_sub(1)) as u64,
                k as u32,
            );
            last = e.prefix;
        }
        if i > 0 && i % STRIDE == 0 {
            checkpoints.push((e.prefix, bw.bit_pos()));
        }
        bw.put((e.game - min_g) as u64, w as u32);
        bw.put(e.pred as u64, 1);
    }
    put_varint(&mut out, checkpoints.len() as u64);
    let (mut lp, mut lo) = (first.prefix, 0u64);
    for (p, o) in checkpoints {
        put_varint(&mut out, (p - lp) as u64);
        put_varint(&mut out, o - lo);
        (lp, lo) = (p, o);
    }
    out.extend_from_slice(&bw.finish());
    out
}

/// The parsed head of an S block.
struct SHead<'a> {
    n: u64,
    first: u32,
    k: u32,
    w: u32,
    min_g: u32,
    checkpoints: Vec<(u32, u64)>,
    bits: &'a [u8],
}

fn s_head(block: &[u8]) -> Result<Option<SHead<'_>>, DecodeError> {
    let mut r = Reader::new(block);
    let n = r.varint("block count")?;
    if n == 0 {
        return Ok(None);
    }
    let first = u32::from_le_bytes(r.array::<4>("first prefix")?);
    let k = r.u8("rice parameter")? as u32;
    let w = r.u8("game width")? as u32;
    let min_g = r.varint_u32("first game")?;
    if k > 31 || w > 32 {
        return Err(DecodeError {
            what: "block header",
            offset: r.pos(),
            cause: None,
        });
    }
    let c = r.varint("checkpoint count")?;
    // Each checkpoint takes two bytes at least: a count past that is damage, not a reason
    // to reserve memory for it.
    if c > n || c > r.remaining().len() as u64 / 2 {
        return Err(DecodeError {
            what: "checkpoint count",
            offset: r.pos(),
            cause: None,
        });
    }
    let mut checkpoints = Vec::with_capacity(c as usize);
    let (mut p, mut o) = (first, 0u64);
    for _ in 0..c {
        p = p
            .checked_add(r.varint_u32("checkpoint prefix")?)
            .ok_or(DecodeError {
                what: "checkpoint prefix",
                offset: r.pos(),
                cause: None,
            })?;
        o = o
            .checked_add(r.varint("checkpoint offset")?)
            .ok_or(DecodeError {
                what: "checkpoint offset",
                offset: r.pos(),
                cause: None,
            })?;
        checkpoints.push((p, o));
    }
    Ok(Some(SHead {
        n,
        first,
        k,
        w,
        min_g,
        checkpoints,
        bits: r.remaining(),
    }))
}

/// Decodes S entries from entry `index` (whose prefix is `prefix` and whose game bits start
/// at bit `bit`) while `keep` accepts their prefix.
fn decode_s_from(
    h: &SHead<'_>,
    index: u64,
    prefix: u32,
    bit: u64,
    mut keep: impl FnMut(u32) -> bool,
    out: &mut Vec<SEntry>,
) -> Result<(), DecodeError> {
    let bad = |what: &'static str| DecodeError {
        what,
        offset: (bit / 8) as usize,
        cause: None,
    };
    let byte = (bit / 8) as usize;
    if byte > h.bits.len() {
        return Err(bad("checkpoint offset"));
    }
    let mut br = BitReader {
        data: &h.bits[byte..],
        pos: 0,
        acc: 0,
        n: 0,
    };
    br.get((bit % 8) as u32)
        .ok_or_else(|| bad("checkpoint offset"))?;
    let mut prefix = prefix;
    for i in index..h.n {
        if i > index {
            let q = br.unary().ok_or_else(|| bad("prefix gap"))?;
            let low = br.get(h.k).ok_or_else(|| bad("prefix gap"))? as u32;
            let gap = (q as u64) << h.k | low as u64;
            prefix = u32::try_from(prefix as u64 + gap).map_err(|_| bad("prefix gap"))?;
        }
        if !keep(prefix) {
            break;
        }
        let g = br.get(h.w).ok_or_else(|| bad("game"))? as u32;
        let game = h.min_g.checked_add(g).ok_or_else(|| bad("game"))?;
        let pred = br.get(1).ok_or_else(|| bad("pred flag"))? == 1;
        out.push(SEntry { prefix, game, pred });
    }
    Ok(())
}

/// Decodes an S block (see [`encode_s_block`]).
pub fn decode_s_block(block: &[u8]) -> Result<Vec<SEntry>, DecodeError> {
    let Some(h) = s_head(block)? else {
        return Ok(Vec::new());
    };
    let mut v = Vec::with_capacity(h.n.min(1 << 16) as usize);
    decode_s_from(&h, 0, h.first, 0, |_| true, &mut v)?;
    if v.len() as u64 != h.n {
        return Err(DecodeError {
            what: "block count",
            offset: 0,
            cause: None,
        });
    }
    Ok(v)
}

/// Entries of an S block with the given prefix, decoding only from the checkpoint before it.
pub fn find_in_s_block(block: &[u8], want: u32) -> Result<Vec<SEntry>, DecodeError> {
    let Some(h) = s_head(block)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    if want < h.first {
        return Ok(out);
    }
    // The last checkpoint strictly before `want`: entries equal to `want` may start before a
    // checkpoint that has it.
    let c = h.checkpoints.partition_point(|&(p, _)| p < want);
    let (index, prefix, bit) = if c == 0 {
        (0, h.first, 0)
    } else {
        let (p, o) = h.checkpoints[c - 1];
        (c as u64 * STRIDE as u64, p, o)
    };
    decode_s_from(&h, index, prefix, bit, |p| p <= want, &mut out)?;
    out.retain(|e| e.prefix == want);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`fuzz/`, target `index_blocks`): an S block's header claiming about
    /// 3.1 billion checkpoints made the decoder reserve 50 GB for them. Read by hand: the
    /// entry count (a varint, 8 bytes), the first prefix (4), k 0, width 0, the first game
    /// 7, then the checkpoint count 97 97 97 ce 0b (3,116,747,671) with 7 bytes left.
    #[test]
    fn checkpoint_count_past_the_block_is_an_error() {
        let block = [
            0xff, 0xff, 0x97, 0x97, 0x97, 0x97, 0x97, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x07, 0x97, 0x97, 0x97, 0xce, 0x0b, 0x6b, 0xdf, 0xac, 0x00, 0x00, 0x00, 0x11,
        ];
        let e = decode_s_block(&block).unwrap_err();
        assert_eq!((e.what, e.offset), ("checkpoint count", 20));
        let e = find_in_s_block(&block, 0).unwrap_err();
        assert_eq!(e.what, "checkpoint count");
    }

    /// Found by fuzzing (`index_blocks`): a unary code of 63 ones and its zero filling a
    /// whole 64-bit word shifted by 64 (a panic with overflow checks; without them the
    /// shift did nothing and the next codes were read from the wrong bits).
    #[test]
    fn unary_code_filling_the_word() {
        let mut data = vec![0xff; 7];
        data.extend([0x7f, 0b101]);
        let mut br = BitReader {
            data: &data,
            pos: 0,
            acc: 0,
            n: 0,
        };
        assert_eq!(br.unary(), Some(63));
        // The next byte, 0b101, read from its first bit: 1, 0, 1.
        assert_eq!(br.get(1), Some(1));
        assert_eq!(br.get(2), Some(0b10));
    }
}
