//! One position analysed by the engine: its lines as they come, the result kept in the
//! database (by position, so any move order finds it) and reused when deep enough.
//!
//! Scores are given from White's point of view everywhere (as Lichess shows them): `cp`
//! positive when White is better, `mate` positive when White mates.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Position};
use tabiya_db::{EvalLine, EvalScore, EvalsStored, StoredEval};
use tabiya_engine::{Bound, Event, Info, Limit, Score, Search, SearchResult, san_line};

use crate::database::{Db, Kind};
use crate::engine::Engines;
use crate::error::{Error, Result};
use crate::position::ChessPosition;

/// A score from White's point of view: `{"cp": 31}` or `{"mate": -2}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WhiteScore {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

impl WhiteScore {
    pub fn of(score: EvalScore) -> WhiteScore {
        match score {
            EvalScore::Cp(c) => WhiteScore {
                cp: Some(c),
                mate: None,
            },
            EvalScore::Mate(m) => WhiteScore {
                cp: None,
                mate: Some(m),
            },
        }
    }

    /// As a table shows it, with its sign: `+0.31`, `-1.20`, `#3`, `#-2` (`?` for none).
    pub fn signed_text(&self) -> String {
        match (self.cp, self.mate) {
            (_, Some(m)) => format!("#{m}"),
            (Some(c), None) => format!("{:+.2}", f64::from(c) / 100.0),
            (None, None) => "?".to_string(),
        }
    }

    /// As a PGN `[%eval]` shows it: `0.31`, `-1.20`, `#3`, `#-2`.
    pub fn text(&self) -> String {
        match (self.cp, self.mate) {
            (_, Some(m)) => format!("#{m}"),
            (Some(c), None) => format!("{:.2}", f64::from(c) / 100.0),
            (None, None) => String::new(),
        }
    }
}

/// One line of an analysis.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pv {
    /// 1 for the best line.
    pub multipv: u32,
    pub depth: u32,
    #[serde(flatten)]
    pub score: WhiteScore,
    /// `lower` or `upper` when the score is only a bound (White's point of view).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "tabiya_db::words::maybe_word"
    )]
    pub bound: Option<tabiya_db::words::Word>,
    /// Win, draw, loss per mille for White, when the engine gives them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl: Option<[u32; 3]>,
    /// The moves in UCI, separated by spaces (as Lichess's cloud evaluations give them).
    pub moves: String,
    /// The same moves in SAN.
    pub san: Vec<String>,
}

/// A finished analysis (or a stored one).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub fen: String,
    /// The engine's name and version.
    pub engine: String,
    /// The depth every line reached.
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    /// Kilo-nodes, as Lichess's cloud evaluations count them.
    pub knodes: u64,
    pub time_ms: u64,
    /// When it was computed (UTC).
    pub date: String,
    /// The best move (UCI, SAN); none when the position has no legal move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<BestMove>,
    /// Best line first.
    pub pvs: Vec<Pv>,
    /// `engine`: computed now; `stored`: found in the database (deep enough, not `fresh`).
    #[serde(deserialize_with = "tabiya_db::words::word")]
    pub source: tabiya_db::words::Word,
    /// Stopped before its limit (by its asker, or superseded).
    pub stopped: bool,
    /// Kept in the database (a deeper one there is kept instead).
    pub stored: bool,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BestMove {
    pub uci: String,
    pub san: String,
}

/// What to analyse and how.
#[derive(Debug, Clone)]
pub struct AnalysisRequest {
    pub at: ChessPosition,
    pub limit: Limit,
    /// Lines wanted (1 to 10).
    pub multipv: u32,
    /// Ignore the stored evaluation (the new one replaces it).
    pub fresh: bool,
}

/// Checks a number of lines as users give it.
pub fn multipv(k: Option<u32>) -> Result<u32> {
    match k.unwrap_or(1) {
        k @ 1..=10 => Ok(k),
        k => Err(Error::bad_request(format!(
            "{k} lines asked: between 1 and 10"
        ))),
    }
}

/// One line as it comes from the engine (White's point of view).
pub fn live_pv(pos: &Chess, info: &Info) -> Option<Pv> {
    if !info.is_line() {
        return None;
    }
    let score = white_score(pos.turn(), info.score?);
    let san = san_line(pos, &info.pv);
    // A line with moves that are not legal is not shown (the engine is confused).
    if san.len() != info.pv.len() {
        return None;
    }
    Some(Pv {
        multipv: info.multipv.unwrap_or(1),
        depth: info.depth.unwrap_or(0),
        score: WhiteScore::of(score),
        bound: info.bound.map(|b| bound_text(white_bound(pos.turn(), b))),
        wdl: info.wdl.map(|w| white_wdl(pos.turn(), w)),
        moves: info.pv.join(" "),
        san,
    })
}

fn white_score(turn: Color, s: Score) -> EvalScore {
    let s = if turn == Color::White { s } else { s.negate() };
    match s {
        Score::Cp(c) => EvalScore::Cp(c),
        Score::Mate(m) => EvalScore::Mate(m),
    }
}

/// `true`: a lower bound for White.
fn white_bound(turn: Color, b: Bound) -> bool {
    (b == Bound::Lower) == (turn == Color::White)
}

fn bound_text(lower: bool) -> &'static str {
    if lower { "lower" } else { "upper" }
}

fn white_wdl(turn: Color, w: [u32; 3]) -> [u32; 3] {
    if turn == Color::White {
        w
    } else {
        [w[2], w[1], w[0]]
    }
}

/// The stored form of a search's result; `None` when it found no line (stopped at once).
pub(crate) fn to_stored(pos: &Chess, r: &SearchResult, date: u64) -> Option<StoredEval> {
    if r.lines.is_empty() && r.bestmove.is_some() {
        return None;
    }
    let turn = pos.turn();
    let first = r.lines.first().map(|l| &l.info);
    Some(StoredEval {
        engine: r.engine.clone(),
        depth: r
            .lines
            .iter()
            .filter_map(|l| l.info.depth)
            .min()
            .unwrap_or(0),
        seldepth: r
            .lines
            .iter()
            .filter_map(|l| l.info.seldepth)
            .max()
            .unwrap_or(0),
        nodes: first.and_then(|i| i.nodes).unwrap_or(0),
        time_ms: first.and_then(|i| i.time).unwrap_or(0),
        date,
        lines: r
            .lines
            .iter()
            .filter_map(|l| {
                Some(EvalLine {
                    score: white_score(turn, l.info.score?),
                    lower_bound: l.info.bound.map(|b| white_bound(turn, b)),
                    wdl: l.info.wdl.map(|w| white_wdl(turn, w)),
                    pv: l.info.pv.clone(),
                })
            })
            .collect(),
    })
}

/// The answer for a stored evaluation of `pos`.
pub fn view(pos: &Chess, e: &StoredEval, source: &'static str) -> Analysis {
    let pvs: Vec<Pv> = e
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| Pv {
            multipv: i as u32 + 1,
            depth: e.depth,
            score: WhiteScore::of(l.score),
            bound: l.lower_bound.map(bound_text),
            wdl: l.wdl,
            moves: l.pv.join(" "),
            san: san_line(pos, &l.pv),
        })
        .collect();
    let best = e.lines.first().and_then(|l| {
        let uci = l.pv.first()?.clone();
        let san = san_line(pos, std::slice::from_ref(&uci)).pop()?;
        Some(BestMove { uci, san })
    });
    Analysis {
        fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
        engine: e.engine.clone(),
        depth: e.depth,
        seldepth: e.seldepth,
        nodes: e.nodes,
        knodes: e.nodes / 1000,
        time_ms: e.time_ms,
        date: crate::time::iso_utc(e.date),
        best,
        pvs,
        source,
        stopped: false,
        stored: source == "stored",
    }
}

/// The stored evaluation of a position, if any.
pub fn stored(db: &Db, pos: &Chess) -> Result<Option<Analysis>> {
    if db.kind() != Kind::Chess {
        return Ok(None);
    }
    let key = tabiya_db::chess::position_key(pos);
    Ok(db
        .inner()?
        .evals(&[key])?
        .pop()
        .flatten()
        .map(|e| view(pos, &e, "stored")))
}

/// Whether a stored evaluation answers the request without the engine: a depth limit it
/// reached, with as many lines. (A time or node limit always asks the engine: how deep it
/// gets is not known before.)
fn answers(e: &StoredEval, req: &AnalysisRequest) -> bool {
    match req.limit {
        Limit::Depth(d) => e.depth >= d && e.lines.len() >= req.multipv as usize,
        _ => false,
    }
}

/// Analyses a position: from the database when a stored evaluation answers the request
/// (unless `fresh`), else with the engine, passing each line to `on_line` as it comes, and
/// keeping the result in `db`. The analysis queues on the pool as `client`; with
/// `supersede`, it stops that client's earlier ones. Setting `cancel` stops it (the result so
/// far is returned and kept).
pub fn analyse(
    engines: &Engines,
    db: Option<&Db>,
    req: &AnalysisRequest,
    client: &str,
    supersede: bool,
    cancel: &AtomicBool,
    mut on_line: impl FnMut(&Pv),
) -> Result<Analysis> {
    let pos = &req.at.pos;
    let key = tabiya_db::chess::position_key(pos);
    let db = db.filter(|d| d.kind() == Kind::Chess);
    if let Some(db) = db
        && !req.fresh
        && let Some(e) = db.inner()?.evals(&[key])?.pop().flatten()
        && answers(&e, req)
    {
        return Ok(view(pos, &e, "stored"));
    }
    let search = Search {
        start: req.at.start.clone(),
        moves: req.at.moves.clone(),
        mode: req.at.mode,
        limit: req.limit,
        multipv: req.multipv,
    };
    let ticket = engines.pool().submit(search, client, supersede);
    let result = loop {
        if cancel.load(Ordering::Relaxed) {
            ticket.cancel();
        }
        match ticket.next_timeout(Duration::from_millis(100)) {
            Ok(Event::Info(info)) => {
                if let Some(pv) = live_pv(pos, &info) {
                    on_line(&pv);
                }
            }
            Ok(Event::Done(r)) => break r?,
            Err(false) => continue,
            Err(true) => {
                return Err(Error::new(
                    crate::error::ErrorKind::Cancelled,
                    "the analysis was abandoned: the engines are stopping",
                ));
            }
        }
    };
    let date = crate::time::now_secs();
    let Some(eval) = to_stored(pos, &result, date) else {
        return Err(Error::new(
            crate::error::ErrorKind::Cancelled,
            "the analysis was stopped before the engine found a line",
        ));
    };
    let mut answer = view(pos, &eval, "engine");
    answer.stopped = result.stopped;
    // The moves the engine gave at the root, even when no line reached the end (mated).
    if answer.best.is_none()
        && let Some(b) = &result.bestmove
    {
        let san = san_line(pos, std::slice::from_ref(b))
            .pop()
            .unwrap_or_default();
        answer.best = Some(BestMove {
            uci: b.clone(),
            san,
        });
    }
    if let Some(db) = db
        && eval.depth > 0
    {
        let done: EvalsStored = db.inner()?.store_evals(&[(key, eval)], req.fresh)?;
        answer.stored = done.added + done.replaced > 0;
    }
    Ok(answer)
}
