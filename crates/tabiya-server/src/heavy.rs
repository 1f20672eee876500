//! The endpoints whose one request may cost seconds of a core and much memory (a structure
//! search, the structures a position leads to, a repertoire of megabytes walked, games sent
//! to be judged, a player's preparation) are answered a few at a time: one more is refused
//! at once with `503` and `Retry-After: 1`, so that a burst of them cannot take every core
//! and all the memory while the cheap questions wait. The refused request's body is read
//! before the refusal is sent, so that every client can read it.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

/// Heavy requests answered at once: one per core, at least two.
pub fn permits() -> usize {
    std::thread::available_parallelism()
        .map_or(2, usize::from)
        .max(2)
}

/// In front of each heavy route.
pub async fn limit(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let Ok(_permit) = Arc::clone(&state.heavy).try_acquire_owned() else {
        // The body is read first (within the route's size limit and the request's time
        // limit): a client still sending it would otherwise meet a closed connection (a
        // broken pipe), not the answer that tells it to retry.
        let _ = axum::body::to_bytes(req.into_body(), usize::MAX).await;
        let body = serde_json::json!({
            "error": format!(
                "busy: {} requests of this kind (structure searches, later structures, repertoires, games sent, preparations) are being answered; ask again in a moment",
                permits()
            ),
            "kind": "busy",
        });
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "1")],
            axum::Json(body),
        )
            .into_response();
    };
    next.run(req).await
}
