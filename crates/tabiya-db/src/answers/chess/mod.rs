//! Chess answers to a [`Snapshot`](crate::Snapshot): a position explored (moves, top games,
//! openings), its games listed, by year, the routes to it, earlier games (novelty), move
//! counts over a filter, a player's games, the pawn structures a position's games reach
//! later, structure search, and the filters they take.

mod counts;
mod explore;
mod filter;
mod later_structures;
mod months;
mod novelty;
mod player_games;
mod query;
mod routes;
mod search;
mod search_stats;
mod structure_index;
mod years;

pub use counts::MoveCounts;
pub use explore::{
    ChessExplore, ChessGames, GameRow, MoveRow, OpeningName, Player, Reached, SINGLE_GAMES_UP_TO,
    TopGame,
};
pub use filter::{GameFilter, PlayerFilter};
pub use later_structures::{
    LaterStructure, LaterStructures, most_frequent as most_frequent_structures,
};
pub use months::{MonthResults, PositionMonths};
pub use novelty::EarlierGames;
pub use routes::{Route, Routes};
pub use search::{NextStructure, SearchGame, SearchPage, StructureSearch};
pub use years::{MoveYears, PositionYears, YearResults};
