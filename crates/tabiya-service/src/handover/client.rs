//! The command's side of the hand-over: each change sent to the server that holds the
//! database, with its secret, and its answer read (errors as the server gives them).

use std::io::{BufRead, BufReader};

use serde::Deserialize;

use super::HandOff;
use super::outgoing::{FrameBody, open_inputs};
use super::wire::{self, CreateCall, ImportLine};
use crate::error::{Error, ErrorKind};
use crate::import::{ImportReport, ImportRequest, ImportStatus};

/// Hands an import to the server that serves the database (see the module), calling
/// `on_status` with each progress report; returns the import's summary. Every input is
/// opened and read here and sent as bytes (`outgoing.rs`): the server opens no file the
/// request names.
pub fn hand_over_import(
    server: &HandOff,
    req: &ImportRequest,
    mut on_status: impl FnMut(&ImportStatus),
) -> Result<ImportReport, Error> {
    let (header, inputs) = open_inputs(&server.db, req)?;
    let header_bytes = wire::header_bytes(&header)?;
    let mut body = FrameBody::new(header_bytes, header.inputs, inputs, &mut on_status);
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
        .header("Content-Type", "application/octet-stream")
        .send(ureq::SendBody::from_reader(&mut body))
        .map_err(|e| unreachable(&e))?;
    drop(body);
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
            ImportLine::Report(r) => return Ok(*r),
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
    let bytes = exchange(server, method, path, body)?
        .into_body()
        .read_to_vec()
        .map_err(|e| Error::new(ErrorKind::Io, format!("the server's answer: {e}")))?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// Asks the server that holds the database a read question (`reads`): its answer's JSON.
pub fn hand_over_read(server: &HandOff, name: &str, body: Vec<u8>) -> Result<Vec<u8>, Error> {
    exchange(server, "POST", &read_path(name), body)?
        .into_body()
        .read_to_vec()
        .map_err(|e| Error::new(ErrorKind::Io, format!("the server's answer: {e}")))
}

/// Asks the server that holds the database a read question whose answer is a stream
/// (an export's frames): the answer, to be read as it comes.
pub fn hand_over_read_stream(
    server: &HandOff,
    name: &str,
    body: Vec<u8>,
) -> Result<Box<dyn std::io::Read + Send>, Error> {
    let answer = exchange(server, "POST", &read_path(name), body)?;
    Ok(Box::new(answer.into_body().into_reader()))
}

fn read_path(name: &str) -> String {
    format!(
        "{}?name={}",
        crate::reads::READ_PATH.trim_start_matches('/'),
        encode_component(name)
    )
}

/// Sends a request to the server with its secret: the answer when it succeeded (below
/// 400), else the server's error as it gave it.
fn exchange(
    server: &HandOff,
    method: &str,
    path: &str,
    body: Vec<u8>,
) -> Result<ureq::http::Response<ureq::Body>, Error> {
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
    if status < 400 {
        return Ok(response);
    }
    let bytes = response
        .into_body()
        .read_to_vec()
        .map_err(|e| Error::new(ErrorKind::Io, format!("the server's answer: {e}")))?;
    {
        #[derive(Deserialize)]
        struct Failed {
            error: String,
            kind: serde_json::Value,
        }
        let f: Failed = serde_json::from_slice(&bytes)
            .map_err(|_| Error::new(ErrorKind::Io, format!("the server answered {status}")))?;
        let kind = serde_json::from_value(f.kind).unwrap_or(ErrorKind::BadRequest);
        Err(Error::new(kind, f.error))
    }
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
    req: &crate::edit::EditRequest,
) -> Result<crate::edit::Edited, Error> {
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
) -> Result<crate::notes::Note, Error> {
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
) -> Result<crate::gamesets::Gameset, Error> {
    let call = CreateCall {
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
) -> Result<crate::gamesets::Gameset, Error> {
    let path = format!("api/gamesets/{}", encode_component(name));
    hand_over_change(server, "DELETE", &path, Vec::new())
}

/// The cards of the database a server serves (`GET /api/cards`), due ones only when asked.
pub fn served_cards(
    server: &HandOff,
    req: &crate::cards::ListRequest,
) -> Result<crate::cards::CardList, Error> {
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
) -> Result<crate::cards::Verdict, Error> {
    let body = serde_json::to_vec(&serde_json::json!({ "move": given }))?;
    hand_over_change(server, "POST", &format!("api/cards/{id}/answer"), body)
}

/// Hands a deletion to the server that serves the database.
pub fn hand_over_delete(
    server: &HandOff,
    sel: &crate::edit::DeleteSelection,
) -> Result<crate::edit::DeleteReport, Error> {
    let body = serde_json::to_vec(sel)?;
    hand_over_change(server, "POST", "api/games/delete", body)
}
