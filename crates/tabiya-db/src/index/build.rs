//! Building the run of a segment from its games' occurrences: sort by key, T records for
//! positions reached by [`PROMOTE_AT`] games, S entries (every other one implicit) for the
//! rest. Written to reuse its memory: fresh pages cost more than sorting on this kind of
//! machine.

use super::record::{ELSEWHERE_GAMES, Elsewhere, Occ, SEntry, TRecord, make_record};
use super::{PROMOTE_AT, prefix};
use crate::hll::Hll;
use crate::stats::GameFacts;

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
#[cfg(test)]
pub fn build(
    occs: &[Occ],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
    plies: Option<&[u16]>,
) -> Built {
    let mut sketch = Hll::default();
    for o in occs {
        sketch.add(o.key);
    }
    build_sketched(occs, facts, plies, sketch, None, None)
}

/// Receives the indices of a build's rare occurrences (those not in a T record) in key
/// order: one for the lower half of the key space, one for the upper, each called from its
/// own thread.
pub type RareSinks<'s, 'f> = [&'s mut (dyn FnMut(u32) + Send + 'f); 2];

/// For the position of occurrence `o` (given the occurrences and their plies): every legal
/// move's code and the key of the position it leads to, when it can be told
/// ([`super::successors::chess_successors`] for chess).
pub type Successors = dyn Fn(&[Occ], &[u16], usize) -> Option<Vec<(u16, u128)>> + Sync;

/// T records of at least this many games list the legal moves whose positions the
/// segment's games reach other ways ([`TRecord::elsewhere`]: one of their games replayed
/// from the occurrences, every legal move's position found in the sort).
const CLOSED_FROM: u64 = 16;

/// [`build`] given the sketch of the occurrences' distinct keys (an import feeds it batch by
/// batch, while other threads still parse), and how to tell a position's successors (with
/// `plies`) to list where the records' legal moves lead other ways ([`TRecord::elsewhere`]).
pub fn build_sketched(
    occs: &[Occ],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
    plies: Option<&[u16]>,
    sketch: Hll,
    rare_sinks: Option<RareSinks<'_, '_>>,
    successors: Option<&Successors>,
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
    let (sink_low, sink_high) = match rare_sinks {
        Some([a, b]) => (Some(a), Some(b)),
        None => (None, None),
    };
    let (low, high) = {
        let (low, high) = packed.split_at_mut(starts[half]);
        std::thread::scope(|s| {
            let upper = s.spawn(|| {
                scatter(high, half..1 << BITS);
                build_ranges(
                    occs,
                    plies,
                    successors,
                    high,
                    &starts[half..],
                    facts,
                    sink_high,
                )
            });
            scatter(low, 0..half);
            let lower = build_ranges(
                occs,
                plies,
                successors,
                low,
                &starts[..=half],
                facts,
                sink_low,
            );
            (lower, upper.join().expect("index build thread"))
        })
    };
    let Ranges {
        mut records,
        in_t: in_t_low,
        children,
        legal,
    } = low;
    let first_high = records.len() as u32;
    records.extend(high.records);
    let in_t_high = high.in_t;
    // Each move whose games all went on to one position one ply later: that move is the
    // position's whole in this run when the position has no more occurrences than it has
    // games (counted by the 48 sorted bits: another key sharing them only makes it no).
    let sorted = &packed;
    // The sorted occurrences sharing a key's 48 bits.
    let same_bits = |key: u128| -> &[u64] {
        let r = range_of(key);
        let bits = u64::from((key >> (128 - BITS - 32)) as u32);
        let range = &sorted[starts[r]..starts[r + 1]];
        &range[range.partition_point(|&v| v >> 32 < bits)
            ..range.partition_point(|&v| v >> 32 <= bits)]
    };
    for (rec, slot, child) in children.into_iter().chain(
        high.children
            .into_iter()
            .map(|(r, s, c)| (r + first_high, s, c)),
    ) {
        let rec = &mut records[rec as usize];
        if same_bits(child).len() as u64 == rec.moves[slot as usize].stats.games() {
            rec.whole.resize(rec.moves.len(), false);
            rec.whole[slot as usize] = true;
        }
    }
    // Where the legal moves lead, reached other than by that move from here: each such
    // move with the games that do (by exact keys).
    let games_at = |same: &[u64], key: u128| -> Vec<u32> {
        let mut games: Vec<u32> = same
            .iter()
            .map(|&v| &occs[v as u32 as usize])
            .filter(|o| o.key == key)
            .map(|o| o.game)
            .collect();
        games.sort_unstable();
        games.dedup();
        games
    };
    for (rec, legal) in legal
        .into_iter()
        .chain(high.legal.into_iter().map(|(r, k)| (r + first_high, k)))
    {
        let rec = &mut records[rec as usize];
        let mut list = Vec::new();
        for (code, key) in legal {
            let slot = rec.moves.iter().position(|m| m.code == code);
            if slot.is_some_and(|s| rec.whole.get(s) == Some(&true)) {
                continue;
            }
            let same = same_bits(key);
            if slot.is_none() && same.is_empty() {
                continue;
            }
            let reaching = games_at(same, key);
            let games = match slot {
                None => Some(reaching),
                Some(s) => {
                    // The postings are in game order.
                    let postings = rec.postings.as_deref().unwrap_or(&[]);
                    let played: Vec<u32> = postings
                        .iter()
                        .filter(|p| p.slot as usize == s)
                        .map(|p| p.game)
                        .collect();
                    let reached = |g: &u32| reaching.binary_search(g).is_ok();
                    // Listed with its games only when each game of the move reaches the
                    // position too (not so past the import's ply limit).
                    played.iter().all(reached).then(|| {
                        let other = reaching.iter().copied();
                        other.filter(|g| played.binary_search(g).is_err()).collect()
                    })
                }
            };
            if games.as_ref().is_some_and(|g| g.is_empty()) && slot.is_none() {
                continue;
            }
            let games = games.filter(|g| g.len() <= ELSEWHERE_GAMES);
            list.push(Elsewhere { code, games });
        }
        rec.elsewhere = Some(list);
    }
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
                for (ix, o) in occs.iter().enumerate().take(hi).skip(lo) {
                    if !is_t.get(ix) {
                        put(SEntry {
                            prefix: prefix(o.key),
                            game: o.game,
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

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = SEntry> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<SEntry> {
        self.iter().collect()
    }
}

/// One flag per occurrence, eight to a byte.
pub(crate) struct Bits(pub(crate) Vec<u64>);

impl Bits {
    pub(crate) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    pub(crate) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(crate) fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
}

/// Sorts the values of one key range of [`build_ranges`] (a big range through `scratch`: by
/// its values' top 8 bits first, then each of those small buckets).
pub(crate) fn sort_range(range: &mut [u64], scratch: &mut Vec<u64>) {
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

/// What [`build_ranges`] makes of some key ranges.
struct Ranges {
    /// Their T records, in key order.
    records: Vec<TRecord>,
    /// The indices of the occurrences in them.
    in_t: Vec<u32>,
    /// (record, move slot, key): each move of a record whose every game went on to the
    /// position of that key, one ply later (with `plies` only).
    children: Vec<(u32, u8, u128)>,
    /// (record, moves): a record's legal moves and the keys of where they lead, for the
    /// records of [`CLOSED_FROM`] games or more.
    legal: Vec<(u32, Vec<(u16, u128)>)>,
}

/// The position every game of a T record's move went on to, one ply later, by slot
/// (`None` where a game ended there, or its next counted position is not the next ply).
fn children_of(
    occs: &[Occ],
    plies: &[u16],
    group: &[(u128, u32)],
    rec: &TRecord,
) -> Vec<Option<u128>> {
    let mut child: Vec<Option<Option<u128>>> = vec![None; rec.moves.len()];
    for &(_, o) in group {
        let o = o as usize;
        let slot = rec
            .moves
            .iter()
            .position(|m| m.code == occs[o].code)
            .expect("a record has the move of each of its games");
        let next = (o + 1 < occs.len()
            && occs[o + 1].game == occs[o].game
            && plies[o + 1] == plies[o].wrapping_add(1)
            && occs[o].code != crate::game::NO_MOVE)
            .then(|| occs[o + 1].key);
        child[slot] = match child[slot] {
            None => Some(next),
            Some(seen) if seen == next => Some(seen),
            Some(_) => Some(None),
        };
    }
    child.into_iter().map(Option::flatten).collect()
}

/// Sorts and groups some key ranges of [`build`]: `packed` holds them, `starts` their
/// bounds (offset by the first one). Returns their T records in key order and the indices
/// of the occurrences in them. Only groups big enough for a T record are looked at closely
/// (their whole keys read and compared): a smaller group needs nothing, even if it mixes
/// keys sharing 48 bits — unless `rare` wants the rare occurrences in key order, which
/// sorts a small group by whole keys too.
#[allow(clippy::too_many_arguments)]
fn build_ranges<'s>(
    occs: &[Occ],
    plies: Option<&[u16]>,
    successors: Option<&Successors>,
    packed: &mut [u64],
    starts: &[usize],
    facts: &(dyn Fn(u32) -> GameFacts + Sync),
    mut rare: Option<&mut (dyn FnMut(u32) + Send + 's)>,
) -> Ranges {
    let base = starts[0];
    let mut records = Vec::new();
    let mut in_t = Vec::new();
    let mut children = Vec::new();
    let mut legal = Vec::new();
    let mut group_occs: Vec<Occ> = Vec::new();
    let mut exact: Vec<(u128, u32)> = Vec::new();
    let ix = |p: u64| p as u32;
    let mut scratch = Vec::new();
    for w in starts.windows(2) {
        let range = &mut packed[w[0] - base..w[1] - base];
        sort_range(range, &mut scratch);
        for same_bits in range.chunk_by(|a, b| a >> 32 == b >> 32) {
            if same_bits.len() < PROMOTE_AT
                && let Some(rare) = rare.as_deref_mut()
            {
                if same_bits.len() == 1 {
                    rare(ix(same_bits[0]));
                } else {
                    exact.clear();
                    exact.extend(same_bits.iter().map(|&p| (occs[ix(p) as usize].key, ix(p))));
                    exact.sort_unstable();
                    exact.iter().for_each(|&(_, o)| rare(o));
                }
            }
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
                        let rec = make_record(g[0].0, &group_occs, facts);
                        if let Some(plies) = plies {
                            let at = records.len() as u32;
                            for (slot, child) in
                                children_of(occs, plies, g, &rec).into_iter().enumerate()
                            {
                                if let Some(child) = child {
                                    children.push((at, slot as u8, child));
                                }
                            }
                            if let Some(successors) = successors
                                && rec.n_postings >= CLOSED_FROM
                                && let Some(moves) = legal_moves(occs, plies, g, &rec, successors)
                            {
                                legal.push((at, moves));
                            }
                        }
                        records.push(rec);
                    } else if let Some(rare) = rare.as_deref_mut() {
                        g.iter().for_each(|&(_, o)| rare(o));
                    }
                }
            }
        }
    }
    Ranges {
        records,
        in_t,
        children,
        legal,
    }
}

/// A record's legal moves, with the keys of the positions they lead to, from the first of
/// a few of its games whose occurrences tell its position; `None` when none does, or a
/// move played is not among the legal ones.
fn legal_moves(
    occs: &[Occ],
    plies: &[u16],
    group: &[(u128, u32)],
    rec: &TRecord,
    successors: &Successors,
) -> Option<Vec<(u16, u128)>> {
    let legal = group
        .iter()
        .take(4)
        .find_map(|&(_, o)| successors(occs, plies, o as usize))?;
    let known = |m: &super::record::MoveEntry| {
        m.code == crate::game::NO_MOVE || legal.iter().any(|l| l.0 == m.code)
    };
    if !rec.moves.iter().all(known) {
        return None;
    }
    Some(legal)
}
