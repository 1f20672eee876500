//! Counting the shape statistics ([`super::stats`]): all at once for the stored games
//! ([`Database::count_shape_stats`], at the end of an import that keeps the structure
//! index, or of `tabiya db structures`), and patched for the games a deletion or an edit
//! changes ([`patch`]).
//!
//! The count is two replays. The first finds the popular shapes: each game's stands counted
//! by shape (of every game up to [`SAMPLE_ALL`] games; past it, of an even sample, with
//! the bar lowered by a third so that most shapes near it are kept); the second sums, for those shapes only,
//! what a search answers. A shape reached by fewer games than the threshold ([`threshold`])
//! gets no record: its candidates are few enough to replay.

use std::collections::HashMap;

use shakmaty::{Chess, Position};
use tabiya_store::{ReadTx, WriteTx};

use super::stands::{Shape, Stand, shape_material, stands};
use super::stats::{
    Coverage, LIST_LEN, LIST_ORDERS, ListOrder, RecordMove, SHAPE_STATS, ShapeRecord, coverage,
    ranked, read_record, set_coverage,
};
use super::sums::Sums;
use crate::chess::stored::decode_line;
use crate::facts::FactsReader;
use crate::index::amend::load_removed;
use crate::records::Records;
use crate::stats::{GameFacts, Stats};
use crate::{Database, Error, Kind, Result};

/// Up to this many games, the popular shapes are counted over every game.
const SAMPLE_ALL: u32 = 200_000;

/// Games a shape needs for a record, for a database of `games` games: one in 5,000, at
/// least 16 and at most 1,000. A shape without a record is answered by replaying its
/// candidates, and replaying 1,000 games takes some 20 ms on two cores; more records
/// (a lower bar at ten million games) would mean more memory while counting them.
fn threshold(games: u32) -> u32 {
    (games / 5000).clamp(16, 1000)
}

/// The games stored (a deleted game's record is removed; ids begin at 1, so the end of
/// the ids is one more than the games of a database that never lost one).
fn stored_games(read: &ReadTx) -> Result<u32> {
    let n = read.table(crate::GAMES)?.len()?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// What counting the shape statistics did.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct ShapeStatsCounted {
    /// Games counted (stored, not deleted).
    pub games: u64,
    /// Shapes given a record.
    pub records: u64,
    /// Games a shape needed for one.
    pub threshold: u32,
}

fn corrupt(id: u32) -> impl Fn(crate::codec::DecodeError) -> Error {
    move |e| Error::Corrupt(format!("game {id}: {e}"))
}

/// The names of the moves a game played at `plies` (ascending), as a search names them,
/// from one replay.
fn names_at(raw: &[u8], id: u32, plies: &[u32]) -> Result<Vec<(String, String)>> {
    let (start, mode, line, _) = decode_line(raw).map_err(corrupt(id))?;
    let mut pos: Chess = start;
    let mut out = Vec::with_capacity(plies.len());
    let mut at = 0u32;
    for &ply in plies {
        while at < ply {
            match line.get(at as usize) {
                Some(m) => pos.play_unchecked(*m),
                None => break,
            }
            at += 1;
        }
        out.push(match line.get(ply as usize) {
            Some(m) => crate::chess::moves::names_as_played(&pos, m, mode),
            None => Default::default(),
        });
    }
    Ok(out)
}

/// The names of the move a game played at `ply` ([`NO_MOVE`]'s: none).
fn name_at(raw: &[u8], id: u32, ply: u32) -> Result<(String, String)> {
    Ok(names_at(raw, id, &[ply])?.pop().unwrap_or_default())
}

impl Database {
    /// Counts the shape statistics of every stored game again (see the module), replacing
    /// those kept, in one transaction.
    pub fn count_shape_stats(&self) -> Result<ShapeStatsCounted> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(super::structures_are_for_chess(self.dir())));
        }
        let _lock = self.lock_changes();
        let t0 = std::time::Instant::now();
        let read = self.store.read()?;
        let end = Records::new(&read)?.ids_end()?;
        let removed = load_removed(&read)?;
        let gone = |id: u32| removed.binary_search(&id).is_ok();
        let games = stored_games(&read)?;
        let bar = threshold(games);
        let step = if games <= SAMPLE_ALL {
            1
        } else {
            (games / SAMPLE_ALL.max(games / 32)).max(1)
        };
        let workers = crate::workers::for_items(end as usize);
        let share = crate::workers::id_shares(0, end, workers);
        // Which shapes are popular.
        let counts = crate::workers::run(workers, "shape statistics", |i| {
            let (a, b) = share(i);
            let mut counts: HashMap<Shape, u32> = HashMap::new();
            let mut count = |id: u32, raw: &[u8]| -> Result<bool> {
                if !gone(id) {
                    for s in stands(raw).map_err(corrupt(id))? {
                        *counts.entry(s.shape).or_default() += 1;
                    }
                }
                Ok(true)
            };
            let games = Records::new(&read)?;
            if step == 1 && a < b {
                games.scan_range(a, Some(b), &mut count)?;
            } else {
                // The sample alone is read.
                for id in (a.div_ceil(step) * step..b).step_by(step as usize) {
                    if let Some(raw) = games.get(id)? {
                        count(id, &raw)?;
                    }
                }
            }
            Ok(counts)
        })?;
        let mut popular: HashMap<Shape, u32> = HashMap::new();
        for c in counts {
            for (k, n) in c {
                *popular.entry(k).or_default() += n;
            }
        }
        // A shape near the bar in the sample may be under it in all the games, or over: the
        // sampled bar is two thirds of the bar's share, so that most of those are summed.
        // One missed has no record, and is replayed: the answers are the same either way.
        let sampled_bar = if step == 1 {
            bar
        } else {
            (bar * 2 / 3 / step).max(1)
        };
        popular.retain(|_, n| *n >= sampled_bar);
        crate::trace::trace("shape statistics: popular shapes found", t0);
        // What a search of each answers.
        let sums = crate::workers::run(workers, "shape statistics", |i| {
            let (a, b) = share(i);
            let mut sums: HashMap<Shape, Sums> = HashMap::new();
            if a < b {
                let facts = FactsReader::new(&read)?;
                Records::new(&read)?.scan_range(a, Some(b), |id, raw| {
                    if gone(id) {
                        return Ok(true);
                    }
                    let f = facts.get(id)?;
                    let mut to_name: Vec<(Shape, u16, u32)> = Vec::new();
                    for s in stands(raw).map_err(corrupt(id))? {
                        if popular.contains_key(&s.shape)
                            && sums.entry(s.shape).or_default().add(id, &s, &f)
                        {
                            to_name.push((s.shape, s.code, s.ply));
                        }
                    }
                    if !to_name.is_empty() {
                        to_name.sort_by_key(|t| t.2);
                        let plies: Vec<u32> = to_name.iter().map(|t| t.2).collect();
                        let names = names_at(raw, id, &plies)?;
                        for ((shape, code, _), n) in to_name.into_iter().zip(names) {
                            if let Some(m) =
                                sums.get_mut(&shape).and_then(|s| s.moves.get_mut(&code))
                            {
                                m.set_names(n);
                            }
                        }
                    }
                    Ok(true)
                })?;
            }
            Ok(sums)
        })?;
        let mut all: HashMap<Shape, Sums> = HashMap::new();
        for part in sums {
            for (k, s) in part {
                match all.get_mut(&k) {
                    Some(mine) => mine.merge(s),
                    None => {
                        all.insert(k, s);
                    }
                }
            }
        }
        all.retain(|_, s| s.totals.games() >= u64::from(bar));
        crate::trace::trace("shape statistics: summed", t0);
        let mut records = Vec::with_capacity(all.len());
        for (shape, s) in all {
            let mut moves: Vec<RecordMove> = s
                .moves
                .into_iter()
                .map(|(code, m)| {
                    let (uci, san) = m.names();
                    RecordMove {
                        code,
                        first: m.first,
                        uci,
                        san,
                        stats: m.tally.into(),
                    }
                })
                .collect();
            moves.sort_by_key(|m| (std::cmp::Reverse(m.stats.games()), m.first, m.code));
            let mut next: Vec<(Shape, Stats)> =
                s.next.into_iter().map(|(k, t)| (k, t.into())).collect();
            next.sort_by_key(|(k, st)| (std::cmp::Reverse(st.games()), *k));
            let lists = s
                .lists
                .map(|l| l.into_iter().map(|(_, id, ply)| (id, ply)).collect());
            records.push((
                shape,
                ShapeRecord {
                    totals: s.totals,
                    moves,
                    next,
                    lists,
                },
            ));
        }
        records.sort_by_key(|(k, _)| *k);
        let w = self.store.write()?;
        w.with_table(SHAPE_STATS, |t| {
            t.remove_range(&[0u8; 16], &[0xffu8; 17])?;
            for (k, rec) in &records {
                t.put(&k.to_be_bytes(), &rec.to_stored())?;
            }
            Ok(())
        })?;
        set_coverage(
            &w,
            Coverage {
                through: end,
                threshold: bar,
            },
        )?;
        w.commit()?;
        self.committed();
        Ok(ShapeStatsCounted {
            games: u64::from(games),
            records: records.len() as u64,
            threshold: bar,
        })
    }

    /// The shape statistics as counted, when they count every stored game (none imported
    /// since) with today's bar: then counting them again would give the same records.
    pub(crate) fn shape_stats_current(&self) -> Result<Option<ShapeStatsCounted>> {
        let read = self.store.read()?;
        let end = Records::new(&read)?.ids_end()?;
        let Some(c) = coverage(&read)? else {
            return Ok(None);
        };
        let games = stored_games(&read)?;
        if c.through < end || c.threshold != threshold(games) {
            return Ok(None);
        }
        Ok(Some(ShapeStatsCounted {
            games: u64::from(games),
            records: read.table(SHAPE_STATS)?.len()?,
            threshold: c.threshold,
        }))
    }

    /// Counts the shape statistics again when they are missing, or when the games imported
    /// since they were counted are an eighth of those counted (until then a search replays
    /// them). None when nothing was due.
    pub fn refresh_shape_stats(&self) -> Result<Option<ShapeStatsCounted>> {
        let read = self.store.read()?;
        let end = Records::new(&read)?.ids_end()?;
        let due = match coverage(&read)? {
            None => true,
            Some(c) => u64::from(end.saturating_sub(c.through)) * 8 > u64::from(c.through),
        };
        drop(read);
        if due {
            self.count_shape_stats().map(Some)
        } else {
            Ok(None)
        }
    }
}

/// One change to a game the records may have counted: its facts before, and after (none:
/// deleted).
pub(crate) struct Changed {
    pub id: u32,
    pub before: GameFacts,
    pub after: Option<GameFacts>,
}

/// A record being patched.
struct Patching {
    rec: ShapeRecord,
    /// Whether each list held every game counted before the change.
    whole: [bool; 3],
    /// Edited games counted here: (id, first ply, facts after).
    edited: Vec<(u32, u32, GameFacts)>,
    /// Moves whose naming game is deleted.
    rename: Vec<u16>,
}

/// Takes `changes` into the shape statistics (in `write`, whose state before is `read`):
/// every record that counted a changed game counts it as it is after. Returns the records
/// patched.
pub(crate) fn patch(read: &ReadTx, write: &WriteTx, changes: &[Changed]) -> Result<u64> {
    let Some(cov) = coverage(read)? else {
        return Ok(0);
    };
    let games = Records::new(read)?;
    let facts = FactsReader::new(read)?;
    let mut touched: HashMap<Shape, Option<Patching>> = HashMap::new();
    for c in changes.iter().filter(|c| c.id < cov.through) {
        let Some(raw) = games.get(c.id)? else {
            continue;
        };
        for s in stands(&raw).map_err(corrupt(c.id))? {
            let entry = match touched.entry(s.shape) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(read_record(read, s.shape)?.map(|rec| {
                        Patching {
                            whole: rec
                                .lists
                                .each_ref()
                                .map(|l| l.len() as u64 == rec.totals.games()),
                            rec,
                            edited: Vec::new(),
                            rename: Vec::new(),
                        }
                    }))
                }
            };
            let Some(p) = entry else { continue };
            take_back(p, c, &s);
        }
    }
    let removing: Vec<u32> = changes
        .iter()
        .filter(|c| c.after.is_none())
        .map(|c| c.id)
        .collect();
    let removed = load_removed(read)?;
    let gone = |id: u32| removed.binary_search(&id).is_ok() || removing.contains(&id);
    let edited: HashMap<u32, GameFacts> = changes
        .iter()
        .filter_map(|c| c.after.map(|f| (c.id, f)))
        .collect();
    let facts_now = |id: u32| -> Result<GameFacts> {
        match edited.get(&id) {
            Some(f) => Ok(*f),
            None => facts.get(id),
        }
    };
    let mut out = 0;
    let mut records = Vec::new();
    for (shape, p) in touched {
        let Some(mut p) = p else { continue };
        rerank(&mut p, &facts_now)?;
        for code in std::mem::take(&mut p.rename) {
            rename(read, &games, cov, shape, code, &gone, &mut p.rec)?;
        }
        out += 1;
        records.push((shape, p.rec));
    }
    write.with_table(SHAPE_STATS, |t| {
        for (k, rec) in &records {
            t.put(&k.to_be_bytes(), &rec.to_stored())?;
        }
        Ok(())
    })?;
    Ok(out)
}

/// Takes a changed game's stand out of a record, and puts it back as it is after.
fn take_back(p: &mut Patching, c: &Changed, s: &Stand) {
    let rec = &mut p.rec;
    rec.totals.remove_game(&c.before, 0);
    if let Some(f) = &c.after {
        rec.totals.add_game(f, 0);
    }
    if let Some(i) = rec.moves.iter().position(|m| m.code == s.code) {
        let m = &mut rec.moves[i];
        m.stats.remove_game(&c.before, s.mover);
        if let Some(f) = &c.after {
            m.stats.add_game(f, s.mover);
        }
        if m.stats.games() == 0 {
            rec.moves.remove(i);
        } else if c.after.is_none() && m.first == c.id {
            p.rename.push(m.code);
        }
    }
    if let Some(n) = s.next
        && let Some(i) = rec.next.iter().position(|(k, _)| *k == n)
    {
        let st = &mut rec.next[i].1;
        st.remove_game(&c.before, 0);
        if let Some(f) = &c.after {
            st.add_game(f, 0);
        }
        if st.games() == 0 {
            rec.next.remove(i);
        }
    }
    for (list, sort) in rec.lists.iter_mut().zip(LIST_ORDERS) {
        // An edit changes no id: the id list keeps its place.
        if c.after.is_some() && sort == ListOrder::Id {
            continue;
        }
        list.retain(|(id, _)| *id != c.id);
    }
    if let Some(f) = c.after {
        p.edited.push((c.id, s.ply, f));
    }
}

/// Puts the edited games back into the lists ordered by their facts: where they now rank
/// among the games left, when above the last of them (or when the list held every game),
/// else left out (the list is shorter, and still the first games).
fn rerank(p: &mut Patching, facts_now: &impl Fn(u32) -> Result<GameFacts>) -> Result<()> {
    for ((list, sort), whole) in p.rec.lists.iter_mut().zip(LIST_ORDERS).zip(p.whole) {
        if sort == ListOrder::Id {
            continue;
        }
        let mut ranked_list = Vec::with_capacity(list.len() + p.edited.len());
        for &(id, ply) in list.iter() {
            ranked_list.push((facts_now(id)?, id, ply));
        }
        let last = ranked_list.last().copied();
        for &(id, ply, f) in &p.edited {
            let above = last.is_none_or(|l| ranked(sort, (&f, id), (&l.0, l.1)).is_lt());
            if whole || (above && last.is_some()) {
                let at =
                    ranked_list.partition_point(|l| ranked(sort, (&l.0, l.1), (&f, id)).is_lt());
                ranked_list.insert(at, (f, id, ply));
            }
        }
        *list = ranked_list
            .into_iter()
            .take(LIST_LEN)
            .map(|(_, id, ply)| (id, ply))
            .collect();
    }
    Ok(())
}

/// Names a move again after its naming game is deleted: by the first game left that
/// played it (the structure index's candidates, in id order, and the games it does not
/// cover).
fn rename(
    read: &ReadTx,
    games: &Records,
    cov: Coverage,
    shape: Shape,
    code: u16,
    gone: &impl Fn(u32) -> bool,
    rec: &mut ShapeRecord,
) -> Result<()> {
    let mut ids = candidates(read, shape, cov.through)?;
    ids.retain(|id| !gone(*id));
    for id in ids {
        let Some(raw) = games.get(id)? else { continue };
        let Some(s) = stands(&raw)
            .map_err(corrupt(id))?
            .into_iter()
            .find(|s| s.shape == shape)
        else {
            continue;
        };
        if s.code == code {
            let (uci, san) = name_at(&raw, id, s.ply)?;
            if let Some(m) = rec.moves.iter_mut().find(|m| m.code == code) {
                (m.first, m.uci, m.san) = (id, uci, san);
            }
            return Ok(());
        }
    }
    Ok(())
}

/// The games below `through` that may reach `shape`, in id order: those the structure
/// index names, and every game it does not cover.
fn candidates(read: &ReadTx, shape: Shape, through: u32) -> Result<Vec<u32>> {
    use super::keys::{material_key, pawns_key};
    use super::rows::{MATERIAL, PAWNS, games_of};
    let (kind, key) = match shape_material(shape) {
        Some(code) => (MATERIAL, material_key(code)),
        None => (PAWNS, pawns_key((shape >> 64) as u64, shape as u64)),
    };
    let mut segs = super::read_segments(read)?;
    segs.sort_by_key(|s| s.first);
    let mut ids = Vec::new();
    for seg in &segs {
        games_of(read, seg, kind, key, &mut ids)?;
    }
    for (a, b) in super::uncovered(segs.iter().map(|s| (s.first, s.end)), through) {
        ids.extend(a..b);
    }
    ids.retain(|id| *id < through);
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}
