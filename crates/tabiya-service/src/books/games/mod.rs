//! Games for the book builders: PGN files read through `tabiya-pgn`'s ordered pipeline
//! (reader thread → parse workers → input order), or the games of a Tabiya database.
//!
//! PGN games are read with the importer's rules: a game whose main line has an illegal
//! move, a null move, a bad `FEN` tag or an unsupported variant is skipped as a whole,
//! variations and comments are ignored. Plain games go through `tabiya-pgn`'s direct path
//! ([`tabiya_pgn::fast::visit_plain`]) with a visitor that keeps only what a book needs;
//! the others through `parse_game` itself (see [`reader`]).

mod database;
mod reader;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use tabiya_books::polyglot::{CountedGame, count_game};
use tabiya_books::{BookGame, GameResult, SourceRef};
use tabiya_pgn::pipeline::{self, Event, Ordered, ReadProgress, Source, input_name};

pub(crate) use database::read_database;
pub(crate) use reader::GameReader;

use super::open::missing_or;
use crate::error::{Error, ErrorKind, Result};

/// One game read for a book.
#[derive(Debug, Clone)]
pub struct InputGame {
    /// The game; `result` is the database's (the `Result` tag, else the termination marker).
    pub game: BookGame,
    /// The result as `polyglot make-book` reads it: the `Result` tag only; anything but
    /// `1-0`/`0-1`/`1/2-1/2` (missing included) is unknown.
    pub tag_result: GameResult,
    /// White and Black player names (when asked for).
    pub names: Option<(String, String)>,
    /// Index of the input the game comes from.
    pub file: u32,
    /// Number of the game inside its input, from 0, counting every game found (skipped
    /// ones too).
    pub number: u32,
    /// For a Polyglot build: the game replayed as `make-book` counts it (result from the
    /// tag), done on the parse workers; the moves are then dropped from `game`.
    pub counted: Option<CountedGame>,
}

/// A game that could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub file: String,
    pub line: u64,
    pub reason: String,
}

/// What reading the inputs found.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadSummary {
    /// Games found in the inputs.
    pub games: u64,
    /// Games skipped because they could not be read (see `problems`).
    pub skipped: u64,
    /// The first problems (at most 20).
    pub problems: Vec<Problem>,
    /// Errors reading a file (I/O, decompression): the build fails on any.
    #[serde(skip)]
    pub file_errors: Vec<String>,
}

const MAX_PROBLEMS: usize = 20;

impl ReadSummary {
    /// The build fails on the first error reading a file.
    pub fn finish(&self) -> Result<()> {
        match self.file_errors.first() {
            Some(e) => Err(Error::bad_input(e.clone())),
            None => Ok(()),
        }
    }
}

/// Options of [`read_pgn`].
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Parse workers.
    pub threads: usize,
    /// Keep player names.
    pub names: bool,
    /// Replay games for a Polyglot build on the workers, with this `max_ply`.
    pub polyglot_max_ply: Option<u32>,
}

/// A chunk's games as a worker read them: each game, or where and why it was skipped.
type ChunkGames = Vec<Result<InputGame, (u64, String)>>;

/// Games of PGN inputs in input order. Iterate it, then read [`GameStream::summary`].
pub struct GameStream {
    events: Ordered<ChunkGames>,
    ready: VecDeque<InputGame>,
    names: Vec<String>,
    summary: ReadSummary,
}

impl GameStream {
    /// What was read (complete once the iterator returned `None`).
    pub fn summary(&self) -> &ReadSummary {
        &self.summary
    }

    fn take(&mut self, event: Event<ChunkGames>) {
        match event {
            Event::Chunk { info, parsed } => {
                for g in parsed {
                    self.summary.games += 1;
                    match g {
                        Ok(g) => self.ready.push_back(g),
                        Err((line, reason)) => {
                            self.summary.skipped += 1;
                            if self.summary.problems.len() < MAX_PROBLEMS {
                                self.summary.problems.push(Problem {
                                    file: self.names[info.file].clone(),
                                    line,
                                    reason,
                                });
                            }
                        }
                    }
                }
            }
            Event::FileError { file, error } => {
                let error = read_error(&self.names[file], &error);
                self.summary.file_errors.push(error);
            }
            Event::FileDone { .. } => {}
        }
    }
}

/// A read error as the builders have always named it, `NAME: read error: WHAT` (the
/// pipeline says `read error after N bytes: WHAT`).
fn read_error(name: &str, error: &str) -> String {
    match error
        .strip_prefix("read error after ")
        .and_then(|rest| rest.split_once(" bytes: "))
    {
        Some((_, what)) => format!("{name}: read error: {what}"),
        None => format!("{name}: {error}"),
    }
}

impl Iterator for GameStream {
    type Item = InputGame;

    fn next(&mut self) -> Option<InputGame> {
        loop {
            if let Some(g) = self.ready.pop_front() {
                return Some(g);
            }
            let event = self.events.next()?;
            self.take(event);
        }
    }
}

/// Starts reading PGN inputs (plain, `.zst`, `.gz`, `.bz2`, `-` for standard input). Every
/// input is opened first, so a missing file fails at once, naming it.
pub fn read_pgn(inputs: &[PathBuf], opts: ReadOptions) -> Result<GameStream> {
    let mut sources = Vec::with_capacity(inputs.len());
    for p in inputs {
        let input = tabiya_pgn::input::open(p).map_err(|e| {
            Error::new(
                missing_or(&e, ErrorKind::BadInput),
                format!("cannot read {}", input_name(p)),
            )
            .caused_by(e)
        })?;
        sources.push(Source::Opened(input));
    }
    let names: Vec<String> = inputs.iter().map(|p| input_name(p)).collect();
    let threads = opts.threads.max(1);
    let events = pipeline::ordered(
        sources,
        pipeline::Options {
            workers: threads,
            queue: 2 * threads + 2,
        },
        Arc::new(ReadProgress::default()),
        move || {
            let mut reader = GameReader::new(opts.names, opts.polyglot_max_ply);
            move |chunk: &tabiya_pgn::Chunk, info: pipeline::ChunkInfo| -> ChunkGames {
                let file = info.file as u32;
                let first_number = u32::try_from(info.games_before).unwrap_or(u32::MAX);
                chunk
                    .games
                    .iter()
                    .enumerate()
                    .map(|(i, span)| {
                        if let Some(e) = span.refusal() {
                            return Err((e.line, e.reason));
                        }
                        let bytes = chunk.game_bytes(span);
                        reader.read(bytes, span.line).map(|mut g| {
                            g.file = file;
                            g.number = first_number.saturating_add(i as u32);
                            g.game.source = Some(SourceRef {
                                file,
                                offset: span.offset,
                                length: bytes.len() as u64,
                            });
                            g
                        })
                    })
                    .collect()
            }
        },
    )
    .map_err(|e| Error::new(ErrorKind::Io, format!("cannot start a thread: {e}")))?;
    Ok(GameStream {
        events,
        ready: VecDeque::new(),
        names,
        summary: ReadSummary::default(),
    })
}

/// The game as `polyglot make-book` counts it: result from the `Result` tag.
pub fn count_for_polyglot(g: &mut InputGame, max_ply: u32) -> CountedGame {
    let result = std::mem::replace(&mut g.game.result, g.tag_result);
    let counted = count_game(&g.game, max_ply);
    g.game.result = result;
    counted
}
