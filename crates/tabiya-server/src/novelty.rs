//! `/api/novelty`: a chess game's novelty (ChessBase's "N") — the earlier games of the
//! database in each position of its main line, the first move leading where none went, the
//! last move still known. `GET` for a stored game (`id`), `POST` for games sent as PGN (not
//! stored). Handlers only read the request and call `tabiya_service::novelty`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use tabiya_service::{Error, novelty};

use crate::api::{json, served};
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{DbQuery, FromParams, Query};
use crate::state::AppState;
use crate::{blocking, cached};

/// The query of `GET /api/novelty`: the stored game (`id`).
pub struct StoredQuery {
    db: Option<String>,
    id: u32,
}

impl FromParams for StoredQuery {
    fn from_params(p: &Params) -> Result<StoredQuery, Error> {
        let id = match p.get("id") {
            None => return Err(Error::bad_request("give a stored game: id=N")),
            Some(v) => v
                .parse::<u32>()
                .map_err(|_| Error::not_found(format!("no game {v:?}")))?,
        };
        Ok(StoredQuery {
            db: p.get("db").map(String::from),
            id,
        })
    }
}

/// `GET /api/novelty?id=N`: a stored game's novelty report.
pub async fn stored(
    State(state): State<Arc<AppState>>,
    Query {
        value: q,
        canonical,
        ..
    }: Query<StoredQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/novelty?{canonical}");
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            let mut reports = novelty::of_games(&db.db, &[q.id])?;
            json(&reports.remove(0))
        })
        .await?,
    )
}

/// `POST /api/novelty` with PGN as the body: the novelty report of each of its games.
pub async fn sent(
    State(state): State<Arc<AppState>>,
    Query { value: q, .. }: Query<DbQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let reports = blocking(move || novelty::of_bytes(&db.db, &body)).await?;
    Ok(axum::Json(reports).into_response())
}
