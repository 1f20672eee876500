//! Names and players under `/api/` (see `docs/api.md`): `GET /api/names` (a name search),
//! `GET /api/player` (a player's card) and `GET /api/prepare` (the preparation against a
//! player).

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use tabiya_service::names::{self, NameKind};
use tabiya_service::prepare::{self, Colour, PrepareOptions};
use tabiya_service::{Error, player};

use crate::api::{json, served};
use crate::cached;
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{FromParams, Query};
use crate::state::AppState;

/// The query of `GET /api/names`: `q` (what is typed), `kind`, `limit`.
pub struct NamesQuery {
    db: Option<String>,
    kind: NameKind,
    limit: usize,
    typed: String,
}

impl FromParams for NamesQuery {
    fn from_params(p: &Params) -> Result<NamesQuery, Error> {
        Ok(NamesQuery {
            db: p.get("db").map(String::from),
            kind: NameKind::from_name(p.get("kind").unwrap_or("player"))?,
            limit: p.number("limit", 20, 100)?,
            typed: p.get("q").unwrap_or("").to_string(),
        })
    }
}

/// `GET /api/names`: player (or event, site) names starting with what is typed (`q`), any
/// case, any accents.
pub async fn names(
    State(state): State<Arc<AppState>>,
    Query {
        value: q,
        canonical,
        ..
    }: Query<NamesQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/names?{canonical}");
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&names::search(&db.db, q.kind, &q.typed, q.limit)?)
        })
        .await?,
    )
}

/// A player's name, given (`name`): trimmed, not empty.
fn name(p: &Params, param: &str) -> Result<String, Error> {
    p.get(param)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .ok_or_else(|| Error::bad_request(format!("give a player's name: {param}=NAME")))
}

/// The query of `GET /api/player`: `name`.
pub struct PlayerQuery {
    db: Option<String>,
    name: String,
}

impl FromParams for PlayerQuery {
    fn from_params(p: &Params) -> Result<PlayerQuery, Error> {
        Ok(PlayerQuery {
            db: p.get("db").map(String::from),
            name: name(p, "name")?,
        })
    }
}

/// `GET /api/player`: one player's card (`name`, any case or accents): games, results by
/// colour, years, ratings, the openings most played.
pub async fn player(
    State(state): State<Arc<AppState>>,
    Query {
        value: q,
        canonical,
        ..
    }: Query<PlayerQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/player?{canonical}");
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&player::card(&db.db, &q.name)?)
        })
        .await?,
    )
}

/// The query of `GET /api/prepare`: `player`, `color`; `since` a year, `depth` plies,
/// `minGames`.
pub struct PrepareQuery {
    db: Option<String>,
    options: PrepareOptions,
}

impl FromParams for PrepareQuery {
    fn from_params(p: &Params) -> Result<PrepareQuery, Error> {
        let colour = Colour::from_name(p.get("color").unwrap_or(""));
        let mut options = PrepareOptions::new(name(p, "player")?, colour?);
        options.depth = p.number(
            "depth",
            prepare::DEFAULT_DEPTH as usize,
            prepare::MAX_DEPTH as usize,
        )? as u32;
        options.min_games =
            p.number("minGames", prepare::DEFAULT_MIN_GAMES as usize, 1_000_000)? as u64;
        options.since = p
            .get("since")
            .map(|y| {
                y.parse()
                    .map_err(|_| Error::bad_request(format!("since {y:?}: give a year")))
            })
            .transpose()?;
        Ok(PrepareQuery {
            db: p.get("db").map(String::from),
            options,
        })
    }
}

/// `GET /api/prepare`: preparation against a player — their repertoire with one colour by
/// position.
pub async fn prepare(
    State(state): State<Arc<AppState>>,
    Query {
        value: q,
        canonical,
        ..
    }: Query<PrepareQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    let key = format!("/api/prepare?{canonical}");
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&prepare::prepare(&db.db, &q.options)?)
        })
        .await?,
    )
}
