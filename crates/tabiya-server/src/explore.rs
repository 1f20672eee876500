//! The explorer's answers under `/api/` (see `docs/api.md`): `GET /api/explore` (what
//! `tabiya explore --json` answers, chess or Othello, with the served books' moves when
//! asked), `GET /api/years` (results over time), `GET /api/transpositions` (the move
//! orders reaching a position) and `GET /api/later-structures` (the pawn structures its
//! games reach later).

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use serde::Serialize;
use tabiya_service::filter::Filter;
use tabiya_service::{ChessPosition, Error, Kind, OthelloPosition, explore};

use crate::api::{json, served};
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{ChessAt, FromParams, Query};
use crate::state::{AppState, Served};
use crate::{cached, cached_with_evals};

/// Most top or recent games.
const MAX_TOP: usize = 100;

/// The query of `GET /api/explore`: chess `fen`, `play`, `top`, `recent`, the filters,
/// `books`; Othello `moves`, `top`.
pub struct ExploreQuery {
    db: Option<String>,
    /// Book names (`all` for every one).
    books: Vec<String>,
    top: usize,
    at: ChessAt,
    recent: Option<usize>,
    filter: Filter,
    /// The Othello line.
    moves: Option<String>,
}

impl FromParams for ExploreQuery {
    fn from_params(p: &Params) -> Result<ExploreQuery, Error> {
        Ok(ExploreQuery {
            db: p.get("db").map(String::from),
            books: p.list("books"),
            top: p.number("top", 8, MAX_TOP)?,
            at: ChessAt::from_params(p)?,
            recent: p.optional_number("recent", MAX_TOP)?,
            filter: p.filter()?,
            moves: p.get("moves").map(String::from),
        })
    }
}

/// The book files a request names: `all`, or names.
fn book_paths(state: &AppState, wanted: &[String]) -> Result<Vec<PathBuf>, Error> {
    if wanted.iter().any(|w| w == "all") {
        return Ok(state.books.iter().map(|b| b.path.clone()).collect());
    }
    wanted
        .iter()
        .map(|w| {
            state
                .books
                .iter()
                .find(|b| &b.name == w)
                .map(|b| b.path.clone())
                .ok_or_else(|| Error::not_found(format!("no book {w:?} is served")))
        })
        .collect()
}

/// `GET /api/explore`: the explorer's answer.
pub async fn explore(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    Query {
        value: q,
        canonical,
        ..
    }: Query<ExploreQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let books = book_paths(&state, &q.books)?;
    let key = format!("{}?{canonical}", uri.path());
    Ok(cached_with_evals(
        &state,
        &db.clone(),
        key,
        "application/json",
        move || match db.kind {
            Kind::Chess => json(&explore::chess_filtered(
                &db.db,
                &q.at.resolve()?,
                &q.filter,
                q.top,
                q.recent,
                &books,
            )?),
            Kind::Othello => {
                let at = OthelloPosition::from_line(q.moves.as_deref().unwrap_or(""))?;
                json(&explore::othello(&db.db, &at, q.top)?)
            }
        },
    )
    .await?)
}

/// The query of `GET /api/years` and `GET /api/transpositions`: a chess position, and what
/// else the endpoint reads (`X`).
pub struct PositionQuery<X> {
    db: Option<String>,
    at: ChessAt,
    more: X,
}

impl<X: FromParams> FromParams for PositionQuery<X> {
    fn from_params(p: &Params) -> Result<PositionQuery<X>, Error> {
        Ok(PositionQuery {
            db: p.get("db").map(String::from),
            at: ChessAt::from_params(p)?,
            more: X::from_params(p)?,
        })
    }
}

/// The explorer's filters (`Params::filter`).
impl FromParams for Filter {
    fn from_params(p: &Params) -> Result<Filter, Error> {
        p.filter()
    }
}

/// How many move orders: `limit`, default 20, at most 1,000.
pub struct Routes(usize);

impl FromParams for Routes {
    fn from_params(p: &Params) -> Result<Routes, Error> {
        Ok(Routes(p.number("limit", 20, 1000)?))
    }
}

/// A cached answer about one chess position, computed by `answer`.
async fn chess_position_answer<X: Send + Sync + 'static, T: Serialize>(
    state: Arc<AppState>,
    uri: Uri,
    q: Query<PositionQuery<X>>,
    what: &'static str,
    answer: impl Fn(&Served, &ChessPosition, &X) -> Result<T, Error> + Send + Sync + 'static,
) -> Result<Response, ApiError> {
    let Query {
        value: q,
        canonical,
        ..
    } = q;
    let db = served(&state, q.db.as_deref())?;
    let key = format!("{}?{canonical}", uri.path());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            if db.kind != Kind::Chess {
                return Err(Error::bad_request(format!(
                    "{what} are for chess databases"
                )));
            }
            json(&answer(&db, &q.at.resolve()?, &q.more)?)
        })
        .await?,
    )
}

/// `GET /api/years`: results over time — a chess position's games by year and each
/// move's (`fen`, `play` and the filters as `/api/explore`).
pub async fn years(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    q: Query<PositionQuery<Filter>>,
) -> Result<Response, ApiError> {
    chess_position_answer(state, uri, q, "results by year", |db, at, filter| {
        explore::chess_years(&db.db, at, filter)
    })
    .await
}

/// `GET /api/transpositions`: the move orders by which the games reach a chess position
/// (`fen`, `play`; `limit`, default 20, at most 1,000), most frequent first.
pub async fn transpositions(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    q: Query<PositionQuery<Routes>>,
) -> Result<Response, ApiError> {
    chess_position_answer(state, uri, q, "move orders", |db, at, Routes(limit)| {
        explore::chess_routes(&db.db, at, *limit)
    })
    .await
}

/// What `GET /api/later-structures` reads beside the position: the filters, `limit`
/// (default 20, at most 1,000) and `held` (plies, default 4, at most 1,000).
pub struct Later {
    filter: Filter,
    limit: usize,
    held: u32,
}

impl FromParams for Later {
    fn from_params(p: &Params) -> Result<Later, Error> {
        Ok(Later {
            filter: p.filter()?,
            limit: p.number("limit", 20, 1000)?,
            held: p.number("held", 4, explore::MOST_HELD as usize)? as u32,
        })
    }
}

/// `GET /api/later-structures`: the pawn structures the games of a chess position reach
/// later (`fen`, `play` and the filters as `/api/explore`; `limit`, `held`), most frequent
/// first with their results.
pub async fn later_structures(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    q: Query<PositionQuery<Later>>,
) -> Result<Response, ApiError> {
    chess_position_answer(state, uri, q, "pawn structures", |db, at, l| {
        explore::chess_later_structures(&db.db, at, &l.filter, l.held, l.limit)
    })
    .await
}
