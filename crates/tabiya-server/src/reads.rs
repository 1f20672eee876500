//! The read commands' questions (`tabiya_service::reads`): while this server holds a
//! database, `tabiya explore`, `games`, `export`, `stats`, `names …` and `search` on the
//! same machine send their question here with the server's secret (`POST /api/admin/read?
//! name=QUESTION&db=NAME`, its arguments as JSON), and the same library function answers
//! it on the handle this server reads from. The answer is its JSON; an export's is a stream
//! of frames (`reads/export.rs`), written as the games are read, never held whole.
//!
//! These questions come from the owner's own commands, which have no time limit: they are
//! not cut by the server's `--timeout` (the route is outside that layer), and answer with
//! the database as it is, imports and changes through this server included.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tabiya_service::reads::{self, export};
use tabiya_service::{Error, ErrorKind};
use tokio_stream::wrappers::ReceiverStream;

use crate::error::ApiError;
use crate::params::Params;
use crate::state::AppState;

/// `POST /api/admin/read`.
pub async fn read(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    body: Bytes,
) -> Result<Response, ApiError> {
    // The guard refuses a request without the secret first; kept here too.
    if !crate::guard::shows_secret(&state, &headers) {
        return Ok((StatusCode::UNAUTHORIZED, "this server's secret is needed").into_response());
    }
    let p = Params::parse(uri.query());
    let name = p
        .get("name")
        .ok_or_else(|| Error::bad_request("name: which question (see tabiya_service::reads)"))?
        .to_string();
    let served = crate::api::served(&state, p.get("db"))?;
    if name == export::NAME {
        let asked: export::Export = serde_json::from_slice(&body)
            .map_err(|e| Error::bad_request(format!("the arguments of {name} do not read: {e}")))?;
        return Ok(stream_export(served, asked));
    }
    let answer = tokio::task::spawn_blocking(move || reads::answer(&served.db, &name, &body))
        .await
        .map_err(|e| Error::new(ErrorKind::Io, format!("the answer failed: {e}")))??;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(answer),
    )
        .into_response())
}

/// An export's answer: its frames as the games are written, a few at a time.
fn stream_export(served: Arc<crate::served::Served>, asked: export::Export) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(8);
    tokio::task::spawn_blocking(move || {
        let mut out =
            export::FrameWriter::new(|frame| tx.blocking_send(Ok(Bytes::from(frame))).is_ok());
        let result = asked.write(&served.db, &mut out);
        out.finish(result);
    });
    (
        [(header::CONTENT_TYPE, "application/octet-stream")],
        Body::from_stream(ReceiverStream::new(rx)),
    )
        .into_response()
}
