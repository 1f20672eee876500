//! One UCI engine as a child process: started with its options, asked to search, stopped.
//!
//! Every wait has a deadline, so a call never hangs: the handshake (`uci` → `uciok`,
//! `isready` → `readyok`) has `handshake_timeout`; a search must print something at least
//! every `stall_timeout`, and a timed search must end within its time plus `stop_timeout`;
//! after `stop` the engine has `stop_timeout` to give its `bestmove`. An engine that misses
//! a deadline, exits, or breaks the protocol is killed and reaped at once, the error says
//! what it did, and the engine is marked dead: the caller (the pool) starts a new one for the
//! next search. Lines are read by a thread of their own, at most 64 KiB each, so an engine
//! printing endlessly cannot exhaust memory; unknown lines are ignored.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use crate::children;
use crate::error::EngineError;
use crate::uci::{EngineOption, Info, Line, parse_line};

/// How to start an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The engine's executable.
    pub path: PathBuf,
    pub args: Vec<String>,
    /// `setoption name N value V`, sent in this order after the handshake (an option the
    /// engine does not have is an error).
    pub options: Vec<(String, String)>,
    /// Options sent only when the engine has them (Tabiya's defaults, such as `Threads`),
    /// before `options`.
    pub defaults: Vec<(String, String)>,
    pub handshake_timeout: Duration,
    /// Longest silence allowed during a search.
    pub stall_timeout: Duration,
    /// How long `bestmove` may take after `stop` (and past a timed search's end).
    pub stop_timeout: Duration,
}

impl EngineConfig {
    pub fn new(path: impl Into<PathBuf>) -> EngineConfig {
        EngineConfig {
            path: path.into(),
            args: Vec::new(),
            options: Vec::new(),
            defaults: Vec::new(),
            handshake_timeout: Duration::from_secs(10),
            stall_timeout: Duration::from_secs(60),
            stop_timeout: Duration::from_secs(5),
        }
    }
}

/// What a search is bounded by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Depth(u32),
    /// Milliseconds.
    MoveTime(u64),
    Nodes(u64),
    /// Until stopped.
    Infinite,
}

impl Limit {
    fn go(self) -> String {
        match self {
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::MoveTime(ms) => format!("go movetime {ms}"),
            Limit::Nodes(n) => format!("go nodes {n}"),
            Limit::Infinite => "go infinite".to_string(),
        }
    }
}

/// A search: a game's start, the moves played from it (sent as `position fen … moves …`, so
/// the engine knows the repetitions), a limit and the number of lines.
#[derive(Debug, Clone)]
pub struct Search {
    pub start: Chess,
    pub moves: Vec<Move>,
    pub mode: CastlingMode,
    pub limit: Limit,
    pub multipv: u32,
}

impl Search {
    /// The position searched.
    pub fn root(&self) -> Chess {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(*m);
        }
        pos
    }
}

/// One line of the result: the last `info` the engine gave for it.
#[derive(Debug, Clone, PartialEq)]
pub struct PvLine {
    pub multipv: u32,
    pub info: Info,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// `id name` of the engine.
    pub engine: String,
    /// `None` when the position has no legal move (`bestmove (none)`).
    pub bestmove: Option<String>,
    pub ponder: Option<String>,
    /// The lines, best first (by `multipv`).
    pub lines: Vec<PvLine>,
    /// Stopped before its limit (cancelled or superseded).
    pub stopped: bool,
}

/// A running engine.
pub struct Engine {
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    lines: Receiver<Option<String>>,
    config: EngineConfig,
    name: String,
    author: String,
    options: Vec<EngineOption>,
    multipv: u32,
    dead: bool,
}

const MAX_LINE: u64 = 64 << 10;

impl Engine {
    /// Starts the engine and completes the handshake, then sends the configured options.
    pub fn start(config: &EngineConfig) -> Result<Engine, EngineError> {
        let mut command = Command::new(&config.path);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        children::die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|source| EngineError::Start {
            path: config.path.clone(),
            source,
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Start {
                path: config.path.clone(),
                source: std::io::Error::other("no pipes to the engine"),
            });
        };
        // Bounded: an engine printing faster than it is read waits (at most 16 MiB queued).
        let (tx, rx) = sync_channel(256);
        std::thread::Builder::new()
            .name("tabiya-engine-out".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            if tx.send(Some(line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(None);
            })
            .map_err(|source| EngineError::Start {
                path: config.path.clone(),
                source,
            })?;
        let child = Arc::new(Mutex::new(child));
        children::register(&child);
        let mut engine = Engine {
            child,
            stdin,
            lines: rx,
            config: config.clone(),
            name: config.path.display().to_string(),
            author: String::new(),
            options: Vec::new(),
            multipv: 1,
            dead: false,
        };
        engine.handshake()?;
        Ok(engine)
    }

    /// `id name`, else the executable's path.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn author(&self) -> &str {
        &self.author
    }

    /// The options the engine declared.
    pub fn options(&self) -> &[EngineOption] {
        &self.options
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.lock().map(|c| c.id()).unwrap_or(0)
    }

    /// False once the engine failed (it was killed): start a new one.
    pub fn is_alive(&self) -> bool {
        !self.dead
    }

    fn handshake(&mut self) -> Result<(), EngineError> {
        self.send("uci")?;
        let deadline = Instant::now() + self.config.handshake_timeout;
        let mut printed = Vec::new();
        loop {
            match self.next_line(deadline, "uci", "uciok", &mut printed)? {
                Line::IdName(n) => self.name = n,
                Line::IdAuthor(a) => self.author = a,
                Line::Option(o) => self.options.push(o),
                Line::UciOk => break,
                Line::Other(l) if !l.is_empty() && printed.len() < 5 => printed.push(clip(l)),
                _ => {}
            }
        }
        for (name, value) in self.config.defaults.clone() {
            if self
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&name))
            {
                self.set_option(&name, &value)?;
            }
        }
        for (name, value) in self.config.options.clone() {
            self.set_option(&name, &value)?;
        }
        self.ready()
    }

    /// `setoption name N value V` for an option the engine declared (any case).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let Some(opt) = self
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
        else {
            let known: Vec<&str> = self.options.iter().map(|o| o.name.as_str()).collect();
            return Err(EngineError::UnknownOption {
                name: self.name.clone(),
                option: name.to_string(),
                known: known.join(", "),
            });
        };
        let line = if opt.kind == "button" {
            format!("setoption name {}", opt.name)
        } else {
            format!("setoption name {} value {value}", opt.name)
        };
        if opt.name.eq_ignore_ascii_case("MultiPV") {
            self.multipv = value.parse().unwrap_or(1);
        }
        self.send(&line)
    }

    /// `isready`, waiting for `readyok`.
    fn ready(&mut self) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.config.handshake_timeout;
        let mut printed = Vec::new();
        loop {
            if let Line::ReadyOk = self.next_line(deadline, "isready", "readyok", &mut printed)? {
                return Ok(());
            }
        }
    }

    /// The next line before `deadline`; the engine is killed when it misses it or exits.
    fn next_line(
        &mut self,
        deadline: Instant,
        sent: &'static str,
        wanted: &'static str,
        printed: &mut Vec<String>,
    ) -> Result<Line, EngineError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Some(line)) => Ok(parse_line(&line)),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = self.kill();
                Err(EngineError::Exited {
                    name: self.name.clone(),
                    during: "during the handshake",
                    status,
                    printed: std::mem::take(printed),
                })
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(EngineError::Handshake {
                    path: self.config.path.clone(),
                    sent,
                    wanted,
                    seconds: self.config.handshake_timeout.as_secs(),
                    printed: std::mem::take(printed),
                })
            }
        }
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        let r = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        r.map_err(|source| {
            let status = self.kill();
            if source.kind() == std::io::ErrorKind::BrokenPipe {
                EngineError::Exited {
                    name: self.name.clone(),
                    during: "before it was asked anything more",
                    status,
                    printed: Vec::new(),
                }
            } else {
                EngineError::Io {
                    name: self.name.clone(),
                    source,
                }
            }
        })
    }

    /// Kills and reaps the process; returns how it ended.
    fn kill(&mut self) -> String {
        self.dead = true;
        let status = match self.child.lock() {
            Ok(mut c) => {
                let _ = c.kill();
                c.wait().map(describe).unwrap_or_else(|e| e.to_string())
            }
            Err(_) => "unknown".to_string(),
        };
        children::forget(&self.child);
        status
    }

    /// Searches `search`, calling `on_info` with each `info` line as it comes. Setting
    /// `cancel` stops the search: the result so far is returned, marked `stopped`.
    pub fn search(
        &mut self,
        search: &Search,
        cancel: &AtomicBool,
        mut on_info: impl FnMut(&Info),
    ) -> Result<SearchResult, EngineError> {
        if self.dead {
            return Err(EngineError::Unresponsive {
                name: self.name.clone(),
                what: "failed before".to_string(),
            });
        }
        let multipv = search.multipv.max(1);
        if multipv != self.multipv
            && self
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("MultiPV"))
        {
            self.set_option("MultiPV", &multipv.to_string())?;
        }
        if search.mode == CastlingMode::Chess960
            && self
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("UCI_Chess960"))
        {
            self.set_option("UCI_Chess960", "true")?;
        }
        self.ready()?;
        let start = Fen::from_position(&search.start, EnPassantMode::Legal);
        let mut position = format!("position fen {start}");
        if !search.moves.is_empty() {
            position.push_str(" moves");
            for m in &search.moves {
                position.push(' ');
                position.push_str(&UciMove::from_move(*m, search.mode).to_string());
            }
        }
        self.send(&position)?;
        self.send(&search.limit.go())?;
        let root = search.root();
        let began = Instant::now();
        let mut last_output = began;
        let time_limit = match search.limit {
            Limit::MoveTime(ms) => Some(began + Duration::from_millis(ms)),
            _ => None,
        };
        let mut stop_sent: Option<(Instant, bool)> = None; // (when, because cancelled)
        let mut ping: Option<Instant> = None; // an `isready` awaiting its `readyok`, by then
        let mut lines: Vec<PvLine> = Vec::new();
        let mut printed = Vec::new();
        loop {
            let now = Instant::now();
            if stop_sent.is_none() && cancel.load(Ordering::Relaxed) {
                self.send("stop")?;
                stop_sent = Some((now, true));
            }
            if stop_sent.is_none() && time_limit.is_some_and(|t| now > t + self.config.stop_timeout)
            {
                self.send("stop")?;
                stop_sent = Some((now, false));
            }
            if let Some((when, _)) = stop_sent
                && now > when + self.config.stop_timeout
            {
                self.kill();
                return Err(EngineError::Unresponsive {
                    name: self.name.clone(),
                    what: format!(
                        "gave no bestmove within {} s of `stop`",
                        self.config.stop_timeout.as_secs()
                    ),
                });
            }
            // Silent for a while: an engine searching deep, or one that hangs. `isready` must
            // be answered even during a search (UCI), so it tells them apart.
            if let Some(deadline) = ping {
                if now > deadline {
                    self.kill();
                    return Err(EngineError::Unresponsive {
                        name: self.name.clone(),
                        what: format!(
                            "printed nothing for {} s during a search and did not answer `isready`",
                            self.config.stall_timeout.as_secs()
                        ),
                    });
                }
            } else if stop_sent.is_none() && now > last_output + self.config.stall_timeout {
                self.send("isready")?;
                ping = Some(now + self.config.handshake_timeout);
            }
            match self.lines.recv_timeout(Duration::from_millis(50)) {
                Err(RecvTimeoutError::Timeout) => continue,
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.kill();
                    return Err(EngineError::Exited {
                        name: self.name.clone(),
                        during: "during a search",
                        status,
                        printed,
                    });
                }
                Ok(Some(text)) => {
                    match parse_line(&text) {
                        Line::Info(info) => {
                            last_output = Instant::now();
                            on_info(&info);
                            if info.is_line() && legal_line(&root, &info.pv) {
                                let k = info.multipv.unwrap_or(1);
                                match lines.iter_mut().find(|l| l.multipv == k) {
                                    Some(l) => l.info = *info,
                                    None => lines.push(PvLine {
                                        multipv: k,
                                        info: *info,
                                    }),
                                }
                            }
                        }
                        Line::BestMove { best, ponder } => {
                            let bestmove = self.check_bestmove(&root, &best)?;
                            lines.sort_by_key(|l| l.multipv);
                            lines.retain(|l| l.multipv <= multipv);
                            return Ok(SearchResult {
                                engine: self.name.clone(),
                                bestmove,
                                ponder,
                                lines,
                                stopped: stop_sent.is_some_and(|(_, cancelled)| cancelled),
                            });
                        }
                        Line::ReadyOk => {
                            last_output = Instant::now();
                            ping = None;
                        }
                        // Anything else is not progress: an engine printing only garbage
                        // is asked `isready` like a silent one.
                        Line::Other(l) if printed.len() < 5 && !l.is_empty() => {
                            printed.push(clip(l))
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// A `bestmove` that is legal at the root, or none when the root has no legal move.
    fn check_bestmove(&mut self, root: &Chess, best: &str) -> Result<Option<String>, EngineError> {
        let no_moves = root.legal_moves().is_empty();
        if no_moves && (best == "(none)" || best == "0000") {
            return Ok(None);
        }
        if legal_line(root, &[best.to_string()]) {
            return Ok(Some(best.to_string()));
        }
        self.kill();
        Err(EngineError::IllegalMove {
            name: self.name.clone(),
            mv: best.to_string(),
            fen: Fen::from_position(root, EnPassantMode::Legal).to_string(),
        })
    }
}

/// Whether every move of `pv` (UCI, either castling notation) is legal in turn from `pos`.
pub fn legal_line(pos: &Chess, pv: &[String]) -> bool {
    let mut pos = pos.clone();
    for m in pv {
        match m.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) {
            Some(mv) => pos.play_unchecked(mv),
            None => return false,
        }
    }
    true
}

/// `pv` (UCI) in SAN from `pos`, as far as its moves are legal.
pub fn san_line(pos: &Chess, pv: &[String]) -> Vec<String> {
    let mut pos = pos.clone();
    let mut out = Vec::with_capacity(pv.len());
    for m in pv {
        let Some(mv) = m.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else {
            break;
        };
        out.push(shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string());
    }
    out
}

/// A line short enough to quote in an error.
fn clip(mut line: String) -> String {
    if line.len() > 120 {
        let mut end = 120;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
        line.push('…');
    }
    line
}

fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(c) => format!("exit status {c}"),
        None => status.to_string(),
    }
}

impl Drop for Engine {
    /// `quit`, a moment to leave, then kill; always reaped.
    fn drop(&mut self) {
        if self.dead {
            return;
        }
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            let exited = self
                .child
                .lock()
                .map(|mut c| c.try_wait().ok().flatten().is_some())
                .unwrap_or(true);
            if exited || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}
