//! The position index: immutable sorted runs of two kinds of entries.
//!
//! A *run* is the index of a set of games (one import batch, or several batches merged).
//! Every counted position of every game of the run is in exactly one of two places:
//!
//! - a **T record** (tree): positions reached by many games (at least [`PROMOTE_AT`] in the
//!   run). Keyed by the full 128-bit position key, it holds the statistics of every move
//!   played there and the list of games (postings) with the move each played.
//! - an **S entry** (single): positions reached by few games are kept as one entry per game:
//!   the key's top 32 bits and the game id. A query replays those games and checks the full
//!   key, so a 32-bit prefix can never give a wrong answer; it only costs a replay.
//!
//! This keeps the rare positions — the long tails of games, most of the index — at about four
//! bytes each while the opening tree answers from precomputed statistics. Runs are written in
//! blocks of about 4 KB, sorted by key, with a directory of each block's first key, all inside
//! store transactions. Queries combine the answers of all runs; merging runs promotes
//! positions whose combined count reaches the threshold.

use crate::codec::{DecodeError, Reader, put_varint};
use crate::hll::Hll;
use crate::stats::{GameFacts, Stats};

/// Positions reached by at least this many games of a run get a T record.
pub const PROMOTE_AT: usize = 8;
/// Postings lists up to this length are stored inside the T record.
const INLINE_POSTINGS: usize = 64;
/// Top games kept in a T record (when it has more games than this).
pub const TOP_GAMES: usize = 8;
/// Largest encoded size of a block: with its key and the store's page header it still fits
/// one 4 KiB page (a value one byte over would take two).
const BLOCK_BYTES: usize = 3968;

pub const RUNS: &str = "runs";
pub const BLOCKS: &str = "blocks";
pub const POSTINGS: &str = "postings";
pub const SKETCHES: &str = "sketches";

/// One counted position of one game, as the index builder sees it. Aligned to 8 bytes, not
/// the key's 16: 24 bytes instead of 32, for the hundreds of millions an import holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(8))]
pub struct Occ {
    pub key: u128,
    pub game: u32,
    pub code: u16,
    pub mover: u8,
}

/// Statistics of one move of a T record ([`crate::chess::NO_MOVE`] for games ending there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveEntry {
    pub code: u16,
    pub stats: Stats,
}

/// A game in a postings list: its id and the slot (index into the record's moves) of the
/// move it played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    pub game: u32,
    pub slot: u8,
}

/// A position with many games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TRecord {
    pub key: u128,
    pub moves: Vec<MoveEntry>,
    /// Best-rated games (by mean rating, then date), only when there are more than
    /// [`TOP_GAMES`] postings; otherwise the postings themselves are the top games.
    pub top: Vec<Posting>,
    /// Number of games; the list itself is inline when short, else in the postings table.
    pub n_postings: u64,
    pub postings: Option<Vec<Posting>>,
}

impl TRecord {
    pub fn totals(&self) -> Stats {
        let mut s = Stats::default();
        for m in &self.moves {
            s.merge(&m.stats);
        }
        s
    }
}

/// An S entry: a game reaching a rare position whose key starts with `prefix`.
///
/// `pred` is set when the position the game played just before this one is kept only
/// through this entry (an *implicit* position, see [`build`]): a query for that position
/// looks for the entries of its successors with `pred` set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SEntry {
    pub prefix: u32,
    pub game: u32,
    pub pred: bool,
}

pub fn prefix(key: u128) -> u32 {
    (key >> 96) as u32
}

/// Orders games for "top games": higher mean rating first, then newer, then lower id.
pub fn top_order(a: (u32, &GameFacts), b: (u32, &GameFacts)) -> std::cmp::Ordering {
    b.1.mean_rating()
        .cmp(&a.1.mean_rating())
        .then(b.1.date.cmp(&a.1.date))
        .then(a.0.cmp(&b.0))
}

/// Builds a T record from the occurrences of one position (any order, one per game).
pub fn make_record(key: u128, occs: &[Occ], facts: &dyn Fn(u32) -> GameFacts) -> TRecord {
    let mut moves: Vec<MoveEntry> = Vec::new();
    let mut postings: Vec<Posting> = Vec::with_capacity(occs.len());
    // Each game's facts are read once, for the statistics and for ranking the best games.
    let mut ranked: Vec<(Posting, GameFacts)> = Vec::with_capacity(if occs.len() > TOP_GAMES {
        occs.len()
    } else {
        0
    });
    // Gathered in a loop of their own: the reads (scattered over the facts of a whole
    // segment) then overlap instead of waiting one by one behind the statistics.
    let gathered: Vec<GameFacts> = occs.iter().map(|o| facts(o.game)).collect();
    for (o, f) in occs.iter().zip(gathered) {
        let slot = match moves.iter().position(|m| m.code == o.code) {
            Some(s) => s,
            None => {
                moves.push(MoveEntry {
                    code: o.code,
                    stats: Stats::default(),
                });
                moves.len() - 1
            }
        };
        moves[slot].stats.add_game(&f, o.mover);
        let p = Posting {
            game: o.game,
            slot: slot as u8,
        };
        postings.push(p);
        if occs.len() > TOP_GAMES {
            ranked.push((p, f));
        }
    }
    postings.sort_unstable();
    let top = if postings.len() > TOP_GAMES {
        best_of(ranked)
    } else {
        Vec::new()
    };
    TRecord {
        key,
        moves,
        top,
        n_postings: postings.len() as u64,
        postings: Some(postings),
    }
}

/// The [`TOP_GAMES`] best-ranked of some games.
fn rank_top(
    candidates: impl Iterator<Item = Posting>,
    facts: &dyn Fn(u32) -> GameFacts,
) -> Vec<Posting> {
    best_of(candidates.map(|p| (p, facts(p.game))).collect())
}

/// The [`TOP_GAMES`] best-ranked of some games with their facts.
fn best_of(mut ranked: Vec<(Posting, GameFacts)>) -> Vec<Posting> {
    let order = |a: &(Posting, GameFacts), b: &(Posting, GameFacts)| {
        top_order((a.0.game, &a.1), (b.0.game, &b.1))
    };
    // Only the first few matter: set them apart before sorting (room for repeated games).
    let keep = 4 * TOP_GAMES;
    if ranked.len() > keep {
        ranked.select_nth_unstable_by(keep - 1, order);
        ranked.truncate(keep);
    }
    ranked.sort_unstable_by(order);
    ranked.dedup_by_key(|x| x.0.game);
    ranked.truncate(TOP_GAMES);
    ranked.into_iter().map(|(p, _)| p).collect()
}

/// Merges records of the same key (from different runs, or promoted S entries).
pub fn merge_records(key: u128, parts: Vec<TRecord>, facts: &dyn Fn(u32) -> GameFacts) -> TRecord {
    let mut moves: Vec<MoveEntry> = Vec::new();
    let mut postings: Vec<Posting> = Vec::new();
    // The best games of the whole are among the best of each part (a part's postings when
    // it keeps no separate list).
    let mut candidates: Vec<Posting> = Vec::new();
    for rec in parts {
        let mut remap = Vec::with_capacity(rec.moves.len());
        for m in rec.moves {
            let slot = match moves.iter().position(|x| x.code == m.code) {
                Some(s) => {
                    moves[s].stats.merge(&m.stats);
                    s
                }
                None => {
                    moves.push(m);
                    moves.len() - 1
                }
            };
            remap.push(slot as u8);
        }
        let own = rec.postings.expect("postings loaded before merging");
        let top = if rec.top.is_empty() { &own } else { &rec.top };
        candidates.extend(top.iter().map(|p| Posting {
            game: p.game,
            slot: remap[p.slot as usize],
        }));
        for p in &own {
            postings.push(Posting {
                game: p.game,
                slot: remap[p.slot as usize],
            });
        }
    }
    postings.sort_unstable();
    postings.dedup_by_key(|p| p.game);
    let top = if postings.len() > TOP_GAMES {
        rank_top(candidates.into_iter(), facts)
    } else {
        Vec::new()
    };
    TRecord {
        key,
        moves,
        top,
        n_postings: postings.len() as u64,
        postings: Some(postings),
    }
}

/// What [`build`] makes of a batch.
pub struct Built {
    pub records: Vec<TRecord>,
    pub singles: Singles,
    pub sketch: Hll,
    /// Occurrences kept only through their successor's S entry.
    pub implicit: u64,
}

/// Splits the occurrences of a batch into T records and S entries, and sketches the number
/// of distinct positions.
///
/// With `plies` (the ply of every occurrence, in the batch's order: games one after the
/// other, positions in game order), rare positions are kept every other ply: an occurrence
/// whose next position in the same game (one ply later) has an S entry of its own is left
/// *implicit* — not stored — and that entry gets `pred` set. A query finds it by looking up
/// the positions one legal move away and replaying the games whose entries have `pred`
/// (the replay checks that the asked position came just before). This halves the largest
/// part of the index. Positions with a T record are never implicit.
pub fn build(
    occs: &[Occ],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
    plies: Option<&[u16]>,
) -> Built {
    let mut sketch = Hll::default();
    for o in occs {
        sketch.add(o.key);
    }
    build_sketched(occs, facts, plies, sketch)
}

/// [`build`] given the sketch of the occurrences' distinct keys (an import feeds it batch by
/// batch, while other threads still parse).
pub fn build_sketched(
    occs: &[Occ],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
    plies: Option<&[u16]>,
    sketch: Hll,
) -> Built {
    let n = occs.len();
    assert!(
        n < u32::MAX as usize,
        "an index run holds fewer than 2^32 occurrences"
    );
    // Occurrences sorted by key: groups of equal keys give T records and distinct counts.
    // They are scattered by the key's top 16 bits, each packed in 8 bytes as the next 32
    // bits of its key and its index; the ranges are then sorted and grouped by two threads,
    // each taking half of the ranges (and each scattering its half: both read every key,
    // each writes only its own). Groups of 48 equal bits big enough for a T record are then
    // split by whole keys; smaller ones need nothing (every key in them is rare).
    const BITS: u32 = 16;
    let range_of = |k: u128| (k >> (128 - BITS)) as usize;
    let mut starts = vec![0usize; (1 << BITS) + 1];
    let (mut min_game, mut max_game) = (u32::MAX, 0);
    for o in occs {
        starts[range_of(o.key) + 1] += 1;
        min_game = min_game.min(o.game);
        max_game = max_game.max(o.game);
    }
    let base = min_game.min(max_game);
    assert!(
        max_game - base < 1 << 31,
        "an index run spans fewer than 2^31 games"
    );
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let half = starts.partition_point(|&s| s < n / 2).min(1 << BITS);
    // Zeroed memory comes fresh from the system: no cost until written (but each page
    // written costs a fault: 8 bytes an occurrence, not 16).
    let mut packed = vec![0u64; n];
    let scatter = |out: &mut [u64], ranges: std::ops::Range<usize>| {
        let base = starts[ranges.start];
        let mut next: Vec<usize> = starts[ranges.clone()].iter().map(|s| s - base).collect();
        for (i, o) in occs.iter().enumerate() {
            let r = range_of(o.key);
            if ranges.contains(&r) {
                let at = &mut next[r - ranges.start];
                out[*at] = (u64::from((o.key >> (128 - BITS - 32)) as u32) << 32) | i as u64;
                *at += 1;
            }
        }
    };
    let ((mut records, in_t_low), (records_high, in_t_high)) = {
        let (low, high) = packed.split_at_mut(starts[half]);
        std::thread::scope(|s| {
            let upper = s.spawn(|| {
                scatter(high, half..1 << BITS);
                build_ranges(occs, high, &starts[half..], facts)
            });
            scatter(low, 0..half);
            let lower = build_ranges(occs, low, &starts[..=half], facts);
            (lower, upper.join().expect("index build thread"))
        })
    };
    records.extend(records_high);
    let mut is_t = Bits::new(n);
    for &i in in_t_low.iter().chain(&in_t_high) {
        is_t.set(i as usize);
    }
    drop((in_t_low, in_t_high));
    // Rare positions, walking each game in order. With plies, every other one is implicit:
    // an S occurrence whose next one (one ply later, same game) is an explicit S entry.
    // Two threads each take the games of one half of the occurrences (neither rule looks
    // past a game) and write their entries at the start of their half of the key sort's
    // memory, whose pages are already the process's (fresh memory costs a fault a page).
    let mut singles = packed;
    let pack = |e: SEntry| Singles::pack(base, e);
    let mid = (n / 2..n)
        .find(|&i| i == 0 || occs[i].game != occs[i - 1].game)
        .unwrap_or(n);
    let rare = |lo: usize, hi: usize, out: &mut [u64]| -> (usize, u64) {
        let (mut count, mut n_implicit) = (0usize, 0u64);
        let mut put = |e: SEntry| {
            out[count] = pack(e);
            count += 1;
        };
        match plies {
            Some(plies) => {
                // Indices local to the half.
                let mut implicit = Bits::new(hi - lo);
                for ix in (lo..hi.saturating_sub(1)).rev() {
                    let next = ix + 1;
                    if !is_t.get(ix)
                        && occs[next].game == occs[ix].game
                        && plies[next] == plies[ix].wrapping_add(1)
                        && !is_t.get(next)
                        && !implicit.get(next - lo)
                    {
                        implicit.set(ix - lo);
                        n_implicit += 1;
                    }
                }
                for ix in lo..hi {
                    if !is_t.get(ix) && !implicit.get(ix - lo) {
                        let pred = ix > lo
                            && implicit.get(ix - 1 - lo)
                            && occs[ix - 1].game == occs[ix].game;
                        put(SEntry {
                            prefix: prefix(occs[ix].key),
                            game: occs[ix].game,
                            pred,
                        });
                    }
                }
            }
            None => {
                for ix in lo..hi {
                    if !is_t.get(ix) {
                        put(SEntry {
                            prefix: prefix(occs[ix].key),
                            game: occs[ix].game,
                            pred: false,
                        });
                    }
                }
            }
        }
        (count, n_implicit)
    };
    let ((a, implicit_a), (b, implicit_b)) = {
        let (first, second) = singles.split_at_mut(mid);
        std::thread::scope(|s| {
            let other = s.spawn(|| rare(mid, n, second));
            (
                rare(0, mid, first),
                other.join().expect("index build thread"),
            )
        })
    };
    singles.copy_within(mid..mid + b, a);
    singles.truncate(a + b);
    let n_implicit = implicit_a + implicit_b;
    drop(is_t);
    // Sorted on two threads, split where the key sort split its ranges (a prefix's top 16
    // bits are its key's range).
    let mut lo = 0;
    for i in 0..singles.len() {
        if ((singles[i] >> 48) as usize) < half {
            singles.swap(lo, i);
            lo += 1;
        }
    }
    let (a, b) = singles.split_at_mut(lo);
    std::thread::scope(|s| {
        s.spawn(|| b.sort_unstable());
        a.sort_unstable();
    });
    Built {
        records,
        singles: Singles {
            base,
            packed: singles,
        },
        sketch,
        implicit: n_implicit,
    }
}

/// The S entries of a build, in (prefix, game, pred) order, eight bytes each: the prefix,
/// the game less `base` (31 bits) and `pred`, so that they sort as [`SEntry`]s do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Singles {
    base: u32,
    packed: Vec<u64>,
}

impl Singles {
    fn pack(base: u32, e: SEntry) -> u64 {
        (u64::from(e.prefix) << 32) | (u64::from(e.game - base) << 1) | u64::from(e.pred)
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    pub fn get(&self, i: usize) -> SEntry {
        let v = self.packed[i];
        SEntry {
            prefix: (v >> 32) as u32,
            game: self.base + ((v as u32) >> 1),
            pred: v & 1 == 1,
        }
    }

    pub fn prefix_at(&self, i: usize) -> u32 {
        (self.packed[i] >> 32) as u32
    }

    pub fn iter(&self) -> impl Iterator<Item = SEntry> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    pub fn to_vec(&self) -> Vec<SEntry> {
        self.iter().collect()
    }
}

/// One flag per occurrence, eight to a byte.
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
}

/// Sorts the values of one key range of [`build_ranges`] (a big range through `scratch`: by
/// its values' top 8 bits first, then each of those small buckets).
fn sort_range(range: &mut [u64], scratch: &mut Vec<u64>) {
    if range.len() < 512 {
        range.sort_unstable();
        return;
    }
    let mut bounds = [0usize; 257];
    for &v in range.iter() {
        bounds[(v >> 56) as usize + 1] += 1;
    }
    for i in 1..bounds.len() {
        bounds[i] += bounds[i - 1];
    }
    scratch.clear();
    scratch.resize(range.len(), 0);
    let mut next = bounds;
    for &v in range.iter() {
        let b = (v >> 56) as usize;
        scratch[next[b]] = v;
        next[b] += 1;
    }
    for b in bounds.windows(2) {
        scratch[b[0]..b[1]].sort_unstable();
    }
    range.copy_from_slice(scratch);
}

/// Sorts and groups some key ranges of [`build`]: `packed` holds them, `starts` their
/// bounds (offset by the first one). Returns their T records in key order and the indices
/// of the occurrences in them. Only groups big enough for a T record are looked at closely
/// (their whole keys read and compared): a smaller group needs nothing, even if it mixes
/// keys sharing 48 bits.
fn build_ranges(
    occs: &[Occ],
    packed: &mut [u64],
    starts: &[usize],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
) -> (Vec<TRecord>, Vec<u32>) {
    let base = starts[0];
    let mut records = Vec::new();
    let mut in_t = Vec::new();
    let mut group_occs: Vec<Occ> = Vec::new();
    let mut exact: Vec<(u128, u32)> = Vec::new();
    let ix = |p: u64| p as u32;
    let mut scratch = Vec::new();
    for w in starts.windows(2) {
        let range = &mut packed[w[0] - base..w[1] - base];
        sort_range(range, &mut scratch);
        for same_bits in range.chunk_by(|a, b| a >> 32 == b >> 32) {
            if same_bits.len() >= PROMOTE_AT {
                // Different keys may share these 48 bits: group by the whole key.
                exact.clear();
                exact.extend(same_bits.iter().map(|&p| (occs[ix(p) as usize].key, ix(p))));
                exact.sort_unstable();
                for g in exact.chunk_by(|x, y| x.0 == y.0) {
                    if g.len() >= PROMOTE_AT {
                        group_occs.clear();
                        for &(_, o) in g {
                            group_occs.push(occs[o as usize]);
                            in_t.push(o);
                        }
                        group_occs.sort_unstable_by_key(|o| o.game);
                        records.push(make_record(g[0].0, &group_occs, facts));
                    }
                }
            }
        }
    }
    (records, in_t)
}

// ---------------------------------------------------------------------------------------
// Encoding

fn encode_postings(postings: &[Posting], out: &mut Vec<u8>) {
    let mut last = 0u32;
    for p in postings {
        put_varint(out, (p.game - last) as u64);
        out.push(p.slot);
        last = p.game;
    }
}

fn decode_postings(r: &mut Reader<'_>, n: u64) -> Result<Vec<Posting>, DecodeError> {
    let mut v = Vec::with_capacity(n.min(1 << 20) as usize);
    let mut last = 0u32;
    for _ in 0..n {
        let d = r.varint_u32("posting")?;
        last = last.checked_add(d).ok_or(DecodeError {
            what: "posting",
            offset: r.pos(),
        })?;
        let slot = r.u8("posting slot")?;
        v.push(Posting { game: last, slot });
    }
    Ok(v)
}

/// Encodes a T record; long postings lists are returned separately for the postings table.
pub fn encode_record(rec: &TRecord, out: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::with_capacity(64);
    body.extend_from_slice(&rec.key.to_be_bytes());
    put_varint(&mut body, rec.moves.len() as u64);
    for m in &rec.moves {
        body.extend_from_slice(&m.code.to_le_bytes());
        m.stats.encode(&mut body);
    }
    put_varint(&mut body, rec.top.len() as u64);
    for p in &rec.top {
        put_varint(&mut body, p.game as u64);
        body.push(p.slot);
    }
    put_varint(&mut body, rec.n_postings);
    let postings = rec.postings.as_deref().unwrap_or(&[]);
    let external = if rec.n_postings as usize <= INLINE_POSTINGS {
        encode_postings(postings, &mut body);
        None
    } else {
        let mut ext = Vec::with_capacity(postings.len() * 2);
        encode_postings(postings, &mut ext);
        Some(ext)
    };
    put_varint(out, body.len() as u64);
    out.extend_from_slice(&body);
    external
}

/// Decodes a T record body (after its length). Long postings are left unloaded.
pub fn decode_record(body: &[u8]) -> Result<TRecord, DecodeError> {
    let mut r = Reader::new(body);
    let key = u128::from_be_bytes(r.array::<16>("record key")?);
    let n = r.varint("move count")?;
    if n > 256 {
        return Err(DecodeError {
            what: "move count",
            offset: r.pos(),
        });
    }
    let mut moves = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let code = u16::from_le_bytes(r.array::<2>("move code")?);
        let stats = Stats::decode(&mut r)?;
        moves.push(MoveEntry { code, stats });
    }
    let nt = r.varint("top count")?;
    if nt > TOP_GAMES as u64 {
        return Err(DecodeError {
            what: "top count",
            offset: r.pos(),
        });
    }
    let mut top = Vec::with_capacity(nt as usize);
    for _ in 0..nt {
        let game = r.varint_u32("top game")?;
        let slot = r.u8("top slot")?;
        top.push(Posting { game, slot });
    }
    let n_postings = r.varint("postings count")?;
    let postings = if n_postings as usize <= INLINE_POSTINGS {
        Some(decode_postings(&mut r, n_postings)?)
    } else {
        None
    };
    Ok(TRecord {
        key,
        moves,
        top,
        n_postings,
        postings,
    })
}

pub fn decode_external_postings(data: &[u8], n: u64) -> Result<Vec<Posting>, DecodeError> {
    decode_postings(&mut Reader::new(data), n)
}

/// Splits encoded T records into blocks: (first key, block bytes, external postings).
pub struct EncodedRun {
    pub t_blocks: Vec<(u128, Vec<u8>)>,
    pub s_blocks: Vec<(u32, Vec<u8>)>,
    pub postings: Vec<(u128, Vec<u8>)>,
    pub t_records: u64,
    pub s_entries: u64,
}

/// Incremental block writer, so merges can stream.
#[derive(Default)]
pub struct RunEncoder {
    t_cur: Vec<u8>,
    t_first: Option<u128>,
    t_count: u64,
    s_cur: Vec<SEntry>,
    s_min_game: u32,
    s_max_game: u32,
    pub t_records: u64,
    pub s_entries: u64,
}

/// What a [`RunEncoder`] emits as it fills blocks.
pub enum Emitted {
    TBlock(u128, Vec<u8>),
    SBlock(u32, Vec<u8>),
    Postings(u128, Vec<u8>),
}

/// Bits needed for `v`.
fn bit_width(v: u32) -> u8 {
    (32 - v.leading_zeros()) as u8
}

/// Exact encoded size of S entries with the best Rice parameter, and that parameter.
fn s_block_size(entries: &[SEntry]) -> (usize, u8) {
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
fn checkpoint_bytes(n: usize) -> usize {
    (n / STRIDE) * 8
}

/// Bytes of an S block's header, at most.
const S_HEADER: usize = 16;

/// The Rice parameter for a mean gap of `span / n`: about log2(mean × ln 2).
fn rice_guess(span: u64, n: u64) -> u8 {
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
                self.acc >>= ones + 1;
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

impl RunEncoder {
    pub fn push_record(&mut self, rec: &TRecord, emit: &mut dyn FnMut(Emitted)) {
        let mut enc = Vec::with_capacity(64);
        let ext = encode_record(rec, &mut enc);
        if self.t_first.is_some() && self.t_cur.len() + enc.len() > BLOCK_BYTES {
            self.flush_t(emit);
        }
        if self.t_first.is_none() {
            self.t_first = Some(rec.key);
        }
        self.t_cur.extend_from_slice(&enc);
        if let Some(ext) = ext {
            emit(Emitted::Postings(rec.key, ext));
        }
        self.t_count += 1;
        self.t_records += 1;
    }

    /// S entries must come in (prefix, game) order. A block never splits a prefix, so the
    /// block directory finds every entry of a prefix in one block.
    pub fn push_single(&mut self, e: SEntry, emit: &mut dyn FnMut(Emitted)) {
        if self.s_cur.is_empty() {
            self.s_min_game = e.game;
            self.s_max_game = e.game;
        }
        self.s_min_game = self.s_min_game.min(e.game);
        self.s_max_game = self.s_max_game.max(e.game);
        self.s_cur.push(e);
        self.s_entries += 1;
        // Cheap estimate first (Rice cost ≈ span / 2^k + n (k + 1)); the exact size only
        // near the limit.
        let n = self.s_cur.len() as u64;
        if n.is_multiple_of(16) {
            let span = (e.prefix - self.s_cur[0].prefix) as u64;
            let k = rice_guess(span, n) as u64;
            let w = bit_width(self.s_max_game - self.s_min_game) as u64;
            let est = ((span >> k) + n * (k + 2 + w)).div_ceil(8) as usize
                + S_HEADER
                + checkpoint_bytes(n as usize);
            if est * 100 > BLOCK_BYTES * 97 && s_block_size(&self.s_cur).0 > BLOCK_BYTES {
                self.cut_s(emit);
            }
        }
    }

    /// Emits the longest run of whole prefixes that fits a block; keeps the rest.
    fn cut_s(&mut self, emit: &mut dyn FnMut(Emitted)) {
        let mut n = self.s_cur.len();
        while n > 1 && s_block_size(&self.s_cur[..n]).0 > BLOCK_BYTES {
            n -= (n / 64).max(1);
        }
        // Move the cut back to a prefix boundary (keep at least one prefix).
        while n > 0 && n < self.s_cur.len() && self.s_cur[n].prefix == self.s_cur[n - 1].prefix {
            n -= 1;
        }
        if n == 0 {
            // One prefix larger than a block: emit it whole.
            n = self
                .s_cur
                .iter()
                .position(|e| e.prefix != self.s_cur[0].prefix)
                .unwrap_or(self.s_cur.len());
        }
        let rest = self.s_cur.split_off(n);
        let block = std::mem::replace(&mut self.s_cur, rest);
        (self.s_min_game, self.s_max_game) =
            self.s_cur.iter().fold((u32::MAX, 0), |(lo, hi), e| {
                (lo.min(e.game), hi.max(e.game))
            });
        emit(Emitted::SBlock(block[0].prefix, encode_s_block(&block)));
    }

    fn flush_t(&mut self, emit: &mut dyn FnMut(Emitted)) {
        if let Some(first) = self.t_first.take() {
            let mut block = Vec::with_capacity(self.t_cur.len() + 4);
            put_varint(&mut block, self.t_count);
            block.extend_from_slice(&self.t_cur);
            self.t_cur.clear();
            self.t_count = 0;
            emit(Emitted::TBlock(first, block));
        }
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Emitted)) {
        self.flush_t(emit);
        while !self.s_cur.is_empty() {
            if s_block_size(&self.s_cur).0 > BLOCK_BYTES {
                self.cut_s(emit);
            } else {
                let block = std::mem::take(&mut self.s_cur);
                emit(Emitted::SBlock(block[0].prefix, encode_s_block(&block)));
            }
        }
    }
}

/// Decodes a T block into its records (long postings unloaded).
pub fn decode_t_block(block: &[u8]) -> Result<Vec<TRecord>, DecodeError> {
    let mut r = Reader::new(block);
    let n = r.varint("block count")?;
    let mut v = Vec::with_capacity(n.min(4096) as usize);
    for _ in 0..n {
        let len = r.varint("record length")? as usize;
        v.push(decode_record(r.bytes(len, "record")?)?);
    }
    Ok(v)
}

/// Finds one record in a T block without decoding the others.
pub fn find_in_t_block(block: &[u8], key: u128) -> Result<Option<TRecord>, DecodeError> {
    let mut r = Reader::new(block);
    let n = r.varint("block count")?;
    for _ in 0..n {
        let len = r.varint("record length")? as usize;
        let body = r.bytes(len, "record")?;
        if body.len() < 16 {
            return Err(DecodeError {
                what: "record",
                offset: r.pos(),
            });
        }
        let k = u128::from_be_bytes(body[..16].try_into().expect("16 bytes"));
        if k == key {
            return decode_record(body).map(Some);
        }
        if k > key {
            break;
        }
    }
    Ok(None)
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
        });
    }
    let c = r.varint("checkpoint count")?;
    if c > n {
        return Err(DecodeError {
            what: "checkpoint count",
            offset: r.pos(),
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
            })?;
        o = o
            .checked_add(r.varint("checkpoint offset")?)
            .ok_or(DecodeError {
                what: "checkpoint offset",
                offset: r.pos(),
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

/// The directory of a run: first key of every block, plus counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunDir {
    pub id: u32,
    pub t_first: Vec<u128>,
    pub s_first: Vec<u32>,
    pub t_records: u64,
    pub s_entries: u64,
    /// Occurrences kept implicitly (through their successor's entry).
    pub implicit: u64,
    /// Games indexed by the run.
    pub games: u64,
    /// Encoded bytes of its blocks and postings.
    pub bytes: u64,
    /// Whether its T records are complete: every game of the run reaching a position with a
    /// T record is in that record (no S entry, explicit or implicit, holds it), except for
    /// the keys in `incomplete`. A query then needs no S entries for such a position. True
    /// of every batch's run; a merge keeps it true by moving S entries into T records (see
    /// `merge.rs`). Runs written before this was recorded read as not complete.
    pub complete: bool,
    /// T record keys the merge could not make complete (sorted; almost always empty).
    pub incomplete: Vec<u128>,
}

impl RunDir {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.t_first.len() as u64);
        for k in &self.t_first {
            out.extend_from_slice(&k.to_be_bytes());
        }
        put_varint(&mut out, self.s_first.len() as u64);
        for p in &self.s_first {
            out.extend_from_slice(&p.to_be_bytes());
        }
        put_varint(&mut out, self.t_records);
        put_varint(&mut out, self.s_entries);
        put_varint(&mut out, self.implicit);
        put_varint(&mut out, self.games);
        put_varint(&mut out, self.bytes);
        put_varint(&mut out, u64::from(self.complete));
        put_varint(&mut out, self.incomplete.len() as u64);
        for k in &self.incomplete {
            out.extend_from_slice(&k.to_be_bytes());
        }
        out
    }

    pub fn decode(id: u32, data: &[u8]) -> Result<RunDir, DecodeError> {
        let mut r = Reader::new(data);
        let nt = r.varint("t blocks")? as usize;
        let mut t_first = Vec::with_capacity(nt.min(1 << 24));
        for _ in 0..nt {
            t_first.push(u128::from_be_bytes(r.array::<16>("t first key")?));
        }
        let ns = r.varint("s blocks")? as usize;
        let mut s_first = Vec::with_capacity(ns.min(1 << 24));
        for _ in 0..ns {
            s_first.push(u32::from_be_bytes(r.array::<4>("s first prefix")?));
        }
        let mut dir = RunDir {
            id,
            t_first,
            s_first,
            t_records: r.varint("t records")?,
            s_entries: r.varint("s entries")?,
            implicit: r.varint("implicit")?,
            games: r.varint("games")?,
            bytes: r.varint("bytes")?,
            complete: false,
            incomplete: Vec::new(),
        };
        if !r.remaining().is_empty() {
            dir.complete = r.varint("complete")? == 1;
            let n = r.varint("incomplete keys")? as usize;
            for _ in 0..n {
                dir.incomplete
                    .push(u128::from_be_bytes(r.array::<16>("incomplete key")?));
            }
        }
        Ok(dir)
    }

    /// Whether the run's T record of `key` (if it has one) holds every game of the run
    /// reaching the position.
    pub fn complete_for(&self, key: u128) -> bool {
        self.complete && self.incomplete.binary_search(&key).is_err()
    }

    /// Block holding `key` among the T blocks, if any could.
    pub fn t_block_for(&self, key: u128) -> Option<u32> {
        let i = self.t_first.partition_point(|&f| f <= key);
        (i > 0).then(|| (i - 1) as u32)
    }

    pub fn s_block_for(&self, prefix: u32) -> Option<u32> {
        let i = self.s_first.partition_point(|&f| f <= prefix);
        (i > 0).then(|| (i - 1) as u32)
    }
}

pub fn run_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

pub fn block_key(run: u32, kind: u8, idx: u32) -> [u8; 9] {
    let mut k = [0u8; 9];
    k[..4].copy_from_slice(&run.to_be_bytes());
    k[4] = kind;
    k[5..].copy_from_slice(&idx.to_be_bytes());
    k
}

pub fn postings_key(run: u32, key: u128) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..4].copy_from_slice(&run.to_be_bytes());
    k[4..].copy_from_slice(&key.to_be_bytes());
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::GameOutcome;

    fn facts(g: u32) -> GameFacts {
        GameFacts {
            outcome: Some(if g.is_multiple_of(3) {
                GameOutcome::FirstWins
            } else if g % 3 == 1 {
                GameOutcome::Draw
            } else {
                GameOutcome::SecondWins
            }),
            ratings: [Some(2000 + 2 * g as u16), Some(2100)],
            year: Some(2000),
            date: 20000101,
            values: None,
        }
    }

    fn encode_all(recs: &[TRecord], singles: &[SEntry]) -> Vec<Emitted> {
        let mut enc = RunEncoder::default();
        let mut emitted = Vec::new();
        for r in recs {
            enc.push_record(r, &mut |e| emitted.push(e));
        }
        for s in singles {
            enc.push_single(*s, &mut |e| emitted.push(e));
        }
        enc.finish(&mut |e| emitted.push(e));
        emitted
    }

    #[test]
    fn build_splits_by_threshold_and_blocks_round_trip() {
        let mut occs = Vec::new();
        for g in 0..20u32 {
            occs.push(Occ {
                key: 42,
                game: g,
                code: (g % 2) as u16,
                mover: 0,
            });
            occs.push(Occ {
                key: (g as u128 % 5) << 100 | (g as u128 % 2),
                game: g,
                code: 1,
                mover: 1,
            });
        }
        let Built {
            records: recs,
            singles,
            sketch: hll,
            ..
        } = build(&occs, &facts, None);
        let singles = singles.to_vec();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].n_postings, 20);
        assert_eq!(recs[0].totals().games(), 20);
        assert_eq!(recs[0].top.len(), TOP_GAMES);
        assert_eq!(recs[0].top[0].game, 19); // highest rated
        assert_eq!(singles.len(), 20);
        assert_eq!(hll.estimate(), 11);
        let mut got_s = Vec::new();
        for e in &encode_all(&recs, &singles) {
            match e {
                Emitted::TBlock(first, b) => {
                    assert_eq!(*first, 42);
                    let rec = find_in_t_block(b, 42).unwrap().unwrap();
                    assert_eq!(rec.moves, recs[0].moves);
                    assert!(find_in_t_block(b, 41).unwrap().is_none());
                }
                Emitted::SBlock(_, b) => got_s.extend(decode_s_block(b).unwrap()),
                Emitted::Postings(..) => unreachable!("20 postings are inline"),
            }
        }
        assert_eq!(got_s, singles);
    }

    #[test]
    fn s_blocks_fit_pages_and_never_split_a_prefix() {
        // Pseudo-random prefixes with some repeated, as a big run would have.
        let mut singles: Vec<SEntry> = (0..200_000u64)
            .map(|i| {
                let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                SEntry {
                    prefix: ((x >> 32) as u32) & !0xF,
                    game: (x as u32) % 1_000_000,
                    pred: x & 1 == 1,
                }
            })
            .collect();
        singles.sort_unstable();
        let emitted = encode_all(&[], &singles);
        let mut got = Vec::new();
        let mut firsts = Vec::new();
        for e in &emitted {
            if let Emitted::SBlock(first, b) = e {
                assert!(b.len() <= BLOCK_BYTES, "block of {} bytes", b.len());
                let d = decode_s_block(b).unwrap();
                assert_eq!(d[0].prefix, *first);
                firsts.push(*first);
                got.extend(d);
            }
        }
        assert_eq!(got, singles);
        // No prefix spans two blocks.
        for w in firsts.windows(2) {
            assert!(w[0] < w[1]);
        }
        // Rice coding costs about log2(mean gap) + 1.5 bits a gap; games take 20 bits here.
        let bits = 8.0
            * emitted
                .iter()
                .map(|e| {
                    if let Emitted::SBlock(_, b) = e {
                        b.len()
                    } else {
                        0
                    }
                })
                .sum::<usize>() as f64
            / singles.len() as f64;
        let bound = ((1u64 << 32) as f64 / 200_000.0).log2() + 2.0 + 21.0;
        assert!(
            bits < bound,
            "{bits} bits per entry, expected under {bound}"
        );
    }

    #[test]
    fn every_other_rare_position_is_implicit() {
        // Game 1: positions 1..=6 (plies 0..=5), all rare. Game 2: positions 100, 3, 101 —
        // position 3 is shared but still rare. Position 50 is in 8 games (a T record) at ply 0.
        let mut occs = Vec::new();
        let mut plies = Vec::new();
        for (k, ply) in [(1u128, 0u16), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5)] {
            occs.push(Occ {
                key: k << 96 | k,
                game: 1,
                code: 0,
                mover: 0,
            });
            plies.push(ply);
        }
        for (k, ply) in [(100u128, 0u16), (3, 1), (101, 3)] {
            occs.push(Occ {
                key: k << 96 | k,
                game: 2,
                code: 0,
                mover: 0,
            });
            plies.push(ply);
        }
        for g in 10..18 {
            occs.push(Occ {
                key: 50u128 << 96 | 50,
                game: g,
                code: 0,
                mover: 0,
            });
            plies.push(0);
            occs.push(Occ {
                key: (g as u128 + 1000) << 96,
                game: g,
                code: 0,
                mover: 0,
            });
            plies.push(1);
        }
        let b = build(&occs, &facts, Some(&plies));
        assert_eq!(b.records.len(), 1);
        let has = |k: u128, g: u32| {
            b.singles
                .iter()
                .find(|e| e.prefix == k as u32 && e.game == g)
        };
        // Game 1 from the end: 6 explicit, 5 implicit, 4 explicit (pred), 3 implicit, 2
        // explicit (pred), 1 implicit.
        assert!(has(6, 1).unwrap().pred);
        assert!(has(5, 1).is_none());
        assert!(has(4, 1).unwrap().pred);
        assert!(has(3, 1).is_none());
        assert!(has(2, 1).unwrap().pred);
        assert!(has(1, 1).is_none());
        // Game 2: 101 is two plies after 3 (a repetition was skipped): 3 stays explicit.
        assert!(!has(101, 2).unwrap().pred);
        assert!(has(3, 2).unwrap().pred);
        assert!(has(100, 2).is_none());
        // After a T position nothing is implicit; the T position itself never is.
        for g in 10..18 {
            assert!(!has(g as u128 + 1000, g).unwrap().pred);
        }
        assert_eq!(b.implicit, 4);
    }

    #[test]
    fn build_groups_equal_keys_even_when_they_share_48_bits() {
        // Keys of many sizes of group, spread over the 16-bit ranges, and pairs of keys that
        // differ only in their low 80 bits (the part the build's sort does not look at).
        let mut occs = Vec::new();
        let mut game = 0u32;
        let mut push = |key: u128, copies: u32, occs: &mut Vec<Occ>| {
            for _ in 0..copies {
                occs.push(Occ {
                    key,
                    game,
                    code: (game % 3) as u16,
                    mover: 0,
                });
                game += 1;
            }
        };
        for i in 0..3_000u64 {
            let key = (i as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
            push(key, (i % 13) as u32 + 1, &mut occs);
            if i % 50 == 0 {
                // Near twins: the same top 80 bits, or the same top 48 bits.
                push(key ^ 1, 9, &mut occs);
                push(key ^ (1 << 47), (i % 9) as u32 + 1, &mut occs);
                push(key ^ (1 << 79), 8 + (i % 3) as u32, &mut occs);
            }
        }
        // Interleave, as games of a batch would.
        let n = occs.len();
        let mut shuffled: Vec<Occ> = (0..n).map(|i| occs[(i * 7919) % n]).collect();
        for (i, o) in shuffled.iter_mut().enumerate() {
            o.game = i as u32;
        }
        let b = build(&shuffled, &facts, None);
        let mut by_key: std::collections::BTreeMap<u128, Vec<u32>> =
            std::collections::BTreeMap::new();
        for o in &shuffled {
            by_key.entry(o.key).or_default().push(o.game);
        }
        let expect: Vec<(u128, u64)> = by_key
            .iter()
            .filter(|(_, g)| g.len() >= PROMOTE_AT)
            .map(|(k, g)| (*k, g.len() as u64))
            .collect();
        let got: Vec<(u128, u64)> = b.records.iter().map(|r| (r.key, r.n_postings)).collect();
        assert_eq!(got, expect);
        let mut singles_expect: Vec<SEntry> = by_key
            .iter()
            .filter(|(_, g)| g.len() < PROMOTE_AT)
            .flat_map(|(k, g)| {
                g.iter().map(|&game| SEntry {
                    prefix: prefix(*k),
                    game,
                    pred: false,
                })
            })
            .collect();
        singles_expect.sort_unstable();
        assert_eq!(b.singles.to_vec(), singles_expect);
        let twins = b
            .records
            .iter()
            .filter(|r| {
                b.records
                    .iter()
                    .any(|o| o.key != r.key && o.key >> 48 == r.key >> 48)
            })
            .count();
        assert!(twins >= 40, "{twins} records with a near twin");
        let far_twins = b
            .records
            .iter()
            .filter(|r| {
                b.records
                    .iter()
                    .any(|o| o.key >> 48 != r.key >> 48 && o.key >> 80 == r.key >> 80)
            })
            .count();
        assert!(
            far_twins >= 40,
            "{far_twins} records with a twin sharing 48 bits"
        );
    }

    #[test]
    fn lookups_from_checkpoints_find_what_a_full_decode_finds() {
        let mut singles: Vec<SEntry> = (0..5_000u64)
            .map(|i| {
                let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                // Few distinct prefixes, so groups straddle checkpoints.
                SEntry {
                    prefix: ((x >> 40) as u32) % 700,
                    game: (x as u32) % 50_000,
                    pred: x & 2 == 2,
                }
            })
            .collect();
        singles.sort_unstable();
        let b = encode_s_block(&singles);
        let all = decode_s_block(&b).unwrap();
        assert_eq!(all, singles);
        for want in 0..710u32 {
            let expect: Vec<SEntry> = all.iter().filter(|e| e.prefix == want).copied().collect();
            assert_eq!(find_in_s_block(&b, want).unwrap(), expect, "prefix {want}");
        }
    }

    #[test]
    fn big_key_ranges_sort_like_a_plain_sort() {
        // Ranges above the bucket threshold (a million games make ~1,200 entries a range),
        // with values spread over all top bytes, crowded into a few, and all in one.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut scratch = Vec::new();
        for (len, top_bits) in [(512, 64), (1_300, 64), (5_000, 58), (2_000, 52), (700, 0)] {
            let mut v: Vec<u64> = (0..len)
                .map(|_| {
                    if top_bits == 0 {
                        next() >> 8
                    } else {
                        next() >> (64 - top_bits) << (64 - top_bits) | next() & 0xFFFF
                    }
                })
                .collect();
            let mut expect = v.clone();
            expect.sort_unstable();
            sort_range(&mut v, &mut scratch);
            assert_eq!(v, expect, "{len} values, {top_bits} top bits");
        }
    }

    #[test]
    fn corrupt_s_block_is_an_error() {
        let singles: Vec<SEntry> = (0..100)
            .map(|i| SEntry {
                prefix: i * 1000,
                game: i,
                pred: false,
            })
            .collect();
        let b = encode_s_block(&singles);
        for cut in [1, 5, b.len() / 2] {
            assert!(decode_s_block(&b[..cut]).is_err());
        }
    }
}
