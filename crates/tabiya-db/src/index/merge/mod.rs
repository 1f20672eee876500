//! Merging index runs.
//!
//! Imports add one run per transaction (segment). After an import, runs are merged
//! size-tiered (the newest runs merge while the next older one is at most twice their
//! combined size), so a database holds O(log n) runs and each merge rewrites data a
//! logarithmic number of times. A merge combines T records of equal keys and promotes S
//! entries whose positions now reach [`PROMOTE_AT`] games (or already have a T record):
//! those games are replayed to recover the full keys, which the 32-bit S prefix alone cannot
//! give.
//!
//! [`merge_runs`] goes in named steps: the T-record keys of the parts
//! ([`Merge::tree_keys`]), pass 1 over the S entries ([`Merge::dense_prefixes`]), the
//! replays that resolve them ([`resolve`]), round 2 for chess's implicit positions
//! ([`Merge::implicit_round`]), the decision of where each occurrence goes ([`decide`]), the
//! new T records ([`Merge::make_records`]), then one write transaction
//! ([`Merge::write`]).

pub(crate) mod assemble;
mod resolve;
mod streams;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use tabiya_store::{ReadTx, Store, TableRef, WriteTx};

use self::resolve::{Resolved, on_cores, resolve_on_cores};
use self::streams::{
    Entries, S_CACHE_LIMIT, SCache, SIter, SMerge, TIter, entries, prefix_groups, sorted_cursor,
};
use super::amend::{Amendments, PATCHES};
use super::record::{Occ, SEntry, TRecord, make_record, merge_records};
use super::writer::RunWriter;
use super::{
    BLOCKS, POSTINGS, PROMOTE_AT, RUNS, RunDir, SKETCHES, block_key, decode_t_block, prefix,
    put_run, run_key, runs_changed,
};
use crate::error::FirstError;
use crate::facts::{FactsReader, Ranks};
use crate::hll::Hll;
use crate::keymap::{KeyMap, KeySet};
use crate::schema::{Kind, META, meta_u64};
use crate::stats::{GameFacts, Rank};
use crate::trace::trace;
use crate::{Error, Result};

/// Merges runs into one, in one transaction.
///
/// Pass 1 reads the S entries of all runs in order and finds the prefixes shared by at
/// least [`PROMOTE_AT`] entries; their games are replayed once each to learn every entry's
/// full key; positions that now reach the threshold become T records, and the implicit
/// positions that hid behind a promoted entry become explicit entries. Pass 2 writes the new
/// run: T records of all runs merged by key (with the promoted ones), and S entries merged
/// in order (the dense prefixes' entries replaced by what pass 1 kept).
pub(crate) fn merge_runs(
    store: &Store,
    kind: Kind,
    max_ply: Option<u32>,
    runs: &[RunDir],
) -> Result<()> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let m = Merge::open(store, kind, max_ply, runs, threads)?;
    let tree_keys = m.tree_keys()?;
    let Pass1 {
        dense_entries,
        s_cache,
    } = m.dense_prefixes(&tree_keys)?;
    let (resolved, keep, unsure) = m.resolve_dense(&dense_entries)?;
    let mut by_key: KeyMap<Vec<Resolved>> = KeyMap::default();
    for r in resolved {
        by_key.entry(r.occ.key).or_default().push(r);
    }
    // The positions of the merged T records: those whose entries now reach the threshold,
    // and those with a T record in a part.
    let in_tree: KeySet = by_key
        .iter()
        .filter(|(_, g)| g.len() >= PROMOTE_AT)
        .map(|(k, _)| *k)
        .chain(tree_keys.keys().copied())
        .collect();
    let mut left = Left {
        keep,
        unsure,
        incomplete: runs
            .iter()
            .flat_map(|r| r.incomplete.iter().copied())
            .collect(),
    };
    // (Othello runs keep the old way: a merged one is not marked complete.)
    let complete = kind == Kind::Chess && runs.iter().all(|r| r.complete);
    let round2 = if complete {
        m.implicit_round(
            &tree_keys,
            &in_tree,
            &dense_entries,
            &s_cache,
            &mut by_key,
            &mut left,
        )?
    } else {
        HashMap::new()
    };
    // A position shares its prefix with another in some game: its record may miss that game.
    let Left {
        mut keep,
        unsure,
        mut incomplete,
    } = left;
    incomplete.extend(unsure.into_iter().filter(|k| in_tree.contains(k)));
    incomplete.sort_unstable();
    incomplete.dedup();

    let decided = decide(by_key, &in_tree, &mut keep);
    trace("merge: decided", m.t0);
    let promoted = m.make_records(decided.tree_occs)?;
    trace(
        &format!(
            "merge replays done: {} T records made or joined, {} implicit positions made explicit",
            promoted.len(),
            decided.released
        ),
        m.t0,
    );
    let implicit: u64 = runs.iter().map(|r| r.implicit).sum::<u64>() - decided.released;
    keep.extend(decided.extra);
    keep.sort_unstable();
    let mut dense_prefixes: Vec<u32> = dense_entries.keys().chain(round2.keys()).copied().collect();
    dense_prefixes.sort_unstable();
    drop(dense_entries);
    drop(round2);
    let merged = Merged {
        promoted,
        keep,
        dense_prefixes,
        implicit,
        complete,
        incomplete,
    };
    m.write(merged, &s_cache)
}

/// Merges runs into one without replaying a game, from their T records and the rare
/// occurrences of their games with whole keys, sorted (`open` streams them, twice): how an
/// import that needed several segments ends (see [`assemble`]). The runs must index
/// exactly the games of `games`, and the stream every counted position of those games
/// that is not in one of their T records.
pub(crate) fn merge_sorted(
    store: &Store,
    kind: Kind,
    max_ply: Option<u32>,
    runs: &[RunDir],
    games: &assemble::Games<'_>,
    open: &dyn Fn() -> Result<crate::index::sorted::OccStream<'static>>,
) -> Result<()> {
    let m = Merge::open(store, kind, max_ply, runs, 1)?;
    let new_id = meta_u64(&m.read, "next_run")? as u32;
    let n_games: u64 = runs.iter().map(|r| r.games).sum();
    let w = store.write()?;
    let mut rw = RunWriter::new(&w, new_id, n_games)?;
    let parts = assemble::Parts {
        runs,
        amendments: &m.amendments,
        blocks: &m.blocks,
        postings: &m.postings,
    };
    let done = assemble::assemble(&mut rw, &m.read, games, Some(parts), open, false)?;
    let mut dir = rw.finish()?;
    dir.implicit = done.implicit;
    dir.complete = true;
    trace("sorted merge written", m.t0);
    put_run(&w, new_id, &dir)?;
    m.replace_parts(&w, new_id)?;
    w.commit()?;
    Ok(())
}

/// What a merge reads from: the runs, their tables, one read transaction.
struct Merge<'a> {
    store: &'a Store,
    kind: Kind,
    max_ply: Option<u32>,
    /// Deleted games and patched records: folded into the merged run.
    amendments: Amendments,
    runs: &'a [RunDir],
    read: ReadTx,
    blocks: TableRef,
    postings: TableRef,
    threads: usize,
    t0: Instant,
}

/// What pass 1 found: the dense prefixes' entries, and all entries when they fit memory.
struct Pass1 {
    dense_entries: HashMap<u32, Vec<SEntry>>,
    s_cache: Option<SCache>,
}

/// Entries left as they are, keys they might stand for, and positions whose records may
/// miss a game.
struct Left {
    keep: Vec<SEntry>,
    unsure: Vec<u128>,
    incomplete: Vec<u128>,
}

/// Where the resolved occurrences go.
struct Decided {
    tree_occs: KeyMap<Vec<Occ>>,
    extra: Vec<SEntry>,
    released: u64,
}

/// The new run, ready to write.
struct Merged {
    promoted: Vec<TRecord>,
    keep: Vec<SEntry>,
    dense_prefixes: Vec<u32>,
    implicit: u64,
    complete: bool,
    incomplete: Vec<u128>,
}

impl<'a> Merge<'a> {
    /// A merge of `runs`, reading them through one read transaction.
    fn open(
        store: &'a Store,
        kind: Kind,
        max_ply: Option<u32>,
        runs: &'a [RunDir],
        threads: usize,
    ) -> Result<Merge<'a>> {
        let read: ReadTx = store.read()?;
        Ok(Merge {
            store,
            kind,
            max_ply,
            runs,
            blocks: read.table(BLOCKS)?,
            postings: read.table(POSTINGS)?,
            threads,
            t0: Instant::now(),
            amendments: Amendments::new(&read)?,
            read,
        })
    }

    /// The merged S entries of the parts, streamed from their blocks.
    fn s_merge(&self) -> SMerge<'_> {
        SMerge::new(
            self.runs
                .iter()
                .map(|d| SIter {
                    dir: d,
                    amendments: &self.amendments,
                    blocks: &self.blocks,
                    next_block: 0,
                    buf: VecDeque::new(),
                })
                .collect(),
        )
    }

    /// The positions with a T record in any part: their S entries in the other parts join
    /// the merged record, so that a query of a popular position rarely has games to replay.
    /// (With one game of each: a replay of it finds the position, for round 2.)
    fn tree_keys(&self) -> Result<KeyMap<Option<u32>>> {
        let mut tree_keys: KeyMap<Option<u32>> = KeyMap::default();
        for d in self.runs {
            for b in 0..d.t_first.len() {
                let key = block_key(d.id, b'T', b as u32);
                let data = self
                    .blocks
                    .get(&key)?
                    .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
                for mut rec in decode_t_block(&data)? {
                    self.amendments.amend(d.id, &mut rec)?;
                    let mut game = rec
                        .top
                        .first()
                        .or_else(|| rec.postings.as_ref().and_then(|p| p.first()))
                        .map(|p| p.game);
                    if game.is_none() && rec.postings.is_none() {
                        // Long list, best games all deleted: a game left, if any.
                        let mut p = self.external_postings(d.id, &rec)?;
                        self.amendments.retain_postings(&mut p);
                        game = p.first().map(|p| p.game);
                    }
                    if game.is_none() {
                        // Every game of the record was deleted: not a position of the tree.
                        continue;
                    }
                    let known = tree_keys.entry(rec.key).or_default();
                    *known = known.or(game);
                }
            }
        }
        Ok(tree_keys)
    }

    /// The long game list of a part's T record (as stored).
    fn external_postings(&self, run: u32, rec: &TRecord) -> Result<Vec<super::record::Posting>> {
        let data = self
            .postings
            .get(&super::postings_key(run, rec.key))?
            .ok_or_else(|| Error::Corrupt("missing postings".into()))?;
        Ok(super::decode_external_postings(&data, rec.n_postings)?)
    }

    /// Pass 1: dense prefixes (shared by enough entries, or by a T record) and their
    /// entries; every entry kept in memory too when they fit.
    fn dense_prefixes(&self, tree_keys: &KeyMap<Option<u32>>) -> Result<Pass1> {
        let mut tree_prefixes: Vec<u32> = tree_keys.keys().map(|&k| prefix(k)).collect();
        tree_prefixes.sort_unstable();
        tree_prefixes.dedup();
        let total_entries: u64 = self.runs.iter().map(|r| r.s_entries).sum();
        let mut s_cache: Option<SCache> = (total_entries
            <= S_CACHE_LIMIT.load(std::sync::atomic::Ordering::Relaxed))
        .then(|| SCache {
            packed: Vec::with_capacity(total_entries as usize),
            pred: Vec::with_capacity((total_entries as usize).div_ceil(64)),
        });
        let mut dense_entries: HashMap<u32, Vec<SEntry>> = HashMap::new();
        let mut tree_at = sorted_cursor(&tree_prefixes);
        prefix_groups(&mut Entries::Stream(self.s_merge()), |group| {
            if let Some(c) = s_cache.as_mut() {
                group.iter().for_each(|&e| c.push(e));
            }
            let p = group[0].prefix;
            if group.len() >= PROMOTE_AT || tree_at(p) {
                dense_entries.insert(p, std::mem::take(group));
            }
        })?;
        trace(
            &format!(
                "merge pass 1: {} T records in the parts, {} dense prefixes",
                tree_keys.len(),
                dense_entries.len()
            ),
            self.t0,
        );
        Ok(Pass1 {
            dense_entries,
            s_cache,
        })
    }

    /// Resolves each dense entry to its full key by replaying its game once.
    fn resolve_dense(
        &self,
        dense_entries: &HashMap<u32, Vec<SEntry>>,
    ) -> Result<resolve::Resolution> {
        // (game, dense prefix) pairs, by game: each game is replayed once for all its
        // prefixes.
        let mut wanted: Vec<(u32, u32)> = dense_entries
            .iter()
            .flat_map(|(p, es)| es.iter().map(move |e| (e.game, *p)))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let n_games = wanted.chunk_by(|a, b| a.0 == b.0).count();
        trace(&format!("merge: {n_games} games to replay"), self.t0);
        let out = resolve_on_cores(
            self.kind,
            self.max_ply,
            &self.read,
            &wanted,
            dense_entries,
            self.threads,
        )?;
        trace(
            &format!(
                "merge replays: {} entries resolved, {} left",
                out.0.len(),
                out.1.len()
            ),
            self.t0,
        );
        Ok(out)
    }

    /// Round 2 (chess): the implicit occurrences of the positions of `in_tree`, so that
    /// their records hold every game. A position is implicit in a game when the entry of the
    /// next position (one legal move away) has `pred` set: the `pred` entries of every
    /// successor's prefix not resolved above are resolved too. Returns those prefixes'
    /// entries.
    fn implicit_round(
        &self,
        tree_keys: &KeyMap<Option<u32>>,
        in_tree: &KeySet,
        dense_entries: &HashMap<u32, Vec<SEntry>>,
        s_cache: &Option<SCache>,
        by_key: &mut KeyMap<Vec<Resolved>>,
        left: &mut Left,
    ) -> Result<HashMap<u32, Vec<SEntry>>> {
        let mut needed: Vec<(u32, u128)> = Vec::with_capacity(in_tree.len());
        for &k in in_tree {
            match tree_keys
                .get(&k)
                .copied()
                .flatten()
                .or_else(|| by_key.get(&k).and_then(|g| g.first()).map(|r| r.occ.game))
            {
                Some(g) => needed.push((g, k)),
                None => left.incomplete.push(k),
            }
        }
        needed.sort_unstable();
        let succ = self.successor_prefixes(&needed, dense_entries, left)?;
        let mut round2: HashMap<u32, Vec<SEntry>> = HashMap::new();
        let mut succ_at = sorted_cursor(&succ);
        prefix_groups(&mut entries(s_cache, || self.s_merge()), |group| {
            let p = group[0].prefix;
            if succ_at(p) && group.iter().any(|e| e.pred) {
                round2.insert(p, std::mem::take(group));
            }
        })?;
        // Games with a `pred` entry there are replayed; the others' entries stay as they are.
        let mut wanted2: Vec<(u32, u32)> = Vec::new();
        for (p, es) in &round2 {
            for e in es {
                if es.iter().any(|x| x.game == e.game && x.pred) {
                    if e.pred {
                        wanted2.push((e.game, *p));
                    }
                } else {
                    left.keep.push(*e);
                }
            }
        }
        wanted2.sort_unstable();
        wanted2.dedup();
        trace(
            &format!("merge round 2: {} entries to resolve", wanted2.len()),
            self.t0,
        );
        let (resolved2, keep2, unsure2) = resolve_on_cores(
            self.kind,
            self.max_ply,
            &self.read,
            &wanted2,
            &round2,
            self.threads,
        )?;
        trace(
            &format!(
                "merge round 2: successors of {} positions, {} prefixes with pred entries, {} entries resolved",
                needed.len(),
                round2.len(),
                resolved2.len()
            ),
            self.t0,
        );
        // None of these reaches the threshold (their prefixes have fewer entries).
        for r in resolved2 {
            by_key.entry(r.occ.key).or_default().push(r);
        }
        left.keep.extend(keep2);
        left.unsure.extend(unsure2);
        Ok(round2)
    }

    /// The prefixes of the positions one move after each of `needed` ((game, key) pairs),
    /// those not already dense; a key whose game does not reach it is left incomplete.
    fn successor_prefixes(
        &self,
        needed: &[(u32, u128)],
        dense_entries: &HashMap<u32, Vec<SEntry>>,
        left: &mut Left,
    ) -> Result<Vec<u32>> {
        let chunk = needed.len().div_ceil(self.threads).max(1);
        let parts: Vec<&[(u32, u128)]> = needed.chunks(chunk).collect();
        let found = on_cores(
            self.kind,
            self.max_ply,
            &self.read,
            parts,
            |r, part| -> Result<(Vec<u32>, Vec<u128>)> {
                let mut prefixes = Vec::new();
                let mut failed = Vec::new();
                for &(g, k) in part {
                    match r.successor_keys(g, k)? {
                        Some(succ) => prefixes.extend(succ.into_iter().map(prefix)),
                        None => failed.push(k),
                    }
                }
                Ok((prefixes, failed))
            },
        )?;
        let mut succ: Vec<u32> = Vec::new();
        for (p, f) in found {
            succ.extend(p);
            left.incomplete.extend(f);
        }
        succ.sort_unstable();
        succ.dedup();
        succ.retain(|p| !dense_entries.contains_key(p));
        trace(
            &format!("merge round 2: {} successor prefixes", succ.len()),
            self.t0,
        );
        Ok(succ)
    }

    /// The records of the promoted positions, made on every core (each thread reading facts
    /// on its own).
    fn make_records(&self, tree_occs: KeyMap<Vec<Occ>>) -> Result<Vec<TRecord>> {
        let mut groups: Vec<(u128, Vec<Occ>)> = tree_occs.into_iter().collect();
        groups.sort_unstable_by_key(|g| g.0);
        let chunk = groups.len().div_ceil(self.threads).max(1);
        let parts: Vec<&[(u128, Vec<Occ>)]> = groups.chunks(chunk).collect();
        let read = &self.read;
        let made = on_cores(
            self.kind,
            self.max_ply,
            read,
            parts,
            |_, part| -> Result<Vec<TRecord>> {
                let facts = FactsReader::new(read)?;
                let failed = FirstError::default();
                let fact = |g: u32| -> GameFacts { failed.or_default(facts.get(g)) };
                let mut occs: Vec<Occ> = Vec::new();
                let made = part
                    .iter()
                    .map(|(k, o)| {
                        occs.clear();
                        occs.extend_from_slice(o);
                        occs.sort_unstable_by_key(|o| o.game);
                        make_record(*k, &occs, &fact)
                    })
                    .collect();
                failed.check()?;
                Ok(made)
            },
        )?;
        Ok(made.into_iter().flatten().collect())
    }

    /// Pass 2, in one transaction: the new run written (T records merged by key with the
    /// promoted ones, then S entries in order), the parts dropped.
    fn write(&self, merged: Merged, s_cache: &Option<SCache>) -> Result<()> {
        let new_id = meta_u64(&self.read, "next_run")? as u32;
        let games: u64 = self.runs.iter().map(|r| r.games).sum();
        let w = self.store.write()?;
        let mut rw = RunWriter::new(&w, new_id, games)?;
        let complete_for =
            |key: u128| merged.complete && merged.incomplete.binary_search(&key).is_err();
        self.write_records(&mut rw, merged.promoted, &complete_for)?;
        trace("merge pass 2a (T records) written", self.t0);
        self.write_entries(&mut rw, merged.keep, &merged.dense_prefixes, s_cache)?;
        let mut dir = rw.finish()?;
        dir.implicit = merged.implicit;
        dir.complete = merged.complete;
        dir.incomplete = if merged.complete {
            merged.incomplete
        } else {
            Vec::new()
        };
        trace("merge pass 2 written", self.t0);
        put_run(&w, new_id, &dir)?;
        self.replace_parts(&w, new_id)?;
        w.commit()?;
        Ok(())
    }

    /// Pass 2a: T records of every part merged by key, with the promoted ones.
    /// `complete_for`: whether the merged run's record of a key is complete.
    fn write_records(
        &self,
        rw: &mut RunWriter<'_>,
        promoted: Vec<TRecord>,
        complete_for: &dyn Fn(u128) -> bool,
    ) -> Result<()> {
        let ranks = Ranks::new(&self.read)?;
        let failed = FirstError::default();
        let rank = |g: u32| -> Rank { failed.or_default(ranks.get(g)) };
        let mut titers: Vec<TIter> = self
            .runs
            .iter()
            .map(|d| TIter {
                dir: d,
                amendments: &self.amendments,
                blocks: &self.blocks,
                postings: &self.postings,
                next_block: 0,
                buf: VecDeque::new(),
            })
            .collect();
        let mut promoted = promoted.into_iter().peekable();
        loop {
            let mut next: Option<u128> = promoted.peek().map(|r| r.key);
            for t in titers.iter_mut() {
                if let Some(k) = t.peek_key()? {
                    next = Some(next.map_or(k, |n| n.min(k)));
                }
            }
            let Some(key) = next else { break };
            let mut parts: Vec<TRecord> = Vec::new();
            for t in titers.iter_mut() {
                if t.peek_key()? == Some(key) {
                    parts.push(t.pop().expect("peeked"));
                }
            }
            // A move's games stay its position's whole only when every part's record was
            // complete and no game came from elsewhere ([`TRecord::whole`]): not from S
            // entries promoted into the record either.
            let joined = promoted.peek().is_some_and(|r| r.key == key);
            let whole = !joined
                && parts.len() == self.runs.len()
                && self.runs.iter().all(|r| r.complete_for(key))
                && complete_for(key);
            if joined {
                parts.push(promoted.next().expect("peeked"));
            }
            if parts.len() == 1 {
                let mut rec = parts.pop().expect("one part");
                if !whole {
                    rec.forget_where_moves_lead();
                }
                rw.record(&rec)?;
            } else {
                rw.record(&merge_records(key, parts, &rank, whole))?;
            }
        }
        // (A record ranked from a facts row that failed to read is never committed.)
        failed.check()
    }

    /// Pass 2b: S entries in order; dense prefixes' entries come from `keep`.
    fn write_entries(
        &self,
        rw: &mut RunWriter<'_>,
        keep: Vec<SEntry>,
        dense_prefixes: &[u32],
        s_cache: &Option<SCache>,
    ) -> Result<()> {
        let mut m = entries(s_cache, || self.s_merge());
        let mut keep = keep.into_iter().peekable();
        let mut dense_at = sorted_cursor(dense_prefixes);
        while let Some(e) = m.next()? {
            while keep.peek().is_some_and(|k| *k < e) {
                rw.single(keep.next().expect("peeked"))?;
            }
            if dense_at(e.prefix) {
                continue;
            }
            rw.single(e)?;
        }
        for k in keep {
            rw.single(k)?;
        }
        Ok(())
    }

    /// The parts' sketches merged into the new run's, and the parts dropped.
    fn replace_parts(&self, w: &WriteTx, new_id: u32) -> Result<()> {
        let runs = self.runs;
        let mut sketch = Hll::default();
        let sketches = self.read.table(SKETCHES)?;
        for r in runs {
            if let Some(data) = sketches.get(&run_key(r.id))? {
                sketch.merge(&Hll::decode(&data)?);
            }
        }
        w.with_table(SKETCHES, |t| {
            for r in runs {
                t.remove(&run_key(r.id))?;
            }
            t.put(&run_key(new_id), &sketch.encode())
        })?;
        // (The patches table only when there are patches: a merge makes no table.)
        let patched = !self.read.table(PATCHES)?.is_empty()?;
        for table in [BLOCKS, POSTINGS, PATCHES] {
            if table == PATCHES && !patched {
                continue;
            }
            w.with_table(table, |t| {
                for r in runs {
                    t.remove_range(&r.id.to_be_bytes(), &(r.id + 1).to_be_bytes())?;
                }
                Ok(())
            })?;
        }
        w.with_table(RUNS, |t| {
            for r in runs {
                t.remove(&run_key(r.id))?;
            }
            Ok(())
        })?;
        runs_changed(w)?;
        w.with_table(META, |t| {
            t.put(b"next_run", (new_id + 1).to_string().as_bytes())
        })?;
        Ok(())
    }
}

/// Decides where each resolved occurrence goes. A position of `in_tree` gets its
/// occurrences in its T record. An implicit position before an entry comes out where that
/// entry no longer speaks for it: into its T record if it has one, else as an explicit
/// entry. And where the entry stays, an implicit position before it with a T record joins
/// that record (the entry loses its `pred`). Entries that stay go to `keep`.
fn decide(by_key: KeyMap<Vec<Resolved>>, in_tree: &KeySet, keep: &mut Vec<SEntry>) -> Decided {
    let mut tree_occs: KeyMap<Vec<Occ>> = KeyMap::default();
    let mut extra: Vec<SEntry> = Vec::new();
    let mut released = 0u64;
    for (k, group) in by_key {
        let promote = in_tree.contains(&k);
        for r in group {
            let mut pred = r.pred;
            if let Some(b) = r.before {
                if in_tree.contains(&{ b.key }) {
                    tree_occs.entry(b.key).or_default().push(b);
                    pred = false;
                    released += 1;
                } else if promote {
                    extra.push(SEntry {
                        prefix: prefix(b.key),
                        game: b.game,
                        pred: false,
                    });
                    released += 1;
                }
            }
            if promote {
                tree_occs.entry(k).or_default().push(r.occ);
            } else {
                keep.push(SEntry {
                    prefix: prefix(k),
                    game: r.occ.game,
                    pred,
                });
            }
        }
    }
    Decided {
        tree_occs,
        extra,
        released,
    }
}
