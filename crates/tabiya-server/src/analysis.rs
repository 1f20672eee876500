//! `GET /api/analysis`: a position analysed by the engine pool, streamed as server-sent
//! events — the evaluation already stored (`stored`), each line as the engine finds it
//! (`line`), then the result as kept in the database (`done`), or `error`. Closing the
//! stream stops the analysis; a newer request with the same `client` supersedes it.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::analysis::{self, AnalysisRequest};
use tabiya_service::engine::{self, Limit};
use tabiya_service::{Error, ErrorKind, Kind};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{ApiError, full_message};
use crate::params::Params;
use crate::query::{ChessAt, FromParams, Query};
use crate::state::AppState;

/// The deepest and longest a request may ask for, and the most lines.
const MAX_DEPTH: u32 = 60;
const MAX_MOVETIME_MS: u64 = 300_000;
const MAX_LINES: u32 = 5;
/// Depth when none is asked.
const DEFAULT_DEPTH: u32 = 30;

/// Stops the analysis when the stream is dropped (the client went away).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn event<T: Serialize>(name: &str, value: &T) -> Event {
    Event::default()
        .event(name)
        .data(serde_json::to_string(value).unwrap_or_else(|_| "{}".into()))
}

/// The query of `GET /api/analysis`: the position (`fen`, `play`), `depth` or `movetime`
/// (milliseconds), `multipv`, `fresh`, `db` (where the result is kept), `client` (a newer
/// request of the same client supersedes this one). Its faults, and the position's, are
/// refused before any stream starts: a 400.
pub struct AnalysisQuery {
    db: Option<String>,
    at: ChessAt,
    limit: Limit,
    multipv: u32,
    fresh: bool,
    client: Option<String>,
}

impl FromParams for AnalysisQuery {
    fn from_params(p: &Params) -> Result<AnalysisQuery, Error> {
        let depth = p
            .optional_number("depth", MAX_DEPTH as usize)?
            .map(|d| d as u32);
        let movetime = p
            .optional_number("movetime", MAX_MOVETIME_MS as usize)?
            .map(|m| m as u64);
        let lines = p.number("multipv", 1, MAX_LINES as usize)? as u32;
        Ok(AnalysisQuery {
            db: p.get("db").map(String::from),
            at: ChessAt::from_params(p)?,
            limit: engine::limit(depth, movetime, Limit::Depth(DEFAULT_DEPTH))?,
            multipv: analysis::multipv(Some(lines))?,
            fresh: matches!(p.get("fresh"), Some("1" | "true")),
            client: p.get("client").map(|c| format!("page:{c}")),
        })
    }
}

pub async fn analyse(
    State(state): State<Arc<AppState>>,
    Query { value: q, .. }: Query<AnalysisQuery>,
) -> Result<Response, ApiError> {
    let Some(engines) = state.engines.clone() else {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("this server runs no engine: {}", state.engine_note),
        )
        .into());
    };
    let req = AnalysisRequest {
        at: q.at.resolve()?,
        limit: q.limit,
        multipv: q.multipv,
        fresh: q.fresh,
    };
    // A database to keep the result in: the one named, else the first chess database.
    let served = match q.db.as_deref() {
        Some(name) => Some(
            state
                .db(Some(name), None)
                .cloned()
                .ok_or_else(|| Error::not_found(format!("no database named {name:?} here")))?,
        ),
        None => state.db(None, Some(Kind::Chess)).cloned(),
    }
    .filter(|s| s.kind == Kind::Chess);
    let client = q.client;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(256);
    let flag = Arc::clone(&stop);
    tokio::task::spawn_blocking(move || {
        let db = served.as_ref().map(|s| &s.db);
        if !req.fresh
            && let Some(db) = db
            && let Ok(Some(kept)) = analysis::stored(db, &req.at.pos)
        {
            let _ = tx.blocking_send(event("stored", &kept));
        }
        let result = analysis::analyse(
            &engines,
            db,
            &req,
            client.as_deref().unwrap_or("api"),
            client.is_some(),
            &flag,
            |pv| {
                // A full queue: the client reads slowly; a line more or less is no loss.
                if let Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) =
                    tx.try_send(event("line", pv))
                {
                    flag.store(true, Ordering::Relaxed);
                }
            },
        );
        let last = match result {
            Ok(a) => event("done", &a),
            Err(e) => event(
                "error",
                &serde_json::json!({"error": full_message(&e), "kind": e.kind()}),
            ),
        };
        let _ = tx.blocking_send(last);
    });
    let guard = StopOnDrop(stop);
    let stream = ReceiverStream::new(rx).map(move |e| {
        let _ = &guard;
        Ok::<_, Infallible>(e)
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

/// `GET /api/engine`: the engine the server runs (name, author, options, pool size).
pub async fn engine(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    match &state.engines {
        Some(e) => Ok(axum::Json(serde_json::json!({
            "name": e.identity().name,
            "author": e.identity().author,
            "path": e.path().display().to_string(),
            "engines": e.size(),
            "options": e.identity().options,
        }))
        .into_response()),
        None => Err(Error::new(
            ErrorKind::NotFound,
            format!("this server runs no engine: {}", state.engine_note),
        )
        .into()),
    }
}
