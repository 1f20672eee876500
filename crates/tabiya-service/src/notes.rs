//! Position notes: text (Markdown) kept with a chess position, found by any move order;
//! shown beside the explorer's answer, written into exported games on request.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use shakmaty::Position;
use shakmaty::fen::Fen;
use tabiya_db::chess::position_key;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::position::ChessPosition;

/// A position's note.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Note {
    pub fen: String,
    /// `None`: the position has none.
    pub note: Option<String>,
    /// `set`/`delete`: whether there was one before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<bool>,
}

fn check(db: &Db) -> Result<()> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: notes are kept on chess positions",
            db.dir().display()
        )));
    }
    Ok(())
}

fn fen(at: &ChessPosition) -> String {
    Fen::from_position(&at.pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// The note of a position.
pub fn show(db: &Db, at: &ChessPosition) -> Result<Note> {
    check(db)?;
    Ok(Note {
        fen: fen(at),
        note: db.inner()?.snapshot()?.note(position_key(&at.pos))?,
        replaced: None,
    })
}

/// Keeps `text` as a position's note (an empty text deletes it).
pub fn set(db: &Db, at: &ChessPosition, text: &str) -> Result<Note> {
    check(db)?;
    let had = db.inner()?.set_note(position_key(&at.pos), text)?;
    let text = text.trim();
    Ok(Note {
        fen: fen(at),
        note: (!text.is_empty()).then(|| text.to_string()),
        replaced: Some(had),
    })
}

/// Deletes a position's note.
pub fn delete(db: &Db, at: &ChessPosition) -> Result<Note> {
    set(db, at, "")
}

/// Every note, by position key (for writing them into games).
pub(crate) fn all(snap: &tabiya_db::Snapshot<'_>) -> Result<HashMap<u128, String>> {
    Ok(snap.notes()?.into_iter().collect())
}

/// Writes the notes into a game: each noted position's note as a comment at the first move
/// that reaches it (before the first move for the start position).
pub(crate) fn annotate(game: &mut tabiya_pgn::Game, notes: &HashMap<u128, String>) {
    if notes.is_empty() {
        return;
    }
    let mut pos = game.start.clone();
    let mut seen = Vec::new();
    if let Some(n) = notes.get(&position_key(&pos)) {
        game.comments.push(n.clone());
        seen.push(position_key(&pos));
    }
    for node in &mut game.moves {
        pos.play_unchecked(node.mv);
        let key = position_key(&pos);
        if let Some(n) = notes.get(&key)
            && !seen.contains(&key)
        {
            node.comments.push(n.clone());
            seen.push(key);
        }
    }
}
