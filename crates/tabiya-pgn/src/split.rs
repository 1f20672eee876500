//! Cutting a PGN byte stream into games without parsing them, so that games can be parsed
//! on several threads and each game's place in its file (byte offset, line) is known.
//!
//! The rules follow the PGN grammar as `pgn-reader` applies it: a game starts at its first
//! tag line (or its first movetext token when it has no tags) and ends where a line starting
//! with `[` follows movetext, outside `{...}` comments, `;` comments and `%` escape lines.
//! Empty lines between tag lines (ChessBase writes them) do not end a game.

use std::io::{self, Read};

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
}

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
        }
    }

    fn close_game(&mut self, data: &[u8], end: usize) {
        if let Some((start, line)) = self.game_start.take() {
            let mut end = end;
            while end > start && data[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            self.games.push(GameSpan {
                start,
                end,
                offset: self.base + start as u64,
                line,
            });
        }
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
                    return Err(e);
                }
            }
        }
        self.pending.truncate(filled);
        Ok(())
    }

    /// Reads the next chunk of whole games; `None` at the end of the input.
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        loop {
            let complete_bytes = self.games.last().map_or(0, |g| g.end);
            if (complete_bytes >= self.chunk_size && !self.games.is_empty()) || self.eof {
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
            self.fill()?;
            self.scan();
        }
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
}
