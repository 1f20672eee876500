//! Games edited and deleted through the API: `PATCH /api/game/{id}` (tags), `DELETE
//! /api/game/{id}`, `POST /api/games/delete` (several); positions' notes (`PUT` and `DELETE
//! /api/note`). Refused unless the server was started with `--writable`, or the request
//! shows the server's secret (what `tabiya edit` and `tabiya delete` do when the database is
//! served: see `admin.rs`). Each change goes through `write::change`: it waits for an import
//! in progress, and is answered once the cached answers are computed again.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Deserialize;
use tabiya_service::Error;
use tabiya_service::edit::{DeleteSelection, EditRequest};

use crate::error::ApiError;
use crate::params::Params;
use crate::query::{Body, ChessAt, DbQuery, FromParams, JsonBody, Query};
use crate::state::AppState;
use crate::write::{Granted, change, one_db};

fn game_id(id: &str) -> Result<u32, Error> {
    id.parse()
        .map_err(|_| Error::not_found(format!("no game {id:?}")))
}

impl JsonBody for EditRequest {
    const LIKE: &'static str =
        "an edit is JSON like {\"set\": {\"Result\": \"1-0\"}, \"unset\": [\"WhiteElo\"]}";
}

/// `PATCH /api/game/{id}`: `{"set": {"Result": "1-0"}, "unset": ["WhiteElo"]}`.
pub async fn edit(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
    Body(req): Body<EditRequest>,
) -> Result<Response, ApiError> {
    let db = one_db(&state, q.db.as_deref())?;
    let id = game_id(&id)?;
    change(&state, granted, db, move |db| db.edit_game(id, &req)).await
}

/// `DELETE /api/game/{id}`.
pub async fn delete_one(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery>,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let db = one_db(&state, q.db.as_deref())?;
    let sel = DeleteSelection {
        ids: vec![id],
        ..Default::default()
    };
    change(&state, granted, db, move |db| {
        let report = db.delete_selected(&sel)?;
        if report.deleted.games == 0 {
            return Err(Error::not_found(format!(
                "no game {}",
                report.deleted.missing.first().copied().unwrap_or_default()
            )));
        }
        Ok(report)
    })
    .await
}

impl JsonBody for DeleteSelection {
    const LIKE: &'static str =
        "a deletion is JSON like {\"ids\": [12, 13]} or {\"gameset\": \"NAME\"}";

    fn check(&self) -> Result<(), Error> {
        if self.ids.is_empty() && self.gameset.is_none() && self.criteria.is_none() {
            return Err(Error::bad_request(
                "no game to delete: give ids, a gameset or where",
            ));
        }
        Ok(())
    }
}

/// `POST /api/games/delete`: `{"ids": [12, 13]}`, `{"gameset": "NAME"}` or `{"where":
/// "CRITERIA"}` (or several), in one transaction.
pub async fn delete_many(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Query { value: q, .. }: Query<DbQuery>,
    Body(sel): Body<DeleteSelection>,
) -> Result<Response, ApiError> {
    let db = one_db(&state, q.db.as_deref())?;
    change(&state, granted, db, move |db| db.delete_selected(&sel)).await
}

/// The query of `/api/note`: the database and the position.
pub struct NoteQuery {
    db: Option<String>,
    at: ChessAt,
}

impl FromParams for NoteQuery {
    fn from_params(p: &Params) -> Result<NoteQuery, Error> {
        Ok(NoteQuery {
            db: p.get("db").map(String::from),
            at: ChessAt::from_params(p)?,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteCall {
    note: String,
}

impl JsonBody for NoteCall {
    const LIKE: &'static str = "a note is JSON like {\"note\": \"text\"}";
}

/// `PUT /api/note?fen=…|play=…` with `{"note": "Markdown"}`: keeps a position's note (an
/// empty one deletes it); `DELETE /api/note?…` deletes it. Refused as the other changes.
pub async fn set_note(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Query { value: q, .. }: Query<NoteQuery>,
    Body(call): Body<NoteCall>,
) -> Result<Response, ApiError> {
    note(state, granted, q, call.note).await
}

/// `DELETE /api/note?fen=…|play=…`.
pub async fn delete_note(
    State(state): State<Arc<AppState>>,
    granted: Granted,
    Query { value: q, .. }: Query<NoteQuery>,
) -> Result<Response, ApiError> {
    note(state, granted, q, String::new()).await
}

async fn note(
    state: Arc<AppState>,
    granted: Granted,
    q: NoteQuery,
    text: String,
) -> Result<Response, ApiError> {
    let db = one_db(&state, q.db.as_deref())?;
    let at = q.at.resolve()?;
    change(&state, granted, db, move |db| {
        tabiya_service::notes::set(db, &at, &text)
    })
    .await
}
