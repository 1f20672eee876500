//! Games for the book builders: PGN files read in parallel (reader thread → parse workers →
//! file order), or the games of a Tabiya database.
//!
//! PGN games are parsed with the importer's rules (`tabiya_pgn::parse_game`): a game whose
//! main line has an illegal move, a null move, a bad `FEN` tag or an unsupported variant is
//! skipped as a whole, variations and comments are ignored. Games without `FEN`/`Variant`
//! tags go through a lighter visitor that keeps only what a book needs (the tests check that
//! it accepts and reads exactly what `parse_game` does on every shared PGN file); games with
//! those tags go through `parse_game` itself.

use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use anyhow::{Context, bail};
use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, EnPassantMode};
use shakmaty::{Chess, Color, KnownOutcome, Move, Position};
use tabiya_books::polyglot::{self, CountedGame, CountedMove, count_game};
use tabiya_books::{BookGame, GameResult, SourceRef};
use tabiya_pgn::model::{parse_elo, parse_year};
use tabiya_pgn::san::{decode_text, san_to_move};
use tabiya_pgn::{Chunk, Game, Splitter, parse_game};

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
#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    pub file: String,
    pub line: u64,
    pub reason: String,
}

/// What reading the inputs found.
#[derive(Debug, Clone, Default, serde::Serialize)]
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

enum Work {
    Chunk {
        seq: u64,
        file: u32,
        first_number: u32,
        chunk: Chunk,
    },
    FileError {
        seq: u64,
        error: String,
    },
}

enum Parsed {
    Games {
        seq: u64,
        file: u32,
        games: Vec<Result<InputGame, (u64, String)>>,
    },
    FileError {
        seq: u64,
        error: String,
    },
}

impl Parsed {
    fn seq(&self) -> u64 {
        match self {
            Parsed::Games { seq, .. } | Parsed::FileError { seq, .. } => *seq,
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

/// Games of PGN inputs in file order, parsed on `threads` workers. Iterate it, then read
/// [`GameStream::summary`].
pub struct GameStream {
    rx: Receiver<Parsed>,
    pending: BTreeMap<u64, Parsed>,
    next: u64,
    ready: VecDeque<InputGame>,
    names: Vec<String>,
    summary: ReadSummary,
    threads: Vec<JoinHandle<()>>,
}

impl GameStream {
    /// What was read (complete once the iterator returned `None`).
    pub fn summary(&self) -> &ReadSummary {
        &self.summary
    }

    fn take(&mut self, msg: Parsed) {
        match msg {
            Parsed::FileError { error, .. } => self.summary.file_errors.push(error),
            Parsed::Games { file, games, .. } => {
                for g in games {
                    self.summary.games += 1;
                    match g {
                        Ok(g) => self.ready.push_back(g),
                        Err((line, reason)) => {
                            self.summary.skipped += 1;
                            if self.summary.problems.len() < MAX_PROBLEMS {
                                self.summary.problems.push(Problem {
                                    file: self.names[file as usize].clone(),
                                    line,
                                    reason,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

impl Iterator for GameStream {
    type Item = InputGame;

    fn next(&mut self) -> Option<InputGame> {
        loop {
            if let Some(g) = self.ready.pop_front() {
                return Some(g);
            }
            if let Some(msg) = self.pending.remove(&self.next) {
                self.next += 1;
                self.take(msg);
                continue;
            }
            match self.rx.recv() {
                Ok(msg) => {
                    self.pending.insert(msg.seq(), msg);
                }
                Err(_) => {
                    // All workers are done; whatever is pending is out of order only if a
                    // sequence number was lost, which cannot happen.
                    let rest = std::mem::take(&mut self.pending);
                    for (_, msg) in rest {
                        self.take(msg);
                    }
                    if self.ready.is_empty() {
                        for t in self.threads.drain(..) {
                            let _ = t.join();
                        }
                        return None;
                    }
                }
            }
        }
    }
}

/// Display name of an input (`-` is standard input).
pub fn input_name(p: &Path) -> String {
    if p.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        p.display().to_string()
    }
}

/// Starts reading PGN inputs (plain, `.zst`, `.gz`, `.bz2`, `-` for standard input). Every
/// input except `-` is opened first, so a missing file fails at once, naming it.
pub fn read_pgn(inputs: &[PathBuf], opts: ReadOptions) -> anyhow::Result<GameStream> {
    let mut opened = Vec::with_capacity(inputs.len());
    for p in inputs {
        let input =
            tabiya_pgn::input::open(p).with_context(|| format!("cannot read {}", input_name(p)))?;
        opened.push(input);
    }
    let names: Vec<String> = inputs.iter().map(|p| input_name(p)).collect();
    let threads = opts.threads.max(1);
    let (work_tx, work_rx) = sync_channel::<Work>(2 * threads + 2);
    let (out_tx, out_rx) = sync_channel::<Parsed>(2 * threads + 2);
    let work_rx = Arc::new(Mutex::new(work_rx));
    let mut handles = Vec::with_capacity(threads + 1);
    let reader_names = names.clone();
    handles.push(std::thread::spawn(move || {
        read_inputs(opened, reader_names, &work_tx)
    }));
    for _ in 0..threads {
        let rx = Arc::clone(&work_rx);
        let tx = out_tx.clone();
        let o = opts;
        handles.push(std::thread::spawn(move || parse_worker(&rx, &tx, o)));
    }
    drop(out_tx);
    Ok(GameStream {
        rx: out_rx,
        pending: BTreeMap::new(),
        next: 0,
        ready: VecDeque::new(),
        names,
        summary: ReadSummary::default(),
        threads: handles,
    })
}

fn read_inputs(inputs: Vec<tabiya_pgn::input::Input>, names: Vec<String>, tx: &SyncSender<Work>) {
    let mut seq = 0u64;
    for (file, input) in inputs.into_iter().enumerate() {
        let mut splitter = Splitter::with_chunk_size(input.reader, 1 << 17);
        let mut number = 0u32;
        loop {
            match splitter.next_chunk() {
                Ok(Some(chunk)) => {
                    let n = chunk.games.len() as u32;
                    let w = Work::Chunk {
                        seq,
                        file: file as u32,
                        first_number: number,
                        chunk,
                    };
                    number = number.saturating_add(n);
                    if tx.send(w).is_err() {
                        return;
                    }
                    seq += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    let error = format!("{}: read error: {e}", names[file]);
                    if tx.send(Work::FileError { seq, error }).is_err() {
                        return;
                    }
                    seq += 1;
                    break;
                }
            }
        }
    }
}

fn parse_worker(rx: &Mutex<Receiver<Work>>, tx: &SyncSender<Parsed>, opts: ReadOptions) {
    loop {
        let work = match rx.lock() {
            Ok(r) => r.recv(),
            Err(_) => return,
        };
        let Ok(work) = work else { return };
        let out = match work {
            Work::FileError { seq, error } => Parsed::FileError { seq, error },
            Work::Chunk {
                seq,
                file,
                first_number,
                chunk,
            } => {
                let games = chunk
                    .games
                    .iter()
                    .enumerate()
                    .map(|(i, span)| {
                        let bytes = chunk.game_bytes(span);
                        read_game_with(bytes, span.line, opts.names, opts.polyglot_max_ply).map(
                            |mut g| {
                                g.file = file;
                                g.number = first_number + i as u32;
                                g.game.source = Some(SourceRef {
                                    file,
                                    offset: span.offset,
                                    length: bytes.len() as u64,
                                });
                                g
                            },
                        )
                    })
                    .collect();
                Parsed::Games { seq, file, games }
            }
        };
        if tx.send(out).is_err() {
            return;
        }
    }
}

/// Tags a book needs, first occurrence of each (as `Game::tag` finds them).
#[derive(Default)]
struct Tags {
    result: Option<String>,
    white_elo: Option<Option<u16>>,
    black_elo: Option<Option<u16>>,
    date: Option<Option<u16>>,
    event_date: Option<Option<u16>>,
    white: Option<String>,
    black: Option<String>,
    /// A `FEN` or `Variant` tag: the game goes through `parse_game`.
    special: bool,
    /// The first `FEN` tag's value.
    fen: Option<String>,
}

struct Movetext {
    tags: Tags,
    pos: Chess,
    moves: Vec<Move>,
    termination: Option<Outcome>,
    /// Polyglot build: the key of `pos` and the moves counted so far (the first
    /// `max_ply`), computed while parsing so the game is replayed only once.
    key: u64,
    counted: Vec<CountedMove>,
    unencodable: bool,
    /// Main-line moves read.
    ply: usize,
}

enum Light {
    Game(Box<Movetext>),
    /// Needs the full parser (FEN or Variant tag).
    Full,
    /// Polyglot build: a game from another start position (skipped unread).
    OtherStart(Box<Tags>),
    /// Rejected (`parse_game` gives the reason and line).
    Error,
}

struct LightVisitor {
    names: bool,
    polyglot_max_ply: Option<u32>,
}

impl Visitor for LightVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Light;

    fn begin_tags(&mut self) -> ControlFlow<Light, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Light> {
        let text = || decode_text(&value.decode()).into_owned();
        match name {
            b"FEN" => {
                tags.special = true;
                if tags.fen.is_none() {
                    tags.fen = Some(text());
                }
            }
            b"Variant" => tags.special = true,
            b"Result" if tags.result.is_none() => tags.result = Some(text()),
            b"WhiteElo" if tags.white_elo.is_none() => tags.white_elo = Some(parse_elo(&text())),
            b"BlackElo" if tags.black_elo.is_none() => tags.black_elo = Some(parse_elo(&text())),
            b"Date" if tags.date.is_none() => tags.date = Some(parse_year(&text())),
            b"EventDate" if tags.event_date.is_none() => {
                tags.event_date = Some(parse_year(&text()))
            }
            b"White" if self.names && tags.white.is_none() => tags.white = Some(text()),
            b"Black" if self.names && tags.black.is_none() => tags.black = Some(text()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Light, Movetext> {
        if tags.special {
            // A Polyglot build skips games from another start without reading their moves.
            let other_start = self.polyglot_max_ply.is_some()
                && tags.fen.as_deref().is_some_and(|f| {
                    Fen::from_ascii(f.trim().as_bytes())
                        .ok()
                        .and_then(|fen| fen.into_position::<Chess>(CastlingMode::Chess960).ok())
                        .is_some_and(|p| p != Chess::default())
                });
            return ControlFlow::Break(if other_start {
                Light::OtherStart(Box::new(tags))
            } else {
                Light::Full
            });
        }
        ControlFlow::Continue(Movetext {
            tags,
            pos: Chess::default(),
            // A Polyglot build keeps only the counted moves.
            moves: if self.polyglot_max_ply.is_some() {
                Vec::new()
            } else {
                Vec::with_capacity(128)
            },
            termination: None,
            key: polyglot::START_KEY,
            counted: Vec::with_capacity(if self.polyglot_max_ply.is_some() {
                128
            } else {
                0
            }),
            ply: 0,
            unencodable: false,
        })
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Light> {
        let found = match tabiya_pgn::san::fast_san(&mt.pos, &san_plus.san) {
            Some(m) => Ok(m),
            None => san_to_move(&mt.pos, san_plus.san),
        };
        match found {
            Ok(m) => {
                if let Some(max_ply) = self.polyglot_max_ply
                    && mt.ply < max_ply as usize
                {
                    match polyglot::encode_move(&m) {
                        Some(mv) => mt.counted.push(CountedMove {
                            key: mt.key,
                            mv,
                            white: mt.pos.turn() == Color::White,
                        }),
                        None => mt.unencodable = true,
                    }
                    mt.key = match mt.pos.update_zobrist_hash::<Zobrist64>(
                        Zobrist64(mt.key),
                        m,
                        EnPassantMode::PseudoLegal,
                    ) {
                        Some(z) => z.0,
                        None => {
                            let mut after = mt.pos.clone();
                            after.play_unchecked(m);
                            after
                                .zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal)
                                .0
                        }
                    };
                }
                mt.pos.play_unchecked(m);
                mt.ply += 1;
                if self.polyglot_max_ply.is_none() {
                    mt.moves.push(m);
                }
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(Light::Error),
        }
    }

    fn begin_variation(&mut self, _mt: &mut Movetext) -> ControlFlow<Light, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: Outcome) -> ControlFlow<Light> {
        mt.termination = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) -> Light {
        Light::Game(Box::new(mt))
    }
}

/// The database's result rule (`Game::outcome`): the `Result` tag, else the termination.
fn outcome_of(tag: Option<&str>, termination: Option<Outcome>) -> GameResult {
    let known = match tag.map(str::trim) {
        Some("1-0") => Some(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        Some("0-1") => Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        Some("1/2-1/2") | Some("½-½") => Some(KnownOutcome::Draw),
        Some("*") => None,
        _ => termination.and_then(|o| o.known()),
    };
    from_known(known)
}

fn from_known(k: Option<KnownOutcome>) -> GameResult {
    match k {
        Some(KnownOutcome::Decisive {
            winner: Color::White,
        }) => GameResult::WhiteWins,
        Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => GameResult::BlackWins,
        Some(KnownOutcome::Draw) => GameResult::Draw,
        None => GameResult::Unknown,
    }
}

/// `polyglot make-book`'s reading of the `Result` tag.
pub fn tag_result(tag: Option<&str>) -> GameResult {
    match tag {
        Some("1-0") => GameResult::WhiteWins,
        Some("0-1") => GameResult::BlackWins,
        Some("1/2-1/2") => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// Reads one game's text with the importer's rules. `Err((line, reason))` when the importer
/// would skip it.
#[cfg_attr(not(test), allow(dead_code))]
pub fn read_game(bytes: &[u8], line: u64, names: bool) -> Result<InputGame, (u64, String)> {
    read_game_with(bytes, line, names, None)
}

/// [`read_game`]; with `polyglot_max_ply`, also the game as `make-book` counts it
/// ([`InputGame::counted`], result from the tag) and without its moves.
pub fn read_game_with(
    bytes: &[u8],
    line: u64,
    names: bool,
    polyglot_max_ply: Option<u32>,
) -> Result<InputGame, (u64, String)> {
    let mut reader = Reader::new(bytes);
    let light = match reader.read_game(&mut LightVisitor {
        names,
        polyglot_max_ply,
    }) {
        Ok(Some(l)) => l,
        // What parse_game answers (with its exact error and line) for these.
        Ok(None) | Err(_) => Light::Full,
    };
    match light {
        Light::Game(mt) => {
            let mt = *mt;
            let t = &mt.tags;
            let year = t.date.flatten().or(t.event_date.flatten());
            let tag = tag_result(t.result.as_deref());
            let counted = polyglot_max_ply.map(|_| {
                if mt.unencodable {
                    CountedGame::Illegal
                } else {
                    CountedGame::Counted {
                        moves: mt.counted,
                        result: tag,
                    }
                }
            });
            let moves = if counted.is_some() {
                Vec::new()
            } else {
                mt.moves
            };
            Ok(InputGame {
                tag_result: tag,
                names: names.then(|| {
                    (
                        t.white.clone().unwrap_or_default(),
                        t.black.clone().unwrap_or_default(),
                    )
                }),
                game: BookGame {
                    start: Chess::default(),
                    standard_start: true,
                    result: outcome_of(t.result.as_deref(), mt.termination),
                    white_elo: t.white_elo.flatten(),
                    black_elo: t.black_elo.flatten(),
                    year,
                    moves,
                    source: None,
                },
                file: 0,
                number: 0,
                counted,
            })
        }
        Light::OtherStart(t) => Ok(InputGame {
            tag_result: tag_result(t.result.as_deref()),
            names: None,
            game: BookGame {
                start: Chess::default(),
                standard_start: false,
                moves: Vec::new(),
                result: outcome_of(t.result.as_deref(), None),
                white_elo: t.white_elo.flatten(),
                black_elo: t.black_elo.flatten(),
                year: t.date.flatten().or(t.event_date.flatten()),
                source: None,
            },
            file: 0,
            number: 0,
            counted: Some(CountedGame::NonStandardStart),
        }),
        Light::Full | Light::Error => match parse_game(bytes, line) {
            Ok(g) => {
                let mut g = from_game(&g, names);
                if let Some(max_ply) = polyglot_max_ply {
                    g.counted = Some(count_for_polyglot(&mut g, max_ply));
                    g.game.moves = Vec::new();
                }
                Ok(g)
            }
            Err(e) => Err((e.line, e.reason)),
        },
    }
}

/// The game as `polyglot make-book` counts it: result from the `Result` tag.
pub fn count_for_polyglot(g: &mut InputGame, max_ply: u32) -> CountedGame {
    let result = std::mem::replace(&mut g.game.result, g.tag_result);
    let counted = count_game(&g.game, max_ply);
    g.game.result = result;
    counted
}

/// A parsed game as a book game.
pub fn from_game(g: &Game, names: bool) -> InputGame {
    InputGame {
        tag_result: tag_result(g.tag("Result")),
        names: names.then(|| {
            (
                g.tag("White").unwrap_or("").to_string(),
                g.tag("Black").unwrap_or("").to_string(),
            )
        }),
        game: BookGame {
            standard_start: g.standard_start(),
            start: g.start.clone(),
            moves: g.main_line().copied().collect(),
            result: from_known(g.outcome()),
            white_elo: g.elo(Color::White),
            black_elo: g.elo(Color::Black),
            year: g.year(),
            source: None,
        },
        file: 0,
        number: 0,
        counted: None,
    }
}

/// Games of a Tabiya database, in id order. With `export`, every game's PGN text is also
/// written to that file and each game's `source` points into it (source file 0).
pub fn read_database(
    dir: &Path,
    export: Option<&Path>,
    names: bool,
) -> anyhow::Result<(Vec<InputGame>, ReadSummary)> {
    use std::io::Write;
    let db = tabiya_db::Database::open(dir)
        .with_context(|| format!("cannot open database {}", dir.display()))?;
    if db.kind() != tabiya_db::Kind::Chess {
        bail!(
            "{} is an Othello database: books are built from chess games",
            dir.display()
        );
    }
    let snap = db.snapshot()?;
    let ids = snap.all_game_ids()?;
    let mut out = Vec::with_capacity(ids.len());
    let mut summary = ReadSummary::default();
    let mut writer = match export {
        Some(p) => Some((
            std::io::BufWriter::new(
                std::fs::File::create(p)
                    .with_context(|| format!("cannot create {}", p.display()))?,
            ),
            p,
        )),
        None => None,
    };
    let mut offset = 0u64;
    for (number, id) in ids.into_iter().enumerate() {
        summary.games += 1;
        let Some(game) = snap.chess_game(id)? else {
            summary.skipped += 1;
            continue;
        };
        let facts = snap.facts(id)?;
        let mut g = from_game(&game, names);
        g.game.result = match facts.outcome() {
            tabiya_db::GameOutcome::FirstWins => GameResult::WhiteWins,
            tabiya_db::GameOutcome::SecondWins => GameResult::BlackWins,
            tabiya_db::GameOutcome::Draw => GameResult::Draw,
            tabiya_db::GameOutcome::Unknown => GameResult::Unknown,
        };
        g.game.white_elo = facts.ratings[0];
        g.game.black_elo = facts.ratings[1];
        g.game.year = facts.year;
        g.number = number as u32;
        if let Some((w, path)) = writer.as_mut() {
            let text = tabiya_pgn::game_to_string(&game);
            let text = text.trim_end();
            w.write_all(text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            w.write_all(b"\n\n")
                .with_context(|| format!("cannot write {}", path.display()))?;
            g.game.source = Some(SourceRef {
                file: 0,
                offset,
                length: text.len() as u64,
            });
            offset += text.len() as u64 + 2;
        }
        out.push(g);
    }
    if let Some((mut w, path)) = writer {
        w.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok((out, summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn shared(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data")
            .join(rel)
    }

    /// The light reader accepts, rejects and reads exactly what `parse_game` does.
    fn same_as_parse_game(path: &Path) -> usize {
        let input = tabiya_pgn::input::open(path).unwrap();
        let mut n = 0;
        for chunk in Splitter::new(input.reader) {
            let chunk = chunk.unwrap();
            for span in &chunk.games {
                let bytes = chunk.game_bytes(span);
                let light = read_game(bytes, span.line, true);
                let full = parse_game(bytes, span.line);
                match (&light, &full) {
                    (Ok(l), Ok(f)) => {
                        let f = from_game(f, true);
                        assert_eq!(
                            l.game.start,
                            f.game.start,
                            "{} line {}",
                            path.display(),
                            span.line
                        );
                        assert_eq!(
                            l.game.moves,
                            f.game.moves,
                            "{} line {}",
                            path.display(),
                            span.line
                        );
                        assert_eq!(
                            l.game.result,
                            f.game.result,
                            "{} line {}",
                            path.display(),
                            span.line
                        );
                        assert_eq!(
                            l.tag_result,
                            f.tag_result,
                            "{} line {}",
                            path.display(),
                            span.line
                        );
                        assert_eq!(l.game.white_elo, f.game.white_elo);
                        assert_eq!(l.game.black_elo, f.game.black_elo);
                        assert_eq!(l.game.year, f.game.year);
                        assert_eq!(l.names, f.names);
                    }
                    (Err(l), Err(f)) => assert_eq!(l, &(f.line, f.reason.clone())),
                    _ => panic!(
                        "{} line {}: light {:?} vs parse_game {:?}",
                        path.display(),
                        span.line,
                        light.as_ref().err(),
                        full.as_ref().err()
                    ),
                }
                n += 1;
            }
        }
        n
    }

    #[test]
    fn light_reader_agrees_with_parse_game_on_the_shared_pgn() {
        let mut files = vec![
            shared("pgn/twic/twic0920.pgn"),
            shared("pgn/tcec/tcec-partial.nocomments.pgn.zst"),
        ];
        for dir in ["pgn/pgnmentor", "pgn/edge-cases"] {
            let mut v: Vec<PathBuf> = std::fs::read_dir(shared(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            v.sort();
            files.extend(v);
        }
        let mut total = 0;
        for f in &files {
            total += same_as_parse_game(f);
        }
        // twic 2,245 + TCEC 27,608 + pgnmentor 13,163 + the edge cases.
        assert!(total > 43_000, "{total} games");
    }

    /// Every move of every shared game: the fast SAN path agrees with `san_to_move`, and is
    /// taken for most moves.
    #[test]
    fn fast_san_agrees_with_san_to_move() {
        use shakmaty::san::SanPlus;
        let mut files = vec![
            shared("pgn/twic/twic0920.pgn"),
            shared("pgn/tcec/tcec-partial.nocomments.pgn.zst"),
        ];
        let mut v: Vec<PathBuf> = std::fs::read_dir(shared("pgn/pgnmentor"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        files.extend(v);
        let (mut fast, mut total) = (0u64, 0u64);
        for f in &files {
            let input = tabiya_pgn::input::open(f).unwrap();
            for chunk in Splitter::new(input.reader) {
                let chunk = chunk.unwrap();
                for span in &chunk.games {
                    let Ok(game) = parse_game(chunk.game_bytes(span), span.line) else {
                        continue;
                    };
                    let mut pos = game.start.clone();
                    for m in game.main_line() {
                        // Every SAN of the move (with and without disambiguation, capture mark),
                        // and wrong ones: the fast path must agree or step aside.
                        let san = SanPlus::from_move(pos.clone(), *m).san;
                        let mut tries = vec![san];
                        if let San::Normal {
                            role,
                            file,
                            rank,
                            capture,
                            to,
                            promotion,
                        } = san
                        {
                            tries.push(San::Normal {
                                role,
                                file: None,
                                rank: None,
                                capture,
                                to,
                                promotion,
                            });
                            tries.push(San::Normal {
                                role,
                                file: Some(m.from().unwrap().file()),
                                rank: Some(m.from().unwrap().rank()),
                                capture,
                                to,
                                promotion,
                            });
                            tries.push(San::Normal {
                                role,
                                file,
                                rank,
                                capture: !capture,
                                to,
                                promotion,
                            });
                        }
                        for t in tries {
                            total += 1;
                            if let Some(fm) = tabiya_pgn::san::fast_san(&pos, &t) {
                                fast += 1;
                                assert_eq!(
                                    Ok(fm),
                                    san_to_move(&pos, t),
                                    "{} line {}: {t}",
                                    f.display(),
                                    span.line
                                );
                            }
                        }
                        pos.play_unchecked(*m);
                    }
                }
            }
        }
        assert!(fast * 2 > total, "fast path taken for {fast} of {total}");
    }

    #[test]
    fn moves_counted_while_parsing_equal_a_replay() {
        let input = tabiya_pgn::input::open(&shared("pgn/twic/twic0920.pgn")).unwrap();
        let mut n = 0;
        for chunk in Splitter::new(input.reader) {
            let chunk = chunk.unwrap();
            for span in &chunk.games {
                let bytes = chunk.game_bytes(span);
                for max_ply in [1024, 7] {
                    let fast = read_game_with(bytes, span.line, false, Some(max_ply)).unwrap();
                    let mut plain = read_game(bytes, span.line, false).unwrap();
                    assert_eq!(fast.counted, Some(count_for_polyglot(&mut plain, max_ply)));
                }
                n += 1;
            }
        }
        assert_eq!(n, 2245);
    }

    #[test]
    fn polyglot_mode_skips_other_starts_unread() {
        let text = b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 1-0";
        let g = read_game_with(text, 1, false, Some(1024)).unwrap();
        assert_eq!(g.counted, Some(CountedGame::NonStandardStart));
        // A FEN tag holding the standard start is read and counted.
        let text =
            b"[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. e4 e5 1-0";
        let g = read_game_with(text, 1, false, Some(1024)).unwrap();
        assert!(
            matches!(g.counted, Some(CountedGame::Counted { ref moves, .. }) if moves.len() == 2)
        );
    }

    #[test]
    fn results_as_the_database_and_as_make_book() {
        let g = read_game(b"[Result \"*\"]\n\n1. e4 e5 1-0", 1, false).unwrap();
        assert_eq!(g.game.result, GameResult::Unknown, "the tag wins");
        assert_eq!(g.tag_result, GameResult::Unknown);
        let g = read_game(b"[Event \"x\"]\n\n1. e4 e5 0-1", 1, false).unwrap();
        assert_eq!(
            g.game.result,
            GameResult::BlackWins,
            "no tag: the termination marker"
        );
        assert_eq!(
            g.tag_result,
            GameResult::Unknown,
            "make-book reads the tag only"
        );
        let g = read_game(b"[Result \" 1-0 \"]\n\n1. e4 *", 1, false).unwrap();
        assert_eq!(
            g.game.result,
            GameResult::WhiteWins,
            "the database trims the tag"
        );
        assert_eq!(g.tag_result, GameResult::Unknown, "make-book does not");
        assert!(read_game(b"[Result \"1-0\"]\n\n1. e4 e4 1-0", 1, false).is_err());
    }
}
