//! The square index: for each band of plies ([`BAND_STARTS`]), each kind of piece (White's
//! pawn … Black's king) and each square, the games whose main line had that piece there at
//! some ply of the band, as one bitmap of games per square segment (up to
//! [`SEGMENT_GAMES`] consecutive ids). A pattern that pins pieces to squares
//! (`tabiya_structure::Pattern::pinned`) can only match a game at a ply where each of them
//! stands on its square, so in a band where the game had them all: per band, the bitmaps
//! of its pins ANDed; over the bands, ORed, are its candidates, and only those are
//! replayed, each no further than the end of the last band that had them all, and the
//! pattern tested from the start of the first ([`Plies`]). Pins held at different plies of
//! one band still pass: the replay decides.
//!
//! Kept with the structure index, built after it for the games no square segment covers
//! (at the end of an import that keeps the index, and by `tabiya db structures`, which also
//! builds again the segments written before there were bands).
//!
//! | `shapes` key | value |
//! |---|---|
//! | `Q`, first id (u32 BE) | one past its last id (u32 BE), then the number of bands (u8) and each band's first ply (u16 BE), then 1 (u8) when the segment keeps its games' search lines ([`super::lines`]) |
//! | `q`, first id, piece (u8: colour × 6 + role − 1), square (u8), band (u8) | the games' bitmap: `0`, then their count and the offsets from the first id as varint deltas; or `1`, then the zstd of the bitset |
//!
//! A bitmap no game has is not written. A segment is read with the bands it was written
//! with; one written before bands (its head four bytes, its keys without the band) as one
//! band over the whole game. A segment written before search lines has none: its games are
//! replayed from their records. `tabiya db structures` builds again those not in today's
//! bands or without lines.

use shakmaty::{Chess, Color, Piece, Position, Square};
use tabiya_store::{ReadTx, WriteTx};
use tabiya_structure::piece_index;

use super::SHAPES;
use super::lines::{BLOCK_GAMES, block_key, block_keys, encode_block, line_of};
use crate::chess::stored::decode_line;
use crate::codec::{DecodeError, Reader, put_varint};
use crate::records::Records;
use crate::{Database, Error, Result};

/// Games a square segment covers at most.
pub const SEGMENT_GAMES: u32 = 65_536;

const HEAD: u8 = b'Q';
const BITMAP: u8 = b'q';

/// The first ply of each band: the opening's plies in bands of 16, the middlegame's in
/// wider ones, the rest of a game in one. A pattern's pins are mostly held for a stretch of
/// one phase (a structure, a castled king), seldom with the pieces' squares of another.
pub const BAND_STARTS: [u32; 6] = [0, 16, 32, 48, 64, 96];
/// How many bands a segment built now has.
pub const BANDS: usize = BAND_STARTS.len();

/// The band of a ply.
pub fn band_of(ply: u32) -> usize {
    BAND_STARTS.partition_point(|s| *s <= ply) - 1
}

/// The squares each piece ([`piece_index`]) stood on in each band of a game's main line.
pub type GameSquares = [[u64; 12]; BANDS];

/// One square segment: the ids it covers, the first ply of each of its bands (none:
/// written before bands, one band covers the whole game and its keys have no band), and
/// whether it keeps its games' search lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SquareSegment {
    pub first: u32,
    pub end: u32,
    pub starts: Vec<u32>,
    pub lines: bool,
}

impl SquareSegment {
    /// Whether it was written as segments are today: in today's bands, with lines.
    fn current(&self) -> bool {
        self.starts == BAND_STARTS && self.lines
    }
}

/// A segment head's bands and whether it keeps lines: no band (four bytes, written before
/// bands), or their count and first plies (the first 0, ascending, at most 16), then
/// optionally the lines' flag (1).
fn read_starts(v: &[u8]) -> Option<(Vec<u32>, bool)> {
    let (&n, rest) = match v.get(4..)? {
        [] => return Some((Vec::new(), false)),
        more => more.split_first()?,
    };
    let bands = 2 * usize::from(n);
    let lines = match rest.get(bands..)? {
        [] => false,
        [1] => true,
        _ => return None,
    };
    if n == 0 || n > 16 {
        return None;
    }
    let starts: Vec<u32> = rest[..bands]
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .collect();
    (starts[0] == 0 && starts.windows(2).all(|w| w[0] < w[1])).then_some((starts, lines))
}

/// The plies of a game at which a pattern can hold, by the square index: from the first ply
/// of the first band that had every pin to the last ply of the last such band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plies {
    pub from: u32,
    /// [`u32::MAX`]: to the end of the game.
    pub until: u32,
}

impl Plies {
    /// Every ply.
    pub const ANY: Plies = Plies {
        from: 0,
        until: u32::MAX,
    };

    /// The plies of both (and those between).
    pub fn union(self, other: Plies) -> Plies {
        Plies {
            from: self.from.min(other.from),
            until: self.until.max(other.until),
        }
    }
}

/// The candidates of a pattern in one square segment: sorted ids, and for each the plies a
/// match can be at.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pinned {
    pub ids: Vec<u32>,
    pub plies: Vec<Plies>,
}

/// What a square segment keeps of a game: the squares each piece stood on in each band of
/// its main line, and its search line (none: see [`super::lines`]).
pub type GameEntry = (GameSquares, Option<Vec<u16>>);

/// A stored game's [`GameEntry`].
pub fn game_squares(raw: &[u8]) -> std::result::Result<GameEntry, DecodeError> {
    let (start, mode, line, _) = decode_line(raw)?;
    let search_line = line_of(&start, mode, &line);
    let mut pos: Chess = start;
    let mut ever = [[0u64; 12]; BANDS];
    let mut note = |pos: &Chess, ply: u32| {
        let b = pos.board();
        let band = &mut ever[band_of(ply)];
        for color in [Color::White, Color::Black] {
            for role in shakmaty::Role::ALL {
                let p = Piece { color, role };
                band[piece_index(p)] |= b.by_piece(p).0;
            }
        }
    };
    note(&pos, 0);
    for (ply, m) in (1..).zip(&line) {
        pos.play_unchecked(*m);
        note(&pos, ply);
    }
    Ok((ever, search_line))
}

/// The keys of every bitmap of the segment starting at `first`, with or without bands: from
/// `q` and its first id up to (not including) the same with a piece byte of 255.
fn bitmap_keys(first: u32) -> (Vec<u8>, Vec<u8>) {
    let from = bitmap_key(first, 0, Square::A1, None)[..5].to_vec();
    let to = [&from[..], &[u8::MAX][..]].concat();
    (from, to)
}

/// The key of a bitmap: a segment's written before bands has none (`band` `None`).
fn bitmap_key(first: u32, piece: usize, square: Square, band: Option<usize>) -> Vec<u8> {
    let mut k = Vec::with_capacity(8);
    k.push(BITMAP);
    k.extend_from_slice(&first.to_be_bytes());
    k.push(piece as u8);
    k.push(square as u8);
    if let Some(b) = band {
        k.push(b as u8);
    }
    k
}

/// Every square segment, by first id (the table's order).
pub fn read_square_segments(read: &ReadTx) -> Result<Vec<SquareSegment>> {
    let mut out = Vec::new();
    let mut bad = None;
    read.table(SHAPES)?
        .scan(&[HEAD], Some(&[HEAD + 1]), |k, v| {
            match (<[u8; 4]>::try_from(&k[1..]), v.get(..4), read_starts(v)) {
                (Ok(first), Some(end), Some((starts, lines))) => out.push(SquareSegment {
                    first: u32::from_be_bytes(first),
                    end: u32::from_be_bytes(end.try_into().expect("four bytes")),
                    starts,
                    lines,
                }),
                _ => bad = Some(k.to_vec()),
            }
            true
        })?;
    if let Some(k) = bad {
        return Err(Error::Corrupt(format!(
            "square segment {k:?}: not two ids and its bands"
        )));
    }
    Ok(out)
}

/// The square segments that keep their games' search lines: (first id, one past the last).
pub fn line_segments(read: &ReadTx) -> Result<Vec<(u32, u32)>> {
    Ok(read_square_segments(read)?
        .into_iter()
        .filter(|s| s.lines)
        .map(|s| (s.first, s.end))
        .collect())
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

/// What decoding bitmaps keeps from one to the next: a zstd context (making one allocates
/// and clears about 100 KB: done per bitmap, it was a hundredth of a pattern search at ten
/// million games) and a buffer for the dense form.
pub struct BitmapReader {
    zstd: zstd::bulk::Decompressor<'static>,
    dense: Vec<u8>,
}

impl BitmapReader {
    pub fn new() -> Result<BitmapReader> {
        let zstd = zstd::bulk::Decompressor::new()
            .map_err(|e| Error::Corrupt(format!("a zstd context could not be made: {e}")))?;
        Ok(BitmapReader {
            zstd,
            dense: Vec::new(),
        })
    }

    /// ORs a bitmap of `n` games into the bitset `into` (bit `o` of byte `o / 8`, `n / 8`
    /// bytes rounded up).
    fn or_into(
        &mut self,
        data: &[u8],
        n: u32,
        into: &mut [u8],
    ) -> std::result::Result<(), DecodeError> {
        let len = n.div_ceil(8) as usize;
        debug_assert_eq!(into.len(), len);
        let mut r = Reader::new(data);
        match r.u8("square bitmap's form")? {
            0 => {
                let count = r.varint("square bitmap's games")?;
                let mut at = 0u64;
                for _ in 0..count {
                    at += r.varint("square bitmap's game")?;
                    if at >= u64::from(n) {
                        return Err(r.bad("square bitmap's game"));
                    }
                    into[(at / 8) as usize] |= 1 << (at % 8);
                }
                Ok(())
            }
            1 => {
                self.dense.clear();
                self.dense.reserve(len);
                self.zstd
                    .decompress_to_buffer(r.remaining(), &mut self.dense)
                    .map_err(|_| r.bad("square bitset"))?;
                if self.dense.len() != len {
                    return Err(r.bad("square bitset's length"));
                }
                into.iter_mut().zip(&self.dense).for_each(|(a, b)| *a |= b);
                Ok(())
            }
            _ => Err(r.bad("square bitmap's form")),
        }
    }
}

/// Writes the square segment of the games `first..end` (`squares`: each stored game's, by
/// id), in bands, with their search lines.
pub(crate) fn write_square_segment(
    w: &WriteTx,
    first: u32,
    end: u32,
    squares: &[(u32, GameEntry)],
) -> Result<()> {
    let n = end - first;
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); BANDS * 12 * 64];
    let mut lines: Vec<Option<Vec<u16>>> = vec![None; n as usize];
    for (id, (bands, line)) in squares {
        lines[(id - first) as usize].clone_from(line);
        for (band, ever) in bands.iter().enumerate() {
            for (piece, bb) in ever.iter().enumerate() {
                for sq in shakmaty::Bitboard(*bb) {
                    members[(piece * 64 + sq as usize) * BANDS + band].push(id - first);
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (i, m) in members.iter().enumerate() {
        if !m.is_empty() {
            let (at, band) = (i / BANDS, i % BANDS);
            let square = Square::new((at % 64) as u32);
            rows.push((
                bitmap_key(first, at / 64, square, Some(band)),
                encode_bitmap(n, m)?,
            ));
        }
    }
    let mut head = end.to_be_bytes().to_vec();
    head.push(BANDS as u8);
    for s in BAND_STARTS {
        head.extend_from_slice(&(s as u16).to_be_bytes());
    }
    head.push(1);
    w.with_table(SHAPES, |t| {
        for (k, v) in &rows {
            t.put(k, v)?;
        }
        for (block, games) in lines.chunks(BLOCK_GAMES as usize).enumerate() {
            if games.iter().any(Option::is_some) {
                t.put(&block_key(first, block as u32), &encode_block(games))?;
            }
        }
        t.put(&super::rows::seg_key(HEAD, first), &head)
    })?;
    Ok(())
}

/// The games of a segment that may match a pattern with these pins: those that had, in
/// one band, each pin's square holding one of its pieces; each with the last ply of the
/// last such band.
pub fn games_with(
    read: &ReadTx,
    seg: &SquareSegment,
    pins: &[(Square, Vec<Piece>)],
    bitmaps: &mut BitmapReader,
) -> Result<Pinned> {
    let n = seg.end - seg.first;
    if pins.is_empty() {
        let ids: Vec<u32> = (seg.first..seg.end).collect();
        let plies = vec![Plies::ANY; ids.len()];
        return Ok(Pinned { ids, plies });
    }
    let table = read.table(SHAPES)?;
    let bands: Vec<Option<usize>> = match seg.starts.len() {
        0 => vec![None],
        n => (0..n).map(Some).collect(),
    };
    // Per id offset, one bit per band that had every pin.
    let mut held = vec![0u16; n as usize];
    for &band in &bands {
        let mut all: Option<Vec<u8>> = None;
        for (square, pieces) in pins {
            let mut any = vec![0u8; n.div_ceil(8) as usize];
            for p in pieces {
                let key = bitmap_key(seg.first, piece_index(*p), *square, band);
                let read = table.get_with(&key, |data| bitmaps.or_into(data, n, &mut any))?;
                if let Some(read) = read {
                    read.map_err(|e| {
                        Error::Corrupt(format!(
                            "square segment {}: {p:?} on {square}{}: {e}",
                            seg.first,
                            band.map_or(String::new(), |b| format!(", band {b}"))
                        ))
                    })?;
                }
            }
            let acc = all.get_or_insert_with(|| vec![u8::MAX; any.len()]);
            acc.iter_mut().zip(&any).for_each(|(a, b)| *a &= b);
            if acc.iter().all(|b| *b == 0) {
                break;
            }
        }
        let all = all.expect("a pin at least");
        for (i, byte) in all.iter().enumerate() {
            let mut b = *byte;
            while b != 0 {
                let o = i * 8 + b.trailing_zeros() as usize;
                held[o] |= 1 << band.unwrap_or(0);
                b &= b - 1;
            }
        }
    }
    let mut out = Pinned::default();
    for (o, bits) in held.iter().enumerate() {
        if *bits != 0 {
            out.ids.push(seg.first + o as u32);
            let (first, last) = (
                bits.trailing_zeros() as usize,
                15 - bits.leading_zeros() as usize,
            );
            out.plies.push(Plies {
                from: seg.starts.get(first).copied().unwrap_or(0),
                until: seg.starts.get(last + 1).map_or(u32::MAX, |next| next - 1),
            });
        }
    }
    Ok(out)
}

impl Database {
    /// Builds the square index of every stored game no square segment covers, a segment
    /// of up to [`SEGMENT_GAMES`] ids per transaction (killed, it is run again to finish).
    /// With `rebuild`, the segments not in today's bands (written before bands, or with
    /// others) are removed first (one transaction) and built again with the rest. Returns
    /// the games indexed.
    pub(crate) fn build_square_index(&self, rebuild: bool) -> Result<u64> {
        if rebuild {
            let segs = read_square_segments(&self.store.read()?)?;
            let old: Vec<&SquareSegment> = segs.iter().filter(|s| !s.current()).collect();
            if !old.is_empty() {
                let w = self.store.write()?;
                w.with_table(SHAPES, |t| {
                    for s in &old {
                        let (from, to) = bitmap_keys(s.first);
                        t.remove_range(&from, &to)?;
                        let (from, to) = block_keys(s.first);
                        t.remove_range(&from, &to)?;
                        t.remove(&super::rows::seg_key(HEAD, s.first))?;
                    }
                    Ok(())
                })?;
                w.commit()?;
                self.committed();
            }
        }
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
pub(crate) fn squares_of(read: &ReadTx, from: u32, to: u32) -> Result<Vec<(u32, GameEntry)>> {
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
    use tabiya_structure::Pattern;

    /// Each game's first ply matching `pattern`, by a replay of every game (the answer the
    /// index must never lose).
    fn first_matches(db: &Database, pattern: &Pattern) -> Vec<(u32, u32)> {
        let read = db.store.read().unwrap();
        let mut out = Vec::new();
        Records::new(&read)
            .unwrap()
            .scan(|id, raw| {
                let (mut pos, _, line, _) = decode_line(raw).unwrap();
                let mut ply = 0;
                let mut line = line.into_iter();
                loop {
                    if pattern.matches(pos.board()) {
                        out.push((id, ply));
                        break;
                    }
                    let Some(m) = line.next() else { break };
                    pos.play_unchecked(m);
                    ply += 1;
                }
                Ok(true)
            })
            .unwrap();
        out
    }

    /// Every segment's candidates of `pattern`, with the plies each allows.
    fn candidates(db: &Database, pattern: &Pattern) -> Vec<(u32, Plies)> {
        let read = db.store.read().unwrap();
        let mut out = Vec::new();
        for seg in read_square_segments(&read).unwrap() {
            let p = games_with(
                &read,
                &seg,
                pattern.pinned(),
                &mut BitmapReader::new().unwrap(),
            )
            .unwrap();
            out.extend(p.ids.into_iter().zip(p.plies));
        }
        out
    }

    /// Whether every game matching `pattern` is a candidate allowed its first match's ply;
    /// how many candidates there are.
    fn all_kept(db: &Database, pattern: &Pattern, matches: &[(u32, u32)]) -> usize {
        let found = candidates(db, pattern);
        for (id, ply) in matches {
            let at = found.binary_search_by_key(id, |c| c.0);
            let Ok(at) = at else {
                panic!("{pattern}: game {id} (a match at ply {ply}) is no candidate")
            };
            let plies = found[at].1;
            assert!(
                plies.from <= *ply && *ply <= plies.until,
                "{pattern}: game {id} (ply {ply}) allowed plies {plies:?}"
            );
        }
        found.len()
    }

    /// The index of TWIC 920 keeps every game a pattern matches, allowed as far as its
    /// first match, and names fewer games than one band would; a segment written before
    /// bands still answers (every ply allowed) and is built again in bands by a rebuild.
    #[test]
    fn bands_keep_every_match_and_old_segments_are_built_again() {
        let dir = tempfile::tempdir().unwrap();
        let twic = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/pgn/twic/twic0920.pgn");
        let db = super::super::imported_with_structures(dir.path(), &[twic]);
        let patterns: Vec<Pattern> = [
            "*/*/???p????/???N????/*/*/*/*",
            "?k*/*/*/*/*/*/*/??????K?",
            "*/*/??p?????/???p????/???P????/????P???/*/*",
            "*/*/*/*/*/*/*/??????K?",
            "*/*/*/*/*/*/PPP5/*",
        ]
        .iter()
        .map(|t| Pattern::parse(t).unwrap())
        .collect();
        let matches: Vec<_> = patterns.iter().map(|p| first_matches(&db, p)).collect();
        assert!(matches.iter().all(|m| !m.is_empty()));
        let banded: Vec<usize> = patterns
            .iter()
            .zip(&matches)
            .map(|(p, m)| all_kept(&db, p, m))
            .collect();
        let read = db.store.read().unwrap();
        let segs = read_square_segments(&read).unwrap();
        assert!(!segs.is_empty() && segs.iter().all(SquareSegment::current));
        // The same games' squares written as before bands: one bitmap per piece and square.
        let w = db.store.write().unwrap();
        for seg in &segs {
            let squares = squares_of(&read, seg.first, seg.end).unwrap();
            let mut members: Vec<Vec<u32>> = vec![Vec::new(); 12 * 64];
            for (id, (bands, _)) in &squares {
                for piece in 0..12 {
                    let ever = bands.iter().fold(0, |a, b| a | b[piece]);
                    for sq in shakmaty::Bitboard(ever) {
                        members[piece * 64 + sq as usize].push(id - seg.first);
                    }
                }
            }
            w.with_table(SHAPES, |t| {
                let (from, to) = bitmap_keys(seg.first);
                t.remove_range(&from, &to)?;
                let (from, to) = block_keys(seg.first);
                t.remove_range(&from, &to)?;
                for (i, m) in members.iter().enumerate().filter(|(_, m)| !m.is_empty()) {
                    let key = bitmap_key(seg.first, i / 64, Square::new(i as u32 % 64), None);
                    t.put(&key, &encode_bitmap(seg.end - seg.first, m).unwrap())?;
                }
                t.put(
                    &super::super::rows::seg_key(HEAD, seg.first),
                    &seg.end.to_be_bytes(),
                )
            })
            .unwrap();
        }
        w.commit().unwrap();
        drop(read);
        let read = db.store.read().unwrap();
        assert!(
            read_square_segments(&read)
                .unwrap()
                .iter()
                .all(|s| s.starts.is_empty())
        );
        for (i, ((p, m), b)) in patterns.iter().zip(&matches).zip(&banded).enumerate() {
            let old = all_kept(&db, p, m);
            assert!(candidates(&db, p).iter().all(|c| c.1 == Plies::ANY));
            assert!(old >= *b, "{p}: {old} candidates in one band, {b} in bands");
            // Pieces that come to their squares and leave them (not the pawns of ply 0).
            if i < 3 {
                assert!(
                    old > *b,
                    "{p}: bands name fewer games ({b}) than one ({old})"
                );
            }
        }
        // Built again in today's bands: as first written.
        assert_eq!(db.build_square_index(false).unwrap(), 0, "all covered");
        assert!(db.build_square_index(true).unwrap() > 0);
        let read = db.store.read().unwrap();
        assert!(
            read_square_segments(&read)
                .unwrap()
                .iter()
                .all(SquareSegment::current)
        );
        for ((p, m), b) in patterns.iter().zip(&matches).zip(&banded) {
            assert_eq!(all_kept(&db, p, m), *b, "{p}");
        }
    }

    #[test]
    fn a_heads_bands_are_read_or_refused() {
        let head = |tail: &[u8]| [&[0, 0, 1, 0][..], tail].concat();
        assert_eq!(read_starts(&head(&[])), Some((vec![], false)));
        assert_eq!(
            read_starts(&head(&[2, 0, 0, 0, 16])),
            Some((vec![0, 16], false))
        );
        assert_eq!(
            read_starts(&head(&[2, 0, 0, 0, 16, 1])),
            Some((vec![0, 16], true))
        );
        // Not from ply 0, not ascending, cut short, a flag not 1, bytes after it.
        assert_eq!(read_starts(&head(&[1, 0, 5])), None);
        assert_eq!(read_starts(&head(&[2, 0, 0, 0, 0])), None);
        assert_eq!(read_starts(&head(&[2, 0, 0])), None);
        assert_eq!(read_starts(&head(&[0])), None);
        assert_eq!(read_starts(&head(&[1, 0, 0, 2])), None);
        assert_eq!(read_starts(&head(&[1, 0, 0, 1, 1])), None);
    }

    #[test]
    fn bitmaps_round_trip_in_both_forms() {
        for (n, offsets) in [
            (100u32, vec![0u32, 5, 99]),
            (65_536, (0..65_536).step_by(3).collect::<Vec<u32>>()),
            (10, vec![]),
        ] {
            let data = encode_bitmap(n, &offsets).unwrap();
            let mut bits = vec![0u8; n.div_ceil(8) as usize];
            BitmapReader::new()
                .unwrap()
                .or_into(&data, n, &mut bits)
                .unwrap();
            let back: Vec<u32> = (0..n)
                .filter(|o| bits[(o / 8) as usize] >> (o % 8) & 1 == 1)
                .collect();
            assert_eq!(back, offsets, "{n} games");
        }
        assert!(
            BitmapReader::new()
                .unwrap()
                .or_into(&[0, 1, 200, 1], 100, &mut [0; 13])
                .is_err(),
            "a game past the segment"
        );
    }
}
