//! The parts of a merge read in order: T records by key ([`TIter`]), S entries by prefix
//! and game merged across runs ([`SMerge`]), kept in memory when they fit ([`SCache`]).

use std::collections::VecDeque;

use tabiya_store::TableRef;

use crate::index::amend::Amendments;
use crate::index::record::{SEntry, TRecord};
use crate::index::{
    RunDir, block_key, decode_external_postings, decode_s_block, decode_t_block, postings_key,
};
use crate::{Error, Result};

/// Reads a run's T records in key order, with their postings loaded, as they are now
/// (amended: a record whose games were all deleted is left out).
pub(super) struct TIter<'a> {
    pub(super) dir: &'a RunDir,
    pub(super) amendments: &'a Amendments,
    pub(super) blocks: &'a TableRef,
    pub(super) postings: &'a TableRef,
    pub(super) next_block: usize,
    pub(super) buf: VecDeque<TRecord>,
}

impl TIter<'_> {
    pub(super) fn peek_key(&mut self) -> Result<Option<u128>> {
        self.fill()?;
        Ok(self.buf.front().map(|r| r.key))
    }

    pub(super) fn fill(&mut self) -> Result<()> {
        while self.buf.is_empty() && self.next_block < self.dir.t_first.len() {
            let key = block_key(self.dir.id, b'T', self.next_block as u32);
            self.next_block += 1;
            let data = self
                .blocks
                .get(&key)?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
            for mut rec in decode_t_block(&data)? {
                if rec.postings.is_none() {
                    let pk = postings_key(self.dir.id, rec.key);
                    let p = self
                        .postings
                        .get(&pk)?
                        .ok_or_else(|| Error::Corrupt("missing postings".into()))?;
                    rec.postings = Some(decode_external_postings(&p, rec.n_postings)?);
                }
                self.amendments.amend(self.dir.id, &mut rec)?;
                if rec.n_postings > 0 {
                    self.buf.push_back(rec);
                }
            }
        }
        Ok(())
    }

    pub(super) fn pop(&mut self) -> Option<TRecord> {
        self.buf.pop_front()
    }
}

/// Reads a run's S entries in order, less those of deleted games.
pub(super) struct SIter<'a> {
    pub(super) dir: &'a RunDir,
    pub(super) amendments: &'a Amendments,
    pub(super) blocks: &'a TableRef,
    pub(super) next_block: usize,
    pub(super) buf: VecDeque<SEntry>,
}

impl SIter<'_> {
    pub(super) fn peek(&mut self) -> Result<Option<u32>> {
        while self.buf.is_empty() && self.next_block < self.dir.s_first.len() {
            let key = block_key(self.dir.id, b'S', self.next_block as u32);
            self.next_block += 1;
            let data = self
                .blocks
                .get(&key)?
                .ok_or_else(|| Error::Corrupt(format!("missing index block {key:?}")))?;
            let amendments = self.amendments;
            self.buf.extend(
                decode_s_block(&data)?
                    .into_iter()
                    .filter(|e| !amendments.is_removed(e.game)),
            );
        }
        Ok(self.buf.front().map(|e| e.prefix))
    }
}

/// All S entries of several runs in (prefix, game) order. The prefix space is cut in
/// [`BUCKETS`] ranges; each run's entries of one range are contiguous, so a range is
/// gathered from every run and sorted (cheaper than a heap over the runs' heads).
pub(super) struct SMerge<'a> {
    pub(super) iters: Vec<SIter<'a>>,
    pub(super) bucket: Vec<SEntry>,
    pub(super) at: usize,
    /// The next range to gather.
    pub(super) next: u64,
}

/// Number of prefix ranges of [`SMerge`].
pub(super) const BUCKETS: u64 = 1 << 12;

impl<'a> SMerge<'a> {
    pub(super) fn new(iters: Vec<SIter<'a>>) -> Self {
        SMerge {
            iters,
            bucket: Vec::new(),
            at: 0,
            next: 0,
        }
    }

    pub(super) fn next(&mut self) -> Result<Option<SEntry>> {
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
pub(super) struct SCache {
    pub(super) packed: Vec<u64>,
    pub(super) pred: Vec<u64>,
}

/// Most S entries a merge keeps in memory (1 GiB).
pub(super) const S_CACHE_MAX: u64 = 1 << 27;

/// [`S_CACHE_MAX`], lowered by a test to take the streaming way.
pub(super) static S_CACHE_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(S_CACHE_MAX);

impl SCache {
    pub(super) fn push(&mut self, e: SEntry) {
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

    pub(super) fn get(&self, i: usize) -> Option<SEntry> {
        let p = *self.packed.get(i)?;
        Some(SEntry {
            prefix: (p >> 32) as u32,
            game: p as u32,
            pred: self.pred[i / 64] >> (i % 64) & 1 == 1,
        })
    }
}

/// The merged S entries: streamed from the parts, or read from the [`SCache`].
pub(super) enum Entries<'a> {
    Stream(SMerge<'a>),
    Cached(&'a SCache, usize),
}

/// The merged entries from the cache if there is one, else streamed anew.
pub(super) fn entries<'a>(
    cache: &'a Option<SCache>,
    stream: impl FnOnce() -> SMerge<'a>,
) -> Entries<'a> {
    match cache {
        Some(c) => Entries::Cached(c, 0),
        None => Entries::Stream(stream()),
    }
}

impl Entries<'_> {
    pub(super) fn next(&mut self) -> Result<Option<SEntry>> {
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
pub(super) fn prefix_groups(
    m: &mut Entries<'_>,
    mut f: impl FnMut(&mut Vec<SEntry>),
) -> Result<()> {
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
pub(super) fn sorted_cursor(sorted: &[u32]) -> impl FnMut(u32) -> bool + '_ {
    let mut at = 0usize;
    move |p| {
        while at < sorted.len() && sorted[at] < p {
            at += 1;
        }
        sorted.get(at) == Some(&p)
    }
}
