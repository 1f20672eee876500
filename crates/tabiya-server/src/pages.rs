//! The web page and its assets, embedded in the binary (`build.rs` lists `web/`): no file
//! is read and nothing is fetched from the network at run time. (For work on the page,
//! `TABIYA_WEB_DIR=crates/tabiya-server/web` serves the files as they are on disk.)

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// (path under `web/`, content type, bytes).
static ASSETS: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/assets.rs"));

fn asset_named(name: &str) -> Option<&'static (&'static str, &'static str, &'static [u8])> {
    ASSETS.iter().find(|(n, _, _)| *n == name)
}

fn serve(name: &str) -> Response {
    // For work on the page: its files read from a directory as they are now.
    if let Some(dir) = std::env::var_os("TABIYA_WEB_DIR")
        && !name.contains("..")
    {
        let path = std::path::Path::new(&dir).join(name);
        return match (std::fs::read(&path), asset_named(name)) {
            (Ok(bytes), found) => {
                let content_type = found.map_or("application/octet-stream", |a| a.1);
                (
                    [
                        (header::CONTENT_TYPE, content_type),
                        (header::CACHE_CONTROL, "no-store"),
                    ],
                    bytes,
                )
                    .into_response()
            }
            (Err(_), _) => (StatusCode::NOT_FOUND, "not found").into_response(),
        };
    }
    match asset_named(name) {
        Some((n, content_type, bytes)) => {
            // The vendored code changes only with the binary; the page's own files may be
            // rebuilt while a browser holds them, so they are checked again each time.
            let cache = if n.starts_with("vendor/") {
                "public, max-age=86400"
            } else {
                "no-cache"
            };
            (
                [
                    (header::CONTENT_TYPE, *content_type),
                    (header::CACHE_CONTROL, cache),
                ],
                *bytes,
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// `GET /`: the page (its state is in its URL's query string).
pub async fn index() -> Response {
    serve("index.html")
}

/// `GET /assets/{path}`.
pub async fn asset(Path(path): Path<String>) -> Response {
    serve(&path)
}
