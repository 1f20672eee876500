//! The web page and its assets, embedded in the binary (`build.rs` lists `web/`): no file
//! is read and nothing is fetched from the network at run time. (For work on the page,
//! `TABIYA_WEB_DIR=crates/tabiya-server/web` serves the files as they are on disk.)

use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// One embedded file.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    /// A strong entity tag of the bytes (quoted), for `If-None-Match`.
    etag: &'static str,
    bytes: &'static [u8],
}

/// (path under `web/`, content type, entity tag, bytes), sorted by path.
static ASSETS: &[(&str, &str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/assets.rs"));

fn asset_named(name: &str) -> Option<Asset> {
    let i = ASSETS.binary_search_by(|a| a.0.cmp(name)).ok()?;
    let (name, content_type, etag, bytes) = ASSETS[i];
    Some(Asset {
        name,
        content_type,
        etag,
        bytes,
    })
}

use crate::content_type::content_type;

/// For work on the page: its files read from a directory as they are now, never cached.
fn serve_from_disk(dir: &std::ffi::OsStr, name: &str) -> Response {
    if name.split('/').any(|part| part == ".." || part.is_empty()) {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    match std::fs::read(std::path::Path::new(dir).join(name)) {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(name)),
                (header::CACHE_CONTROL, "no-store"),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

fn serve(name: &str, headers: &HeaderMap) -> Response {
    if let Some(dir) = std::env::var_os("TABIYA_WEB_DIR") {
        return serve_from_disk(&dir, name);
    }
    let Some(asset) = asset_named(name) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    // The vendored code changes only with the binary; the page's own files are checked
    // again each time (a new binary may serve new ones), which costs a 304 when unchanged.
    let cache = if asset.name.starts_with("vendor/") {
        "public, max-age=86400"
    } else {
        "no-cache"
    };
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == asset.etag || t.trim() == "*")
        });
    let common = [(header::CACHE_CONTROL, cache), (header::ETAG, asset.etag)];
    if unchanged {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        [(header::CONTENT_TYPE, asset.content_type)],
        common,
        asset.bytes,
    )
        .into_response()
}

/// `GET /`: the page (its state is in its URL's query string).
pub async fn index(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

/// `GET /assets/{path}`.
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    serve(&path, &headers)
}
