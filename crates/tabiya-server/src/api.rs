//! Tabiya's own API under `/api/` (see `docs/api.md`), for any served database (`db=NAME`,
//! default the first): what is served, one game as JSON or PGN, every served book's answer
//! for a position, a database's statistics; what the other endpoints share (the database
//! asked for, JSON). The explorer's answers are in `explore.rs`, game lists in `games.rs`,
//! names and players in `player.rs`. Handlers only read their query (`query.rs`) and call
//! `tabiya-service`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::books::{BookFormat, BookProbe, probe_open};
use tabiya_service::{Error, export, game};

use crate::error::ApiError;
use crate::query::{ChessAt, DbQuery, Query};
use crate::state::{AppState, Served};
use crate::{blocking, cached};

/// The database a request asks for (`db=NAME`, default the first served).
pub(crate) fn served(state: &AppState, db: Option<&str>) -> Result<Arc<Served>, Error> {
    state.db(db, None).cloned().ok_or_else(|| match db {
        Some(n) => Error::not_found(format!("no database {n:?} is served (see /api/databases)")),
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
    /// The engine `/api/analysis` runs (its name), or null when there is none: the page then
    /// says why (`engineNote`) without asking `/api/engine` for its 404.
    engine: Option<String>,
    #[serde(rename = "engineNote", skip_serializing_if = "Option::is_none")]
    engine_note: Option<String>,
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
            engine: s.engines.as_ref().map(|e| e.identity().name.clone()),
            engine_note: s
                .engines
                .is_none()
                .then(|| format!("this server runs no engine: {}", s.engine_note)),
        })
    })
    .await?;
    Ok(axum::Json(info).into_response())
}

/// `GET /api/game/{id}`: one chess game as JSON.
pub async fn game(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let g = blocking(move || game::game_named(&db.db, &id)).await?;
    Ok(axum::Json(g).into_response())
}

/// `GET /api/game/{id}/pgn`: one chess game as PGN (a download).
pub async fn game_pgn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
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
    Query { value: at, .. }: Query<ChessAt>,
) -> Result<Response, ApiError> {
    let at = at.resolve()?;
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
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/stats?{}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&db.db.stats()?)
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
