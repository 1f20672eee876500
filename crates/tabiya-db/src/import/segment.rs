//! A segment: the games of one import transaction, gathered batch by batch, committed with
//! their index run in one store transaction.

use std::time::Instant;

use tabiya_store::WriteTx;

use crate::facts::write_facts;
use crate::game::Dict;
use crate::gamesets::maintain::Judge;
use crate::hll::Hll;
use crate::import::spill::Spill;
use crate::index::{self, Occ};
use crate::names::write_names;
use crate::players::{Players, write_players};
use crate::stats::GameFacts;
use crate::trace::trace;
use crate::{Database, Error, GAMES, META, Result, meta_u64, records};

/// One batch of games to commit.
#[derive(Default)]
pub(crate) struct Batch {
    pub first_game: u32,
    pub records: Vec<Vec<u8>>,
    pub facts: Vec<GameFacts>,
    /// Chess: the players of every game, in id order (empty for Othello).
    pub players: Vec<Players>,
    pub occs: Vec<Occ>,
    /// Duplicate digest of every game of the batch, in id order.
    pub dedup: Vec<(u128, u32)>,
    pub names: Vec<(Dict, u32, String)>,
    /// Chess: each game's distinct shapes (`crate::shapes`), as (entry, game id).
    pub shapes: Vec<(u64, u32)>,
    /// Whether `shapes` holds every game's (what the structure index may then cover).
    pub shaped: bool,
}

impl Batch {
    /// Empties the batch, keeping its memory.
    pub(crate) fn reset(&mut self, first_game: u32) {
        self.first_game = first_game;
        self.records.clear();
        self.facts.clear();
        self.players.clear();
        self.occs.clear();
        self.dedup.clear();
        self.names.clear();
        self.shapes.clear();
        self.shaped = false;
    }

    pub(crate) fn with_capacity(first_game: u32, games: usize) -> Batch {
        Batch {
            first_game,
            records: Vec::with_capacity(games),
            facts: Vec::with_capacity(games),
            players: Vec::with_capacity(games),
            occs: Vec::with_capacity(games * 90),
            dedup: Vec::with_capacity(games),
            names: Vec::new(),
            shapes: Vec::with_capacity(games * 45),
            shaped: false,
        }
    }
}

fn game_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

/// Commits a batch on its own; with the ply of every occurrence, rare positions are kept
/// every other ply (see `crate::index::build`).
pub(crate) fn commit_batch_with_plies(
    db: &Database,
    batch: Batch,
    plies: Option<Vec<u16>>,
) -> Result<()> {
    let mut seg = Segment::new(batch.first_game);
    seg.add(db, &batch, plies.as_deref())?;
    seg.commit(db).map(|_| ())
}

/// Bytes of memory an occurrence takes while a segment's run is built (the occurrence, its
/// ply, its place in the key sort, flags, its S entry): how [`ImportOptions::index_memory`]
/// becomes a number of occurrences.
pub const BYTES_PER_OCCURRENCE: u64 = 60;

/// Games gathered for one transaction: their stored form already compressed, facts,
/// duplicate digests, new names, and the occurrences their index run is built from. Batches
/// are added as they come: the games are compressed and put in the segment's transaction
/// then, and the distinct positions sketched, while other threads parse; [`Segment::commit`]
/// builds the run and writes the rest in the same transaction, then commits it.
pub(crate) struct Segment {
    first_game: u32,
    /// Games in the segment.
    games: usize,
    /// The segment's transaction, open from its first game to its commit (dropped
    /// uncommitted, it leaves the database as it was).
    tx: Option<WriteTx>,
    /// One compressed game (the store copies it).
    packed: Vec<u8>,
    facts: Vec<GameFacts>,
    players: Vec<Players>,
    digests: Vec<u128>,
    names: Vec<(Dict, u32, String)>,
    occs: Vec<Occ>,
    plies: Vec<u16>,
    with_plies: bool,
    /// The games' shapes, and whether every batch brought them (`None`: no batch yet).
    shapes: Vec<(u64, u32)>,
    shaped: Option<bool>,
    /// Whether the segment's run is built (a load of a cluster build stores the games
    /// alone: their run is assembled from the cluster's sorted occurrences).
    pub(crate) index: bool,
    sketch: Hll,
    /// The database's game dictionary (loaded once there is one), and whether it is new:
    /// trained on this segment's first batch big enough, to be stored with it.
    dict: Option<(Vec<u8>, zstd::dict::EncoderDictionary<'static>)>,
    dict_is_new: bool,
    /// The gamesets the games are judged against (loaded with the first batch; `None`
    /// inside when the database has none).
    judge: Option<Option<Judge>>,
}

impl Segment {
    pub(crate) fn new(first_game: u32) -> Segment {
        Segment {
            first_game,
            games: 0,
            tx: None,
            packed: Vec::new(),
            facts: Vec::new(),
            players: Vec::new(),
            digests: Vec::new(),
            names: Vec::new(),
            occs: Vec::new(),
            plies: Vec::new(),
            with_plies: true,
            shapes: Vec::new(),
            shaped: None,
            index: true,
            sketch: Hll::default(),
            dict: None,
            dict_is_new: false,
            judge: None,
        }
    }

    pub(crate) fn games(&self) -> usize {
        self.games
    }

    /// Makes room for this many occurrences if the system grants the address space (pages
    /// are only taken as they are written); otherwise the vectors grow as they fill.
    pub(crate) fn reserve(&mut self, occurrences: usize) {
        let _ = self
            .occs
            .try_reserve_exact(occurrences.saturating_sub(self.occs.len()));
        let _ = self
            .plies
            .try_reserve_exact(occurrences.saturating_sub(self.plies.len()));
    }

    pub(crate) fn occurrences(&self) -> usize {
        self.occs.len()
    }

    /// Takes in a batch (which must follow the games already in).
    pub(crate) fn add(
        &mut self,
        db: &Database,
        batch: &Batch,
        plies: Option<&[u16]>,
    ) -> Result<()> {
        if batch.records.is_empty() {
            return Ok(());
        }
        if self.games == 0 {
            self.first_game = batch.first_game;
        }
        debug_assert_eq!(
            self.first_game as usize + self.games,
            batch.first_game as usize
        );
        // Stored games are compressed with the database's dictionary, trained on the first
        // batch big enough.
        if self.dict.is_none() {
            let read = db.store.read()?;
            let stored = read.table(META)?.get(records::DICT_KEY)?;
            drop(read);
            if let Some(d) = stored {
                let ed = records::encoder_dictionary(&d);
                self.dict = Some((d, ed));
            }
        }
        if self.dict.is_none() && batch.records.len() >= records::TRAIN_MIN {
            let t = Instant::now();
            if let Some(d) = records::train(&batch.records) {
                let ed = records::encoder_dictionary(&d);
                self.dict = Some((d, ed));
                self.dict_is_new = true;
            }
            trace("trained the game dictionary", t);
        }
        let mut packer = records::Packer::new(self.dict.as_ref().map(|(_, ed)| ed))?;
        if self.tx.is_none() {
            self.tx = Some(db.store.write()?);
        }
        let tx = self.tx.as_ref().expect("opened above");
        let (first, at) = (self.first_game, self.games);
        let mut games = tx.table(GAMES)?;
        for (i, rec) in batch.records.iter().enumerate() {
            packer.pack(rec, &mut self.packed)?;
            games.put(&game_key(first + (at + i) as u32), &self.packed)?;
        }
        drop(games);
        if self.judge.is_none() {
            self.judge = Some(Judge::load(db)?);
        }
        if let Some(Some(judge)) = &mut self.judge {
            judge.new_names(&batch.names);
            for (i, rec) in batch.records.iter().enumerate() {
                let players = batch.players.get(i).copied().unwrap_or_default();
                judge.judge_new(first + (at + i) as u32, batch.facts[i], players, rec)?;
            }
        }
        self.games += batch.records.len();
        self.facts.extend_from_slice(&batch.facts);
        self.players.extend_from_slice(&batch.players);
        self.digests.extend(batch.dedup.iter().map(|(h, _)| *h));
        self.names.extend(batch.names.iter().cloned());
        for o in &batch.occs {
            self.sketch.add(o.key);
        }
        self.occs.extend_from_slice(&batch.occs);
        let shaped = batch.shaped || batch.records.is_empty();
        self.shaped = Some(self.shaped.unwrap_or(true) && shaped);
        if shaped {
            self.shapes.extend_from_slice(&batch.shapes);
        } else {
            self.shapes.clear();
        }
        match plies {
            Some(p) if self.with_plies => self.plies.extend_from_slice(p),
            _ => {
                self.with_plies = false;
                self.plies.clear();
            }
        }
        Ok(())
    }

    /// Builds the segment's index run and writes it with the games in one transaction;
    /// the segment is then empty, ready for the next games. Returns whether there was
    /// anything to write. Prints timing lines on stderr when `TABIYA_TRACE` is set (for
    /// benchmarks).
    pub(crate) fn commit(&mut self, db: &Database) -> Result<bool> {
        self.commit_spilling(db, None)
    }

    /// [`Segment::commit`], spilling the segment's rare occurrences to `spill` (when given)
    /// for the merge at the import's end.
    pub(crate) fn commit_spilling(
        &mut self,
        db: &Database,
        spill: Option<&mut Spill>,
    ) -> Result<bool> {
        if self.games == 0 {
            return Ok(false);
        }
        let t0 = Instant::now();
        let read = db.store.read()?;
        let run_id = meta_u64(&read, "next_run")? as u32;
        drop(read);
        let n = self.games as u32;
        let first = self.first_game;
        let facts = &self.facts;
        let lookup = |g: u32| facts[(g - first) as usize];
        let n_occs = self.occs.len();
        let plies = self.with_plies.then_some(&self.plies[..]);
        let sketch = std::mem::take(&mut self.sketch);
        let successors: Option<&index::build::Successors> = match db.kind() {
            crate::Kind::Chess => Some(&index::successors::chess_successors),
            crate::Kind::Othello => None,
        };
        let built = match (spill, plies) {
            _ if !self.index => None,
            (Some(spill), Some(plies)) => {
                Some(spill.segment(run_id, first, &self.occs, plies, |sinks| {
                    index::build_sketched(
                        &self.occs,
                        &lookup,
                        Some(plies),
                        sketch,
                        Some(sinks),
                        successors,
                    )
                })?)
            }
            (Some(_), None) => {
                return Err(Error::Corrupt("a segment to spill has no plies".into()));
            }
            (None, plies) => Some(index::build_sketched(
                &self.occs, &lookup, plies, sketch, None, successors,
            )),
        };
        if let Some(built) = &built {
            trace(
                &format!(
                    "segment of {n} games: sorted {n_occs} positions into {} records, {} singles, {} implicit",
                    built.records.len(),
                    built.singles.len(),
                    built.implicit
                ),
                t0,
            );
        }
        let w = match self.tx.take() {
            Some(w) => w,
            None => db.store.write()?,
        };
        // The run is encoded on the other cores while the rest goes in.
        let encoded = std::thread::scope(|s| -> Result<Option<index::writer::EncodedRun>> {
            let encoding = built
                .as_ref()
                .map(|b| s.spawn(|| index::writer::encode_run(&b.records, &b.singles)));
            if self.dict_is_new
                && let Some((d, _)) = &self.dict
            {
                w.with_table(META, |t| t.put(records::DICT_KEY, d))?;
            }
            write_facts(&w, first, &self.facts, &self.digests)?;
            if !self.players.is_empty() {
                write_players(&w, first, &self.players)?;
            }
            write_names(&w, &self.names)?;
            if let Some(Some(judge)) = &mut self.judge {
                judge.write(&w)?;
            }
            if self.shaped == Some(true) && db.kind() == crate::Kind::Chess {
                crate::shapes::write_segment(&w, first, first + n, &mut self.shapes)?;
                crate::shapes::build::mark_kept(&w)?;
            }
            encoding
                .map(|e| {
                    e.join()
                        .map_err(|_| Error::Corrupt("run encoding thread panicked".into()))
                })
                .transpose()
        })?;
        trace("run encoded, facts and names put", t0);
        let with_run = built.is_some();
        if let (Some(built), Some(encoded)) = (built, encoded) {
            drop((built.records, built.singles));
            index::writer::write_encoded_run(
                &w,
                run_id,
                n as u64,
                encoded,
                &built.sketch,
                built.implicit,
            )?;
            trace("run put", t0);
        }
        let next_run = run_id + u32::from(with_run);
        w.with_table(META, |t| {
            t.put(b"next_game", (first + n).to_string().as_bytes())?;
            t.put(b"next_run", next_run.to_string().as_bytes())?;
            Ok(())
        })?;
        w.commit()?;
        db.committed();
        trace(&format!("segment of {n} games committed"), t0);
        self.first_game = first + n;
        self.games = 0;
        self.facts.clear();
        self.players.clear();
        self.digests.clear();
        self.names.clear();
        self.occs.clear();
        self.plies.clear();
        self.with_plies = true;
        self.shapes.clear();
        self.shaped = None;
        self.dict_is_new = false;
        Ok(with_run)
    }
}

pub(crate) fn load_dedup(db: &Database) -> Result<crate::keymap::KeyMap<u32>> {
    let read = db.store.read()?;
    crate::facts::load_digests(&read)
}
