//! Games changed after their import: tags edited, games deleted. Every statistic that
//! counted them changes with them, at once (see `docs/database.md`, *Editing and deleting
//! games*).

use serde::Serialize;

pub use tabiya_db::{Deleted, Edited, TagEdit};

use crate::database::Db;
use crate::error::{Error, ErrorKind, Result};

/// The edits of one game: tags to set (`TAG=VALUE`) and tags to remove.
#[derive(Debug, Clone, Default)]
pub struct EditRequest {
    pub set: Vec<String>,
    pub unset: Vec<String>,
}

impl EditRequest {
    /// The edits, each checked (a tag name PGN can hold, a Result PGN knows, no FEN).
    pub fn edits(&self) -> Result<Vec<TagEdit>> {
        let mut out = Vec::with_capacity(self.set.len() + self.unset.len());
        for s in &self.set {
            out.push(TagEdit::parse_set(s)?);
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
#[derive(Debug, Clone, Serialize)]
pub struct DeleteReport {
    #[serde(flatten)]
    pub deleted: Deleted,
    /// Games left in the database.
    pub games_left: u64,
}

impl Db {
    /// Edits one game's tags.
    pub fn edit_game(&self, id: u32, req: &EditRequest) -> Result<Edited> {
        let edits = req.edits()?;
        Ok(self.inner.edit_game(id, &edits)?)
    }

    /// Deletes games by id, in one transaction.
    pub fn delete_games(&self, ids: &[u32]) -> Result<DeleteReport> {
        if ids.is_empty() {
            return Err(Error::new(ErrorKind::BadRequest, "no game to delete: give --game ID"));
        }
        let deleted = self.inner.delete_games(ids)?;
        Ok(DeleteReport {
            deleted,
            games_left: self.inner.game_count()?,
        })
    }
}
