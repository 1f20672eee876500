//! The square index: for each kind of piece (White's pawn … Black's king) and each square,
//! the games whose main line ever had that piece there, as one bitmap of games per square
//! segment (up to [`SEGMENT_GAMES`] consecutive ids). A pattern that pins pieces to
//! squares (`tabiya_structure::Pattern::pinned`) can only match a game that had each of
//! them there at some point: the bitmaps of its pins, ANDed, are its candidates, and only
//! those are replayed. A pin held at one ply and another at another still pass (the
//! bitmaps know no time): the replay decides.
//!
//! Kept with the structure index, built after it for the games no square segment covers
//! (at the end of an import that keeps the index, and by `tabiya db structures`).
//!
//! | `shapes` key | value |
//! |---|---|
//! | `Q`, first id (u32 BE) | one past its last id (u32 BE) |
//! | `q`, first id, piece (u8: colour × 6 + role − 1), square (u8) | the games' bitmap: `0`, then their count and the offsets from the first id as varint deltas; or `1`, then the zstd of the bitset |
//!
//! A bitmap no game has is not written.

use shakmaty::{Chess, Color, Piece, Position, Square};
use tabiya_store::{ReadTx, WriteTx};

use super::SHAPES;
use crate::chess::stored::decode_line;
use crate::codec::{DecodeError, Reader, put_varint};
use crate::records::Records;
use crate::{Database, Error, Result};

/// Games a square segment covers at most.
pub const SEGMENT_GAMES: u32 = 65_536;

const HEAD: u8 = b'Q';
const BITMAP: u8 = b'q';

/// One square segment: the ids it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareSegment {
    pub first: u32,
    pub end: u32,
}

/// A piece as an index (0–11).
pub fn piece_index(p: Piece) -> usize {
    usize::from(p.color == Color::Black) * 6 + (p.role as usize - 1)
}

/// The squares each piece ([`piece_index`]) stood on in a stored game's main line.
pub fn game_squares(raw: &[u8]) -> std::result::Result<[u64; 12], DecodeError> {
    let (start, _, line, _) = decode_line(raw)?;
    let mut pos: Chess = start;
    let mut ever = [0u64; 12];
    let mut note = |pos: &Chess| {
        let b = pos.board();
        for color in [Color::White, Color::Black] {
            for role in shakmaty::Role::ALL {
                let p = Piece { color, role };
                ever[piece_index(p)] |= b.by_piece(p).0;
            }
        }
    };
    note(&pos);
    for m in &line {
        pos.play_unchecked(*m);
        note(&pos);
    }
    Ok(ever)
}

fn bitmap_key(first: u32, piece: usize, square: Square) -> [u8; 7] {
    let mut k = [BITMAP; 7];
    k[1..5].copy_from_slice(&first.to_be_bytes());
    k[5] = piece as u8;
    k[6] = square as u8;
    k
}

/// Every square segment, by first id (the table's order).
pub fn read_square_segments(read: &ReadTx) -> Result<Vec<SquareSegment>> {
    let mut out = Vec::new();
    let mut bad = None;
    read.table(SHAPES)?
        .scan(&[HEAD], Some(&[HEAD + 1]), |k, v| {
            match (<[u8; 4]>::try_from(&k[1..]), <[u8; 4]>::try_from(v)) {
                (Ok(first), Ok(end)) => out.push(SquareSegment {
                    first: u32::from_be_bytes(first),
                    end: u32::from_be_bytes(end),
                }),
                _ => bad = Some(k.to_vec()),
            }
            true
        })?;
    if let Some(k) = bad {
        return Err(Error::Corrupt(format!("square segment {k:?}: not two ids")));
    }
    Ok(out)
}

/// Encodes a bitmap of `n` games (offsets sorted): the shorter of its two forms.
fn encode_bitmap(n: u32, offsets: &[u32]) -> Result<Vec<u8>> {
    let mut sparse = vec![0u8];
    put_varint(&mut sparse, offsets.len() as u64);
    let mut last = 0;
    for &o in offsets {
        put_varint(&mut sparse, u64::from(o - last));
        last = o;
    }
    if sparse.len() < 64 {
        return Ok(sparse);
    }
    let mut bits = vec![0u8; n.div_ceil(8) as usize];
    for &o in offsets {
        bits[(o / 8) as usize] |= 1 << (o % 8);
    }
    let packed = zstd::bulk::compress(&bits, 1)
        .map_err(|e| Error::Corrupt(format!("compressing a square bitmap: {e}")))?;
    if packed.len() + 1 < sparse.len() {
        let mut dense = vec![1u8];
        dense.extend_from_slice(&packed);
        Ok(dense)
    } else {
        Ok(sparse)
    }
}

/// A bitmap of `n` games as a bitset (bit `o` of byte `o / 8`).
fn decode_bitmap(data: &[u8], n: u32) -> std::result::Result<Vec<u8>, DecodeError> {
    let len = n.div_ceil(8) as usize;
    let mut r = Reader::new(data);
    match r.u8("square bitmap's form")? {
        0 => {
            let mut bits = vec![0u8; len];
            let count = r.varint("square bitmap's games")?;
            let mut at = 0u64;
            for _ in 0..count {
                at += r.varint("square bitmap's game")?;
                if at >= u64::from(n) {
                    return Err(r.bad("square bitmap's game"));
                }
                bits[(at / 8) as usize] |= 1 << (at % 8);
            }
            Ok(bits)
        }
        1 => {
            let bits =
                zstd::bulk::decompress(r.remaining(), len).map_err(|_| r.bad("square bitset"))?;
            if bits.len() != len {
                return Err(r.bad("square bitset's length"));
            }
            Ok(bits)
        }
        _ => Err(r.bad("square bitmap's form")),
    }
}

/// Writes the square segment of the games `first..end` (`squares`: each stored game's, by
/// id).
pub(crate) fn write_square_segment(
    w: &WriteTx,
    first: u32,
    end: u32,
    squares: &[(u32, [u64; 12])],
) -> Result<()> {
    let n = end - first;
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); 12 * 64];
    for (id, ever) in squares {
        for (piece, bb) in ever.iter().enumerate() {
            for sq in shakmaty::Bitboard(*bb) {
                members[piece * 64 + sq as usize].push(id - first);
            }
        }
    }
    let mut rows = Vec::new();
    for (i, m) in members.iter().enumerate() {
        if !m.is_empty() {
            rows.push((
                bitmap_key(first, i / 64, Square::new((i % 64) as u32)),
                encode_bitmap(n, m)?,
            ));
        }
    }
    w.with_table(SHAPES, |t| {
        for (k, v) in &rows {
            t.put(k, v)?;
        }
        t.put(&super::rows::seg_key(HEAD, first), &end.to_be_bytes())
    })?;
    Ok(())
}

/// The games of a segment that had, for each pin, one of its pieces on its square (sorted
/// ids).
pub fn games_with(
    read: &ReadTx,
    seg: &SquareSegment,
    pins: &[(Square, Vec<Piece>)],
) -> Result<Vec<u32>> {
    let n = seg.end - seg.first;
    let table = read.table(SHAPES)?;
    let mut all: Option<Vec<u8>> = None;
    for (square, pieces) in pins {
        let mut any = vec![0u8; n.div_ceil(8) as usize];
        for p in pieces {
            if let Some(data) = table.get(&bitmap_key(seg.first, piece_index(*p), *square))? {
                let bits = decode_bitmap(&data, n).map_err(|e| {
                    Error::Corrupt(format!(
                        "square segment {}: {p:?} on {square}: {e}",
                        seg.first
                    ))
                })?;
                any.iter_mut().zip(&bits).for_each(|(a, b)| *a |= b);
            }
        }
        match all.as_mut() {
            None => all = Some(any),
            Some(acc) => acc.iter_mut().zip(&any).for_each(|(a, b)| *a &= b),
        }
    }
    let Some(all) = all else {
        return Ok((seg.first..seg.end).collect());
    };
    let mut out = Vec::new();
    for (i, byte) in all.iter().enumerate() {
        let mut b = *byte;
        while b != 0 {
            let bit = b.trailing_zeros();
            out.push(seg.first + i as u32 * 8 + bit);
            b &= b - 1;
        }
    }
    Ok(out)
}

impl Database {
    /// Builds the square index of every stored game no square segment covers, a segment
    /// of up to [`SEGMENT_GAMES`] ids per transaction (killed, it is run again to finish).
    /// Returns the games indexed.
    pub(crate) fn build_square_index(&self) -> Result<u64> {
        let read = self.store.read()?;
        let end = Records::new(&read)?.ids_end()?;
        let segs = read_square_segments(&read)?;
        let mut games = 0u64;
        for (a, b) in super::uncovered(segs.iter().map(|s| (s.first, s.end)), end) {
            let mut from = a;
            while from < b {
                let to = from.saturating_add(SEGMENT_GAMES).min(b);
                let squares = squares_of(&read, from, to)?;
                games += squares.len() as u64;
                let w = self.store.write()?;
                write_square_segment(&w, from, to, &squares)?;
                w.commit()?;
                self.committed();
                from = to;
            }
        }
        Ok(games)
    }
}

/// The squares of the stored games with ids in `from..to`, read on every core.
pub(crate) fn squares_of(read: &ReadTx, from: u32, to: u32) -> Result<Vec<(u32, [u64; 12])>> {
    let workers = crate::workers::for_items((to - from) as usize);
    let share = crate::workers::id_shares(from, to, workers);
    let parts = crate::workers::run(workers, "square index", |i| {
        let (a, b) = share(i);
        let mut out = Vec::new();
        if a < b {
            Records::new(read)?.scan_range(a, Some(b), |id, raw| {
                let ever =
                    game_squares(raw).map_err(|e| Error::Corrupt(format!("game {id}: {e}")))?;
                out.push((id, ever));
                Ok(true)
            })?;
        }
        Ok(out)
    })?;
    Ok(parts.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_round_trip_in_both_forms() {
        for (n, offsets) in [
            (100u32, vec![0u32, 5, 99]),
            (65_536, (0..65_536).step_by(3).collect::<Vec<u32>>()),
            (10, vec![]),
        ] {
            let data = encode_bitmap(n, &offsets).unwrap();
            let bits = decode_bitmap(&data, n).unwrap();
            let back: Vec<u32> = (0..n)
                .filter(|o| bits[(o / 8) as usize] >> (o % 8) & 1 == 1)
                .collect();
            assert_eq!(back, offsets, "{n} games");
        }
        assert!(
            decode_bitmap(&[0, 1, 200, 1], 100).is_err(),
            "a game past the segment"
        );
    }
}
