//! pgn-extract's `FENPattern`: a board of conditions, one rank after another (8 to 1, parts
//! separated by `/`), each part read from file a to file h:
//!
//! | text | the square(s) |
//! |---|---|
//! | `K Q R B N P k q r b n p` | that piece |
//! | `1`–`8` | that many empty squares |
//! | `?` | any (empty or not) |
//! | `!` | any occupied |
//! | `A` / `a` | any white / any black piece |
//! | `*` | zero or more squares of the rank, whatever they hold |
//! | `[..]` | any of the listed (piece letters, `A`, `a`) |
//! | `[^..]` | anything but the listed, empty included |
//!
//! A part without `*` covers its eight squares exactly; with one, at most eight. The pattern
//! with colours swapped ([`Pattern::flipped`]: ranks reversed, every piece's colour changed)
//! is pgn-extract's `FENPatternI`.

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

/// A pattern that cannot be read: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern {text:?}: {why}")]
pub struct PatternError {
    pub text: String,
    pub why: String,
}

/// What one entry of a set (`[..]`) or one letter stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum One {
    Piece(Piece),
    AnyOf(Color),
}

impl One {
    fn holds(self, on: Option<Piece>) -> bool {
        match (self, on) {
            (One::Piece(p), Some(q)) => p == q,
            (One::AnyOf(c), Some(q)) => q.color == c,
            (_, None) => false,
        }
    }

    fn flipped(self) -> One {
        match self {
            One::Piece(p) => One::Piece(Piece {
                color: !p.color,
                role: p.role,
            }),
            One::AnyOf(c) => One::AnyOf(!c),
        }
    }

    fn letter(self) -> char {
        match self {
            One::Piece(p) => p.char(),
            One::AnyOf(Color::White) => 'A',
            One::AnyOf(Color::Black) => 'a',
        }
    }
}

/// The condition on one square.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cond {
    Empty,
    Any,
    Occupied,
    Is(One),
    In(Vec<One>),
    NotIn(Vec<One>),
}

impl Cond {
    fn holds(&self, on: Option<Piece>) -> bool {
        match self {
            Cond::Empty => on.is_none(),
            Cond::Any => true,
            Cond::Occupied => on.is_some(),
            Cond::Is(one) => one.holds(on),
            Cond::In(set) => set.iter().any(|o| o.holds(on)),
            Cond::NotIn(set) => !set.iter().any(|o| o.holds(on)),
        }
    }

    fn flipped(&self) -> Cond {
        let all = |set: &[One]| set.iter().map(|o| o.flipped()).collect();
        match self {
            Cond::Is(one) => Cond::Is(one.flipped()),
            Cond::In(set) => Cond::In(all(set)),
            Cond::NotIn(set) => Cond::NotIn(all(set)),
            other => other.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Square(Cond),
    /// Zero or more squares, whatever they hold.
    Star,
}

/// A parsed `FENPattern` (see the module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Rank 8 first, as written.
    ranks: Vec<Vec<Token>>,
    /// The squares it pins pieces to ([`Pattern::pinned`]).
    pins: Vec<(Square, Vec<Piece>)>,
    /// The conditions of the squares whose file is fixed, as bitboards (what most of a
    /// pattern is, tested in a few instructions).
    fixed: Fixed,
    /// The ranks (0: rank 8) with squares whose file is not fixed (between two `*`), read
    /// token by token.
    floating: Vec<usize>,
}

/// What may stand on the squares whose file is fixed: `allowed[k]` are the squares where
/// the piece of index `k` (colour × 6 + role − 1; 12: no piece) may stand; a square
/// outside `constrained` takes anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Fixed {
    constrained: u64,
    allowed: [u64; 13],
}

const EMPTY: usize = 12;

/// A piece as an index (0–11): White's pawn … king, then Black's.
pub fn piece_index(p: Piece) -> usize {
    usize::from(p.color == Color::Black) * 6 + (p.role as usize - 1)
}

impl Fixed {
    /// `cond` on `square`.
    fn add(&mut self, square: Square, cond: &Cond) {
        let all = (1u16 << 13) - 1;
        let of_one = |one: &One| -> u16 {
            match *one {
                One::Piece(p) => 1 << piece_index(p),
                One::AnyOf(Color::White) => 0b11_1111,
                One::AnyOf(Color::Black) => 0b11_1111 << 6,
            }
        };
        let set = match cond {
            Cond::Any => return,
            Cond::Empty => 1 << EMPTY,
            Cond::Occupied => all & !(1 << EMPTY),
            Cond::Is(one) => of_one(one),
            Cond::In(ones) => ones.iter().fold(0, |a, o| a | of_one(o)),
            Cond::NotIn(ones) => all & !ones.iter().fold(0, |a, o| a | of_one(o)),
        };
        let bit = 1u64 << square as u32;
        self.constrained |= bit;
        for (k, allowed) in self.allowed.iter_mut().enumerate() {
            if set >> k & 1 == 1 {
                *allowed |= bit;
            }
        }
    }

    fn holds(&self, board: &Board) -> bool {
        let c = self.constrained;
        if c == 0 {
            return true;
        }
        if !board.occupied().0 & c & !self.allowed[EMPTY] != 0 {
            return false;
        }
        for color in [Color::White, Color::Black] {
            let mine = board.by_color(color).0 & c;
            if mine == 0 {
                continue;
            }
            for role in Role::ALL {
                let p = Piece { color, role };
                if board.by_role(role).0 & mine & !self.allowed[piece_index(p)] != 0 {
                    return false;
                }
            }
        }
        true
    }
}

fn letter(c: char) -> Option<One> {
    match c {
        'A' => Some(One::AnyOf(Color::White)),
        'a' => Some(One::AnyOf(Color::Black)),
        _ => Role::from_char(c).map(|role| {
            One::Piece(Piece {
                color: Color::from_white(c.is_ascii_uppercase()),
                role,
            })
        }),
    }
}

/// The tokens of one rank's part (`n`: 1 for rank 8's); the why of an error.
fn rank_tokens(part: &str, n: usize) -> Result<Vec<Token>, String> {
    let rank = 9 - n;
    let mut out = Vec::new();
    let mut chars = part.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '1'..='8' => {
                for _ in 0..c.to_digit(10).unwrap_or(0) {
                    out.push(Token::Square(Cond::Empty));
                }
            }
            '?' => out.push(Token::Square(Cond::Any)),
            '!' => out.push(Token::Square(Cond::Occupied)),
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '[' => {
                let negated = chars.next_if_eq(&'^').is_some();
                let mut set = Vec::new();
                loop {
                    match chars.next() {
                        Some(']') => break,
                        Some(x) => set.push(letter(x).ok_or_else(|| {
                            format!(
                                "rank {rank} ({part:?}): {x:?} in [..] is not a piece letter, A or a"
                            )
                        })?),
                        None => return Err(format!("rank {rank} ({part:?}): a [ without its ]")),
                    }
                }
                if set.is_empty() {
                    return Err(format!("rank {rank} ({part:?}): an empty set []"));
                }
                out.push(Token::Square(if negated {
                    Cond::NotIn(set)
                } else {
                    Cond::In(set)
                }));
            }
            x => match letter(x) {
                Some(one) => out.push(Token::Square(Cond::Is(one))),
                None => {
                    return Err(format!(
                        "rank {rank} ({part:?}): {x:?} is not a piece letter, a digit 1-8 or one of ? ! A a * [ ]"
                    ));
                }
            },
        }
    }
    let squares = out.iter().filter(|t| **t != Token::Star).count();
    let star = out.contains(&Token::Star);
    if squares > 8 || (!star && squares != 8) {
        return Err(format!(
            "rank {rank} ({part:?}) covers {squares} squares, not 8{}",
            if star { " at most" } else { "" }
        ));
    }
    Ok(out)
}

/// The file of token `j` of a rank's part when it is fixed: no `*` comes before it
/// (counted from file a), or none after it (counted from file h).
fn fixed_file(tokens: &[Token], j: usize) -> Option<usize> {
    match tokens.iter().position(|t| *t == Token::Star) {
        None => Some(j),
        Some(s) if j < s => Some(j),
        Some(_) if !tokens[j + 1..].contains(&Token::Star) => Some(7 - (tokens.len() - 1 - j)),
        Some(_) => None,
    }
}

/// Whether the tokens of rank part `i` (0: rank 8) match `board`'s rank.
fn rank_holds(tokens: &[Token], i: usize, board: &Board) -> bool {
    let rank = Rank::new(7 - i as u32);
    let on: [Option<Piece>; 8] =
        std::array::from_fn(|f| board.piece_at(Square::from_coords(File::new(f as u32), rank)));
    rank_matches(tokens, &on)
}

/// Whether `tokens` match the eight squares `on` (file a first).
fn rank_matches(tokens: &[Token], on: &[Option<Piece>]) -> bool {
    match tokens.split_first() {
        None => on.is_empty(),
        Some((Token::Star, rest)) => (0..=on.len()).any(|skip| rank_matches(rest, &on[skip..])),
        Some((Token::Square(cond), rest)) => match on.split_first() {
            Some((&first, others)) => cond.holds(first) && rank_matches(rest, others),
            None => false,
        },
    }
}

impl Pattern {
    /// Reads a pattern (see the module); the board part of a whole FEN is refused with what
    /// to drop, since the side to move and the rest are not part of a pattern.
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let err = |why: String| PatternError {
            text: text.to_string(),
            why,
        };
        let board = text.trim();
        if let Some((board, rest)) = board.split_once(char::is_whitespace) {
            return Err(err(format!(
                "a pattern is the board part of a FEN only: give {board:?} (without {:?})",
                rest.trim()
            )));
        }
        let parts: Vec<&str> = board.split('/').collect();
        if parts.len() != 8 {
            return Err(err(format!(
                "{} part(s): a pattern has 8, ranks 8 to 1 separated by /",
                parts.len()
            )));
        }
        let ranks = parts
            .iter()
            .enumerate()
            .map(|(i, p)| rank_tokens(p, i + 1))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(Pattern::of_ranks(ranks))
    }

    fn of_ranks(ranks: Vec<Vec<Token>>) -> Pattern {
        let pins = Pattern::pins_of(&ranks);
        let mut fixed = Fixed::default();
        let mut floating = Vec::new();
        for (i, tokens) in ranks.iter().enumerate() {
            let rank = Rank::new(7 - i as u32);
            for (j, t) in tokens.iter().enumerate() {
                let Token::Square(cond) = t else { continue };
                match fixed_file(tokens, j) {
                    Some(file) => {
                        fixed.add(Square::from_coords(File::new(file as u32), rank), cond)
                    }
                    None if !floating.contains(&i) => floating.push(i),
                    None => {}
                }
            }
        }
        Pattern {
            ranks,
            pins,
            fixed,
            floating,
        }
    }

    /// Whether `board` matches.
    pub fn matches(&self, board: &Board) -> bool {
        self.fixed.holds(board)
            && self
                .floating
                .iter()
                .all(|&i| rank_holds(&self.ranks[i], i, board))
    }

    /// [`Pattern::matches`] read token by token, rank by rank, as the syntax says: what
    /// the fast form is tested against.
    #[cfg(test)]
    fn matches_by_ranks(&self, board: &Board) -> bool {
        (0..8).all(|i| rank_holds(&self.ranks[i], i, board))
    }

    /// The squares the pattern puts a piece on, each with the pieces any of which must
    /// stand there (a piece letter; a set of them, `A` or `a` among them): the squares of a
    /// rank's part that no `*` comes before (counted from file a), or none after (counted
    /// from file h). A square that only needs to be occupied (`!`), or not to hold some
    /// pieces (`[^..]`), is not among them. What an index of the squares pieces stood on
    /// narrows a search with.
    pub fn pinned(&self) -> &[(Square, Vec<Piece>)] {
        &self.pins
    }

    /// [`Pattern::pinned`], found from the ranks.
    fn pins_of(ranks: &[Vec<Token>]) -> Vec<(Square, Vec<Piece>)> {
        let pieces = |one: &One| -> Vec<Piece> {
            match *one {
                One::Piece(p) => vec![p],
                One::AnyOf(color) => Role::ALL
                    .iter()
                    .map(|&role| Piece { color, role })
                    .collect(),
            }
        };
        let mut out = Vec::new();
        for (i, tokens) in ranks.iter().enumerate() {
            let rank = Rank::new(7 - i as u32);
            for (j, t) in tokens.iter().enumerate() {
                let Token::Square(cond) = t else { continue };
                let Some(file) = fixed_file(tokens, j) else {
                    continue;
                };
                let on: Vec<Piece> = match cond {
                    Cond::Is(one) => pieces(one),
                    Cond::In(set) => set.iter().flat_map(pieces).collect(),
                    _ => continue,
                };
                out.push((Square::from_coords(File::new(file as u32), rank), on));
            }
        }
        out
    }

    /// The pattern with colours swapped: ranks reversed, every piece's colour changed
    /// (pgn-extract's `FENPatternI`).
    pub fn flipped(&self) -> Pattern {
        Pattern::of_ranks(
            self.ranks
                .iter()
                .rev()
                .map(|r| {
                    r.iter()
                        .map(|t| match t {
                            Token::Square(c) => Token::Square(c.flipped()),
                            Token::Star => Token::Star,
                        })
                        .collect()
                })
                .collect(),
        )
    }
}

impl std::fmt::Display for Pattern {
    /// The pattern written again (empty squares as digits, sets as written).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, rank) in self.ranks.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            let mut empty = 0;
            for t in rank {
                if *t == Token::Square(Cond::Empty) {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    write!(f, "{empty}")?;
                    empty = 0;
                }
                match t {
                    Token::Star => f.write_str("*")?,
                    Token::Square(Cond::Any) => f.write_str("?")?,
                    Token::Square(Cond::Occupied) => f.write_str("!")?,
                    Token::Square(Cond::Is(one)) => write!(f, "{}", one.letter())?,
                    Token::Square(Cond::In(set) | Cond::NotIn(set)) => {
                        let negated = matches!(t, Token::Square(Cond::NotIn(_)));
                        f.write_str(if negated { "[^" } else { "[" })?;
                        for one in set {
                            write!(f, "{}", one.letter())?;
                        }
                        f.write_str("]")?;
                    }
                    Token::Square(Cond::Empty) => {}
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().as_setup().board.clone()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    /// After 1. d4 d5 2. c4 e6 3. cxd5 exd5: the Carlsbad structure.
    const CARLSBAD: &str = "rnbqkbnr/ppp2ppp/8/3p4/3P4/8/PP2PPPP/RNBQKBNR w KQkq - 0 4";

    #[test]
    fn the_pieces_a_pattern_pins() {
        let named = |text: &str| -> Vec<String> {
            Pattern::parse(text)
                .unwrap()
                .pinned()
                .iter()
                .map(|(sq, on)| {
                    let letters: String = on.iter().map(|p| p.char()).collect();
                    format!("{letters}{sq}")
                })
                .collect()
        };
        // A knight on d5 in front of a pawn on d6.
        assert_eq!(named("*/*/???p????/???N????/*/*/*/*"), ["pd6", "Nd5"]);
        // Before a star from file a, after it from file h; none between two stars.
        assert_eq!(named("k*R/*/*/*/*/*/*/q*Q*"), ["ka8", "Rh8", "qa1"]);
        // Sets and any-of-a-colour stand for their pieces; ! and [^..] pin nothing.
        assert_eq!(
            named("[Qq]!*[^P]/*/*/*/*/*/*/*a"),
            ["Qqa8".to_string(), "pnbrqkh1".to_string()]
        );
    }

    #[test]
    fn an_exact_board_matches_itself_only() {
        let p = Pattern::parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").unwrap();
        assert!(p.matches(&board(START)));
        assert!(!p.matches(&board(CARLSBAD)));
    }

    #[test]
    fn wildcards_sets_and_stars() {
        let carlsbad = board(CARLSBAD);
        for (pattern, expected) in [
            // Pawns on d4 and d5, anything elsewhere.
            ("*/*/*/3p*/3P*/*/*/*", true),
            ("*/*/*/*p4/*P4/*/*/*", true),
            ("*/*/*/*3p4/*/*/*/*", true),
            ("*/*/*/???p????/???P????/*/*/*", true),
            // No white pawn on c- or e-file on rank 4: c4 and e4 are empty.
            ("*/*/*/*/2[^P]?[^P]3/*/*/*", true),
            // Occupied squares.
            ("!!!!!!!!/*/*/*/*/*/*/*", true),
            ("*/*/*/!*/*/*/*/*", false),
            // A white piece on d4, a black one on d5.
            ("*/*/*/3a*/3A*/*/*/*", true),
            ("*/*/*/3A*/3a*/*/*/*", false),
            // Sets.
            ("*/*/*/*/3[NBP]4/*/*/*", true),
            ("*/*/*/*/3[NB]4/*/*/*", false),
            ("*/*/*/*/3[^NB]4/*/*/*", true),
            // No pawn on e7 (it took on d5); but one on e2. A digit is empty squares.
            ("*/????[^p]???/*/*/*/*/????[^P]???/*", false),
            ("*/????[^p]???/*/*/*/*/*/*", true),
            ("*/4[^p]3/*/*/*/*/*/*", false),
        ] {
            let p = Pattern::parse(pattern).unwrap();
            assert_eq!(p.matches(&carlsbad), expected, "{pattern}");
        }
    }

    #[test]
    fn the_fixed_squares_read_as_the_ranks_read() {
        // Positions of random games (a fixed generator), every pattern read both ways.
        let patterns = [
            "*/*/???p????/???N????/*/*/*/*",
            "?k*/*/*/*/*/*/*/??????K?",
            "*/*/??p?????/???p????/???P????/????P???/*/*",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "*/!*p/*/*3p4/*/*/*/[^P]*[Aa]",
            "k*R/*/*/*/*/*/*/q*Q*",
            "*/*p*P*/*/*/*N*b*/*/*/*",
            "[Qq]!*[^P]/*/*/*/*/*/*/*a",
            "*/*/*/*/2[^P]?[^P]3/*/*/*",
            "*/????[^p]???/*/*/*/*/????[^P]???/*",
            "!!!!!!!!/*/*/*/*/*/*/*",
        ];
        let patterns: Vec<Pattern> = patterns
            .iter()
            .flat_map(|t| {
                let p = Pattern::parse(t).unwrap();
                [p.flipped(), p]
            })
            .collect();
        let mut seed = 7u64;
        let (mut boards, mut held) = (0, 0);
        for _ in 0..40 {
            let mut pos = shakmaty::Chess::default();
            for _ in 0..120 {
                let b = shakmaty::Position::board(&pos).clone();
                for p in &patterns {
                    let fast = p.matches(&b);
                    assert_eq!(fast, p.matches_by_ranks(&b), "{p} on {b}");
                    held += usize::from(fast);
                }
                boards += 1;
                let moves = shakmaty::Position::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                shakmaty::Position::play_unchecked(&mut pos, m);
            }
        }
        // Both answers were met many times.
        assert!(
            boards > 1000 && held > 100,
            "{boards} boards, {held} matches"
        );
    }

    #[test]
    fn either_colour_is_the_board_mirrored_and_recoloured() {
        // A white knight on d5 is a black knight on d4 with colours swapped.
        let p = Pattern::parse("*/*/*/3N4/*/*/*/*").unwrap();
        assert_eq!(p.flipped().to_string(), "*/*/*/*/3n4/*/*/*");
        let b = board("4k3/8/8/8/3n4/8/8/4K3 w - - 0 1");
        assert!(!p.matches(&b));
        assert!(p.flipped().matches(&b));
        assert_eq!(p.flipped().flipped(), p);
        let sets = Pattern::parse("*/*/*/*/*/*/*/[^Aq]?a*").unwrap();
        assert_eq!(sets.flipped().to_string(), "[^aQ]?A*/*/*/*/*/*/*/*");
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("8/8/8/8/8/8/8", "7 part(s)"),
            ("8/8/8/8/8/8/8/7", "rank 1 (\"7\") covers 7 squares"),
            ("9/8/8/8/8/8/8/8", "'9' is not a piece letter"),
            ("8/8/8/8/8/8/8/[K", "a [ without its ]"),
            ("8/8/8/8/8/8/8/[]*", "an empty set"),
            ("8/8/8/8/8/8/8/[x]*", "'x' in [..]"),
            (
                "pppppppp?/8/8/8/8/8/8/8",
                "rank 8 (\"pppppppp?\") covers 9 squares",
            ),
            ("8/8/8/8/8/8/8/8 w - - 0 1", "the board part of a FEN only"),
        ] {
            let e = Pattern::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn written_again_it_reads_the_same() {
        for text in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "*/*/*/3p*/3P*/*/*/*",
            "[^Pp]7/!?A a*/*/*/*/*/*/*".replace(' ', "").as_str(),
            "2[NB]*/*/*/*/*/*/*/*",
        ] {
            let p = Pattern::parse(text).unwrap();
            assert_eq!(Pattern::parse(&p.to_string()).unwrap(), p, "{text}");
        }
    }
}
