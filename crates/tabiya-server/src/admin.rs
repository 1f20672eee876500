//! The server's side of the hand-over (`tabiya_service::handover`: the serve file, what goes
//! over the wire, the commands' side). A database is opened by one process at a time, so
//! while `tabiya serve` holds it, `tabiya import` hands its import to the server: the server
//! writes `serve.json` into each served database's directory (its address and a secret, the
//! file readable by its owner only) and takes `POST /api/admin/import` with that secret; it
//! imports through the handle it serves from, and answers with one line of JSON per
//! progress report, then the import's summary. Readers are never blocked, and never see part
//! of an import: until it is done, every answer comes from the database as it was before it
//! (`Database::pin_answers`); then the cached answers are computed again (`cache`), and only
//! then does the import report that it is done.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tabiya_service::handover::wire::{self, ImportLine};
use tabiya_service::handover::{SERVE_FILE, ServeFile, incoming};
use tabiya_service::import::{self, ImportProgress};
use tabiya_service::{Error, ErrorKind};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{ApiError, full_message};
use crate::state::AppState;

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

/// `POST /api/admin/import`: an import handed over by `tabiya import` (see the module): a
/// stream of bytes (`tabiya_service::handover::wire`), read as it comes — its header here,
/// the rest by the import's thread through a bounded channel ([`BodyReader`]), so that
/// memory holds a few chunks of it whatever its size.
pub async fn import(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // Only the server's own secret: a page's grant changes games, it never imports (the
    // guard refuses it first; kept here too).
    if !crate::guard::shows_secret(&state, &headers) {
        return Ok((StatusCode::UNAUTHORIZED, "this server's secret is needed").into_response());
    }
    let mut stream = body.into_data_stream();
    let mut got: Vec<u8> = Vec::new();
    let not_ours = |why: String| {
        Error::bad_request(format!(
            "the import request is not a stream Tabiya's hand-over sends ({why})"
        ))
    };
    // The header's length, once its four bytes are in; then the header.
    let mut need: Option<usize> = None;
    loop {
        if need.is_none() && got.len() >= 4 {
            let len = u32::from_le_bytes([got[0], got[1], got[2], got[3]]);
            if len > wire::MAX_HEADER {
                return Err(not_ours(format!("a header of {len} bytes")).into());
            }
            need = Some(4 + len as usize);
        }
        if need.is_some_and(|n| got.len() >= n) {
            break;
        }
        match stream.next().await {
            Some(Ok(chunk)) => got.extend_from_slice(&chunk),
            Some(Err(e)) => return Err(not_ours(e.to_string()).into()),
            None => return Err(not_ours("it ends before its header".into()).into()),
        }
    }
    let need = need.unwrap_or(4);
    let header = incoming::parse_header(&got[4..need])?;
    let rest = axum::body::Bytes::from(got.split_off(need));
    let served = state
        .db(Some(&header.db), None)
        .cloned()
        .ok_or_else(|| Error::not_found(format!("no database {:?} is served", header.db)))?;
    // The rest of the body, to the import's thread: a few chunks at a time.
    let (chunks_tx, chunks_rx) =
        tokio::sync::mpsc::channel::<std::io::Result<axum::body::Bytes>>(8);
    tokio::spawn(async move {
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(std::io::Error::other);
            let failed = chunk.is_err();
            if chunks_tx.send(chunk).await.is_err() || failed {
                break;
            }
        }
    });
    let body = BodyReader {
        rx: chunks_rx,
        current: rest,
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
                let result = incoming::import_received(&s.db, header, Box::new(body), &p);
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
                    // The command reads the answer once it has sent everything: reports it
                    // has not read yet are dropped rather than waited for. (The caller that
                    // went away leaves the import to go on to its end.)
                    let _ = tx.try_send(line(&ImportLine::Status(status)));
                }
            }
        };
        let last = match result {
            Ok(Ok(report)) => ImportLine::Report(Box::new(report)),
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

/// The body of an import after its header, read by the import's thread: each chunk as the
/// async side received it (`blocking_recv`: never called from an async thread).
struct BodyReader {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<axum::body::Bytes>>,
    current: axum::body::Bytes,
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.blocking_recv() {
                Some(chunk) => self.current = chunk?,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current.split_to(n));
        Ok(n)
    }
}
