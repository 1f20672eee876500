//! Games changed after their import: tags edited, games deleted. Every statistic that
//! counted them changes with them, at once (see `docs/database.md`, *Editing and deleting
//! games*).

use serde::{Deserialize, Serialize};

pub use tabiya_db::{Deleted, Edited, TagEdit};

use crate::database::Db;
use crate::error::{Error, ErrorKind, Result};

/// The edits of one game: tags to set (name, value) and tags to remove (the body of
/// `PATCH /api/game/{id}`: `{"set": {"Result": "1-0"}, "unset": ["WhiteElo"]}`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditRequest {
    #[serde(default)]
    pub set: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub unset: Vec<String>,
}

impl EditRequest {
    /// From the command line's `TAG=VALUE` arguments and tag names.
    pub fn from_args(set: &[String], unset: &[String]) -> Result<EditRequest> {
        let mut req = EditRequest {
            unset: unset.to_vec(),
            ..EditRequest::default()
        };
        for s in set {
            if let TagEdit::Set(k, v) = TagEdit::parse_set(s)? {
                req.set.insert(k, v);
            }
        }
        Ok(req)
    }

    /// The edits, each checked (a tag name PGN can hold, a value the import would read back,
    /// a Result PGN knows, no FEN).
    pub fn edits(&self) -> Result<Vec<TagEdit>> {
        let mut out = Vec::with_capacity(self.set.len() + self.unset.len());
        for (k, v) in &self.set {
            out.push(TagEdit::Set(k.trim().to_string(), v.clone()));
        }
        for u in &self.unset {
            out.push(TagEdit::Unset(u.trim().to_string()));
        }
        if out.is_empty() {
            return Err(Error::new(
                ErrorKind::BadRequest,
                "nothing to change: give a tag to set (TAG=VALUE) or to unset",
            ));
        }
        for e in &out {
            tabiya_db::check_edit(e)?;
        }
        Ok(out)
    }
}

/// What `tabiya delete` reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeleteReport {
    #[serde(flatten)]
    pub deleted: Deleted,
    /// Games left in the database.
    pub games_left: u64,
}

/// Which games to delete: these ids, and the games of a gameset or meeting criteria (of
/// the gameset meeting the criteria when both are given).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteSelection {
    #[serde(default)]
    pub ids: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gameset: Option<String>,
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub criteria: Option<String>,
}

impl Db {
    /// Deletes the games selected, in one transaction.
    pub fn delete_selected(&self, sel: &DeleteSelection) -> Result<DeleteReport> {
        let mut ids = sel.ids.clone();
        if sel.gameset.is_some() || sel.criteria.is_some() {
            let snap = self.inner()?.snapshot()?;
            let chosen =
                crate::gamesets::selection(&snap, sel.gameset.as_deref(), sel.criteria.as_deref())?
                    .expect("a gameset or criteria");
            ids.extend(chosen.iter());
            if ids.is_empty() {
                return Ok(DeleteReport {
                    deleted: Deleted::default(),
                    games_left: self.inner()?.game_count()?,
                });
            }
        }
        self.delete_games(&ids)
    }

    /// Edits one game's tags. An edit the import would refuse (a tag past the bounds a
    /// game read from a file keeps, `tabiya_pgn::bounds`) is refused, naming the game.
    pub fn edit_game(&self, id: u32, req: &EditRequest) -> Result<Edited> {
        let edits = req.edits().map_err(|e| match e.kind() {
            ErrorKind::BadRequest => Error::new(e.kind(), format!("game {id}: {e}")),
            _ => e,
        })?;
        Ok(self.inner()?.edit_game(id, &edits)?)
    }

    /// Deletes games by id, in one transaction.
    pub fn delete_games(&self, ids: &[u32]) -> Result<DeleteReport> {
        if ids.is_empty() {
            return Err(Error::new(
                ErrorKind::BadRequest,
                "no game to delete: give --game ID",
            ));
        }
        let deleted = self.inner()?.delete_games(ids)?;
        Ok(DeleteReport {
            deleted,
            games_left: self.inner()?.game_count()?,
        })
    }
}
