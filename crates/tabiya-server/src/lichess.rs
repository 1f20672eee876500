//! The endpoints of the Lichess opening explorer (lichess-org/lila-openingexplorer), with its
//! parameters and response shapes, answered from a Tabiya database, so that its clients work
//! unchanged: `/masters`, `/lichess`, `/player` (NDJSON), `/masters/pgn/{id}`, and the old
//! names `/master`, `/master/pgn/{id}`, `/personal`.
//!
//! Tabiya's extension: `db=NAME` picks a served database (default: the first chess one).
//! Unlike Lichess's, top and recent games honour every filter.
//!
//! Also Lichess's: `history=true` (the position's games month by month) on `/lichess` and
//! `/player`, `/lichess/history`; `modes` on `/player` (told from the games' `Event` tags);
//! `since`/`until` read and refused as lila reads them; `variant` `chess960` and
//! `fromPosition` (games from their start position, Chess960 castling as king takes rook).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tabiya_service::explore::{self, ChessExplore, OpeningName, PositionMonths, TopGame};
use tabiya_service::filter::{Colour, Filter};
use tabiya_service::{ChessPosition, Error, Kind, export};

use crate::error::LichessError;
use crate::params::Params;
use crate::query::{ChessAt, DbQuery, FromParams, Query};
use crate::state::{AppState, Served};
use crate::{blocking, cached};

/// A player of a game.
#[derive(Serialize)]
struct GamePlayer {
    name: String,
    rating: Option<u16>,
}

/// A game in an answer.
#[derive(Serialize)]
struct ExplorerGame {
    #[serde(skip_serializing_if = "Option::is_none")]
    uci: Option<String>,
    id: String,
    winner: Option<&'static str>,
    white: GamePlayer,
    black: GamePlayer,
    year: Option<u16>,
    month: Option<String>,
    /// The game's speed (from its time control) on `/lichess` and `/player`, as Lichess
    /// gives it; absent when the game has none (and on `/masters`, as Lichess's).
    #[serde(skip_serializing_if = "Option::is_none")]
    speed: Option<&'static str>,
    /// `rated` or `casual`, from the game's `Event` tag, on `/lichess` and `/player`, as
    /// Lichess gives it; absent when the tag says neither (and on `/masters`).
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'static str>,
}

impl ExplorerGame {
    /// The game with its speed (`/lichess`, `/player`).
    fn with_speed(g: &TopGame) -> ExplorerGame {
        ExplorerGame {
            speed: g.facts.speed.map(|s| s.name()),
            ..ExplorerGame::from(g)
        }
    }
}

impl From<&TopGame> for ExplorerGame {
    fn from(g: &TopGame) -> ExplorerGame {
        ExplorerGame {
            speed: None,
            mode: None,
            uci: g.uci.clone(),
            id: g.id.clone(),
            winner: g.winner,
            white: GamePlayer {
                name: g.white.name.clone(),
                rating: g.white.rating,
            },
            black: GamePlayer {
                name: g.black.name.clone(),
                rating: g.black.rating,
            },
            year: g.year,
            month: g.month.clone(),
        }
    }
}

/// A move of an answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplorerMove {
    uci: String,
    san: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    average_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    average_opponent_rating: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    performance: Option<i32>,
    white: u64,
    draws: u64,
    black: u64,
    /// The game, when exactly one game played the move.
    game: Option<ExplorerGame>,
    /// Tabiya's: the games reaching the position after the move by any move order.
    #[serde(skip_serializing_if = "Option::is_none")]
    reached: Option<tabiya_service::explore::Reached>,
    /// The opening the move leads to (null when the table names none there).
    opening: Option<OpeningName>,
}

/// An answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplorerResponse {
    white: u64,
    draws: u64,
    black: u64,
    moves: Vec<ExplorerMove>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recent_games: Option<Vec<ExplorerGame>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_games: Option<Vec<ExplorerGame>>,
    opening: Option<OpeningName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    queue_position: Option<u64>,
    /// With `history=true`: the games month by month.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<Vec<HistoryMonth>>,
}

/// One month of `history`, as lila gives it: `YYYY-MM` and the results.
#[derive(Serialize)]
struct HistoryMonth {
    month: String,
    white: u64,
    draws: u64,
    black: u64,
}

/// The months of `m` from `since` (`yyyymm`; else the first month with games) to the last
/// month with games, a month without games counted as zeros, as lila fills them. (Lila
/// leaves out the last month when `until` is not given, its index of that month perhaps
/// unfinished; a Tabiya database is whole, so it is kept.)
fn history(m: &PositionMonths, since: Option<u32>) -> Vec<HistoryMonth> {
    let (Some(first), Some(last)) = (m.months.first(), m.months.last()) else {
        return Vec::new();
    };
    let mut at = since.unwrap_or(first.month).min(first.month);
    let mut out = Vec::new();
    let mut rows = m.months.iter().peekable();
    while at <= last.month {
        let (white, draws, black) = match rows.peek() {
            Some(r) if r.month == at => {
                let r = rows.next().expect("peeked");
                (r.white, r.draws, r.black)
            }
            _ => (0, 0, 0),
        };
        out.push(HistoryMonth {
            month: format!("{:04}-{:02}", at / 100, at % 100),
            white,
            draws,
            black,
        });
        at = if at % 100 == 12 {
            (at / 100 + 1) * 100 + 1
        } else {
            at + 1
        };
    }
    out
}

/// Which endpoint answers: what its moves carry and how it caps its lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    Masters,
    Lichess,
    Player,
}

fn shape(e: &ChessExplore, endpoint: Endpoint, moves: usize, top: bool) -> ExplorerResponse {
    let player = endpoint == Endpoint::Player;
    let game = match endpoint {
        Endpoint::Masters => ExplorerGame::from,
        Endpoint::Lichess | Endpoint::Player => ExplorerGame::with_speed,
    };
    ExplorerResponse {
        white: e.white,
        draws: e.draws,
        black: e.black,
        moves: e
            .moves
            .iter()
            .take(moves)
            .map(|m| ExplorerMove {
                uci: m.uci.clone(),
                san: m.san.clone(),
                average_rating: (!player).then_some(m.average_rating).flatten(),
                average_opponent_rating: player.then_some(m.average_opponent_rating).flatten(),
                performance: player.then_some(m.performance).flatten(),
                white: m.white,
                draws: m.draws,
                black: m.black,
                game: m.game.as_ref().map(game),
                reached: m.reached,
                opening: m.opening.clone(),
            })
            .collect(),
        recent_games: e
            .recent_games
            .as_ref()
            .map(|v| v.iter().map(game).collect()),
        top_games: top.then(|| e.top_games.iter().map(game).collect()),
        opening: e.opening.clone(),
        queue_position: player.then_some(0),
        history: None,
    }
}

/// Each game of a `/lichess` or `/player` answer with its mode (from its `Event` tag).
fn fill_modes(db: &tabiya_service::Db, r: &mut ExplorerResponse) -> Result<(), Error> {
    let mut games: Vec<&mut ExplorerGame> = Vec::new();
    for m in &mut r.moves {
        games.extend(m.game.as_mut());
    }
    games.extend(r.recent_games.iter_mut().flatten());
    games.extend(r.top_games.iter_mut().flatten());
    let ids: Vec<String> = games.iter().map(|g| g.id.clone()).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    for (g, mode) in games.into_iter().zip(explore::game_modes(db, &ids)?) {
        g.mode = mode;
    }
    Ok(())
}

/// The database a request asks for: `db=NAME`, else the first chess database.
fn chess_db(state: &AppState, name: Option<&str>) -> Result<Arc<Served>, Error> {
    let db = state
        .db(name, Some(Kind::Chess))
        .ok_or_else(|| match name {
            Some(n) => Error::not_found(format!("no database {n:?} is served")),
            None => Error::not_found("no chess database is served"),
        })?;
    if db.kind != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database",
            db.name
        )));
    }
    Ok(Arc::clone(db))
}

/// The query of an explorer endpoint: the position (`fen`, default the start; `play`, UCI
/// moves comma-separated; `variant`: chess, standard or set up, see [`chess960`]), `moves`,
/// the filters, the games asked for — capped silently, as Lichess does — and `history`.
pub struct Asked {
    db: Option<String>,
    at: ChessAt,
    moves: usize,
    filter: Filter,
    top: usize,
    recent: Option<usize>,
    /// `history=true` (`/lichess`, `/player`).
    history: bool,
    /// `since` as `yyyymm`, where the history starts.
    since: Option<u32>,
    /// `variant=chess960`: castling written as the king taking its rook.
    chess960: bool,
    /// What lila's query reader would refuse (`since`, `until`, `modes`), in its words.
    refused: Option<String>,
}

/// The variants Tabiya answers: chess from the standard start, Chess960, from a set-up
/// position (each from its start position: `fen`). Whether the variant is Chess960.
fn chess960(variant: Option<&str>) -> Result<bool, Error> {
    match variant {
        None | Some("standard" | "chess" | "Standard" | "fromPosition" | "From Position") => {
            Ok(false)
        }
        Some("chess960" | "Chess960") => Ok(true),
        Some(v) => Err(Error::bad_request(format!(
            "variant {v:?}: this explorer holds chess only; give standard, chess960 or \
             fromPosition"
        ))),
    }
}

/// The first and last years lila's dates hold.
const YEARS: std::ops::RangeInclusive<u16> = 1952..=3000;

/// A year as lila's masters query reads it.
fn lila_year(v: &str) -> Option<u16> {
    v.parse::<u16>().ok().filter(|y| YEARS.contains(y))
}

/// A month as lila's query reads it: `YYYY-MM` (or `YYYY/MM`), as `(year, month)`.
fn lila_month(v: &str) -> Option<(u16, u16)> {
    let (y, m) = v.split_once(['-', '/'])?;
    let (y, m) = (y.parse::<u16>().ok()?, m.parse::<u16>().ok()?);
    (YEARS.contains(&y) && (1..=12).contains(&m)).then_some((y, m))
}

/// Criteria no game meets: lila's answer when `since` is after `until` (no games).
const NO_GAME: &str = "result = '1-0' and result = '0-1'";

impl Asked {
    fn read(p: &Params, endpoint: Endpoint) -> Result<Asked, Error> {
        let chess960 = chess960(p.get("variant"))?;
        let moves = p.capped("moves", 12, 500)?;
        let mut refused = None;
        let mut filter = match endpoint {
            // Masters: years only.
            Endpoint::Masters => Filter::default(),
            _ => p.filter()?,
        };
        // Lila's reading of since and until: years on /masters, months elsewhere; a bad one
        // refused in lila's words; since after until: no game.
        let (mut since, mut until) = (None, None);
        for (name, end) in [("since", &mut since), ("until", &mut until)] {
            let Some(v) = p.get(name) else { continue };
            match endpoint {
                Endpoint::Masters => match lila_year(v) {
                    Some(y) => *end = Some((y, 0)),
                    None => refused = refused.or(Some("invlaid year".to_string())),
                },
                _ => match lila_month(v) {
                    Some(m) => *end = Some(m),
                    None => refused = refused.or(Some("invalid month".to_string())),
                },
            }
        }
        let text = |(y, m): (u16, u16)| {
            if m == 0 {
                format!("{y:04}")
            } else {
                format!("{y:04}-{m:02}")
            }
        };
        filter.since = since.map(text);
        filter.until = until.map(text);
        // A year alone runs from its first month to its last.
        if let (Some(a), Some(b)) = (since, until)
            && (a.0, a.1.max(1)) > (b.0, if b.1 == 0 { 12 } else { b.1 })
        {
            filter.since = None;
            filter.until = None;
            filter.criteria = Some(NO_GAME.to_string());
        }
        if endpoint == Endpoint::Player {
            let modes = p.list("modes");
            let mut wanted = Vec::new();
            for m in &modes {
                match explore::mode_criteria(m) {
                    Some(c) => wanted.push(c),
                    None => refused = refused.or(Some("invalid mode".to_string())),
                }
            }
            wanted.dedup();
            // One mode: its games; both (Lichess's default) or none: every game.
            if let [one] = wanted[..] {
                filter.criteria = Some(match filter.criteria.take() {
                    Some(c) => format!("({c}) and ({one})"),
                    None => one.to_string(),
                });
            }
        }
        // Lila's words for yes and no.
        let history = match p.get("history") {
            _ if endpoint == Endpoint::Masters => false,
            None | Some("no" | "false" | "False" | "off" | "0") => false,
            Some("yes" | "true" | "True" | "on" | "1") => true,
            Some(v) => {
                refused = refused.or(Some(format!(
                    "unknown variant `{v}`, expected `no` or `yes`"
                )));
                false
            }
        };
        let (top, recent) = match endpoint {
            Endpoint::Masters => (p.capped("topGames", 15, 15)?, None),
            Endpoint::Lichess => (
                p.capped("topGames", 4, 4)?,
                Some(p.capped("recentGames", 4, 4)?),
            ),
            Endpoint::Player => {
                let player = p
                    .get("player")
                    .ok_or_else(|| Error::bad_request("player: give the player's name"))?;
                let colour = p
                    .get("color")
                    .ok_or_else(|| Error::bad_request("color: give white or black"))?;
                filter.player = Some(player.to_string());
                filter.colour = Some(Colour::from_name(colour)?);
                (0, Some(p.capped("recentGames", 8, 8)?))
            }
        };
        Ok(Asked {
            db: p.get("db").map(String::from),
            at: ChessAt::from_params(p)?,
            moves,
            filter,
            top,
            recent,
            history,
            since: since.map(|(y, m)| y as u32 * 100 + m.max(1) as u32),
            chess960,
            refused,
        })
    }
}

/// The query of `/masters`: the position, `moves`, `since`, `until`, `topGames`.
pub struct MastersQuery(Asked);

impl FromParams for MastersQuery {
    fn from_params(p: &Params) -> Result<MastersQuery, Error> {
        Asked::read(p, Endpoint::Masters).map(MastersQuery)
    }
}

/// The query of `/lichess`: the position, `moves`, the filters, `topGames`, `recentGames`.
pub struct LichessQuery(Asked);

impl FromParams for LichessQuery {
    fn from_params(p: &Params) -> Result<LichessQuery, Error> {
        Asked::read(p, Endpoint::Lichess).map(LichessQuery)
    }
}

/// The query of `/lichess/history`: `/lichess`'s, with `history` on and no moves nor games
/// (as lila answers it).
pub struct HistoryQuery(Asked);

impl FromParams for HistoryQuery {
    fn from_params(p: &Params) -> Result<HistoryQuery, Error> {
        let mut a = Asked::read(p, Endpoint::Lichess)?;
        a.history = true;
        a.moves = 0;
        a.top = 0;
        a.recent = Some(0);
        Ok(HistoryQuery(a))
    }
}

/// The query of `/player`: the position, `moves`, the filters, `modes`, `player` and
/// `color` (required), `recentGames`, `history`.
pub struct PlayerQuery(Asked);

impl FromParams for PlayerQuery {
    fn from_params(p: &Params) -> Result<PlayerQuery, Error> {
        Asked::read(p, Endpoint::Player).map(PlayerQuery)
    }
}

/// A JSON answer, computed off the async threads, cached by the database's generation.
async fn answer(
    state: Arc<AppState>,
    path: &'static str,
    q: Asked,
    canonical: String,
    endpoint: Endpoint,
) -> Result<Response, LichessError> {
    if let Some(why) = q.refused {
        // As lila's query reader (axum's) refuses a value it cannot read.
        return Ok((
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("Failed to deserialize query string: {why}"),
        )
            .into_response());
    }
    let served = chess_db(&state, q.db.as_deref())?;
    let key = format!("{path}?{canonical}");
    let content_type = if endpoint == Endpoint::Player {
        "application/x-ndjson"
    } else {
        "application/json"
    };
    Ok(cached(&state, &served.clone(), key, content_type, move || {
        let mut at: ChessPosition = q.at.resolve()?;
        if q.chess960 {
            explore::write_chess960(&mut at);
        }
        let a = explore::games_filtered(&served.db, &at, &q.filter, q.top, q.recent)?;
        let mut r = shape(&a, endpoint, q.moves, endpoint != Endpoint::Player);
        if endpoint != Endpoint::Masters {
            fill_modes(&served.db, &mut r)?;
        }
        if q.history {
            let months = explore::chess_months(&served.db, &at, &q.filter)?;
            r.history = Some(history(&months, q.since));
        }
        let mut body = serde_json::to_vec(&r)?;
        if endpoint == Endpoint::Player {
            body.push(b'\n');
        }
        Ok(body)
    })
    .await?)
}

pub async fn masters(
    State(state): State<Arc<AppState>>,
    Query {
        value: MastersQuery(q),
        canonical,
        ..
    }: Query<MastersQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/masters", q, canonical, Endpoint::Masters).await
}

pub async fn lichess(
    State(state): State<Arc<AppState>>,
    Query {
        value: LichessQuery(q),
        canonical,
        ..
    }: Query<LichessQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/lichess", q, canonical, Endpoint::Lichess).await
}

pub async fn lichess_history(
    State(state): State<Arc<AppState>>,
    Query {
        value: HistoryQuery(q),
        canonical,
        ..
    }: Query<HistoryQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/lichess/history", q, canonical, Endpoint::Lichess).await
}

pub async fn player(
    State(state): State<Arc<AppState>>,
    Query {
        value: PlayerQuery(q),
        canonical,
        ..
    }: Query<PlayerQuery, LichessError>,
) -> Result<Response, LichessError> {
    answer(state, "/player", q, canonical, Endpoint::Player).await
}

/// A game's PGN.
pub async fn masters_pgn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query { value: q, .. }: Query<DbQuery, LichessError>,
) -> Result<Response, LichessError> {
    let served = chess_db(&state, q.db.as_deref())?;
    let pgn = blocking(move || export::game_pgn_named(&served.db, &id)).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        pgn,
    )
        .into_response())
}
