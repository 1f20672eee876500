//! What changed since a run was written: games deleted, and T records whose statistics an
//! edit or a deletion changed. Runs stay immutable; every reader of a run (queries, merges)
//! sees it through [`Amendments`], so an edit costs a few small writes instead of a rebuild.
//!
//! - The **removed set** (`meta`'s `removed`: the ids of deleted games, sorted, as varint
//!   gaps): a removed game's S entries and postings are skipped wherever they are read.
//! - **Patches** (the `patches` table, keyed like postings by run and position key): a T
//!   record's move statistics and best games as they are now, replacing the stored ones.
//!   Written when a deleted or edited game was counted in that record. A merge folds both in
//!   and drops the parts' patches.

use tabiya_store::{ReadTx, TableRef};

use super::record::{Posting, TRecord};
use crate::codec::{DecodeError, Reader, put_varint};
use crate::stats::Stats;
use crate::{META, Result};

/// The table of T-record patches.
pub const PATCHES: &str = "patches";

/// `meta`'s key of the removed set.
pub const REMOVED_KEY: &[u8] = b"removed";

/// A T record's statistics as they are now: one [`Stats`] per move slot of the record (same
/// order; a move no game plays any more has empty statistics), and its best games when they
/// changed (`None`: the record's own, less the removed games).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    pub moves: Vec<Stats>,
    pub top: Option<Vec<Posting>>,
}

impl Patch {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.moves.len() as u64);
        for s in &self.moves {
            s.encode(&mut out);
        }
        match &self.top {
            None => put_varint(&mut out, 0),
            Some(top) => {
                put_varint(&mut out, top.len() as u64 + 1);
                for p in top {
                    put_varint(&mut out, p.game as u64);
                    out.push(p.slot);
                }
            }
        }
        out
    }

    pub fn decode(data: &[u8]) -> std::result::Result<Patch, DecodeError> {
        let mut r = Reader::new(data);
        let n = r.varint("patch moves")?;
        if n > 256 {
            return Err(r.bad("patch moves"));
        }
        let mut moves = Vec::with_capacity(n as usize);
        for _ in 0..n {
            moves.push(Stats::decode(&mut r)?);
        }
        let top = match r.varint("patch top")? {
            0 => None,
            t if t > 1024 => return Err(r.bad("patch top")),
            t => {
                let mut top = Vec::with_capacity(t as usize - 1);
                for _ in 1..t {
                    let game = r.varint_u32("patch top game")?;
                    let slot = r.u8("patch top slot")?;
                    top.push(Posting { game, slot });
                }
                Some(top)
            }
        };
        Ok(Patch { moves, top })
    }
}

/// The key of a run's patch of a position.
pub fn patch_key(run: u32, key: u128) -> [u8; 20] {
    super::postings_key(run, key)
}

/// The removed set's encoding: count, then the sorted ids as gaps.
pub fn encode_removed(ids: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ids.len() * 2 + 4);
    put_varint(&mut out, ids.len() as u64);
    let mut last = 0u32;
    for &g in ids {
        put_varint(&mut out, (g - last) as u64);
        last = g;
    }
    out
}

pub fn decode_removed(data: &[u8]) -> std::result::Result<Vec<u32>, DecodeError> {
    let mut r = Reader::new(data);
    let n = r.varint("removed count")?;
    let mut ids = Vec::with_capacity(n.min(1 << 24) as usize);
    let mut last = 0u32;
    for _ in 0..n {
        last = last
            .checked_add(r.varint_u32("removed id")?)
            .ok_or_else(|| r.bad("removed id"))?;
        ids.push(last);
    }
    Ok(ids)
}

/// The deleted games, as one read transaction sees them (sorted).
pub(crate) fn load_removed(read: &ReadTx) -> Result<Vec<u32>> {
    let meta = read.table(META)?;
    match meta.get_with(REMOVED_KEY, decode_removed)? {
        None => Ok(Vec::new()),
        Some(ids) => Ok(ids?),
    }
}

/// Deleted games and patched T records, as one read transaction sees them.
pub(crate) struct Amendments {
    removed: Vec<u32>,
    /// `None` when there are no patches (nothing to look up).
    patches: Option<TableRef>,
}

impl Amendments {
    pub fn new(read: &ReadTx) -> Result<Amendments> {
        let patches = read.table(PATCHES)?;
        Ok(Amendments {
            removed: load_removed(read)?,
            patches: if patches.is_empty()? {
                None
            } else {
                Some(patches)
            },
        })
    }

    /// Nothing changed since the runs were written.
    pub fn none(&self) -> bool {
        self.removed.is_empty() && self.patches.is_none()
    }

    /// The deleted games, sorted.
    pub fn removed(&self) -> &[u32] {
        &self.removed
    }

    pub fn is_removed(&self, game: u32) -> bool {
        !self.removed.is_empty() && self.removed.binary_search(&game).is_ok()
    }

    /// The patch of a run's T record, if it has one.
    pub fn patch(&self, run: u32, key: u128) -> Result<Option<Patch>> {
        let Some(t) = &self.patches else {
            return Ok(None);
        };
        match t.get_with(&patch_key(run, key), Patch::decode)? {
            None => Ok(None),
            Some(p) => Ok(Some(p.map_err(|e| {
                crate::Error::Corrupt(format!("patch of run {run}: {e}"))
            })?)),
        }
    }

    /// A run's T record as it is now: its patch applied, removed games left out of its best
    /// games and (when loaded) its postings, `n_postings` then counting the games left.
    pub fn amend(&self, run: u32, rec: &mut TRecord) -> Result<()> {
        if self.none() {
            return Ok(());
        }
        if let Some(p) = self.patch(run, rec.key)? {
            if p.moves.len() != rec.moves.len() {
                return Err(crate::Error::Corrupt(format!(
                    "patch of run {run} has {} moves, its record {}",
                    p.moves.len(),
                    rec.moves.len()
                )));
            }
            for (m, s) in rec.moves.iter_mut().zip(p.moves) {
                m.stats = s;
            }
            if let Some(top) = p.top {
                rec.top = top;
            }
            // A patch keeps neither (an edited date moves a game among the newest; a
            // deletion can leave a move one game): queries find them from the games.
            rec.recent = None;
            rec.singles = None;
        }
        if !self.removed.is_empty() {
            rec.top.retain(|p| !self.is_removed(p.game));
            if let Some(recent) = &mut rec.recent {
                recent.retain(|p| !self.is_removed(p.game));
            }
            if let Some(singles) = &mut rec.singles {
                singles.retain(|s| !self.is_removed(s.1));
            }
            if let Some(postings) = &mut rec.postings {
                postings.retain(|p| !self.is_removed(p.game));
                rec.n_postings = postings.len() as u64;
            }
        }
        Ok(())
    }

    /// Drops removed games from a list of postings.
    pub fn retain_postings(&self, postings: &mut Vec<Posting>) {
        if !self.removed.is_empty() {
            postings.retain(|p| !self.is_removed(p.game));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_and_removed_sets_round_trip() {
        let s = Stats {
            first: 3,
            rating_games: 2,
            rating_sum: 9000,
            min_year: 1990,
            max_year: 2001,
            ..Stats::default()
        };
        for top in [None, Some(vec![]), Some(vec![Posting { game: 7, slot: 1 }])] {
            let p = Patch {
                moves: vec![s, Stats::default()],
                top,
            };
            assert_eq!(Patch::decode(&p.encode()).unwrap(), p);
        }
        let ids = vec![0, 1, 5, 1000, u32::MAX];
        assert_eq!(decode_removed(&encode_removed(&ids)).unwrap(), ids);
        assert!(decode_removed(&[3, 1]).is_err());
        assert!(Patch::decode(&[200, 1]).is_err());
    }
}
