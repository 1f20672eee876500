//! The read questions a command may send to the server that holds its database: each the
//! arguments of one library function, answered by that function ([`super::Read`]).

use serde::{Deserialize, Serialize};

use super::Read;
use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::games::{GameSort, OthelloFilter, PlayerKind};
use crate::names::NameKind;
use crate::othello::OthelloPosition;
use crate::position::ChessPosition;
use crate::search::{SearchPage, StructureText};

/// A chess position as the user gave it: a FEN (absent: the start) and moves played from it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct At {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play: Option<String>,
}

impl At {
    /// The position, resolved (its errors name the FEN or the move).
    pub fn resolve(&self) -> Result<ChessPosition> {
        ChessPosition::resolve(self.fen.as_deref(), self.play.as_deref())
    }
}

/// What the database holds (chess or Othello).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KindOf {}

impl Read for KindOf {
    const NAME: &'static str = "kind";
    type Answer = crate::Kind;
    fn answer(&self, db: &Db) -> Result<crate::Kind> {
        Ok(db.kind())
    }
}

/// `tabiya explore` of a chess position: the database's answer with its stored evaluations
/// and note (books and a repertoire are added by the command: [`crate::explore::add_books`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Explore {
    pub at: At,
    pub filter: Filter,
    pub top: usize,
}

impl Read for Explore {
    const NAME: &'static str = "explore";
    type Answer = crate::explore::ChessAnswer;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        let at = self.at.resolve()?;
        if self.filter.is_empty() {
            crate::explore::chess(db, &at, self.top, &[])
        } else {
            crate::explore::chess_filtered(db, &at, &self.filter, self.top, None, &[])
        }
    }
}

/// `tabiya explore --by-year`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Years {
    pub at: At,
    pub filter: Filter,
}

impl Read for Years {
    const NAME: &'static str = "years";
    type Answer = crate::explore::PositionYears;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::explore::chess_years(db, &self.at.resolve()?, &self.filter)
    }
}

/// `tabiya explore --transpositions N`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Routes {
    pub at: At,
    pub limit: usize,
}

impl Read for Routes {
    const NAME: &'static str = "routes";
    type Answer = crate::explore::Routes;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::explore::chess_routes(db, &self.at.resolve()?, self.limit)
    }
}

/// `tabiya explore --later-structures N --held P`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaterStructures {
    pub at: At,
    pub filter: Filter,
    pub held: u32,
    pub limit: usize,
}

impl Read for LaterStructures {
    const NAME: &'static str = "laterStructures";
    type Answer = crate::explore::LaterStructures;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        let at = self.at.resolve()?;
        crate::explore::chess_later_structures(db, &at, &self.filter, self.held, self.limit)
    }
}

/// `tabiya explore --moves LINE` of an Othello database.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OthelloExplore {
    pub moves: String,
    pub top: usize,
}

impl Read for OthelloExplore {
    const NAME: &'static str = "othelloExplore";
    type Answer = crate::explore::OthelloExplore;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::explore::othello(db, &OthelloPosition::from_line(&self.moves)?, self.top)
    }
}

/// `tabiya games` of a chess database.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChessGames {
    pub at: At,
    pub filter: Filter,
    pub sort: GameSort,
    pub offset: usize,
    pub limit: usize,
}

impl Read for ChessGames {
    const NAME: &'static str = "games";
    type Answer = crate::games::ChessGames;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        let at = self.at.resolve()?;
        crate::games::chess_filtered(db, &at, &self.filter, self.sort, self.offset, self.limit)
    }
}

/// `tabiya games --novelties`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChessGamesNovelties {
    pub at: At,
    pub filter: Filter,
    pub sort: GameSort,
    pub offset: usize,
    pub limit: usize,
}

impl Read for ChessGamesNovelties {
    const NAME: &'static str = "gamesNovelties";
    type Answer = crate::games::ChessGamesNovelties;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        let at = self.at.resolve()?;
        crate::games::chess_with_novelties(
            db,
            &at,
            &self.filter,
            self.sort,
            self.offset,
            self.limit,
        )
    }
}

/// `tabiya games` of an Othello database.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OthelloGames {
    /// The position, as moves from the start (any orientation).
    pub moves: Option<String>,
    pub player: Option<String>,
    pub tournament: Option<String>,
    pub from: Option<u16>,
    pub to: Option<u16>,
    pub players: PlayerKind,
    pub sort: GameSort,
    pub offset: usize,
    pub limit: usize,
}

impl Read for OthelloGames {
    const NAME: &'static str = "othelloGames";
    type Answer = crate::games::OthelloGames;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        let filter = OthelloFilter {
            position: self
                .moves
                .as_deref()
                .map(OthelloPosition::from_line)
                .transpose()?,
            player: self.player.clone(),
            tournament: self.tournament.clone(),
            from: self.from,
            to: self.to,
            players: self.players,
        };
        crate::games::othello(db, filter, self.sort, self.offset, self.limit)
    }
}

/// `tabiya stats`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stats {}

impl Read for Stats {
    const NAME: &'static str = "stats";
    type Answer = crate::database::DbStats;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        db.stats()
    }
}

/// `tabiya names search`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NamesSearch {
    pub kind: NameKind,
    pub query: String,
    pub limit: usize,
}

impl Read for NamesSearch {
    const NAME: &'static str = "namesSearch";
    type Answer = Vec<crate::names::NameHit>;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::names::search(db, self.kind, &self.query, self.limit)
    }
}

/// `tabiya names show`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlayerCard {
    pub name: String,
}

impl Read for PlayerCard {
    const NAME: &'static str = "playerCard";
    type Answer = crate::player::PlayerCard;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::player::card(db, &self.name)
    }
}

/// `tabiya names list`: how many entries there are, and a page of them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NameEntries {
    pub kind: NameKind,
    pub filter: Option<String>,
    pub offset: usize,
    pub limit: usize,
}

impl Read for NameEntries {
    const NAME: &'static str = "nameEntries";
    type Answer = (u64, Vec<crate::entries::EntryView>);
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::entries::list(
            db,
            self.kind,
            self.filter.as_deref(),
            self.offset,
            self.limit,
        )
    }
}

/// `tabiya names ambiguous`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AmbiguousNames {
    pub kind: NameKind,
}

impl Read for AmbiguousNames {
    const NAME: &'static str = "ambiguousNames";
    type Answer = Vec<crate::entries::AmbiguousName>;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::entries::ambiguous(db, self.kind)
    }
}

/// `tabiya search`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Search {
    pub text: StructureText,
    pub filter: Filter,
    pub page: SearchPage,
}

impl Read for Search {
    const NAME: &'static str = "search";
    type Answer = crate::search::StructureSearch;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::search::search(db, &self.text, &self.filter, self.page)
    }
}

/// `tabiya gameset list`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GamesetList {}

impl Read for GamesetList {
    const NAME: &'static str = "gamesetList";
    type Answer = Vec<crate::gamesets::Gameset>;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::gamesets::list(db)
    }
}

/// `tabiya gameset show NAME`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GamesetShow {
    pub name: String,
}

impl Read for GamesetShow {
    const NAME: &'static str = "gamesetShow";
    type Answer = crate::gamesets::Shown;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::gamesets::show(db, &self.name)
    }
}

/// `tabiya gameset games NAME`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GamesetGames {
    pub name: String,
    pub offset: usize,
    pub limit: usize,
}

impl Read for GamesetGames {
    const NAME: &'static str = "gamesetGames";
    type Answer = crate::gamesets::Games;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::gamesets::games(db, &self.name, self.offset, self.limit)
    }
}

/// `tabiya note show`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NoteShow {
    pub at: At,
}

impl Read for NoteShow {
    const NAME: &'static str = "noteShow";
    type Answer = crate::notes::Note;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::notes::show(db, &self.at.resolve()?)
    }
}

/// `tabiya novelty`: stored games by id, or games of a PGN file the command read (its name
/// and text: the server opens no file).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Novelties {
    pub games: Vec<u32>,
    /// The file's name, as messages give it, and its bytes (read within the import's
    /// bound for a file of games, [`crate::inputs::Whole::Games`]).
    pub file: Option<(String, Vec<u8>)>,
}

impl Read for Novelties {
    const NAME: &'static str = "novelties";
    type Answer = Vec<crate::novelty::Report>;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        match &self.file {
            Some((name, bytes)) => crate::novelty::of_named(db, bytes, name),
            None => crate::novelty::of_games(db, &self.games),
        }
    }
}

/// `tabiya prepare` (the command writes the files asked for itself).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Prepare {
    pub options: crate::prepare::PrepareOptions,
}

impl Read for Prepare {
    const NAME: &'static str = "prepare";
    type Answer = crate::prepare::Preparation;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::prepare::prepare(db, &self.options)
    }
}

/// `tabiya duplicates` without `--remove` (a removal is a change: it is not asked here).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Duplicates {}

impl Read for Duplicates {
    const NAME: &'static str = "duplicates";
    type Answer = crate::duplicates::Duplicates;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::duplicates::find(db, false)
    }
}

/// `tabiya cards show ID` (at the command's clock).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CardShow {
    pub id: u32,
    pub now: u64,
}

impl Read for CardShow {
    const NAME: &'static str = "cardShow";
    type Answer = crate::cards::Card;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::cards::show(db, self.id, self.now)
    }
}

/// `tabiya cards stats` (at the command's clock).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CardStats {
    pub now: u64,
}

impl Read for CardStats {
    const NAME: &'static str = "cardStats";
    type Answer = crate::cards::CardStats;
    fn answer(&self, db: &Db) -> Result<Self::Answer> {
        crate::cards::stats(db, self.now)
    }
}
