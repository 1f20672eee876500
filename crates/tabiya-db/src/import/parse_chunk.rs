//! A parse thread's work in a chess import: every game of a chunk parsed, checked, encoded
//! (body without dictionaries) and its positions counted, into flat buffers the chunk's games
//! share. Plain games take the direct path ([`tabiya_pgn::fast::visit_plain`]) in one replay.

use std::ops::Range;

use shakmaty::{CastlingMode, Chess, Move, Position};
use tabiya_pgn::fast::{self, PlainVisitor};
use tabiya_pgn::model::{outcome_of, result_str};
use tabiya_pgn::{Chunk, GameError, GameParser};

use crate::chess::facts::{facts, facts_from, index_outcome};
use crate::chess::moves::{encode_move_ep, move_code};
use crate::chess::stored::{prepare, put_body_head};
use crate::chess::walk::{Left, Walk};
use crate::digest::{digest_from, game_digest};
use crate::game::{NO_MOVE, Occurrence};
use crate::shapes::GameShapes;
use crate::stats::GameFacts;

/// A game ready to store; its tags, body and occurrences lie in its [`ParsedChunk`]'s
/// buffers.
pub(super) struct Prepared {
    /// Range of the chunk's `tag_spans`.
    pub(super) tags: Range<usize>,
    /// Range of the chunk's `body` (the dictionary-free part of the stored form).
    pub(super) body: Range<usize>,
    /// Range of the chunk's `occs` and `plies`.
    pub(super) occs: Range<usize>,
    /// Range of the chunk's `shapes`.
    pub(super) shapes: Range<usize>,
    pub(super) warnings: bool,
    pub(super) facts: GameFacts,
    pub(super) hash: u128,
}

pub(super) struct ParsedGame {
    pub(super) result: Result<Prepared, GameError>,
}

/// The games of one chunk, parsed: a few buffers for all of them rather than a dozen
/// allocations a game (freed by another thread than the one that made them).
#[derive(Default)]
pub(super) struct ParsedChunk {
    pub(super) games: Vec<ParsedGame>,
    /// Tag names and values, one after the other.
    pub(super) tag_text: String,
    /// Each tag as (name start, name end, value end) in `tag_text`.
    pub(super) tag_spans: Vec<[usize; 3]>,
    pub(super) body: Vec<u8>,
    pub(super) occs: Vec<Occurrence>,
    /// Ply of each occurrence.
    pub(super) plies: Vec<u16>,
    /// The games' distinct material codes and pawn keys (`shapes::GameShapes`).
    pub(super) shapes: Vec<u64>,
}

impl ParsedChunk {
    /// Empties the buffers, keeping their memory.
    pub(super) fn clear(&mut self) {
        self.games.clear();
        self.tag_text.clear();
        self.tag_spans.clear();
        self.body.clear();
        self.occs.clear();
        self.plies.clear();
        self.shapes.clear();
    }

    fn push_tag(&mut self, name: &str, value: &str) {
        let a = self.tag_text.len();
        self.tag_text.push_str(name);
        let b = self.tag_text.len();
        self.tag_text.push_str(value);
        self.tag_spans.push([a, b, self.tag_text.len()]);
    }

    pub(super) fn tags(&self, range: Range<usize>) -> impl Iterator<Item = (&str, &str)> {
        self.tag_spans[range]
            .iter()
            .map(|&[a, b, c]| (&self.tag_text[a..b], &self.tag_text[b..c]))
    }
}

/// What a parse thread keeps from game to game: the parser and scratch space.
pub(super) struct ChunkParser {
    pub(super) parser: GameParser,
    pub(super) occs: Vec<Occurrence>,
    pub(super) plies: Vec<u16>,
    /// A plain game's encoded moves (they follow the ply count in the stored form).
    pub(super) moves: Vec<u8>,
    /// A plain game's move codes (for its duplicate digest).
    pub(super) codes: Vec<u16>,
}

/// The direct path's visitor: a plain game's tags, counted positions and encoded moves go
/// straight into the chunk's buffers while the parser plays its moves (one replay of the
/// game, no [`Game`] built).
pub(super) struct PlainPrep<'a> {
    pub(super) out: &'a mut ParsedChunk,
    pub(super) limit: usize,
    pub(super) start: Option<(Chess, CastlingMode)>,
    pub(super) walk: Option<Walk>,
    pub(super) left: Option<Left>,
    pub(super) moves: &'a mut Vec<u8>,
    pub(super) codes: &'a mut Vec<u16>,
    /// The game's shapes, when the structure index is kept.
    pub(super) shapes: Option<GameShapes>,
}

impl PlainVisitor for PlainPrep<'_> {
    fn tag(&mut self, name: &str, value: &str) {
        self.out.push_tag(name, value);
    }

    fn start(&mut self, pos: &Chess, castling_mode: CastlingMode) {
        self.walk = Some(Walk::new(pos, self.limit, &self.out.occs));
        self.start = Some((pos.clone(), castling_mode));
        if let Some(s) = self.shapes.as_mut() {
            s.position(pos.board(), &mut self.out.shapes);
        }
    }

    fn before_move(&mut self, pos: &Chess, m: Move) {
        if let Some(walk) = self.walk.as_mut() {
            let code = move_code(&m);
            self.codes.push(code);
            walk.count(pos.turn(), code, &mut self.out.occs, &mut self.out.plies);
            encode_move_ep(pos, &m, walk.ep(), self.moves);
            self.left = Some(walk.leave(pos, m, &self.out.occs));
        }
    }

    fn after_move(&mut self, pos: &Chess, m: Move) {
        if let (Some(walk), Some(left)) = (self.walk.as_mut(), self.left.as_ref()) {
            walk.arrive(left, pos, m);
        }
        if let Some(s) = self.shapes.as_mut() {
            s.position(pos.board(), &mut self.out.shapes);
        }
    }
}

impl ChunkParser {
    pub(super) fn new() -> ChunkParser {
        ChunkParser {
            parser: GameParser::new(),
            occs: Vec::new(),
            plies: Vec::new(),
            moves: Vec::new(),
            codes: Vec::new(),
        }
    }

    /// Parses a chunk's games into `out` (emptied first: the main thread sends the buffers
    /// back once it has taken the games, so they are allocated once).
    pub(super) fn parse(
        &mut self,
        chunk: &Chunk,
        max_ply: Option<u32>,
        shapes: bool,
        mut out: ParsedChunk,
    ) -> ParsedChunk {
        out.clear();
        for span in &chunk.games {
            let result = match span.refusal() {
                Some(e) => Err(e),
                None => self.prepare(&mut out, chunk.game_bytes(span), span.line, max_ply, shapes),
            };
            out.games.push(ParsedGame { result });
        }
        out
    }

    fn prepare(
        &mut self,
        out: &mut ParsedChunk,
        bytes: &[u8],
        line: u64,
        max_ply: Option<u32>,
        shapes: bool,
    ) -> Result<Prepared, GameError> {
        // A game of many megabytes could grow past the bound when written (Latin-1 text
        // made UTF-8, move numbers added): it is written, and refused as the import of the
        // export would refuse it — a game stored is one every copy reads back.
        let large = bytes.len() > tabiya_pgn::MAX_GAME_BYTES / 8;
        if !large && let Some(p) = self.prepare_plain(out, bytes, max_ply, shapes) {
            return Ok(p);
        }
        let game = self.parser.parse_full(bytes, line)?;
        if large
            && let Some(why) =
                tabiya_pgn::refusal::text_refusal(tabiya_pgn::game_to_string(&game).as_bytes())
        {
            return Err(GameError {
                line,
                reason: format!("as Tabiya writes it, {why}; game refused"),
            });
        }
        let t0 = out.tag_spans.len();
        for (name, value) in &game.tags {
            out.push_tag(name, value);
        }
        let b0 = out.body.len();
        prepare(
            &game,
            max_ply,
            &mut out.body,
            &mut self.occs,
            &mut self.plies,
        );
        let o0 = out.occs.len();
        out.occs.extend_from_slice(&self.occs);
        out.plies.extend_from_slice(&self.plies);
        let s0 = out.shapes.len();
        if shapes {
            let mut shapes = GameShapes::default();
            let mut pos = game.start.clone();
            shapes.position(pos.board(), &mut out.shapes);
            for m in game.main_line() {
                pos.play_unchecked(*m);
                shapes.position(pos.board(), &mut out.shapes);
            }
        }
        Ok(Prepared {
            tags: t0..out.tag_spans.len(),
            body: b0..out.body.len(),
            occs: o0..out.occs.len(),
            shapes: s0..out.shapes.len(),
            warnings: !game.warnings.is_empty(),
            facts: facts(&game),
            hash: game_digest(&game),
        })
    }

    /// A plain game through the direct path: what [`ChunkParser::prepare`] makes of it
    /// through a [`Game`], in one replay. `None` (the chunk's buffers as they were) for any
    /// other game.
    fn prepare_plain(
        &mut self,
        out: &mut ParsedChunk,
        bytes: &[u8],
        max_ply: Option<u32>,
        shapes: bool,
    ) -> Option<Prepared> {
        let (t0, text0, b0, o0, s0) = (
            out.tag_spans.len(),
            out.tag_text.len(),
            out.body.len(),
            out.occs.len(),
            out.shapes.len(),
        );
        self.moves.clear();
        self.codes.clear();
        let limit = max_ply.map_or(usize::MAX, |m| m as usize);
        let mut v = PlainPrep {
            out,
            limit,
            start: None,
            walk: None,
            left: None,
            moves: &mut self.moves,
            codes: &mut self.codes,
            shapes: shapes.then(GameShapes::default),
        };
        let end = fast::visit_plain(bytes, &mut v);
        let (walk, start) = (v.walk.take(), v.start.take());
        let (Some(end), Some(mut walk), Some((start, mode))) = (end, walk, start) else {
            out.tag_text.truncate(text0);
            out.tag_spans.truncate(t0);
            out.occs.truncate(o0);
            out.plies.truncate(o0);
            out.shapes.truncate(s0);
            return None;
        };
        walk.count(end.last.turn(), NO_MOVE, &mut out.occs, &mut out.plies);
        let (text, spans) = (&out.tag_text, &out.tag_spans[t0..]);
        let tag = |name: &str| {
            spans
                .iter()
                .find(|&&[a, b, _]| &text[a..b] == name)
                .map(|&[_, b, c]| &text[b..c])
        };
        let outcome = outcome_of(tag("Result"), end.termination);
        put_body_head(
            &mut out.body,
            &start,
            mode,
            false,
            index_outcome(outcome),
            end.plies,
        );
        out.body.extend_from_slice(&self.moves);
        Some(Prepared {
            tags: t0..out.tag_spans.len(),
            body: b0..out.body.len(),
            occs: o0..out.occs.len(),
            shapes: s0..out.shapes.len(),
            warnings: false,
            facts: facts_from(tag, outcome),
            hash: digest_from(tag, result_str(outcome), &start, self.codes.iter().copied()),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use tabiya_pgn::{GameParser, Splitter};

    use super::*;
    use crate::chess::facts::facts;
    use crate::chess::stored::prepare;
    use crate::digest::game_digest;

    /// Tags, stored body, counted positions, their plies, facts and digest of a game.
    type Made = (
        Vec<(String, String)>,
        Vec<u8>,
        Vec<Occurrence>,
        Vec<u16>,
        GameFacts,
        u128,
    );

    /// What the general path (a [`Game`], then [`chess::prepare`]) makes of a game.
    fn general(bytes: &[u8], line: u64, max_ply: Option<u32>) -> Option<Made> {
        let game = GameParser::new().parse_full(bytes, line).ok()?;
        let (mut body, mut occs, mut plies) = (Vec::new(), Vec::new(), Vec::new());
        prepare(&game, max_ply, &mut body, &mut occs, &mut plies);
        Some((
            game.tags.clone(),
            body,
            occs,
            plies,
            facts(&game),
            game_digest(&game),
        ))
    }

    /// Every game of the shared PGN that the direct path takes comes out exactly as the
    /// general path makes it (tags, stored body, counted positions with their plies, facts,
    /// duplicate digest), full depth and with a ply cap, in one chunk's buffers one game
    /// after another; and the games it leaves leave the buffers as they were.
    #[test]
    fn the_direct_path_prepares_games_as_the_general_path_does() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pgn/");
        let mut files: Vec<PathBuf> = ["twic", "pgnmentor", "edge-cases"]
            .iter()
            .flat_map(|d| {
                std::fs::read_dir(format!("{dir}{d}"))
                    .expect("shared data")
                    .map(|e| e.unwrap().path())
            })
            .collect();
        files.sort();
        let (mut direct, mut total) = (0, 0);
        for max_ply in [None, Some(12)] {
            for f in &files {
                let text = std::fs::read(f).unwrap();
                let mut parser = ChunkParser::new();
                let mut out = ParsedChunk::default();
                for chunk in Splitter::new(text.as_slice()) {
                    let chunk = chunk.unwrap();
                    for span in &chunk.games {
                        let bytes = chunk.game_bytes(span);
                        let at = format!("{}:{} (max ply {max_ply:?})", f.display(), span.line);
                        let before = (
                            out.tag_text.len(),
                            out.tag_spans.len(),
                            out.body.len(),
                            out.occs.len(),
                            out.plies.len(),
                        );
                        total += 1;
                        let Some(p) = parser.prepare_plain(&mut out, bytes, max_ply, true) else {
                            let after = (
                                out.tag_text.len(),
                                out.tag_spans.len(),
                                out.body.len(),
                                out.occs.len(),
                                out.plies.len(),
                            );
                            assert_eq!(before, after, "{at}: buffers left as they were");
                            continue;
                        };
                        direct += 1;
                        let (tags, body, occs, plies, facts, hash) =
                            general(bytes, span.line, max_ply)
                                .unwrap_or_else(|| panic!("{at}: refused by the parser"));
                        let got: Vec<(String, String)> = out
                            .tags(p.tags.clone())
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect();
                        assert_eq!(got, tags, "{at}");
                        assert_eq!(&out.body[p.body.clone()], &body[..], "{at}");
                        assert_eq!(&out.occs[p.occs.clone()], &occs[..], "{at}");
                        assert_eq!(&out.plies[p.occs.clone()], &plies[..], "{at}");
                        assert_eq!(p.facts, facts, "{at}");
                        assert_eq!(p.hash, hash, "{at}");
                        assert!(!p.warnings);
                    }
                }
            }
        }
        assert!(
            direct * 10 > total * 9,
            "direct path took {direct} of {total} games"
        );
    }

    /// A game of 18 MiB in a Latin-1 file (a comment of `é`, one byte each there) is 36 MiB
    /// once written as UTF-8, past the 32 MiB the import reads: refused at import, saying
    /// why, rather than stored and lost by the first export. Half of it is kept.
    #[test]
    fn a_game_that_would_grow_past_the_bound_when_written_is_refused() {
        for (comment, kept) in [(18usize << 20, false), (9 << 20, true)] {
            let mut text = b"[Event \"x\"]\n\n1. e4 {".to_vec();
            text.extend(std::iter::repeat_n(0xE9u8, comment));
            text.extend_from_slice(b"} e5 *\n\n");
            let chunk = Splitter::new(&text[..]).next().unwrap().unwrap();
            let parsed = ChunkParser::new().parse(&chunk, None, true, ParsedChunk::default());
            match &parsed.games[0].result {
                Ok(_) => assert!(kept),
                Err(e) => {
                    assert!(!kept, "{e}");
                    assert!(e.reason.contains("more than the 32 MiB"), "{e}");
                }
            }
        }
    }
}
