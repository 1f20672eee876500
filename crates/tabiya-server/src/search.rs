//! `GET /api/search`: a structure search (see `docs/api.md`), what `tabiya search --json`
//! answers — `pattern`, `material`, `pawns`, `eitherColour`, `for`, `oppositeBishops`, the
//! explorer's filters, `sort`, `limit`, `offset`, `next`, `moves`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use tabiya_service::filter::Filter;
use tabiya_service::search::{self, SearchPage, StructureText};
use tabiya_service::{Error, Kind};

use crate::api::{json, served};
use crate::cached;
use crate::error::ApiError;
use crate::params::Params;
use crate::query::{FromParams, Query};
use crate::state::AppState;

/// Most games a page holds.
const MAX_LIMIT: usize = 1000;
/// Most structures reached next listed.
const MAX_NEXT: usize = 100;

/// The query of `GET /api/search`.
pub struct SearchQuery {
    db: Option<String>,
    text: StructureText,
    filter: Filter,
    page: SearchPage,
}

/// A yes-or-no parameter: `1`/`true` or `0`/`false` (absent: no).
fn yes(p: &Params, name: &str) -> Result<bool, Error> {
    match p.get(name) {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true") => Ok(true),
        Some(v) => Err(Error::bad_request(format!(
            "{name} {v:?}: give true or false"
        ))),
    }
}

impl FromParams for SearchQuery {
    fn from_params(p: &Params) -> Result<SearchQuery, Error> {
        let text = StructureText {
            pattern: p.get("pattern").map(String::from),
            material: p.get("material").map(String::from),
            pawns: p.get("pawns").map(String::from),
            either_colour: yes(p, "eitherColour")? || yes(p, "eitherColor")?,
            hold: p.number("for", 1, search::MOST_HOLD as usize)? as u32,
            opposite_bishops: yes(p, "oppositeBishops")?,
        };
        // Read now, so that a mistake is a 400 naming it before any work.
        text.query()?;
        Ok(SearchQuery {
            db: p.get("db").map(String::from),
            text,
            filter: p.filter()?,
            page: SearchPage {
                sort: crate::games::sort(p)?,
                offset: p.number("offset", 0, usize::MAX)?,
                limit: p.number("limit", 20, MAX_LIMIT)?,
                next: p.number("next", 10, MAX_NEXT)?,
                // As the explorer's `moves`: the most played first; all when not given.
                moves: p.number("moves", usize::MAX, usize::MAX)?,
            },
        })
    }
}

/// `GET /api/search`: the games in which a structure holds, their results, the moves
/// played from there, the structures reached next.
pub async fn search(
    State(state): State<Arc<AppState>>,
    uri: Uri,
    Query {
        value: q,
        canonical,
        ..
    }: Query<SearchQuery>,
) -> Result<Response, ApiError> {
    let db = served(&state, q.db.as_deref())?;
    if db.kind != Kind::Chess {
        return Err(Error::bad_request("structure search is for chess databases").into());
    }
    let key = format!("{}?{canonical}", uri.path());
    Ok(
        cached(&state, &db.clone(), key, "application/json", move || {
            json(&search::search(&db.db, &q.text, &q.filter, q.page)?)
        })
        .await?,
    )
}
