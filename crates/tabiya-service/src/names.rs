//! Player and event names, searched as people type them: by prefix of any word, whatever
//! the case and the accents (`karpov` finds `Karpov, Anatoly`; `ljubo` finds
//! `Ljubojević, Ljubomir`; `anat` finds it too), and, after those, with a typo or two
//! (`kasprov` finds `Kasparov, Garry`: each query word of 4 letters or more may be one
//! edit — a letter added, dropped or changed, or two neighbours swapped — from the start of
//! a word of the name, two edits from 8 letters).
//!
//! A query is at most [`MAX_QUERY_CHARS`] characters. Each name is read once, folded as it
//! goes; of each of its words only the start a comparison can use is kept (the query word's
//! length plus its edits), and the typo test is a banded edit distance that stops once every
//! alignment needs more than the edits allowed: a search costs time in proportion to the
//! names' length, and memory for the hits, whatever names a database holds.

use serde::Serialize;
use tabiya_db::Dict;
use unicode_normalization::UnicodeNormalization;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// Which dictionary to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NameKind {
    Player,
    Event,
    Site,
    Annotator,
}

impl NameKind {
    pub fn from_name(s: &str) -> Result<NameKind> {
        match s {
            "player" => Ok(NameKind::Player),
            "event" => Ok(NameKind::Event),
            "site" => Ok(NameKind::Site),
            "annotator" => Ok(NameKind::Annotator),
            _ => Err(Error::bad_request(format!(
                "kind {s:?}: give player, event, site or annotator"
            ))),
        }
    }

    /// As a command line or query string writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            NameKind::Player => "player",
            NameKind::Event => "event",
            NameKind::Site => "site",
            NameKind::Annotator => "annotator",
        }
    }

    pub(crate) fn dict(self) -> Dict {
        match self {
            NameKind::Player => Dict::Player,
            NameKind::Event => Dict::Event,
            NameKind::Site => Dict::Site,
            NameKind::Annotator => Dict::Annotator,
        }
    }
}

/// A name found.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct NameHit {
    pub name: String,
    /// Found only with a typo allowed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fuzzy: bool,
    /// The player (event, site) it means, when shown under another name
    /// (`tabiya names list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub means: Option<String>,
    /// Players: the games of the player it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
}

/// Longest query searched: 100 characters once folded ([`fold`]: case, accents and
/// punctuation; spaces at either end not counted). A longer one is refused as a bad request
/// naming this limit: no name is typed that long, and the typo search's work per name grows
/// with the query (a query of a stored 60,000-character name once asked for 28 GB).
pub const MAX_QUERY_CHARS: usize = 100;

/// Chars of a hit's folded name kept for sorting; names equal that far are compared on,
/// folded as they are read, so a huge name is never folded whole into memory.
const SORT_HEAD: usize = 64;

/// Lower case, accents and other marks removed, punctuation as spaces.
pub fn fold(s: &str) -> String {
    folded(s).collect()
}

/// [`fold`] as it goes: every char folded is a letter or digit, or a space.
fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
}

/// Edits a query word may be from a name's word: none under 4 letters, one from 4, two
/// from 8.
fn allowed_edits(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// A word of the query, folded.
struct QueryWord {
    chars: Vec<char>,
    /// [`allowed_edits`] of its length.
    edits: usize,
}

/// A query as names are compared with it.
struct Query {
    /// The folded query without spaces at either end: a name that starts with it ranks
    /// first.
    whole: Vec<char>,
    words: Vec<QueryWord>,
    /// Whether some word may be found with a typo.
    typo_allowed: bool,
    /// How much of a name's word any comparison reads: the longest query word plus its
    /// edits (a name's word is compared from its start, by prefix).
    head: usize,
}

impl Query {
    /// The query folded and split into words (`None`: it has none); longer than
    /// [`MAX_QUERY_CHARS`] once folded, refused.
    fn new(text: &str) -> Result<Option<Query>> {
        let q = fold(text);
        let whole: Vec<char> = q.trim().chars().collect();
        if whole.len() > MAX_QUERY_CHARS {
            return Err(Error::bad_request(format!(
                "a name search is at most {MAX_QUERY_CHARS} characters (once case, accents and punctuation are folded); this one has {}: type the start of a name",
                whole.len()
            )));
        }
        let words: Vec<QueryWord> = q
            .split_whitespace()
            .map(|w| {
                let chars: Vec<char> = w.chars().collect();
                QueryWord {
                    edits: allowed_edits(chars.len()),
                    chars,
                }
            })
            .collect();
        if words.is_empty() {
            return Ok(None);
        }
        Ok(Some(Query {
            typo_allowed: words.iter().any(|w| w.edits > 0),
            head: words
                .iter()
                .map(|w| w.chars.len() + w.edits)
                .max()
                .unwrap_or(0),
            whole,
            words,
        }))
    }
}

/// What [`Query::rank`] reuses from name to name.
#[derive(Default)]
struct Scratch {
    /// The start of the name's word being read (at most [`Query::head`] chars).
    word: Vec<char>,
    /// Per query word: found as the start of a word; found with its edits.
    exact: Vec<bool>,
    fuzzy: Vec<bool>,
    band: Band,
}

impl Query {
    /// How `name` is found, if it is (see the module): 0 the whole name (folded) starts
    /// with the query, 1 every query word starts a word of the name, 2 every query word
    /// starts one up to its edits. One pass over the name folded as it is read; of each of
    /// its words only the first [`Query::head`] chars are kept and compared, with a banded
    /// edit distance (`O(edits × word)`), so a name of any length costs time in proportion
    /// to its length and no memory beyond the scratch.
    fn rank(&self, name: &str, s: &mut Scratch) -> Option<u8> {
        s.exact.clear();
        s.exact.resize(self.words.len(), false);
        s.fuzzy.clear();
        s.fuzzy.resize(self.words.len(), false);
        s.word.clear();
        // The name's leading spaces are skipped; `at` chars of the whole query matched so
        // far, `starts` while they all have.
        let (mut lead, mut at, mut starts) = (true, 0usize, true);
        let mut in_word = false;
        for c in folded(name) {
            if lead && c == ' ' {
                continue;
            }
            lead = false;
            if starts && at < self.whole.len() {
                if c == self.whole[at] {
                    at += 1;
                } else {
                    starts = false;
                }
            }
            if c == ' ' {
                if in_word {
                    in_word = false;
                    self.word_read(s);
                    s.word.clear();
                    if s.exact.iter().all(|&e| e) && (!starts || at == self.whole.len()) {
                        // Found without typos, its rank known: the rest cannot change it.
                        break;
                    }
                }
            } else {
                in_word = true;
                if s.word.len() < self.head {
                    s.word.push(c);
                }
            }
        }
        if in_word {
            self.word_read(s);
        }
        if s.exact.iter().all(|&e| e) {
            Some(u8::from(!(starts && at == self.whole.len())))
        } else if self.typo_allowed && s.fuzzy.iter().all(|&f| f) {
            Some(2)
        } else {
            None
        }
    }

    /// One word of the name (its first [`Query::head`] chars in `s.word`) against every
    /// query word not yet found.
    fn word_read(&self, s: &mut Scratch) {
        let w = &s.word;
        for (i, q) in self.words.iter().enumerate() {
            if s.exact[i] {
                continue;
            }
            let n = q.chars.len();
            if w.len() >= n && w[..n] == q.chars[..] {
                s.exact[i] = true;
                s.fuzzy[i] = true;
            } else if self.typo_allowed
                && !s.fuzzy[i]
                && q.edits > 0
                // A word shorter than the query word by more than its edits is no match.
                && w.len() + q.edits >= n
                && prefix_distance(&q.chars, &w[..w.len().min(n + q.edits)], q.edits, &mut s.band)
                    .is_some()
            {
                s.fuzzy[i] = true;
            }
        }
    }
}

/// Three rows of the edit-distance table, reused.
#[derive(Default)]
struct Band {
    cells: Vec<usize>,
}

impl Band {
    /// The last row of the table of edits (optimal string alignment: a letter added,
    /// dropped or changed, or two neighbours swapped, one edit each) from `a`'s prefixes to
    /// `b`'s, computed only within `k` of its diagonal, where any distance up to `k` lies
    /// (each step off the diagonal is an edit), each cell capped at `k + 1` (more than
    /// `k`): `O(k × |a|)` time, three rows of `|b| + 1` cells. Gives the first column of
    /// the band and its cells (`row[j]` is the distance from `a` to `b[..lo + j]`, exact
    /// up to `k`); `None` as soon as a whole row exceeds `k` (every later one does too).
    fn last_row(&mut self, a: &[char], b: &[char], k: usize) -> Option<(usize, &[usize])> {
        let (m, over) = (b.len(), k + 1);
        let w = m + 1;
        self.cells.clear();
        self.cells.resize(3 * w, over);
        for j in 0..=m.min(k) {
            self.cells[j] = j;
        }
        let (mut lo, mut hi) = (0, m.min(k));
        for i in 1..=a.len() {
            lo = i.saturating_sub(k);
            hi = (i + k).min(m);
            if lo > hi {
                return None;
            }
            let (cur, prev, prev2) = ((i % 3) * w, ((i - 1) % 3) * w, ((i + 1) % 3) * w);
            // Cells beside the band read as more than k (the row held row i - 3 before).
            if lo > 0 {
                self.cells[cur + lo - 1] = over;
            }
            if hi < m {
                self.cells[cur + hi + 1] = over;
            }
            let mut least = over;
            for j in lo..=hi {
                let v = if j == 0 {
                    i.min(over)
                } else {
                    let c = &self.cells;
                    let mut v = (c[prev + j - 1] + usize::from(a[i - 1] != b[j - 1]))
                        .min(c[prev + j] + 1)
                        .min(c[cur + j - 1] + 1);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        v = v.min(c[prev2 + j - 2] + 1);
                    }
                    v.min(over)
                };
                self.cells[cur + j] = v;
                least = least.min(v);
            }
            if least > k {
                return None;
            }
        }
        let row = (a.len() % 3) * w;
        Some((lo, &self.cells[row + lo..=row + hi]))
    }
}

/// The edits from `a` to `b` (optimal string alignment), if at most `k`: strings whose
/// lengths differ by more than `k` are told apart before any work, the rest in
/// `O(k × len)` time (see [`Band::last_row`]).
#[cfg(test)]
fn bounded_distance(a: &[char], b: &[char], k: usize, band: &mut Band) -> Option<usize> {
    if a.len().abs_diff(b.len()) > k {
        return None;
    }
    let (lo, row) = band.last_row(a, b, k)?;
    Some(row[b.len() - lo]).filter(|&d| d <= k)
}

/// The fewest edits from `q` to a prefix of `w` of about its length (`|q| - k` to `|q| +
/// k` letters: what the typo search compares), if at most `k`. Only `w`'s first `|q| + k`
/// letters matter (`w` may be given cut there).
fn prefix_distance(q: &[char], w: &[char], k: usize, band: &mut Band) -> Option<usize> {
    let w = &w[..w.len().min(q.len() + k)];
    if w.len() + k < q.len() {
        return None;
    }
    let (_, row) = band.last_row(q, w, k)?;
    row.iter().copied().min().filter(|&d| d <= k)
}

/// A name found, as sorted: rank, then the folded name (its first [`SORT_HEAD`] chars kept,
/// the rest folded again when two heads are equal), then the name as written, then its id.
struct Hit {
    rank: u8,
    head: String,
    /// `head` is [`SORT_HEAD`] chars: the folded name may go on.
    cut: bool,
    name: String,
    id: u32,
}

impl Hit {
    fn new(rank: u8, name: String, id: u32) -> Hit {
        let head: String = folded(&name).take(SORT_HEAD).collect();
        Hit {
            cut: head.chars().count() == SORT_HEAD,
            rank,
            head,
            name,
            id,
        }
    }

    fn order(&self, other: &Hit) -> std::cmp::Ordering {
        self.rank
            .cmp(&other.rank)
            .then_with(|| self.head.cmp(&other.head))
            .then_with(|| {
                if self.cut && other.cut {
                    folded(&self.name)
                        .skip(SORT_HEAD)
                        .cmp(folded(&other.name).skip(SORT_HEAD))
                } else {
                    // Equal heads, one of them whole: the names fold alike.
                    std::cmp::Ordering::Equal
                }
            })
            .then_with(|| self.name.cmp(&other.name))
            .then_with(|| self.id.cmp(&other.id))
    }
}

/// The names `query` finds among `names` (id, name), best first: those whose whole name
/// starts with the query, then those whose words do, then those found with typos; each
/// alphabetical (folded); each name once.
fn found(names: Vec<(u32, String)>, query: &Query) -> Vec<Hit> {
    let mut scratch = Scratch::default();
    let mut hits: Vec<Hit> = names
        .into_iter()
        .filter_map(|(id, name)| {
            let rank = query.rank(&name, &mut scratch)?;
            Some(Hit::new(rank, name, id))
        })
        .collect();
    hits.sort_by(Hit::order);
    hits.dedup_by(|a, b| a.name == b.name);
    hits
}

/// The names of a chess database's dictionary that `query` finds (see the module), best
/// first: those whose whole name starts with the query, then alphabetical; at most
/// `limit`. A query longer than [`MAX_QUERY_CHARS`] once folded is a bad request.
pub fn search(db: &Db, kind: NameKind, query: &str, limit: usize) -> Result<Vec<NameHit>> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its players are searched with the game filters",
            db.dir().display()
        )));
    }
    let Some(query) = Query::new(query)? else {
        return Ok(Vec::new());
    };
    let snap = db.inner()?.snapshot()?;
    let hits = found(snap.names().all(kind.dict())?, &query);
    let entries = snap.entries(kind.dict())?;
    Ok(hits
        .into_iter()
        .take(limit)
        .map(|Hit { rank, name, id, .. }| {
            let entry = entries
                .entry_of_spelling(id)
                .map(|e| &entries.entries[e as usize]);
            NameHit {
                means: entry.map(|e| e.name.clone()).filter(|m| *m != name),
                games: entry.filter(|_| kind == NameKind::Player).map(|e| e.games),
                name,
                fuzzy: rank == 2,
            }
        })
        .collect())
}

/// Every name of a chess database's dictionary, alphabetical (folded), from `offset`, at
/// most `limit`; and how many there are.
pub fn list(db: &Db, kind: NameKind, offset: usize, limit: usize) -> Result<(u64, Vec<String>)> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its players are listed with `tabiya wthor csv`",
            db.dir().display()
        )));
    }
    let snap = db.inner()?.snapshot()?;
    let mut all: Vec<(String, String)> = snap
        .names()
        .all(kind.dict())?
        .into_iter()
        .map(|(_, n)| (fold(&n), n))
        .collect();
    all.sort();
    all.dedup_by(|a, b| a.1 == b.1);
    let total = all.len() as u64;
    Ok((
        total,
        all.into_iter()
            .skip(offset)
            .take(limit)
            .map(|(_, n)| n)
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edits from `a` to `b` (optimal string alignment), the whole table: what the
    /// banded distance must agree with.
    fn full_distance(a: &[char], b: &[char]) -> usize {
        let w = b.len() + 1;
        let mut d = vec![0usize; (a.len() + 1) * w];
        for i in 0..=a.len() {
            d[i * w] = i;
        }
        for (j, cell) in d.iter_mut().enumerate().take(w) {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                d[i * w + j] = v;
            }
        }
        d[a.len() * w + b.len()]
    }

    /// The search as it was before the bounds, whole names folded and split, every prefix
    /// compared by a full table: what [`Query::rank`] must agree with.
    fn rank_before(name: &str, query: &str) -> Option<u8> {
        let q = fold(query);
        let words: Vec<&str> = q.split_whitespace().collect();
        let f = fold(name);
        let name_words: Vec<&str> = f.split_whitespace().collect();
        if words
            .iter()
            .all(|q| name_words.iter().any(|w| w.starts_with(q)))
        {
            return Some(u8::from(!f.trim_start().starts_with(q.trim())));
        }
        let qw: Vec<Vec<char>> = words.iter().map(|w| w.chars().collect()).collect();
        let nw: Vec<Vec<char>> = name_words.iter().map(|w| w.chars().collect()).collect();
        let typo_allowed = qw.iter().any(|w| allowed_edits(w.len()) > 0);
        let fuzzy = qw.iter().all(|q| {
            let k = allowed_edits(q.len());
            nw.iter().any(|w| {
                let lo = q.len().saturating_sub(k);
                let hi = (q.len() + k).min(w.len());
                (lo..=hi).any(|n| n <= w.len() && full_distance(q, &w[..n]) <= k)
            })
        });
        (typo_allowed && fuzzy).then_some(2)
    }

    fn rank(name: &str, query: &str) -> Option<u8> {
        Query::new(query)
            .unwrap()
            .and_then(|q| q.rank(name, &mut Scratch::default()))
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// A small random generator (splitmix64), seeded: the same strings every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        /// A string of up to `max` chars from `alphabet`, often a copy of `like` with a
        /// few edits (a change, an insertion, a deletion, a swap).
        fn string(&mut self, alphabet: &[char], max: usize, like: &[char]) -> Vec<char> {
            if like.is_empty() || self.below(3) == 0 {
                let n = self.below(max + 1);
                return (0..n)
                    .map(|_| alphabet[self.below(alphabet.len())])
                    .collect();
            }
            let mut s = like.to_vec();
            for _ in 0..self.below(4) {
                let p = self.below(s.len() + 1);
                let c = alphabet[self.below(alphabet.len())];
                match self.below(4) {
                    0 if p < s.len() => s[p] = c,
                    1 => s.insert(p, c),
                    2 if p < s.len() => {
                        s.remove(p);
                    }
                    3 if p + 1 < s.len() => s.swap(p, p + 1),
                    _ => {}
                }
            }
            s
        }
    }

    #[test]
    fn folding_and_matching() {
        assert_eq!(fold("Ljubojević, Ljubomir"), "ljubojevic  ljubomir");
        assert_eq!(fold("ÅKESSON Ralf"), "akesson ralf");
        assert_eq!(rank("Ljubojević, Ljubomir", "ljubo"), Some(0));
        // The comma folds to a space: "karpov  anatoly" does not start with "karpov an".
        assert_eq!(rank("Karpov, Anatoly", "Karpov An"), Some(1));
        assert_eq!(rank("Karpov, Anatoly", "Karpov, An"), Some(0));
        assert_eq!(rank("Karpov, Anatoly", "anat karp"), Some(1));
        assert_eq!(rank("Kasparov, Garry", "Karpov An"), None);
    }

    #[test]
    fn typos_within_the_allowed_edits() {
        let mut band = Band::default();
        // By hand: "kasprov" is "kasparov" with its second `a` dropped: one edit, allowed
        // at 7 letters.
        assert_eq!(
            bounded_distance(&chars("kasprov"), &chars("kasparov"), 1, &mut band),
            Some(1)
        );
        assert_eq!(rank("Kasparov, Garry", "kasprov"), Some(2));
        // A prefix with a typo: "kasoa" (5 letters) is one change from "kaspa".
        assert_eq!(rank("Kasparov, Garry", "kasoa"), Some(2));
        // Two words, each within its edits (a swap, a dropped letter), in any order.
        assert_eq!(rank("Polgar, Judit", "juidt polgr"), Some(2));
        // Short words get none: "kas" is not "kaz".
        assert_eq!(rank("Kazimdzhanov, Rustam", "kas"), None);
        // Two edits are too many under 8 letters.
        assert_eq!(rank("Karpov, Anatoly", "kasprv"), None);
        // kitten → sitting: two changes and an insertion, 3 edits.
        assert_eq!(
            bounded_distance(&chars("kitten"), &chars("sitting"), 3, &mut band),
            Some(3)
        );
        assert_eq!(
            bounded_distance(&chars("kitten"), &chars("sitting"), 2, &mut band),
            None
        );
        assert_eq!(
            bounded_distance(&chars("juidt"), &chars("judit"), 1, &mut band),
            Some(1)
        );
        // Lengths 5 and 9 differ by 4: more than 3 edits without a table.
        assert_eq!(
            bounded_distance(&chars("abcde"), &chars("abcdefghi"), 3, &mut band),
            None
        );
    }

    /// The banded distance against the whole table on many strings, near and far, for
    /// every bound from 0 to 4: the same distance when it is at most the bound, "more"
    /// otherwise; the prefix distance likewise against every prefix of about the length.
    #[test]
    fn the_banded_distance_is_the_full_one_up_to_its_bound() {
        let mut rng = Rng(31);
        let mut band = Band::default();
        let alphabets = [chars("ab"), chars("abc"), chars("karpovsi"), chars("aé€𝄞z")];
        let (mut near, mut far) = (0, 0);
        for round in 0..60_000 {
            let alphabet = &alphabets[round % alphabets.len()];
            let a = rng.string(alphabet, 12, &[]);
            let b = rng.string(alphabet, 14, &a);
            let d = full_distance(&a, &b);
            for k in 0..=4 {
                let got = bounded_distance(&a, &b, k, &mut band);
                if d <= k {
                    near += 1;
                    assert_eq!(got, Some(d), "{a:?} {b:?} k={k}");
                } else {
                    far += 1;
                    assert_eq!(got, None, "{a:?} {b:?} k={k}: {d} edits");
                }
                let want = (a.len().saturating_sub(k)..=(a.len() + k).min(b.len()))
                    .map(|n| full_distance(&a, &b[..n]))
                    .min()
                    .filter(|&d| d <= k);
                assert_eq!(
                    prefix_distance(&a, &b, k, &mut band),
                    want,
                    "prefix {a:?} {b:?} k={k}"
                );
            }
        }
        // Both sides of the bound were tried, many times.
        assert!(near > 50_000 && far > 50_000, "{near} {far}");
    }

    /// The search's rank of a name against the search before the bounds on random names
    /// and queries of several words (punctuation, accents, case, repeated spaces).
    #[test]
    fn ranks_are_as_before() {
        let mut rng = Rng(7);
        let alphabet = chars("aAbBkKpPrRoOvé, .-");
        let mut found = [0usize; 4];
        let mut scratch = Scratch::default();
        for round in 0..40_000 {
            let name: String = rng.string(&alphabet, 24, &[]).into_iter().collect();
            let query: String = if round % 2 == 0 {
                // Cut from the name, with edits: often found, with or without typos.
                let from = rng.below(name.chars().count() + 1);
                let cut: Vec<char> = name.chars().skip(from).take(1 + rng.below(12)).collect();
                rng.string(&alphabet, 12, &cut).into_iter().collect()
            } else {
                rng.string(&alphabet, 12, &[]).into_iter().collect()
            };
            let Some(q) = Query::new(&query).unwrap() else {
                continue; // no words: the search finds nothing, before as now
            };
            // (The scratch goes from name to name, as in a search.)
            let got = q.rank(&name, &mut scratch);
            assert_eq!(got, rank_before(&name, &query), "{name:?} {query:?}");
            found[got.map_or(3, usize::from)] += 1;
        }
        // Every outcome came up.
        assert!(found.iter().all(|&n| n > 500), "{found:?}");
    }

    /// A name of 60,000 letters (what an edit could once store) and one of 8 KiB of words
    /// among ordinary ones: found or not as their starts say, without folding them whole
    /// beyond a sort key; a query over the limit is refused, naming it.
    #[test]
    fn huge_names_and_queries() {
        let long_word = "k".repeat(30_000) + &"a".repeat(30_000);
        let many_words = "Karpov ".repeat(1_170); // 8,190 bytes
        let names = vec![
            (1, "Karpov, Anatoly".to_string()),
            (2, long_word.clone()),
            (3, many_words.clone()),
            (4, "Kasparov, Garry".to_string()),
            (5, format!("Kkk{}", "z".repeat(59_997))),
        ];
        let hits = |q: &str| -> Vec<(u8, u32)> {
            found(names.clone(), &Query::new(q).unwrap().unwrap())
                .into_iter()
                .map(|h| (h.rank, h.id))
                .collect()
        };
        // By hand: "karpov" starts names 1 and 3, and each whole name (rank 0; "karpov  a…"
        // before "karpov k…"); 4's "kaspa", "kaspar", "kasparo" are 3 or more edits away.
        assert_eq!(hits("karpov"), [(0, 1), (0, 3)]);
        // "kkkk" (4 letters: one edit) starts 2; 5 starts "kkkz", one change: a typo.
        assert_eq!(hits("kkkk"), [(0, 2), (2, 5)]);
        // "kkka" starts neither: 2's "kkk" is one deletion, 5's "kkkz" one change; 1, 3 and
        // 4 start "kar"/"kas", 3 edits or more.
        assert_eq!(hits("kkka"), [(2, 2), (2, 5)]);
        // "anatoly karpov" (two words, any order): name 1, not the word-repeating 3.
        assert_eq!(hits("anatoly karpov"), [(1, 1)]);
        // 100 characters is the limit; 101 and 10,000 are refused, naming it.
        let at_limit = "k".repeat(MAX_QUERY_CHARS);
        assert_eq!(hits(&at_limit), [(0, 2)]);
        for n in [MAX_QUERY_CHARS + 1, 10_000, 60_000] {
            let e = Query::new(&"k".repeat(n)).err().expect("refused");
            assert_eq!(e.kind(), crate::error::ErrorKind::BadRequest);
            assert!(e.to_string().contains("at most 100 characters"), "{e}");
        }
        // Folded, not raw: 150 characters of punctuation around a word are one word.
        assert_eq!(
            hits(&format!("{}karpov{}", ",".repeat(75), "-".repeat(75))).len(),
            2
        );
    }
}
