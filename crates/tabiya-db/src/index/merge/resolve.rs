//! Replaying the games of dense S entries to learn their full keys, on every core.

use std::collections::HashMap;

use tabiya_store::ReadTx;

use crate::game::Occurrence;
use crate::index::prefix;
use crate::index::record::{Occ, SEntry};
use crate::replay::Replayer;
use crate::schema::Kind;
use crate::{Error, Result};

/// An S entry whose full key a replay found.
pub(super) struct Resolved {
    pub(super) occ: Occ,
    pub(super) pred: bool,
    /// The implicit position before it (when `pred` and the game's previous ply counted).
    pub(super) before: Option<Occ>,
}

/// Replays the games of `wanted` ((game, prefix) pairs in game order) and finds the full key
/// of each of their entries with those prefixes (`dense`: entries by prefix, in game order).
/// Returns the resolved entries, and the entries left as they are: those of a game with two
/// positions sharing the prefix (too rare to bother), and `pred` entries with no counted
/// position just before them.
/// Also returns the keys such a left entry might stand for (the positions with the prefix
/// and the ones just before them).
pub(super) fn resolve_entries(
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
            at.extend((0..occs.len()).filter(|&i| prefix(occs[i].key) == p));
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
                let occ = |o: Occurrence| Occ {
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
pub(super) type Resolution = (Vec<Resolved>, Vec<SEntry>, Vec<u128>);

/// [`resolve_entries`] on every core, each taking a range of games.
pub(super) fn resolve_on_cores(
    kind: Kind,
    max_ply: Option<u32>,
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
    for (r, k, u) in on_cores(kind, max_ply, read, parts, |r, part| {
        resolve_entries(r, part, dense)
    })? {
        out.0.extend(r);
        out.1.extend(k);
        out.2.extend(u);
    }
    Ok(out)
}

/// Runs `f` on each part in its own thread (the merge's replays share the cores: the parse
/// threads are done), each with its own game reader.
pub(super) fn on_cores<T: Sync, R: Send>(
    kind: Kind,
    max_ply: Option<u32>,
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
                    let r = Replayer::new(read, kind, max_ply)?;
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
