//! A direct path for plain games: tag pairs, then a main line of SAN moves with move numbers
//! and a result — what large collections mostly hold. It reads the game's bytes in place
//! (no tokenizer buffer) and gives up, returning `None`, at anything else (comments,
//! variations, NAGs, escapes in tags, `%` lines, an illegal move...): the full parser then
//! reads the game, with its error messages. Both give the same [`Game`] for every game the
//! direct path accepts (tested on all the shared PGN).

use std::borrow::Cow;

use pgn_reader::Outcome;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Move, Position};

use crate::model::{Game, Node};
use crate::san::{decode_text, san_to_move, start_position_from};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// What the direct path reports while it reads a plain game, in order: every tag, the start
/// position, then each move twice (before and after it is played). When [`visit_plain`]
/// returns `None` the game was not plain after all and part of it may have been reported:
/// the visitor's caller discards what it gathered.
pub trait PlainVisitor {
    fn tag(&mut self, name: &str, value: &str);
    fn start(&mut self, pos: &Chess, castling_mode: CastlingMode);
    /// `m`, legal, is about to be played from `pos`.
    fn before_move(&mut self, pos: &Chess, m: Move);
    /// `pos` is the position after `m`.
    fn after_move(&mut self, pos: &Chess, m: Move);
}

/// The end of a plain game.
pub struct PlainEnd {
    /// The termination marker (a plain game always has one, or ends without any).
    pub termination: Option<Outcome>,
    /// The position after the last move.
    pub last: Chess,
    pub plies: usize,
}

/// What the tag section tells the direct path.
struct TagSection<'a> {
    /// Where the movetext starts.
    movetext: usize,
    /// The first `FEN` and `Variant` values.
    fen: Option<Cow<'a, str>>,
    variant: Option<Cow<'a, str>>,
    /// Tags read.
    count: usize,
}

/// Reads the tag section: `[Name "value"]` lines (empty lines between them allowed),
/// reporting each tag.
fn tags<'a>(bytes: &'a [u8], v: &mut impl PlainVisitor) -> Option<TagSection<'a>> {
    let mut i = 0;
    let (mut fen, mut variant) = (None, None);
    let mut count = 0;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        i = 3;
    }
    loop {
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] != b'[' {
            return Some(TagSection {
                movetext: i,
                fen,
                variant,
                count,
            });
        }
        // One tag line.
        let line_end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |o| i + o);
        if line_end - i > crate::bounds::MAX_TAG_LINE_BYTES {
            return None; // the full parser refuses it, saying why
        }
        let line = &bytes[i + 1..line_end];
        let name_end = line
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))?;
        if name_end == 0 || !line[0].is_ascii_alphanumeric() {
            // No name, or one that is not a PGN symbol (`_x`): the full parser does not
            // count such a line as a tag pair, so it decides whether this is a game.
            return None;
        }
        let rest = &line[name_end..];
        let q1 = rest.iter().position(|&b| b == b'"')?;
        // The tokenizer takes the name up to the quote less one space: anything else
        // between them would be part of its name.
        if !matches!(rest[..q1], [] | [b' ']) {
            return None;
        }
        let value_start = q1 + 1;
        let q2 = value_start
            + rest[value_start..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')?;
        if rest[q2] != b'"' {
            return None; // an escape: the tokenizer decodes those
        }
        let after = &rest[q2 + 1..];
        let close = after.iter().position(|&b| !(b == b' ' || b == b'\t'))?;
        if after[close] != b']' || !after[close + 1..].iter().all(|&b| is_space(b)) {
            return None;
        }
        let name = decode_text(&line[..name_end]);
        let value = decode_text(&rest[value_start..q2]);
        if crate::bounds::tag_line_bytes(&name, &value) > crate::bounds::MAX_TAG_LINE_BYTES {
            return None; // longer as written (Latin-1 made UTF-8): the full parser refuses it
        }
        v.tag(&name, &value);
        count += 1;
        match &*name {
            "FEN" if fen.is_none() => fen = Some(value),
            "Variant" if variant.is_none() => variant = Some(value),
            _ => {}
        }
        i = line_end;
    }
}

/// The direct path over a game, reporting it to `v` as it goes: `Some` for a plain game,
/// `None` to leave it to the full parser.
pub fn visit_plain(bytes: &[u8], v: &mut impl PlainVisitor) -> Option<PlainEnd> {
    if memchr::memchr(0, bytes).is_some() {
        return None; // the full parser refuses it, saying where
    }
    let section = tags(bytes, v)?;
    if section.count == 0 && section.movetext >= bytes.len() {
        return None; // no game at all: the full parser says so
    }
    let mut i = section.movetext;
    let (mut pos, castling_mode) =
        start_position_from(section.fen.as_deref(), section.variant.as_deref()).ok()?;
    v.start(&pos, castling_mode);
    let mut termination = None;
    let mut plies = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        if is_space(b) {
            if b == b'\n' && matches!(bytes[i + 1..], [b'\n', ..] | [b'\r', b'\n', ..]) {
                // The tokenizer ends the movetext at an empty line: anything after it is
                // not this game's, which only the full parser says as it does.
                if bytes[i..].iter().all(|&c| is_space(c)) {
                    break;
                }
                return None;
            }
            i += 1;
            continue;
        }
        let tok_end = bytes[i..]
            .iter()
            .position(|&c| is_space(c))
            .map_or(n, |o| i + o);
        let tok = &bytes[i..tok_end];
        if termination.is_some() {
            return None; // text after the result
        }
        match b {
            b'0'..=b'9' => {
                // A move number ("12." or "12...", maybe glued to the move) or a result.
                match tok {
                    b"1-0" => {
                        termination = Some(Outcome::Known(KnownOutcome::Decisive {
                            winner: Color::White,
                        }))
                    }
                    b"0-1" => {
                        termination = Some(Outcome::Known(KnownOutcome::Decisive {
                            winner: Color::Black,
                        }))
                    }
                    b"1/2-1/2" => termination = Some(Outcome::Known(KnownOutcome::Draw)),
                    _ => {
                        let digits = tok.iter().take_while(|c| c.is_ascii_digit()).count();
                        let dots = tok[digits..].iter().take_while(|&&c| c == b'.').count();
                        if dots == 0 {
                            return None;
                        }
                        let after = digits + dots;
                        if after < tok.len() {
                            // "12.e4": the move follows the number.
                            i += after;
                            continue;
                        }
                    }
                }
            }
            b'*' if tok.len() == 1 => termination = Some(Outcome::Unknown),
            b'a'..=b'h' | b'N' | b'B' | b'R' | b'Q' | b'K' | b'O' => {
                let san = SanPlus::from_ascii(tok).ok()?;
                let m = san_to_move(&pos, san.san).ok()?;
                v.before_move(&pos, m);
                pos.play_unchecked(m);
                v.after_move(&pos, m);
                plies += 1;
            }
            _ => return None,
        }
        i = tok_end;
    }
    if section.count == 0 && plies == 0 {
        return None; // not a game: the full parser says so
    }
    Some(PlainEnd {
        termination,
        last: pos,
        plies,
    })
}

/// Builds a [`Game`] from what the direct path reports.
#[derive(Default)]
struct GameBuilder {
    tags: Vec<(String, String)>,
    start: Option<(Chess, CastlingMode)>,
    moves: Vec<Node>,
}

impl PlainVisitor for GameBuilder {
    fn tag(&mut self, name: &str, value: &str) {
        self.tags.push((name.to_string(), value.to_string()));
    }

    fn start(&mut self, pos: &Chess, castling_mode: CastlingMode) {
        self.start = Some((pos.clone(), castling_mode));
    }

    fn before_move(&mut self, _: &Chess, m: Move) {
        self.moves.push(Node::new(m));
    }

    fn after_move(&mut self, _: &Chess, _: Move) {}
}

/// The direct path: `Some(game)` for a plain game, `None` to leave it to the full parser.
pub fn parse_plain(bytes: &[u8]) -> Option<Game> {
    let mut b = GameBuilder {
        tags: Vec::with_capacity(16),
        start: None,
        moves: Vec::with_capacity(96),
    };
    let end = visit_plain(bytes, &mut b)?;
    let (start, castling_mode) = b.start?;
    Some(Game {
        tags: b.tags,
        start,
        castling_mode,
        comments: Vec::new(),
        moves: b.moves,
        termination: end.termination,
        warnings: Vec::new(),
        after_null: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_game;

    /// Found by fuzzing (`fuzz/`, target `pgn_direct`): the direct path took bytes holding
    /// no game (nothing, or only spaces) as an empty game, which the full parser refuses.
    #[test]
    fn no_game_is_left_to_the_full_parser() {
        for bytes in [&b""[..], b"  \r\n\t\n", b"\xEF\xBB\xBF\n"] {
            assert!(parse_plain(bytes).is_none(), "{bytes:?}");
            let e = parse_game(bytes, 1).unwrap_err();
            assert!(e.reason.starts_with("not a PGN game"), "{}", e.reason);
        }
        // A tag alone is a game (with no moves) on both paths.
        let g = parse_plain(b"[Event \"x\"]\n").unwrap();
        assert_eq!(g.tags, [("Event".to_string(), "x".to_string())]);
        assert!(parse_game(b"[Event \"x\"]\n", 1).is_ok());
    }

    /// Found by fuzzing (`fuzz/`, target `pgn_direct`): tag lines of 256 bytes to 8 KiB
    /// were taken by the direct path and refused by the full parser as an "unterminated
    /// tag" (pgn-reader's buffer held 255 bytes sure); both now read lines up to the bound.
    #[test]
    fn tag_lines_up_to_the_bound_are_read_alike() {
        let found = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fuzz/pgn_direct-long-tag-line"
        ))
        .unwrap();
        let mut texts = vec![found];
        for len in [256, 427, 4000, crate::bounds::MAX_TAG_LINE_BYTES - 20] {
            let mut t = b"[Event \"x\"]\n[Annotator \"".to_vec();
            t.extend(std::iter::repeat_n(b'a', len));
            t.extend_from_slice(b"\"]\n\n1. e4 e5 *\n");
            texts.push(t);
        }
        for text in &texts {
            let full = parse_game(text, 1);
            if let Some(plain) = parse_plain(text) {
                let full = full.unwrap_or_else(|e| panic!("direct path took it, parser: {e}"));
                assert_eq!(plain.tags, full.tags);
            }
        }
        for text in &texts[1..] {
            assert!(parse_game(text, 1).is_ok());
            assert!(parse_plain(text).is_some());
        }
    }

    /// Found by fuzzing (`fuzz/`, target `pgn_direct`): `[Event  "x"]` (two spaces). The
    /// tokenizer (pgn-reader) takes a tag's name up to its quote less one space, so its name
    /// is `Event `; the direct path said `Event`. It now leaves such tags to the full parser.
    #[test]
    fn tag_spacing_other_than_one_space_is_left_to_the_full_parser() {
        for text in [&b"[Event  \"x\"]\n1. e4 *"[..], b"[Event\t\"x\"]\n1. e4 *"] {
            assert!(parse_plain(text).is_none(), "{text:?}");
        }
        let g = parse_game(b"[Event  \"x\"]\n1. e4 *", 1).unwrap();
        assert_eq!(g.tags, [("Event ".to_string(), "x".to_string())]);
        for text in [&b"[Event \"x\"]\n1. e4 *"[..], b"[Event\"x\"]\n1. e4 *"] {
            let plain = parse_plain(text).unwrap();
            assert_eq!(plain.tags, [("Event".to_string(), "x".to_string())]);
            assert_eq!(parse_game(text, 1).unwrap().tags, plain.tags);
        }
    }

    /// Found by fuzzing (`fuzz/`, target `pgn_direct`): `[_vene"…"]`, a tag whose name does
    /// not start with a letter or digit. PGN's symbols do, so the full parser does not count
    /// the line as a tag pair, and with no move either it is "not a PGN game"; the direct
    /// path took it as a game of one tag. It now leaves such names to the full parser.
    #[test]
    fn a_tag_name_that_is_not_a_symbol_is_left_to_the_full_parser() {
        let found = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fuzz/pgn_direct-tag-name-not-a-symbol"
        ))
        .unwrap();
        for text in [&found[..], b"[_Event \"x\"]\n", b"[_Event \"x\"]\n1. e4 *"] {
            assert!(parse_plain(text).is_none(), "{text:?}");
        }
        for text in [&found[..], b"[_Event \"x\"]\n"] {
            let e = parse_game(text, 1).unwrap_err();
            assert!(e.reason.starts_with("not a PGN game"), "{}", e.reason);
        }
        // With a move it is a game; the line is kept as a tag, as pgn-reader reads it.
        let g = parse_game(b"[_Event \"x\"]\n1. e4 *", 1).unwrap();
        assert_eq!(g.tags, [("_Event".to_string(), "x".to_string())]);
        assert_eq!(g.moves.len(), 1);
        // A name that starts with a digit is a symbol, as in pgn-reader.
        let plain = parse_plain(b"[9Event \"x\"]\n").unwrap();
        assert_eq!(parse_game(b"[9Event \"x\"]\n", 1).unwrap().tags, plain.tags);
    }

    /// Found by fuzzing (`fuzz/`, target `pgn_direct`): an empty line inside the movetext.
    /// The tokenizer (pgn-reader) ends the movetext there; the direct path read on. It now
    /// leaves such games to the full parser; empty lines at the end change nothing.
    #[test]
    fn an_empty_line_inside_the_movetext_is_left_to_the_full_parser() {
        for text in [&b"1. e4 e5\n\n2. Nf3 *"[..], b"1. e4 e5\n\r\n2. Nf3 *"] {
            assert!(parse_plain(text).is_none(), "{text:?}");
            assert_eq!(parse_game(text, 1).unwrap().moves.len(), 2);
        }
        let text = b"1. e4 e5 2. Nf3 *\n\n\n\r\n";
        assert_eq!(parse_plain(text).unwrap().moves.len(), 3);
        assert_eq!(parse_game(text, 1).unwrap().moves.len(), 3);
    }

    /// Every game of the shared PGN: the direct path, when it takes a game, gives exactly
    /// what the full parser gives; and it takes most of them.
    #[test]
    fn plain_games_read_as_the_full_parser_reads_them() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pgn/");
        let mut files: Vec<std::path::PathBuf> = ["twic", "pgnmentor", "edge-cases"]
            .iter()
            .flat_map(|d| {
                std::fs::read_dir(format!("{dir}{d}"))
                    .expect("shared data")
                    .map(|e| e.unwrap().path())
            })
            .collect();
        files.sort();
        let (mut plain, mut total) = (0, 0);
        for f in files {
            let text = std::fs::read(&f).unwrap();
            for chunk in crate::split::Splitter::new(text.as_slice()) {
                let chunk = chunk.unwrap();
                for span in &chunk.games {
                    let bytes = chunk.game_bytes(span);
                    total += 1;
                    let full = parse_game(bytes, span.line);
                    if let Some(g) = parse_plain(bytes) {
                        plain += 1;
                        let full = full.unwrap_or_else(|e| {
                            panic!(
                                "{}:{}: direct path took a game the parser refuses: {e}",
                                f.display(),
                                span.line
                            )
                        });
                        assert_eq!(g.tags, full.tags, "{}:{}", f.display(), span.line);
                        assert_eq!(g.moves, full.moves, "{}:{}", f.display(), span.line);
                        assert_eq!(
                            g.termination,
                            full.termination,
                            "{}:{}",
                            f.display(),
                            span.line
                        );
                        assert_eq!(g.start, full.start);
                        assert_eq!(g.castling_mode, full.castling_mode);
                        assert!(full.comments.is_empty() && full.warnings.is_empty());
                    }
                }
            }
        }
        assert!(
            plain * 10 > total * 9,
            "direct path took {plain} of {total} games"
        );
    }

    #[test]
    fn anything_else_goes_to_the_full_parser() {
        for text in [
            &b"1. e4 {comment} e5 *"[..],
            b"1. e4 (1. d4) e5 *",
            b"1. e4 $1 e5 *",
            b"1. e4! e5 *",
            b"[Event \"a \\\" b\"]\n\n1. e4 *",
            b"1. e4 Ke7 *",
            b"1. e4 e5 1-0 extra",
            b"1. 0-0 *",
        ] {
            assert!(
                parse_plain(text).is_none(),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let g = parse_plain(b"[White \"A\"]\n\n[Black \"B\"]\n1.e4 e5 2. Nf3 1/2-1/2").unwrap();
        assert_eq!(g.tags.len(), 2);
        assert_eq!(g.moves.len(), 3);
    }
}
