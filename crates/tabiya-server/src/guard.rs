//! Who may ask what (`docs/api.md`, "Security"). Every request passes here first:
//!
//! - its `Host` must be a name of this server — an IP address, `localhost`, or a name given
//!   with `--allow-host` — so that a page which reached the server through a name of its own
//!   (DNS rebinding) is refused before anything is read;
//! - a request that sends something (any method but `GET`, `HEAD`, `OPTIONS`) must come
//!   from no page or from the server's own page (`Origin`, `Sec-Fetch-Site`), with its body
//!   typed as what it is: JSON for a change, PGN (`application/x-chess-pgn`) for a
//!   repertoire or games sent to be read, `application/octet-stream` for the stream of an
//!   import handed over (on [`IMPORT`] only, which takes nothing else). None is a type a
//!   form of another site can send without the browser asking first, which this server
//!   never allows;
//! - an import handed over, and a read command's question (`reads.rs`), need the server's
//!   secret itself (`401` without it: a page's grant changes games, it never imports);
//! - a change needs a grant: `Authorization: Bearer` with the server's secret (the one in
//!   `serve.json`, readable by its owner only: how `tabiya edit` hands its change to the
//!   server) or, when the server was started with `--writable`, the page's grant (given by
//!   `GET /api/grant` to the server's own page only: no other site can read it). Both are
//!   compared in constant time.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

/// Why a read-only server refuses a change.
const READ_ONLY: &str = "this server does not change its databases: start it with `tabiya serve --writable` to edit and delete games, keep notes and gamesets and answer flashcards";

/// The type of a PGN body (what Lichess answers PGN with).
pub const PGN_TYPE: &str = "application/x-chess-pgn";

/// The path of imports handed over by `tabiya import`: the only one that takes a stream of
/// bytes (`application/octet-stream`), the only one that needs the server's secret itself.
pub const IMPORT: &str = "/api/admin/import";

/// The path of the read commands' questions (`tabiya explore`, `games`, `export`… while this
/// server holds their database): it needs the server's secret itself, as an import does.
pub const READ: &str = tabiya_service::reads::READ_PATH;

/// The type of an import's stream.
const STREAM_TYPE: &str = "application/octet-stream";

/// The paths that take a body to read, not to change anything: PGN text.
fn reads_pgn(path: &str) -> bool {
    matches!(
        path,
        "/api/repertoire" | "/api/repertoire/check" | "/api/repertoire/games" | "/api/novelty"
    )
}

fn refuse(status: StatusCode, kind: &str, error: String) -> Response {
    let body = serde_json::json!({ "error": error, "kind": kind });
    (status, axum::Json(body)).into_response()
}

/// The host part of a `Host` header (`[::1]:9876` → `::1`, `example.org:80` → `example.org`).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// Whether `host` names this server: an IP address (no page can rebind one), `localhost`
/// or a name under it, or one of the names the server was told to answer to.
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let name = host_name(host).trim_end_matches('.');
    name.parse::<IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || name.to_ascii_lowercase().ends_with(".localhost")
        || allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// Equal, in a time that depends on the lengths only.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    // Kept from being turned into an early exit.
    std::hint::black_box(diff) == 0
}

/// The bearer token a request shows, if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// Whether the request shows the server's secret (a local `tabiya` command's grant).
pub fn shows_secret(state: &AppState, headers: &HeaderMap) -> bool {
    bearer(headers).is_some_and(|t| same_secret(t.as_bytes(), state.token.as_bytes()))
}

/// Whether the request may change a database: it shows the server's secret, or the page's
/// grant of a `--writable` server.
pub fn granted(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(t) = bearer(headers) else {
        return false;
    };
    same_secret(t.as_bytes(), state.token.as_bytes())
        || state
            .grant
            .as_deref()
            .is_some_and(|g| same_secret(t.as_bytes(), g.as_bytes()))
}

/// Why a request from another page is refused, if it is: its `Origin` is not the server's
/// own (as the request's `Host` names it), or the browser says it comes from another site.
fn foreign_page(headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let own = host.map(|h| format!("http://{h}"));
        if own.as_deref() != Some(origin) {
            return Some(format!(
                "a page from {origin} may not send anything to this server: only its own page may"
            ));
        }
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site @ ("cross-site" | "same-site")) => Some(format!(
            "a page of another origin ({site}) may not send anything to this server: only its own page may"
        )),
        _ => None,
    }
}

/// Whether the request carries a body (a length above 0, or one sent in chunks).
fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|n| n > 0)
}

/// The media type of the body, lower case, without its parameters.
fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
}

/// The first guard, in front of everything: the name the request reached the server by.
pub async fn hosts(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if let Some(host) = headers.get(header::HOST) {
        let host = host.to_str().unwrap_or("");
        if !host_allowed(host, &state.hosts) {
            let name = host_name(host);
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!(
                    "this server does not answer to the name {name:?}: a page that reaches it by a name of its own is refused (DNS rebinding); to serve it under that name, start it with --allow-host {name}"
                ),
            );
        }
    }
    next.run(req).await
}

/// The second, in front of each route (a path or a method the server does not have is
/// answered 404 or 405 first): what a request that sends something must show.
pub async fn sending(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    if let Some(why) = foreign_page(headers) {
        return refuse(StatusCode::FORBIDDEN, "forbidden", why);
    }
    let path = req.uri().path();
    if path == IMPORT && !shows_secret(&state, headers) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "forbidden",
            "an import needs this server's secret (from serve.json, as Authorization: Bearer SECRET): `tabiya import` on this machine shows it".into(),
        );
    }
    if path == READ && !shows_secret(&state, headers) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "forbidden",
            "a command's question needs this server's secret (from serve.json, as Authorization: Bearer SECRET): the read commands on this machine show it; a page asks the /api/ endpoints".into(),
        );
    }
    if has_body(headers) {
        let wanted = if path == IMPORT {
            &[STREAM_TYPE][..]
        } else if reads_pgn(path) {
            &["application/json", PGN_TYPE][..]
        } else {
            &["application/json"][..]
        };
        let got = media_type(headers);
        if !got.as_deref().is_some_and(|g| wanted.contains(&g)) {
            let got = got.unwrap_or_else(|| "no Content-Type".into());
            let want = if path == IMPORT {
                format!("Content-Type: {STREAM_TYPE}")
            } else if reads_pgn(path) {
                format!("Content-Type: {PGN_TYPE}")
            } else {
                "Content-Type: application/json".into()
            };
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "bad-request",
                format!("{} takes a body sent with {want}, not {got}", path),
            );
        }
    }
    if !reads_pgn(path) && !granted(&state, headers) {
        let why = if state.grant.is_some() {
            "a change needs a grant: the server's own page has one (GET /api/grant); a program shows the server's secret from serve.json as Authorization: Bearer SECRET"
        } else {
            READ_ONLY
        };
        return refuse(StatusCode::FORBIDDEN, "forbidden", why.into());
    }
    next.run(req).await
}

/// `GET /api/grant`: the page's grant, for the server's own page (no other site can read
/// this answer: it is never shared across origins) — when the server was started with
/// `--writable`.
pub async fn grant(State(state): State<Arc<AppState>>) -> Response {
    match &state.grant {
        Some(g) => (
            [(header::CACHE_CONTROL, "no-store")],
            axum::Json(serde_json::json!({ "grant": g })),
        )
            .into_response(),
        None => refuse(StatusCode::FORBIDDEN, "forbidden", READ_ONLY.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let none: Vec<String> = Vec::new();
        for ok in [
            "127.0.0.1:9876",
            "127.0.0.1",
            "[::1]:9876",
            "localhost:9876",
            "LOCALHOST",
            "app.localhost:1",
            "192.168.1.20:80",
            "localhost.",
        ] {
            assert!(host_allowed(ok, &none), "{ok}");
        }
        for bad in [
            "evil.example:9876",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "",
        ] {
            assert!(!host_allowed(bad, &none), "{bad}");
        }
        let named = vec!["explorer.example.org".to_string()];
        assert!(host_allowed("Explorer.Example.org:443", &named));
        assert!(!host_allowed("other.example.org", &named));
    }

    #[test]
    fn secrets() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }
}
