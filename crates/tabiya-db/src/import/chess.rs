//! `Database::import_sources`: PGN into a chess database.
//!
//! ```text
//! tabiya-pgn's ordered pipeline ──parsed chunks──▶ main (in file order) ──batches──▶ writer
//!  (read, decompress, split;                       (duplicates, ids,                (segment: compress games,
//!   parse, check, hash positions                    names, stored form)              then index run, one transaction)
//!   on the worker threads: ChunkParser)
//! ```
//!
//! The steps: [`Intake`] takes each parsed game in file order (skipped, duplicate, or given
//! an id and put in a batch); [`write_segments`] gathers batches into segments and commits
//! each; the runs are merged at the end.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use tabiya_pgn::pipeline::{self, Event, Source};

use super::parse_chunk::{ChunkParser, ParsedChunk};
use crate::chess::stored::assemble_tags;
use crate::import::segment::load_dedup;
use crate::import::{
    BYTES_PER_OCCURRENCE, Batch, FileSummary, ImportOptions, ImportProgress, ImportSummary,
    Problem, Segment, reason_kind, spill::Spill,
};
use crate::index::Occ;
use crate::keymap::KeyMap;
use crate::names::NameCache;
use crate::trace::trace;
use crate::{Database, Error, Result, meta_u64};

/// Most games a chess import's main thread hands the writer at a time: small, so the writer
/// trains the game dictionary and compresses while the parse threads still read (even in a
/// file of a few thousand games), and the recycled batches stay a few megabytes.
const HANDOFF_MAX: usize = 1024;

/// A batch and the plies of its occurrences, on their way to the writer.
type Handoff = (Batch, Vec<u16>);

impl Database {
    /// Imports PGN files (`-` reads standard input). Malformed games are reported and
    /// skipped; everything else goes in.
    pub fn import(
        &self,
        paths: &[PathBuf],
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<ImportSummary> {
        let sources = paths.iter().map(|p| Source::Path(p.clone())).collect();
        self.import_sources(sources, opts, progress)
    }

    /// Imports from files or readers.
    pub fn import_sources(
        &self,
        sources: Vec<Source>,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<ImportSummary> {
        if self.kind() != crate::Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is an Othello database: import WTHOR files into it",
                self.dir().display()
            )));
        }
        let started = Instant::now();
        let mut intake = Intake::new(self, &sources, opts, progress)?;
        // Occurrences a segment may hold.
        let budget = (opts.index_memory / BYTES_PER_OCCURRENCE).max(1) as usize;
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<Handoff>(1);
        // Committed batches come back to be filled again: no fresh hundreds of megabytes
        // (and page faults) per batch.
        let (recycle_tx, recycle_rx) = crossbeam_channel::bounded::<Handoff>(2);
        // Parsed chunks' buffers, back from the main thread to be filled again.
        let (spent_tx, spent_rx) = crossbeam_channel::bounded::<ParsedChunk>(16);
        let max_ply = self.max_ply();
        let shapes = opts.structures || self.keeps_structures()?;
        intake.shapes = shapes;
        let events = pipeline::ordered(
            sources,
            pipeline::Options {
                workers: opts.workers.max(1),
                queue: 8,
            },
            Arc::clone(&progress.reading),
            move || {
                let spent = spent_rx.clone();
                let mut parser = ChunkParser::new();
                move |chunk: &tabiya_pgn::Chunk, _: pipeline::ChunkInfo| {
                    parser.parse(chunk, max_ply, shapes, spent.try_recv().unwrap_or_default())
                }
            },
        )
        .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
        intake.handoff = match opts.batch_games {
            // Small enough for a segment to take several (about 100 positions a game).
            0 => (budget / 400).clamp(64, HANDOFF_MAX),
            // Batches of at most HANDOFF_MAX that add up to a segment exactly.
            n => n.div_ceil(n.div_ceil(HANDOFF_MAX)),
        };
        intake.batch = Batch::with_capacity(intake.next_game, intake.handoff);
        intake.batch_plies = Vec::with_capacity(intake.handoff * 90);
        crate::import::spill::clear_stale(self)?;
        let spilled = std::thread::scope(|s| -> Result<Option<Spill>> {
            let writer = std::thread::Builder::new()
                .name("tabiya-write".into())
                .spawn_scoped(s, || {
                    write_segments(self, batch_rx, recycle_tx, opts, budget, progress)
                })
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
            let taken = intake.take_all(events, &batch_tx, &recycle_rx, &spent_tx);
            drop(batch_tx);
            let written = writer
                .join()
                .map_err(|_| Error::Corrupt("writer thread panicked".into()))?;
            // The writer's error explains a hand-over that failed; else the intake's own.
            let (runs, spill) = written?;
            intake.summary.runs_written = runs;
            taken.map(|()| spill)
        })?;
        let mut summary = intake.summary;
        let t = Instant::now();
        progress.merging.store(true, Ordering::Relaxed);
        let runs_written = summary.runs_written as usize;
        let merged = (|| -> Result<u32> {
            // This import's segments become one run (from their spilled occurrences, or
            // by the merge that replays), then runs merge size-tiered with older ones.
            let own = match spilled {
                Some(spill) => u32::from(spill.merge(self)?),
                None => crate::compact::merge_newest(self, runs_written)?,
            };
            Ok(own + crate::compact::compact(self)?)
        })();
        progress.merging.store(false, Ordering::Relaxed);
        summary.merges = merged?;
        trace("merged index runs", t);
        if summary.imported > 0 {
            // New spellings find their entries.
            let t = Instant::now();
            self.rebuild_names()?;
            trace("names", t);
        }
        if summary.imported > 0 && shapes {
            // What a search of a popular shape answers, counted again once enough games
            // came in since the last count (`shapes::tally`).
            let t = Instant::now();
            self.build_square_index(false)?;
            trace("square index", t);
            let t = Instant::now();
            self.refresh_shape_stats()?;
            trace("shape statistics", t);
        }
        summary.seconds = started.elapsed().as_secs_f64();
        summary.games_per_second = if summary.seconds > 0.0 {
            summary.games as f64 / summary.seconds
        } else {
            0.0
        };
        summary.database_games = self.committed_game_count()?;
        Ok(summary)
    }
}

/// The writer thread: batches gather into a segment, committed (index run and games in one
/// transaction) when it holds `batch_games` games or fills the index memory. Returns the
/// runs written, and the spill of the segments when there were several (to merge).
fn write_segments(
    db: &Database,
    batches: Receiver<Handoff>,
    recycle: Sender<Handoff>,
    opts: &ImportOptions,
    budget: usize,
    progress: &ImportProgress,
) -> Result<(u32, Option<Spill>)> {
    let seg_games = opts.batch_games;
    let mut seg = Segment::new(0);
    seg.index = opts.build_index;
    let mut last = 0usize;
    let mut runs = 0u32;
    // From the first segment that is not the last, segments spill their rare occurrences:
    // their runs then merge without replays.
    let mut spill: Option<Spill> = None;
    let mut commit = |seg: &mut Segment, more: bool| -> Result<()> {
        if more && spill.is_none() && opts.merge_sorted && opts.build_index {
            spill = Some(Spill::new(db)?);
        }
        progress.indexing.store(true, Ordering::Relaxed);
        let written = seg.commit_spilling(db, spill.as_mut());
        progress.indexing.store(false, Ordering::Relaxed);
        runs += u32::from(written?);
        Ok(())
    };
    for (batch, mut plies) in batches {
        if seg_games == 0 && seg.games() == 0 {
            // Address space for the whole segment: no copies as it grows.
            seg.reserve(budget + batch.occs.len().max(last));
        }
        seg.add(db, &batch, Some(&plies))?;
        last = last.max(batch.occs.len());
        plies.clear();
        let _ = recycle.try_send((batch, plies));
        // The games asked for, or no room for one more batch like the biggest so far.
        let full = (seg_games > 0 && seg.games() >= seg_games) || seg.occurrences() + last > budget;
        if full {
            commit(&mut seg, true)?;
        }
    }
    commit(&mut seg, false)?;
    Ok((runs, spill))
}

/// The main thread's side of an import: games in file order, duplicates dropped, ids
/// assigned, names resolved, batches filled and handed to the writer.
struct Intake<'a> {
    opts: &'a ImportOptions,
    progress: &'a ImportProgress,
    summary: ImportSummary,
    names_of: Vec<String>,
    /// Games seen in each input so far (the 1-based index of a problem's game).
    game_index: Vec<u64>,
    /// Whether each input's games are a table's rows (numbered by row, not by line).
    has_rows: Vec<bool>,
    /// Whether the games' shapes go to the structure index.
    shapes: bool,
    next_game: u32,
    names: NameCache,
    dedup: KeyMap<u32>,
    handoff: usize,
    batch: Batch,
    batch_plies: Vec<u16>,
}

/// Why the intake stopped before the end of the input.
enum Stop {
    /// The writer is gone (its error says why).
    Writer,
    /// The interface asked to stop.
    Cancelled,
}

impl<'a> Intake<'a> {
    fn new(
        db: &Database,
        sources: &[Source],
        opts: &'a ImportOptions,
        progress: &'a ImportProgress,
    ) -> Result<Intake<'a>> {
        let read = db.store.read()?;
        let next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let names = NameCache::load(&read)?;
        drop(read);
        let dedup = if opts.keep_duplicates {
            KeyMap::default()
        } else {
            load_dedup(db)?
        };
        let names_of: Vec<String> = sources.iter().map(Source::name).collect();
        Ok(Intake {
            opts,
            progress,
            summary: ImportSummary {
                files: names_of
                    .iter()
                    .map(|n| FileSummary {
                        file: n.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            },
            game_index: vec![0; names_of.len()],
            has_rows: sources.iter().map(Source::has_rows).collect(),
            names_of,
            shapes: false,
            next_game,
            names,
            dedup,
            handoff: HANDOFF_MAX,
            batch: Batch::default(),
            batch_plies: Vec::new(),
        })
    }

    /// Takes every event of the pipeline, then hands the last batch over.
    fn take_all(
        &mut self,
        events: pipeline::Ordered<ParsedChunk>,
        batches: &Sender<Handoff>,
        recycled: &Receiver<Handoff>,
        spent: &Sender<ParsedChunk>,
    ) -> Result<()> {
        for event in events {
            match event {
                Event::FileError { file, error } => self.summary.problems.push(Problem {
                    file: self.names_of[file].clone(),
                    line: 0,
                    game: 0,
                    row: None,
                    reason: error,
                }),
                Event::FileDone { file, bytes } => {
                    self.summary.files[file].bytes = bytes;
                    self.no_game_found(file, bytes);
                }
                Event::Chunk { info, parsed } => {
                    let taken = self.take_chunk(info.file, &parsed, batches, recycled);
                    let _ = spent.try_send(parsed);
                    match taken? {
                        None => {}
                        Some(Stop::Writer) => return Ok(()),
                        Some(Stop::Cancelled) => {
                            self.summary.interrupted = true;
                            break;
                        }
                    }
                }
            }
        }
        // Asked to stop while waiting for the reader, which stopped first.
        if self.progress.reading.cancel.load(Ordering::Relaxed) {
            self.summary.interrupted = true;
        }
        self.batch.names = self.names.take_pending();
        let last = (
            std::mem::take(&mut self.batch),
            std::mem::take(&mut self.batch_plies),
        );
        let _ = batches.send(last);
        Ok(())
    }

    /// Takes the games of one parsed chunk.
    fn take_chunk(
        &mut self,
        file: usize,
        chunk: &ParsedChunk,
        batches: &Sender<Handoff>,
        recycled: &Receiver<Handoff>,
    ) -> Result<Option<Stop>> {
        for pg in chunk.games.iter() {
            self.game_index[file] += 1;
            if let Err(e) = &pg.result
                && e.is_not_a_game()
            {
                self.not_pgn(file, e.line, &e.reason);
                continue;
            }
            self.summary.games += 1;
            self.summary.files[file].games += 1;
            self.progress.games.fetch_add(1, Ordering::Relaxed);
            let prepared = match &pg.result {
                Ok(p) => p,
                Err(e) => {
                    self.skip(file, e.line, &e.reason);
                    continue;
                }
            };
            if !self.opts.keep_duplicates && self.dedup.contains_key(&prepared.hash) {
                self.summary.duplicates += 1;
                self.summary.files[file].duplicates += 1;
                continue;
            }
            if prepared.warnings {
                self.summary.warnings += 1;
            }
            let id = self.next_game;
            self.next_game = self
                .next_game
                .checked_add(1)
                .ok_or_else(|| Error::Usage("database full (2^32 games)".into()))?;
            if !self.opts.keep_duplicates {
                self.dedup.insert(prepared.hash, id);
            }
            let body = &chunk.body[prepared.body.clone()];
            let mut record = Vec::with_capacity(body.len() + 128);
            let players = assemble_tags(
                chunk.tags(prepared.tags.clone()),
                &mut self.names,
                body,
                &mut record,
            );
            self.batch.records.push(record);
            self.batch.players.push(players);
            self.batch.facts.push(prepared.facts);
            self.batch.dedup.push((prepared.hash, id));
            let occs = prepared.occs.clone();
            self.batch
                .occs
                .extend(chunk.occs[occs.clone()].iter().map(|o| Occ {
                    key: o.key,
                    game: id,
                    code: o.code,
                    mover: o.mover,
                }));
            self.batch_plies.extend_from_slice(&chunk.plies[occs]);
            if self.shapes {
                self.batch.shaped = true;
                self.batch.shapes.extend(
                    chunk.shapes[prepared.shapes.clone()]
                        .iter()
                        .map(|&e| (e, id)),
                );
            }
            self.summary.imported += 1;
            self.summary.files[file].imported += 1;
            self.progress.imported.fetch_add(1, Ordering::Relaxed);
            if self.batch.records.len() >= self.handoff && !self.hand_over(batches, recycled) {
                return Ok(Some(Stop::Writer));
            }
            if self.progress.reading.cancel.load(Ordering::Relaxed) {
                return Ok(Some(Stop::Cancelled));
            }
        }
        Ok(None)
    }

    /// A piece of text that is not a game (no tag pair, no move): counted apart from the
    /// games, reported with its place (its number counts it among the file's pieces).
    fn not_pgn(&mut self, file: usize, line: u64, reason: &str) {
        self.summary.not_pgn += 1;
        self.summary.files[file].not_pgn += 1;
        self.game_problem(file, line, format!("{reason}, skipped"));
    }

    /// A problem of the file's current game: by its line, or by its row in a Parquet file.
    fn game_problem(&mut self, file: usize, line: u64, reason: String) {
        let game = self.game_index[file];
        let rows = self.has_rows[file];
        self.summary.problems.push(Problem {
            file: self.names_of[file].clone(),
            line: if rows { 0 } else { line },
            game,
            row: rows.then_some(game),
            reason,
        });
    }

    /// An input read to its end without a single game: one problem with the file (the
    /// pieces of text it held are not listed one by one), unless it could not be read.
    fn no_game_found(&mut self, file: usize, bytes: u64) {
        let name = &self.names_of[file];
        let f = &self.summary.files[file];
        if f.games > 0
            || self
                .summary
                .problems
                .iter()
                .any(|p| p.game == 0 && &p.file == name)
        {
            return;
        }
        if self.has_rows[file] && f.not_pgn == 0 {
            // A table with no rows (a query that matched nothing, written out): an empty
            // file, not a damaged one — every row it had would have been a game, or a
            // problem of its own.
            self.summary.notes.push(Problem {
                file: name.clone(),
                line: 0,
                game: 0,
                row: None,
                reason: "the table holds no rows: no game to import".to_string(),
            });
            return;
        }
        let what = match (bytes, f.not_pgn) {
            (0, _) => "the input is empty".to_string(),
            (_, 0) => format!("{bytes} bytes read"),
            (_, n) => {
                format!("{bytes} bytes read: {n} piece(s) of text without a tag pair or a move")
            }
        };
        self.summary
            .problems
            .retain(|p| !(&p.file == name && p.reason.starts_with(tabiya_pgn::parse::NOT_A_GAME)));
        self.summary.problems.push(Problem {
            file: name.clone(),
            line: 0,
            game: 0,
            row: None,
            reason: format!("no PGN game found ({what}); nothing imported from it"),
        });
    }

    /// A game that could not be read: counted and reported.
    fn skip(&mut self, file: usize, line: u64, reason: &str) {
        self.summary.skipped += 1;
        self.summary.files[file].skipped += 1;
        *self
            .summary
            .skipped_by_reason
            .entry(reason_kind(reason))
            .or_default() += 1;
        self.game_problem(file, line, reason.to_string());
    }

    /// Hands the full batch to the writer and starts a new one (a recycled one when the
    /// writer has one back). False when the writer is gone.
    fn hand_over(&mut self, batches: &Sender<Handoff>, recycled: &Receiver<Handoff>) -> bool {
        self.batch.names = self.names.take_pending();
        let (mut fresh, fresh_plies) = recycled.try_recv().unwrap_or_else(|_| {
            (
                Batch::with_capacity(self.next_game, self.handoff),
                Vec::with_capacity(self.handoff * 90),
            )
        });
        fresh.reset(self.next_game);
        let full = std::mem::replace(&mut self.batch, fresh);
        let plies = std::mem::replace(&mut self.batch_plies, fresh_plies);
        batches.send((full, plies)).is_ok()
    }
}
