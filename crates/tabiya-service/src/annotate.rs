//! Games annotated by the engine: every position of the chosen games evaluated — each
//! distinct position once, however many games reach it, and none that the database already
//! holds deep enough (so a killed run goes on where it stopped) — on every engine of the
//! pool; then each game's inaccuracies, mistakes and blunders, and the games as PGN with
//! `[%eval …]` comments and NAGs.
//!
//! With novelties asked, each game is also judged against the database's earlier games
//! ([`crate::novelty`]): its report says where the game left them, and the PGN marks that
//! move `$146` ("N") with a comment. Novelties alone need no engine.
//!
//! Judgements are Lichess's: a move's cost is how much it lowers the mover's winning
//! chances, `2 / (1 + exp(-0.00368208 · cp)) − 1` (from −1 to 1; centipawns capped at
//! ±1000, a mate in n counted as (21 − min(n, 10)) · 100), and a cost of at least 0.1 is an
//! inaccuracy (`?!`, `$6`), 0.2 a mistake (`?`, `$2`), 0.3 a blunder (`??`, `$4`). The move
//! the engine found best is never judged.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};
use tabiya_db::chess::position_key;
use tabiya_db::{EvalScore, StoredEval};
use tabiya_engine::{Event, Limit, Search, san_line};
use tabiya_pgn::{Game, Node, Variation};

use crate::analysis::{WhiteScore, to_stored};
use crate::database::Db;
use crate::engine::Engines;
use crate::error::{Error, Result};
use crate::novelty::{self, Report};

/// The cost thresholds (in winning chances, −1 to 1) of each judgement.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Thresholds {
    pub inaccuracy: f64,
    pub mistake: f64,
    pub blunder: f64,
}

/// Lichess's thresholds.
pub const THRESHOLDS: Thresholds = Thresholds {
    inaccuracy: 0.1,
    mistake: 0.2,
    blunder: 0.3,
};

/// What an annotation is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// The engines evaluate positions.
    Evaluating,
    /// The games are judged against the earlier games.
    Novelties,
}

/// How far an annotation is.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub stage: Stage,
    /// Positions evaluated (or games judged) so far.
    pub done: u64,
    /// Positions to evaluate (games to judge) in all.
    pub total: u64,
}

/// One judged move.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    /// Half-move number from the game's start (1: its first move).
    pub ply: u32,
    /// `12.` or `12...` as PGN writes it.
    pub number: String,
    pub san: String,
    pub uci: String,
    /// `inaccuracy`, `mistake` or `blunder`.
    pub judgement: &'static str,
    /// The evaluation before and after the move (White's point of view).
    pub before: WhiteScore,
    pub after: WhiteScore,
    /// How much the move lowered the mover's winning chances.
    pub cost: f64,
    /// The move the engine prefers, and its line (SAN).
    pub best: Option<String>,
    pub best_line: Vec<String>,
}

/// One side's tally.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideTally {
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
    /// Average centipawn loss over the side's evaluated moves (evaluations capped at ±1000).
    pub acpl: Option<u32>,
}

/// One game's report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameReport {
    pub id: String,
    pub white: String,
    pub black: String,
    pub result: String,
    pub plies: u32,
    /// The engine's judgements (absent when no engine ran).
    #[serde(flatten)]
    pub engine: Option<Judgements>,
    /// The novelty report, as `tabiya novelty` gives it (when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub novelty: Option<Report>,
}

/// The engine's judgements of one game.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judgements {
    pub white_tally: SideTally,
    pub black_tally: SideTally,
    /// Moves not judged because a position has no evaluation (a search that failed).
    pub unevaluated: u32,
    pub judged: Vec<Judged>,
}

/// What an annotation did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnnotateReport {
    /// What the engines did (absent when no engine ran).
    #[serde(flatten)]
    pub engine: Option<EngineRun>,
    pub games: u64,
    /// How the novelties were judged (when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub novelties: Option<NoveltyRun>,
    /// Stopped before the end (run it again to go on).
    pub stopped: bool,
    pub reports: Vec<GameReport>,
}

/// The novelties' part of an annotation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NoveltyRun {
    /// Games judged.
    pub judged: u64,
    /// Of those, the games with a novelty (a move leading where no earlier game went).
    pub with_novelty: u64,
    pub seconds: f64,
    pub games_per_second: f64,
}

/// The engines' part of an annotation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineRun {
    pub engine: String,
    /// `depth 16` or `movetime 500 ms`.
    pub limit: String,
    pub engines: usize,
    /// Positions of the games (each game's, counted per game), final positions included.
    pub positions: u64,
    /// Distinct positions among them (by index key).
    pub distinct: u64,
    /// Of those, the ones needing no engine: kept from before deep enough, or the game over
    /// (mate, stalemate).
    pub already_known: u64,
    /// Searches run now.
    pub evaluated: u64,
    /// Searches that failed (the engine was restarted); their positions stay unevaluated.
    pub failed: u64,
    /// Searches saved: positions minus searches run.
    pub saved: u64,
    pub seconds: f64,
    /// Searches a second.
    pub positions_per_second: f64,
    pub thresholds: Thresholds,
}

/// The engine's share of an annotation: the engines, how deep, and whether positions kept
/// from before are searched again.
#[derive(Clone, Copy)]
pub struct EngineWork<'e> {
    pub engines: &'e Engines,
    pub limit: Limit,
    pub fresh: bool,
}

/// A game's main line: the position before each move, the move, and the final position.
struct Line {
    before: Vec<(Chess, Move)>,
    end: Chess,
    mode: CastlingMode,
}

fn main_line(g: &Game) -> Line {
    let mut pos = g.start.clone();
    let mut before = Vec::with_capacity(g.moves.len());
    for n in &g.moves {
        before.push((pos.clone(), n.mv));
        pos.play_unchecked(n.mv);
    }
    Line {
        before,
        end: pos,
        mode: g.castling_mode,
    }
}

fn load(db: &Db, id: u32) -> Result<Game> {
    db.inner()?
        .snapshot()?
        .chess_game(id)?
        .ok_or_else(|| Error::not_found(format!("no game {id} in {}", db.dir().display())))
}

/// Whether a stored evaluation is good enough to skip the search.
fn enough(e: &StoredEval, limit: Limit) -> bool {
    match limit {
        Limit::Depth(d) => e.depth >= d,
        _ => e.depth > 0,
    }
}

/// Annotates the games `ids` (chosen with [`crate::export::game_ids`]: one, a position's,
/// all; see the module): with `engine`, every position evaluated, then each game's
/// judgements; with `novelties`, each game judged against the earlier games. At least one
/// of the two must be asked for. `on_progress` is called after each search and each game
/// judged; setting `cancel` stops early (what was found is kept; [`AnnotateReport::stopped`]
/// says so).
pub fn annotate(
    db: &Db,
    ids: &[u32],
    engine: Option<EngineWork<'_>>,
    novelties: bool,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(Progress),
) -> Result<AnnotateReport> {
    if db.kind() != crate::database::Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} holds Othello games: annotations are for chess",
            db.dir().display()
        )));
    }
    if engine.is_none() && !novelties {
        return Err(Error::bad_request(
            "nothing to annotate: without the engine, ask for the novelties",
        ));
    }
    let (engine_run, mut reports, mut stopped) = match engine {
        Some(work) => {
            let (run, stopped) = evaluate(db, work, ids, cancel, &mut on_progress)?;
            let mut reports = Vec::with_capacity(ids.len());
            for &id in ids {
                reports.push(report(db, id)?.0);
            }
            (Some(run), reports, stopped)
        }
        None => (None, Vec::with_capacity(ids.len()), false),
    };
    let mut novelty_run = None;
    if novelties && !stopped {
        let (run, cut) = judge_novelties(db, ids, &mut reports, cancel, &mut on_progress)?;
        novelty_run = Some(run);
        stopped = cut;
    }
    Ok(AnnotateReport {
        engine: engine_run,
        games: ids.len() as u64,
        novelties: novelty_run,
        stopped,
        reports,
    })
}

/// The novelties' stage: each game judged against the earlier games, its report put in
/// `reports` (made here when the engine made none). Whether it was stopped.
fn judge_novelties(
    db: &Db,
    ids: &[u32],
    reports: &mut Vec<GameReport>,
    cancel: &AtomicBool,
    on_progress: &mut impl FnMut(Progress),
) -> Result<(NoveltyRun, bool)> {
    let began = Instant::now();
    let total = ids.len() as u64;
    let stage = Stage::Novelties;
    on_progress(Progress {
        stage,
        done: 0,
        total,
    });
    // Reports in the games' order: the engine's, or made here.
    let mut found: Vec<Option<GameReport>> = vec![None; ids.len()];
    let (mut judged, mut with_novelty) = (0u64, 0u64);
    let stopped = novelty::judge_stored(db, ids, cancel, |i, r, game| {
        with_novelty += u64::from(r.novelty.is_some());
        found[i] = Some(GameReport {
            novelty: Some(r),
            ..plain_report(&game, ids[i])
        });
        judged += 1;
        on_progress(Progress {
            stage,
            done: judged,
            total,
        });
    })?;
    if reports.is_empty() {
        reports.extend(found.into_iter().flatten());
    } else {
        for (g, f) in reports.iter_mut().zip(found) {
            g.novelty = f.and_then(|f| f.novelty);
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    let run = NoveltyRun {
        judged,
        with_novelty,
        seconds,
        games_per_second: if seconds > 0.0 {
            judged as f64 / seconds
        } else {
            0.0
        },
    };
    Ok((run, stopped))
}

/// A game's report without the engine.
fn plain_report(game: &Game, id: u32) -> GameReport {
    let tag = |n: &str| game.tag(n).unwrap_or("?").to_string();
    GameReport {
        id: id.to_string(),
        white: tag("White"),
        black: tag("Black"),
        result: game.result_str().to_string(),
        plies: game.moves.len() as u32,
        engine: None,
        novelty: None,
    }
}

/// The engines' stage: every distinct position of the games evaluated (see the module).
fn evaluate(
    db: &Db,
    work: EngineWork<'_>,
    ids: &[u32],
    cancel: &AtomicBool,
    on_progress: &mut impl FnMut(Progress),
) -> Result<(EngineRun, bool)> {
    let EngineWork {
        engines,
        limit,
        fresh,
    } = work;
    let began = Instant::now();
    // Every distinct position, in the order first met.
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut distinct: Vec<(u128, Chess, CastlingMode)> = Vec::new();
    let mut positions = 0u64;
    for &id in ids {
        let line = main_line(&load(db, id)?);
        let all = line
            .before
            .iter()
            .map(|(p, _)| p)
            .chain(std::iter::once(&line.end));
        for p in all {
            positions += 1;
            let key = position_key(p);
            index.entry(key).or_insert_with(|| {
                distinct.push((key, p.clone(), line.mode));
                distinct.len() - 1
            });
        }
    }
    // What needs the engine.
    let mut todo: Vec<usize> = Vec::new();
    for chunk in (0..distinct.len()).collect::<Vec<_>>().chunks(4096) {
        let keys: Vec<u128> = chunk.iter().map(|&i| distinct[i].0).collect();
        let stored = db.inner()?.evals(&keys)?;
        for (&i, e) in chunk.iter().zip(stored) {
            let over = distinct[i].1.legal_moves().is_empty();
            let known = !fresh && e.is_some_and(|e| enough(&e, limit));
            if !over && !known {
                todo.push(i);
            }
        }
    }
    let total = todo.len() as u64;
    let already_known = distinct.len() as u64 - total;
    let stage = Stage::Evaluating;
    on_progress(Progress {
        stage,
        done: 0,
        total,
    });

    let pool = engines.pool();
    let depth_of_queue = pool.size() * 2;
    let mut queue = VecDeque::new();
    let mut next = todo.into_iter();
    let mut batch: Vec<(u128, StoredEval)> = Vec::new();
    let mut last_flush = Instant::now();
    let (mut done, mut failed, mut failed_in_a_row) = (0u64, 0u64, 0u32);
    let mut stopped = false;
    loop {
        while !stopped && queue.len() < depth_of_queue {
            let Some(i) = next.next() else { break };
            let (key, pos, mode) = &distinct[i];
            let search = Search {
                start: pos.clone(),
                moves: Vec::new(),
                mode: *mode,
                limit,
                multipv: 1,
            };
            queue.push_back((*key, i, pool.submit(search, "annotate", false)));
        }
        let Some((key, i, ticket)) = queue.pop_front() else {
            break;
        };
        let result = loop {
            if cancel.load(Ordering::Relaxed) && !stopped {
                stopped = true;
                ticket.cancel();
                for (_, _, t) in &queue {
                    t.cancel();
                }
            }
            match ticket.next_timeout(Duration::from_millis(100)) {
                Ok(Event::Info(_)) | Err(false) => continue,
                Ok(Event::Done(r)) => break Some(r),
                Err(true) => break None,
            }
        };
        match result {
            Some(Ok(r)) if !r.stopped => {
                failed_in_a_row = 0;
                if let Some(e) = to_stored(&distinct[i].1, &r, crate::time::now_secs()) {
                    batch.push((key, e));
                }
                done += 1;
            }
            // Stopped or cancelled: not kept (not the asked depth).
            Some(Ok(_)) | None => {}
            Some(Err(e)) if e.is_cancelled() => {}
            Some(Err(e)) => {
                failed += 1;
                failed_in_a_row += 1;
                done += 1;
                if failed_in_a_row >= 3 {
                    db.inner()?.store_evals(&batch, fresh)?;
                    return Err(Error::from(e).caused_by(std::io::Error::other(
                        "three searches in a row failed; what was found is kept",
                    )));
                }
            }
        }
        if batch.len() >= 256 || last_flush.elapsed() > Duration::from_secs(2) {
            db.inner()?.store_evals(&batch, fresh)?;
            batch.clear();
            last_flush = Instant::now();
        }
        on_progress(Progress { stage, done, total });
    }
    db.inner()?.store_evals(&batch, fresh)?;
    let seconds = began.elapsed().as_secs_f64();
    let evaluated = done - failed;
    let run = EngineRun {
        engine: engines.identity().name.clone(),
        limit: match limit {
            Limit::Depth(d) => format!("depth {d}"),
            Limit::MoveTime(ms) => format!("movetime {ms} ms"),
            Limit::Nodes(n) => format!("nodes {n}"),
            Limit::Infinite => "infinite".to_string(),
        },
        engines: pool.size(),
        positions,
        distinct: distinct.len() as u64,
        already_known,
        evaluated,
        failed,
        saved: positions.saturating_sub(evaluated),
        seconds,
        positions_per_second: if seconds > 0.0 {
            evaluated as f64 / seconds
        } else {
            0.0
        },
        thresholds: THRESHOLDS,
    };
    Ok((run, stopped))
}

/// A position's value for judging, from White's point of view, in Lichess's centipawns.
#[derive(Debug, Clone)]
struct Value {
    score: WhiteScore,
    cp: i32,
    best: Option<String>,
}

fn value_of(pos: &Chess, e: Option<&StoredEval>) -> Option<Value> {
    if pos.is_checkmate() {
        // The side to move is mated.
        let cp = if pos.turn() == Color::White {
            -2100
        } else {
            2100
        };
        return Some(Value {
            score: WhiteScore {
                cp: None,
                mate: Some(0),
            },
            cp,
            best: None,
        });
    }
    if pos.is_stalemate() {
        return Some(Value {
            score: WhiteScore {
                cp: Some(0),
                mate: None,
            },
            cp: 0,
            best: None,
        });
    }
    let e = e?;
    let line = e.lines.first()?;
    let cp = match line.score {
        EvalScore::Cp(c) => c,
        EvalScore::Mate(m) => m.signum() * (21 - m.abs().min(10)) * 100,
    };
    Some(Value {
        score: WhiteScore::of(line.score),
        cp,
        best: line.pv.first().cloned(),
    })
}

/// Winning chances from −1 to 1 for White (Lichess).
pub fn winning_chances(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-1000, 1000));
    2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0
}

fn judgement(cost: f64) -> Option<(&'static str, u8)> {
    if cost >= THRESHOLDS.blunder {
        Some(("blunder", 4))
    } else if cost >= THRESHOLDS.mistake {
        Some(("mistake", 2))
    } else if cost >= THRESHOLDS.inaccuracy {
        Some(("inaccuracy", 6))
    } else {
        None
    }
}

/// A game's report from the stored evaluations, and the game annotated for PGN.
pub fn report(db: &Db, id: u32) -> Result<(GameReport, Game)> {
    let mut game = load(db, id)?;
    let line = main_line(&game);
    let mut keys: Vec<u128> = line.before.iter().map(|(p, _)| position_key(p)).collect();
    keys.push(position_key(&line.end));
    let evals = db.inner()?.evals(&keys)?;
    let positions: Vec<&Chess> = line
        .before
        .iter()
        .map(|(p, _)| p)
        .chain(std::iter::once(&line.end))
        .collect();
    let values: Vec<Option<Value>> = positions
        .iter()
        .zip(&evals)
        .map(|(p, e)| value_of(p, e.as_ref()))
        .collect();
    let mut tallies = [SideTally::default(), SideTally::default()];
    let mut losses: [(i64, u32); 2] = [(0, 0), (0, 0)];
    let mut judged = Vec::new();
    let mut unevaluated = 0;
    for (i, (pos, mv)) in line.before.iter().enumerate() {
        let node = &mut game.moves[i];
        let after_pos = positions[i + 1];
        let (Some(before), Some(after)) = (&values[i], &values[i + 1]) else {
            unevaluated += 1;
            continue;
        };
        if !after_pos.is_checkmate() {
            strip_eval(&mut node.comments);
            node.comments
                .insert(0, format!("[%eval {}]", after.score.text()));
        }
        let mover = pos.turn();
        let sign = if mover == Color::White { 1 } else { -1 };
        let side = usize::from(mover == Color::Black);
        let loss = (sign * (before.cp.clamp(-1000, 1000) - after.cp.clamp(-1000, 1000))).max(0);
        losses[side].0 += i64::from(loss);
        losses[side].1 += 1;
        let uci = UciMove::from_move(*mv, line.mode).to_string();
        if before.best.as_deref() == Some(uci.as_str()) {
            continue;
        }
        let cost = f64::from(sign) * (winning_chances(before.cp) - winning_chances(after.cp));
        let Some((name, nag)) = judgement(cost) else {
            continue;
        };
        let t = &mut tallies[side];
        match nag {
            4 => t.blunders += 1,
            2 => t.mistakes += 1,
            _ => t.inaccuracies += 1,
        }
        let best_pv: Vec<String> = evals[i]
            .as_ref()
            .and_then(|e| e.lines.first())
            .map(|l| l.pv.iter().take(8).cloned().collect())
            .unwrap_or_default();
        let best_line = san_line(pos, &best_pv);
        let san = shakmaty::san::SanPlus::from_move(pos.clone(), *mv).to_string();
        let number = format!(
            "{}{}",
            pos.fullmoves(),
            if mover == Color::White { "." } else { "..." }
        );
        if !node.nags.contains(&nag) {
            node.nags.push(nag);
        }
        let best = best_line.first().cloned();
        let mut comment = format!(
            "({} → {}) {}.",
            before.score.text(),
            after.score.text(),
            capitalised(name)
        );
        if let Some(b) = &best {
            comment.push_str(&format!(" {b} was best."));
        }
        node.comments.push(comment);
        if let Some(v) = variation(pos, &best_pv) {
            node.variations.push(v);
        }
        judged.push(Judged {
            ply: i as u32 + 1,
            number,
            san,
            uci,
            judgement: name,
            before: before.score,
            after: after.score,
            cost: (cost * 1000.0).round() / 1000.0,
            best,
            best_line,
        });
    }
    for (t, (sum, n)) in tallies.iter_mut().zip(losses) {
        t.acpl = (n > 0).then(|| ((sum + i64::from(n) / 2) / i64::from(n)) as u32);
    }
    let [white_tally, black_tally] = tallies;
    let mut r = plain_report(&game, id);
    r.engine = Some(Judgements {
        white_tally,
        black_tally,
        unevaluated,
        judged,
    });
    Ok((r, game))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Removes `[%eval …]` commands from comments (the game's own, from an earlier analysis),
/// dropping comments left empty.
fn strip_eval(comments: &mut Vec<String>) {
    for c in comments.iter_mut() {
        while let Some(start) = c.find("[%eval") {
            let end = c[start..].find(']').map_or(c.len(), |e| start + e + 1);
            c.replace_range(start..end, "");
        }
        *c = c.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    comments.retain(|c| !c.is_empty());
}

/// The engine's line as a PGN variation.
fn variation(pos: &Chess, pv: &[String]) -> Option<Variation> {
    let mut pos = pos.clone();
    let mut moves = Vec::new();
    for m in pv {
        let mv = m.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(mv);
        moves.push(Node::new(mv));
    }
    (!moves.is_empty()).then(|| Variation {
        comments: Vec::new(),
        moves,
    })
}

/// Writes the games as PGN with the stored evaluations: `[%eval …]` after each move, and
/// each judged move's NAG, a comment and the engine's line. Returns how many.
pub fn write_pgn(db: &Db, ids: &[u32], out: &mut dyn Write) -> Result<u64> {
    crate::export::write_games(ids.iter().map(|&id| Ok((id, report(db, id)?.1))), out)
}

/// Writes the games `annotation` reports on (`ids`, as given to [`annotate`]) as PGN: with
/// the engine's evaluations and judgements when it ran ([`write_pgn`]), and each novelty
/// marked (`$146` and a comment, [`novelty::mark`]).
pub fn write_annotated(
    db: &Db,
    ids: &[u32],
    annotation: &AnnotateReport,
    out: &mut dyn Write,
) -> Result<u64> {
    let novelties: HashMap<u32, &Report> = annotation
        .reports
        .iter()
        .filter_map(|g| g.novelty.as_ref())
        .filter_map(|r| Some((r.id?, r)))
        .collect();
    let games = ids.iter().map(|&id| {
        let mut game = if annotation.engine.is_some() {
            report(db, id)?.1
        } else {
            load(db, id)?
        };
        if let Some(r) = novelties.get(&id) {
            novelty::mark(&mut game, r);
        }
        Ok((id, game))
    });
    crate::export::write_games(games, out)
}

/// [`write_pgn`] as Parquet (`export --format parquet --evals`).
pub fn write_parquet(db: &Db, ids: &[u32], out: &mut (dyn Write + Send)) -> Result<u64> {
    crate::export::write_parquet(ids.iter().map(|&id| Ok((id, report(db, id)?.1))), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winning_chances_as_lichess() {
        assert_eq!(winning_chances(0), 0.0);
        // 2/(1+e^-0.368208)-1 = 0.18206... for 100 cp, by hand.
        assert!((winning_chances(100) - 0.182_06).abs() < 1e-4);
        assert!((winning_chances(-100) + 0.182_06).abs() < 1e-4);
        assert_eq!(winning_chances(5000), winning_chances(1000));
        assert_eq!(judgement(0.05), None);
        assert_eq!(judgement(0.1), Some(("inaccuracy", 6)));
        assert_eq!(judgement(0.25), Some(("mistake", 2)));
        assert_eq!(judgement(0.9), Some(("blunder", 4)));
    }

    #[test]
    fn eval_commands_are_replaced_not_repeated() {
        let mut c = vec![
            "[%eval 0.3] [%clk 0:01:00]".to_string(),
            "[%eval #2]".to_string(),
        ];
        strip_eval(&mut c);
        assert_eq!(c, ["[%clk 0:01:00]"]);
    }
}
