//! Cards from a repertoire (`crate::repertoire`): the walk of `walk.rs` with the
//! repertoire's moves — a card for each of your positions with your move(s) there (any of
//! them is right), every prepared reply of the other side followed. Keyed by position: a
//! position the repertoire reaches by two move orders is one card.

use shakmaty::{Chess, Move};

use super::add::{AddReport, check, store};
use super::view::Side;
use super::walk::{MoveSource, WalkLimits, walk};
use crate::database::Db;
use crate::error::Result;
use crate::repertoire::Repertoire;

impl MoveSource for &Repertoire {
    fn moves(&mut self, pos: &Chess, _for_side: bool) -> Result<Vec<Move>> {
        Ok(self.moves_at(pos).to_vec())
    }
}

/// Cards from `rep` for `side`, from its first start position to `depth` plies, at most
/// `max_cards`.
pub fn from_repertoire(
    db: &Db,
    rep: &Repertoire,
    side: Side,
    depth: u32,
    max_cards: usize,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    let start = rep.roots.first().cloned().unwrap_or_default();
    let limits = WalkLimits {
        depth,
        best: usize::MAX,
        max_cards,
    };
    let mut source = rep;
    let (drafts, truncated) = walk(&start, &[], side, limits, &mut source)?;
    let file = std::path::Path::new(&rep.name)
        .file_name()
        .map_or_else(|| rep.name.clone(), |f| f.to_string_lossy().into_owned());
    let mut report = store(db, drafts, None, &format!("repertoire {file}"), now)?;
    report.truncated = truncated;
    Ok(report)
}
