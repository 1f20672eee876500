//! Cutting a PGN byte stream into games without parsing them, so that games can be parsed
//! on several threads and each game's place in its file (byte offset, line) is known.
//!
//! The rules follow the PGN grammar as `pgn-reader` applies it: a game starts at its first
//! tag line (or its first movetext token when it has no tags) and ends where a line starting
//! with `[` follows movetext, outside `{...}` comments, `;` comments and `%` escape lines.
//! Empty lines between tag lines (ChessBase writes them) do not end a game.
//!
//! Line ends: `\n`, `\r\n`, and a lone `\r` (old Mac files), which is read as `\n` (the
//! byte is replaced, so offsets do not move); games read the same whatever their line ends.
//!
//! Bounds, so that no input makes the reading hold unbounded memory or run forever:
//! a game longer than [`MAX_GAME_BYTES`] is not kept — its bytes are dropped as they come
//! and its span says so ([`GameSpan::dropped`]; [`GameSpan::refusal`] is the error to
//! report), and the reading goes on at the next game. When such a game has still not
//! ended after [`MAX_SKIP_BYTES`] (`/dev/zero`, a decompression bomb, one endless comment),
//! the rest of the input is given up with an error naming the game and its offset.
//! A read error (a truncated `.zst`, `.gz`, `.bz2`) ends the input after the games read
//! whole before it; the game it cut is dropped.

use std::io::{self, Read};

pub use crate::bounds::{MAX_GAME_BYTES, MAX_SKIP_BYTES};

/// Where one game lies in a [`Chunk`] and in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSpan {
    /// Byte range of the game inside [`Chunk::data`], trailing whitespace excluded.
    pub start: usize,
    pub end: usize,
    /// Offset of the game's first byte in the (decompressed) input (a table's row: the
    /// row's 0-based index).
    pub offset: u64,
    /// 1-based line of the game's first byte (a table's row: the 1-based row).
    pub line: u64,
    /// Bytes of the game that were not kept because it is longer than [`MAX_GAME_BYTES`]
    /// (then `start == end`: none kept); 0 for every game read whole.
    pub dropped: u64,
}

impl GameSpan {
    /// A whole game at `start..end` of its chunk (`offset` and `line` where it starts).
    pub fn whole(start: usize, end: usize, offset: u64, line: u64) -> GameSpan {
        GameSpan {
            start,
            end,
            offset,
            line,
            dropped: 0,
        }
    }

    /// The error to report for a game that was too long to keep; `None` for a whole game.
    pub fn refusal(&self) -> Option<crate::GameError> {
        (self.dropped > 0).then(|| crate::GameError {
            line: self.line,
            reason: format!(
                "game too long: {} bytes from offset {}, more than the {} MiB a game may hold (refused; the reading goes on at the next game)",
                self.dropped,
                self.offset,
                MAX_GAME_BYTES >> 20
            ),
        })
    }
}

/// Why the reading of an input was given up part way.
#[derive(Debug)]
pub struct GivenUp(pub String);

impl std::fmt::Display for GivenUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GivenUp {}

/// A run of whole games read from the input.
#[derive(Debug, Default)]
pub struct Chunk {
    pub data: Vec<u8>,
    pub games: Vec<GameSpan>,
}

impl Chunk {
    /// The bytes of one game of this chunk.
    pub fn game_bytes(&self, span: &GameSpan) -> &[u8] {
        &self.data[span.start..span.end]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Between,
    Tags,
    Movetext,
}

/// Splits a byte stream into [`Chunk`]s of whole games of roughly `chunk_size` bytes.
pub struct Splitter<R> {
    reader: R,
    chunk_size: usize,
    /// Bytes not yet emitted, starting at stream offset `base`.
    pending: Vec<u8>,
    base: u64,
    /// Scanning position inside `pending`.
    pos: usize,
    state: State,
    line: u64,
    line_start: bool,
    in_brace: bool,
    skip_line: bool,
    /// Start (in `pending`) and line of the game being scanned.
    game_start: Option<(usize, u64)>,
    /// Complete games found in `pending`, not yet emitted.
    games: Vec<GameSpan>,
    eof: bool,
    bom_checked: bool,
    /// The game being scanned passed [`MAX_GAME_BYTES`]: bytes of it dropped so far, and
    /// where it started (offset).
    oversized: Option<(u64, u64)>,
    /// Games found so far (spans made), to name a game given up.
    found: u64,
    /// A read error met after some games: given once the games before it are out.
    failed: Option<io::Error>,
}

impl<R: Read> Splitter<R> {
    pub fn new(reader: R) -> Self {
        // A quarter of a megabyte (some 400 games): even a small file makes several chunks,
        // so every parse thread has work from the start.
        Self::with_chunk_size(reader, 1 << 18)
    }

    pub fn with_chunk_size(reader: R, chunk_size: usize) -> Self {
        Splitter {
            reader,
            chunk_size: chunk_size.max(1),
            pending: Vec::new(),
            base: 0,
            pos: 0,
            state: State::Between,
            line: 1,
            line_start: true,
            in_brace: false,
            skip_line: false,
            game_start: None,
            games: Vec::new(),
            eof: false,
            bom_checked: false,
            oversized: None,
            found: 0,
            failed: None,
        }
    }

    fn close_game(&mut self, data: &[u8], end: usize) {
        if let Some((start, line)) = self.game_start.take() {
            self.found += 1;
            let held = end - start;
            if self.oversized.is_some() || held > MAX_GAME_BYTES {
                let (dropped, offset) = self
                    .oversized
                    .take()
                    .unwrap_or((0, self.base + start as u64));
                self.games.push(GameSpan {
                    start,
                    end: start,
                    offset,
                    line,
                    dropped: dropped + held as u64,
                });
                return;
            }
            let mut end = end;
            while end > start && data[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            self.games
                .push(GameSpan::whole(start, end, self.base + start as u64, line));
        }
    }

    /// Drops the bytes of the game being scanned when it has grown past [`MAX_GAME_BYTES`]
    /// (the games before it must have been emitted: it starts `pending`). An error once it
    /// has gone on past [`MAX_SKIP_BYTES`].
    fn drop_oversized(&mut self) -> io::Result<()> {
        let Some((start, line)) = self.game_start else {
            return Ok(());
        };
        let held = self.pending.len() - start;
        if held <= MAX_GAME_BYTES && self.oversized.is_none() {
            return Ok(());
        }
        let (dropped, offset) = self.oversized.unwrap_or((0, self.base + start as u64));
        let dropped = dropped + held as u64;
        if dropped > MAX_SKIP_BYTES {
            // Nothing more is read.
            self.eof = true;
            self.game_start = None;
            self.oversized = None;
            self.pending = Vec::new();
            self.pos = 0;
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                GivenUp(format!(
                    "game {} (line {line}, offset {offset}) has no end after {} MiB: the text is not PGN (binary data, or a comment or line that never ends); the rest of the input is not read",
                    self.found + 1,
                    MAX_SKIP_BYTES >> 20
                )),
            ));
        }
        self.oversized = Some((dropped, offset));
        self.base += self.pending.len() as u64;
        self.pending.clear();
        self.pos = 0;
        self.game_start = Some((0, line));
        Ok(())
    }

    fn scan(&mut self) {
        let data = std::mem::take(&mut self.pending);
        let mut i = self.pos;
        if !self.bom_checked && data.len() >= 3 {
            self.bom_checked = true;
            if self.base == 0 && data.starts_with(&[0xEF, 0xBB, 0xBF]) && i == 0 {
                i = 3;
            }
        }
        let len = data.len();
        while i < len {
            let b = data[i];
            if b == b'\n' {
                self.line += 1;
                self.line_start = true;
                self.skip_line = false;
                i += 1;
                continue;
            }
            if self.skip_line {
                // Jump to the end of the line.
                i = memchr::memchr(b'\n', &data[i..]).map_or(len, |o| i + o);
                continue;
            }
            if self.in_brace {
                if b == b'}' {
                    self.in_brace = false;
                } else if let Some(off) = memchr::memchr2(b'}', b'\n', &data[i + 1..]) {
                    // Jump to the next interesting byte.
                    i += 1 + off;
                    self.line_start = false;
                    continue;
                } else {
                    i = len;
                    self.line_start = false;
                    continue;
                }
                self.line_start = false;
                i += 1;
                continue;
            }
            let at_line_start = self.line_start;
            self.line_start = false;
            if b == b'%' && at_line_start {
                self.skip_line = true;
                i += 1;
                continue;
            }
            match self.state {
                State::Between => {
                    if b.is_ascii_whitespace() {
                        i += 1;
                        continue;
                    }
                    self.game_start = Some((i, self.line));
                    if b == b'[' {
                        self.state = State::Tags;
                        self.skip_line = true;
                    } else {
                        self.state = State::Movetext;
                        continue; // look at this byte again as movetext
                    }
                }
                State::Tags => {
                    if b == b'[' && at_line_start {
                        self.skip_line = true;
                    } else if !b.is_ascii_whitespace() {
                        self.state = State::Movetext;
                        continue;
                    }
                }
                State::Movetext => {
                    if b == b'[' && at_line_start {
                        self.close_game(&data, i);
                        self.game_start = Some((i, self.line));
                        self.state = State::Tags;
                        self.skip_line = true;
                    } else if b == b'{' {
                        self.in_brace = true;
                    } else if b == b';' {
                        self.skip_line = true;
                    } else {
                        // Only a line end, a comment or a `;` matter until then.
                        i = memchr::memchr3(b'\n', b'{', b';', &data[i + 1..])
                            .map_or(len, |o| i + 1 + o);
                        continue;
                    }
                }
            }
            i += 1;
        }
        self.pos = len;
        self.pending = data;
    }

    fn fill(&mut self) -> io::Result<()> {
        let old = self.pending.len();
        // Reads of a quarter chunk: a chunk ends soon after it reaches its size, rather than
        // one more whole chunk later.
        let want = (self.chunk_size / 4).max(1 << 14);
        self.pending.resize(old + want, 0);
        let mut filled = old;
        while filled < old + want {
            match self.reader.read(&mut self.pending[filled..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.pending.truncate(filled);
                    lone_cr_to_lf(&mut self.pending[old..], true);
                    return Err(e);
                }
            }
        }
        // A lone CR at the end decides only with the byte after it.
        while !self.eof && filled > old && self.pending[filled - 1] == b'\r' {
            let mut one = [0u8; 1];
            match self.reader.read(&mut one) {
                Ok(0) => self.eof = true,
                Ok(_) => {
                    self.pending.truncate(filled);
                    self.pending.push(one[0]);
                    filled += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.pending.truncate(filled);
                    lone_cr_to_lf(&mut self.pending[old..], true);
                    return Err(e);
                }
            }
        }
        self.pending.truncate(filled);
        lone_cr_to_lf(&mut self.pending[old..], self.eof);
        Ok(())
    }

    /// Reads the next chunk of whole games; `None` at the end of the input. After a read
    /// error, the games read whole before it come first, then the error (the game it cut
    /// is dropped).
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        loop {
            if self.failed.is_some() {
                if self.games.is_empty() {
                    return Err(self.failed.take().expect("the error"));
                }
                let data = std::mem::take(&mut self.pending);
                let games = std::mem::take(&mut self.games);
                self.base += data.len() as u64;
                self.pos = 0;
                return Ok(Some(Chunk { data, games }));
            }
            let complete_bytes = self.games.last().map_or(0, |g| g.end);
            let too_long = self
                .game_start
                .is_some_and(|(s, _)| self.pending.len() - s > MAX_GAME_BYTES);
            if (complete_bytes >= self.chunk_size || too_long) && !self.games.is_empty() || self.eof
            {
                if self.eof {
                    let data = std::mem::take(&mut self.pending);
                    self.close_game(&data, data.len());
                    self.pending = data;
                    self.state = State::Between;
                }
                if self.games.is_empty() {
                    return Ok(None);
                }
                // Emit complete games; keep the game in progress.
                let cut = match self.game_start {
                    Some((start, _)) => start,
                    None => self.pending.len(),
                };
                let rest = self.pending.split_off(cut);
                let data = std::mem::replace(&mut self.pending, rest);
                let games = std::mem::take(&mut self.games);
                self.base += cut as u64;
                self.pos -= cut;
                if let Some((start, line)) = self.game_start {
                    self.game_start = Some((start - cut, line));
                }
                return Ok(Some(Chunk { data, games }));
            }
            self.drop_oversized()?;
            if let Err(e) = self.fill() {
                self.scan();
                // The game the error cut is not a game; nothing more is read.
                let cut = self
                    .game_start
                    .take()
                    .map_or(self.pending.len(), |(s, _)| s);
                self.pending.truncate(cut);
                self.pos = cut;
                self.oversized = None;
                self.state = State::Between;
                self.eof = true;
                self.failed = Some(e);
                continue;
            }
            self.scan();
        }
    }
}

/// Replaces each `\r` not followed by `\n` with `\n` (a lone CR ends a line); a `\r` at
/// the very end is replaced only when `at_end` (the input ends there).
fn lone_cr_to_lf(bytes: &mut [u8], at_end: bool) {
    let mut i = 0;
    while let Some(o) = memchr::memchr(b'\r', &bytes[i..]) {
        let at = i + o;
        match bytes.get(at + 1) {
            Some(b'\n') => {}
            Some(_) => bytes[at] = b'\n',
            None if at_end => bytes[at] = b'\n',
            None => {}
        }
        i = at + 1;
    }
}

impl<R: Read> Iterator for Splitter<R> {
    type Item = io::Result<Chunk>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_chunk().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, chunk: usize) -> Vec<(String, u64, u64)> {
        let mut out = Vec::new();
        for c in Splitter::with_chunk_size(text.as_bytes(), chunk) {
            let c = c.unwrap();
            for g in &c.games {
                out.push((
                    String::from_utf8_lossy(c.game_bytes(g)).into_owned(),
                    g.offset,
                    g.line,
                ));
            }
        }
        out
    }

    #[test]
    fn splits_games_with_offsets_and_lines() {
        let text = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n[Site \"{\"]\n\n1. d4 { [x]\n[not a tag] } d5 *\n";
        for chunk in [1, 7, 1 << 20] {
            let games = split(text, chunk);
            assert_eq!(games.len(), 2, "chunk size {chunk}");
            assert_eq!(
                games[0],
                ("[Event \"a\"]\n\n1. e4 e5 1-0".to_string(), 0, 1)
            );
            assert_eq!(games[1].1, 27);
            assert_eq!(games[1].2, 5);
            assert!(games[1].0.ends_with("d5 *"));
        }
    }

    #[test]
    fn empty_line_between_tags_does_not_split() {
        let text = "[Event \"x\"]\n\n[Date \"2017\"]\n\n1. e4 *\n";
        let games = split(text, 3);
        assert_eq!(games.len(), 1);
    }

    #[test]
    fn bom_and_untagged_games() {
        let text = "\u{feff}1. e4 e5 *\n\n[Event \"b\"]\n*\n";
        let games = split(text, 1 << 20);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].0, "1. e4 e5 *");
        assert_eq!(games[0].1, 3);
    }

    #[test]
    fn escape_and_semicolon_lines() {
        let text = "[A \"1\"]\n1. e4 ; [comment\n% [escaped\ne5 *\n[B \"2\"]\n*";
        let games = split(text, 1 << 20);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].2, 5);
    }

    /// Lone CRs end lines as LFs do (the byte becomes `\n`, offsets unchanged), also when
    /// a CR is the last byte of a read; CRLF is left alone.
    #[test]
    fn lone_cr_ends_lines() {
        let lf = "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 *\n";
        let cr = lf.replace('\n', "\r");
        let crlf = lf.replace('\n', "\r\n");
        for chunk in [1, 5, 1 << 20] {
            let games = split(&cr, chunk);
            assert_eq!(games.len(), 2, "chunk {chunk}");
            assert_eq!(games[0], ("[Event \"a\"]\n\n1. e4 e5 *".to_string(), 0, 1));
            assert_eq!((games[1].1, games[1].2), (25, 5));
            let games = split(&crlf, chunk);
            assert_eq!(games.len(), 2);
            assert_eq!((games[1].1, games[1].2), (29, 5));
        }
        // A reader handing one byte at a time: every CR is the last byte of a read.
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let Some((&b, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                out[0] = b;
                self.0 = rest;
                Ok(1)
            }
        }
        let n: usize = Splitter::with_chunk_size(OneByte(cr.as_bytes()), 1)
            .map(|c| c.unwrap().games.len())
            .sum();
        assert_eq!(n, 2);
        let mut lone = b"a\rb\r\nc\r".to_vec();
        lone_cr_to_lf(&mut lone, false);
        assert_eq!(lone, b"a\nb\r\nc\r");
        lone_cr_to_lf(&mut lone, true);
        assert_eq!(lone, b"a\nb\r\nc\n");
    }

    /// A game longer than MAX_GAME_BYTES is given as a span of no bytes saying how long it
    /// was and where it started; the games around it come whole.
    #[test]
    fn a_game_too_long_is_dropped_and_the_next_read() {
        let first = "[Event \"a\"]\n\n1. e4 *\n\n";
        let head = "[Event \"big\"]\n\n1. e4 {";
        let long = MAX_GAME_BYTES + 10;
        let mut text = String::with_capacity(long + 200);
        text.push_str(first);
        text.push_str(head);
        text.push_str(&"x".repeat(long));
        text.push_str("} *\n\n[Event \"c\"]\n\n1. d4 *\n");
        let mut spans = Vec::new();
        for c in Splitter::new(text.as_bytes()) {
            let c = c.unwrap();
            for g in &c.games {
                spans.push((*g, String::from_utf8_lossy(c.game_bytes(g)).into_owned()));
            }
        }
        assert_eq!(spans.len(), 3);
        assert_eq!(spans[0].1, "[Event \"a\"]\n\n1. e4 *");
        let big = spans[1].0;
        // The game's bytes: head, the comment, "} *\n\n" (its trailing blank lines too).
        assert_eq!(big.dropped as usize, head.len() + long + 5);
        assert_eq!((big.offset, big.line), (first.len() as u64, 5));
        assert_eq!(spans[1].1, "");
        let e = big.refusal().unwrap();
        assert_eq!(e.line, 5);
        assert_eq!(
            e.reason,
            format!(
                "game too long: {} bytes from offset 22, more than the 32 MiB a game may hold (refused; the reading goes on at the next game)",
                big.dropped
            )
        );
        assert_eq!(spans[2].1, "[Event \"c\"]\n\n1. d4 *");
        assert_eq!(
            spans[2].0.offset as usize,
            first.len() + big.dropped as usize
        );
        assert_eq!(spans[0].0.refusal(), None);
    }

    /// Text that never ends a game (`/dev/zero`) is given up after MAX_SKIP_BYTES, with the
    /// games before it out first; nothing is held but a read's worth.
    #[test]
    fn endless_text_is_given_up() {
        // Zeros after the first game's text would be part of it: they follow a tag here.
        let good = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"z\"]\n".to_vec();
        let input = std::io::Read::chain(good.as_slice(), std::io::repeat(0));
        let mut splitter = Splitter::new(input);
        let first = splitter.next_chunk().unwrap().unwrap();
        assert_eq!(first.games.len(), 1);
        let err = splitter.next_chunk().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "game 2 (line 5, offset 22) has no end after 256 MiB: the text is not PGN (binary data, or a comment or line that never ends); the rest of the input is not read"
        );
        assert!(splitter.pending.capacity() <= MAX_GAME_BYTES + (1 << 20));
        assert!(splitter.next_chunk().unwrap().is_none());
    }

    /// A read error (a truncated compressed file) comes after the games read whole before
    /// it; the game it cut is dropped.
    #[test]
    fn a_read_error_comes_after_the_whole_games() {
        struct Failing<'a>(&'a [u8]);
        impl Read for Failing<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::other("incomplete frame"));
                }
                let n = out.len().min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c";
        let mut splitter = Splitter::new(Failing(text));
        let chunk = splitter.next_chunk().unwrap().unwrap();
        assert_eq!(chunk.games.len(), 2);
        assert_eq!(
            chunk.game_bytes(&chunk.games[1]),
            b"[Event \"b\"]\n\n1. d4 *"
        );
        assert_eq!(
            splitter.next_chunk().unwrap_err().to_string(),
            "incomplete frame"
        );
        assert!(splitter.next_chunk().unwrap().is_none());
    }
}
