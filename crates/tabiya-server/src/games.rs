//! `GET /api/games`: a page of the games of a position (see `docs/api.md`), what `tabiya
//! games --json` answers — chess: `fen`, `play`, the explorer's filters; Othello: `moves`,
//! `player`, `tournament`, `from`, `to`, `players`; both: `sort`, `limit`, `offset`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use serde::Serialize;
use tabiya_service::filter::Filter;
use tabiya_service::game;
use tabiya_service::games::{self, GameSort, OthelloFilter, PlayerKind};
use tabiya_service::{Db, Error, Kind, OthelloPosition};

use crate::api::{json, served};
use crate::cached;
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{ChessAt, FromParams, Query};
use crate::state::AppState;

/// Most games a page holds.
const MAX_LIMIT: usize = 1000;

/// The query of `GET /api/games`.
pub struct GamesQuery {
    db: Option<String>,
    sort: GameSort,
    limit: usize,
    offset: usize,
    at: ChessAt,
    filter: Filter,
    othello: OthelloQuery,
    /// `details=true`: each chess game with its `eco` and `plies` (the page's list); without
    /// it the answer is `tabiya games --json`'s.
    details: bool,
}

/// What an Othello database's games are chosen by (the line is read once the database is
/// known to be Othello's).
struct OthelloQuery {
    moves: Option<String>,
    player: Option<String>,
    tournament: Option<String>,
    from: Option<u16>,
    to: Option<u16>,
    players: PlayerKind,
}

/// The order of a structure search's games (`/api/search`): rating, date or id.
pub(crate) fn sort(p: &Params) -> Result<GameSort, Error> {
    match p.get("sort").unwrap_or("rating") {
        "rating" => Ok(GameSort::Rating),
        "date" => Ok(GameSort::Date),
        "id" => Ok(GameSort::Id),
        s => Err(Error::bad_request(format!(
            "sort {s:?}: give rating, date or id"
        ))),
    }
}

/// The order of a position's games (`/api/games`): also by ECO, length and result (chess).
fn list_sort(p: &Params) -> Result<GameSort, Error> {
    match p.get("sort").unwrap_or("rating") {
        "eco" => Ok(GameSort::Eco),
        "length" => Ok(GameSort::Length),
        "result" => Ok(GameSort::Result),
        "rating" | "date" | "id" => sort(p),
        s => Err(Error::bad_request(format!(
            "sort {s:?}: give rating, date, id, eco, length or result"
        ))),
    }
}

impl FromParams for OthelloQuery {
    fn from_params(p: &Params) -> Result<OthelloQuery, Error> {
        let year = |name: &str| -> Result<Option<u16>, Error> {
            p.get(name)
                .map(|v| {
                    v.parse()
                        .map_err(|_| Error::bad_request(format!("{name} {v:?}: a year")))
                })
                .transpose()
        };
        Ok(OthelloQuery {
            moves: p.get("moves").map(String::from),
            player: p.get("player").map(String::from),
            tournament: p.get("tournament").map(String::from),
            from: year("from")?,
            to: year("to")?,
            players: match p.get("players").unwrap_or("any") {
                "any" => PlayerKind::Any,
                "humans" => PlayerKind::Humans,
                "programs" => PlayerKind::Programs,
                s => {
                    return Err(Error::bad_request(format!(
                        "players {s:?}: give any, humans or programs"
                    )));
                }
            },
        })
    }
}

impl FromParams for GamesQuery {
    fn from_params(p: &Params) -> Result<GamesQuery, Error> {
        Ok(GamesQuery {
            db: p.get("db").map(String::from),
            sort: list_sort(p)?,
            limit: p.number("limit", 20, MAX_LIMIT)?,
            offset: p.number("offset", 0, usize::MAX)?,
            at: ChessAt::from_params(p)?,
            filter: p.filter()?,
            othello: OthelloQuery::from_params(p)?,
            details: match p.get("details").unwrap_or("false") {
                "true" => true,
                "false" => false,
                s => {
                    return Err(Error::bad_request(format!(
                        "details {s:?}: give true or false"
                    )));
                }
            },
        })
    }
}

/// A listed chess game with what the page's list shows besides: its ECO tag (when it has one)
/// and its length in plies (the main line's moves).
#[derive(Serialize)]
struct ListedGame {
    #[serde(flatten)]
    game: games::GameRow,
    #[serde(skip_serializing_if = "Option::is_none")]
    eco: Option<String>,
    plies: usize,
}

#[derive(Serialize)]
struct ListedGames {
    total: u64,
    games: Vec<ListedGame>,
}

/// Each game of a page read once more for its ECO tag and length (a page holds at most
/// [`MAX_LIMIT`] games; the answer is cached).
fn with_eco_and_plies(db: &Db, page: games::ChessGames) -> Result<ListedGames, Error> {
    let games = page
        .games
        .into_iter()
        .map(|g| {
            let whole = game::game_named(db, &g.id)?;
            let eco = whole
                .tags
                .iter()
                .find(|t| t.name == "ECO" && !t.value.is_empty() && t.value != "?")
                .map(|t| t.value.clone());
            Ok(ListedGame {
                game: g,
                eco,
                plies: whole.moves.len(),
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(ListedGames {
        total: page.total,
        games,
    })
}

/// `GET /api/games`: a page of the games of a position, sorted.
pub async fn games(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    Query {
        value: q,
        canonical,
        ..
    }: Query<GamesQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("{}?{canonical}", uri.path());
    Ok(cached(
        &state,
        &db.clone(),
        key,
        "application/json",
        move || match db.kind {
            Kind::Chess => {
                let page = games::chess_filtered(
                    &db.db,
                    &q.at.resolve()?,
                    &q.filter,
                    q.sort,
                    q.offset,
                    q.limit,
                )?;
                if q.details {
                    json(&with_eco_and_plies(&db.db, page)?)
                } else {
                    json(&page)
                }
            }
            Kind::Othello => {
                let o = &q.othello;
                let filter = OthelloFilter {
                    position: o
                        .moves
                        .as_deref()
                        .map(OthelloPosition::from_line)
                        .transpose()?,
                    player: o.player.clone(),
                    tournament: o.tournament.clone(),
                    from: o.from,
                    to: o.to,
                    players: o.players,
                };
                json(&games::othello(&db.db, filter, q.sort, q.offset, q.limit)?)
            }
        },
    )
    .await?)
}
