//! `POST /api/repertoire/…`: a repertoire sent as PGN text (the request's body) against a
//! served database — its positions with their moves (the page's overlay), its check, where
//! games left it. Answers are cached by the database, the parameters and the text.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use axum::extract::State;
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
use crate::query::{FromParams, Query};
use crate::state::AppState;

/// Largest repertoire accepted, bytes of PGN.
pub const MAX_BODY: usize = 8 << 20;

/// The query of a question about a repertoire sent: the database, the repertoire's `name`
/// (in messages), and what else the endpoint reads (`X`).
pub struct SentQuery<X> {
    db: Option<String>,
    name: Option<String>,
    more: X,
}

impl<X: FromParams> FromParams for SentQuery<X> {
    fn from_params(p: &Params) -> Result<SentQuery<X>, Error> {
        Ok(SentQuery {
            db: p.get("db").map(String::from),
            name: p.get("name").map(String::from),
            more: X::from_params(p)?,
        })
    }
}

/// `POST /api/repertoire` reads nothing more.
pub struct Nothing;

impl FromParams for Nothing {
    fn from_params(_: &Params) -> Result<Nothing, Error> {
        Ok(Nothing)
    }
}

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

/// `POST /api/repertoire/check`'s options: `side`, `depth`, `minShare`, `minGames`,
/// `badMargin`, `rare`, `limit`, and the explorer's filters.
impl FromParams for CheckOptions {
    fn from_params(p: &Params) -> Result<CheckOptions, Error> {
        let defaults = CheckOptions::new(side(p)?);
        Ok(CheckOptions {
            depth: p.number("depth", defaults.depth as usize, 200)? as u32,
            min_share: share(p, "minShare", defaults.min_share)?,
            min_games: p.number("minGames", defaults.min_games as usize, 1_000_000_000)? as u64,
            bad_margin: share(p, "badMargin", defaults.bad_margin)?,
            rare: share(p, "rare", defaults.rare)?,
            limit: p.number("limit", defaults.limit, 1000)?,
            filter: p.filter()?,
            ..defaults
        })
    }
}

/// `POST /api/repertoire/games`'s options: `side`, `player`, `gameset`, `where`, `limit`.
impl FromParams for GamesOptions {
    fn from_params(p: &Params) -> Result<GamesOptions, Error> {
        Ok(GamesOptions {
            side: side(p)?,
            player: p.get("player").map(String::from),
            gameset: p.get("gameset").map(String::from),
            criteria: p.get("where").map(String::from),
            limit: p.number("limit", 20, 10_000)?,
        })
    }
}

fn read(name: Option<&str>, body: &[u8]) -> Result<Repertoire, Error> {
    if body.is_empty() {
        return Err(Error::bad_request(
            "send the repertoire's PGN (with variations) as the request's body",
        ));
    }
    // The text is the request's: what is wrong with it is the request's fault.
    Repertoire::from_pgn(name.unwrap_or("the repertoire"), body).map_err(|e| {
        if e.kind() == tabiya_service::ErrorKind::BadInput {
            Error::bad_request(crate::error::full_message(&e))
        } else {
            e
        }
    })
}

/// The cache key of a question about a body.
fn key(uri: &Uri, canonical: &str, body: &[u8]) -> String {
    let mut h = std::hash::DefaultHasher::new();
    body.hash(&mut h);
    format!(
        "{}?{canonical}#{:016x}-{}",
        uri.path(),
        h.finish(),
        body.len()
    )
}

/// A body-carrying question, cached: `compute` gets the database, the options and the
/// repertoire read from the body.
async fn answer<X: Send + Sync + 'static>(
    state: Arc<AppState>,
    uri: Uri,
    q: Query<SentQuery<X>>,
    body: axum::body::Bytes,
    compute: impl Fn(&tabiya_service::Db, &X, &Repertoire) -> Result<Vec<u8>, Error>
    + Send
    + Sync
    + 'static,
) -> Result<Response, ApiError> {
    let Query {
        value: q,
        canonical,
        ..
    } = q;
    let db = served(&state, q.db.as_deref())?;
    let k = key(&uri, &canonical, &body);
    Ok(cached(&state, &db.clone(), k, "application/json", move || {
        let rep = read(q.name.as_deref(), &body)?;
        compute(&db.db, &q.more, &rep)
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
    q: Query<SentQuery<Nothing>>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |_, _, rep| {
        json(&Positions {
            name: rep.name.clone(),
            positions: repertoire::table(rep),
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
    q: Query<SentQuery<CheckOptions>>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |db, options, rep| {
        json(&repertoire::check(db, rep, options)?)
    })
    .await
}

/// `POST /api/repertoire/games?side=…`: `tabiya repertoire games --json` (`player`,
/// `gameset`, `where`, `limit`).
pub async fn games(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    q: Query<SentQuery<GamesOptions>>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    answer(state, uri, q, body, |db, options, rep| {
        json(&repertoire::games(db, rep, options)?)
    })
    .await
}
