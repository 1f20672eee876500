//! Game ids of a set: `MEMBER:ID`, the member's place in the set (1 = the first given) and
//! the game's id in that member, so no two games of a set share a name and every member's
//! ids stay what they are. A database alone keeps its plain ids.

use crate::database::Db;
use crate::error::{Error, Result};

/// The name of game `id` of member `member` (0-based) of `db`: `MEMBER:ID` in a set, the
/// plain id in a database alone.
pub fn name(db: &Db, member: usize, id: u32) -> String {
    if db.is_set() {
        format!("{}:{id}", member + 1)
    } else {
        id.to_string()
    }
}

/// The member (0-based) and the member's id of the game named `text` in `db` (an error of
/// kind `NotFound` naming the form expected).
pub fn parse(db: &Db, text: &str) -> Result<(usize, u32)> {
    let n = db.members.len();
    if !db.is_set() {
        return text
            .parse()
            .map(|id| (0, id))
            .map_err(|_| Error::not_found(format!("no game {text:?}: give a game's number")));
    }
    let bad = || {
        Error::not_found(format!(
            "no game {text:?}: a game of this set of {n} databases is named MEMBER:ID (1 to \
             {n}, then the game's number in that member), like 1:42"
        ))
    };
    let (m, id) = text.split_once(':').ok_or_else(bad)?;
    let m: usize = m
        .parse()
        .ok()
        .filter(|m| (1..=n).contains(m))
        .ok_or_else(bad)?;
    let id: u32 = id.parse().map_err(|_| bad())?;
    Ok((m - 1, id))
}

/// Renames a member's answer's game `id` (its plain id) as the set names it.
pub(crate) fn rename(db: &Db, member: usize, id: &mut String) {
    if let Ok(n) = id.parse::<u32>() {
        *id = name(db, member, n);
    }
}
