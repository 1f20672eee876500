//! The index's side of a change: every T record that counted a deleted or edited game gets a
//! patch saying what it counts now. A game counted through S entries needs nothing (queries
//! read its facts as they are, and skip it once removed); only T records hold sums.
//!
//! For each of the game's positions with a T record in the game's own run, the game's old
//! facts are taken out of the statistics of the move it played there and, for an edit, its
//! new ones put in. Sums and counts are exact at once. A move's first or last year, and the
//! record's best games, cannot be taken back by subtraction: when the game held one of them,
//! they are counted again from the record's game list, with every game's facts as they will
//! be (rare: a record's best games are few, and a year is usually shared). Changes of many
//! games in one transaction touch each record once.

use std::collections::HashMap;

use crate::game::Occurrence;
use crate::index::amend::Patch;
use crate::index::find::IndexReader;
use crate::index::record::{Posting, TRecord, best_of};
use crate::index::{RunDir, prefix, top_order};
use crate::stats::GameFacts;
use crate::{Error, Result};

/// A record being changed.
struct Pending {
    rec: TRecord,
    /// Slots whose years must be counted again.
    years: Vec<bool>,
    /// Whether its best games must be ranked again.
    top: bool,
}

/// The records a change touches, with their new statistics.
pub(crate) struct Retally<'r, 'a> {
    index: &'r IndexReader<'a>,
    facts: &'r crate::facts::FactsReader,
    /// Facts of games this change edits, as they will be.
    new_facts: HashMap<u32, GameFacts>,
    /// Games this change deletes.
    removing: Vec<u32>,
    records: HashMap<(u32, u128), Pending>,
}

impl<'r, 'a> Retally<'r, 'a> {
    pub fn new(index: &'r IndexReader<'a>, facts: &'r crate::facts::FactsReader) -> Self {
        Retally {
            index,
            facts,
            new_facts: HashMap::new(),
            removing: Vec::new(),
            records: HashMap::new(),
        }
    }

    /// Facts of a game as they will be after the change.
    fn facts_now(&self, game: u32) -> Result<GameFacts> {
        match self.new_facts.get(&game) {
            Some(f) => Ok(*f),
            None => self.facts.get(game),
        }
    }

    /// Whether a game is gone after the change.
    fn gone(&self, game: u32) -> bool {
        self.index.amendments.is_removed(game) || self.removing.binary_search(&game).is_ok()
    }

    /// The run holding a game's index entries: one of its S entries says, or, for a game
    /// whose every position has a T record, the game list of its last position's.
    fn run_of(&self, game: u32, occs: &[Occurrence]) -> Result<Option<&'r RunDir>> {
        for o in occs.iter().rev() {
            for r in self.index.runs.iter() {
                if self
                    .index
                    .s_entries(r, prefix(o.key))?
                    .iter()
                    .any(|e| e.game == game)
                {
                    return Ok(Some(r));
                }
            }
        }
        let Some(last) = occs.last() else {
            return Ok(None);
        };
        for r in self.index.runs.iter() {
            if let Some(rec) = self.index.t_record(r, last.key)?
                && self
                    .index
                    .postings_of(r, &rec)?
                    .iter()
                    .any(|p| p.game == game)
            {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// Takes a game out of every T record that counted it (`new`: and puts it back with its
    /// new facts). `occs` are its counted positions.
    pub fn change(
        &mut self,
        game: u32,
        occs: &[Occurrence],
        old: GameFacts,
        new: Option<GameFacts>,
    ) -> Result<()> {
        match new {
            Some(f) => {
                self.new_facts.insert(game, f);
            }
            None => {
                let at = self.removing.binary_search(&game).unwrap_or_else(|i| i);
                self.removing.insert(at, game);
            }
        }
        let Some(run) = self.run_of(game, occs)? else {
            return Ok(());
        };
        for o in occs {
            let id = (run.id, o.key);
            if !self.records.contains_key(&id) {
                let Some(rec) = self.index.t_record(run, o.key)? else {
                    continue;
                };
                let slots = rec.moves.len();
                self.records.insert(
                    id,
                    Pending {
                        rec,
                        years: vec![false; slots],
                        top: false,
                    },
                );
            }
            if !run.complete_for(o.key) {
                let rec = &self.records[&id].rec;
                if !self
                    .index
                    .postings_of(run, rec)?
                    .iter()
                    .any(|p| p.game == game)
                {
                    continue; // counted by an S entry of the run
                }
            }
            let in_top = self.records[&id].rec.top.iter().any(|t| t.game == game);
            let joins_top = match new {
                Some(f) if !in_top => self.joined_top(&self.records[&id].rec, game, o.code, &f)?,
                _ => None,
            };
            let p = self.records.get_mut(&id).expect("inserted above");
            let slot = p
                .rec
                .moves
                .iter()
                .position(|m| m.code == o.code)
                .ok_or_else(|| Error::Corrupt(format!("game {game}'s move not in its record")))?;
            let stats = &mut p.rec.moves[slot].stats;
            if !stats.remove_game(&old, o.mover) {
                return Err(Error::Corrupt(format!(
                    "a record of run {} does not count game {game} it lists",
                    run.id
                )));
            }
            if let Some(y) = old.year
                && (y == stats.min_year || y == stats.max_year)
            {
                p.years[slot] = true;
            }
            if let Some(f) = new {
                stats.add_game(&f, o.mover);
            }
            if in_top {
                p.top = true;
            } else if let Some(top) = joins_top {
                p.rec.top = top;
            }
        }
        Ok(())
    }

    /// A record's best games with a game (not among them) whose facts became `f`, when it
    /// now ranks above the last of them; `None` when it does not, or when the record keeps
    /// no separate list (it then lists all its games).
    fn joined_top(
        &self,
        rec: &TRecord,
        game: u32,
        code: u16,
        f: &GameFacts,
    ) -> Result<Option<Vec<Posting>>> {
        if rec.top.is_empty() {
            return Ok(None);
        }
        let slot = rec.moves.iter().position(|m| m.code == code).unwrap_or(0) as u8;
        let mut ranked = vec![(Posting { game, slot }, *f)];
        for t in &rec.top {
            ranked.push((*t, self.facts_now(t.game)?));
        }
        ranked.sort_by(|a, b| top_order((a.0.game, &a.1), (b.0.game, &b.1)));
        if ranked.last().is_some_and(|l| l.0.game == game) {
            return Ok(None);
        }
        // As many as the record keeps (8 in records written before 15 were).
        ranked.truncate(rec.top.len());
        Ok(Some(ranked.into_iter().map(|(p, _)| p).collect()))
    }

    /// The patches to write: each touched record's statistics, their years and best games
    /// counted again where needed.
    pub fn finish(mut self) -> Result<Vec<(u32, u128, Patch)>> {
        let mut out = Vec::with_capacity(self.records.len());
        let mut records: Vec<((u32, u128), Pending)> = self.records.drain().collect();
        records.sort_unstable_by_key(|(id, _)| *id);
        for ((run_id, key), mut p) in records {
            if p.years.iter().any(|&y| y) || p.top {
                let run = self
                    .index
                    .runs
                    .iter()
                    .find(|r| r.id == run_id)
                    .expect("a run of this snapshot");
                let mut games = self.index.postings_of(run, &p.rec)?;
                games.retain(|g| !self.gone(g.game));
                if p.years.iter().any(|&y| y) {
                    self.count_years(&mut p, &games)?;
                }
                if p.top {
                    let mut ranked = Vec::with_capacity(games.len());
                    for g in games {
                        ranked.push((g, self.facts_now(g.game)?.rank()));
                    }
                    p.rec.top = best_of(&mut ranked);
                }
            }
            let top = p.rec.top.iter().copied().filter(|t| !self.gone(t.game));
            out.push((
                run_id,
                key,
                Patch {
                    moves: p.rec.moves.iter().map(|m| m.stats).collect(),
                    top: (p.top || !p.rec.top.is_empty()).then(|| top.collect()),
                },
            ));
        }
        Ok(out)
    }

    /// First and last years of the marked slots, from the games left (stopping early once
    /// a game of each old extreme is found: they stay).
    fn count_years(&self, p: &mut Pending, games: &[Posting]) -> Result<()> {
        for (slot, _) in p.years.iter().enumerate().filter(|(_, y)| **y) {
            let stats = &mut p.rec.moves[slot].stats;
            let (old_min, old_max) = (stats.min_year, stats.max_year);
            let (mut min, mut max) = (0u16, 0u16);
            for g in games.iter().filter(|g| g.slot as usize == slot) {
                if let Some(y) = self.facts_now(g.game)?.year {
                    min = if min == 0 { y } else { min.min(y) };
                    max = max.max(y);
                }
                if min == old_min && max == old_max && old_min != 0 {
                    break;
                }
            }
            stats.min_year = min;
            stats.max_year = max;
        }
        Ok(())
    }
}
