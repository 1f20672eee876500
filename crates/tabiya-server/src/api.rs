//! Tabiya's own API under `/api/` (see `docs/api.md`): what `tabiya explore|games|stats
//! --json` answer, as JSON, for any served database (`db=NAME`, default the first), plus one
//! game as JSON or PGN, every served book's answer for a position, a name search, a
//! player's card and the preparation against a player.
//! Handlers only read parameters and call `tabiya-service`.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::books::{BookFormat, BookProbe, probe_open};
use tabiya_service::games::{GameSort, OthelloFilter, PlayerKind};
use tabiya_service::names::{self, NameKind};
use tabiya_service::prepare::{self, Colour, PrepareOptions};
use tabiya_service::{
    ChessPosition, Error, Kind, OthelloPosition, explore, export, game, games, player,
};

use crate::error::ApiError;
use crate::params::Params;
use crate::state::{AppState, Served};
use crate::{blocking, cached, cached_with_evals};

/// Most games a page holds; most top or recent games.
const MAX_LIMIT: usize = 1000;
const MAX_TOP: usize = 100;

/// The database a request asks for (`db=NAME`, default the first served).
pub(crate) fn served(state: &AppState, p: &Params) -> Result<Arc<Served>, Error> {
    state
        .db(p.get("db"), None)
        .cloned()
        .ok_or_else(|| match p.get("db") {
            Some(n) => {
                Error::not_found(format!("no database {n:?} is served (see /api/databases)"))
            }
            None => Error::not_found("no database is served"),
        })
}

pub(crate) fn json<T: Serialize>(v: &T) -> Result<Vec<u8>, Error> {
    Ok(serde_json::to_vec(v)?)
}

/// What is served.
#[derive(Serialize)]
struct DatabaseInfo {
    name: String,
    kind: &'static str,
    games: u64,
}

#[derive(Serialize)]
struct BookInfo {
    name: String,
    file: String,
    format: BookFormat,
}

#[derive(Serialize)]
struct Catalog {
    databases: Vec<DatabaseInfo>,
    books: Vec<BookInfo>,
    /// Whether the server changes its databases (`tabiya serve --writable`): edits, deletions
    /// and notes.
    writable: bool,
}

pub async fn databases(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let s = Arc::clone(&state);
    let info = blocking(move || {
        let mut databases = Vec::new();
        for d in &s.dbs {
            databases.push(DatabaseInfo {
                name: d.name.clone(),
                kind: d.kind.as_str(),
                games: d.db.game_count()?,
            });
        }
        let books = s
            .books
            .iter()
            .map(|b| BookInfo {
                name: b.name.clone(),
                file: b.path.display().to_string(),
                format: b.format,
            })
            .collect();
        Ok(Catalog {
            databases,
            books,
            writable: s.writable,
        })
    })
    .await?;
    Ok(axum::Json(info).into_response())
}

/// The book files a request names: `books=all`, or names separated by commas.
fn book_paths(state: &AppState, p: &Params) -> Result<Vec<PathBuf>, Error> {
    let wanted = p.list("books");
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

/// `GET /api/explore`: the explorer's answer (chess: `fen`, `play`, `top`, `recent`, the
/// filters, `books`; Othello: `moves`, `top`).
pub async fn explore(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let books = book_paths(&state, &p)?;
    let key = format!("{}?{}", uri.path(), p.canonical());
    Ok(
        cached_with_evals(&state, &db.clone(), key, "application/json", move || {
            let top = p.number("top", 8, MAX_TOP)?;
            match db.kind {
                Kind::Chess => {
                    let at = ChessPosition::resolve(p.get("fen"), p.get("play"))?;
                    let recent = p
                        .get("recent")
                        .map(|_| p.number("recent", 0, MAX_TOP))
                        .transpose()?;
                    let filter = p.filter()?;
                    json(&explore::chess_filtered(
                        &db.db, &at, &filter, top, recent, &books,
                    )?)
                }
                Kind::Othello => {
                    let at = OthelloPosition::from_line(p.get("moves").unwrap_or(""))?;
                    json(&explore::othello(&db.db, &at, top)?)
                }
            }
        })
        .await?,
    )
}

/// A cached answer about one chess position (`fen`, `play`), computed by `answer`.
async fn chess_position_answer<T: Serialize>(
    state: Arc<AppState>,
    uri: Uri,
    q: Option<String>,
    what: &'static str,
    answer: impl Fn(&Served, &ChessPosition, &Params) -> Result<T, Error> + Send + Sync + 'static,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let key = format!("{}?{}", uri.path(), p.canonical());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            if db.kind != Kind::Chess {
                return Err(Error::bad_request(format!(
                    "{what} are for chess databases"
                )));
            }
            let at = ChessPosition::resolve(p.get("fen"), p.get("play"))?;
            json(&answer(&db, &at, &p)?)
        })
        .await?,
    )
}

/// `GET /api/years`: results over time — a chess position's games by year and each
/// move's (`fen`, `play` and the filters as `/api/explore`).
pub async fn years(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    chess_position_answer(state, uri, q, "results by year", |db, at, p| {
        explore::chess_years(&db.db, at, &p.filter()?)
    })
    .await
}

/// `GET /api/transpositions`: the move orders by which the games reach a chess position
/// (`fen`, `play`; `limit`, default 20, at most 1,000), most frequent first.
pub async fn transpositions(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    chess_position_answer(state, uri, q, "move orders", |db, at, p| {
        explore::chess_routes(&db.db, at, p.number("limit", 20, 1000)?)
    })
    .await
}

fn sort(p: &Params) -> Result<GameSort, Error> {
    match p.get("sort").unwrap_or("rating") {
        "rating" => Ok(GameSort::Rating),
        "date" => Ok(GameSort::Date),
        "id" => Ok(GameSort::Id),
        s => Err(Error::bad_request(format!(
            "sort {s:?}: give rating, date or id"
        ))),
    }
}

/// `GET /api/games`: a page of the games of a position (chess: `fen`, `play`, the
/// filters; Othello: `moves`, `player`, `tournament`, `from`, `to`, `players`), with
/// `sort`, `limit`, `offset`.
pub async fn games(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let key = format!("{}?{}", uri.path(), p.canonical());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            let sort = sort(&p)?;
            let limit = p.number("limit", 20, MAX_LIMIT)?;
            let offset = p.number("offset", 0, usize::MAX)?;
            match db.kind {
                Kind::Chess => {
                    let at = ChessPosition::resolve(p.get("fen"), p.get("play"))?;
                    json(&games::chess_filtered(
                        &db.db,
                        &at,
                        &p.filter()?,
                        sort,
                        offset,
                        limit,
                    )?)
                }
                Kind::Othello => {
                    let year = |name: &str| -> Result<Option<u16>, Error> {
                        p.get(name)
                            .map(|v| {
                                v.parse().map_err(|_| {
                                    Error::bad_request(format!("{name} {v:?}: a year"))
                                })
                            })
                            .transpose()
                    };
                    let filter = OthelloFilter {
                        position: p.get("moves").map(OthelloPosition::from_line).transpose()?,
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
                    };
                    json(&games::othello(&db.db, filter, sort, offset, limit)?)
                }
            }
        })
        .await?,
    )
}

/// `GET /api/game/{id}`: one chess game as JSON.
pub async fn game(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let g = blocking(move || game::game_named(&db.db, &id)).await?;
    Ok(axum::Json(g).into_response())
}

/// `GET /api/game/{id}/pgn`: one chess game as PGN (a download).
pub async fn game_pgn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let name = id.replace(':', "-");
    let pgn = blocking(move || export::game_pgn_named(&db.db, &id)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"game-{name}.pgn\""),
            ),
        ],
        pgn,
    )
        .into_response())
}

/// One served book's answer.
#[derive(Serialize)]
struct BookAnswer {
    name: String,
    file: String,
    format: BookFormat,
    #[serde(flatten)]
    probe: BookProbe,
}

/// `GET /api/books`: every served book's answer for a chess position (`fen`, `play`).
pub async fn books(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let at = ChessPosition::resolve(p.get("fen"), p.get("play"))?;
    let s = Arc::clone(&state);
    let answers = blocking(move || {
        let mut out = Vec::new();
        for b in &s.books {
            out.push(BookAnswer {
                name: b.name.clone(),
                file: b.path.display().to_string(),
                format: b.format,
                probe: probe_open(&b.book, &b.name, &at)?,
            });
        }
        Ok(out)
    })
    .await?;
    Ok(axum::Json(answers).into_response())
}

/// `GET /api/stats`: what a database holds and what it costs on disk.
pub async fn stats(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let key = format!("/api/stats?{}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&db.db.stats()?)
        })
        .await?,
    )
}

/// `GET /api/names`: player (or event, site) names starting with what is typed (`q`), any
/// case, any accents.
pub async fn names(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let key = format!("/api/names?{}", p.canonical());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            let kind = NameKind::from_name(p.get("kind").unwrap_or("player"))?;
            let limit = p.number("limit", 20, 100)?;
            json(&names::search(
                &db.db,
                kind,
                p.get("q").unwrap_or(""),
                limit,
            )?)
        })
        .await?,
    )
}

/// `GET /api/player`: one player's card (`name`, any case or accents): games, results by
/// colour, years, ratings, the openings most played.
pub async fn player(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let name = p
        .get("name")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Error::bad_request("give a player's name: name=NAME"))?
        .to_string();
    let key = format!("/api/player?{}", p.canonical());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&player::card(&db.db, &name)?)
        })
        .await?,
    )
}

/// `GET /api/prepare`: preparation against a player — their repertoire with one colour by
/// position (`player`, `color`; `since` a year, `depth` plies, `minGames`).
pub async fn prepare(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let name = p
        .get("player")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Error::bad_request("give a player's name: player=NAME"))?
        .to_string();
    let colour = Colour::from_name(p.get("color").unwrap_or(""))?;
    let mut opts = PrepareOptions::new(name, colour);
    opts.depth = p.number(
        "depth",
        prepare::DEFAULT_DEPTH as usize,
        prepare::MAX_DEPTH as usize,
    )? as u32;
    opts.min_games = p.number("minGames", prepare::DEFAULT_MIN_GAMES as usize, 1_000_000)? as u64;
    opts.since = match p.get("since") {
        None | Some("") => None,
        Some(y) => Some(
            y.parse()
                .map_err(|_| Error::bad_request(format!("since {y:?}: give a year")))?,
        ),
    };
    let key = format!("/api/prepare?{}", p.canonical());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&prepare::prepare(&db.db, &opts)?)
        })
        .await?,
    )
}

/// Anything not routed: JSON under `/api/`, text elsewhere.
pub async fn not_found(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") {
        ApiError(Error::not_found(format!(
            "no such endpoint: {}",
            uri.path()
        )))
        .into_response()
    } else {
        (StatusCode::NOT_FOUND, "not found").into_response()
    }
}
