//! One game's text read for a book.
//!
//! Plain games (tags, moves, move numbers, a result: most of any collection) are read by
//! `tabiya-pgn`'s direct path, [`visit_plain`], reporting to [`BookVisitor`], which keeps
//! what a book needs: the first `Result`, `WhiteElo`, `BlackElo`, `Date`, `EventDate`,
//! `White` and `Black` tags, the start, the moves — and for a Polyglot build, instead of
//! the moves, the moves as `make-book` counts them, each with the Polyglot key of the
//! position it is played from, computed as the game is played (one replay). Games the direct
//! path gives up on (comments, variations, NAGs, escapes, an illegal move...) are read by
//! `parse_game`, with its error and line when they cannot be read.
//!
//! A Polyglot build skips games from another start position (`FEN` tag) without reading
//! their moves, as `make-book` does not replay them: such a game counts as
//! [`CountedGame::NonStandardStart`] even when its moves would not parse.

use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Position};
use tabiya_books::polyglot::{self, CountedGame, CountedMove};
use tabiya_books::{BookGame, GameResult};
use tabiya_pgn::fast::{PlainVisitor, visit_plain};
use tabiya_pgn::model::{outcome_of, parse_elo, parse_year};
use tabiya_pgn::{Game, GameParser};

use super::{InputGame, count_for_polyglot};

/// Reads games for a book on one thread (it keeps the full parser's tokenizer between
/// games).
pub(crate) struct GameReader {
    names: bool,
    polyglot_max_ply: Option<u32>,
    parser: GameParser,
}

impl GameReader {
    /// `names`: keep the players' names; `polyglot_max_ply`: read for a Polyglot build
    /// counting that many half-moves ([`InputGame::counted`], moves dropped).
    pub(crate) fn new(names: bool, polyglot_max_ply: Option<u32>) -> GameReader {
        GameReader {
            names,
            polyglot_max_ply,
            parser: GameParser::new(),
        }
    }

    /// Reads one game's text with the importer's rules. `Err((line, reason))` when the
    /// importer would skip it.
    pub(crate) fn read(&mut self, bytes: &[u8], line: u64) -> Result<InputGame, (u64, String)> {
        let mut v = BookVisitor::new(self.names, self.polyglot_max_ply);
        if let Some(end) = visit_plain(bytes, &mut v) {
            return Ok(v.finish(end.termination));
        }
        if self.polyglot_max_ply.is_some()
            && let Some(g) = other_start_unread(bytes)
        {
            return Ok(g);
        }
        match self.parser.parse_full(bytes, line) {
            // A book learns from games of chess: one whose main line has a side pass is
            // left out as a whole (the database keeps it, indexed up to the pass).
            Ok(g) if !g.after_null.is_empty() => Err((
                line,
                "null move (Z0 or --) in the main line: not a game of chess for a book".to_string(),
            )),
            Ok(g) => {
                let mut g = from_game(&g, self.names);
                if let Some(max_ply) = self.polyglot_max_ply {
                    g.counted = Some(count_for_polyglot(&mut g, max_ply));
                    g.game.moves = Vec::new();
                }
                Ok(g)
            }
            Err(e) => Err((e.line, e.reason)),
        }
    }
}

/// The tags a book needs, first occurrence of each (as `Game::tag` finds them).
#[derive(Default)]
struct Tags {
    result: Option<String>,
    white_elo: Option<Option<u16>>,
    black_elo: Option<Option<u16>>,
    date: Option<Option<u16>>,
    event_date: Option<Option<u16>>,
    white: Option<String>,
    black: Option<String>,
    /// The first `FEN` tag's value.
    fen: Option<String>,
}

impl Tags {
    /// Takes a tag in (only the first of each name counts).
    fn add(&mut self, name: &str, value: &str, names: bool) {
        match name {
            "FEN" if self.fen.is_none() => self.fen = Some(value.to_string()),
            "Result" if self.result.is_none() => self.result = Some(value.to_string()),
            "WhiteElo" if self.white_elo.is_none() => self.white_elo = Some(parse_elo(value)),
            "BlackElo" if self.black_elo.is_none() => self.black_elo = Some(parse_elo(value)),
            "Date" if self.date.is_none() => self.date = Some(parse_year(value)),
            "EventDate" if self.event_date.is_none() => self.event_date = Some(parse_year(value)),
            "White" if names && self.white.is_none() => self.white = Some(value.to_string()),
            "Black" if names && self.black.is_none() => self.black = Some(value.to_string()),
            _ => {}
        }
    }

    /// `Game::year`'s rule: the `Date` tag's year, else the `EventDate` tag's.
    fn year(&self) -> Option<u16> {
        self.date.flatten().or(self.event_date.flatten())
    }

    /// Whether the first `FEN` tag names a position other than the standard start (read as
    /// Chess960, so any castling notation passes): a Polyglot build skips the game.
    fn other_start(&self) -> bool {
        self.fen.as_deref().is_some_and(|f| {
            Fen::from_ascii(f.trim().as_bytes())
                .ok()
                .and_then(|fen| fen.into_position::<Chess>(CastlingMode::Chess960).ok())
                .is_some_and(|p| p != Chess::default())
        })
    }
}

/// How a Polyglot build takes the game the direct path is reading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// Not a Polyglot build: the moves are kept.
    Off,
    /// From the standard start: the first `max_ply` moves counted as they are played.
    Count { max_ply: usize },
    /// From another start (`FEN` tag): skipped unread.
    OtherStart,
    /// From a position `make-book` does not replay ([`CountedGame::NonStandardStart`]).
    NonStandard,
}

/// What the direct path reports, kept as a book needs it.
struct BookVisitor {
    names: bool,
    tags: Tags,
    counting: Counting,
    start: Option<Chess>,
    moves: Vec<Move>,
    ply: usize,
    /// Polyglot build: the key of the position the next move is played from, the moves
    /// counted so far, whether one has no Polyglot code.
    key: u64,
    counted: Vec<CountedMove>,
    unencodable: bool,
    /// The key after the move being played, when the incremental update gives it (`None`
    /// inside: recompute it from the position after the move).
    next_key: Option<Option<u64>>,
}

impl BookVisitor {
    fn new(names: bool, polyglot_max_ply: Option<u32>) -> BookVisitor {
        let counting = match polyglot_max_ply {
            None => Counting::Off,
            Some(max_ply) => Counting::Count {
                max_ply: max_ply as usize,
            },
        };
        BookVisitor {
            names,
            tags: Tags::default(),
            counting,
            start: None,
            // A Polyglot build keeps only the counted moves.
            moves: Vec::with_capacity(if counting == Counting::Off { 128 } else { 0 }),
            ply: 0,
            key: polyglot::START_KEY,
            counted: Vec::with_capacity(if counting == Counting::Off { 0 } else { 128 }),
            unencodable: false,
            next_key: None,
        }
    }

    /// The game read, once the direct path took all of it.
    fn finish(self, termination: Option<shakmaty::Outcome>) -> InputGame {
        let t = self.tags;
        let tag_result = tag_result(t.result.as_deref());
        let year = t.year();
        let start = self.start.unwrap_or_default();
        let (game, counted) = match self.counting {
            // As `make-book` skips it: the termination is not looked at.
            Counting::OtherStart => {
                let game = BookGame {
                    start: Chess::default(),
                    standard_start: false,
                    moves: Vec::new(),
                    result: from_known(outcome_of(t.result.as_deref(), None)),
                    white_elo: t.white_elo.flatten(),
                    black_elo: t.black_elo.flatten(),
                    year,
                    source: None,
                };
                return InputGame {
                    tag_result,
                    names: None,
                    game,
                    file: 0,
                    number: 0,
                    counted: Some(CountedGame::NonStandardStart),
                };
            }
            Counting::Off => (self.moves, None),
            Counting::NonStandard => (Vec::new(), Some(CountedGame::NonStandardStart)),
            Counting::Count { .. } => (
                Vec::new(),
                Some(if self.unencodable {
                    CountedGame::Illegal
                } else {
                    CountedGame::Counted {
                        moves: self.counted,
                        result: tag_result,
                    }
                }),
            ),
        };
        InputGame {
            tag_result,
            names: self
                .names
                .then(|| (t.white.unwrap_or_default(), t.black.unwrap_or_default())),
            game: BookGame {
                standard_start: start == Chess::default(),
                start,
                moves: game,
                result: from_known(outcome_of(t.result.as_deref(), termination)),
                white_elo: t.white_elo.flatten(),
                black_elo: t.black_elo.flatten(),
                year,
                source: None,
            },
            file: 0,
            number: 0,
            counted,
        }
    }
}

impl PlainVisitor for BookVisitor {
    fn tag(&mut self, name: &str, value: &str) {
        self.tags.add(name, value, self.names);
    }

    fn start(&mut self, pos: &Chess, _: CastlingMode) {
        if self.counting != Counting::Off {
            if self.tags.other_start() {
                self.counting = Counting::OtherStart;
            } else if *pos != Chess::default() {
                self.counting = Counting::NonStandard;
            }
        }
        self.start = Some(pos.clone());
    }

    fn before_move(&mut self, pos: &Chess, m: Move) {
        match self.counting {
            Counting::Off => self.moves.push(m),
            Counting::Count { max_ply } if self.ply < max_ply => {
                match polyglot::encode_move(&m) {
                    Some(mv) => self.counted.push(CountedMove {
                        key: self.key,
                        mv,
                        white: pos.turn() == Color::White,
                    }),
                    None => self.unencodable = true,
                }
                self.next_key = Some(
                    pos.update_zobrist_hash::<Zobrist64>(
                        Zobrist64(self.key),
                        m,
                        EnPassantMode::PseudoLegal,
                    )
                    .map(|z| z.0),
                );
            }
            _ => {}
        }
    }

    fn after_move(&mut self, pos: &Chess, _: Move) {
        if let Some(next) = self.next_key.take() {
            self.key =
                next.unwrap_or_else(|| pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0);
        }
        self.ply += 1;
    }
}

/// A Polyglot build's reading of a game the direct path gave up on: when its first `FEN`
/// tag names another start, the game is skipped without reading its moves.
fn other_start_unread(bytes: &[u8]) -> Option<InputGame> {
    // No `FEN` tag without these bytes: spare the tag reader.
    if !bytes.windows(3).any(|w| w == b"FEN") {
        return None;
    }
    let mut t = Tags::default();
    for (name, value) in tabiya_pgn::read_tags(bytes)? {
        t.add(&name, &value, false);
    }
    if !t.other_start() {
        return None;
    }
    let mut v = BookVisitor::new(false, Some(0));
    v.tags = t;
    v.counting = Counting::OtherStart;
    Some(v.finish(None))
}

/// A parsed game as a book game.
pub(crate) fn from_game(g: &Game, names: bool) -> InputGame {
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
fn tag_result(tag: Option<&str>) -> GameResult {
    match tag {
        Some("1-0") => GameResult::WhiteWins,
        Some("0-1") => GameResult::BlackWins,
        Some("1/2-1/2") => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

#[cfg(test)]
mod tests;
