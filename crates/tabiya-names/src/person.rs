//! Chess player names normalised for matching: which spellings may name the same person.
//!
//! Rules (the product owner's): "Robert Fischer", "Fischer, R." and "Fischer, Robert J." are
//! one player — surname first, an initial or the beginning of a given name matches the full
//! given name when nothing contradicts it, and case, spacing, punctuation and accents are
//! ignored — while "Bobby Fischer" stays another person until someone aliases it.

use std::borrow::Cow;

use crate::fold::{fold_compact, fold_into};

/// Lowercase words that belong to the surname that follows them ("Loek van Wely").
const PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "de", "da", "di", "du", "del", "della", "la", "le", "dos", "das",
    "ten", "ter",
];

/// A person's name, folded ([`crate::fold`]) and split into surname and given names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PersonName {
    /// The folded surname, words separated by one space (`van wely`).
    pub surname: String,
    /// The folded given names (or initials, or their beginnings) in order.
    pub given: Vec<String>,
}

impl PersonName {
    /// The surname with its spaces removed: "van Wely" and "vanWely" compare equal.
    pub fn surname_key(&self) -> String {
        self.surname.replace(' ', "")
    }
}

/// Parses a name as written in a PGN `White`/`Black` tag. `None` when it names nobody:
/// empty, `?`, `-`, `NN`, `N.N.`, `N N`, `NN NN` (a short name folding to `nn` or `nnnn`).
///
/// * A comma means "Surname, Given names" (`Polgar,Ju`, `van Wely, Loek`, `Fischer, R.J.`).
/// * Without a comma a single word is a surname; a name containing a digit is kept whole as a
///   surname (`Stockfish 16`); trailing one- or two-letter capitals after a surname are its
///   initials (`Fischer R`, `Speelman JS`, `Speelman J S`); otherwise the last word is the
///   surname, joined by the particles before it (`van`, `von`, `de`, `der`, … in any case,
///   unaccented:
///   `Loek van Wely` → `van wely`). Chinese order is not guessed: `Ding Liren` gives surname
///   `liren`, as for any "Given Surname" name.
/// * Initials written together in capitals (`Fischer, RJ`) are split into `r`, `j`, unless the
///   whole name is written in capitals.
/// * Bracketed text is ignored (`Polgar, Judit (GM)`, `Carlsen, Magnus (NOR)`).
pub fn parse(name: &str) -> Option<PersonName> {
    let mut p = Parsed::default();
    parse_into(name, &mut p).then(|| PersonName {
        surname: p.surname,
        given: p
            .given
            .split(' ')
            .filter(|g| !g.is_empty())
            .map(String::from)
            .collect(),
    })
}

/// A parsed name, compactly: given names folded and joined by single spaces. Reusable as a
/// buffer ([`parse_into`] clears it).
#[derive(Default)]
pub(crate) struct Parsed {
    /// Folded surname, words separated by spaces.
    pub surname: String,
    /// Folded given names joined by single spaces (empty when none).
    pub given: String,
    /// "Surname, Given names" from the words as written.
    pub display: String,
}

/// [`parse`] into `out`, with the name rendered "Surname, Given names" from the words as
/// written; false when the name is no person.
pub(crate) fn parse_into(name: &str, out: &mut Parsed) -> bool {
    out.surname.clear();
    out.given.clear();
    out.display.clear();
    let text = strip_brackets(name);
    if !text.chars().any(char::is_alphanumeric) {
        return false;
    }
    if text.len() <= 12 {
        let compact = fold_compact(&text);
        if compact.is_empty() || compact == "nn" || compact == "nnnn" {
            return false;
        }
    }
    let all_caps = !text.chars().any(char::is_lowercase);
    let (surname, given): (Vec<Span>, Vec<Span>) = match text.find(',') {
        Some(comma) if !words(&text[..comma], 0).is_empty() => (
            words(&text[..comma], 0),
            words(&text[comma + 1..], comma + 1),
        ),
        _ => split_without_comma(&text, all_caps),
    };
    join_into(&text, &surname, &mut out.display);
    fold_into(&out.display, &mut out.surname);
    for w in &given {
        let word = text[w.0..w.1].trim_end_matches('.');
        let len = word.chars().count();
        if !all_caps && (2..=3).contains(&len) && word.chars().all(|c| c.is_uppercase()) {
            for c in word.chars().flat_map(char::to_lowercase) {
                if !out.given.is_empty() {
                    out.given.push(' ');
                }
                out.given.push(c);
            }
        } else {
            fold_into(word, &mut out.given);
        }
    }
    if !given.is_empty() {
        out.display.push_str(", ");
        join_into(&text, &given, &mut out.display);
    }
    true
}

/// Whether two names may be the same person: the same surname (ignoring its spaces), and
/// their given names, position by position, equal or one the beginning of the other (`r` and
/// `robert`, `hi` and `hikaru`); the extra given names of the longer side are free.
/// `bobby` and `robert` are not compatible.
pub fn compatible(a: &PersonName, b: &PersonName) -> bool {
    same_surname(&a.surname, &b.surname) && given_compatible(&a.given, &b.given)
}

fn given_compatible<S: AsRef<str>>(a: &[S], b: &[S]) -> bool {
    tokens_compatible(a.iter().map(AsRef::as_ref), b.iter().map(AsRef::as_ref))
}

pub(crate) fn tokens_compatible<'a>(
    a: impl Iterator<Item = &'a str>,
    b: impl Iterator<Item = &'a str>,
) -> bool {
    a.zip(b).all(|(x, y)| x.starts_with(y) || y.starts_with(x))
}

fn same_surname(a: &str, b: &str) -> bool {
    a.chars()
        .filter(|&c| c != ' ')
        .eq(b.chars().filter(|&c| c != ' '))
}

/// A word: byte range in the text.
type Span = (usize, usize);

/// The words of `s` (offset by `base` into the whole text); a dot right after a word stays
/// with it for display.
fn words(s: &str, base: usize) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        let in_word = c.is_alphanumeric()
            || matches!(c, '\'' | '’' | '-')
            || unicode_normalization::char::is_combining_mark(c);
        match (start, in_word) {
            (None, true) => start = Some(i),
            (Some(st), false) => {
                let w = &s[st..i];
                if w.chars().any(char::is_alphanumeric) {
                    let end = if c == '.' { i + 1 } else { i };
                    out.push((base + st, base + end));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn split_without_comma(text: &str, all_caps: bool) -> (Vec<Span>, Vec<Span>) {
    let ws = words(text, 0);
    let bare = |w: &Span| text[w.0..w.1].trim_end_matches('.');
    if ws.len() <= 1
        || ws
            .iter()
            .any(|w| bare(w).chars().any(|c| c.is_ascii_digit()))
    {
        return (ws, Vec::new());
    }
    let max_len = if all_caps { 1 } else { 2 };
    let is_initials = |w: &Span| {
        let b = bare(w);
        let n = b.chars().count();
        (1..=max_len).contains(&n) && b.chars().all(char::is_uppercase)
    };
    let trailing = ws.iter().rev().take_while(|w| is_initials(w)).count();
    if trailing > 0 && trailing < ws.len() {
        let cut = ws.len() - trailing;
        return (ws[..cut].to_vec(), ws[cut..].to_vec());
    }
    let mut first = ws.len() - 1;
    while first > 0
        && PARTICLES
            .iter()
            .any(|p| p.eq_ignore_ascii_case(bare(&ws[first - 1])))
    {
        first -= 1;
    }
    (ws[first..].to_vec(), ws[..first].to_vec())
}

/// Appends the text from the first word's start to the last word's end, whitespace collapsed.
fn join_into(text: &str, ws: &[Span], out: &mut String) {
    if let (Some(a), Some(b)) = (ws.first(), ws.last()) {
        for (i, w) in text[a.0..b.1].split_whitespace().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(w);
        }
    }
}

/// Removes `(...)` and `[...]` groups (an unclosed one runs to the end).
fn strip_brackets(s: &str) -> Cow<'_, str> {
    if !s.contains(['(', '[']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut depth = 0u32;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    Cow::Owned(out)
}
