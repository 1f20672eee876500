//! Gamesets: named criteria whose games are kept current (`docs/gamesets.md`) — made,
//! listed, shown, their games listed, deleted, computed again; and the games a gameset or a
//! criterion selects, for every command that reads games (`--gameset`, `--where`).

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
pub use tabiya_db::{Gameset, IdSet};

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::inputs::{Whole, read_whole};

fn check(db: &Db) -> Result<()> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: gamesets are kept for chess databases",
            db.dir().display()
        )));
    }
    Ok(())
}

/// Where the repertoires a criterion follows (`follows FILE`) come from: the caller says
/// whether files may be read at all.
#[derive(Debug, Clone, Copy)]
pub enum Repertoires<'a> {
    /// Files of this machine (the command line): a relative name from this folder, each
    /// read with [`crate::inputs::read_whole`] as [`Whole::Follows`] (a regular file of at
    /// most 16 MiB).
    Files { base: &'a Path },
    /// No file is read (a request from the network): only these texts, by the name the
    /// criterion gives (name, PGN text); a criterion naming another is refused, with the
    /// same message whatever the name and whether or not such a file exists.
    Sent(&'a [(String, String)]),
}

/// The repertoires `criteria` follow, read from files of this machine (a relative name from
/// `base`) as [`create`] reads them: what a command sends to the server that holds the
/// database, which reads no file (name, PGN text).
pub fn read_followed(criteria: &str, base: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for n in tabiya_db::files_of(criteria).map_err(Error::bad_request)? {
        let text = read_one_followed(base, &n)?;
        out.push((n, text));
    }
    Ok(out)
}

/// The text of one repertoire file a criterion follows (`follows NAME`, from `base`).
fn read_one_followed(base: &Path, name: &str) -> Result<String> {
    let bytes = read_whole(&base.join(name), Whole::Follows)
        .map_err(|e| Error::new(e.kind(), format!("follows {name}: {e}")))?;
    Ok(latin1_or_utf8(bytes))
}

/// Makes a gameset of the games meeting `criteria` (among `from`'s games when given). A
/// repertoire the criteria follow comes from `repertoires` and is kept in the database.
pub fn create(
    db: &Db,
    name: &str,
    criteria: &str,
    from: Option<&str>,
    repertoires: Repertoires<'_>,
) -> Result<Gameset> {
    check(db)?;
    let names = tabiya_db::files_of(criteria).map_err(Error::bad_request)?;
    let mut files = Vec::new();
    for n in names {
        let text = match repertoires {
            Repertoires::Files { base } => read_one_followed(base, &n)?,
            Repertoires::Sent(sent) => match sent.iter().find(|(s, _)| *s == n) {
                Some((_, text)) => text.clone(),
                None => return Err(Error::bad_request(not_sent(&n))),
            },
        };
        files.push((n, text));
    }
    if let Repertoires::Sent(sent) = repertoires
        && let Some((extra, _)) = sent
            .iter()
            .find(|(s, _)| !files.iter().any(|(n, _)| n == s))
    {
        return Err(Error::bad_request(format!(
            "a repertoire {extra:?} was sent, but the criteria follow no repertoire of that name (`follows {extra}`)"
        )));
    }
    Ok(db.inner()?.create_gameset(name, criteria, from, files)?)
}

/// Why a criterion following a repertoire that was not sent is refused: no file is read
/// for a request from the network, so the answer says nothing of any file.
fn not_sent(name: &str) -> String {
    format!(
        "follows {name}: no file is read for a request over HTTP; a repertoire is sent in the request, its PGN text under the name the criterion gives: {{\"name\": …, \"where\": \"follows {name}\", \"repertoires\": {{\"{name}\": \"1. e4 e5 2. Nf3 …\"}}}} (as POST /api/repertoire takes one in its body)"
    )
}

/// Text that is UTF-8 as it is, else read as ISO-8859-1 byte for byte.
fn latin1_or_utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| e.into_bytes().iter().map(|&b| b as char).collect())
}

/// The repertoire files criteria follow, as written.
pub fn files_of(criteria: &str) -> Result<Vec<String>> {
    tabiya_db::files_of(criteria).map_err(Error::bad_request)
}

/// Every gameset.
pub fn list(db: &Db) -> Result<Vec<Gameset>> {
    check(db)?;
    Ok(db.inner()?.snapshot()?.gamesets()?)
}

/// A gameset shown: what it is and the ranges of ids its games make.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Shown {
    #[serde(flatten)]
    pub gameset: Gameset,
    /// `[first, last]` ids, inclusive, in order.
    pub id_ranges: Vec<(u32, u32)>,
}

pub fn show(db: &Db, name: &str) -> Result<Shown> {
    check(db)?;
    let (gameset, ids) = db.inner()?.snapshot()?.gameset(name)?;
    Ok(Shown {
        gameset,
        id_ranges: ids.ranges(),
    })
}

/// The games of a gameset, or of a criterion, by id.
pub fn ids(db: &Db, name: &str) -> Result<IdSet> {
    check(db)?;
    Ok(db.inner()?.snapshot()?.gameset(name)?.1)
}

/// The games meeting a criterion now (not kept).
pub fn ids_where(db: &Db, criteria: &str) -> Result<IdSet> {
    check(db)?;
    Ok(db.inner()?.snapshot()?.games_where(criteria)?)
}

/// The games a gameset and/or criterion select, for a filter (`None` when neither is
/// given).
pub(crate) fn selection(
    snap: &tabiya_db::Snapshot<'_>,
    gameset: Option<&str>,
    criteria: Option<&str>,
) -> Result<Option<Arc<IdSet>>> {
    let mut out: Option<IdSet> = None;
    if let Some(name) = gameset {
        out = Some(snap.gameset(name)?.1);
    }
    if let Some(c) = criteria {
        let found = snap.games_where(c)?;
        out = Some(match out {
            Some(mut s) => {
                s.intersect(&found);
                s
            }
            None => found,
        });
    }
    Ok(out.map(Arc::new))
}

/// One game of a list.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Row {
    pub id: u32,
    pub white: String,
    pub black: String,
    pub result: String,
    pub date: String,
    pub event: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eco: Option<String>,
}

/// A page of a gameset's games.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Games {
    pub gameset: String,
    pub total: u64,
    pub games: Vec<Row>,
}

/// The games of a gameset, in id order, from `offset`, at most `limit`.
pub fn games(db: &Db, name: &str, offset: usize, limit: usize) -> Result<Games> {
    check(db)?;
    let snap = db.inner()?.snapshot()?;
    let (g, ids) = snap.gameset(name)?;
    let mut games = Vec::new();
    for id in ids.iter().skip(offset).take(limit) {
        let tags = snap.chess_tags(id)?.ok_or_else(|| {
            Error::new(crate::ErrorKind::Damaged, format!("game {id} is missing"))
        })?;
        let tag = |k: &str| {
            tags.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        games.push(Row {
            id,
            white: tag("White"),
            black: tag("Black"),
            result: tag("Result"),
            date: tag("Date"),
            event: tag("Event"),
            eco: Some(tag("ECO")).filter(|e| !e.is_empty()),
        });
    }
    Ok(Games {
        gameset: g.name,
        total: ids.len(),
        games,
    })
}

/// Deletes a gameset (its games stay).
pub fn delete(db: &Db, name: &str) -> Result<Gameset> {
    check(db)?;
    Ok(db.inner()?.delete_gameset(name)?)
}

/// Judges every game again for a gameset and those made from it.
pub fn refresh(db: &Db, name: &str) -> Result<Vec<Gameset>> {
    check(db)?;
    Ok(db.inner()?.refresh_gameset(name)?)
}
