//! Player and event names, searched as people type them: by prefix of any word, whatever
//! the case and the accents (`karpov` finds `Karpov, Anatoly`; `ljubo` finds
//! `Ljubojević, Ljubomir`; `anat` finds it too).

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
}

impl NameKind {
    pub fn from_name(s: &str) -> Result<NameKind> {
        match s {
            "player" => Ok(NameKind::Player),
            "event" => Ok(NameKind::Event),
            "site" => Ok(NameKind::Site),
            _ => Err(Error::bad_request(format!(
                "kind {s:?}: give player, event or site"
            ))),
        }
    }

    fn dict(self) -> Dict {
        match self {
            NameKind::Player => Dict::Player,
            NameKind::Event => Dict::Event,
            NameKind::Site => Dict::Site,
        }
    }
}

/// A name found.
#[derive(Debug, Clone, Serialize)]
pub struct NameHit {
    pub name: String,
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
    let snap = db.inner.snapshot()?;
    let mut hits: Vec<(bool, String, String)> = snap
        .names()
        .all(kind.dict())?
        .into_iter()
        .filter_map(|(_, name)| {
            let f = fold(&name);
            matches(&f, &words).then(|| (!f.trim_start().starts_with(q.trim()), f, name))
        })
        .collect();
    hits.sort();
    hits.dedup_by(|a, b| a.2 == b.2);
    Ok(hits
        .into_iter()
        .take(limit)
        .map(|(_, _, name)| NameHit { name })
        .collect())
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
}
