//! Imports into a served database. A database is opened by one process at a time, so while
//! `tabiya serve` holds it, `tabiya import` hands its import to the server: the server
//! writes `serve.json` into each served database's directory (its address and a secret, the
//! file readable by its owner only) and takes `POST /api/admin/import` with that secret; it
//! imports through the handle it serves from, and answers with one line of JSON per
//! progress report, then the import's summary. Readers are never blocked, and never see part
//! of an import: until it is done, every answer comes from the database as it was before it
//! (`Database::pin_answers`); then the cached answers are computed again (`cache`), and only
//! then does the import report that it is done.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tabiya_service::import::{self, ImportProgress, ImportReport, ImportRequest, ImportStatus};
use tabiya_service::{Error, ErrorKind};
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{ApiError, full_message};
use crate::state::AppState;

/// The file a server writes into each database directory it serves.
pub const SERVE_FILE: &str = "serve.json";

/// What the serve file says.
#[derive(Serialize, Deserialize)]
struct ServeFile {
    url: String,
    token: String,
    pid: u32,
    /// The database's name at that server.
    db: String,
}

/// A fresh secret: 128 random bits as hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    let from_os = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok();
    if !from_os {
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether process `pid` is running (on Linux, told by /proc; elsewhere assumed).
fn process_alive(pid: u32) -> bool {
    let proc_fs = Path::new("/proc/self");
    !proc_fs.exists() || Path::new("/proc").join(pid.to_string()).exists()
}

/// Writes the serve file of every served database. One that cannot be written (a full
/// disk, a read-only directory) leaves that database served for reading and changes by the
/// API, without hand-overs from local commands: what is said about it is returned.
pub fn announce(state: &AppState) -> Vec<String> {
    let mut said = Vec::new();
    // A set is read only: imports and changes go to its members, served or not.
    for d in state.dbs.iter().filter(|d| !d.db.is_set()) {
        let file = ServeFile {
            url: state.url.clone(),
            token: state.token.clone(),
            pid: std::process::id(),
            db: d.name.clone(),
        };
        let path = d.dir.join(SERVE_FILE);
        let bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
        match write_private(&path, &bytes) {
            Ok(()) => {}
            // A read-only directory takes no import: there is nothing to hand over, and
            // its database is served for reading.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ReadOnlyFilesystem | std::io::ErrorKind::PermissionDenied
                ) => {}
            Err(e) => {
                // Nothing half written is left to be read as a server's address.
                let _ = std::fs::remove_file(&path);
                said.push(format!(
                    "cannot write {} ({e}): {} is served, but `tabiya import`, `edit` and the other commands on this machine cannot hand their changes to this server until it is restarted with room on the disk",
                    path.display(),
                    d.name
                ));
            }
        }
    }
    said
}

/// Removes the serve files this server wrote.
pub fn withdraw(state: &AppState) {
    for d in state.dbs.iter().filter(|d| !d.db.is_set()) {
        let path = d.dir.join(SERVE_FILE);
        let ours = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<ServeFile>(&b).ok())
            .is_some_and(|f| f.token == state.token);
        if ours {
            let _ = std::fs::remove_file(&path);
        }
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o.open(path)?;
    f.write_all(bytes)
}

/// What `tabiya import` sends.
#[derive(Serialize, Deserialize)]
struct ImportCall {
    db: String,
    files: Vec<PathBuf>,
    keep_duplicates: bool,
    batch: u64,
    memory_mib: Option<u64>,
    max_ply: Option<u32>,
    jou: Option<PathBuf>,
    trn: Option<PathBuf>,
}

/// One line of the answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum ImportLine {
    Status(ImportStatus),
    Report(ImportReport),
    Error { message: String, kind: ErrorKind },
}

/// `POST /api/admin/import`: an import handed over by `tabiya import` (see the module).
pub async fn import(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    // Only the server's own secret: a page's grant changes games, it never imports files.
    if !crate::guard::shows_secret(&state, &headers) {
        return Ok((StatusCode::UNAUTHORIZED, "this server's secret is needed").into_response());
    }
    let call: ImportCall = serde_json::from_slice(&body)
        .map_err(|e| Error::bad_request(format!("import request: {e}")))?;
    let served = state
        .db(Some(&call.db), None)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("no database {:?} is served", call.db)))?;
    let req = ImportRequest {
        files: call.files,
        max_ply: call.max_ply,
        keep_duplicates: call.keep_duplicates,
        batch: call.batch,
        memory_mib: call.memory_mib,
        names: import::NameSources {
            jou: call.jou,
            trn: call.trn,
        },
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(16);
    let state = Arc::clone(&state);
    tokio::spawn(async move {
        let line = |l: &ImportLine| {
            let mut b = serde_json::to_vec(l).unwrap_or_default();
            b.push(b'\n');
            Ok(axum::body::Bytes::from(b))
        };
        let _one_at_a_time = served.importing.lock().await;
        let progress = Arc::new(ImportProgress::default());
        let started = Instant::now();
        let p = Arc::clone(&progress);
        let s = Arc::clone(&served);
        let (done_tx, mut job) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("tabiya-import".into())
            .spawn(move || {
                // The import's threads (started from this one, they inherit it) yield the
                // cores to the questions the server answers meanwhile.
                crate::priority::lower_this_threads_priority();
                let result = import::import_into(&s.db, &req, &p);
                // The answers asked before are computed again on the new state before the
                // import says it is done: whoever imported sees them at once.
                state.cache.refresh_stale_and_wait();
                let _ = done_tx.send(result);
            });
        if let Err(e) = spawned {
            let _ = tx
                .send(line(&ImportLine::Error {
                    message: format!("cannot start the import: {e}"),
                    kind: ErrorKind::Io,
                }))
                .await;
            return;
        }
        let result = loop {
            tokio::select! {
                r = &mut job => break r,
                _ = tokio::time::sleep(Duration::from_millis(250)) => {
                    let status = import::status(&progress, started);
                    if tx.send(line(&ImportLine::Status(status))).await.is_err() {
                        // The caller went away: the import goes on to its end.
                    }
                }
            }
        };
        let last = match result {
            Ok(Ok(report)) => ImportLine::Report(report),
            Ok(Err(e)) => ImportLine::Error {
                message: full_message(&e),
                kind: e.kind(),
            },
            Err(_) => ImportLine::Error {
                message: "the import stopped without a report".to_string(),
                kind: ErrorKind::Io,
            },
        };
        let _ = tx.send(line(&last)).await;
    });
    Ok((
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(ReceiverStream::new(rx)),
    )
        .into_response())
}

/// A server that serves a database directory: the serve file it wrote, if any.
pub struct HandOff {
    url: String,
    token: String,
    db: String,
}

impl HandOff {
    /// The server serving `dir`, if one says so (its serve file is there and readable).
    ///
    /// A serve file left by a server that is gone (killed, or the machine stopped) is stale:
    /// it is removed, and no server is found, rather than blamed.
    pub fn find(dir: &Path) -> Option<HandOff> {
        let path = dir.join(SERVE_FILE);
        let bytes = std::fs::read(&path).ok()?;
        let f: ServeFile = serde_json::from_slice(&bytes).ok()?;
        if !process_alive(f.pid) {
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(HandOff {
            url: f.url,
            token: f.token,
            db: f.db,
        })
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// Hands an import to the server that serves the database (see the module), calling
/// `on_status` with each progress report; returns the import's summary.
pub fn hand_over_import(
    server: &HandOff,
    req: &ImportRequest,
    mut on_status: impl FnMut(&ImportStatus),
) -> Result<ImportReport, Error> {
    let absolute = |p: &PathBuf| -> PathBuf {
        if p.as_os_str() == "-" || p.is_absolute() {
            p.clone()
        } else {
            std::env::current_dir().map_or_else(|_| p.clone(), |d| d.join(p))
        }
    };
    if req.files.iter().any(|p| p.as_os_str() == "-") {
        return Err(Error::bad_request(format!(
            "the database is served by {}: it imports files, not standard input (give a file, or stop the server)",
            server.url
        )));
    }
    let call = ImportCall {
        db: server.db.clone(),
        files: req.files.iter().map(absolute).collect(),
        keep_duplicates: req.keep_duplicates,
        batch: req.batch,
        memory_mib: req.memory_mib,
        max_ply: req.max_ply,
        jou: req.names.jou.as_ref().map(absolute),
        trn: req.names.trn.as_ref().map(absolute),
    };
    let unreachable = |e: &dyn std::fmt::Display| {
        Error::new(
            ErrorKind::InUse,
            format!(
                "the database is open in a server at {} that does not answer ({e}); stop it, or wait",
                server.url
            ),
        )
    };
    let response = ureq::post(&format!("{}api/admin/import", server.url))
        .header("Authorization", &format!("Bearer {}", server.token))
        .header("Content-Type", "application/json")
        .send(&serde_json::to_vec(&call)?[..])
        .map_err(|e| unreachable(&e))?;
    // The server took the import; if it stops answering now, it stopped (or was stopped).
    let stopped = |e: &dyn std::fmt::Display| {
        Error::new(
            ErrorKind::Io,
            format!(
                "the server at {} stopped answering during the import ({e}): what it committed \
                 is kept; run the same import again to finish it (stored games are skipped)",
                server.url
            ),
        )
    };
    let reader = BufReader::new(response.into_body().into_reader());
    for line in reader.lines() {
        let line = line.map_err(|e| stopped(&e))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<ImportLine>(&line)? {
            ImportLine::Status(s) => on_status(&s),
            ImportLine::Report(r) => return Ok(r),
            ImportLine::Error { message, kind } => return Err(Error::new(kind, message)),
        }
    }
    Err(stopped(&"the answer ended early"))
}

/// Sends a change (an edit, a deletion, a note, an answer to a card; or asks for its cards)
/// to the server that serves the database, with its secret, and reads its answer (see
/// `changes.rs`, `cards.rs`).
fn hand_over_change<T: serde::de::DeserializeOwned>(
    server: &HandOff,
    method: &str,
    path: &str,
    body: Vec<u8>,
) -> Result<T, Error> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let join = if path.contains('?') { '&' } else { '?' };
    let url = format!(
        "{}{path}{join}db={}",
        server.url,
        encode_component(&server.db)
    );
    let auth = format!("Bearer {}", server.token);
    let sent = match method {
        "GET" => agent.get(&url).header("Authorization", &auth).call(),
        "PATCH" => agent
            .patch(&url)
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
            .send(&body[..]),
        "DELETE" => agent.delete(&url).header("Authorization", &auth).call(),
        "PUT" => agent
            .put(&url)
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
            .send(&body[..]),
        _ => agent
            .post(&url)
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
            .send(&body[..]),
    };
    let response = sent.map_err(|e| {
        Error::new(
            ErrorKind::InUse,
            format!(
                "the database is open in a server at {} that does not answer ({e}); stop it, or wait",
                server.url
            ),
        )
    })?;
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .read_to_vec()
        .map_err(|e| Error::new(ErrorKind::Io, format!("the server's answer: {e}")))?;
    if status >= 400 {
        #[derive(Deserialize)]
        struct Failed {
            error: String,
            kind: serde_json::Value,
        }
        let f: Failed = serde_json::from_slice(&bytes)
            .map_err(|_| Error::new(ErrorKind::Io, format!("the server answered {status}")))?;
        let kind = serde_json::from_value(f.kind).unwrap_or(ErrorKind::BadRequest);
        return Err(Error::new(kind, f.error));
    }
    Ok(serde_json::from_slice(&bytes)?)
}

/// A query-string value, percent-encoded.
fn encode_component(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Hands an edit of a game's tags to the server that serves the database.
pub fn hand_over_edit(
    server: &HandOff,
    id: u32,
    req: &tabiya_service::edit::EditRequest,
) -> Result<tabiya_service::edit::Edited, Error> {
    hand_over_change(
        server,
        "PATCH",
        &format!("api/game/{id}"),
        serde_json::to_vec(req)?,
    )
}

/// Hands a position's note (empty: deleted) to the server that serves the database.
pub fn hand_over_note(
    server: &HandOff,
    fen: &str,
    text: &str,
) -> Result<tabiya_service::notes::Note, Error> {
    let body = serde_json::to_vec(&serde_json::json!({ "note": text }))?;
    let path = format!("api/note?fen={}", encode_component(fen));
    hand_over_change(server, "PUT", &path, body)
}

/// Hands a new gameset to the server that serves the database.
pub fn hand_over_gameset(
    server: &HandOff,
    name: &str,
    criteria: &str,
    from: Option<&str>,
    repertoires: Vec<(String, String)>,
) -> Result<tabiya_service::gamesets::Gameset, Error> {
    let call = crate::gamesets::CreateCall {
        name: name.to_string(),
        criteria: criteria.to_string(),
        from: from.map(str::to_string),
        repertoires: repertoires.into_iter().collect(),
    };
    hand_over_change(server, "POST", "api/gamesets", serde_json::to_vec(&call)?)
}

/// Hands a gameset's deletion to the server that serves the database.
pub fn hand_over_gameset_delete(
    server: &HandOff,
    name: &str,
) -> Result<tabiya_service::gamesets::Gameset, Error> {
    let path = format!("api/gamesets/{}", encode_component(name));
    hand_over_change(server, "DELETE", &path, Vec::new())
}

/// The cards of the database a server serves (`GET /api/cards`), due ones only when asked.
pub fn served_cards(
    server: &HandOff,
    req: &tabiya_service::cards::ListRequest,
) -> Result<tabiya_service::cards::CardList, Error> {
    let mut path = format!("api/cards?due={}", u8::from(req.due_only));
    if let Some(side) = req.side {
        path.push_str(if side.is_white() {
            "&side=white"
        } else {
            "&side=black"
        });
    }
    if let Some(n) = req.limit {
        path.push_str(&format!("&limit={}", n.min(10_000)));
    }
    hand_over_change(server, "GET", &path, Vec::new())
}

/// Hands an answer to a card (SAN or UCI) to the server that serves the database; the
/// verdict comes back (`POST /api/cards/{id}/answer`).
pub fn hand_over_answer(
    server: &HandOff,
    id: u32,
    given: &str,
) -> Result<tabiya_service::cards::Verdict, Error> {
    let body = serde_json::to_vec(&serde_json::json!({ "move": given }))?;
    hand_over_change(server, "POST", &format!("api/cards/{id}/answer"), body)
}

/// Hands a deletion to the server that serves the database.
pub fn hand_over_delete(
    server: &HandOff,
    sel: &tabiya_service::edit::DeleteSelection,
) -> Result<tabiya_service::edit::DeleteReport, Error> {
    let body = serde_json::to_vec(sel)?;
    hand_over_change(server, "POST", "api/games/delete", body)
}
