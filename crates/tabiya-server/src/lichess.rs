//! The endpoints of the Lichess opening explorer (lichess-org/lila-openingexplorer), with its
//! parameters and response shapes, answered from a Tabiya database, so that its clients work
//! unchanged: `/masters`, `/lichess`, `/player` (NDJSON), `/masters/pgn/{id}`, and the old
//! names `/master`, `/master/pgn/{id}`, `/personal`.
//!
//! Tabiya's extension: `db=NAME` picks a served database (default: the first chess one).
//! Unlike Lichess's, top and recent games honour every filter.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::explore::{self, ChessExplore, OpeningName, TopGame};
use tabiya_service::filter::{Colour, Filter};
use tabiya_service::{ChessPosition, Error, Kind, export};

use crate::error::LichessError;
use crate::params::Params;
use crate::query::{ChessAt, DbQuery, FromParams, Query};
use crate::state::{AppState, Served};
use crate::{blocking, cached};

/// A player of a game.
#[derive(Serialize)]
struct GamePlayer {
    name: String,
    rating: Option<u16>,
}

/// A game in an answer.
#[derive(Serialize)]
struct ExplorerGame {
    #[serde(skip_serializing_if = "Option::is_none")]
    uci: Option<String>,
    id: String,
    winner: Option<&'static str>,
    white: GamePlayer,
    black: GamePlayer,
    year: Option<u16>,
    month: Option<String>,
    /// The game's speed (from its time control) on `/lichess` and `/player`, as Lichess
    /// gives it; absent when the game has none (and on `/masters`, as Lichess's).
    #[serde(skip_serializing_if = "Option::is_none")]
    speed: Option<&'static str>,
}

impl ExplorerGame {
    /// The game with its speed (`/lichess`, `/player`).
    fn with_speed(g: &TopGame) -> ExplorerGame {
        ExplorerGame {
            speed: g.facts.speed.map(|s| s.name()),
            ..ExplorerGame::from(g)
        }
    }
}

impl From<&TopGame> for ExplorerGame {
    fn from(g: &TopGame) -> ExplorerGame {
        ExplorerGame {
            speed: None,
            uci: g.uci.clone(),
            id: g.id.clone(),
            winner: g.winner,
            white: GamePlayer {
                name: g.white.name.clone(),
                rating: g.white.rating,
            },
            black: GamePlayer {
                name: g.black.name.clone(),
                rating: g.black.rating,
            },
            year: g.year,
            month: g.month.clone(),
        }
    }
}

/// A move of an answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplorerMove {
    uci: String,
    san: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    average_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    average_opponent_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    performance: Option<i32>,
    white: u64,
    draws: u64,
    black: u64,
    /// The game, when exactly one game played the move.
    game: Option<ExplorerGame>,
    /// Tabiya's: the games reaching the position after the move by any move order.
    #[serde(skip_serializing_if = "Option::is_none")]
    reached: Option<tabiya_service::explore::Reached>,
    /// The opening the move leads to (null when the table names none there).
    opening: Option<OpeningName>,
}

/// An answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplorerResponse {
    white: u64,
    draws: u64,
    black: u64,
    moves: Vec<ExplorerMove>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recent_games: Option<Vec<ExplorerGame>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_games: Option<Vec<ExplorerGame>>,
    opening: Option<OpeningName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    queue_position: Option<u64>,
}

/// Which endpoint answers: what its moves carry and how it caps its lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    Masters,
    Lichess,
    Player,
}

fn shape(e: &ChessExplore, endpoint: Endpoint, moves: usize, top: bool) -> ExplorerResponse {
    let player = endpoint == Endpoint::Player;
    let game = match endpoint {
        Endpoint::Masters => ExplorerGame::from,
        Endpoint::Lichess | Endpoint::Player => ExplorerGame::with_speed,
    };
    ExplorerResponse {
        white: e.white,
        draws: e.draws,
        black: e.black,
        moves: e
            .moves
            .iter()
            .take(moves)
            .map(|m| ExplorerMove {
                uci: m.uci.clone(),
                san: m.san.clone(),
                average_rating: (!player).then_some(m.average_rating).flatten(),
                average_opponent_rating: player.then_some(m.average_opponent_rating).flatten(),
                performance: player.then_some(m.performance).flatten(),
                white: m.white,
                draws: m.draws,
                black: m.black,
                game: m.game.as_ref().map(game),
                reached: m.reached,
                opening: m.opening.clone(),
            })
            .collect(),
        recent_games: e
            .recent_games
            .as_ref()
            .map(|v| v.iter().map(game).collect()),
        top_games: top.then(|| e.top_games.iter().map(game).collect()),
        opening: e.opening.clone(),
        queue_position: player.then_some(0),
    }
}

/// The database a request asks for: `db=NAME`, else the first chess database.
fn chess_db(state: &AppState, name: Option<&str>) -> Result<Arc<Served>, Error> {
    let db = state
        .db(name, Some(Kind::Chess))
        .ok_or_else(|| match name {
            Some(n) => Error::not_found(format!("no database {n:?} is served")),
            None => Error::not_found("no chess database is served"),
        })?;
    if db.kind != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database",
            db.name
        )));
    }
    Ok(Arc::clone(db))
}

/// The query of an explorer endpoint: the position (`fen`, default the start; `play`, UCI
/// moves comma-separated; `variant`, only standard chess), `moves`, the filters, the games
/// asked for — capped silently, as Lichess does.
pub struct Asked {
    db: Option<String>,
    at: ChessAt,
    moves: usize,
    filter: Filter,
    top: usize,
    recent: Option<usize>,
}

impl Asked {
    fn read(p: &Params, endpoint: Endpoint) -> Result<Asked, Error> {
        if let Some(v) = p.get("variant")
            && v != "standard"
            && v != "chess"
        {
            return Err(Error::bad_request(format!(
                "variant {v:?}: this explorer holds standard chess"
            )));
        }
        let moves = p.capped("moves", 12, 500)?;
        let mut filter = match endpoint {
            // Masters: years only.
            Endpoint::Masters => Filter {
                since: p.get("since").map(String::from),
                until: p.get("until").map(String::from),
                ..Filter::default()
            },
            _ => p.filter()?,
        };
        let (top, recent) = match endpoint {
            Endpoint::Masters => (p.capped("topGames", 15, 15)?, None),
            Endpoint::Lichess => (
                p.capped("topGames", 4, 4)?,
                Some(p.capped("recentGames", 4, 4)?),
            ),
            Endpoint::Player => {
                let player = p
                    .get("player")
                    .ok_or_else(|| Error::bad_request("player: give the player's name"))?;
                let colour = p
                    .get("color")
                    .ok_or_else(|| Error::bad_request("color: give white or black"))?;
                filter.player = Some(player.to_string());
                filter.colour = Some(Colour::from_name(colour)?);
                (0, Some(p.capped("recentGames", 8, 8)?))
            }
        };
        Ok(Asked {
            db: p.get("db").map(String::from),
            at: ChessAt::from_params(p)?,
            moves,
            filter,
            top,
            recent,
        })
    }
}

/// The query of `/masters`: the position, `moves`, `since`, `until`, `topGames`.
pub struct MastersQuery(Asked);

impl FromParams for MastersQuery {
    fn from_params(p: &Params) -> Result<MastersQuery, Error> {
        Asked::read(p, Endpoint::Masters).map(MastersQuery)
    }
}

/// The query of `/lichess`: the position, `moves`, the filters, `topGames`, `recentGames`.
pub struct LichessQuery(Asked);

impl FromParams for LichessQuery {
    fn from_params(p: &Params) -> Result<LichessQuery, Error> {
        Asked::read(p, Endpoint::Lichess).map(LichessQuery)
    }
}

/// The query of `/player`: the position, `moves`, the filters, `player` and `color`
/// (required), `recentGames`.
pub struct PlayerQuery(Asked);

impl FromParams for PlayerQuery {
    fn from_params(p: &Params) -> Result<PlayerQuery, Error> {
        Asked::read(p, Endpoint::Player).map(PlayerQuery)
    }
}

/// A JSON answer, computed off the async threads, cached by the database's generation.
async fn answer(
    state: Arc<AppState>,
    path: &'static str,
    q: Asked,
    canonical: String,
    endpoint: Endpoint,
) -> Result<Response, LichessError> {
    let served = chess_db(&state, q.db.as_deref())?;
    let key = format!("{path}?{canonical}");
    let content_type = if endpoint == Endpoint::Player {
        "application/x-ndjson"
    } else {
        "application/json"
    };
    Ok(cached(&state, &served.clone(), key, content_type, move || {
        let at: ChessPosition = q.at.resolve()?;
        let a = explore::games_filtered(&served.db, &at, &q.filter, q.top, q.recent)?;
        let r = shape(&a, endpoint, q.moves, endpoint != Endpoint::Player);
        let mut body = serde_json::to_vec(&r)?;
        if endpoint == Endpoint::Player {
            body.push(b'\n');
        }
        Ok(body)
    })
    .await?)
}

pub async fn masters(
    State(state): State<Arc<AppState>>,
    Query {
        value: MastersQuery(q),
        canonical,
        ..
    }: Query<MastersQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/masters", q, canonical, Endpoint::Masters).await
}

pub async fn lichess(
    State(state): State<Arc<AppState>>,
    Query {
        value: LichessQuery(q),
        canonical,
        ..
    }: Query<LichessQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/lichess", q, canonical, Endpoint::Lichess).await
}

pub async fn player(
    State(state): State<Arc<AppState>>,
    Query {
        value: PlayerQuery(q),
        canonical,
        ..
    }: Query<PlayerQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/player", q, canonical, Endpoint::Player).await
}

/// A game's PGN.
pub async fn masters_pgn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery, LichessError>,
) -> Result<Response, LichessError> {
    let served = chess_db(&state, q.db.as_deref())?;
    let pgn = blocking(move || export::game_pgn_named(&served.db, &id)).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        pgn,
    )
        .into_response())
}
