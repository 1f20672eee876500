//! A run assembled from occurrences sorted by whole key, with no game replayed: the merge
//! of an import's segments (their rare occurrences spilled sorted, their T records read
//! back) and the load of a cluster build (every occurrence sorted by Spark) are both this.
//!
//! Pass 1 walks the keys in order: a key with a T record in a part, or reached by
//! [`PROMOTE_AT`] games, becomes one merged T record, written at once; the occurrences of
//! every other key are marked *rare* in a bit set over all counted positions of the games
//! (a game's positions in a row: `offset[game] + rank`). Then one backward sweep applies
//! the implicit rule of `build.rs` to the marks: a rare position whose next one in the
//! game (one ply later) is rare and kept is itself implicit. Pass 2 walks the keys again
//! and writes the rare positions that stay as S entries, in (prefix, game) order, with
//! `pred` where the position before is implicit. Two bits a counted position, eight bytes
//! a game, and the stream's records pass by twice; nothing else is held.

use tabiya_store::{ReadTx, TableRef};

use super::streams::TIter;
use crate::error::FirstError;
use crate::facts::{FactsReader, Ranks};
use crate::hll::Hll;
use crate::index::amend::Amendments;
use crate::index::build::Bits;
use crate::index::record::{Occ, SEntry, TRecord, make_record, merge_records};
use crate::index::sorted::{KeyedOcc, OccStream, for_each_key};
use crate::index::writer::RunWriter;
use crate::index::{PROMOTE_AT, RunDir, prefix};
use crate::stats::{GameFacts, Rank};
use crate::trace::trace;
use crate::{Error, Result};

/// The games a run is assembled for: ids `first..first + counts.len()`, each with its
/// number of counted positions.
pub(crate) struct Games<'a> {
    pub first: u32,
    pub counts: &'a [u32],
}

/// The T records of runs being replaced, read in key order to join the new run's.
pub(crate) struct Parts<'a> {
    pub runs: &'a [RunDir],
    pub amendments: &'a Amendments,
    pub blocks: &'a TableRef,
    pub postings: &'a TableRef,
}

/// What an assembly wrote, beyond the run writer's counts.
pub(crate) struct Assembled {
    pub implicit: u64,
    pub sketch: Hll,
}

/// Assembles a run into `rw` from the occurrences `open` streams (called twice: each pass
/// reads them in (key, game) order), with the T records of `parts`. `sketch_keys`: count
/// the distinct positions of the stream and the parts (else the caller merges the parts'
/// sketches).
pub(crate) fn assemble(
    rw: &mut RunWriter<'_>,
    read: &ReadTx,
    games: &Games<'_>,
    parts: Option<Parts<'_>>,
    open: &dyn Fn() -> Result<OccStream<'static>>,
    sketch_keys: bool,
) -> Result<Assembled> {
    let t0 = std::time::Instant::now();
    let space = Space::new(games)?;
    let facts = FactsReader::new(read)?;
    let ranks = Ranks::new(read)?;
    // (A record made from a facts row that failed to read is never committed: the error is
    // returned at the end of pass 1.)
    let failed = FirstError::default();
    let fact = |g: u32| -> GameFacts { failed.or_default(facts.get(g)) };
    let rank = |g: u32| -> Rank { failed.or_default(ranks.get(g)) };
    let mut tree = TreeParts::new(parts);
    let mut sketch = Hll::default();
    let mut rare = Bits::new(space.total);
    let mut adj = Bits::new(space.total);
    let mut occs: Vec<Occ> = Vec::new();
    let mut marks = Marks::default();
    // Pass 1: T records, and the rare positions marked.
    for_each_key(open()?, |key, group| {
        tree.write_below(key, rw, &rank, &mut sketch, sketch_keys)?;
        let mut with = tree.take(key)?;
        if sketch_keys {
            sketch.add(key);
        }
        for w in group.windows(2) {
            if w[0].game == w[1].game {
                return Err(Error::Corrupt(format!(
                    "game {} counted twice at position {key:032x}",
                    w[0].game
                )));
            }
        }
        let is_rare = with.is_empty() && group.len() < PROMOTE_AT;
        for o in group {
            if o.adj || is_rare {
                marks.push((o.game, o.rank, u8::from(is_rare) | u8::from(o.adj) << 1));
            }
        }
        if marks.len() >= BATCH {
            marks.apply(&space, &mut rare, &mut adj)?;
        }
        if is_rare {
            return Ok(());
        }
        occs.clear();
        occs.extend(group.iter().map(KeyedOcc::occ));
        with.push(make_record(key, &occs, &fact));
        // (Whether a move's games are its position's whole is not known here.)
        let mut rec = if with.len() == 1 {
            with.pop().expect("one record")
        } else {
            merge_records(key, with, &rank, false)
        };
        rec.forget_where_moves_lead();
        rw.record(&rec)
    })?;
    marks.apply(&space, &mut rare, &mut adj)?;
    tree.write_below(u128::MAX, rw, &rank, &mut sketch, sketch_keys)?;
    if let Some(mut last) = tree.take(u128::MAX)?.pop() {
        last.forget_where_moves_lead();
        rw.record(&last)?;
    }
    failed.check()?;
    trace("assembly pass 1 (T records)", t0);
    // The implicit rule, backwards over every game's positions: `adj` becomes "implicit".
    let implicit = implicit_sweep(&rare, &mut adj);
    trace("assembly: implicit rule", t0);
    let implicit_bits = adj;
    // Pass 2: the rare positions kept, as S entries, each prefix's in game order.
    let mut pending: Vec<SEntry> = Vec::new();
    let flush = |pending: &mut Vec<SEntry>, rw: &mut RunWriter<'_>| -> Result<()> {
        pending.sort_unstable();
        for e in pending.drain(..) {
            rw.single(e)?;
        }
        Ok(())
    };
    // A batch at a time: the marks of its occurrences are read in loops of their own, so
    // their scattered reads overlap instead of waiting one by one.
    let mut stream = open()?;
    let mut batch: Vec<KeyedOcc> = Vec::with_capacity(BATCH);
    let mut ixs: Vec<usize> = Vec::with_capacity(BATCH);
    let mut keep: Vec<u8> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        for o in stream.by_ref().take(BATCH) {
            batch.push(o?);
        }
        if batch.is_empty() {
            break;
        }
        ixs.clear();
        for o in &batch {
            ixs.push(space.index(o)?);
        }
        keep.clear();
        keep.extend(batch.iter().zip(&ixs).map(|(o, &ix)| {
            if !rare.get(ix) || implicit_bits.get(ix) {
                0
            } else if o.rank > 0 && implicit_bits.get(ix - 1) {
                2
            } else {
                1
            }
        }));
        for (o, &k) in batch.iter().zip(&keep) {
            if k == 0 {
                continue;
            }
            let p = prefix(o.key);
            if pending.first().is_some_and(|e| e.prefix != p) {
                flush(&mut pending, rw)?;
            }
            pending.push(SEntry {
                prefix: p,
                game: o.game,
                pred: k == 2,
            });
        }
    }
    flush(&mut pending, rw)?;
    trace("assembly pass 2 (S entries)", t0);
    Ok(Assembled { implicit, sketch })
}

/// The rule of `build.rs`, on marks: position `i` is implicit when it is rare, the game's
/// next position is one ply later (`adj`) and rare, and that one is not implicit itself.
/// Overwrites `adj` with the implicit marks; returns how many there are.
fn implicit_sweep(rare: &Bits, adj: &mut Bits) -> u64 {
    let mut count = 0u64;
    let (mut next_rare, mut next_implicit) = (false, false);
    for w in (0..rare.0.len()).rev() {
        let (r, a) = (rare.0[w], adj.0[w]);
        if r & a == 0 {
            // Nothing here can be implicit: no position both rare and followed in its game.
            adj.0[w] = 0;
            next_rare = r & 1 == 1;
            next_implicit = false;
            continue;
        }
        let mut out = 0u64;
        for b in (0..64).rev() {
            let is_rare = r >> b & 1 == 1;
            let imp = is_rare && a >> b & 1 == 1 && next_rare && !next_implicit;
            if imp {
                out |= 1 << b;
                count += 1;
            }
            next_rare = is_rare;
            next_implicit = imp;
        }
        adj.0[w] = out;
    }
    count
}

/// Occurrences a pass handles at a time.
const BATCH: usize = 16_384;

/// Marks to set in pass 1, gathered so that their scattered writes overlap: (game, rank,
/// rare | adj << 1).
#[derive(Default)]
struct Marks {
    pending: Vec<(u32, u16, u8)>,
    ixs: Vec<usize>,
}

impl Marks {
    fn push(&mut self, m: (u32, u16, u8)) {
        self.pending.push(m);
    }

    fn len(&self) -> usize {
        self.pending.len()
    }

    fn apply(&mut self, space: &Space, rare: &mut Bits, adj: &mut Bits) -> Result<()> {
        self.ixs.clear();
        for &(game, rank, _) in &self.pending {
            self.ixs.push(space.index_of(game, rank)?);
        }
        for (&ix, &(_, _, f)) in self.ixs.iter().zip(&self.pending) {
            if f & 1 == 1 {
                rare.set(ix);
            }
            if f & 2 == 2 {
                adj.set(ix);
            }
        }
        self.pending.clear();
        Ok(())
    }
}

/// Where each game's counted positions sit in the bit sets.
struct Space {
    first: u32,
    offsets: Vec<u64>,
    total: usize,
}

impl Space {
    fn new(games: &Games<'_>) -> Result<Space> {
        let mut offsets = Vec::with_capacity(games.counts.len() + 1);
        let mut at = 0u64;
        for &c in games.counts {
            offsets.push(at);
            at += u64::from(c);
        }
        offsets.push(at);
        let total = usize::try_from(at)
            .map_err(|_| Error::Usage(format!("{at} counted positions do not fit memory")))?;
        Ok(Space {
            first: games.first,
            offsets,
            total,
        })
    }

    fn index(&self, o: &KeyedOcc) -> Result<usize> {
        self.index_of(o.game, o.rank)
    }

    fn index_of(&self, game: u32, rank: u16) -> Result<usize> {
        let g = game.wrapping_sub(self.first) as usize;
        match (self.offsets.get(g), self.offsets.get(g + 1)) {
            (Some(&start), Some(&end)) if start + u64::from(rank) < end => {
                Ok((start + u64::from(rank)) as usize)
            }
            _ => Err(Error::Corrupt(format!(
                "occurrence of game {game} at rank {rank}: no such position among the games loaded ({}..{})",
                self.first,
                u64::from(self.first) + self.offsets.len() as u64 - 1
            ))),
        }
    }
}

/// The parts' T records, merged by key as the stream's keys pass.
struct TreeParts<'a> {
    iters: Vec<TIter<'a>>,
}

impl<'a> TreeParts<'a> {
    fn new(parts: Option<Parts<'a>>) -> TreeParts<'a> {
        let iters = parts.map_or_else(Vec::new, |p| {
            p.runs
                .iter()
                .map(|d| TIter {
                    dir: d,
                    amendments: p.amendments,
                    blocks: p.blocks,
                    postings: p.postings,
                    next_block: 0,
                    buf: Default::default(),
                })
                .collect()
        });
        TreeParts { iters }
    }

    fn lowest(&mut self) -> Result<Option<u128>> {
        let mut low: Option<u128> = None;
        for t in self.iters.iter_mut() {
            if let Some(k) = t.peek_key()? {
                low = Some(low.map_or(k, |l| l.min(k)));
            }
        }
        Ok(low)
    }

    /// The parts' records of `key` (none when no part has one).
    fn take(&mut self, key: u128) -> Result<Vec<TRecord>> {
        let mut out = Vec::new();
        for t in self.iters.iter_mut() {
            if t.peek_key()? == Some(key) {
                out.push(t.pop().expect("peeked"));
            }
        }
        Ok(out)
    }

    /// Writes the parts' records of keys below `key` (merged where several parts have one).
    fn write_below(
        &mut self,
        key: u128,
        rw: &mut RunWriter<'_>,
        rank: &dyn Fn(u32) -> Rank,
        sketch: &mut Hll,
        sketch_keys: bool,
    ) -> Result<()> {
        while let Some(k) = self.lowest()? {
            if k >= key {
                break;
            }
            let mut recs = self.take(k)?;
            if sketch_keys {
                sketch.add(k);
            }
            let mut rec = if recs.len() == 1 {
                recs.pop().expect("one record")
            } else {
                merge_records(k, recs, rank, false)
            };
            rec.forget_where_moves_lead();
            rw.record(&rec)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[bool]) -> Bits {
        let mut b = Bits::new(v.len());
        for (i, &x) in v.iter().enumerate() {
            if x {
                b.set(i);
            }
        }
        b
    }

    /// The rule as `build.rs` states it, on one game's flags, for comparison.
    fn by_hand(rare: &[bool], adj: &[bool]) -> Vec<bool> {
        let mut imp = vec![false; rare.len()];
        for i in (0..rare.len().saturating_sub(1)).rev() {
            imp[i] = rare[i] && adj[i] && rare[i + 1] && !imp[i + 1];
        }
        imp
    }

    #[test]
    fn the_sweep_marks_every_other_rare_position_of_a_chain_across_words() {
        // 200 positions: chains of rare positions of every length, broken by T positions
        // and by plies that are not consecutive, crossing 64-bit words.
        let n = 200;
        let rare: Vec<bool> = (0..n).map(|i| i % 11 != 0 && i % 17 != 3).collect();
        let adj: Vec<bool> = (0..n).map(|i| i % 13 != 5 && i + 1 < n).collect();
        let (r, mut a) = (bits(&rare), bits(&adj));
        let count = implicit_sweep(&r, &mut a);
        let expected = by_hand(&rare, &adj);
        let got: Vec<bool> = (0..n).map(|i| a.get(i)).collect();
        assert_eq!(got, expected);
        assert_eq!(count, expected.iter().filter(|&&x| x).count() as u64);
        // A chain of four rare positions ending the game: the first and third are implicit.
        let rare = [true, true, true, true];
        let adj = [true, true, true, false];
        let (r, mut a) = (bits(&rare), bits(&adj));
        implicit_sweep(&r, &mut a);
        assert_eq!(
            (0..4).map(|i| a.get(i)).collect::<Vec<_>>(),
            [true, false, true, false]
        );
    }
}
