//! The index recomputed from the stored games and compared with the runs.
//!
//! Each counted position of each game (replayed from its stored form) must be in exactly one
//! place: a T record of its key listing the game with the move it played, an S entry of the
//! game with its key's prefix, or *implicit* — the game's next position, one ply later and
//! not in a T record, has an S entry with `pred` set. Nothing else may be in the runs. Each T
//! record's statistics (after the patches of edits and deletions) must equal those of its
//! games' facts, its top games be games of it playing the move it lists, once each, and each
//! run's counts what its blocks hold. Where a merge left an implicit
//! position explicit is allowed: queries find it either way. A move a record says is the
//! whole of where it leads ([`TRecord::whole`]): each of its games must go on, one ply
//! later, to the same position; where that position has a complete T record in the run, the
//! record must count as many games as the move.
//!
//! The lists of moves reached other ways ([`TRecord::elsewhere`]): [`super::elsewhere`].
//!
//! Three passes over the T blocks (count the games' claims, place them, then the
//! statistics) and two over the S blocks keep the claims in flat arrays by game (five bytes
//! each), and one pass over the stored games does the replays.

use tabiya_store::{ReadTx, TableRef};

use super::elsewhere::Lists;
use super::tables::Games;
use super::{CheckReport, note};
use crate::facts::FactsReader;
use crate::game::Occurrence;
use crate::index::RECENT_GAMES;
use crate::index::amend::Amendments;
use crate::index::record::{Posting, TRecord, newest_order};
use crate::index::{
    BLOCKS, POSTINGS, RunDir, block_key, decode_external_postings, decode_s_block, decode_t_block,
    load_runs, postings_key, prefix,
};
use crate::records::Records;
use crate::stats::{GameFacts, Stats};
use crate::trace::trace;
use crate::{Database, Kind, Result};

const NO_RUN: u32 = u32::MAX;

/// What [`game_index`] learns of the moves records say are the whole of where they lead.
#[derive(Default)]
struct Whole {
    /// By move, as `codes`: the record's flag.
    flags: Vec<bool>,
    /// By (record ordinal, slot): the position its games went on to, and how many did.
    children: std::collections::HashMap<(u32, u8), (u128, u32)>,
    /// By record ordinal: how many games it lists that were replayed.
    record_games: Vec<u32>,
}
const NO_MOVER: u8 = u8::MAX;

/// Claims of the index, grouped by game: `start[g]..start[g + 1]` are game `g`'s.
#[derive(Default)]
struct ByGame {
    start: Vec<u32>,
    /// T claims: the record's ordinal and the slot of its move. S claims: the prefix and
    /// `pred`.
    a: Vec<u32>,
    b: Vec<u8>,
}

impl ByGame {
    fn from_counts(counts: &[u32]) -> ByGame {
        let mut start = Vec::with_capacity(counts.len() + 1);
        let mut at = 0u32;
        start.push(0);
        for &c in counts {
            at += c;
            start.push(at);
        }
        ByGame {
            start,
            a: vec![0; at as usize],
            b: vec![0; at as usize],
        }
    }

    fn range(&self, g: u32) -> std::ops::Range<usize> {
        match (self.start.get(g as usize), self.start.get(g as usize + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }
}

/// Everything the T blocks of a run hold, record by record: `f(record, its games)`.
fn each_record(
    run: &RunDir,
    blocks: &TableRef,
    postings: &TableRef,
    report: &mut CheckReport,
    mut f: impl FnMut(&TRecord, &[Posting], &mut CheckReport),
) -> Result<u64> {
    let mut n = 0;
    let mut last: Option<u128> = None;
    for (b, &first) in run.t_first.iter().enumerate() {
        let place = format!("run {} T block {b}", run.id);
        let Some(data) = blocks.get(&block_key(run.id, b'T', b as u32))? else {
            report.problem("index", place, "missing");
            continue;
        };
        let records = match decode_t_block(&data) {
            Ok(r) => r,
            Err(e) => {
                report.problem("index", place, format!("does not decode: {e}"));
                continue;
            }
        };
        let next = run.t_first.get(b + 1).copied();
        for rec in records {
            n += 1;
            if rec.key < first
                || next.is_some_and(|k| rec.key >= k)
                || last.is_some_and(|l| rec.key <= l)
            {
                report.problem(
                    "index",
                    format!("run {} position {:032x}", run.id, rec.key),
                    format!("out of order in T block {b}"),
                );
            }
            last = Some(rec.key);
            let list = match &rec.postings {
                Some(p) => p.clone(),
                None => match postings.get(&postings_key(run.id, rec.key))? {
                    Some(data) => match decode_external_postings(&data, rec.n_postings) {
                        Ok(p) => p,
                        Err(e) => {
                            report.problem(
                                "postings",
                                format!("run {} position {:032x}", run.id, rec.key),
                                format!("does not decode: {e}"),
                            );
                            continue;
                        }
                    },
                    None => {
                        report.problem(
                            "postings",
                            format!("run {} position {:032x}", run.id, rec.key),
                            "the record's list of games is missing",
                        );
                        continue;
                    }
                },
            };
            f(&rec, &list, report);
        }
    }
    Ok(n)
}

/// Every S entry of a run: `f(prefix, game, pred)`.
fn each_single(
    run: &RunDir,
    blocks: &TableRef,
    report: &mut CheckReport,
    mut f: impl FnMut(u32, u32, bool),
) -> Result<(u64, u64)> {
    let (mut n, mut preds) = (0, 0);
    for (b, &first) in run.s_first.iter().enumerate() {
        let place = format!("run {} S block {b}", run.id);
        let Some(data) = blocks.get(&block_key(run.id, b'S', b as u32))? else {
            report.problem("index", place, "missing");
            continue;
        };
        match decode_s_block(&data) {
            Ok(entries) => {
                if entries.first().is_some_and(|e| e.prefix != first) {
                    report.problem("index", place, "its first prefix is not the directory's");
                }
                for e in entries {
                    n += 1;
                    preds += u64::from(e.pred);
                    f(e.prefix, e.game, e.pred);
                }
            }
            Err(e) => report.problem("index", place, format!("does not decode: {e}")),
        }
    }
    Ok((n, preds))
}

fn grow<T: Clone>(v: &mut Vec<T>, i: u32, fill: T) {
    if v.len() <= i as usize {
        v.resize(i as usize + 1, fill);
    }
}

pub(super) fn check(
    db: &Database,
    read: &ReadTx,
    report: &mut CheckReport,
    t0: std::time::Instant,
) -> Result<()> {
    let Some(runs) = note(report, "runs", "", load_runs(read)) else {
        return Ok(());
    };
    let Some(amend) = note(report, "meta", "removed", Amendments::new(read)) else {
        return Ok(());
    };
    report.runs = runs.len() as u64;
    let blocks = read.table(BLOCKS)?;
    let postings = read.table(POSTINGS)?;

    // Pass 1: count each game's claims; the run of each game; the runs' counts.
    let mut game_run: Vec<u32> = Vec::new();
    let (mut t_count, mut s_count): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let mut keys: Vec<u128> = Vec::new();
    let mut codes_start: Vec<u32> = vec![0];
    let mut codes: Vec<u16> = Vec::new();
    let mut record_run: Vec<u32> = Vec::new();
    let mut whole = Whole::default();
    let mut lists = Lists::default();
    let mut two_runs = Vec::new();
    let mut in_run = |game_run: &mut Vec<u32>, run: u32, game: u32| {
        grow(game_run, game, NO_RUN);
        let r = &mut game_run[game as usize];
        if *r == NO_RUN {
            *r = run;
        } else if *r != run {
            two_runs.push((game, *r, run));
        }
    };
    for run in &runs {
        let mut games_of_run = 0u64;
        let records = each_record(run, &blocks, &postings, report, |rec, list, _| {
            keys.push(rec.key);
            codes.extend(rec.moves.iter().map(|m| m.code));
            codes_start.push(codes.len() as u32);
            whole
                .flags
                .extend((0..rec.moves.len()).map(|i| rec.whole.get(i) == Some(&true)));
            record_run.push(run.id);
            lists.note(run, rec, list);
            for p in list {
                grow(&mut t_count, p.game, 0);
                t_count[p.game as usize] += 1;
                in_run(&mut game_run, run.id, p.game);
            }
        })?;
        let (singles, preds) = each_single(run, &blocks, report, |_, game, _| {
            grow(&mut s_count, game, 0);
            s_count[game as usize] += 1;
            in_run(&mut game_run, run.id, game);
        })?;
        for g in game_run.iter() {
            games_of_run += u64::from(*g == run.id);
        }
        let place = format!("run {}", run.id);
        for (what, dir, found) in [
            ("T records", run.t_records, records),
            ("S entries", run.s_entries, singles),
            (
                "implicit positions (S entries with pred)",
                run.implicit,
                preds,
            ),
            ("games", run.games, games_of_run),
        ] {
            if dir != found {
                report.problem(
                    "runs",
                    place.clone(),
                    format!("its directory says {dir} {what}, its blocks hold {found}"),
                );
            }
        }
        report.tree_records += records;
        report.single_entries += singles;
        report.implicit += preds;
    }
    for (game, a, b) in two_runs.into_iter().take(super::KEPT) {
        report.problem(
            "index",
            format!("game {game}"),
            format!("in runs {a} and {b}"),
        );
    }
    let ids = game_run.len() as u32;
    t_count.resize(ids as usize, 0);
    s_count.resize(ids as usize, 0);

    trace("check: index pass 1 (counts)", t0);
    // Pass 2: the claims, placed by game.
    let mut tree = ByGame::from_counts(&t_count);
    let mut single = ByGame::from_counts(&s_count);
    drop((t_count, s_count));
    let mut t_next: Vec<u32> = tree.start[..ids as usize].to_vec();
    let mut s_next: Vec<u32> = single.start[..ids as usize].to_vec();
    let mut ordinal = 0u32;
    for run in &runs {
        each_record(
            run,
            &blocks,
            &postings,
            &mut CheckReport::default(),
            |_, list, _| {
                for p in list {
                    let at = &mut t_next[p.game as usize];
                    tree.a[*at as usize] = ordinal;
                    tree.b[*at as usize] = p.slot;
                    *at += 1;
                }
                ordinal += 1;
            },
        )?;
        each_single(
            run,
            &blocks,
            &mut CheckReport::default(),
            |prefix, game, pred| {
                let at = &mut s_next[game as usize];
                single.a[*at as usize] = prefix;
                single.b[*at as usize] = u8::from(pred);
                *at += 1;
            },
        )?;
    }
    drop((t_next, s_next));

    trace("check: index pass 2 (claims)", t0);
    // Pass 3: every stored game decoded, checked against its tables, replayed and its
    // positions found in the index.
    let games = Games::new(db, read)?;
    let records = Records::new(read)?;
    if db.kind() == Kind::Chess {
        lists.find_positions(&records, &amend, report)?;
    }
    let mut mover = vec![NO_MOVER; keys.len()];
    whole.record_games = vec![0; keys.len()];
    let mut stored = vec![false; ids as usize];
    let (mut occs, mut plies) = (Vec::<Occurrence>::new(), Vec::<u16>::new());
    let mut by_key: Vec<(u128, usize)> = Vec::new();
    let mut state: Vec<u8> = Vec::new();
    let mut positions = 0u64;
    let mut game_count = 0u64;
    let (kind, max_ply) = (db.kind(), db.max_ply());
    records.scan_all(|k, raw| {
        let Ok(k) = <[u8; 4]>::try_from(k) else {
            report.problem(
                "games",
                super::tables::hex(k),
                "a key that is not a game id",
            );
            return;
        };
        let g = u32::from_be_bytes(k);
        game_count += 1;
        let raw = match raw {
            Ok(r) => r,
            Err(e) => {
                report.problem(
                    "games",
                    format!("game {g}"),
                    format!("does not decompress: {e}"),
                );
                return;
            }
        };
        games.game(g, raw, report);
        if let Some(s) = stored.get_mut(g as usize) {
            *s = true;
        }
        let replayed = match kind {
            Kind::Chess => crate::chess::replay::replay_record(raw, max_ply, &mut occs, &mut plies)
                .map_err(crate::Error::from),
            Kind::Othello => crate::othello::keys::record_occurrences(raw).map(|o| {
                occs = o;
                plies.clear();
                plies.extend((0..occs.len()).map(|i| i as u16));
            }),
        };
        if let Err(e) = replayed {
            report.problem(
                "games",
                format!("game {g}"),
                format!("does not replay: {e}"),
            );
            return;
        }
        positions += occs.len() as u64;
        if amend.is_removed(g) {
            report.problem("games", format!("game {g}"), "stored, but deleted");
            return;
        }
        game_index(
            g,
            &occs,
            &plies,
            &tree,
            &single,
            &keys,
            &codes,
            &codes_start,
            &record_run,
            &mut mover,
            &mut whole,
            &mut by_key,
            &mut state,
            report,
        );
        lists.game(
            g,
            game_run.get(g as usize).copied().unwrap_or(NO_RUN),
            &occs,
        );
    })?;
    whole_moves_problems(&runs, &keys, &record_run, &whole, report);
    lists.problems(&amend, report);
    drop(lists);
    report.games = game_count;
    report.positions_replayed = positions;
    report.deleted_games = crate::index::amend::load_removed(read)?.len() as u64;
    for g in 0..ids {
        let claimed = !tree.range(g).is_empty() || !single.range(g).is_empty();
        if claimed && !stored[g as usize] && !amend.is_removed(g) {
            report.problem(
                "index",
                format!("game {g}"),
                "the index holds positions of a game that is not stored",
            );
        }
    }
    let counted = report.implicit + report.single_entries + tree.a.len() as u64;
    if report.deleted_games == 0 && counted != positions {
        report.problem(
            "index",
            "all runs",
            format!("the runs count {counted} positions, the stored games {positions}"),
        );
    }

    trace("check: index pass 3 (games)", t0);
    // Pass 4: each T record's statistics against its games' facts.
    let facts = FactsReader::new(read)?;
    let mut ordinal = 0usize;
    for run in &runs {
        let mut bad: Vec<(String, String)> = Vec::new();
        each_record(
            run,
            &blocks,
            &postings,
            &mut CheckReport::default(),
            |rec, list, _| {
                let m = mover[ordinal];
                ordinal += 1;
                let mut rec = rec.clone();
                if let Err(e) = amend.amend(run.id, &mut rec) {
                    bad.push((
                        format!("run {} position {:032x}", run.id, rec.key),
                        e.to_string(),
                    ));
                    return;
                }
                if m == NO_MOVER {
                    return; // every game of it deleted (or none replayed: said above)
                }
                let place = || format!("run {} position {:032x}", run.id, rec.key);
                // Its top games (game, move slot, seen among its games playing that move).
                let mut top: Vec<(u32, u8, bool)> =
                    rec.top.iter().map(|t| (t.game, t.slot, false)).collect();
                top.sort_unstable();
                if let Some(w) = top.windows(2).find(|w| w[0].0 == w[1].0) {
                    bad.push((
                        place(),
                        format!("lists game {} twice among its top games", w[0].0),
                    ));
                }
                let mut want = vec![Stats::default(); rec.moves.len()];
                let mut dated = Vec::new();
                for p in list.iter().filter(|p| !amend.is_removed(p.game)) {
                    if let Ok(i) = top.binary_search_by_key(&p.game, |t| t.0) {
                        top[i].2 |= top[i].1 == p.slot;
                    }
                    match (facts.get(p.game), want.get_mut(p.slot as usize)) {
                        (Ok(f), Some(s)) => {
                            s.add_game(&f, m);
                            dated.push((*p, f));
                        }
                        (Err(e), _) => {
                            bad.push((format!("game {}", p.game), e.to_string()));
                            return;
                        }
                        (_, None) => {
                            bad.push((
                                place(),
                                format!(
                                    "game {} plays move slot {}, the record has {}",
                                    p.game,
                                    p.slot,
                                    rec.moves.len()
                                ),
                            ));
                            return;
                        }
                    }
                }
                for (i, (mv, w)) in rec.moves.iter().zip(&want).enumerate() {
                    if mv.stats != *w {
                        bad.push((
                            format!("run {} position {:032x} move {i}", run.id, rec.key),
                            format!("the record says {:?}, its games' facts {:?}", mv.stats, w),
                        ));
                    }
                }
                if let Some(problem) = listed_games_problem(&rec, &want, dated) {
                    bad.push((place(), problem));
                }
                for (game, slot, _) in top.iter().filter(|t| !t.2).take(1) {
                    bad.push((
                        place(),
                        format!(
                            "lists game {game} (move slot {slot}) among its top games: that game \
                             does not play that move here"
                        ),
                    ));
                }
            },
        )?;
        for (place, what) in bad {
            report.problem("index", place, what);
        }
    }
    trace("check: index pass 4 (statistics)", t0);
    Ok(())
}

/// What is wrong with a record's newest games and single games, given its games (each
/// with its move slot and facts) and each move's statistics counted from them.
fn listed_games_problem(
    rec: &TRecord,
    counted: &[Stats],
    mut games: Vec<(Posting, GameFacts)>,
) -> Option<String> {
    if let Some(recent) = &rec.recent {
        games.sort_by(|a, b| newest_order((a.0.game, &a.1), (b.0.game, &b.1)));
        let newest: Vec<Posting> = games.iter().take(recent.len()).map(|g| g.0).collect();
        if *recent != newest {
            return Some(format!(
                "lists {recent:?} as its newest games, its games' dates say {:?}",
                games
                    .iter()
                    .take(RECENT_GAMES)
                    .map(|g| g.0)
                    .collect::<Vec<_>>()
            ));
        }
    }
    if let Some(singles) = &rec.singles {
        for (slot, s) in counted.iter().enumerate() {
            let listed = singles.iter().find(|x| x.0 as usize == slot).map(|x| x.1);
            let playing: Vec<u32> = games
                .iter()
                .filter(|g| g.0.slot as usize == slot)
                .map(|g| g.0.game)
                .collect();
            let right = match listed {
                Some(g) => playing == [g],
                None => s.games() != 1,
            };
            if !right {
                return Some(format!(
                    "names game {listed:?} for move slot {slot}, played by games {playing:?}"
                ));
            }
        }
    }
    None
}

/// The moves records say are the whole of where they lead, against the complete T records
/// of those positions in the same run: as many games each.
fn whole_moves_problems(
    runs: &[RunDir],
    keys: &[u128],
    record_run: &[u32],
    whole: &Whole,
    report: &mut CheckReport,
) {
    let mut by_key: Vec<(u128, u32, u32)> = (0..keys.len())
        .map(|o| (keys[o], record_run[o], o as u32))
        .collect();
    by_key.sort_unstable();
    for (&(ord, slot), &(child, games)) in &whole.children {
        let run = record_run[ord as usize];
        let Ok(at) = by_key.binary_search_by_key(&(child, run), |x| (x.0, x.1)) else {
            continue;
        };
        let complete = runs
            .iter()
            .find(|r| r.id == run)
            .is_some_and(|r| r.complete_for(child));
        let reached = whole.record_games[by_key[at].2 as usize];
        if complete && reached != games {
            report.problem(
                "index",
                format!("run {run} position {:032x}", keys[ord as usize]),
                format!(
                    "its T record says the {games} games of move slot {slot} are all that reach \
                     where it leads; {reached} games reach it"
                ),
            );
        }
    }
}

/// One game's positions found in the index: see the module's documentation.
#[allow(clippy::too_many_arguments)]
fn game_index(
    g: u32,
    occs: &[Occurrence],
    plies: &[u16],
    tree: &ByGame,
    single: &ByGame,
    keys: &[u128],
    codes: &[u16],
    codes_start: &[u32],
    record_run: &[u32],
    mover: &mut [u8],
    whole: &mut Whole,
    by_key: &mut Vec<(u128, usize)>,
    state: &mut Vec<u8>,
    report: &mut CheckReport,
) {
    const FREE: u8 = 0;
    const IN_T: u8 = 1;
    const EXPLICIT: u8 = 2;
    const IMPLICIT: u8 = 3;
    by_key.clear();
    by_key.extend(occs.iter().enumerate().map(|(i, o)| (o.key, i)));
    by_key.sort_unstable();
    state.clear();
    state.resize(occs.len(), FREE);
    let place = |what: &str| format!("game {g} {what}");
    for c in tree.range(g) {
        let ord = tree.a[c] as usize;
        let key = keys[ord];
        let run = record_run[ord];
        let at = by_key
            .binary_search_by_key(&key, |x| x.0)
            .ok()
            .map(|i| by_key[i].1);
        let Some(i) = at else {
            report.problem(
                "index",
                format!("run {run} position {key:032x}"),
                format!("its T record lists game {g}, which does not reach the position"),
            );
            continue;
        };
        let slot = tree.b[c] as usize;
        let code = codes.get(codes_start[ord] as usize + slot).copied();
        if code != Some(occs[i].code) {
            report.problem(
                "index",
                format!("run {run} position {key:032x}"),
                format!(
                    "its T record gives game {g} the move {code:?}; the game plays {} at ply {}",
                    occs[i].code, plies[i]
                ),
            );
        }
        whole.record_games[ord] += 1;
        if whole.flags.get(codes_start[ord] as usize + slot) == Some(&true) {
            let next = (i + 1 < occs.len() && plies[i + 1] == plies[i].wrapping_add(1))
                .then(|| occs[i + 1].key);
            let went = whole.children.entry((ord as u32, slot as u8));
            let same = match (next, went) {
                (None, _) => false,
                (Some(k), std::collections::hash_map::Entry::Vacant(v)) => {
                    v.insert((k, 1));
                    true
                }
                (Some(k), std::collections::hash_map::Entry::Occupied(mut o)) => {
                    o.get_mut().1 += 1;
                    o.get().0 == k
                }
            };
            if !same {
                report.problem(
                    "index",
                    format!("run {run} position {key:032x}"),
                    format!(
                        "its T record says the games of move slot {slot} are all that reach \
                         where it leads; game {g} does not go on to the same position one ply \
                         later"
                    ),
                );
            }
        }
        if state[i] == IN_T {
            report.problem(
                "index",
                place(&format!("ply {}", plies[i])),
                "in two T records",
            );
        }
        state[i] = IN_T;
        if mover[ord] == NO_MOVER {
            mover[ord] = occs[i].mover;
        } else if mover[ord] != occs[i].mover {
            report.problem(
                "index",
                format!("run {run} position {key:032x}"),
                "games of its T record have different sides to move",
            );
        }
    }
    // S entries: each one the entry of a position not in a T record (with pred: the one
    // before it, one ply earlier, is implicit).
    let s = single.range(g);
    let mut entries: Vec<(u32, bool)> = s.map(|c| (single.a[c], single.b[c] == 1)).collect();
    // Entries with pred first: they say more about where they belong.
    entries.sort_unstable_by_key(|e| (!e.1, e.0));
    for (p, pred) in entries {
        let fits = |i: usize, state: &[u8]| {
            state[i] == FREE
                && prefix(occs[i].key) == p
                && (!pred
                    || (i > 0 && state[i - 1] == FREE && plies[i - 1].wrapping_add(1) == plies[i]))
        };
        // The game's positions with this prefix: `by_key` is sorted by key, so by prefix.
        let from = by_key.partition_point(|x| prefix(x.0) < p);
        let found = by_key[from..]
            .iter()
            .take_while(|x| prefix(x.0) == p)
            .map(|x| x.1)
            .find(|&i| fits(i, state));
        match found {
            Some(i) => {
                state[i] = EXPLICIT;
                if pred {
                    state[i - 1] = IMPLICIT;
                }
            }
            None => report.problem(
                "index",
                place(&format!("prefix {p:08x}")),
                if pred {
                    "an S entry with pred matches no position of the game whose previous position is free to be implicit"
                } else {
                    "an S entry matches no position of the game outside a T record"
                },
            ),
        }
    }
    for (i, &st) in state.iter().enumerate() {
        if st == FREE {
            report.problem(
                "index",
                place(&format!("ply {} position {:032x}", plies[i], occs[i].key)),
                "the position is in no T record and no S entry (explicit or implicit)",
            );
        }
    }
}
