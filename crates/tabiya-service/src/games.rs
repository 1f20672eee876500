//! The games of a position (any move order), sorted and paged, with their novelties when
//! asked; Othello game lists with their filters.

pub use tabiya_db::GameSort;
pub use tabiya_db::chess::{ChessGames, GameRow};
pub use tabiya_db::othello::{OthelloGameRow, OthelloGames, PlayerKind};

use serde::Serialize;

use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::novelty::{self, Report};
use crate::othello::OthelloPosition;
use crate::position::ChessPosition;

/// A page of the games reaching a chess position.
pub fn chess(
    db: &Db,
    at: &ChessPosition,
    sort: GameSort,
    offset: usize,
    limit: usize,
) -> Result<ChessGames> {
    if db.is_set() {
        return crate::dbset::games::games(db, at, &Filter::default(), sort, offset, limit);
    }
    Ok(db
        .inner()?
        .snapshot()?
        .chess_games(&at.pos, at.mode, sort, offset, limit)?)
}

/// [`chess`] with only the games `filter` keeps.
pub fn chess_filtered(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    sort: GameSort,
    offset: usize,
    limit: usize,
) -> Result<ChessGames> {
    if db.is_set() {
        return crate::dbset::games::games(db, at, filter, sort, offset, limit);
    }
    let snap = db.inner()?.snapshot()?;
    let f = filter.resolve(&snap)?;
    Ok(snap.chess_games_filtered(&at.pos, at.mode, &f, sort, offset, limit)?)
}

/// A listed game with its novelty report.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct GameNovelty {
    #[serde(flatten)]
    pub game: GameRow,
    /// As `tabiya novelty --json` gives it.
    pub novelty: Report,
}

/// A page of games, each with its novelty report.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ChessGamesNovelties {
    pub total: u64,
    pub games: Vec<GameNovelty>,
}

/// [`chess_filtered`] with each game's novelty report (a lookup per ply of each game).
pub fn chess_with_novelties(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    sort: GameSort,
    offset: usize,
    limit: usize,
) -> Result<ChessGamesNovelties> {
    db.inner()?;
    let page = chess_filtered(db, at, filter, sort, offset, limit)?;
    let ids = page
        .games
        .iter()
        .map(|g| {
            g.id.parse::<u32>().map_err(|_| {
                crate::error::Error::new(
                    crate::error::ErrorKind::Damaged,
                    format!("game id {:?} is not a number", g.id),
                )
            })
        })
        .collect::<Result<Vec<u32>>>()?;
    let games = page
        .games
        .into_iter()
        .zip(novelty::of_games(db, &ids)?)
        .map(|(game, novelty)| GameNovelty { game, novelty })
        .collect();
    Ok(ChessGamesNovelties {
        total: page.total,
        games,
    })
}

/// Which Othello games to list.
#[derive(Debug, Clone, Default)]
pub struct OthelloFilter {
    /// Games reaching this position (any orientation, any move order).
    pub position: Option<OthelloPosition>,
    /// A player (either colour) whose name contains this, case-insensitive.
    pub player: Option<String>,
    /// A tournament whose name contains this, case-insensitive.
    pub tournament: Option<String>,
    /// Years, inclusive.
    pub from: Option<u16>,
    pub to: Option<u16>,
    /// Humans, programs, or both.
    pub players: PlayerKind,
}

/// A page of the Othello games that pass `filter` (sorted by date or id; a rating sort
/// means date: WTHOR games carry no ratings; ECO, length and result are refused).
pub fn othello(
    db: &Db,
    filter: OthelloFilter,
    sort: GameSort,
    offset: usize,
    limit: usize,
) -> Result<OthelloGames> {
    let filter = tabiya_db::othello::GameFilter {
        position: filter.position.map(|p| p.asked),
        player: filter.player,
        tournament: filter.tournament,
        from: filter.from,
        to: filter.to,
        players: filter.players,
    };
    let sort = match sort {
        GameSort::Rating | GameSort::Date => GameSort::Date,
        GameSort::Id => GameSort::Id,
        GameSort::Eco | GameSort::Length | GameSort::Result => {
            return Err(crate::error::Error::bad_request(
                "Othello games are sorted by date or id: eco, length and result are for chess",
            ));
        }
    };
    Ok(db
        .inner()?
        .snapshot()?
        .othello_games(&filter, sort, offset, limit)?)
}
