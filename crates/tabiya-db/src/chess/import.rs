//! `Database::import_sources`: PGN into a chess database.
//!
//! ```text
//! reader thread ──chunks──▶ parse workers ──parsed games──▶ main (in file order) ──batches──▶ writer
//!  (decompress,             (parse, check moves,            (duplicates, ids,                (segment: compress games,
//!   split games)             hash positions)                 names, stored form)              then index run, one transaction)
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tabiya_pgn::{Chunk, Splitter};

use std::path::PathBuf;

use super::parse_chunk::{ChunkParser, ParsedChunk};
use super::stored::assemble_tags;
use crate::import::segment::load_dedup;
use crate::import::{
    BYTES_PER_OCCURRENCE, Batch, FileSummary, ImportOptions, ImportProgress, ImportSummary,
    Problem, Segment, Source, reason_kind,
};
use crate::index::Occ;
use crate::names::NameCache;
use crate::trace::trace;
use crate::{Database, Error, Result, meta_u64};

/// Most games a chess import's main thread hands the writer at a time: small, so the writer
/// trains the game dictionary and compresses while the parse threads still read (even in a
/// file of a few thousand games), and the recycled batches stay a few megabytes.
const HANDOFF_MAX: usize = 1024;

enum Work {
    Chunk {
        seq: u64,
        file: usize,
        chunk: Chunk,
    },
    FileError {
        seq: u64,
        file: usize,
        error: String,
    },
    FileDone {
        seq: u64,
        file: usize,
        bytes: u64,
    },
}

enum Parsed {
    Games {
        seq: u64,
        file: usize,
        games: ParsedChunk,
    },
    FileError {
        seq: u64,
        file: usize,
        error: String,
    },
    FileDone {
        seq: u64,
        file: usize,
        bytes: u64,
    },
}

impl Parsed {
    fn seq(&self) -> u64 {
        match self {
            Parsed::Games { seq, .. }
            | Parsed::FileError { seq, .. }
            | Parsed::FileDone { seq, .. } => *seq,
        }
    }
}

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
        let max_ply = self.max_ply();
        let read = self.store.read()?;
        let mut next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let mut names = NameCache::load(&read)?;
        drop(read);
        let mut dedup = if opts.keep_duplicates {
            crate::keymap::KeyMap::default()
        } else {
            load_dedup(self)?
        };
        let mut summary = ImportSummary {
            files: sources
                .iter()
                .map(|s| FileSummary {
                    file: s.name(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };

        let (work_tx, work_rx) = crossbeam_channel::bounded::<Work>(8);
        let (parsed_tx, parsed_rx) = crossbeam_channel::bounded::<Parsed>(8);
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(1);
        // Parsed chunks' buffers, back from the main thread to be filled again.
        let (spent_tx, spent_rx) = crossbeam_channel::bounded::<ParsedChunk>(16);
        let workers = opts.workers.max(1);
        // Occurrences a segment may hold.
        let budget = (opts.index_memory / BYTES_PER_OCCURRENCE).max(1) as usize;
        let names_of: Vec<String> = sources.iter().map(Source::name).collect();

        std::thread::scope(|s| -> Result<()> {
            // Reader.
            let named = |name: &str| std::thread::Builder::new().name(name.to_string());
            named("tabiya-read")
                .spawn_scoped(s, move || read_inputs(sources, &work_tx, progress))
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
            // Parse workers.
            for _ in 0..workers {
                let rx = work_rx.clone();
                let tx = parsed_tx.clone();
                let spent_rx = spent_rx.clone();
                named("tabiya-parse")
                    .spawn_scoped(s, move || {
                        let mut parser = ChunkParser::new();
                        for w in rx {
                            let out = match w {
                                Work::Chunk { seq, file, chunk } => {
                                    let buffers = spent_rx.try_recv().unwrap_or_default();
                                    Parsed::Games {
                                        seq,
                                        file,
                                        games: parser.parse(&chunk, max_ply, buffers),
                                    }
                                }
                                Work::FileError { seq, file, error } => {
                                    Parsed::FileError { seq, file, error }
                                }
                                Work::FileDone { seq, file, bytes } => {
                                    Parsed::FileDone { seq, file, bytes }
                                }
                            };
                            if tx.send(out).is_err() {
                                break;
                            }
                        }
                    })
                    .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;
            }
            drop(work_rx);
            drop(parsed_tx);
            // Writer: batches gather into a segment, committed (index run and games in one
            // transaction) when it holds `batch_games` games or fills `index_memory`.
            // Committed batches come back to be filled again: no fresh hundreds of megabytes
            // (and page faults) per batch.
            let (recycle_tx, recycle_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(2);
            let seg_games = opts.batch_games;
            let writer = named("tabiya-write")
                .spawn_scoped(s, move || -> Result<u32> {
                    let mut seg = Segment::new(0);
                    let mut last = 0usize;
                    let mut runs = 0u32;
                    let mut commit = |seg: &mut Segment| -> Result<()> {
                        progress.indexing.store(true, Ordering::Relaxed);
                        let written = seg.commit(self);
                        progress.indexing.store(false, Ordering::Relaxed);
                        runs += u32::from(written?);
                        Ok(())
                    };
                    for (batch, mut plies) in batch_rx {
                        if seg_games == 0 && seg.games() == 0 {
                            // Address space for the whole segment: no copies as it grows.
                            seg.reserve(budget + batch.occs.len().max(last));
                        }
                        seg.add(self, &batch, Some(&plies))?;
                        last = last.max(batch.occs.len());
                        plies.clear();
                        let _ = recycle_tx.try_send((batch, plies));
                        // The games asked for, or no room for one more batch like the
                        // biggest so far.
                        let full = (seg_games > 0 && seg.games() >= seg_games)
                            || seg.occurrences() + last > budget;
                        if full {
                            commit(&mut seg)?;
                        }
                    }
                    commit(&mut seg)?;
                    Ok(runs)
                })
                .map_err(|e| Error::Input(format!("cannot start a thread: {e}")))?;

            // Main: put games in file order, drop duplicates, assign ids, build batches.
            let mut pending: BTreeMap<u64, Parsed> = BTreeMap::new();
            let mut next_seq = 0u64;
            // Batches of at most HANDOFF_MAX that add up to a segment exactly, or, when
            // the memory decides, small enough for a segment to take several (about 100
            // positions a game).
            let handoff = match opts.batch_games {
                0 => (budget / 400).clamp(64, HANDOFF_MAX),
                n => n.div_ceil(n.div_ceil(HANDOFF_MAX)),
            };
            let mut batch = Batch::with_capacity(next_game, handoff);
            let mut batch_plies: Vec<u16> = Vec::with_capacity(handoff * 90);
            let mut game_index: Vec<u64> = vec![0; names_of.len()];
            let mut writer_failed = false;
            'receive: for msg in parsed_rx {
                pending.insert(msg.seq(), msg);
                while let Some(msg) = pending.remove(&next_seq) {
                    next_seq += 1;
                    match msg {
                        Parsed::FileError { file, error, .. } => {
                            summary.problems.push(Problem {
                                file: names_of[file].clone(),
                                line: 0,
                                game: 0,
                                reason: error,
                            });
                        }
                        Parsed::FileDone { file, bytes, .. } => summary.files[file].bytes = bytes,
                        Parsed::Games {
                            file, games: chunk, ..
                        } => {
                            for pg in chunk.games.iter() {
                                game_index[file] += 1;
                                summary.games += 1;
                                summary.files[file].games += 1;
                                progress.games.fetch_add(1, Ordering::Relaxed);
                                let prepared = match &pg.result {
                                    Ok(p) => p,
                                    Err(e) => {
                                        summary.skipped += 1;
                                        summary.files[file].skipped += 1;
                                        *summary
                                            .skipped_by_reason
                                            .entry(reason_kind(&e.reason))
                                            .or_default() += 1;
                                        summary.problems.push(Problem {
                                            file: names_of[file].clone(),
                                            line: e.line,
                                            game: game_index[file],
                                            reason: e.reason.clone(),
                                        });
                                        continue;
                                    }
                                };
                                let _ = pg.line;
                                if !opts.keep_duplicates && dedup.contains_key(&prepared.hash) {
                                    summary.duplicates += 1;
                                    summary.files[file].duplicates += 1;
                                    continue;
                                }
                                if prepared.warnings {
                                    summary.warnings += 1;
                                }
                                let id = next_game;
                                next_game = next_game.checked_add(1).ok_or_else(|| {
                                    Error::Usage("database full (2^32 games)".into())
                                })?;
                                if !opts.keep_duplicates {
                                    dedup.insert(prepared.hash, id);
                                }
                                let body = &chunk.body[prepared.body.clone()];
                                let mut record = Vec::with_capacity(body.len() + 128);
                                assemble_tags(
                                    chunk.tags(prepared.tags.clone()),
                                    &mut names,
                                    body,
                                    &mut record,
                                );
                                batch.records.push(record);
                                batch.facts.push(prepared.facts);
                                batch.dedup.push((prepared.hash, id));
                                let occs = prepared.occs.clone();
                                batch
                                    .occs
                                    .extend(chunk.occs[occs.clone()].iter().map(|o| Occ {
                                        key: o.key,
                                        game: id,
                                        code: o.code,
                                        mover: o.mover,
                                    }));
                                batch_plies.extend_from_slice(&chunk.plies[occs]);
                                summary.imported += 1;
                                summary.files[file].imported += 1;
                                progress.imported.fetch_add(1, Ordering::Relaxed);
                                if batch.records.len() >= handoff {
                                    batch.names = names.take_pending();
                                    let (mut fresh, fresh_plies) =
                                        recycle_rx.try_recv().unwrap_or_else(|_| {
                                            (
                                                Batch::with_capacity(next_game, handoff),
                                                Vec::with_capacity(handoff * 90),
                                            )
                                        });
                                    fresh.reset(next_game);
                                    let full = std::mem::replace(&mut batch, fresh);
                                    let plies = std::mem::replace(&mut batch_plies, fresh_plies);
                                    if batch_tx.send((full, plies)).is_err() {
                                        writer_failed = true;
                                        break 'receive;
                                    }
                                }
                                if progress.cancel.load(Ordering::Relaxed) {
                                    break 'receive;
                                }
                            }
                            let _ = spent_tx.try_send(chunk);
                        }
                    }
                }
            }
            if !writer_failed {
                batch.names = names.take_pending();
                let _ = batch_tx.send((batch, batch_plies));
            }
            drop(batch_tx);
            summary.runs_written = writer
                .join()
                .map_err(|_| Error::Corrupt("writer thread panicked".into()))??;
            Ok(())
        })?;
        let t = Instant::now();
        progress.merging.store(true, Ordering::Relaxed);
        let merged = crate::index::merge::compact(self);
        progress.merging.store(false, Ordering::Relaxed);
        summary.merges = merged?;
        trace("merged index runs", t);
        summary.seconds = started.elapsed().as_secs_f64();
        summary.games_per_second = if summary.seconds > 0.0 {
            summary.games as f64 / summary.seconds
        } else {
            0.0
        };
        summary.database_games = self.game_count()?;
        Ok(summary)
    }
}

fn read_inputs(
    sources: Vec<Source>,
    tx: &crossbeam_channel::Sender<Work>,
    progress: &ImportProgress,
) {
    let mut seq = 0u64;
    let send = |w: Work| tx.send(w).is_ok();
    for (file, source) in sources.into_iter().enumerate() {
        progress.file_index.store(file, Ordering::Relaxed);
        if let Ok(mut n) = progress.file_name.lock() {
            *n = source.name();
        }
        progress.file_bytes.store(0, Ordering::Relaxed);
        let opened = match source {
            Source::Path(path) => tabiya_pgn::input::open(&path),
            Source::Reader { name, size, reader } => {
                tabiya_pgn::input::from_reader(name, size, reader)
            }
        };
        let input = match opened {
            Ok(i) => i,
            Err(e) => {
                if !send(Work::FileError {
                    seq,
                    file,
                    error: format!("cannot read: {e}"),
                }) {
                    return;
                }
                seq += 1;
                continue;
            }
        };
        progress
            .file_size
            .store(input.size.unwrap_or(0), Ordering::Relaxed);
        let counter = input.progress.clone();
        let mut splitter = Splitter::new(input.reader);
        loop {
            match splitter.next_chunk() {
                Ok(Some(chunk)) => {
                    progress
                        .file_bytes
                        .store(counter.bytes(), Ordering::Relaxed);
                    if !send(Work::Chunk { seq, file, chunk }) {
                        return;
                    }
                    seq += 1;
                    if progress.cancel.load(Ordering::Relaxed) {
                        return;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    if !send(Work::FileError {
                        seq,
                        file,
                        error: format!("read error after {} bytes: {e}", counter.bytes()),
                    }) {
                        return;
                    }
                    seq += 1;
                    break;
                }
            }
        }
        progress
            .file_bytes
            .store(counter.bytes(), Ordering::Relaxed);
        if !send(Work::FileDone {
            seq,
            file,
            bytes: counter.bytes(),
        }) {
            return;
        }
        seq += 1;
    }
}
