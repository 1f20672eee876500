//! `POST /api/repertoire/…`: a repertoire sent as PGN text (the request's body) against a
//! served database — its positions with their moves (the page's overlay), its check, where
//! games left it. Answers are cached by the database, the parameters and the text.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::Uri;
use axum::response::Response;
use serde::Serialize;
use tabiya_service::Error;
use tabiya_service::cards::Side;
use tabiya_service::repertoire::{self, CheckOptions, GamesOptions, Repertoire, TablePosition};

use crate::api::{json, served};
use crate::cached;
use crate::error::ApiError;
use crate::params::Params;
use crate::state::AppState;

/// Largest repertoire accepted, bytes of PGN.
pub const MAX_BODY: usize = 8 << 20;

fn side(p: &Params) -> Result<Side, Error> {
    Side::from_name(
        p.get("side")
            .ok_or_else(|| Error::bad_request("give the repertoire's side: side=white or black"))?,
    )
}

fn share(p: &Params, name: &str, default: f64) -> Result<f64, Error> {
    match p.get(name) {
        None => Ok(default),
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|x| (0.0..=1.0).contains(x))
            .ok_or_else(|| {
                Error::bad_request(format!(
                    "{name} {v:?}: a probability from 0 to 1 (0.01 is 1 %)"
                ))
            }),
    }
}

fn read(p: &Params, body: &[u8]) -> Result<Repertoire, Error> {
    if body.is_empty() {
        return Err(Error::bad_request(
            "send the repertoire's PGN (with variations) as the request's body",
        ));
    }
    // The text is the request's: what is wrong with it is the request's fault.
    Repertoire::from_pgn(p.get("name").unwrap_or("the repertoire"), body).map_err(|e| {
        if e.kind() == tabiya_service::ErrorKind::BadInput {
            Error::bad_request(crate::error::full_message(&e))
        } else {
            e
        }
    })
}

/// The cache key of a question about a body.
fn key(uri: &Uri, p: &Params, body: &[u8]) -> String {
    let mut h = std::hash::DefaultHasher::new();
    body.hash(&mut h);
    format!(
        "{}?{}#{:016x}-{}",
        uri.path(),
        p.canonical(),
        h.finish(),
        body.len()
    )
}

/// A body-carrying question, cached.
async fn answer(
    state: Arc<AppState>,
    uri: Uri,
    q: Option<String>,
    body: axum::body::Bytes,
    compute: impl Fn(&tabiya_service::Db, &Params, &[u8]) -> Result<Vec<u8>, Error>
    + Send
    + Sync
    + 'static,
) -> Result<Response, ApiError> {
    let p = Params::parse(q.as_deref());
    let db = served(&state, &p)?;
    let k = key(&uri, &p, &body);
    Ok(cached(&state, &db.clone(), k, "application/json", move || {
        compute(&db.db, &p, &body)
    })
    .await?)
}

/// The repertoire's positions and what was wrong in its file.
#[derive(Serialize)]
struct Positions {
    name: String,
    positions: Vec<TablePosition>,
    warnings: Vec<String>,
}

/// `POST /api/repertoire`: the repertoire's positions with their moves (UCI), for marking
/// the explorer's moves (`name` names it in messages).
pub async fn positions(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |_, p, body| {
        let rep = read(p, body)?;
        json(&Positions {
            name: rep.name.clone(),
            positions: repertoire::table(&rep),
            warnings: rep.warnings.clone(),
        })
    })
    .await
}

/// `POST /api/repertoire/check?side=…`: `tabiya repertoire check --json` (`depth`,
/// `minShare`, `minGames`, `badMargin`, `rare`, `limit`, and the explorer's filters).
pub async fn check(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |db, p, body| {
        let defaults = CheckOptions::new(side(p)?);
        let options = CheckOptions {
            depth: p.number("depth", defaults.depth as usize, 200)? as u32,
            min_share: share(p, "minShare", defaults.min_share)?,
            min_games: p.number("minGames", defaults.min_games as usize, 1_000_000_000)? as u64,
            bad_margin: share(p, "badMargin", defaults.bad_margin)?,
            rare: share(p, "rare", defaults.rare)?,
            limit: p.number("limit", defaults.limit, 1000)?,
            filter: p.filter()?,
            ..defaults
        };
        let rep = read(p, body)?;
        json(&repertoire::check(db, &rep, &options)?)
    })
    .await
}

/// `POST /api/repertoire/games?side=…`: `tabiya repertoire games --json` (`player`,
/// `gameset`, `where`, `limit`).
pub async fn games(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    RawQuery(q): RawQuery,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |db, p, body| {
        let options = GamesOptions {
            side: side(p)?,
            player: p.get("player").map(String::from),
            gameset: p.get("gameset").map(String::from),
            criteria: p.get("where").map(String::from),
            limit: p.number("limit", 20, 10_000)?,
        };
        let rep = read(p, body)?;
        json(&repertoire::games(db, &rep, &options)?)
    })
    .await
}
