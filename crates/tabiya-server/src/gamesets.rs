//! Gamesets over HTTP (see `docs/api.md`): `GET /api/gamesets` (every gameset),
//! `GET /api/gamesets/{name}` (one, with its ranges of ids), `…/games` (a page of its
//! games), `…/pgn` (its games as PGN); `POST /api/gamesets` and `DELETE
//! /api/gamesets/{name}` on a writable server (or with the hand-over secret).

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tabiya_service::export::{self, Selection};
use tabiya_service::{Error, gamesets};

use crate::api::{json, served};
use crate::changes::refused;
use crate::error::ApiError;
use crate::params::Params;
use crate::state::AppState;
use crate::{blocking, cached};

/// `GET /api/gamesets`.
pub async fn list(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
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
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let key = format!("/api/gamesets/{name}?{}", db.name);
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&gamesets::show(&db.db, &name)?)
        })
        .await?,
    )
}

/// `GET /api/gamesets/{name}/games?offset=&limit=`.
pub async fn games(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let offset = p.number("offset", 0, usize::MAX)?;
    let limit = p.number("limit", 20, 1000)?;
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
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
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

/// What `POST /api/gamesets` reads: `tabiya_service::handover::wire::CreateCall` (what `tabiya gameset create` hands
/// over) and the repertoires its criteria follow, sent as PGN text by the name the
/// criterion gives (`"repertoires": {"rep.pgn": "1. e4 …"}`): no file of the server's
/// machine is ever read for a request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: String,
    #[serde(rename = "where")]
    criteria: String,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    repertoires: std::collections::BTreeMap<String, String>,
}

/// `POST /api/gamesets` with `{"name": …, "where": …, "from": …, "repertoires": {…}}`. A
/// criterion following a repertoire (`follows NAME`) takes it from `repertoires`; the
/// server reads no file (400 for a name not sent, the same whatever the name).
pub async fn create(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let call: CreateBody = serde_json::from_slice(&body).map_err(|e| {
        Error::bad_request(format!(
            "a gameset is JSON like {{\"name\": \"strong\", \"where\": \"avgelo >= 2500\"}}: {e}"
        ))
    })?;
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let _one_at_a_time = db.importing.lock().await;
    let s = Arc::clone(&state);
    let d = Arc::clone(&db);
    let made = blocking(move || {
        let sent: Vec<(String, String)> = call.repertoires.into_iter().collect();
        let out = gamesets::create(
            &d.db,
            &call.name,
            &call.criteria,
            call.from.as_deref(),
            gamesets::Repertoires::Sent(&sent),
        )?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    Ok(axum::Json(made).into_response())
}

/// `DELETE /api/gamesets/{name}`.
pub async fn delete(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let _one_at_a_time = db.importing.lock().await;
    let s = Arc::clone(&state);
    let d = Arc::clone(&db);
    let gone = blocking(move || {
        let out = gamesets::delete(&d.db, &name)?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    Ok(axum::Json(gone).into_response())
}
