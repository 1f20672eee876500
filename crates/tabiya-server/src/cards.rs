//! Flashcards through the API: `GET /api/cards` (the cards, due first; `due=1` only the due
//! ones) and `POST /api/cards/{id}/answer` (`{"move": "Nf3"}`: checked, graded,
//! rescheduled, kept in the card's history). An answer changes the database: it is refused
//! as the other changes are (`changes.rs`) unless the server is `--writable` or the request
//! shows the server's secret (what `tabiya train` does when a server holds the database).
//! Cards are never cached: they change with every answer, and with the clock.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tabiya_service::Error;
use tabiya_service::cards::{self, ListRequest, Side};
use tabiya_service::time::clock;

use crate::blocking;
use crate::changes::{refused, served};
use crate::error::ApiError;
use crate::params::Params;
use crate::state::AppState;

/// The most cards one answer lists.
const LIST_MAX: usize = 10_000;

/// `GET /api/cards?db=…&due=1&side=white&limit=N`.
pub async fn list(
    State(state): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let db = served(&state, q.as_deref())?;
    let p = Params::parse(q.as_deref());
    let due_only = match p.get("due") {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(v) => return Err(Error::bad_request(format!("due {v:?}: give 1 or 0")).into()),
    };
    let req = ListRequest {
        due_only,
        side: p.get("side").map(Side::from_name).transpose()?,
        limit: Some(p.number("limit", LIST_MAX, LIST_MAX)?),
    };
    let list = blocking(move || cards::list(&db.db, &req, clock()?)).await?;
    Ok(axum::Json(list).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerCall {
    #[serde(rename = "move")]
    given: String,
    #[serde(default)]
    grade: Option<u8>,
}

/// `POST /api/cards/{id}/answer?db=…` with `{"move": "Nf3"}` (and optionally `"grade"`,
/// 0–5): the verdict and the card's next due date.
pub async fn answer(
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
    let id: u32 = id
        .parse()
        .map_err(|_| Error::not_found(format!("no card {id:?}")))?;
    let call: AnswerCall = serde_json::from_slice(&body).map_err(|e| {
        Error::bad_request(format!(
            "an answer is JSON like {{\"move\": \"Nf3\"}} (SAN or UCI): {e}"
        ))
    })?;
    let verdict =
        blocking(move || cards::answer(&db.db, id, &call.given, call.grade, clock()?)).await?;
    Ok(axum::Json(verdict).into_response())
}
