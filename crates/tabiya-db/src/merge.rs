//! Writing index runs and merging them.
//!
//! Imports add one run per transaction (segment). After an import, runs are merged size-tiered (the newest
//! runs merge while the next older one is at most twice their combined size), so a database
//! holds O(log n) runs and each merge rewrites data a logarithmic number of times. A merge
//! combines T records of equal keys and promotes S entries whose positions now reach
//! [`run::PROMOTE_AT`] games (or already have a T record): those games are replayed to
//! recover the full keys, which the 32-bit S prefix alone cannot give.

use std::collections::{HashMap, VecDeque};

use tabiya_store::{ReadTx, TableMut, TableRef, WriteTx};

use crate::facts::FactsReader;
use crate::hll::Hll;
use crate::keymap::{KeyMap, KeySet};
use crate::run::{
    self, BLOCKS, Emitted, Occ, POSTINGS, RUNS, RunDir, RunEncoder, SEntry, SKETCHES, Singles,
    TRecord,
};
use crate::stats::GameFacts;
use crate::{Database, Error, META, Result, load_runs, meta_u64};

/// Writes a run block by block as records and entries arrive.
pub(crate) struct RunWriter<'t> {
    blocks: TableMut<'t>,
    postings: TableMut<'t>,
    enc: RunEncoder,
    dir: RunDir,
    pending: Vec<Emitted>,
}

impl<'t> RunWriter<'t> {
    pub fn new(w: &'t WriteTx, run_id: u32, games: u64) -> Result<RunWriter<'t>> {
        Ok(RunWriter {
            blocks: w.table(BLOCKS)?,
            postings: w.table(POSTINGS)?,
            enc: RunEncoder::default(),
            dir: RunDir {
                id: run_id,
                games,
                ..Default::default()
            },
            pending: Vec::new(),
        })
    }

    fn drain(&mut self) -> Result<()> {
        let id = self.dir.id;
        for e in self.pending.drain(..) {
            match e {
                Emitted::TBlock(first, b) => {
                    let idx = self.dir.t_first.len() as u32;
                    self.dir.t_first.push(first);
                    self.dir.bytes += b.len() as u64;
                    self.blocks.put(&run::block_key(id, b'T', idx), &b)?;
                }
                Emitted::SBlock(first, b) => {
                    let idx = self.dir.s_first.len() as u32;
                    self.dir.s_first.push(first);
                    self.dir.bytes += b.len() as u64;
                    self.blocks.put(&run::block_key(id, b'S', idx), &b)?;
                }
                Emitted::Postings(key, p) => {
                    self.dir.bytes += p.len() as u64;
                    self.postings.put(&run::postings_key(id, key), &p)?;
                }
            }
        }
        Ok(())
    }

    /// T records must come in key order.
    pub fn record(&mut self, rec: &TRecord) -> Result<()> {
        let pending = &mut self.pending;
        self.enc.push_record(rec, &mut |e| pending.push(e));
        self.drain()
    }

    /// S entries must come in (prefix, game) order.
    pub fn single(&mut self, e: SEntry) -> Result<()> {
        let pending = &mut self.pending;
        self.enc.push_single(e, &mut |e| pending.push(e));
        if !self.pending.is_empty() {
            self.drain()?;
        }
        Ok(())
    }

    /// Flushes the last blocks and returns the run's directory (not yet written).
    pub fn finish(mut self) -> Result<RunDir> {
        let pending = &mut self.pending;
        self.enc.finish(&mut |e| pending.push(e));
        self.drain()?;
        self.dir.t_records = self.enc.t_records;
        self.dir.s_entries = self.enc.s_entries;
        Ok(self.dir)
    }
}

/// A run's blocks encoded in memory, ready to write.
pub(crate) struct EncodedRun {
    emitted: Vec<Emitted>,
    t_records: u64,
    s_entries: u64,
}

/// Encodes a run on two threads: the T records and the first half of the S entries on
/// one, the other half (from a prefix boundary: a block never splits a prefix) on the
/// other. Each half's last block may be short; nothing else differs from one encoder.
pub(crate) fn encode_run(records: &[TRecord], singles: &Singles) -> EncodedRun {
    let mut cut = singles.len() / 2;
    while cut > 0 && cut < singles.len() && singles.prefix_at(cut) == singles.prefix_at(cut - 1) {
        cut += 1;
    }
    let part = |records: &[TRecord], singles: &mut dyn Iterator<Item = SEntry>| {
        let mut enc = RunEncoder::default();
        let mut out = Vec::new();
        for r in records {
            enc.push_record(r, &mut |e| out.push(e));
        }
        for e in singles {
            enc.push_single(e, &mut |e| out.push(e));
        }
        enc.finish(&mut |e| out.push(e));
        out
    };
    let (mut emitted, rest) = std::thread::scope(|s| {
        let other = s.spawn(|| part(&[], &mut (cut..singles.len()).map(|i| singles.get(i))));
        let mine = part(records, &mut (0..cut).map(|i| singles.get(i)));
        (mine, other.join().expect("run encoding thread"))
    });
    emitted.extend(rest);
    EncodedRun {
        emitted,
        t_records: records.len() as u64,
        s_entries: singles.len() as u64,
    }
}

/// Writes a run encoded by [`encode_run`] (a batch's or an import segment's: complete).
pub(crate) fn write_encoded_run(
    w: &WriteTx,
    run_id: u32,
    games: u64,
    run: EncodedRun,
    sketch: &Hll,
    implicit: u64,
) -> Result<RunDir> {
    let mut rw = RunWriter::new(w, run_id, games)?;
    rw.pending = run.emitted;
    rw.drain()?;
    let mut dir = rw.dir;
    dir.t_records = run.t_records;
    dir.s_entries = run.s_entries;
    dir.implicit = implicit;
    dir.complete = true;
    w.with_table(RUNS, |t| t.put(&run::run_key(run_id), &dir.encode()))?;
    w.with_table(SKETCHES, |t| t.put(&run::run_key(run_id), &sketch.encode()))?;
    Ok(dir)
}

/// Reads a run's T records in key order, with their postings loaded.
struct TIter<'a> {
    dir: &'a RunDir,
    blocks: &'a TableRef,
    postings: &'a TableRef,
    next_block: usize,
    buf: VecDeque<TRecord>,
}

impl TIter<'_> {
    fn peek_key(&mut self) -> Result<Option<u128>> {
        self.fill()?;
        Ok(self.buf.front().map(|r| r.key))
    }

    fn fill(&mut self) -> Result<()> {
        while self.buf.is_empty() && self.next_block < self.dir.t_first.len() {
            let key = run::block_key(self.dir.id, b'T', self.next_block as u32);
            self.next_block += 1;
            let data = self
                .blocks
                .get(&key)?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
            for mut rec in run::decode_t_block(&data)? {
                if rec.postings.is_none() {
                    let pk = run::postings_key(self.dir.id, rec.key);
                    let p = self
                        .postings
                        .get(&pk)?
                        .ok_or_else(|| Error::Corrupt("missing postings".into()))?;
                    rec.postings = Some(run::decode_external_postings(&p, rec.n_postings)?);
                }
                self.buf.push_back(rec);
            }
        }
        Ok(())
    }

    fn pop(&mut self) -> Option<TRecord> {
        self.buf.pop_front()
    }
}

struct SIter<'a> {
    dir: &'a RunDir,
    blocks: &'a TableRef,
    next_block: usize,
    buf: VecDeque<SEntry>,
}

impl SIter<'_> {
    fn peek(&mut self) -> Result<Option<u32>> {
        while self.buf.is_empty() && self.next_block < self.dir.s_first.len() {
            let key = run::block_key(self.dir.id, b'S', self.next_block as u32);
            self.next_block += 1;
            let data = self
                .blocks
                .get(&key)?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
            self.buf.extend(run::decode_s_block(&data)?);
        }
        Ok(self.buf.front().map(|e| e.prefix))
    }
}

/// Replays stored games to recover their counted positions.
pub(crate) struct Replayer<'a> {
    pub games: crate::records::Records,
    pub db: &'a Database,
}

impl Replayer<'_> {
    /// The stored form of a game the index refers to.
    pub fn record(&self, game: u32) -> Result<Vec<u8>> {
        self.games
            .get(game)?
            .ok_or_else(|| Error::Corrupt(format!("index refers to missing game {game}")))
    }

    /// [`Replayer::occurrences_with_plies`] into buffers the caller reuses.
    pub fn occurrences_with_plies_into(
        &self,
        game: u32,
        occs: &mut Vec<crate::chess::Occurrence>,
        plies: &mut Vec<u16>,
    ) -> Result<()> {
        match self.db.kind() {
            crate::Kind::Chess => {
                crate::chess::replay_record(&self.record(game)?, self.db.max_ply(), occs, plies)?
            }
            crate::Kind::Othello => {
                *occs = self.occurrences(game)?;
                plies.clear();
                plies.extend((0..occs.len()).map(|i| i as u16));
            }
        }
        Ok(())
    }

    /// The counted positions of a game with the ply of each.
    pub fn occurrences_with_plies(
        &self,
        game: u32,
    ) -> Result<(Vec<crate::chess::Occurrence>, Vec<u16>)> {
        let (mut occs, mut plies) = (Vec::with_capacity(128), Vec::with_capacity(128));
        self.occurrences_with_plies_into(game, &mut occs, &mut plies)?;
        Ok((occs, plies))
    }

    /// The occurrence of position `key` in a game (its first), or `None` when the game does
    /// not reach it within the ply cap. Chess replays only up to it.
    /// With `reach` (the position's [`crate::chess::Reach`]) it also stops once the game can
    /// no longer get there.
    pub fn occurrence_of(
        &self,
        game: u32,
        key: u128,
        reach: Option<&crate::chess::Reach>,
    ) -> Result<Option<crate::chess::Occurrence>> {
        match self.db.kind() {
            crate::Kind::Chess => {
                let data = self.record(game)?;
                let mut occs = Vec::with_capacity(64);
                let mut plies = Vec::with_capacity(64);
                crate::chess::replay_record_until(
                    &data,
                    self.db.max_ply(),
                    Some((key, reach)),
                    &mut occs,
                    &mut plies,
                )?;
                Ok(occs.last().filter(|o| o.key == key).copied())
            }
            crate::Kind::Othello => Ok(self.occurrences(game)?.into_iter().find(|o| o.key == key)),
        }
    }

    /// The counted positions of a game.
    pub fn occurrences(&self, game: u32) -> Result<Vec<crate::chess::Occurrence>> {
        let data = self.record(game)?;
        match self.db.kind() {
            crate::Kind::Chess => {
                let mut occs = Vec::with_capacity(128);
                let mut plies = Vec::with_capacity(128);
                crate::chess::replay_record(&data, self.db.max_ply(), &mut occs, &mut plies)?;
                Ok(occs)
            }
            crate::Kind::Othello => crate::othello::record_occurrences(&data),
        }
    }
}

/// An S entry whose full key a replay found.
struct Resolved {
    occ: Occ,
    pred: bool,
    /// The implicit position before it (when `pred` and the game's previous ply counted).
    before: Option<Occ>,
}

/// All S entries of several runs in (prefix, game) order. The prefix space is cut in
/// [`BUCKETS`] ranges; each run's entries of one range are contiguous, so a range is
/// gathered from every run and sorted (cheaper than a heap over the runs' heads).
struct SMerge<'a> {
    iters: Vec<SIter<'a>>,
    bucket: Vec<SEntry>,
    at: usize,
    /// The next range to gather.
    next: u64,
}

/// Number of prefix ranges of [`SMerge`].
const BUCKETS: u64 = 1 << 12;

impl<'a> SMerge<'a> {
    fn new(iters: Vec<SIter<'a>>) -> Self {
        SMerge {
            iters,
            bucket: Vec::new(),
            at: 0,
            next: 0,
        }
    }

    fn next(&mut self) -> Result<Option<SEntry>> {
        while self.at == self.bucket.len() {
            if self.next >= BUCKETS {
                return Ok(None);
            }
            let shift = 32 - BUCKETS.trailing_zeros();
            // Skip straight to the lowest range any run has left.
            let mut lowest = u64::MAX;
            for it in self.iters.iter_mut() {
                if let Some(p) = it.peek()? {
                    lowest = lowest.min(u64::from(p >> shift));
                }
            }
            if lowest == u64::MAX {
                self.next = BUCKETS;
                return Ok(None);
            }
            let b = lowest.max(self.next);
            self.bucket.clear();
            self.at = 0;
            for it in self.iters.iter_mut() {
                while let Some(p) = it.peek()? {
                    if u64::from(p >> shift) != b {
                        break;
                    }
                    // Take the rest of this block's entries of the range at once.
                    let n = it
                        .buf
                        .iter()
                        .take_while(|e| u64::from(e.prefix >> shift) == b)
                        .count();
                    self.bucket.extend(it.buf.drain(..n));
                }
            }
            // Each run's entries are already in order: a stable sort merges those runs.
            self.bucket.sort();
            self.next = b + 1;
        }
        let e = self.bucket[self.at];
        self.at += 1;
        Ok(Some(e))
    }
}

/// The merged S entries of pass 1 kept in memory (8 bytes each, `pred` in a bit set), so
/// that round 2 and pass 2 read them again without decoding and merging the parts' blocks.
/// Only when they fit [`S_CACHE_MAX`]; otherwise each pass streams them anew.
#[derive(Default)]
struct SCache {
    packed: Vec<u64>,
    pred: Vec<u64>,
}

/// Most S entries a merge keeps in memory (1 GiB).
const S_CACHE_MAX: u64 = 1 << 27;

/// [`S_CACHE_MAX`], lowered by a test to take the streaming way.
static S_CACHE_LIMIT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(S_CACHE_MAX);

impl SCache {
    fn push(&mut self, e: SEntry) {
        let i = self.packed.len();
        self.packed
            .push((u64::from(e.prefix) << 32) | u64::from(e.game));
        if i.is_multiple_of(64) {
            self.pred.push(0);
        }
        if e.pred {
            self.pred[i / 64] |= 1 << (i % 64);
        }
    }

    fn get(&self, i: usize) -> Option<SEntry> {
        let p = *self.packed.get(i)?;
        Some(SEntry {
            prefix: (p >> 32) as u32,
            game: p as u32,
            pred: self.pred[i / 64] >> (i % 64) & 1 == 1,
        })
    }
}

/// The merged S entries: streamed from the parts, or read from the [`SCache`].
enum Entries<'a> {
    Stream(SMerge<'a>),
    Cached(&'a SCache, usize),
}

/// The merged entries from the cache if there is one, else streamed anew.
fn entries<'a>(cache: &'a Option<SCache>, stream: impl FnOnce() -> SMerge<'a>) -> Entries<'a> {
    match cache {
        Some(c) => Entries::Cached(c, 0),
        None => Entries::Stream(stream()),
    }
}

impl Entries<'_> {
    fn next(&mut self) -> Result<Option<SEntry>> {
        match self {
            Entries::Stream(m) => m.next(),
            Entries::Cached(c, at) => {
                let e = c.get(*at);
                *at += 1;
                Ok(e)
            }
        }
    }
}

/// Calls `f` with the entries of each prefix in turn, in merged order (`f` may take them).
fn prefix_groups(m: &mut Entries<'_>, mut f: impl FnMut(&mut Vec<SEntry>)) -> Result<()> {
    let mut group: Vec<SEntry> = Vec::new();
    while let Some(e) = m.next()? {
        if group.first().is_some_and(|g| g.prefix != e.prefix) {
            f(&mut group);
            group.clear();
        }
        group.push(e);
    }
    if !group.is_empty() {
        f(&mut group);
    }
    Ok(())
}

/// Membership in a sorted list, asked with rising values: one pass over the list in all.
fn sorted_cursor(sorted: &[u32]) -> impl FnMut(u32) -> bool + '_ {
    let mut at = 0usize;
    move |p| {
        while at < sorted.len() && sorted[at] < p {
            at += 1;
        }
        sorted.get(at) == Some(&p)
    }
}

/// Replays the games of `wanted` ((game, prefix) pairs in game order) and finds the full key
/// of each of their entries with those prefixes (`dense`: entries by prefix, in game order).
/// Returns the resolved entries, and the entries left as they are: those of a game with two
/// positions sharing the prefix (too rare to bother), and `pred` entries with no counted
/// position just before them.
/// Also returns the keys such a left entry might stand for (the positions with the prefix
/// and the ones just before them).
fn resolve_entries(
    r: &Replayer<'_>,
    wanted: &[(u32, u32)],
    dense: &HashMap<u32, Vec<SEntry>>,
) -> Result<Resolution> {
    let mut resolved = Vec::new();
    let mut keep = Vec::new();
    let mut unsure = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    let (mut occs, mut plies) = (Vec::with_capacity(256), Vec::with_capacity(256));
    for game in wanted.chunk_by(|a, b| a.0 == b.0) {
        let g = game[0].0;
        r.occurrences_with_plies_into(g, &mut occs, &mut plies)?;
        for &(_, p) in game {
            // Entries of a prefix are sorted by game.
            let group = &dense[&p];
            let from = group.partition_point(|e| e.game < g);
            let to = group.partition_point(|e| e.game <= g);
            let mine = &group[from..to];
            at.clear();
            at.extend((0..occs.len()).filter(|&i| run::prefix(occs[i].key) == p));
            // One entry and one position with this prefix in the game: the entry is that
            // position.
            if let ([e], [i]) = (mine, at.as_slice()) {
                let o = occs[*i];
                // The position just before, when this entry stands for it too.
                let before = (e.pred && *i > 0 && plies[*i - 1].wrapping_add(1) == plies[*i])
                    .then(|| occs[*i - 1]);
                if e.pred && before.is_none() {
                    keep.push(*e);
                    continue;
                }
                let occ = |o: crate::chess::Occurrence| Occ {
                    key: o.key,
                    game: g,
                    code: o.code,
                    mover: o.mover,
                };
                resolved.push(Resolved {
                    occ: occ(o),
                    pred: e.pred,
                    before: before.map(occ),
                });
            } else {
                keep.extend_from_slice(mine);
                for &i in &at {
                    unsure.push(occs[i].key);
                    if i > 0 {
                        unsure.push(occs[i - 1].key);
                    }
                }
            }
        }
    }
    Ok((resolved, keep, unsure))
}

/// Resolved entries, entries left as they are, keys they might stand for.
type Resolution = (Vec<Resolved>, Vec<SEntry>, Vec<u128>);

/// [`resolve_entries`] on every core, each taking a range of games.
fn resolve_on_cores(
    db: &Database,
    read: &ReadTx,
    wanted: &[(u32, u32)],
    dense: &HashMap<u32, Vec<SEntry>>,
    threads: usize,
) -> Result<Resolution> {
    let mut parts: Vec<&[(u32, u32)]> = Vec::with_capacity(threads);
    let mut rest = wanted;
    for t in (1..=threads).rev() {
        let mut cut = rest.len() / t;
        while cut > 0 && cut < rest.len() && rest[cut].0 == rest[cut - 1].0 {
            cut += 1;
        }
        let (a, b) = rest.split_at(cut);
        parts.push(a);
        rest = b;
    }
    let mut out: Resolution = (Vec::new(), Vec::new(), Vec::new());
    for (r, k, u) in on_cores(db, read, parts, |r, part| resolve_entries(r, part, dense))? {
        out.0.extend(r);
        out.1.extend(k);
        out.2.extend(u);
    }
    Ok(out)
}

/// Runs `f` on each part in its own thread (the merge's replays share the cores: the parse
/// threads are done), each with its own game reader.
fn on_cores<T: Sync, R: Send>(
    db: &Database,
    read: &ReadTx,
    parts: Vec<&[T]>,
    f: impl Fn(&Replayer<'_>, &[T]) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| {
                s.spawn(move || -> Result<R> {
                    let r = Replayer {
                        games: crate::records::Records::new(read)?,
                        db,
                    };
                    f(&r, part)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Corrupt("merge thread panicked".into())))
            })
            .collect()
    })
}

/// Merges runs into one, in one transaction.
///
/// Pass 1 reads the S entries of all runs in order and finds the prefixes shared by at
/// least [`run::PROMOTE_AT`] entries; their games are replayed once each to learn every
/// entry's full key; positions that now reach the threshold become T records, and the
/// implicit positions that hid behind a promoted entry become explicit entries. Pass 2
/// writes the new run: T records of all runs merged by key (with the promoted ones), and S
/// entries merged in order (the dense prefixes' entries replaced by what pass 1 kept).
pub(crate) fn merge_runs(db: &Database, runs: &[RunDir]) -> Result<()> {
    let read: ReadTx = db.store.read()?;
    let blocks = read.table(BLOCKS)?;
    let postings = read.table(POSTINGS)?;
    let facts = FactsReader::new(&read)?;
    let fact = |g: u32| -> GameFacts { facts.get(g).unwrap_or_default() };
    let new_id = meta_u64(&read, "next_run")? as u32;
    let games: u64 = runs.iter().map(|r| r.games).sum();
    let s_merge = || {
        SMerge::new(
            runs.iter()
                .map(|d| SIter {
                    dir: d,
                    blocks: &blocks,
                    next_block: 0,
                    buf: VecDeque::new(),
                })
                .collect(),
        )
    };
    let t0 = std::time::Instant::now();

    // The positions with a T record in any part: their S entries in the other parts join
    // the merged record, so that a query of a popular position rarely has games to replay.
    // (With one game of each: a replay of it finds the position, for round 2 below.)
    let mut tree_keys: KeyMap<Option<u32>> = KeyMap::default();
    for d in runs {
        for b in 0..d.t_first.len() {
            let key = run::block_key(d.id, b'T', b as u32);
            let data = blocks
                .get(&key)?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
            for rec in run::decode_t_block(&data)? {
                let game = rec
                    .top
                    .first()
                    .or_else(|| rec.postings.as_ref().and_then(|p| p.first()))
                    .map(|p| p.game);
                let known = tree_keys.entry(rec.key).or_default();
                *known = known.or(game);
            }
        }
    }
    let mut tree_prefixes: Vec<u32> = tree_keys.keys().map(|&k| run::prefix(k)).collect();
    tree_prefixes.sort_unstable();
    tree_prefixes.dedup();

    let total_entries: u64 = runs.iter().map(|r| r.s_entries).sum();
    let mut s_cache: Option<SCache> = (total_entries
        <= S_CACHE_LIMIT.load(std::sync::atomic::Ordering::Relaxed))
    .then(|| SCache {
        packed: Vec::with_capacity(total_entries as usize),
        pred: Vec::with_capacity((total_entries as usize).div_ceil(64)),
    });

    // Pass 1: dense prefixes (shared by enough entries, or by a T record) and their entries.
    let mut dense_entries: HashMap<u32, Vec<SEntry>> = HashMap::new();
    {
        let mut tree_at = sorted_cursor(&tree_prefixes);
        prefix_groups(&mut Entries::Stream(s_merge()), |group| {
            if let Some(c) = s_cache.as_mut() {
                group.iter().for_each(|&e| c.push(e));
            }
            let p = group[0].prefix;
            if group.len() >= run::PROMOTE_AT || tree_at(p) {
                dense_entries.insert(p, std::mem::take(group));
            }
        })?;
    }
    // (game, dense prefix) pairs, by game: each game is replayed once for all its prefixes.
    let mut wanted: Vec<(u32, u32)> = dense_entries
        .iter()
        .flat_map(|(p, es)| es.iter().map(move |e| (e.game, *p)))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let n_games = wanted.chunk_by(|a, b| a.0 == b.0).count();
    crate::import::trace(
        &format!(
            "merge pass 1: {} T records in the parts, {} dense prefixes, {n_games} games to replay",
            tree_keys.len(),
            dense_entries.len()
        ),
        t0,
    );

    // Resolve each dense entry to its full key by replaying its game once.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let (resolved, mut keep, mut unsure) =
        resolve_on_cores(db, &read, &wanted, &dense_entries, threads)?;
    crate::import::trace(
        &format!(
            "merge replays: {} entries resolved, {} left",
            resolved.len(),
            keep.len()
        ),
        t0,
    );
    let mut by_key: KeyMap<Vec<Resolved>> = KeyMap::default();
    for r in resolved {
        by_key.entry(r.occ.key).or_default().push(r);
    }
    // The positions of the merged T records: those whose entries now reach the threshold,
    // and those with a T record in a part.
    let in_tree: KeySet = by_key
        .iter()
        .filter(|(_, g)| g.len() >= run::PROMOTE_AT)
        .map(|(k, _)| *k)
        .chain(tree_keys.keys().copied())
        .collect();

    // Round 2 (chess): the implicit occurrences of those positions, so that their records
    // hold every game. A position is implicit in a game when the entry of the next position
    // (one legal move away) has `pred` set: the `pred` entries of every successor's prefix
    // not resolved above are resolved too. (Othello runs keep the old way: a merged one is
    // not marked complete.)
    let complete = db.kind() == crate::Kind::Chess && runs.iter().all(|r| r.complete);
    let mut incomplete: Vec<u128> = runs
        .iter()
        .flat_map(|r| r.incomplete.iter().copied())
        .collect();
    let mut round2: HashMap<u32, Vec<SEntry>> = HashMap::new();
    if complete {
        let mut needed: Vec<(u32, u128)> = Vec::with_capacity(in_tree.len());
        for &k in &in_tree {
            match tree_keys
                .get(&k)
                .copied()
                .flatten()
                .or_else(|| by_key.get(&k).and_then(|g| g.first()).map(|r| r.occ.game))
            {
                Some(g) => needed.push((g, k)),
                None => incomplete.push(k),
            }
        }
        needed.sort_unstable();
        let chunk = needed.len().div_ceil(threads).max(1);
        let parts: Vec<&[(u32, u128)]> = needed.chunks(chunk).collect();
        let found = on_cores(
            db,
            &read,
            parts,
            |r, part| -> Result<(Vec<u32>, Vec<u128>)> {
                let mut prefixes = Vec::new();
                let mut failed = Vec::new();
                for &(g, k) in part {
                    match crate::chess::successor_keys_in_record(&r.record(g)?, k)? {
                        Some(succ) => prefixes.extend(succ.into_iter().map(run::prefix)),
                        None => failed.push(k),
                    }
                }
                Ok((prefixes, failed))
            },
        )?;
        let mut succ: Vec<u32> = Vec::new();
        for (p, f) in found {
            succ.extend(p);
            incomplete.extend(f);
        }
        succ.sort_unstable();
        succ.dedup();
        succ.retain(|p| !dense_entries.contains_key(p));
        crate::import::trace(
            &format!("merge round 2: {} successor prefixes", succ.len()),
            t0,
        );
        let mut succ_at = sorted_cursor(&succ);
        prefix_groups(&mut entries(&s_cache, s_merge), |group| {
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
                    keep.push(*e);
                }
            }
        }
        wanted2.sort_unstable();
        wanted2.dedup();
        crate::import::trace(
            &format!("merge round 2: {} entries to resolve", wanted2.len()),
            t0,
        );
        let (resolved2, keep2, unsure2) = resolve_on_cores(db, &read, &wanted2, &round2, threads)?;
        crate::import::trace(
            &format!(
                "merge round 2: successors of {} positions, {} prefixes with pred entries, {} entries resolved",
                needed.len(),
                round2.len(),
                resolved2.len()
            ),
            t0,
        );
        // None of these reaches the threshold (their prefixes have fewer entries).
        for r in resolved2 {
            by_key.entry(r.occ.key).or_default().push(r);
        }
        keep.extend(keep2);
        unsure.extend(unsure2);
    }
    // A position shares its prefix with another in some game: its record may miss that game.
    incomplete.extend(unsure.into_iter().filter(|k| in_tree.contains(k)));
    incomplete.sort_unstable();
    incomplete.dedup();

    // Decide. A position of `in_tree` gets its occurrences in its T record. An implicit
    // position before an entry comes out where that entry no longer speaks for it: into its
    // T record if it has one, else as an explicit entry. And where the entry stays, an
    // implicit position before it with a T record joins that record (the entry loses its
    // `pred`).
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
                        prefix: run::prefix(b.key),
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
                    prefix: run::prefix(k),
                    game: r.occ.game,
                    pred,
                });
            }
        }
    }
    crate::import::trace("merge: decided", t0);
    // The records, made on every core (each thread reading facts on its own).
    let mut groups: Vec<(u128, Vec<Occ>)> = tree_occs.into_iter().collect();
    groups.sort_unstable_by_key(|g| g.0);
    let chunk = groups.len().div_ceil(threads).max(1);
    let parts: Vec<&[(u128, Vec<Occ>)]> = groups.chunks(chunk).collect();
    let made = on_cores(db, &read, parts, |_, part| -> Result<Vec<TRecord>> {
        let facts = FactsReader::new(&read)?;
        let fact = |g: u32| -> GameFacts { facts.get(g).unwrap_or_default() };
        let mut occs: Vec<Occ> = Vec::new();
        Ok(part
            .iter()
            .map(|(k, o)| {
                occs.clear();
                occs.extend_from_slice(o);
                occs.sort_unstable_by_key(|o| o.game);
                run::make_record(*k, &occs, &fact)
            })
            .collect())
    })?;
    drop(groups);
    let promoted: Vec<TRecord> = made.into_iter().flatten().collect();
    crate::import::trace(
        &format!(
            "merge replays done: {} T records made or joined, {released} implicit positions made explicit",
            promoted.len()
        ),
        t0,
    );
    let implicit: u64 = runs.iter().map(|r| r.implicit).sum::<u64>() - released;
    keep.extend(extra);
    keep.sort_unstable();
    let mut dense_prefixes: Vec<u32> = dense_entries.keys().chain(round2.keys()).copied().collect();
    dense_prefixes.sort_unstable();
    drop(dense_entries);
    drop(round2);

    let w = db.store.write()?;
    let mut rw = RunWriter::new(&w, new_id, games)?;
    // Pass 2a: T records, merged by key with the promoted ones.
    {
        let mut titers: Vec<TIter> = runs
            .iter()
            .map(|d| TIter {
                dir: d,
                blocks: &blocks,
                postings: &postings,
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
            if promoted.peek().is_some_and(|r| r.key == key) {
                parts.push(promoted.next().expect("peeked"));
            }
            if parts.len() == 1 {
                rw.record(&parts[0])?;
            } else {
                rw.record(&run::merge_records(key, parts, &fact))?;
            }
        }
    }
    crate::import::trace("merge pass 2a (T records) written", t0);
    // Pass 2b: S entries in order; dense prefixes' entries come from `keep`.
    {
        let mut m = entries(&s_cache, s_merge);
        let mut keep = keep.into_iter().peekable();
        let mut dense_at = sorted_cursor(&dense_prefixes);
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
    }
    let mut dir = rw.finish()?;
    dir.implicit = implicit;
    dir.complete = complete;
    dir.incomplete = if complete { incomplete } else { Vec::new() };
    crate::import::trace("merge pass 2 written", t0);
    w.with_table(RUNS, |t| t.put(&run::run_key(new_id), &dir.encode()))?;
    let mut sketch = Hll::default();
    let sketches = read.table(SKETCHES)?;
    for r in runs {
        if let Some(data) = sketches.get(&run::run_key(r.id))? {
            sketch.merge(&Hll::decode(&data)?);
        }
    }
    w.with_table(SKETCHES, |t| {
        for r in runs {
            t.remove(&run::run_key(r.id))?;
        }
        t.put(&run::run_key(new_id), &sketch.encode())
    })?;
    // Drop the old runs.
    w.with_table(BLOCKS, |t| {
        for r in runs {
            t.remove_range(&r.id.to_be_bytes(), &(r.id + 1).to_be_bytes())?;
        }
        Ok(())
    })?;
    w.with_table(POSTINGS, |t| {
        for r in runs {
            t.remove_range(&r.id.to_be_bytes(), &(r.id + 1).to_be_bytes())?;
        }
        Ok(())
    })?;
    w.with_table(RUNS, |t| {
        for r in runs {
            t.remove(&run::run_key(r.id))?;
        }
        Ok(())
    })?;
    w.with_table(META, |t| {
        t.put(b"next_run", (new_id + 1).to_string().as_bytes())
    })?;
    w.commit()?;
    Ok(())
}

/// Runs of at most this many games always merge with their newer neighbours: they are cheap
/// to merge, and every run costs each query a few block reads.
const SMALL_RUN: u64 = 100_000;

/// Merges runs size-tiered until no merge is due. Returns the number of merges.
pub fn compact(db: &Database) -> Result<u32> {
    let mut merges = 0;
    loop {
        let runs = {
            let read = db.store.read()?;
            load_runs(&read)?
        };
        let n = runs.len();
        if n < 2 {
            return Ok(merges);
        }
        let mut k = 1;
        let mut sum = runs[n - 1].games.max(1);
        while k < n && (runs[n - 1 - k].games <= 2 * sum || runs[n - 1 - k].games <= SMALL_RUN) {
            sum += runs[n - 1 - k].games;
            k += 1;
        }
        if k < 2 {
            return Ok(merges);
        }
        merge_runs(db, &runs[n - k..])?;
        merges += 1;
    }
}

/// Merges every run into one (for `tabiya stats --compact` and benchmarks).
pub fn compact_all(db: &Database) -> Result<()> {
    let runs = {
        let read = db.store.read()?;
        load_runs(&read)?
    };
    if runs.len() > 1 {
        merge_runs(db, &runs)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::Ordering;

    use super::{S_CACHE_LIMIT, S_CACHE_MAX};
    use crate::run::{BLOCKS, POSTINGS, RUNS};
    use crate::{Database, ImportOptions, ImportProgress, Kind};

    /// A merge reading the S entries again from the parts' blocks writes the same run as one
    /// keeping them in memory.
    #[test]
    fn merging_from_memory_or_from_the_blocks_gives_the_same_run() {
        let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/pgn/twic/twic0920.pgn");
        let build = |limit: u64| {
            let dir = tempfile::tempdir().unwrap();
            let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
            S_CACHE_LIMIT.store(limit, Ordering::Relaxed);
            let opts = ImportOptions {
                batch_games: 61,
                ..ImportOptions::default()
            };
            db.import(
                std::slice::from_ref(&twic),
                &opts,
                &ImportProgress::default(),
            )
            .unwrap();
            S_CACHE_LIMIT.store(S_CACHE_MAX, Ordering::Relaxed);
            let read = db.store.read().unwrap();
            let mut tables = Vec::new();
            for name in [RUNS, BLOCKS, POSTINGS] {
                let mut rows: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                read.table(name)
                    .unwrap()
                    .scan(&[], None, |k, v| {
                        rows.push((k.to_vec(), v.to_vec()));
                        true
                    })
                    .unwrap();
                tables.push(rows);
            }
            tables
        };
        let streamed = build(0);
        let cached = build(S_CACHE_MAX);
        assert_eq!(streamed[0].len(), 1, "one run after merging");
        assert!(streamed[1].len() > 10, "{} blocks", streamed[1].len());
        assert!(streamed == cached, "the two merges differ");
    }
}
