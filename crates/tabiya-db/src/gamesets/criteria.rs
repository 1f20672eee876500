//! The criteria of a gameset, as a user writes them (`docs/gamesets.md`): conditions on
//! tags, results, ratings, dates, length, opening, positions reached, material, annotations
//! and a repertoire file, joined by `and`, `or`, `not` and parentheses. Parsed here into an
//! [`Expr`]; an error names the offending word and its column.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::stats::GameOutcome;

/// A parsed criterion.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cond(Cond),
}

/// Whose name a name condition is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameField {
    White,
    Black,
    /// Either colour.
    Player,
    Event,
    Site,
}

/// How a text is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOp {
    /// Names: the same person, event or site (any spelling); other tags: equal but for case.
    Is,
    /// Contains (any case, accents and punctuation ignored).
    Contains,
}

/// Which rating a rating condition is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingField {
    /// Both players' ratings.
    Both,
    White,
    Black,
    /// The mean of both.
    Average,
}

/// An inclusive range of numbers (dates as `yyyymmdd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub min: u32,
    pub max: u32,
}

impl Range {
    pub fn contains(&self, v: u32) -> bool {
        self.min <= v && v <= self.max
    }
}

/// What material a game must reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Material {
    /// No queen of either colour on the board.
    Queenless,
    /// No pawn on the board.
    Pawnless,
    /// Exactly these pieces (kings implied): White's, then Black's, `Q R B N P` counts.
    Exactly { white: [u8; 5], black: [u8; 5] },
}

/// One condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Name {
        field: NameField,
        op: TextOp,
        value: String,
    },
    /// Any other tag by name (`eco`, `round`, `annotator`, `timecontrol`…).
    Tag {
        tag: String,
        op: TextOp,
        value: String,
    },
    /// The tag is present (and not empty).
    Has(String),
    Result(Vec<GameOutcome>),
    Rating(RatingField, Range),
    /// `yyyymmdd`; a game's unknown parts are 0, compared as written.
    Date(Range),
    Year(Range),
    Plies(Range),
    /// The game's opening name (the last named position along its moves) starts with the
    /// text (`=`) or contains it (`~`).
    Opening {
        op: TextOp,
        value: String,
    },
    /// The game reaches the position, by any move order.
    Reaches {
        key: u128,
        /// The position's FEN (what `show` prints).
        fen: String,
    },
    Material(Material),
    /// A structure query holds in some position of the main line (`pattern "…"`,
    /// `pawns "…"`, a signature with `*`, `+` or `m`: `material "KRP*vKRP*"`).
    Structure(std::sync::Arc<tabiya_structure::Query>),
    /// The game has comments, NAGs or variations.
    Annotated,
    /// The game stays inside the file's tree of moves for its first `plies` plies (all of
    /// them when `None`), or until the tree ends.
    Follows {
        file: String,
        plies: Option<u32>,
    },
}

/// A criterion that cannot be read: the message, and where (byte offset and length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub at: usize,
    pub len: usize,
}

impl ParseError {
    /// The message with the criterion and a caret under the offending word.
    pub fn explain(&self, text: &str) -> String {
        let col = text[..self.at.min(text.len())].chars().count();
        let width = text[self.at.min(text.len())..]
            .chars()
            .take(self.len.max(1))
            .count()
            .max(1);
        format!(
            "{} (column {})\n  {text}\n  {}{}",
            self.message,
            col + 1,
            " ".repeat(col),
            "^".repeat(width)
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Op(&'static str),
    Open,
    Close,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    at: usize,
    len: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let tok = match c {
            b'(' => {
                i += 1;
                Tok::Open
            }
            b')' => {
                i += 1;
                Tok::Close
            }
            b'\'' | b'"' => {
                let end = text[i + 1..].find(c as char).ok_or_else(|| ParseError {
                    message: "this quote is never closed".into(),
                    at: start,
                    len: 1,
                })?;
                i += end + 2;
                Tok::Str(text[start + 1..start + 1 + end].to_string())
            }
            b'=' | b'~' => {
                i += 1;
                if c == b'=' && b.get(i) == Some(&b'=') {
                    i += 1;
                }
                Tok::Op(if c == b'=' { "=" } else { "~" })
            }
            b'!' | b'<' | b'>' => {
                let two = b.get(i + 1);
                let (op, n) = match (c, two) {
                    (b'!', Some(b'=')) => ("!=", 2),
                    (b'!', Some(b'~')) => ("!~", 2),
                    (b'<', Some(b'=')) => ("<=", 2),
                    (b'>', Some(b'=')) => (">=", 2),
                    (b'<', Some(b'>')) => ("!=", 2),
                    (b'<', _) => ("<", 1),
                    (b'>', _) => (">", 1),
                    _ => {
                        return Err(ParseError {
                            message: "`!` goes with `=` or `~` (`!=`, `!~`); `not` negates".into(),
                            at: start,
                            len: 1,
                        });
                    }
                };
                i += n;
                Tok::Op(op)
            }
            _ => {
                let ends_word = |i: usize| {
                    b[i].is_ascii_whitespace()
                        || matches!(b[i], b'(' | b')' | b'=' | b'~' | b'<' | b'>' | b'\'' | b'"')
                        || (b[i] == b'!' && matches!(b.get(i + 1), Some(b'=') | Some(b'~')))
                };
                while i < b.len() && !ends_word(i) {
                    i += 1;
                }
                Tok::Word(text[start..i].to_string())
            }
        };
        out.push(Token {
            tok,
            at: start,
            len: i - start,
        });
    }
    Ok(out)
}

const WORDS: &str = "white, black, player, event, site, round, eco, result, elo, whiteelo, blackelo, \
avgelo, date, year, plies, opening, reaches, material, pattern, pawns, annotated, follows, has, \
a common tag by name (annotator, timecontrol, termination, …), or tag NAME for any tag";

/// The words a condition begins with, and the tags known by name: what a mistyped word is
/// compared with.
const FIELDS: [&str; 22] = [
    "white",
    "black",
    "player",
    "event",
    "site",
    "opening",
    "result",
    "elo",
    "whiteelo",
    "blackelo",
    "avgelo",
    "year",
    "plies",
    "date",
    "annotated",
    "has",
    "pattern",
    "pawns",
    "material",
    "reaches",
    "follows",
    "tag",
];

/// The known words nearest `word` (at most three, nearest first), by edit distance.
fn nearest(word: &str) -> Vec<String> {
    let mut near: Vec<(usize, String)> = FIELDS
        .iter()
        .map(|f| f.to_string())
        .chain(KNOWN_TAGS.iter().map(|t| t.to_ascii_lowercase()))
        .map(|f| (strsim::damerau_levenshtein(word, &f), f))
        .filter(|(d, f)| *d <= 2.max(f.len() / 3) && *d < f.len())
        .collect();
    near.sort();
    near.dedup_by(|a, b| a.1 == b.1);
    near.into_iter().take(3).map(|(_, f)| f).collect()
}

/// How deep `(` and `not` may nest: the parser, the compiler and the tree's drop recurse
/// once a level, and a deeper criterion overflowed the stack (found by fuzzing).
const MAX_DEPTH: usize = 64;

struct Parser<'t> {
    toks: &'t [Token],
    i: usize,
    end: usize,
    /// `(` and `not` open around the token being read.
    depth: usize,
    /// Any other word is a tag's name (criteria stored before `tag NAME` was asked for).
    words_are_tags: bool,
}

fn is_kw(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.toks.get(self.i)
    }

    fn next(&mut self) -> Option<&'t Token> {
        let t = self.toks.get(self.i);
        self.i += 1;
        t
    }

    fn err<T>(&self, t: Option<&Token>, message: impl Into<String>) -> Result<T, ParseError> {
        let (at, len) = t.map_or((self.end, 0), |t| (t.at, t.len));
        Err(ParseError {
            message: message.into(),
            at,
            len,
        })
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut parts = vec![self.and()?];
        while self.peek().is_some_and(|t| is_kw(&t.tok, "or")) {
            self.i += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one")
        } else {
            Expr::Or(parts)
        })
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut parts = vec![self.unary()?];
        while self.peek().is_some_and(|t| is_kw(&t.tok, "and")) {
            self.i += 1;
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one")
        } else {
            Expr::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        let Some(t) = self.next() else {
            return self.err(
                None,
                format!("a condition is missing at the end: one of {WORDS}"),
            );
        };
        let nests = matches!(&t.tok, Tok::Open) || is_kw(&t.tok, "not");
        if nests && self.depth >= MAX_DEPTH {
            return self.err(
                Some(t),
                format!("nested too deeply: at most {MAX_DEPTH} `(` and `not` inside each other"),
            );
        }
        match &t.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case("not") => {
                self.depth += 1;
                let e = self.unary();
                self.depth -= 1;
                Ok(Expr::Not(Box::new(e?)))
            }
            Tok::Open => {
                self.depth += 1;
                let e = self.or();
                self.depth -= 1;
                let e = e?;
                match self.next() {
                    Some(Token {
                        tok: Tok::Close, ..
                    }) => Ok(e),
                    other => self.err(other, "`)` expected to close the `(`"),
                }
            }
            Tok::Word(w) => self.condition(t, &w.to_ascii_lowercase()),
            _ => self.err(Some(t), format!("a condition expected: one of {WORDS}")),
        }
    }

    /// An operator and a value; `!=` and `!~` come back as `Is`/`Contains` with `true`.
    fn op(&mut self) -> Result<(&'t Token, &'static str), ParseError> {
        match self.next() {
            Some(
                t @ Token {
                    tok: Tok::Op(o), ..
                },
            ) => Ok((t, o)),
            other => self.err(
                other,
                "a comparison expected here (=, !=, ~, !~, <, <=, >, >=)",
            ),
        }
    }

    fn value(&mut self) -> Result<(&'t Token, String), ParseError> {
        match self.next() {
            Some(
                t @ Token {
                    tok: Tok::Word(w), ..
                },
            )
            | Some(
                t @ Token {
                    tok: Tok::Str(w), ..
                },
            ) => Ok((t, w.clone())),
            other => self.err(other, "a value expected here"),
        }
    }

    /// The value of `pattern`, `pawns` or `material`: after an optional `=`, a word or a
    /// string, in parentheses or not (`pattern("…")`).
    fn structure_value(&mut self) -> Result<(&'t Token, String), ParseError> {
        if matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Op("="),
                ..
            })
        ) {
            self.i += 1;
        }
        let open = matches!(self.peek(), Some(Token { tok: Tok::Open, .. }));
        if open {
            self.i += 1;
        }
        let v = self.value()?;
        if open {
            match self.next() {
                Some(Token {
                    tok: Tok::Close, ..
                }) => {}
                other => return self.err(other, "`)` expected after the value"),
            }
        }
        Ok(v)
    }

    /// `pattern "…"` or `pawns "…"`: a structure query of one part.
    fn structure(&mut self, word: &str) -> Result<Expr, ParseError> {
        let (vt, v) = self.structure_value()?;
        let fail = |message: String| ParseError {
            message,
            at: vt.at,
            len: vt.len,
        };
        let (pattern, pawns) = if word == "pattern" {
            let p = tabiya_structure::Pattern::parse(&v).map_err(|e| fail(e.to_string()))?;
            (Some(p), None)
        } else {
            let p = tabiya_structure::PawnStructure::parse(&v).map_err(|e| fail(e.to_string()))?;
            (None, Some(p))
        };
        let q = tabiya_structure::Query::new(pattern, None, pawns, false, 1, false)
            .map_err(|e| fail(e.to_string()))?;
        Ok(Expr::Cond(Cond::Structure(std::sync::Arc::new(q))))
    }

    fn text_cond(&mut self, make: impl Fn(TextOp, String) -> Cond) -> Result<Expr, ParseError> {
        let (ot, op) = self.op()?;
        let (_, v) = self.value()?;
        let (op, neg) = match op {
            "=" => (TextOp::Is, false),
            "!=" => (TextOp::Is, true),
            "~" => (TextOp::Contains, false),
            "!~" => (TextOp::Contains, true),
            _ => return self.err(Some(ot), "text compares with =, !=, ~ (contains) or !~"),
        };
        let c = Expr::Cond(make(op, v));
        Ok(if neg { Expr::Not(Box::new(c)) } else { c })
    }

    fn range_cond(
        &mut self,
        read: fn(&str, bool) -> Option<u32>,
        what: &str,
        make: impl Fn(Range) -> Cond,
    ) -> Result<Expr, ParseError> {
        let (ot, op) = self.op()?;
        let (vt, v) = self.value()?;
        let bad = |p: &Self| p.err::<Expr>(Some(vt), format!("{what} expected, not {v:?}"));
        if op == "~" || op == "!~" {
            return self.err(
                Some(ot),
                format!("{what} compares with =, !=, <, <=, >, >= or a..b"),
            );
        }
        if let Some((a, b)) = v.split_once("..") {
            if op != "=" && op != "!=" {
                return self.err(Some(ot), "a range a..b goes with = or !=");
            }
            let (Some(lo), Some(hi)) = (
                if a.is_empty() {
                    Some(0)
                } else {
                    read(a, false)
                },
                if b.is_empty() {
                    Some(u32::MAX)
                } else {
                    read(b, true)
                },
            ) else {
                return bad(self);
            };
            let c = Expr::Cond(make(Range { min: lo, max: hi }));
            return Ok(if op == "!=" {
                Expr::Not(Box::new(c))
            } else {
                c
            });
        }
        let (Some(lo), Some(hi)) = (read(&v, false), read(&v, true)) else {
            return bad(self);
        };
        let r = match op {
            "=" | "!=" => Range { min: lo, max: hi },
            "<" => Range {
                min: 0,
                max: lo.saturating_sub(1),
            },
            "<=" => Range { min: 0, max: hi },
            ">" => Range {
                min: hi.saturating_add(1),
                max: u32::MAX,
            },
            _ => Range {
                min: lo,
                max: u32::MAX,
            },
        };
        let c = Expr::Cond(make(r));
        Ok(if op == "!=" {
            Expr::Not(Box::new(c))
        } else {
            c
        })
    }

    fn condition(&mut self, t: &'t Token, word: &str) -> Result<Expr, ParseError> {
        let name = |field| move |op, value| Cond::Name { field, op, value };
        match word {
            "white" => self.text_cond(name(NameField::White)),
            "black" => self.text_cond(name(NameField::Black)),
            "player" => self.text_cond(name(NameField::Player)),
            "event" => self.text_cond(name(NameField::Event)),
            "site" => self.text_cond(name(NameField::Site)),
            "opening" => self.text_cond(|op, value| Cond::Opening { op, value }),
            "result" => {
                let (ot, op) = self.op()?;
                let (vt, v) = self.value()?;
                let outcomes = match v.to_ascii_lowercase().as_str() {
                    "1-0" | "white" => vec![GameOutcome::FirstWins],
                    "0-1" | "black" => vec![GameOutcome::SecondWins],
                    "1/2-1/2" | "½-½" | "draw" | "1/2" => vec![GameOutcome::Draw],
                    "*" | "unknown" => vec![GameOutcome::Unknown],
                    "decisive" => vec![GameOutcome::FirstWins, GameOutcome::SecondWins],
                    _ => {
                        return self.err(
                            Some(vt),
                            "a result is 1-0, 0-1, 1/2-1/2 (or draw), * or decisive",
                        );
                    }
                };
                let c = Expr::Cond(Cond::Result(outcomes));
                match op {
                    "=" => Ok(c),
                    "!=" => Ok(Expr::Not(Box::new(c))),
                    _ => self.err(Some(ot), "a result compares with = or !="),
                }
            }
            "elo" | "whiteelo" | "blackelo" | "avgelo" => {
                let field = match word {
                    "elo" => RatingField::Both,
                    "whiteelo" => RatingField::White,
                    "blackelo" => RatingField::Black,
                    _ => RatingField::Average,
                };
                self.range_cond(number, "a rating", move |r| Cond::Rating(field, r))
            }
            "year" => self.range_cond(number, "a year", Cond::Year),
            "plies" => self.range_cond(number, "a number of plies", Cond::Plies),
            "date" => self.range_cond(date, "a date (2024, 2024.05 or 2024.05.17)", Cond::Date),
            "annotated" => Ok(Expr::Cond(Cond::Annotated)),
            "has" => {
                let (vt, v) = self.value()?;
                if v.is_empty() {
                    return self.err(Some(vt), "a tag name expected after `has`");
                }
                Ok(Expr::Cond(Cond::Has(v)))
            }
            "pattern" | "pawns" => self.structure(word),
            "material" => {
                if matches!(
                    self.peek(),
                    Some(Token {
                        tok: Tok::Op("="),
                        ..
                    })
                ) {
                    self.i += 1;
                }
                let (vt, v) = self.structure_value()?;
                if let Some(m) = material(&v) {
                    return Ok(Expr::Cond(Cond::Material(m)));
                }
                // A signature with `*`, `+` or `m` is a structure search's; an exact one that
                // did not read above is a mistake (more than 255 of a piece included).
                let wildcard = v.contains(['*', '+', 'm', 'M']);
                let structure = wildcard
                    .then(|| tabiya_structure::Material::parse(&v).ok())
                    .flatten()
                    .and_then(|m| {
                        tabiya_structure::Query::new(None, Some(m), None, false, 1, false).ok()
                    });
                match structure {
                    Some(q) => Ok(Expr::Cond(Cond::Structure(std::sync::Arc::new(q)))),
                    None => self.err(
                        Some(vt),
                        "material is queenless, pawnless, or the pieces beside the kings as \
                         White's v Black's: RPvR, QvRR, v (kings alone), with * (any number), \
                         + (one or more) or m (a minor piece): \"KRP*vKRP*\"",
                    ),
                }
            }
            "reaches" => self.reaches(t),
            "follows" => {
                let (_, file) = self.value()?;
                let plies = match self.peek() {
                    Some(Token {
                        tok: Tok::Word(w), ..
                    }) if w.parse::<u32>().is_ok() => {
                        self.i += 1;
                        w.parse().ok()
                    }
                    _ => None,
                };
                Ok(Expr::Cond(Cond::Follows { file, plies }))
            }
            "and" | "or" => self.err(Some(t), format!("a condition expected before `{word}`")),
            "tag" => {
                let tag = match self.next() {
                    Some(Token {
                        tok: Tok::Word(w) | Tok::Str(w),
                        ..
                    }) if !w.trim().is_empty() => w.trim().to_string(),
                    other => {
                        return self.err(
                            other.or(Some(t)),
                            "a tag's name expected after `tag` (tag WhiteFideId = 4100018)",
                        );
                    }
                };
                let tag = canonical_tag(&tag);
                self.text_cond(move |op, value| Cond::Tag {
                    tag: tag.clone(),
                    op,
                    value,
                })
            }
            _ if KNOWN_TAGS.iter().any(|k| k.eq_ignore_ascii_case(word))
                || (self.words_are_tags
                    && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) =>
            {
                let tag = canonical_tag(word);
                self.text_cond(move |op, value| Cond::Tag {
                    tag: tag.clone(),
                    op,
                    value,
                })
            }
            _ if word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                let near = nearest(word);
                let hint = match &near[..] {
                    [] => String::new(),
                    [one] => format!("; did you mean {one}?"),
                    many => format!("; did you mean {}?", many.join(" or ")),
                };
                self.err(
                    Some(t),
                    format!(
                        "unknown field {word}{hint} (a PGN tag is asked for with tag NAME: tag {word} = 'value'; the fields: {WORDS})"
                    ),
                )
            }
            _ => self.err(Some(t), format!("not a condition: one of {WORDS}")),
        }
    }

    fn reaches(&mut self, kw: &'t Token) -> Result<Expr, ParseError> {
        if matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Op("="),
                ..
            })
        ) {
            self.i += 1;
        }
        // A quoted FEN, a quoted line of moves, or moves up to the next keyword.
        let (first, text) = match self.peek() {
            Some(
                t @ Token {
                    tok: Tok::Str(s), ..
                },
            ) => {
                self.i += 1;
                (t, s.clone())
            }
            Some(
                t @ Token {
                    tok: Tok::Word(_), ..
                },
            ) => {
                let mut words = Vec::new();
                while let Some(Token {
                    tok: Tok::Word(w), ..
                }) = self.peek()
                {
                    if ["and", "or", "not"]
                        .iter()
                        .any(|k| w.eq_ignore_ascii_case(k))
                    {
                        break;
                    }
                    words.push(w.clone());
                    self.i += 1;
                }
                (t, words.join(" "))
            }
            other => {
                return self.err(
                    other.or(Some(kw)),
                    "a FEN in quotes or moves expected after `reaches`",
                );
            }
        };
        let pos = if text.contains('/') {
            let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| ParseError {
                message: format!("not a FEN ({e})"),
                at: first.at,
                len: first.len,
            })?;
            fen.into_position::<Chess>(CastlingMode::Standard)
                .map_err(|e| ParseError {
                    message: format!("not a legal position ({e})"),
                    at: first.at,
                    len: first.len,
                })?
        } else {
            let start = Chess::default();
            let moves = tabiya_pgn::typed::play_line(&start, &text).map_err(|(message, at)| {
                // Point at the move itself when it is a word of its own (words
                // before it: those of the text before it).
                let n = text[..at].split_whitespace().count();
                let word = match first.tok {
                    Tok::Word(_) => self
                        .toks
                        .iter()
                        .filter(|t| t.at >= first.at)
                        .nth(n)
                        .unwrap_or(first),
                    _ => first,
                };
                ParseError {
                    message,
                    at: word.at,
                    len: word.len,
                }
            })?;
            let mut pos = start;
            for m in moves {
                pos.play_unchecked(m);
            }
            pos
        };
        Ok(Expr::Cond(Cond::Reaches {
            key: crate::chess::position_key(&pos),
            fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
        }))
    }
}

/// Tags by their usual spelling (`eco` → `ECO`, `timecontrol` → `TimeControl`); others as
/// written (compared without case anyway).
fn canonical_tag(word: &str) -> String {
    KNOWN_TAGS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(word))
        .map_or_else(|| word.to_string(), |k| k.to_string())
}

/// Tags a condition names as a word of its own (`eco = B90`); any other is `tag NAME`.
const KNOWN_TAGS: [&str; 14] = [
    "ECO",
    "Round",
    "Annotator",
    "TimeControl",
    "Termination",
    "EventDate",
    "Opening",
    "Variation",
    "PlyCount",
    "WhiteTitle",
    "BlackTitle",
    "WhiteTeam",
    "BlackTeam",
    "Mode",
];

fn number(s: &str, _hi: bool) -> Option<u32> {
    s.parse().ok()
}

/// `2024` → 20240000..20241231; `2024.05` → its month; `2024.05.17` the day (`-` or `/` too).
fn date(s: &str, hi: bool) -> Option<u32> {
    let parts: Vec<&str> = s.split(['.', '-', '/']).collect();
    let num = |p: &str, max: u32| p.parse::<u32>().ok().filter(|v| *v <= max);
    let y = num(parts.first()?, 9999)?;
    let (m, d) = match parts.len() {
        1 => (if hi { 12 } else { 0 }, if hi { 31 } else { 0 }),
        2 => (num(parts[1], 12)?, if hi { 31 } else { 0 }),
        3 => (num(parts[1], 12)?, num(parts[2], 31)?),
        _ => return None,
    };
    Some(y * 10000 + m * 100 + d)
}

fn material(s: &str) -> Option<Material> {
    match s.to_ascii_lowercase().as_str() {
        "queenless" => return Some(Material::Queenless),
        "pawnless" => return Some(Material::Pawnless),
        _ => {}
    }
    let (w, b) = s.split_once(['v', 'V', '-'])?;
    let count = |side: &str| -> Option<[u8; 5]> {
        let mut n = [0u8; 5];
        for c in side.chars() {
            let i = match c.to_ascii_uppercase() {
                'K' => continue,
                'Q' => 0,
                'R' => 1,
                'B' => 2,
                'N' => 3,
                'P' => 4,
                _ => return None,
            };
            // More than 255 of a piece is no material a game can have.
            n[i] = n[i].checked_add(1)?;
        }
        Some(n)
    };
    Some(Material::Exactly {
        white: count(w)?,
        black: count(b)?,
    })
}

/// Parses a criterion: an unknown word is a mistake, named with the nearest known ones.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    parse_with(text, false)
}

/// Parses a criterion stored by an earlier version, when any other word was a tag's name
/// (a gameset made then keeps its meaning).
pub fn parse_stored(text: &str) -> Result<Expr, ParseError> {
    parse_with(text, true)
}

fn parse_with(text: &str, words_are_tags: bool) -> Result<Expr, ParseError> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err(ParseError {
            message: format!(
                "no criteria: give conditions such as avgelo >= 2500 and result = '1-0' ({WORDS})"
            ),
            at: 0,
            len: 0,
        });
    }
    let mut p = Parser {
        toks: &toks,
        i: 0,
        end: text.len(),
        depth: 0,
        words_are_tags,
    };
    let e = p.or()?;
    if let Some(t) = p.peek() {
        return p.err(
            Some(t),
            "`and` or `or` expected before this (quote a value with spaces: 'Carlsen, Magnus')",
        );
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(e: &Expr) -> &Cond {
        match e {
            Expr::Cond(c) => c,
            _ => panic!("{e:?}"),
        }
    }

    #[test]
    fn the_issue_example_parses() {
        let e = parse("avgelo >= 2500 and result = '1-0'").unwrap();
        let Expr::And(parts) = e else { panic!() };
        assert_eq!(
            cond(&parts[0]),
            &Cond::Rating(
                RatingField::Average,
                Range {
                    min: 2500,
                    max: u32::MAX
                }
            )
        );
        assert_eq!(cond(&parts[1]), &Cond::Result(vec![GameOutcome::FirstWins]));
    }

    #[test]
    fn precedence_not_and_or_parentheses() {
        let e = parse("not white = Carlsen and (year = 2019 or year=2021) or annotated").unwrap();
        let Expr::Or(ors) = e else { panic!() };
        assert_eq!(ors.len(), 2);
        let Expr::And(ands) = &ors[0] else { panic!() };
        assert!(matches!(ands[0], Expr::Not(_)));
        assert!(matches!(ands[1], Expr::Or(_)));
        assert_eq!(cond(&ors[1]), &Cond::Annotated);
    }

    #[test]
    fn dates_and_ranges() {
        let e = parse("date = 2019.05").unwrap();
        assert_eq!(
            cond(&e),
            &Cond::Date(Range {
                min: 20190500,
                max: 20190531
            })
        );
        let e = parse("date < 2000").unwrap();
        assert_eq!(
            cond(&e),
            &Cond::Date(Range {
                min: 0,
                max: 19999999
            })
        );
        let e = parse("elo = 2500..2600").unwrap();
        assert_eq!(
            cond(&e),
            &Cond::Rating(
                RatingField::Both,
                Range {
                    min: 2500,
                    max: 2600
                }
            )
        );
        let e = parse("plies > 40").unwrap();
        assert_eq!(
            cond(&e),
            &Cond::Plies(Range {
                min: 41,
                max: u32::MAX
            })
        );
    }

    #[test]
    fn reaches_by_moves_or_fen_is_one_position() {
        let a = parse("reaches e4 c5 Nf3").unwrap();
        let b = parse("reaches 'rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2'")
            .unwrap();
        let c = parse("reaches 1.Nf3 c5 2.e4 and result = draw").unwrap();
        let key = |e: &Expr| match e {
            Expr::Cond(Cond::Reaches { key, .. }) => *key,
            Expr::And(p) => match &p[0] {
                Expr::Cond(Cond::Reaches { key, .. }) => *key,
                _ => panic!(),
            },
            _ => panic!(),
        };
        assert_eq!(key(&a), key(&b));
        assert_eq!(key(&a), key(&c));
    }

    #[test]
    fn other_tags_material_follows() {
        assert_eq!(
            cond(&parse("eco ~ B9").unwrap()),
            &Cond::Tag {
                tag: "ECO".into(),
                op: TextOp::Contains,
                value: "B9".into()
            }
        );
        assert_eq!(
            cond(&parse("material RPvR").unwrap()),
            &Cond::Material(Material::Exactly {
                white: [0, 1, 0, 0, 1],
                black: [0, 1, 0, 0, 0]
            })
        );
        assert_eq!(
            cond(&parse("follows 'my rep.pgn' 12").unwrap()),
            &Cond::Follows {
                file: "my rep.pgn".into(),
                plies: Some(12)
            }
        );
        assert!(matches!(
            parse("white != 'Kasparov, Garry'").unwrap(),
            Expr::Not(_)
        ));
    }

    #[test]
    fn structure_criteria_read_as_structure_queries() {
        for text in [
            "material(\"KRP*vKRP*\")",
            "material = 'KRvKmm'",
            "pattern \"*/*/???p????/???N????/*/*/*/*\"",
            "pawns(\"8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8\")",
        ] {
            assert!(
                matches!(parse(text), Ok(Expr::Cond(Cond::Structure(_)))),
                "{text}: {:?}",
                parse(text)
            );
        }
        assert!(matches!(
            parse("material RPvR"),
            Ok(Expr::Cond(Cond::Material(Material::Exactly { .. })))
        ));
        let e = parse("pattern(\"8/8\")").unwrap_err();
        assert!(e.message.contains("2 part(s)"), "{}", e.message);
        let e = parse("pawns \"8/8/8/8/8/8/8/P7\"").unwrap_err();
        assert!(e.message.contains("first or last rank"), "{}", e.message);
        let e = parse("pattern(\"*/*/*/*/*/*/*/*\" and year = 1").unwrap_err();
        assert!(e.message.contains("`)` expected"), "{}", e.message);
    }

    #[test]
    fn errors_point_at_the_word() {
        let text = "avgelo >= 25x0 and result = '1-0'";
        let e = parse(text).unwrap_err();
        assert_eq!(&text[e.at..e.at + e.len], "25x0");
        // An unknown word is a mistake, named with the nearest known words; a tag is asked
        // for as `tag NAME` (a stored criterion of an earlier version keeps the old meaning).
        let text = "result = '1-0' and colour = white";
        let e = parse(text).unwrap_err();
        assert_eq!(&text[e.at..e.at + e.len], "colour");
        assert!(
            e.message.starts_with("unknown field colour ("),
            "{}",
            e.message
        );
        assert!(parse_stored(text).is_ok());
        let text = "reslt = '1-0'";
        let e = parse(text).unwrap_err();
        assert!(
            e.message.starts_with("unknown field reslt; did you mean result? (a PGN tag is asked for with tag NAME: tag reslt = 'value'"),
            "{}",
            e.message
        );
        let e = parse("whitelo >= 2500").unwrap_err();
        assert!(
            e.message.contains("did you mean whiteelo or white?"),
            "{}",
            e.message
        );
        let e = parse("tag = 3").unwrap_err();
        assert!(
            e.message.contains("a tag's name expected after `tag`"),
            "{}",
            e.message
        );
        for (text, tag) in [
            ("tag WhiteFideId = 4100018", "WhiteFideId"),
            ("tag 'Black Team' ~ 'Riga'", "Black Team"),
            ("tag timecontrol = 40/7200", "TimeControl"),
            ("timecontrol = 40/7200", "TimeControl"),
        ] {
            let Cond::Tag { tag: got, .. } = cond(&parse(text).unwrap()).clone() else {
                panic!("{text}")
            };
            assert_eq!(got, tag, "{text}");
        }
        let text = "result = '1-0' and";
        let e = parse(text).unwrap_err();
        assert_eq!(e.at, text.len());
        let text = "reaches e4 e5 Ke3 and annotated";
        let e = parse(text).unwrap_err();
        assert_eq!(&text[e.at..e.at + e.len], "Ke3");
        assert!(
            e.message.contains("move 2. \"Ke3\": not legal here"),
            "{}",
            e.message
        );
        let text = "(year = 2000";
        let e = parse(text).unwrap_err();
        assert!(e.message.contains(")"));
        let text = "year = 2000 white = x";
        let e = parse(text).unwrap_err();
        assert_eq!(&text[e.at..e.at + e.len], "white");
        let e = parse("result = 'won'").unwrap_err();
        assert!(
            e.explain("result = 'won'").contains("^^^^^"),
            "{}",
            e.explain("result = 'won'")
        );
    }
}
