//! Flashcards through the API: `GET /api/cards` (the cards, due first; `due=1` only the due
//! ones) and `POST /api/cards/{id}/answer` (`{"move": "Nf3"}`: checked, graded,
//! rescheduled, kept in the card's history). An answer changes the database: it is refused
//! as the other changes are, and goes through the same wrapper (`write.rs`), unless the server is `--writable` or the request
//! shows the server's secret (what `tabiya train` does when a server holds the database).
//! Cards are never cached: they change with every answer, and with the clock.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tabiya_service::Error;
use tabiya_service::cards::{self, ListRequest, Side};
use tabiya_service::time::clock;

use crate::blocking;
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{Body, DbQuery, FromParams, JsonBody, Query};
use crate::state::AppState;
use crate::write::{Granted, change, one_db};

/// The most cards one answer lists.
const LIST_MAX: usize = 10_000;

/// The query of `GET /api/cards`.
pub struct ListQuery {
    db: Option<String>,
    request: ListRequest,
}

impl FromParams for ListQuery {
    fn from_params(p: &Params) -> Result<ListQuery, Error> {
        let due_only = match p.get("due") {
            None | Some("0" | "false") => false,
            Some("1" | "true") => true,
            Some(v) => return Err(Error::bad_request(format!("due {v:?}: give 1 or 0"))),
        };
        Ok(ListQuery {
            db: p.get("db").map(String::from),
            request: ListRequest {
                due_only,
                side: p.get("side").map(Side::from_name).transpose()?,
                limit: Some(p.number("limit", LIST_MAX, LIST_MAX)?),
            },
        })
    }
}

/// `GET /api/cards?db=…&due=1&side=white&limit=N`.
pub async fn list(
    State(state): State<Arc<AppState>>,
    Query { value: q, .. }: Query<ListQuery>,
) -> Result<Response, ApiError> {
    let db = one_db(&state, q.db.as_deref())?;
    let list = blocking(move || cards::list(&db.db, &q.request, clock()?)).await?;
    Ok(axum::Json(list).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerCall {
    #[serde(rename = "move")]
    given: String,
    #[serde(default)]
    grade: Option<u8>,
}

impl JsonBody for AnswerCall {
    const LIKE: &'static str = "an answer is JSON like {\"move\": \"Nf3\"} (SAN or UCI)";
}

/// `POST /api/cards/{id}/answer?db=…` with `{"move": "Nf3"}` (and optionally `"grade"`,
/// 0–5): the verdict and the card's next due date.
pub async fn answer(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
    Body(call): Body<AnswerCall>,
) -> Result<Response, ApiError> {
    let db = one_db(&state, q.db.as_deref())?;
    let id: u32 = id
        .parse()
        .map_err(|_| Error::not_found(format!("no card {id:?}")))?;
    change(&state, granted, db, move |db| {
        cards::answer(db, id, &call.given, call.grade, clock()?)
    })
    .await
}
