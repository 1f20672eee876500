//! PGN → `BookGame` for the Polyglot tests and bench, on pgn-reader 0.29 + shakmaty.
//!
//! Included by `tests/polyglot.rs` and `benches/polyglot.rs` with `#[path]`; built on its own
//! as a test target too, where its unit tests check the conversion rules that matter for
//! `polyglot make-book` compatibility:
//!
//! * the result comes from the `Result` tag (as `make-book` reads it), not from the movetext's
//!   termination marker; a missing tag or anything but `1-0`, `0-1`, `1/2-1/2` is `Unknown`;
//! * a `FEN` tag sets the start position (parsed with Chess960 castling, which also reads
//!   standard FENs); the builder skips games that do not start from the standard position;
//! * variations and comments are skipped; the main line stops at the first move that is not
//!   legal (such a game is reported in `ParsedPgn::illegal`).

#![allow(dead_code)]

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};
use tabiya_books::{BookGame, GameResult};

/// Games read from one PGN text.
pub struct ParsedPgn {
    pub games: Vec<BookGame>,
    /// Indices (0-based) of games whose main line has a move that is not legal, with the
    /// move: they are kept, cut before that move.
    pub illegal: Vec<(usize, String)>,
    /// Indices of games whose FEN could not be read (kept with no moves).
    pub bad_fen: Vec<usize>,
    /// Games whose termination marker differs from the `Result` tag.
    pub result_mismatch: usize,
}

#[derive(Default)]
struct Tags {
    result: Option<GameResult>,
    fen: Option<String>,
    white_elo: Option<u16>,
    black_elo: Option<u16>,
    year: Option<u16>,
}

struct Movetext {
    tags: Tags,
    pos: Chess,
    start: Chess,
    moves: Vec<shakmaty::Move>,
    illegal: Option<String>,
    bad_fen: bool,
    outcome: Option<GameResult>,
}

struct Collector {
    index: usize,
    illegal: Vec<(usize, String)>,
    bad_fen: Vec<usize>,
    result_mismatch: usize,
}

fn parse_result(v: &[u8]) -> GameResult {
    match v {
        b"1-0" => GameResult::WhiteWins,
        b"0-1" => GameResult::BlackWins,
        b"1/2-1/2" => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

impl Visitor for Collector {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = BookGame;

    fn begin_tags(&mut self) -> ControlFlow<BookGame, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<BookGame> {
        let v = value.decode();
        match name {
            b"Result" => tags.result = Some(parse_result(&v)),
            b"FEN" => tags.fen = Some(String::from_utf8_lossy(&v).into_owned()),
            b"WhiteElo" => {
                tags.white_elo = std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
            }
            b"BlackElo" => {
                tags.black_elo = std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
            }
            b"Date" => {
                tags.year = std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.get(..4))
                    .and_then(|s| s.parse().ok())
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<BookGame, Movetext> {
        let mut bad_fen = false;
        let start = match &tags.fen {
            None => Chess::default(),
            Some(f) => match f
                .parse::<Fen>()
                .ok()
                .and_then(|fen| fen.into_position::<Chess>(CastlingMode::Chess960).ok())
            {
                Some(p) => p,
                None => {
                    bad_fen = true;
                    Chess::default()
                }
            },
        };
        ControlFlow::Continue(Movetext {
            tags,
            pos: start.clone(),
            start,
            moves: Vec::new(),
            illegal: None,
            bad_fen,
            outcome: None,
        })
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> ControlFlow<BookGame> {
        if mt.illegal.is_some() || mt.bad_fen {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&mt.pos) {
            Ok(m) => {
                mt.pos.play_unchecked(m);
                mt.moves.push(m);
            }
            Err(_) => mt.illegal = Some(san_plus.to_string()),
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _mt: &mut Movetext) -> ControlFlow<BookGame, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(
        &mut self,
        mt: &mut Movetext,
        outcome: pgn_reader::Outcome,
    ) -> ControlFlow<BookGame> {
        mt.outcome = Some(match outcome {
            pgn_reader::Outcome::Known(shakmaty::KnownOutcome::Decisive { winner }) => {
                if winner == shakmaty::Color::White {
                    GameResult::WhiteWins
                } else {
                    GameResult::BlackWins
                }
            }
            pgn_reader::Outcome::Known(shakmaty::KnownOutcome::Draw) => GameResult::Draw,
            pgn_reader::Outcome::Unknown => GameResult::Unknown,
        });
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) -> BookGame {
        let index = self.index;
        self.index += 1;
        if let Some(m) = mt.illegal {
            self.illegal.push((index, m));
        }
        if mt.bad_fen {
            self.bad_fen.push(index);
        }
        let result = mt.tags.result.unwrap_or(GameResult::Unknown);
        if mt.outcome.is_some_and(|o| o != result) {
            self.result_mismatch += 1;
        }
        let standard_start = mt.start == Chess::default();
        BookGame {
            start: mt.start,
            standard_start,
            moves: mt.moves,
            result,
            white_elo: mt.tags.white_elo,
            black_elo: mt.tags.black_elo,
            year: mt.tags.year,
            source: None,
        }
    }
}

/// Reads every game of a PGN text.
pub fn parse_pgn(bytes: &[u8]) -> ParsedPgn {
    let mut collector = Collector {
        index: 0,
        illegal: Vec::new(),
        bad_fen: Vec::new(),
        result_mismatch: 0,
    };
    let mut reader = Reader::new(bytes);
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(Some(g)) => games.push(g),
            Ok(None) => break,
            Err(e) => panic!("PGN read error after {} games: {e}", games.len()),
        }
    }
    ParsedPgn {
        games,
        illegal: collector.illegal,
        bad_fen: collector.bad_fen,
        result_mismatch: collector.result_mismatch,
    }
}

/// Path of a file under `shared/data`.
pub fn shared(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

/// The TCEC file, decompressed.
pub fn tcec_bytes() -> Vec<u8> {
    let path = shared("pgn/tcec/tcec-partial.nocomments.pgn.zst");
    let compressed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    zstd::decode_all(&compressed[..]).expect("decompress TCEC file")
}

#[cfg(test)]
mod tests {
    // The bench includes this file too, where `#[test]` functions are left out.
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn result_comes_from_the_result_tag() {
        let pgn =
            b"[Result \"1-0\"]\n\n1. e4 e5 0-1\n\n[Result \"*\"]\n\n1. d4 1/2-1/2\n\n1. c4 *\n";
        let parsed = parse_pgn(pgn);
        assert_eq!(parsed.games.len(), 3);
        assert_eq!(parsed.games[0].result, GameResult::WhiteWins);
        assert_eq!(parsed.games[1].result, GameResult::Unknown);
        assert_eq!(parsed.games[2].result, GameResult::Unknown);
        assert_eq!(parsed.result_mismatch, 2);
        assert_eq!(parsed.games[0].moves.len(), 2);
    }

    #[test]
    fn fen_games_and_variations() {
        let pgn = b"[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n\n\
                    1... e5 (1... c5 2. Nf3) 2. Nf3 {comment} Nc6 *\n";
        let parsed = parse_pgn(pgn);
        let g = &parsed.games[0];
        assert!(!g.standard_start);
        assert_eq!(g.moves.len(), 3);
        assert!(parsed.illegal.is_empty());
    }

    #[test]
    fn illegal_move_cuts_the_game() {
        let parsed = parse_pgn(b"1. e4 e5 2. Ke3 Nc6 1-0\n");
        assert_eq!(parsed.games[0].moves.len(), 2);
        assert_eq!(parsed.illegal, vec![(0, "Ke3".to_string())]);
    }
}
