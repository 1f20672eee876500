//! The rows of the `shapes` table.
//!
//! | key | value |
//! |---|---|
//! | `S`, first id (u32 BE) | a segment: one past its last id, the row bits of each kind, its pairs of each kind (varints) |
//! | `D`, first id | the segment's material codes, sorted (varint deltas) |
//! | `m` or `p`, first id, row (u32 BE) | the row's pairs sorted by fingerprint then game: their number, then per pair the fingerprint's delta and the game (from the previous game of the same fingerprint, else from the segment's first id), varints |
//!
//! A key's row is its leading `bits` bits; its fingerprint the 16 bits after them.

use tabiya_store::{ReadTx, WriteTx};

use super::keys::{MATERIAL_BIT, material_key};
use super::{ROW_ENTRIES, SHAPES};
use crate::codec::{Reader, put_varint};
use crate::{Error, Result};

/// Material rows.
pub const MATERIAL: u8 = b'm';
/// Pawn rows.
pub const PAWNS: u8 = b'p';
const SEGMENT: u8 = b'S';
const DIRECTORY: u8 = b'D';

/// One shape segment: the games it covers and how its rows are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeSegment {
    pub first: u32,
    /// One past its last game id.
    pub end: u32,
    pub material_bits: u8,
    pub pawn_bits: u8,
    /// The (key, game) pairs its rows hold, material then pawns (as its header says).
    pub pairs: [u64; 2],
}

impl ShapeSegment {
    /// The row bits of `kind` ([`MATERIAL`] or [`PAWNS`]).
    pub fn bits(&self, kind: u8) -> u8 {
        if kind == MATERIAL {
            self.material_bits
        } else {
            self.pawn_bits
        }
    }

    /// Where the pair of `key` (of `kind`) is kept: its row and its fingerprint.
    pub fn place(&self, kind: u8, key: u64) -> (u32, u16) {
        let b = self.bits(kind);
        (row_of(key, b), fingerprint(key, b))
    }
}

/// The key of a segment's entry of `kind` (a header, a directory, a square segment's).
pub(super) fn seg_key(kind: u8, first: u32) -> [u8; 5] {
    let mut k = [kind; 5];
    k[1..].copy_from_slice(&first.to_be_bytes());
    k
}

fn row_key(kind: u8, first: u32, row: u32) -> [u8; 9] {
    let mut k = [kind; 9];
    k[1..5].copy_from_slice(&first.to_be_bytes());
    k[5..].copy_from_slice(&row.to_be_bytes());
    k
}

/// Row bits for `n` pairs: rows of about [`ROW_ENTRIES`] pairs.
fn bits_for(n: usize) -> u8 {
    let rows = n.div_ceil(ROW_ENTRIES).max(1);
    (usize::BITS - (rows - 1).leading_zeros()).min(32) as u8
}

fn row_of(key: u64, bits: u8) -> u32 {
    if bits == 0 {
        0
    } else {
        (key >> (64 - bits)) as u32
    }
}

fn fingerprint(key: u64, bits: u8) -> u16 {
    ((key << bits) >> 48) as u16
}

/// Writes the shape segment of games `first..end`: `shapes` holds (entry, game) pairs (an
/// entry as [`super::GameShapes`] gives it); it is sorted in place.
pub fn write_segment(w: &WriteTx, first: u32, end: u32, shapes: &mut [(u64, u32)]) -> Result<()> {
    let mut materials: Vec<u64> = Vec::new();
    let mut pairs: [Vec<(u64, u32)>; 2] = [Vec::new(), Vec::new()];
    for &(entry, game) in shapes.iter() {
        if entry & MATERIAL_BIT != 0 {
            let code = entry & !MATERIAL_BIT;
            materials.push(code);
            pairs[0].push((material_key(code), game));
        } else {
            pairs[1].push((entry, game));
        }
    }
    materials.sort_unstable();
    materials.dedup();
    let bits = [bits_for(pairs[0].len()), bits_for(pairs[1].len())];
    let t0 = std::time::Instant::now();
    let mut bytes = [0usize; 2];
    w.with_table(SHAPES, |t| {
        for (i, kind) in [MATERIAL, PAWNS].into_iter().enumerate() {
            let b = bits[i];
            let list = &mut pairs[i];
            list.sort_unstable_by_key(|&(k, g)| (row_of(k, b), fingerprint(k, b), g));
            let mut at = 0;
            let mut value = Vec::new();
            while at < list.len() {
                let row = row_of(list[at].0, b);
                let to = at + list[at..].partition_point(|&(k, _)| row_of(k, b) == row);
                value.clear();
                put_varint(&mut value, (to - at) as u64);
                let (mut fp, mut game) = (0u16, first);
                for &(k, g) in &list[at..to] {
                    let f = fingerprint(k, b);
                    if f != fp {
                        game = first;
                    }
                    put_varint(&mut value, u64::from(f - fp));
                    put_varint(&mut value, u64::from(g - game));
                    (fp, game) = (f, g);
                }
                t.put(&row_key(kind, first, row), &value)?;
                bytes[i] += value.len();
                at = to;
            }
        }
        let mut dir = Vec::new();
        let mut last = 0;
        for &c in &materials {
            put_varint(&mut dir, c - last);
            last = c;
        }
        t.put(&seg_key(DIRECTORY, first), &dir)?;
        let mut seg = Vec::new();
        put_varint(&mut seg, u64::from(end));
        seg.extend_from_slice(&bits);
        put_varint(&mut seg, pairs[0].len() as u64);
        put_varint(&mut seg, pairs[1].len() as u64);
        t.put(&seg_key(SEGMENT, first), &seg)
    })?;
    crate::trace::trace(
        &format!(
            "shape segment of {} games: {} material pairs in {} bytes ({} bits), {} pawn pairs in {} bytes ({} bits), {} material codes",
            end - first,
            pairs[0].len(),
            bytes[0],
            bits[0],
            pairs[1].len(),
            bytes[1],
            bits[1],
            materials.len()
        ),
        t0,
    );
    Ok(())
}

/// The database's shape segments, by first id.
pub fn read_segments(read: &ReadTx) -> Result<Vec<ShapeSegment>> {
    let t = read.table(SHAPES)?;
    let mut out = Vec::new();
    let mut bad = None;
    t.scan(&[SEGMENT], Some(&[SEGMENT + 1][..]), |k, v| {
        let seg = (|| -> std::result::Result<ShapeSegment, crate::codec::DecodeError> {
            let first = <[u8; 4]>::try_from(&k[1..])
                .map_err(|_| Reader::new(k).bad("shape segment key"))?;
            let mut r = Reader::new(v);
            let end = r.varint_u32("shape segment end")?;
            let material_bits = r.u8("material row bits")?;
            let pawn_bits = r.u8("pawn row bits")?;
            let pairs = [r.varint("material pairs")?, r.varint("pawn pairs")?];
            Ok(ShapeSegment {
                first: u32::from_be_bytes(first),
                end,
                material_bits,
                pawn_bits,
                pairs,
            })
        })();
        match seg {
            Ok(s) if s.material_bits <= 32 && s.pawn_bits <= 32 && s.first <= s.end => {
                out.push(s);
                true
            }
            Ok(_) => {
                bad = Some(Error::Corrupt("a shape segment's row bits".into()));
                false
            }
            Err(e) => {
                bad = Some(e.into());
                false
            }
        }
    })?;
    match bad {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// A row's pairs decoded one at a time: (fingerprint, game), sorted by fingerprint then
/// game.
struct RowPairs<'a> {
    r: Reader<'a>,
    left: u64,
    first: u64,
    fp: u64,
    game: u64,
}

impl<'a> RowPairs<'a> {
    fn new(value: &'a [u8], first: u32) -> Result<RowPairs<'a>> {
        let mut r = Reader::new(value);
        let left = r.varint("shape row length")?;
        Ok(RowPairs {
            r,
            left,
            first: u64::from(first),
            fp: 0,
            game: u64::from(first),
        })
    }

    fn next_pair(&mut self) -> Result<Option<(u64, u64)>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let df = self.r.varint("shape fingerprint")?;
        if df != 0 {
            self.game = self.first;
        }
        self.fp = self
            .fp
            .checked_add(df)
            .ok_or_else(|| self.r.bad("shape fingerprint"))?;
        self.game = self
            .game
            .checked_add(self.r.varint("shape game")?)
            .ok_or_else(|| self.r.bad("shape game"))?;
        Ok(Some((self.fp, self.game)))
    }
}

/// The games of `seg` whose pairs of `kind` have `key`'s row and fingerprint (appended to
/// `out`, in id order within the segment).
pub fn games_of(
    read: &ReadTx,
    seg: &ShapeSegment,
    kind: u8,
    key: u64,
    out: &mut Vec<u32>,
) -> Result<()> {
    let (row, want) = seg.place(kind, key);
    let Some(value) = read.table(SHAPES)?.get(&row_key(kind, seg.first, row))? else {
        return Ok(());
    };
    let mut pairs = RowPairs::new(&value, seg.first)?;
    while let Some((fp, game)) = pairs.next_pair()? {
        if fp > u64::from(want) {
            break;
        }
        if fp == u64::from(want) {
            let g =
                u32::try_from(game).map_err(|_| Error::Corrupt("a shape row's game id".into()))?;
            out.push(g);
        }
    }
    Ok(())
}

/// A row's pairs (fingerprint, game), all of them, each game checked to lie in `seg` and
/// nothing left after the last.
fn decode_row(seg: &ShapeSegment, value: &[u8]) -> Result<Vec<(u16, u32)>> {
    let mut pairs = RowPairs::new(value, seg.first)?;
    let mut out = Vec::with_capacity(pairs.left.min(1 << 16) as usize);
    while let Some((fp, game)) = pairs.next_pair()? {
        let fp = u16::try_from(fp)
            .map_err(|_| Error::Corrupt(format!("a fingerprint past 16 bits ({fp:#x})")))?;
        if game >= u64::from(seg.end) {
            return Err(Error::Corrupt(format!(
                "game {game}, outside the segment's ids {}..{}",
                seg.first, seg.end
            )));
        }
        out.push((fp, game as u32));
    }
    if !pairs.r.is_empty() {
        return Err(Error::Corrupt(format!(
            "{} bytes after its last pair",
            pairs.r.remaining().len()
        )));
    }
    Ok(out)
}

/// Every row of `kind` of `seg`, in row order: `f(row, its pairs or why they do not
/// decode)`.
pub fn each_row(
    read: &ReadTx,
    seg: &ShapeSegment,
    kind: u8,
    mut f: impl FnMut(u32, Result<Vec<(u16, u32)>>),
) -> Result<()> {
    let prefix = seg_key(kind, seg.first);
    read.table(SHAPES)?
        .scan(&row_key(kind, seg.first, 0), None, |k, v| {
            if !k.starts_with(&prefix) {
                return false;
            }
            if let Ok(row) = <[u8; 4]>::try_from(&k[5..]) {
                f(u32::from_be_bytes(row), decode_row(seg, v));
            }
            true
        })?;
    Ok(())
}

/// The material codes of a segment's games.
pub fn material_codes(read: &ReadTx, seg: &ShapeSegment) -> Result<Vec<u64>> {
    let Some(value) = read.table(SHAPES)?.get(&seg_key(DIRECTORY, seg.first))? else {
        return Ok(Vec::new());
    };
    let mut r = Reader::new(&value);
    let mut out = Vec::new();
    let mut last = 0u64;
    while !r.remaining().is_empty() {
        last += r.varint("material code")?;
        out.push(last);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_keep_rows_small() {
        assert_eq!(bits_for(0), 0);
        assert_eq!(bits_for(ROW_ENTRIES), 0);
        assert_eq!(bits_for(ROW_ENTRIES + 1), 1);
        assert_eq!(bits_for(ROW_ENTRIES * 1024), 10);
        assert_eq!(bits_for(ROW_ENTRIES * 1024 + 1), 11);
        assert_eq!(row_of(u64::MAX, 0), 0);
        assert_eq!(row_of(u64::MAX, 3), 7);
        assert_eq!(fingerprint(0x1234_5678_0000_0000, 0), 0x1234);
        assert_eq!(fingerprint(0x1234_5678_0000_0000, 16), 0x5678);
    }
}
