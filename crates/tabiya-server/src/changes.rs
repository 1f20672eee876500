//! Games edited and deleted through the API: `PATCH /api/game/{id}` (tags), `DELETE
//! /api/game/{id}`, `POST /api/games/delete` (several). Refused unless the server was
//! started with `--writable`, or the request shows the server's secret (what `tabiya edit`
//! and `tabiya delete` do when the database is served: see `admin.rs`). A change waits for an
//! import in progress; readers are never blocked: they answer from the state before it
//! until it commits. Then the cached answers are computed again, and only then is the
//! change answered, so whoever changed a game sees it at once.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tabiya_service::Error;
use tabiya_service::edit::EditRequest;

use crate::blocking;
use crate::error::ApiError;
use crate::params::Params;
use crate::state::AppState;

/// Why a change is refused, if it is (the guard refused it already: see `guard.rs`; this is
/// the handler's own check, so that no change route depends on its place in the router).
pub(crate) fn refused(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    if crate::guard::granted(state, headers) {
        return None;
    }
    let body = serde_json::json!({
        "error": "this change needs a grant: start the server with `tabiya serve --writable` (its page has one) or show its secret from serve.json",
        "kind": "forbidden",
    });
    Some((StatusCode::FORBIDDEN, axum::Json(body)).into_response())
}

pub(crate) fn served(
    state: &AppState,
    q: Option<&str>,
) -> Result<Arc<crate::state::Served>, Error> {
    let p = Params::parse(q);
    let db = state
        .db(p.get("db"), None)
        .cloned()
        .ok_or_else(|| Error::not_found("no such database is served (see /api/databases)"))?;
    if db.db.is_set() {
        return Err(Error::bad_request(format!(
            "{} is a set of databases, read only: change its members one by one",
            db.name
        )));
    }
    Ok(db)
}

fn game_id(id: &str) -> Result<u32, Error> {
    id.parse()
        .map_err(|_| Error::not_found(format!("no game {id:?}")))
}

/// `PATCH /api/game/{id}`: `{"set": {"Result": "1-0"}, "unset": ["WhiteElo"]}`.
pub async fn edit(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let db = served(&state, q.as_deref())?;
    let id = game_id(&id)?;
    let req: EditRequest = serde_json::from_slice(&body).map_err(|e| {
        Error::bad_request(format!(
            "an edit is JSON like {{\"set\": {{\"Result\": \"1-0\"}}, \"unset\": [\"WhiteElo\"]}}: {e}"
        ))
    })?;
    let _one_at_a_time = db.importing.lock().await;
    let s = Arc::clone(&state);
    let d = Arc::clone(&db);
    let edited = blocking(move || {
        let out = d.db.edit_game(id, &req)?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    Ok(axum::Json(edited).into_response())
}

/// `DELETE /api/game/{id}`.
pub async fn delete_one(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let id = game_id(&id)?;
    let sel = tabiya_service::edit::DeleteSelection {
        ids: vec![id],
        ..Default::default()
    };
    delete(state, q, sel, true).await
}

/// `POST /api/games/delete`: `{"ids": [12, 13]}`, `{"gameset": "NAME"}` or `{"where":
/// "CRITERIA"}` (or several), in one transaction.
pub async fn delete_many(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let call: tabiya_service::edit::DeleteSelection =
        serde_json::from_slice(&body).map_err(|e| {
            Error::bad_request(format!(
                "a deletion is JSON like {{\"ids\": [12, 13]}} or {{\"gameset\": \"NAME\"}}: {e}"
            ))
        })?;
    if call.ids.is_empty() && call.gameset.is_none() && call.criteria.is_none() {
        return Err(Error::bad_request("no game to delete: give ids, a gameset or where").into());
    }
    delete(state, q, call, false).await
}

async fn delete(
    state: Arc<AppState>,
    q: Option<String>,
    sel: tabiya_service::edit::DeleteSelection,
    one: bool,
) -> Result<Response, ApiError> {
    let db = served(&state, q.as_deref())?;
    let _one_at_a_time = db.importing.lock().await;
    let s = Arc::clone(&state);
    let d = Arc::clone(&db);
    let report = blocking(move || {
        let out = d.db.delete_selected(&sel)?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    if one && report.deleted.games == 0 {
        return Err(Error::not_found(format!(
            "no game {}",
            report.deleted.missing.first().copied().unwrap_or_default()
        ))
        .into());
    }
    Ok(axum::Json(report).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteCall {
    note: String,
}

/// `PUT /api/note?fen=…|play=…` with `{"note": "Markdown"}`: keeps a position's note (an
/// empty one deletes it); `DELETE /api/note?…` deletes it. Refused as the other changes.
pub async fn set_note(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    let call: NoteCall = serde_json::from_slice(&body).map_err(|e| {
        Error::bad_request(format!("a note is JSON like {{\"note\": \"text\"}}: {e}"))
    })?;
    note(state, q, call.note).await
}

/// `DELETE /api/note?fen=…|play=…`.
pub async fn delete_note(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(r) = refused(&state, &headers) {
        return Ok(r);
    }
    note(state, q, String::new()).await
}

async fn note(state: Arc<AppState>, q: Option<String>, text: String) -> Result<Response, ApiError> {
    let db = served(&state, q.as_deref())?;
    let p = Params::parse(q.as_deref());
    let at = tabiya_service::ChessPosition::resolve(p.get("fen"), p.get("play"))?;
    let s = Arc::clone(&state);
    let note = blocking(move || {
        let out = tabiya_service::notes::set(&db.db, &at, &text)?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    Ok(axum::Json(note).into_response())
}
