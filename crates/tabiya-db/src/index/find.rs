//! The games of one position, run by run: from its T record, from its own S entries (key
//! prefix), and from its successors' S entries that say the position before them was kept
//! implicitly. A prefix only selects candidates; a replay decides.

use std::collections::HashMap;

use tabiya_store::{ReadTx, TableRef};

use super::amend::Amendments;
use super::record::{Elsewhere, Posting, SEntry, TRecord};
use super::{
    BLOCKS, POSTINGS, RunDir, block_key, decode_external_postings, find_in_s_block,
    find_in_t_block, postings_key, prefix,
};
use crate::chess::walk::Reach;
use crate::facts::FactsReader;
use crate::game::{NO_MOVE, Occurrence};
use crate::replay::Replayer;
use crate::schema::Kind;
use crate::stats::{GameFacts, Stats};
use crate::{Error, Result};

/// T records with at most this many games have their list read when an S entry of the same
/// run leads to the position too (cheaper than replaying whole games to tell without it).
const READ_POSTINGS_UP_TO: u64 = 20_000;

/// The positions one legal move away from an asked one: given, or computed from it only
/// when a run needs them (a complete T record answers without).
#[derive(Clone, Copy)]
pub(crate) enum Next<'p> {
    Keys(&'p [u128]),
    Of(&'p shakmaty::Chess),
}

/// Games of one position found in the runs.
pub(crate) struct Found {
    pub stats: HashMap<u16, Stats>,
    /// The candidates for the best games: the T records' best games, and every game known
    /// one by one.
    pub top: Vec<(u32, u16)>,
    /// How many best games `top` holds exactly: the shortest best-games list of a T record
    /// (`usize::MAX` with none).
    pub top_known: usize,
    /// The T records' newest games (candidates for the newest games with `each`).
    pub recent: Vec<(u32, u16)>,
    /// How many newest games `recent` and `each` hold exactly (0 when a T record with a
    /// best-games list keeps no newest list).
    pub recent_known: usize,
    /// The games known one by one (found through S entries, or listed whole by a T record
    /// with no best-games list), with the move each played.
    pub each: Vec<(u32, u16)>,
    /// The T records' games of moves played by one game, by move code.
    pub singles: Vec<(u16, u32)>,
    /// Whether every T record with a best-games list named its moves' single games.
    pub singles_known: bool,
    /// All games, when asked for.
    pub all: Vec<(u32, u16)>,
}

impl Default for Found {
    fn default() -> Found {
        Found {
            stats: HashMap::new(),
            top: Vec::new(),
            top_known: usize::MAX,
            recent: Vec::new(),
            recent_known: usize::MAX,
            each: Vec::new(),
            singles: Vec::new(),
            singles_known: true,
            all: Vec::new(),
        }
    }
}

impl Found {
    /// Counts game `g`, which played `o.code` at the position.
    fn add_game(&mut self, facts: GameFacts, g: u32, o: Occurrence, want_all: bool) {
        self.stats
            .entry(o.code)
            .or_default()
            .add_game(&facts, o.mover);
        self.top.push((g, o.code));
        self.each.push((g, o.code));
        if want_all {
            self.all.push((g, o.code));
        }
    }

    /// The game of a move played by one game, when the index named it.
    pub fn single(&self, code: u16) -> Option<u32> {
        self.singles
            .iter()
            .find(|s| s.0 == code)
            .map(|s| s.1)
            .or_else(|| self.each.iter().find(|e| e.1 == code).map(|e| e.0))
    }
}

/// Looks up where move `i` leads in the runs a filter picks (by index): what
/// [`IndexReader::totals_after`] asks where records do not answer.
pub(crate) type LookUp<'l> = dyn FnMut(usize, &dyn Fn(usize) -> bool) -> Result<Stats> + 'l;

/// What is being looked for.
pub(crate) struct Wanted<'p> {
    pub key: u128,
    pub next: Next<'p>,
    /// Where a replay can stop early (chess).
    pub reach: Option<&'p Reach>,
    /// Every game, not only statistics and the best-rated ones.
    pub all: bool,
}

/// The index of one read transaction: its runs and the tables their blocks live in.
pub(crate) struct IndexReader<'a> {
    /// Shared with the database's other readers of the same runs (`Database::runs_of`).
    pub runs: std::sync::Arc<Vec<RunDir>>,
    blocks: TableRef,
    postings: TableRef,
    pub replayer: Replayer<'a>,
    /// Games deleted and records patched since the runs were written.
    pub amendments: Amendments,
    /// [`READ_POSTINGS_UP_TO`] (tests lower it to check the other way gives the same).
    pub read_postings_up_to: u64,
    /// Whether a complete T record ([`RunDir::complete_for`]) is taken as the whole answer
    /// of its run (tests turn it off to check that looking further finds nothing more).
    pub use_complete: bool,
    /// Whether a record's [`TRecord::whole`] moves answer for the positions they lead to
    /// (tests turn it off to check that the lookups give the same).
    pub use_whole: bool,
    /// The positions [`IndexReader::totals_after`] looked up so far, each once however many
    /// runs it asked (what a benchmark reports beside its times).
    pub lookups: std::cell::Cell<u64>,
}

/// A run's T record of the position, and what it already counted.
struct TreePart {
    record: TRecord,
    /// Its games, once loaded.
    games: Option<Vec<Posting>>,
}

/// Games of a run whose S entries may lead to the position.
struct Candidates {
    /// Games with an entry of the position's prefix, and how many such entries each has.
    direct: HashMap<u32, usize>,
    /// Games with an implicit-predecessor entry of a successor, and those successors.
    via: HashMap<u32, Vec<u128>>,
    /// Both, sorted, once each.
    games: Vec<u32>,
}

impl<'a> IndexReader<'a> {
    /// The index as `read` sees it; `runs` are its runs (`Database::runs_of(read)`).
    pub fn new(
        read: &ReadTx,
        runs: std::sync::Arc<Vec<RunDir>>,
        kind: Kind,
        max_ply: Option<u32>,
    ) -> Result<IndexReader<'a>> {
        Ok(IndexReader {
            runs,
            blocks: read.table(BLOCKS)?,
            postings: read.table(POSTINGS)?,
            replayer: Replayer::new(read, kind, max_ply)?,
            amendments: Amendments::new(read)?,
            read_postings_up_to: READ_POSTINGS_UP_TO,
            use_complete: true,
            use_whole: true,
            lookups: std::cell::Cell::new(0),
        })
    }

    /// Everything the index holds of one position.
    pub fn find(&self, wanted: &Wanted<'_>, facts: &FactsReader) -> Result<Found> {
        self.find_in(wanted, facts, &|_| true)
    }

    /// What the runs `in_run` picks (by index in [`IndexReader::runs`]) hold of one
    /// position.
    pub fn find_in(
        &self,
        wanted: &Wanted<'_>,
        facts: &FactsReader,
        in_run: &dyn Fn(usize) -> bool,
    ) -> Result<Found> {
        let mut found = Found::default();
        let mut computed: Option<Vec<u128>> = None;
        for (at, r) in self.runs.iter().enumerate() {
            if !in_run(at) {
                continue;
            }
            let tree = self.tree_part(r, wanted, &mut found)?;
            if tree.is_some() && self.use_complete && r.complete_for(wanted.key) {
                // The record holds every game of this run reaching the position.
                continue;
            }
            let successors: &[u128] = match wanted.next {
                Next::Keys(k) => k,
                Next::Of(pos) => {
                    computed.get_or_insert_with(|| crate::chess::key::successor_keys(pos))
                }
            };
            let candidates = self.candidates(r, wanted.key, successors)?;
            match tree {
                None => self.count_without_tree(candidates, wanted, facts, &mut found)?,
                Some(mut tree) if tree.record.n_postings <= self.read_postings_up_to => self
                    .count_beside_listed_tree(
                        r, &mut tree, candidates, wanted, facts, &mut found,
                    )?,
                Some(mut tree) => self
                    .count_beside_long_tree(r, &mut tree, candidates, wanted, facts, &mut found)?,
            }
        }
        Ok(found)
    }

    /// The totals of the positions some moves lead to (by code, from the position of key
    /// `key`), each as [`IndexReader::find`] would sum them, with no lookup in a run whose
    /// record of the position tells them: the move's games are the whole of where it leads
    /// ([`TRecord::whole`]), or its record lists the few other games of the run that go
    /// there, or says none does ([`TRecord::elsewhere`]; their results read from `facts`).
    /// `child` gives what to look up for a move elsewhere.
    pub fn totals_after(
        &self,
        key: u128,
        codes: &[u16],
        facts: &FactsReader,
        child: &mut LookUp<'_>,
    ) -> Result<Vec<Stats>> {
        let mut totals = vec![Stats::default(); codes.len()];
        // By move, then by run: whether that run still needs a lookup.
        let mut look = vec![vec![true; self.runs.len()]; codes.len()];
        if self.use_whole {
            for (at, r) in self.runs.iter().enumerate() {
                if !r.complete_for(key) {
                    continue;
                }
                let Some(rec) = self.t_record(r, key)? else {
                    continue;
                };
                for (i, &code) in codes.iter().enumerate() {
                    let slot = rec.moves.iter().position(|m| m.code == code);
                    let own = slot.map(|s| &rec.moves[s].stats);
                    if slot.is_some_and(|s| rec.whole.get(s) == Some(&true)) {
                        totals[i].merge(own.expect("played"));
                        look[i][at] = false;
                        continue;
                    }
                    let Some(list) = &rec.elsewhere else {
                        continue;
                    };
                    match list.iter().find(|e| e.code == code) {
                        // Played by none of the record's games, and no game of the run
                        // goes where it leads.
                        None if slot.is_none() => look[i][at] = false,
                        None => {}
                        Some(Elsewhere {
                            games: Some(games), ..
                        }) => {
                            if let Some(own) = own {
                                totals[i].merge(own);
                            }
                            for &g in games {
                                if !self.amendments.is_removed(g) {
                                    totals[i].add_game(&facts.get(g)?, 0);
                                }
                            }
                            look[i][at] = false;
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        for (i, runs) in look.iter().enumerate() {
            if runs.contains(&true) {
                self.lookups.set(self.lookups.get() + 1);
                let more = child(i, &|at| runs[at])?;
                totals[i].merge(&more);
            }
        }
        Ok(totals)
    }

    /// Step 1: the run's T record of the position, if any, added to `found` (its move
    /// statistics, its best games, and all its games when wanted).
    fn tree_part(
        &self,
        r: &RunDir,
        wanted: &Wanted<'_>,
        found: &mut Found,
    ) -> Result<Option<TreePart>> {
        let Some(rec) = self.t_record(r, wanted.key)? else {
            return Ok(None);
        };
        for m in rec.moves.iter().filter(|m| m.stats.games() > 0) {
            found.stats.entry(m.code).or_default().merge(&m.stats);
        }
        let code = |slot: u8| rec.moves.get(slot as usize).map_or(NO_MOVE, |m| m.code);
        let mut games = None;
        if wanted.all || rec.top.is_empty() {
            let postings = self.postings_of(r, &rec)?;
            if rec.top.is_empty() {
                let listed = postings.iter().map(|p| (p.game, code(p.slot)));
                found.top.extend(listed.clone());
                found.each.extend(listed);
            }
            if wanted.all {
                found
                    .all
                    .extend(postings.iter().map(|p| (p.game, code(p.slot))));
            }
            games = Some(postings);
        }
        if !rec.top.is_empty() {
            found
                .top
                .extend(rec.top.iter().map(|p| (p.game, code(p.slot))));
            found.top_known = found.top_known.min(rec.top.len());
            match &rec.recent {
                Some(recent) => {
                    found
                        .recent
                        .extend(recent.iter().map(|p| (p.game, code(p.slot))));
                    found.recent_known = found.recent_known.min(recent.len());
                }
                None => found.recent_known = 0,
            }
            match &rec.singles {
                Some(singles) => found
                    .singles
                    .extend(singles.iter().map(|&(slot, g)| (code(slot), g))),
                None => found.singles_known = false,
            }
        }
        Ok(Some(TreePart { record: rec, games }))
    }

    /// Step 2: the run's games whose S entries may lead to the position: its own (prefix of
    /// the key) or, where it was kept implicitly, its successors' with `pred` set. (A run
    /// made by merging can hold a T record of a position and, from another of its parts, S
    /// entries of it too.)
    fn candidates(&self, r: &RunDir, key: u128, successors: &[u128]) -> Result<Candidates> {
        let mut direct: HashMap<u32, usize> = HashMap::new();
        let removed = |g: u32| self.amendments.is_removed(g);
        for e in self.s_entries(r, prefix(key))? {
            if !removed(e.game) {
                *direct.entry(e.game).or_default() += 1;
            }
        }
        let mut via: HashMap<u32, Vec<u128>> = HashMap::new();
        for &q in successors {
            for e in self.s_entries(r, prefix(q))? {
                if e.pred && !removed(e.game) {
                    via.entry(e.game).or_default().push(q);
                }
            }
        }
        let mut games: Vec<u32> = direct.keys().chain(via.keys()).copied().collect();
        games.sort_unstable();
        games.dedup();
        Ok(Candidates { direct, via, games })
    }

    /// Step 3, no T record in the run: every candidate reaching the position counts,
    /// whichever entry named it, and its replay can stop at the position.
    fn count_without_tree(
        &self,
        c: Candidates,
        wanted: &Wanted<'_>,
        facts: &FactsReader,
        found: &mut Found,
    ) -> Result<()> {
        for g in c.games {
            if let Some(o) = self.replayer.occurrence_of(g, wanted.key, wanted.reach)? {
                found.add_game(facts.get(g)?, g, o, wanted.all);
            }
        }
        Ok(())
    }

    /// Step 3, beside a T record whose list of games is short enough to read: a candidate
    /// reaching the position counts unless the record counted it, and the replay stops at
    /// the position.
    fn count_beside_listed_tree(
        &self,
        r: &RunDir,
        tree: &mut TreePart,
        c: Candidates,
        wanted: &Wanted<'_>,
        facts: &FactsReader,
        found: &mut Found,
    ) -> Result<()> {
        for g in c.games {
            let Some(o) = self.replayer.occurrence_of(g, wanted.key, wanted.reach)? else {
                continue;
            };
            if !self.tree_counted(r, tree, g)? {
                found.add_game(facts.get(g)?, g, o, wanted.all);
            }
        }
        Ok(())
    }

    /// Step 3, beside a T record with a long list (perhaps a million games), which is not
    /// read: the entries tell instead. A game whose entries with the position's prefix are
    /// as many as its positions with that prefix has the position explicitly in S; one whose
    /// successor's `pred` entry comes one ply after it has it implicitly. Only a prefix
    /// shared by two of a game's positions leaves it to the list.
    fn count_beside_long_tree(
        &self,
        r: &RunDir,
        tree: &mut TreePart,
        c: Candidates,
        wanted: &Wanted<'_>,
        facts: &FactsReader,
        found: &mut Found,
    ) -> Result<()> {
        let own_prefix = prefix(wanted.key);
        for g in c.games {
            let (occs, plies) = self.replayer.occurrences_with_plies(g)?;
            let Some(i) = occs.iter().position(|o| o.key == wanted.key) else {
                continue;
            };
            let with_prefix = |p: u32| occs.iter().filter(|o| prefix(o.key) == p).count();
            let mut counts = false;
            let mut ambiguous = false;
            if let Some(&n) = c.direct.get(&g) {
                if n == with_prefix(own_prefix) {
                    counts = true;
                } else {
                    ambiguous = true;
                }
            }
            if !counts && let Some(qs) = c.via.get(&g) {
                for &q in qs {
                    if with_prefix(prefix(q)) != 1 {
                        ambiguous = true;
                        continue;
                    }
                    if let Some(o) = occs.get(i + 1)
                        && o.key == q
                        && plies[i + 1] == plies[i].wrapping_add(1)
                    {
                        counts = true;
                        break;
                    }
                }
            }
            if !counts && ambiguous {
                counts = !self.tree_counted(r, tree, g)?;
            }
            if counts {
                found.add_game(facts.get(g)?, g, occs[i], wanted.all);
            }
        }
        Ok(())
    }

    /// Whether the T record counted game `g` (its list loaded once).
    fn tree_counted(&self, r: &RunDir, tree: &mut TreePart, g: u32) -> Result<bool> {
        if tree.games.is_none() {
            tree.games = Some(self.postings_of(r, &tree.record)?);
        }
        Ok(tree
            .games
            .as_ref()
            .is_some_and(|p| p.binary_search_by_key(&g, |x| x.game).is_ok()))
    }

    /// The S entries of a run with this key prefix.
    pub fn s_entries(&self, r: &RunDir, prefix: u32) -> Result<Vec<SEntry>> {
        let Some(b) = r.s_block_for(prefix) else {
            return Ok(Vec::new());
        };
        let found = self.blocks.get_with(&block_key(r.id, b'S', b), |block| {
            find_in_s_block(block, prefix)
        })?;
        match found {
            Some(entries) => Ok(entries?),
            None => Err(Error::Corrupt(format!(
                "missing index block {}/S/{b}",
                r.id
            ))),
        }
    }

    /// The T record of a position in a run as it is now (amended), if it has one.
    pub fn t_record(&self, r: &RunDir, key: u128) -> Result<Option<TRecord>> {
        let Some(b) = r.t_block_for(key) else {
            return Ok(None);
        };
        let block = self
            .blocks
            .get(&block_key(r.id, b'T', b))?
            .ok_or_else(|| Error::Corrupt(format!("missing index block {}/T/{b}", r.id)))?;
        let mut rec = find_in_t_block(&block, key)?;
        if let Some(rec) = &mut rec {
            self.amendments.amend(r.id, rec)?;
        }
        Ok(rec)
    }

    /// A T record's games (less the removed ones: the record was amended).
    pub(crate) fn postings_of(&self, r: &RunDir, rec: &TRecord) -> Result<Vec<Posting>> {
        match &rec.postings {
            Some(p) => Ok(p.clone()),
            None => {
                let data = self
                    .postings
                    .get(&postings_key(r.id, rec.key))?
                    .ok_or_else(|| Error::Corrupt("missing postings".into()))?;
                let mut p = decode_external_postings(&data, rec.n_postings)?;
                self.amendments.retain_postings(&mut p);
                Ok(p)
            }
        }
    }
}
