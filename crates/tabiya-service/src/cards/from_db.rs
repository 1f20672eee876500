//! Cards from the database's own games: the walk of `walk.rs` with the moves played in each
//! position, most played first (ties by UCI), each played in at least `min_games` games.

use shakmaty::{Chess, Move};
use tabiya_db::chess::code_to_move;

use super::add::{AddReport, check, store};
use super::view::{Side, uci};
use super::walk::{MoveSource, WalkLimits, walk};
use crate::database::Db;
use crate::error::{Error, Result};
use crate::position::ChessPosition;

struct Played<'a> {
    snap: tabiya_db::Snapshot<'a>,
    min_games: u64,
}

impl MoveSource for Played<'_> {
    fn moves(&mut self, pos: &Chess, _: bool) -> Result<Vec<Move>> {
        let stats = self.snap.chess_position(pos, 0)?;
        let mut ranked: Vec<(u64, String, Move)> = stats
            .moves
            .iter()
            .filter(|(_, s)| s.games() >= self.min_games)
            .filter_map(|(code, s)| {
                let m = code_to_move(pos, *code)?;
                Some((s.games(), uci(pos, m), m))
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(ranked.into_iter().map(|r| r.2).collect())
    }
}

/// Cards from the database's most played moves, walking from `at` to `limits.depth` plies.
pub fn from_db(
    db: &Db,
    at: &ChessPosition,
    side: Side,
    limits: WalkLimits,
    min_games: u64,
    now: u64,
) -> Result<AddReport> {
    check(db)?;
    if min_games == 0 {
        return Err(Error::bad_request("--min-games: at least 1"));
    }
    let (drafts, truncated) = {
        let mut source = Played {
            snap: db.inner()?.snapshot()?,
            min_games,
        };
        walk(&at.start, &at.moves, side, limits, &mut source)?
    };
    let mut report = store(db, drafts, None, "database", now)?;
    report.truncated = truncated;
    Ok(report)
}
