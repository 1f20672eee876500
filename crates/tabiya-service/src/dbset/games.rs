//! A page of a set's games: every member's first `offset + limit` games in the order asked,
//! merged in the order one database would give them (ties: the member's place, then its
//! id, as if the members' games were numbered one member after the other), then paged.

use std::cmp::Ordering;

use tabiya_db::GameSort;
use tabiya_db::chess::{ChessGames, GameRow};

use super::ids;
use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::position::ChessPosition;

/// A page of a set's games (`crate::games::chess_filtered` of one database).
pub fn games(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    sort: GameSort,
    offset: usize,
    limit: usize,
) -> Result<ChessGames> {
    let want = offset.saturating_add(limit);
    let mut total = 0;
    let mut all: Vec<(usize, u32, GameRow)> = Vec::new();
    for (m, member) in db.members.iter().enumerate() {
        let snap = member.snapshot()?;
        let f = filter.resolve(&snap)?;
        let page = snap.chess_games_filtered(&at.pos, at.mode, &f, sort, 0, want)?;
        total += page.total;
        all.extend(
            page.games
                .into_iter()
                .map(|g| (m, g.id.parse().unwrap_or(u32::MAX), g)),
        );
    }
    let order = |a: &(usize, u32, GameRow), b: &(usize, u32, GameRow)| -> Ordering {
        let then = (a.0, a.1).cmp(&(b.0, b.1));
        sort.order((&a.2.facts, &a.2.list), (&b.2.facts, &b.2.list))
            .then(then)
    };
    all.sort_by(order);
    let games = all
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(m, id, mut g)| {
            g.id = ids::name(db, m, id);
            g
        })
        .collect();
    Ok(ChessGames { total, games })
}
