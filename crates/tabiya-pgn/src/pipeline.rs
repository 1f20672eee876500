//! The one ordered PGN pipeline: a reader thread opens each input in turn (decompressing it)
//! and cuts it into chunks of whole games; parse workers turn each chunk into whatever their
//! caller wants; the caller receives the results in input order.
//!
//! ```text
//! reader thread ──chunks──▶ workers (N threads) ──parsed chunks──▶ Ordered (reorders by sequence)
//!  (open, decompress,         (the caller's function                 (an iterator of Events in
//!   split into games)          on each chunk)                         input order)
//! ```
//!
//! The import (`tabiya-db`) and the book builders read PGN through it; a table's rows,
//! each made the PGN text of one game by their reader ([`Source::Rows`]: Parquet), take the
//! same way from the reader thread on. Progress (which
//! input, bytes consumed against its size) is published in a [`ReadProgress`] a terminal
//! can poll; setting its `cancel` flag stops the reader after the current chunk.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::input::{self, Input};
use crate::split::{Chunk, Splitter};

/// Something to read games from.
pub enum Source {
    /// A file (plain, `.zst`, `.gz`, `.bz2`), or `-` for standard input; opened by the
    /// reader thread, so a file that cannot be opened is reported as an [`Event::FileError`].
    Path(PathBuf),
    /// An open reader, plain or compressed (told from its first bytes).
    Reader {
        name: String,
        size: Option<u64>,
        reader: Box<dyn Read + Send>,
    },
    /// An input opened beforehand (by a caller that wants a missing file to fail at once).
    Opened(Input),
    /// Games that are not a PGN byte stream — a table's rows, each made the text of one
    /// game — numbered by row rather than by line; opened by the reader thread.
    Rows { name: String, open: OpenRows },
}

/// Opens a [`Source::Rows`]: its games, or what is wrong with the input (reported as is).
pub type OpenRows = Box<dyn FnOnce() -> Result<Box<dyn RowChunks>, String> + Send>;

/// Games read row by row from a table (Parquet): whole games in chunks, each game's
/// [`crate::GameSpan::line`] its 1-based row.
pub trait RowChunks: Send {
    /// The next chunk of games, `None` at the end; an error (its message says where) ends
    /// the input.
    fn next_chunk(&mut self) -> Result<Option<Chunk>, String>;
    /// Bytes of the underlying file read so far (an estimate is enough: it is for progress).
    fn bytes(&self) -> u64;
    /// The underlying file's size, when known.
    fn size(&self) -> Option<u64>;
}

impl Source {
    /// The name messages give the input (`-` is `<stdin>`).
    pub fn name(&self) -> String {
        match self {
            Source::Path(p) => input_name(p),
            Source::Reader { name, .. } => name.clone(),
            Source::Opened(i) => i.name.clone(),
            Source::Rows { name, .. } => name.clone(),
        }
    }

    /// True when its games are numbered by row (a table), not by line.
    pub fn has_rows(&self) -> bool {
        matches!(self, Source::Rows { .. })
    }
}

/// The name messages give a path (`-` is standard input).
pub fn input_name(p: &std::path::Path) -> String {
    if p.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        p.display().to_string()
    }
}

/// Live counters of the reading, for a progress bar.
#[derive(Debug, Default)]
pub struct ReadProgress {
    /// Index of the input being read.
    pub file_index: AtomicUsize,
    pub file_name: Mutex<String>,
    /// Bytes of the current input consumed (compressed bytes for compressed inputs).
    pub file_bytes: AtomicU64,
    /// Size of the current input, 0 when unknown (standard input).
    pub file_size: AtomicU64,
    /// Set to stop reading after the current chunk.
    pub cancel: AtomicBool,
}

/// How to run the pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Parse workers (at least one).
    pub workers: usize,
    /// Chunks waiting between the stages.
    pub queue: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 8,
        }
    }
}

/// Where a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Index of its input.
    pub file: usize,
    /// Games of its input before this chunk.
    pub games_before: u64,
}

/// What the pipeline reports, in input order.
pub enum Event<T> {
    /// A chunk of games, as the worker made it.
    Chunk { info: ChunkInfo, parsed: T },
    /// An input could not be opened, or reading it failed part way (what was read before
    /// came as chunks).
    FileError { file: usize, error: String },
    /// An input was read to its end (or to an error): the bytes of it consumed.
    FileDone { file: usize, bytes: u64 },
}

enum Work {
    Chunk {
        seq: u64,
        info: ChunkInfo,
        chunk: Chunk,
    },
    Done {
        seq: u64,
        event: DoneEvent,
    },
}

enum DoneEvent {
    Error { file: usize, error: String },
    Finished { file: usize, bytes: u64 },
}

/// The pipeline's results in input order. Dropping it stops the threads (each stops at its
/// next hand-over).
pub struct Ordered<T> {
    rx: Receiver<(u64, Event<T>)>,
    pending: BTreeMap<u64, Event<T>>,
    next: u64,
}

impl<T> Iterator for Ordered<T> {
    type Item = Event<T>;

    fn next(&mut self) -> Option<Event<T>> {
        loop {
            if let Some(e) = self.pending.remove(&self.next) {
                self.next += 1;
                return Some(e);
            }
            match self.rx.recv() {
                Ok((seq, e)) => {
                    self.pending.insert(seq, e);
                }
                // Every thread is done and every sequence number was delivered.
                Err(_) => return None,
            }
        }
    }
}

/// Starts the pipeline over `sources`: `make_worker` is called once on each worker thread,
/// and the function it returns is called with every chunk that worker takes (with the
/// chunk's input and position). Threads that cannot be started are reported as an error.
pub fn ordered<T, W, M>(
    sources: Vec<Source>,
    opts: Options,
    progress: Arc<ReadProgress>,
    make_worker: M,
) -> std::io::Result<Ordered<T>>
where
    T: Send + 'static,
    W: FnMut(&Chunk, ChunkInfo) -> T,
    M: Fn() -> W + Send + Sync + 'static,
{
    let make_worker = Arc::new(make_worker);
    let queue = opts.queue.max(1);
    let (work_tx, work_rx) = bounded::<Work>(queue);
    let (out_tx, out_rx) = bounded::<(u64, Event<T>)>(queue);
    std::thread::Builder::new()
        .name("tabiya-read".into())
        .spawn(move || read_inputs(sources, &work_tx, &progress))?;
    for _ in 0..opts.workers.max(1) {
        let rx = work_rx.clone();
        let tx = out_tx.clone();
        let make_worker = Arc::clone(&make_worker);
        std::thread::Builder::new()
            .name("tabiya-parse".into())
            .spawn(move || {
                let mut work = make_worker();
                for w in rx {
                    let out = match w {
                        Work::Chunk { seq, info, chunk } => (
                            seq,
                            Event::Chunk {
                                info,
                                parsed: work(&chunk, info),
                            },
                        ),
                        Work::Done { seq, event } => (
                            seq,
                            match event {
                                DoneEvent::Error { file, error } => {
                                    Event::FileError { file, error }
                                }
                                DoneEvent::Finished { file, bytes } => {
                                    Event::FileDone { file, bytes }
                                }
                            },
                        ),
                    };
                    if tx.send(out).is_err() {
                        break;
                    }
                }
            })?;
    }
    Ok(Ordered {
        rx: out_rx,
        pending: BTreeMap::new(),
        next: 0,
    })
}

/// The reader's hand-overs to the workers, numbered in input order.
struct Handover<'a> {
    tx: &'a Sender<Work>,
    seq: u64,
}

impl Handover<'_> {
    /// False once nobody listens.
    fn chunk(&mut self, info: ChunkInfo, chunk: Chunk) -> bool {
        let seq = self.next();
        self.tx.send(Work::Chunk { seq, info, chunk }).is_ok()
    }

    fn done(&mut self, event: DoneEvent) -> bool {
        let seq = self.next();
        self.tx.send(Work::Done { seq, event }).is_ok()
    }

    fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }
}

/// The reader thread: every input in turn, cut into chunks of whole games.
fn read_inputs(sources: Vec<Source>, tx: &Sender<Work>, progress: &ReadProgress) {
    let mut out = Handover { tx, seq: 0 };
    for (file, source) in sources.into_iter().enumerate() {
        progress.file_index.store(file, Ordering::Relaxed);
        if let Ok(mut n) = progress.file_name.lock() {
            *n = source.name();
        }
        progress.file_bytes.store(0, Ordering::Relaxed);
        progress.file_size.store(0, Ordering::Relaxed);
        let opened = match source {
            Source::Path(path) => input::open(&path),
            Source::Reader { name, size, reader } => input::from_reader(name, size, reader),
            Source::Opened(input) => Ok(input),
            Source::Rows { open, .. } => {
                if !read_rows(file, open, &mut out, progress) {
                    return;
                }
                continue;
            }
        };
        let input = match opened {
            Ok(i) => i,
            Err(e) => {
                let error = format!("cannot read: {e}");
                if !out.done(DoneEvent::Error { file, error }) {
                    return;
                }
                continue;
            }
        };
        progress
            .file_size
            .store(input.size.unwrap_or(0), Ordering::Relaxed);
        let counter = input.progress.clone();
        let compression = input.compression;
        let mut splitter = Splitter::new(input.reader);
        let mut games_before = 0u64;
        loop {
            match splitter.next_chunk() {
                Ok(Some(chunk)) => {
                    progress
                        .file_bytes
                        .store(counter.bytes(), Ordering::Relaxed);
                    let info = ChunkInfo { file, games_before };
                    games_before += chunk.games.len() as u64;
                    if !out.chunk(info, chunk) || progress.cancel.load(Ordering::Relaxed) {
                        return;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let error = read_error(&e, counter.bytes(), compression);
                    if !out.done(DoneEvent::Error { file, error }) {
                        return;
                    }
                    break;
                }
            }
        }
        let bytes = counter.bytes();
        progress.file_bytes.store(bytes, Ordering::Relaxed);
        if !out.done(DoneEvent::Finished { file, bytes }) {
            return;
        }
    }
}

/// What a failed read of an input says: where it stopped (in the file's own bytes, which
/// are compressed ones for a compressed file), and why; the splitter's giving up as it is.
fn read_error(e: &std::io::Error, bytes: u64, compression: input::Compression) -> String {
    if let Some(given_up) = e
        .get_ref()
        .and_then(|r| r.downcast_ref::<crate::split::GivenUp>())
    {
        return given_up.to_string();
    }
    let what = match compression {
        input::Compression::None => "",
        input::Compression::Zstd => " (zstd: truncated or damaged?)",
        input::Compression::Gzip => " (gzip: truncated or damaged?)",
        input::Compression::Bzip2 => " (bzip2: truncated or damaged?)",
    };
    format!("read error after {bytes} bytes{what}: {e}; the games before it were read")
}

/// The reader thread on a [`Source::Rows`]: its chunks as they come. False once nobody
/// listens or the reading is cancelled.
fn read_rows(file: usize, open: OpenRows, out: &mut Handover<'_>, progress: &ReadProgress) -> bool {
    let mut rows = match open() {
        Ok(r) => r,
        Err(error) => return out.done(DoneEvent::Error { file, error }),
    };
    progress
        .file_size
        .store(rows.size().unwrap_or(0), Ordering::Relaxed);
    let mut games_before = 0u64;
    loop {
        match rows.next_chunk() {
            Ok(Some(chunk)) => {
                progress.file_bytes.store(rows.bytes(), Ordering::Relaxed);
                let info = ChunkInfo { file, games_before };
                games_before += chunk.games.len() as u64;
                if !out.chunk(info, chunk) || progress.cancel.load(Ordering::Relaxed) {
                    return false;
                }
            }
            Ok(None) => break,
            Err(error) => {
                if !out.done(DoneEvent::Error { file, error }) {
                    return false;
                }
                break;
            }
        }
    }
    let bytes = rows.bytes();
    progress.file_bytes.store(bytes, Ordering::Relaxed);
    out.done(DoneEvent::Finished { file, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameSpan;

    fn pgn(games: usize, tag: &str) -> Vec<u8> {
        let mut s = String::new();
        for i in 0..games {
            s.push_str(&format!("[Event \"{tag} {i}\"]\n\n1. e4 e5 *\n\n"));
        }
        s.into_bytes()
    }

    /// Every game of every input comes out once, in input order, however many workers
    /// parse the chunks and however long each takes; inputs that cannot be read are
    /// reported in their place.
    #[test]
    fn chunks_come_out_in_input_order() {
        for workers in [1, 2, 5] {
            let sources = vec![
                Source::Reader {
                    name: "a".into(),
                    size: None,
                    reader: Box::new(std::io::Cursor::new(pgn(20_000, "a"))),
                },
                Source::Path(PathBuf::from("/nonexistent/file.pgn")),
                Source::Reader {
                    name: "b".into(),
                    size: None,
                    reader: Box::new(std::io::Cursor::new(pgn(3, "b"))),
                },
            ];
            let progress = Arc::new(ReadProgress::default());
            let events = ordered(sources, Options { workers, queue: 2 }, progress, || {
                let mut n = 0u64;
                move |chunk: &Chunk, info: ChunkInfo| {
                    // Uneven work: later chunks of a worker finish sooner.
                    n += 1;
                    std::thread::sleep(std::time::Duration::from_micros(500 / n));
                    let names: Vec<String> = chunk
                        .games
                        .iter()
                        .map(|g| {
                            let text = String::from_utf8_lossy(chunk.game_bytes(g));
                            text.split('"').nth(1).unwrap_or("").to_string()
                        })
                        .collect();
                    (info, names)
                }
            })
            .unwrap();
            let mut seen = Vec::new();
            let mut log = Vec::new();
            for e in events {
                match e {
                    Event::Chunk { info, parsed } => {
                        assert_eq!(info, parsed.0);
                        let before = seen.iter().filter(|(f, _)| *f == info.file).count() as u64;
                        assert_eq!(info.games_before, before);
                        seen.extend(parsed.1.into_iter().map(|n| (info.file, n)));
                    }
                    Event::FileError { file, error } => log.push(format!("error {file}: {error}")),
                    Event::FileDone { file, .. } => log.push(format!("done {file}")),
                }
            }
            let expected: Vec<(usize, String)> = (0..20_000)
                .map(|i| (0, format!("a {i}")))
                .chain((0..3).map(|i| (2, format!("b {i}"))))
                .collect();
            assert_eq!(seen, expected, "{workers} workers");
            assert_eq!(log.len(), 3, "{log:?}");
            assert_eq!(log[0], "done 0");
            assert!(
                log[1].starts_with("error 1: cannot read")
                    && log[1].contains("/nonexistent/file.pgn"),
                "{log:?}"
            );
            assert_eq!(log[2..], ["done 2".to_string()]);
        }
    }

    /// A table's rows come through in order like a file's games; an input that cannot be
    /// opened, or fails part way, is reported with its own message in its place.
    #[test]
    fn rows_come_in_order_with_their_errors() {
        struct Rows {
            left: u64,
            fail: bool,
        }
        impl RowChunks for Rows {
            fn next_chunk(&mut self) -> Result<Option<Chunk>, String> {
                if self.left == 0 {
                    return if self.fail {
                        Err("cannot read the rows from row 7 on".into())
                    } else {
                        Ok(None)
                    };
                }
                self.left -= 1;
                let text = b"[Event \"r\"]\n\n1. e4 *\n".to_vec();
                let end = text.len();
                let games = vec![GameSpan {
                    start: 0,
                    end,
                    offset: 0,
                    line: 1,
                    dropped: 0,
                }];
                Ok(Some(Chunk { data: text, games }))
            }
            fn bytes(&self) -> u64 {
                100 - self.left
            }
            fn size(&self) -> Option<u64> {
                Some(100)
            }
        }
        let rows = |left: u64, fail: bool| Source::Rows {
            name: format!("rows{left}"),
            open: Box::new(move || Ok(Box::new(Rows { left, fail }) as Box<dyn RowChunks>)),
        };
        let sources = vec![
            rows(6, true),
            Source::Rows {
                name: "bad".into(),
                open: Box::new(|| Err("no movetext column".into())),
            },
            rows(3, false),
        ];
        assert!(sources[0].has_rows() && !Source::Path("x".into()).has_rows());
        let events = ordered(
            sources,
            Options {
                workers: 2,
                queue: 2,
            },
            Arc::new(ReadProgress::default()),
            || |c: &Chunk, _: ChunkInfo| c.games.len(),
        )
        .unwrap();
        let log: Vec<String> = events
            .map(|e| match e {
                Event::Chunk { info, parsed } => {
                    format!("{}:{}+{parsed}", info.file, info.games_before)
                }
                Event::FileError { file, error } => format!("{file}: {error}"),
                Event::FileDone { file, bytes } => format!("{file} done {bytes}"),
            })
            .collect();
        assert_eq!(
            log,
            [
                "0:0+1",
                "0:1+1",
                "0:2+1",
                "0:3+1",
                "0:4+1",
                "0:5+1",
                "0: cannot read the rows from row 7 on",
                "0 done 100",
                "1: no movetext column",
                "2:0+1",
                "2:1+1",
                "2:2+1",
                "2 done 100",
            ]
        );
    }

    /// Dropping the results early stops the threads without hanging.
    #[test]
    fn dropping_the_results_stops_the_pipeline() {
        let sources = vec![Source::Reader {
            name: "big".into(),
            size: None,
            reader: Box::new(std::io::Cursor::new(pgn(50_000, "x"))),
        }];
        let mut events = ordered(
            sources,
            Options::default(),
            Arc::new(ReadProgress::default()),
            || |c: &Chunk, _: ChunkInfo| c.games.len(),
        )
        .unwrap();
        assert!(events.next().is_some());
        drop(events);
    }
}
