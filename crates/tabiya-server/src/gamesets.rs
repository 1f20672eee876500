//! Gamesets over HTTP (see `docs/api.md`): `GET /api/gamesets` (every gameset),
//! `GET /api/gamesets/{name}` (one, with its ranges of ids), `…/games` (a page of its
//! games), `…/pgn` (its games as PGN); `POST /api/gamesets` and `DELETE
//! /api/gamesets/{name}` on a writable server (or with the hand-over secret).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tabiya_service::export::{self, Selection};
use tabiya_service::{Error, gamesets};

use crate::api::{json, served};
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{Body, DbQuery, FromParams, JsonBody, Query};
use crate::state::AppState;
use crate::write::{Granted, change};
use crate::{blocking, cached};

/// `GET /api/gamesets`.
pub async fn list(
    State(state): State<Arc<AppState>>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/gamesets?{}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&gamesets::list(&db.db)?)
        })
        .await?,
    )
}

/// `GET /api/gamesets/{name}`.
pub async fn show(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/gamesets/{name}?{}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&gamesets::show(&db.db, &name)?)
        })
        .await?,
    )
}

/// The query of `GET /api/gamesets/{name}/games`: a page.
pub struct PageQuery {
    db: Option<String>,
    offset: usize,
    limit: usize,
}

impl FromParams for PageQuery {
    fn from_params(p: &Params) -> Result<PageQuery, Error> {
        Ok(PageQuery {
            db: p.get("db").map(String::from),
            offset: p.number("offset", 0, usize::MAX)?,
            limit: p.number("limit", 20, 1000)?,
        })
    }
}

/// `GET /api/gamesets/{name}/games?offset=&limit=`.
pub async fn games(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Query { value: q, .. }: Query<PageQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let PageQuery { offset, limit, .. } = q;
    let key = format!("/api/gamesets/{name}/games?{}&{offset}&{limit}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&gamesets::games(&db.db, &name, offset, limit)?)
        })
        .await?,
    )
}

/// `GET /api/gamesets/{name}/pgn`.
pub async fn pgn(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let body = blocking(move || {
        let mut out = Vec::new();
        export::pgn(&db.db, &Selection::Gameset(name), &mut out)?;
        Ok(out)
    })
    .await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}.pgn\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// What `POST /api/gamesets` reads: `tabiya_service::handover::wire::CreateCall` (what
/// `tabiya gameset create` hands over) and the repertoires its criteria follow, sent as PGN
/// text by the name the criterion gives (`"repertoires": {"rep.pgn": "1. e4 …"}`): no file
/// of the server's machine is ever read for a request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    name: String,
    #[serde(rename = "where")]
    criteria: String,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    repertoires: std::collections::BTreeMap<String, String>,
}

impl JsonBody for CreateBody {
    const LIKE: &'static str =
        "a gameset is JSON like {\"name\": \"strong\", \"where\": \"avgelo >= 2500\"}";
}

/// `POST /api/gamesets` with `{"name": …, "where": …, "from": …, "repertoires": {…}}`. A
/// criterion following a repertoire (`follows NAME`) takes it from `repertoires`; the
/// server reads no file (400 for a name not sent, the same whatever the name).
pub async fn create(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Query { value: q, .. }: Query<DbQuery>,
    Body(call): Body<CreateBody>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    change(&state, granted, db, move |db| {
        let sent: Vec<(String, String)> = call.repertoires.into_iter().collect();
        gamesets::create(
            db,
            &call.name,
            &call.criteria,
            call.from.as_deref(),
            gamesets::Repertoires::Sent(&sent),
        )
    })
    .await
}

/// `DELETE /api/gamesets/{name}`.
pub async fn delete(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Path(name): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    change(&state, granted, db, move |db| gamesets::delete(db, &name)).await
}
