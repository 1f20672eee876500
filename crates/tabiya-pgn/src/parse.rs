//! Parsing one game's PGN text into a [`Game`], with every move checked.
//!
//! Tokenising is done by `pgn-reader`; this module checks moves against the position as it
//! goes (main line and variations), accepts UCI moves where SAN is expected (as python-chess
//! does), starts games from their `FEN` tag (Chess960 included) and refuses other variants.

pub use crate::game_error::GameError;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::rc::Rc;

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::bounds::{MAX_TAG_LINE_BYTES, MAX_VARIATION_DEPTH};
use crate::model::{Game, Node, NullSegment, Variation};
use crate::san::{decode_text, san_to_move, start_position};

/// Refuses a game whose tag section has a line longer than [`MAX_TAG_LINE_BYTES`].
pub fn refuse_long_tags(bytes: &[u8], first_line: u64) -> Result<(), GameError> {
    let mut at = 0;
    let mut line = first_line;
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |o| at + o);
        let text = &bytes[at..end];
        let first = text.iter().find(|b| !b.is_ascii_whitespace());
        match first {
            None => {}
            Some(b'[') if text.len() > MAX_TAG_LINE_BYTES => {
                return Err(GameError {
                    line,
                    reason: format!(
                        "tag line of {} bytes, longer than the {} KiB a tag may hold; game refused",
                        text.len(),
                        MAX_TAG_LINE_BYTES >> 10
                    ),
                });
            }
            Some(b'[') => {}
            Some(_) => break, // the movetext
        }
        at = end + 1;
        line += 1;
    }
    Ok(())
}

/// How the reason of a [`GameError`] starts for text that is not a game at all: no tag
/// pair and no move (random bytes, a comment alone, a stray result).
pub const NOT_A_GAME: &str = "not a PGN game";

impl GameError {
    /// True when the text was not a game at all (see [`NOT_A_GAME`]), rather than a game
    /// with a fault.
    pub fn is_not_a_game(&self) -> bool {
        self.reason.starts_with(NOT_A_GAME)
    }
}

/// Refuses a game holding a NUL byte, which PGN text never holds (a block of zeros left by
/// a crash, a binary file): the error names the byte's line and its place in the game.
pub fn refuse_nul(bytes: &[u8], first_line: u64) -> Result<(), GameError> {
    match memchr::memchr(0, bytes) {
        None => Ok(()),
        Some(at) => {
            let line = first_line + memchr::memchr_iter(b'\n', &bytes[..at]).count() as u64;
            Err(GameError {
                line,
                reason: format!(
                    "NUL byte at byte {at} of the game: not PGN text (a damaged or binary file?); game refused"
                ),
            })
        }
    }
}

struct LineCtx {
    nodes: Vec<Node>,
    comments: Vec<String>,
    /// Position after the last node.
    pos: Chess,
    /// Position before the last node (where a variation of it starts).
    prev: Chess,
    /// Set when a move of this variation was illegal: the rest of it is ignored.
    dead: bool,
}

struct Builder {
    warnings: Vec<String>,
    stack: Vec<LineCtx>,
    termination: Option<Outcome>,
    /// Number of main-line moves read, for locating errors.
    main_ply: usize,
    /// Pieces of a comment too long for the reader's buffer.
    partial: String,
    /// The main line's null moves: where each is (its index among the main line's nodes)
    /// and its NAGs and comments.
    nulls: Vec<(usize, NullSegment)>,
    /// The last token of the main line was a null move (its NAGs and comments follow).
    after_null: bool,
    /// Tag pairs read and moves played (any line): none of either, and the text is not a
    /// game.
    tags_seen: usize,
    moves_seen: usize,
}

type Tags = Vec<(String, String)>;

/// What a game's movetext gave: the main line up to its first null move, the comments before
/// it, and the null moves with what follows each.
struct Parsed {
    movetext: Movetext,
    moves: Vec<Node>,
    comments: Vec<String>,
    after_null: Vec<NullSegment>,
}

struct Movetext {
    tags: Tags,
    start: Chess,
    mode: CastlingMode,
}

enum Failure {
    /// Error before movetext (tags), no position in the movetext.
    Tags(String),
    /// Error at a main-line move with this index.
    Move { ply: usize, reason: String },
}

impl Builder {
    fn new() -> Self {
        Builder {
            warnings: Vec::new(),
            stack: Vec::new(),
            termination: None,
            main_ply: 0,
            partial: String::new(),
            nulls: Vec::new(),
            after_null: false,
            tags_seen: 0,
            moves_seen: 0,
        }
    }
}

impl Visitor for Builder {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Result<Parsed, Failure>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::with_capacity(16))
    }

    fn tag(
        &mut self,
        tags: &mut Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        // A tag pair: a name that is a PGN symbol (letters, digits, `_+#=:-`).
        if crate::bounds::is_tag_name(name) {
            self.tags_seen += 1;
        }
        let name = decode_text(name).into_owned();
        let value = decode_text(&value.decode()).into_owned();
        // The line as it will be written (UTF-8: a Latin-1 file's line grows) within the
        // bound, so that what is stored is read back when written out.
        let bytes = crate::bounds::tag_line_bytes(&name, &value);
        if bytes > MAX_TAG_LINE_BYTES {
            return ControlFlow::Break(Err(Failure::Tags(format!(
                "tag {name}: {bytes} bytes as Tabiya writes it (UTF-8, escaped), longer than the {} KiB a tag line may hold; game refused",
                MAX_TAG_LINE_BYTES >> 10
            ))));
        }
        tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Self::Output, Movetext> {
        let (start, mode) = match start_position(&tags) {
            Ok(s) => s,
            Err(e) => return ControlFlow::Break(Err(Failure::Tags(e))),
        };
        self.stack.push(LineCtx {
            nodes: Vec::with_capacity(96),
            comments: Vec::new(),
            pos: start.clone(),
            prev: start.clone(),
            dead: false,
        });
        ControlFlow::Continue(Movetext { tags, start, mode })
    }

    fn san(&mut self, _m: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        let depth = self.stack.len();
        let ctx = self.stack.last_mut().expect("line context");
        if ctx.dead {
            return ControlFlow::Continue(());
        }
        if depth == 1 {
            self.after_null = false;
            if san_plus.san == shakmaty::san::San::Null {
                // The side to move passes: kept, and the main line goes on from the position
                // with the other side to move (not a position of chess: never indexed).
                return match crate::model::play_null(&ctx.pos) {
                    Some(swapped) => {
                        self.nulls.push((ctx.nodes.len(), NullSegment::default()));
                        ctx.prev = ctx.pos.clone();
                        ctx.pos = swapped;
                        self.after_null = true;
                        self.main_ply += 1;
                        self.moves_seen += 1;
                        ControlFlow::Continue(())
                    }
                    None => {
                        let fen = Fen::from_position(&ctx.pos, EnPassantMode::Legal);
                        ControlFlow::Break(Err(Failure::Move {
                            ply: self.main_ply,
                            reason: format!(
                                "null move (Z0 or --) by a side in check, in position {fen}"
                            ),
                        }))
                    }
                };
            }
        }
        match san_to_move(&ctx.pos, san_plus.san) {
            Ok(mv) => {
                ctx.prev = ctx.pos.clone();
                ctx.pos.play_unchecked(mv);
                ctx.nodes.push(Node::new(mv));
                self.moves_seen += 1;
                if depth == 1 {
                    self.main_ply += 1;
                }
                ControlFlow::Continue(())
            }
            Err(reason) => {
                if depth == 1 {
                    let fen = Fen::from_position(&ctx.pos, EnPassantMode::Legal);
                    ControlFlow::Break(Err(Failure::Move {
                        ply: self.main_ply,
                        reason: format!("{reason} in position {fen}"),
                    }))
                } else {
                    ctx.dead = true;
                    let n = ctx.nodes.len();
                    self.warnings
                        .push(format!("variation cut at its move {}: {reason}", n + 1));
                    ControlFlow::Continue(())
                }
            }
        }
    }

    fn nag(&mut self, _m: &mut Movetext, nag: Nag) -> ControlFlow<Self::Output> {
        if self.after_null && self.stack.len() == 1 {
            if let Some((_, null)) = self.nulls.last_mut() {
                null.nags.push(nag.0);
            }
            return ControlFlow::Continue(());
        }
        let ctx = self.stack.last_mut().expect("line context");
        if ctx.dead {
            return ControlFlow::Continue(());
        }
        match ctx.nodes.last_mut() {
            Some(node) => node.nags.push(nag.0),
            None => self
                .warnings
                .push(format!("NAG ${} before any move dropped", nag.0)),
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _m: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        let mut text = std::mem::take(&mut self.partial);
        text.push_str(&decode_text(comment.as_bytes()));
        let mut text = text.trim().to_string();
        if text.contains('\r') {
            // Line ends inside a comment read as `\n`, whatever the file's.
            text = text.replace("\r\n", "\n").replace('\r', "\n");
        }
        if self.after_null && self.stack.len() == 1 {
            if let Some((_, null)) = self.nulls.last_mut() {
                null.comments.push(text);
            }
            return ControlFlow::Continue(());
        }
        let ctx = self.stack.last_mut().expect("line context");
        if ctx.dead {
            return ControlFlow::Continue(());
        }
        match ctx.nodes.last_mut() {
            Some(node) => node.comments.push(text),
            None => ctx.comments.push(text),
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        _m: &mut Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        // A comment longer than the reader's buffer arrives in pieces; `comment()` gets the last.
        self.partial.push_str(&decode_text(comment.as_bytes()));
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _m: &mut Movetext) -> ControlFlow<Self::Output, Skip> {
        if self.after_null && self.stack.len() == 1 {
            self.warnings
                .push("variation of a null move dropped".to_string());
            return ControlFlow::Continue(Skip(true));
        }
        if self.stack.len() > MAX_VARIATION_DEPTH {
            self.warnings.push(format!(
                "variation nested more than {MAX_VARIATION_DEPTH} deep dropped"
            ));
            return ControlFlow::Continue(Skip(true));
        }
        let parent = self.stack.last().expect("line context");
        if parent.dead || parent.nodes.is_empty() {
            if !parent.dead {
                self.warnings
                    .push("variation before any move dropped".to_string());
            }
            return ControlFlow::Continue(Skip(true));
        }
        let start = parent.prev.clone();
        self.stack.push(LineCtx {
            nodes: Vec::new(),
            comments: Vec::new(),
            pos: start.clone(),
            prev: start,
            dead: false,
        });
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _m: &mut Movetext) -> ControlFlow<Self::Output> {
        if self.stack.len() <= 1 {
            // Unmatched ')': ignore, as other readers do.
            return ControlFlow::Continue(());
        }
        let ctx = self.stack.pop().expect("variation context");
        let parent = self.stack.last_mut().expect("parent context");
        if ctx.nodes.is_empty() && ctx.comments.is_empty() {
            return ControlFlow::Continue(());
        }
        let node = parent.nodes.last_mut().expect("variation follows a move");
        node.variations.push(Variation {
            comments: ctx.comments,
            moves: ctx.nodes,
        });
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _m: &mut Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        if self.stack.len() == 1 {
            self.termination = Some(outcome);
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> Self::Output {
        // Close variations left open at the end of the game.
        while self.stack.len() > 1 {
            self.warnings
                .push("unterminated variation closed at the end of the game".to_string());
            let _ = self.end_variation(&mut Movetext {
                tags: Vec::new(),
                start: Chess::default(),
                mode: CastlingMode::Standard,
            });
        }
        let main = self.stack.pop().expect("main line");
        let mut moves = main.nodes;
        // Cut the main line at its null moves, the last first.
        let mut after_null = Vec::with_capacity(self.nulls.len());
        for (at, mut null) in std::mem::take(&mut self.nulls).into_iter().rev() {
            null.moves = moves.split_off(at.min(moves.len()));
            after_null.push(null);
        }
        after_null.reverse();
        Ok(Parsed {
            movetext,
            moves,
            comments: main.comments,
            after_null,
        })
    }
}

/// pgn-reader over `r`, holding tag lines up to the bound the direct path keeps too
/// ([`MAX_TAG_LINE_BYTES`]; pgn-reader's own default is 255 bytes, and a longer line read
/// or refused as "unterminated" by where it fell in its buffer).
fn pgn_reader<R: std::io::Read>(r: R) -> Reader<R> {
    Reader::build(r)
        .set_supported_tag_line_length(MAX_TAG_LINE_BYTES)
        .finish()
}

/// Parses one game. `first_line` is the line of the game's first byte in its input, used in
/// error messages.
pub fn parse_game(bytes: &[u8], first_line: u64) -> Result<Game, GameError> {
    let mut reader = pgn_reader(bytes);
    parse_with(&mut reader, bytes, first_line)
}

/// The bytes of the game being parsed by a [`GameParser`].
#[derive(Clone, Default)]
struct Feed(Rc<RefCell<(Vec<u8>, usize)>>);

impl std::io::Read for Feed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let mut s = self.0.borrow_mut();
        let (data, pos) = &mut *s;
        let n = out.len().min(data.len() - *pos);
        out[..n].copy_from_slice(&data[*pos..*pos + n]);
        *pos += n;
        Ok(n)
    }
}

/// Parses games one after the other with one tokenizer, whose buffer is allocated once
/// (`parse_game` allocates and zeroes it for every game). Not `Send`: one per thread.
pub struct GameParser {
    feed: Feed,
    reader: Reader<Feed>,
}

impl Default for GameParser {
    fn default() -> Self {
        let feed = Feed::default();
        GameParser {
            reader: pgn_reader(feed.clone()),
            feed,
        }
    }
}

impl GameParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses one game (as [`parse_game`]). Plain games (tags, moves, move numbers, a
    /// result) take a direct path over the bytes; anything else goes through the tokenizer.
    pub fn parse(&mut self, bytes: &[u8], first_line: u64) -> Result<Game, GameError> {
        if let Some(game) = crate::fast::parse_plain(bytes) {
            return Ok(game);
        }
        self.parse_full(bytes, first_line)
    }

    /// [`GameParser::parse`] without trying the direct path first (for a caller that tried
    /// [`crate::fast::visit_plain`] already).
    pub fn parse_full(&mut self, bytes: &[u8], first_line: u64) -> Result<Game, GameError> {
        {
            let mut s = self.feed.0.borrow_mut();
            s.0.clear();
            s.0.extend_from_slice(bytes);
            s.1 = 0;
        }
        let result = parse_with(&mut self.reader, bytes, first_line);
        // The tokenizer must be empty for the next game; if bytes are left (text the
        // tokenizer took for a second game), start afresh.
        if !matches!(self.reader.has_more(), Ok(false)) {
            *self = GameParser::default();
        }
        result
    }
}

fn parse_with<R: std::io::Read>(
    reader: &mut Reader<R>,
    bytes: &[u8],
    first_line: u64,
) -> Result<Game, GameError> {
    refuse_long_tags(bytes, first_line)?;
    let not_a_game = || GameError {
        line: first_line,
        reason: format!(
            "{NOT_A_GAME}: {} bytes of text without a tag pair or a move",
            bytes.len()
        ),
    };
    if memchr::memchr(0, bytes).is_some() {
        // Text with NUL bytes: a game refused, or no game at all (judged with the NULs
        // read as spaces).
        let spaced: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == 0 { b' ' } else { b })
            .collect();
        let mut builder = Builder::new();
        let _ = pgn_reader(&spaced[..]).read_game(&mut builder);
        if builder.tags_seen == 0 && builder.moves_seen == 0 {
            return Err(not_a_game());
        }
        refuse_nul(bytes, first_line)?;
    }
    let mut builder = Builder::new();
    let read = reader.read_game(&mut builder);
    if builder.tags_seen == 0 && builder.moves_seen == 0 {
        return Err(not_a_game());
    }
    let result = match read {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Err(GameError {
                line: first_line,
                reason: "no game".to_string(),
            });
        }
        Err(e) => {
            return Err(GameError {
                line: first_line,
                reason: format!("malformed PGN: {e}"),
            });
        }
    };
    match result {
        Ok(Parsed {
            movetext,
            moves,
            comments,
            after_null,
        }) => Ok(Game {
            tags: movetext.tags,
            start: movetext.start,
            castling_mode: movetext.mode,
            comments,
            moves,
            after_null,
            termination: builder.termination,
            warnings: builder.warnings,
        }),
        Err(Failure::Tags(reason)) => Err(GameError {
            line: first_line,
            reason,
        }),
        Err(Failure::Move { ply, reason }) => {
            let (line, token) = locate_main_line_move(bytes, ply);
            let number = ply / 2 + 1;
            let dots = if ply % 2 == 0 { "." } else { "..." };
            let token = token.map(|t| format!(" {t}")).unwrap_or_default();
            Err(GameError {
                line: first_line + line,
                reason: format!("move {number}{dots}{token} (ply {}): {reason}", ply + 1),
            })
        }
    }
}

/// Reads only the tag section of a game: every tag in file order, names and values decoded
/// as [`parse_game`] decodes them (so `Game::tags` of the game, when it parses). The movetext
/// is not read, so a game whose moves would not parse still gives its tags. `None` when the
/// bytes hold no game.
pub fn read_tags(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    struct TagsOnly;

    impl Visitor for TagsOnly {
        type Tags = Tags;
        type Movetext = ();
        type Output = Tags;

        fn begin_tags(&mut self) -> ControlFlow<Tags, Tags> {
            ControlFlow::Continue(Vec::with_capacity(16))
        }

        fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Tags> {
            tags.push((
                decode_text(name).into_owned(),
                decode_text(&value.decode()).into_owned(),
            ));
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Tags, ()> {
            // Stop here: the movetext is skipped unread.
            ControlFlow::Break(tags)
        }

        fn end_game(&mut self, _: ()) -> Tags {
            Vec::new()
        }
    }

    pgn_reader(bytes).read_game(&mut TagsOnly).ok().flatten()
}

/// Finds the `ply`-th main-line move token of a game's text: its line (0-based, relative to
/// the game's first line) and the token. Only used to point at errors.
fn locate_main_line_move(bytes: &[u8], ply: usize) -> (u64, Option<String>) {
    let mut line = 0u64;
    let mut i = 0;
    let mut depth = 0usize;
    let mut count = 0usize;
    let mut line_start = true;
    let mut in_tags = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if line_start && (b == b'[' && in_tags || b == b'%') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        match b {
            b' ' | b'\t' | b'\r' => i += 1,
            b'{' => {
                in_tags = false;
                while i < bytes.len() && bytes[i] != b'}' {
                    if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => {
                in_tags = false;
                let start = i;
                while i < bytes.len() && !b" \t\r\n{}();".contains(&bytes[i]) {
                    i += 1;
                }
                if i == start {
                    // A stray `}` (no comment open): stepped over, not read as a token.
                    i += 1;
                    continue;
                }
                let token = &bytes[start..i];
                let token = trim_move_number(token);
                let is_move = !token.is_empty()
                    && !token.starts_with(b"$")
                    && !matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
                    && !token.iter().all(|c| b"!?".contains(c));
                if is_move && depth == 0 {
                    if count == ply {
                        return (line, Some(String::from_utf8_lossy(token).into_owned()));
                    }
                    count += 1;
                }
            }
        }
    }
    (0, None)
}

fn trim_move_number(token: &[u8]) -> &[u8] {
    let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && token.get(digits) == Some(&b'.') {
        let rest = &token[digits..];
        let dots = rest.iter().take_while(|&&c| c == b'.').count();
        &rest[dots..]
    } else {
        token
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;
    use shakmaty::san::San;

    use super::*;
    use crate::san::fast_san;

    /// Found by fuzzing (`fuzz/`, target `pgn_parse`): a stray `}` (no comment open) before
    /// an illegal move made the search for that move's line loop for ever.
    #[test]
    fn stray_closing_brace_before_an_illegal_move() {
        let e = parse_game(b"1.e4 e5 2.Nf3 } 3.Kh1", 1).unwrap_err();
        // Black's second move (ply 4): the king on e8 cannot reach h1.
        assert!(e.reason.starts_with("move 2... Kh1 (ply 4): "), "{e:?}");
        assert_eq!(e.line, 1);
    }

    #[test]
    fn parses_tags_moves_variations_comments_nags() {
        let pgn = b"[Event \"T\"]\n[White \"A, B\"]\n[Result \"1-0\"]\n\n{start} 1. e4 $1 {good} e5 (1... c5 {sic} 2. Nf3 (2. c3) d6) 2. Nf3 !? 1-0";
        let g = parse_game(pgn, 1).unwrap();
        assert_eq!(g.tag("White"), Some("A, B"));
        assert_eq!(g.comments, vec!["start"]);
        assert_eq!(g.moves.len(), 3);
        assert_eq!(g.moves[0].nags, vec![1]);
        assert_eq!(g.moves[0].comments, vec!["good"]);
        let var = &g.moves[1].variations[0];
        assert_eq!(var.moves.len(), 3);
        assert_eq!(var.moves[0].comments, vec!["sic"]);
        assert_eq!(var.moves[1].variations[0].moves.len(), 1);
        assert_eq!(g.moves[2].nags, vec![5]);
        assert_eq!(
            g.outcome(),
            Some(shakmaty::KnownOutcome::Decisive {
                winner: Color::White
            })
        );
    }

    #[test]
    fn illegal_main_line_move_is_located() {
        let pgn = b"[Event \"T\"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Bb5 Ke6 4. Qh5 *";
        let err = parse_game(pgn, 10).unwrap_err();
        assert_eq!(err.line, 14);
        assert!(err.reason.contains("move 3... Ke6"), "{}", err.reason);
        assert!(err.reason.contains("illegal"), "{}", err.reason);
    }

    #[test]
    fn null_moves_are_kept_with_what_follows() {
        // 1.e4 e5 2.Nf3, then Black passes (Z0) with a comment and a NAG, White plays
        // 3.Bc4 (a variation 3.Bb5 beside it), Black passes again (--), White plays 4.Nc3.
        let pgn = "1. e4 e5 2. Nf3 Z0 $6 {pass} 3. Bc4 (3. Bb5) -- 4. Nc3 *";
        let g = parse_game(pgn.as_bytes(), 1).unwrap();
        assert_eq!(g.moves.len(), 3, "the main line up to the first null move");
        assert_eq!(g.after_null.len(), 2);
        assert_eq!(g.after_null[0].nags, [6]);
        assert_eq!(g.after_null[0].comments, ["pass"]);
        assert_eq!(g.after_null[0].moves.len(), 1);
        assert_eq!(g.after_null[0].moves[0].variations.len(), 1);
        assert_eq!(g.after_null[1].moves.len(), 1);
        assert!(g.has_annotations());
        // Written back and read again: the same game (python-chess writes `--` too).
        let text = crate::write::game_to_string(&g);
        assert!(
            text.contains("2. Nf3 -- $6 {pass} 3. Bc4 (3. Bb5) 3... -- 4. Nc3 *"),
            "{text}"
        );
        let again = parse_game(text.as_bytes(), 1).unwrap();
        assert_eq!((again.moves, again.after_null), (g.moves, g.after_null));
    }

    #[test]
    fn a_null_move_in_check_is_refused() {
        // 1.e4 f5 2.Qh5+ and Black, in check, passes.
        let err = parse_game(b"1. e4 f5 2. Qh5+ -- *", 1).unwrap_err();
        assert!(
            err.reason
                .contains("null move (Z0 or --) by a side in check"),
            "{err}"
        );
        assert!(err.reason.contains("move 2..."), "{err}");
    }

    #[test]
    fn illegal_variation_move_is_cut_with_warning() {
        let pgn = b"1. e4 (1. d4 Ke7 2. c4) e5 *";
        let g = parse_game(pgn, 1).unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].variations[0].moves.len(), 1);
        assert_eq!(g.warnings.len(), 1);
    }

    /// Every move of real games: the fast path agrees with shakmaty's SAN resolution (and
    /// steps aside for ambiguous or impossible tokens).
    #[test]
    fn fast_san_agrees_with_shakmaty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pgn/");
        let (mut fast, mut total) = (0u64, 0u64);
        for f in [
            "twic/twic0920.pgn",
            "pgnmentor/Tal.pgn",
            "pgnmentor/Carlsen.pgn",
        ] {
            let text = std::fs::read(format!("{dir}{f}")).expect("shared data");
            for item in crate::read_all(text.as_slice()) {
                let Ok(g) = item.expect("read").1 else {
                    continue;
                };
                let mut pos = g.start.clone();
                for n in &g.moves {
                    // Every legal move's SAN, plus SAN with the origin file spelled out.
                    for m in pos.legal_moves() {
                        let san = San::from_move(&pos, m);
                        total += 1;
                        if let Some(f) = fast_san(&pos, &san) {
                            fast += 1;
                            assert_eq!(f, m, "{san}");
                        }
                        assert_eq!(san_to_move(&pos, san).unwrap(), m);
                        // Without disambiguation: when the fast path answers, it answers right.
                        if let San::Normal {
                            role,
                            capture,
                            to,
                            promotion,
                            ..
                        } = san
                        {
                            let loose = San::Normal {
                                role,
                                file: None,
                                rank: None,
                                capture,
                                to,
                                promotion,
                            };
                            if let Some(f) = fast_san(&pos, &loose) {
                                assert_eq!(Ok(f), loose.to_move(&pos), "{loose}");
                            }
                        }
                    }
                    pos.play_unchecked(n.mv);
                }
            }
        }
        assert!(
            fast * 10 > total * 8,
            "fast path taken for {fast} of {total}"
        );
    }

    #[test]
    fn one_parser_for_many_games_equals_fresh_parsers() {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn"
        ))
        .unwrap();
        let mut extra = text.clone();
        // A broken game and trailing garbage in between.
        extra.extend_from_slice(b"\n\n[Event \"bad\"]\n\n1. e4 Ke7?? 2. Qh5 *\n\n");
        let mut parser = GameParser::new();
        for chunk in crate::split::Splitter::with_chunk_size(extra.as_slice(), 1 << 10) {
            let chunk = chunk.unwrap();
            for span in &chunk.games {
                let bytes = chunk.game_bytes(span);
                let a = parser.parse(bytes, span.line);
                let b = parse_game(bytes, span.line);
                match (a, b) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.tags, b.tags);
                        assert_eq!(a.moves, b.moves);
                    }
                    (Err(a), Err(b)) => assert_eq!(a, b),
                    (a, b) => panic!("{:?} vs {:?}", a.map(|g| g.tags), b.map(|g| g.tags)),
                }
            }
        }
        // Text the tokenizer reads as two games does not leak into the next one.
        assert!(parser.parse(b"1. e4 e5 *\n\n1. d4 *", 1).is_ok());
        assert_eq!(parser.parse(b"1. c4 *", 1).unwrap().moves.len(), 1);
    }

    #[test]
    fn uci_moves_are_accepted() {
        let g = parse_game(b"g1f3 c7c5 e2e4 *", 1).unwrap();
        assert_eq!(g.moves.len(), 3);
    }

    #[test]
    fn variants_are_refused_chess960_kept() {
        let err = parse_game(b"[Variant \"Antichess\"]\n\n1. e3 *", 5).unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.reason.contains("unsupported variant"));
        let g = parse_game(
            b"[Variant \"fischerandom\"]\n[FEN \"nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1\"]\n\n1. d4 d5 *",
            1,
        )
        .unwrap();
        assert_eq!(g.castling_mode, CastlingMode::Chess960);
        assert_eq!(g.moves.len(), 2);
    }

    /// The tags-only reader gives the tags `parse_game` keeps, also of games whose moves
    /// do not parse.
    #[test]
    fn tags_are_read_without_the_moves() {
        let text = b"[Event \"a \\\" b\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[White \"J\xe9r\xf4me\"]\n\n1. e4 e4 *";
        assert!(parse_game(text, 1).is_err());
        let tags = read_tags(text).unwrap();
        assert_eq!(
            tags,
            [
                ("Event".to_string(), "a \" b".to_string()),
                (
                    "FEN".to_string(),
                    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".to_string()
                ),
                ("White".to_string(), "J\u{e9}r\u{f4}me".to_string()),
            ]
        );
        let good = b"[Event \"a \\\" b\"]\n[White \"J\xe9r\xf4me\"]\n\n1. e4 e5 *";
        assert_eq!(read_tags(good).unwrap(), parse_game(good, 1).unwrap().tags);
        assert_eq!(read_tags(b"  \n"), None);
    }

    #[test]
    fn latin1_tags_are_decoded() {
        let g = parse_game(b"[White \"J\xe9r\xf4me\"]\n\n*", 1).unwrap();
        assert_eq!(g.tag("White"), Some("J\u{e9}r\u{f4}me"));
    }
}
