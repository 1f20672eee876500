//! Player and event names, searched as people type them: by prefix of any word, whatever
//! the case and the accents (`karpov` finds `Karpov, Anatoly`; `ljubo` finds
//! `Ljubojević, Ljubomir`; `anat` finds it too), and, after those, with a typo or two
//! (`kasprov` finds `Kasparov, Garry`: each query word of 4 letters or more may be one
//! edit — a letter added, dropped or changed, or two neighbours swapped — from the start of
//! a word of the name, two edits from 8 letters).

use serde::Serialize;
use tabiya_db::Dict;
use unicode_normalization::UnicodeNormalization;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// Which dictionary to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct NameHit {
    pub name: String,
    /// Found only with a typo allowed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fuzzy: bool,
    /// The player (event, site) it means, when shown under another name
    /// (`tabiya names list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub means: Option<String>,
    /// Players: the games of the player it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
}

/// Lower case, accents and other marks removed, punctuation as spaces.
pub fn fold(s: &str) -> String {
    s.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect()
}

/// Whether every word of `query` (folded) starts a word of `name` (folded), in any order.
fn matches(name: &str, query_words: &[&str]) -> bool {
    let words: Vec<&str> = name.split_whitespace().collect();
    query_words
        .iter()
        .all(|q| words.iter().any(|w| w.starts_with(q)))
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

/// Whether every word of the query starts a word of the name up to a few edits (see the
/// module): the query word against the name word's prefixes of about its length.
fn matches_fuzzy(name: &str, query_words: &[Vec<char>]) -> bool {
    let words: Vec<Vec<char>> = name
        .split_whitespace()
        .map(|w| w.chars().collect())
        .collect();
    query_words.iter().all(|q| {
        let k = allowed_edits(q.len());
        words.iter().any(|w| {
            let lo = q.len().saturating_sub(k);
            let hi = (q.len() + k).min(w.len());
            (lo..=hi).any(|n| n <= w.len() && edit_distance(q, &w[..n]) <= k)
        })
    })
}

/// Edit distance counting a letter added, dropped or changed, or two neighbours swapped, as
/// one edit each (optimal string alignment).
fn edit_distance(a: &[char], b: &[char]) -> usize {
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

/// The names of a chess database's dictionary that `query` finds (see the module), best
/// first: those whose whole name starts with the query, then alphabetical; at most
/// `limit`.
pub fn search(db: &Db, kind: NameKind, query: &str, limit: usize) -> Result<Vec<NameHit>> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its players are searched with the game filters",
            db.dir().display()
        )));
    }
    let q = fold(query);
    let words: Vec<&str> = q.split_whitespace().collect();
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let snap = db.inner()?.snapshot()?;
    let fuzzy_words: Vec<Vec<char>> = words.iter().map(|w| w.chars().collect()).collect();
    let typo_allowed = fuzzy_words.iter().any(|w| allowed_edits(w.len()) > 0);
    // (rank: 0 whole name starts with the query, 1 its words do, 2 with typos; folded; name;
    // id)
    let mut hits: Vec<(u8, String, String, u32)> = snap
        .names()
        .all(kind.dict())?
        .into_iter()
        .filter_map(|(id, name)| {
            let f = fold(&name);
            if matches(&f, &words) {
                Some((u8::from(!f.trim_start().starts_with(q.trim())), f, name, id))
            } else if typo_allowed && matches_fuzzy(&f, &fuzzy_words) {
                Some((2, f, name, id))
            } else {
                None
            }
        })
        .collect();
    hits.sort();
    hits.dedup_by(|a, b| a.2 == b.2);
    let entries = snap.entries(kind.dict())?;
    Ok(hits
        .into_iter()
        .take(limit)
        .map(|(rank, _, name, id)| {
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

    #[test]
    fn folding_and_matching() {
        assert_eq!(fold("Ljubojević, Ljubomir"), "ljubojevic  ljubomir");
        assert_eq!(fold("ÅKESSON Ralf"), "akesson ralf");
        let q = fold("ljubo");
        let w: Vec<&str> = q.split_whitespace().collect();
        assert!(matches(&fold("Ljubojević, Ljubomir"), &w));
        let q = fold("Karpov An");
        let w: Vec<&str> = q.split_whitespace().collect();
        assert!(matches(&fold("Karpov, Anatoly"), &w));
        assert!(!matches(&fold("Kasparov, Garry"), &w));
    }

    #[test]
    fn typos_within_the_allowed_edits() {
        let chars = |s: &str| -> Vec<Vec<char>> {
            fold(s)
                .split_whitespace()
                .map(|w| w.chars().collect())
                .collect()
        };
        // By hand: "kasprov" is "kasparov" with its second `a` dropped: one edit, allowed
        // at 7 letters.
        assert_eq!(
            edit_distance(&chars("kasprov")[0], &chars("kasparov")[0]),
            1
        );
        assert!(matches_fuzzy(&fold("Kasparov, Garry"), &chars("kasprov")));
        // A prefix with a typo: "kasoa" (5 letters) is one change from "kaspa".
        assert!(matches_fuzzy(&fold("Kasparov, Garry"), &chars("kasoa")));
        // Two words, each within its edits (a swap, a dropped letter), in any order.
        assert!(matches_fuzzy(&fold("Polgar, Judit"), &chars("juidt polgr")));
        // Short words get none: "kas" is not "kaz".
        assert!(!matches_fuzzy(&fold("Kazimdzhanov, Rustam"), &chars("kas")));
        // Two edits are too many under 8 letters.
        assert!(!matches_fuzzy(&fold("Karpov, Anatoly"), &chars("kasprv")));
        assert_eq!(edit_distance(&chars("kitten")[0], &chars("sitting")[0]), 3);
        assert_eq!(edit_distance(&chars("juidt")[0], &chars("judit")[0]), 1);
    }
}
