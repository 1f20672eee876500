//! Errors as responses: Tabiya's API answers JSON (`{"error": "...", "kind": "..."}`), the
//! Lichess-compatible endpoints plain text as Lichess does (`bad request: ...`). A request's
//! fault is a 4xx; only the server's own trouble (a damaged database or book it serves, a
//! failed write, a failing engine: 502) is a 5xx.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tabiya_service::{Error, ErrorKind};

/// The status an error answers with.
pub fn status(e: &Error) -> StatusCode {
    match e.kind() {
        ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::InUse => StatusCode::SERVICE_UNAVAILABLE,
        // The engine is the server's upstream: it failed, not the request.
        ErrorKind::Engine => StatusCode::BAD_GATEWAY,
        // Stopped by its asker or a newer request of the same page.
        ErrorKind::Cancelled => StatusCode::CONFLICT,
        ErrorKind::BadInput | ErrorKind::Damaged | ErrorKind::Io => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}

/// The error with its causes, on one line.
pub fn full_message(e: &Error) -> String {
    let mut msg = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        cause = c.source();
    }
    msg
}

/// An error of Tabiya's API.
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": full_message(&self.0),
            "kind": self.0.kind(),
        });
        (status(&self.0), axum::Json(body)).into_response()
    }
}

/// An error of the Lichess-compatible endpoints.
pub struct LichessError(pub Error);

impl From<Error> for LichessError {
    fn from(e: Error) -> LichessError {
        LichessError(e)
    }
}

impl IntoResponse for LichessError {
    fn into_response(self) -> Response {
        let status = status(&self.0);
        let text = match status {
            StatusCode::BAD_REQUEST => format!("bad request: {}", full_message(&self.0)),
            StatusCode::NOT_FOUND => format!("not found: {}", full_message(&self.0)),
            _ => full_message(&self.0),
        };
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response()
    }
}
