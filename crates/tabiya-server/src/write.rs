//! What every change over HTTP goes through (edits, deletions, notes, card answers,
//! gamesets): the grant ([`Granted`], the first thing a write handler reads), then
//! [`change`] — one change at a time with the imports into the database, off the async
//! threads, and the cached answers computed again before the change is answered (as JSON),
//! so whoever changed something sees it at once. Readers are never blocked: they answer
//! from the state before the change until it commits.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::{Db, Error};

use crate::blocking;
use crate::error::ApiError;
use crate::state::{AppState, Served};

/// Why a change is refused, if it is (the guard refused it already: see `guard.rs`; this is
/// the handler's own check, so that no change route depends on its place in the router).
fn refused(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    if crate::guard::granted(state, headers) {
        return None;
    }
    let body = serde_json::json!({
        "error": "this change needs a grant: start the server with `tabiya serve --writable` (its page has one) or show its secret from serve.json",
        "kind": "forbidden",
    });
    Some((StatusCode::FORBIDDEN, axum::Json(body)).into_response())
}

/// A request that may change a database (it shows the server's secret, or the page's grant
/// of a `--writable` server): what [`change`] asks for, so that no change is made
/// unchecked. Read before anything else of the request.
pub struct Granted(());

impl FromRequestParts<Arc<AppState>> for Granted {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Granted, Response> {
        match refused(state, &parts.headers) {
            Some(r) => Err(r),
            None => Ok(Granted(())),
        }
    }
}

/// The one database a change (or a card) is about: `db=NAME`, default the first; not a set
/// of databases, which is read only.
pub fn one_db(state: &AppState, db: Option<&str>) -> Result<Arc<Served>, Error> {
    let db = state
        .db(db, None)
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

/// Makes the change `f` to `served`'s database, granted: after an import in progress, off
/// the async threads, the cached answers computed again once it succeeded; answers what
/// `f` returns, as JSON.
pub async fn change<T: Serialize + Send + 'static>(
    state: &Arc<AppState>,
    _: Granted,
    served: Arc<Served>,
    f: impl FnOnce(&Db) -> Result<T, Error> + Send + 'static,
) -> Result<Response, ApiError> {
    let _one_at_a_time = served.importing.lock().await;
    let s = Arc::clone(state);
    let d = Arc::clone(&served);
    let out = blocking(move || {
        let out = f(&d.db)?;
        s.cache.refresh_stale_and_wait();
        Ok(out)
    })
    .await?;
    Ok(axum::Json(out).into_response())
}
