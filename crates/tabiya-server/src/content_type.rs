//! The content type of a web file by its extension: used by `build.rs` for the embedded
//! files and by the server for files read from disk (`TABIYA_WEB_DIR`).

/// The content type of a file named `name`.
pub fn content_type(name: &str) -> &'static str {
    if name.ends_with("LICENSE") {
        return "text/plain; charset=utf-8";
    }
    match name.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "md" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
