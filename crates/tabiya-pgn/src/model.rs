//! The game model: everything a PGN game holds, with moves already checked for legality.

use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Move, Outcome, Position};

/// A game as read from PGN, kept whole: all tags in file order, the main line, variations,
/// comments and NAGs.
#[derive(Debug, Clone)]
pub struct Game {
    /// Every tag in file order, values unescaped (UTF-8, or ISO-8859-1 when not UTF-8).
    pub tags: Vec<(String, String)>,
    /// Position the game starts from (the `FEN` tag, or the standard start).
    pub start: Chess,
    /// Castling notation of the game (`Chess960` for Fischer random games).
    pub castling_mode: CastlingMode,
    /// Comments before the first move.
    pub comments: Vec<String>,
    /// The main line (up to its first null move, when it has one).
    pub moves: Vec<Node>,
    /// The main line's null moves (`--`, ChessBase's `Z0`: the side to move passes), each
    /// with the moves played after it up to the next: kept whole and written back, though
    /// no position after the first null move is indexed (they are not reached by chess).
    pub after_null: Vec<NullSegment>,
    /// Game termination marker found in the movetext, if any.
    pub termination: Option<Outcome>,
    /// Things that were wrong but did not stop the game from being read (a variation with an
    /// illegal move was cut there, a NAG before any move was dropped, ...).
    pub warnings: Vec<String>,
}

/// One move with what follows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub mv: Move,
    pub nags: Vec<u8>,
    /// Comments after the move.
    pub comments: Vec<String>,
    /// Alternatives to this move, each starting from the position before it.
    pub variations: Vec<Variation>,
}

/// A null move of the main line and the moves that follow it (up to the next null move).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NullSegment {
    /// NAGs and comments of the null move itself.
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
    /// The moves after it, from the position with the other side to move.
    pub moves: Vec<Node>,
}

/// The position after a null move (the side to move passes, as python-chess plays one: no en
/// passant square, the clocks go on); `None` when the side to move is in check.
pub fn play_null(pos: &Chess) -> Option<Chess> {
    use shakmaty::fen::Fen;
    let mut setup = Fen::from_position(pos, shakmaty::EnPassantMode::Legal).into_setup();
    if pos.is_check() {
        return None;
    }
    setup.ep_square = None;
    setup.halfmoves = setup.halfmoves.saturating_add(1);
    if pos.turn() == Color::Black {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    setup.turn = !pos.turn();
    <Chess as shakmaty::FromSetup>::from_setup(setup, pos.castles().mode()).ok()
}

/// An alternative line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Variation {
    /// Comments before the variation's first move.
    pub comments: Vec<String>,
    pub moves: Vec<Node>,
}

impl Node {
    pub fn new(mv: Move) -> Node {
        Node {
            mv,
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        }
    }
}

/// The Seven Tag Roster, in order.
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

impl Game {
    /// The value of a tag (first occurrence), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Result from the `Result` tag, or the movetext termination when the tag is missing or
    /// not a result. `None` means unknown (`*`).
    pub fn outcome(&self) -> Option<KnownOutcome> {
        outcome_of(self.tag("Result"), self.termination)
    }

    /// The result string for output (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub fn result_str(&self) -> &'static str {
        result_str(self.outcome())
    }

    /// Rating of a player from `WhiteElo`/`BlackElo` (positive integers only).
    pub fn elo(&self, color: Color) -> Option<u16> {
        let tag = if color == Color::White {
            "WhiteElo"
        } else {
            "BlackElo"
        };
        parse_elo(self.tag(tag)?)
    }

    /// Year from the `Date` tag (`2012.06.20`, `1997.??.??`), falling back to `EventDate`.
    pub fn year(&self) -> Option<u16> {
        year_of(self.tag("Date"), self.tag("EventDate"))
    }

    /// True when the game starts from the standard position.
    pub fn standard_start(&self) -> bool {
        self.start == Chess::default()
    }

    /// True when the game has anything beyond tags and a bare main line.
    pub fn has_annotations(&self) -> bool {
        fn line_has(nodes: &[Node]) -> bool {
            nodes
                .iter()
                .any(|n| !n.nags.is_empty() || !n.comments.is_empty() || !n.variations.is_empty())
        }
        !self.comments.is_empty() || line_has(&self.moves) || !self.after_null.is_empty()
    }

    /// The position after the main line up to its first null move (where indexing stops).
    pub fn indexed_end(&self) -> Chess {
        let mut pos = self.start.clone();
        for n in &self.moves {
            pos.play_unchecked(n.mv);
        }
        pos
    }

    /// The main line's moves.
    pub fn main_line(&self) -> impl Iterator<Item = &Move> {
        self.moves.iter().map(|n| &n.mv)
    }
}

/// A game's result from its `Result` tag, or its movetext termination when the tag is
/// missing or not a result (see [`Game::outcome`]).
pub fn outcome_of(result_tag: Option<&str>, termination: Option<Outcome>) -> Option<KnownOutcome> {
    match result_tag.map(|r| r.trim()) {
        Some("1-0") => Some(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        Some("0-1") => Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        Some("1/2-1/2") | Some("½-½") => Some(KnownOutcome::Draw),
        Some("*") => None,
        _ => termination.and_then(|o| o.known()),
    }
}

/// The result string of an outcome (`1-0`, `0-1`, `1/2-1/2`, `*`).
pub fn result_str(outcome: Option<KnownOutcome>) -> &'static str {
    match outcome {
        Some(KnownOutcome::Decisive {
            winner: Color::White,
        }) => "1-0",
        Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => "0-1",
        Some(KnownOutcome::Draw) => "1/2-1/2",
        None => "*",
    }
}

/// A game's year from its `Date` tag, else its `EventDate` (see [`Game::year`]).
pub fn year_of(date: Option<&str>, event_date: Option<&str>) -> Option<u16> {
    date.and_then(parse_year)
        .or_else(|| event_date.and_then(parse_year))
}

/// Parses an Elo tag value; `?`, `-`, `0` and garbage are unknown.
pub fn parse_elo(s: &str) -> Option<u16> {
    let v: u32 = s.trim().parse().ok()?;
    (1..=4000).contains(&v).then_some(v as u16)
}

/// Parses the year of a PGN date (`YYYY.MM.DD` with `?` allowed after the year).
pub fn parse_year(s: &str) -> Option<u16> {
    let y = s.trim().get(..4)?;
    let v: u16 = y.parse().ok()?;
    (v > 0).then_some(v)
}

/// Parses a PGN date into (year, month, day), unknown parts as 0.
pub fn parse_date(s: &str) -> (u16, u8, u8) {
    let mut parts = s.trim().split(['.', '-', '/']);
    let y = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let m = parts
        .next()
        .and_then(|p| p.parse().ok())
        .filter(|m| (1..=12).contains(m))
        .unwrap_or(0);
    let d = parts
        .next()
        .and_then(|p| p.parse().ok())
        .filter(|d| (1..=31).contains(d))
        .unwrap_or(0);
    (y, m, d)
}
