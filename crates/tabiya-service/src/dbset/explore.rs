//! The explorer's answer of a set: every member asked alone, their raw sums added (results,
//! rating sums, performance sums, years), never their averages; the best and newest games
//! merged in the order one database ranks them; each move's `reached` asked of every
//! member (a member may reach the move's position by another move order without playing
//! the move here).

use std::collections::HashMap;

use tabiya_db::Stats;
use tabiya_db::chess::{ChessExplore, MoveRow, Reached, TopGame, top_order};

use super::ids;
use crate::database::Db;
use crate::error::Result;
use crate::filter::Filter;
use crate::position::ChessPosition;

/// A member's game: the member (0-based), its id there, the game.
type Ranked = (usize, u32, TopGame);

/// The explorer's answer of a set (`crate::explore::games_filtered` of one database).
pub fn explore(
    db: &Db,
    at: &ChessPosition,
    filter: &Filter,
    top: usize,
    recent: Option<usize>,
) -> Result<ChessExplore> {
    let mut parts = Vec::with_capacity(db.members.len());
    for member in &db.members {
        let snap = member.snapshot()?;
        let f = filter.resolve(&snap)?;
        parts.push(snap.chess_explore_filtered(&at.line, at.mode, &f, top, recent)?);
    }
    let mut answer = merge(db, parts, top, recent);
    if answer.moves.iter().any(|m| m.reached.is_some()) {
        reached(db, at, &mut answer.moves)?;
    }
    Ok(answer)
}

/// The members' answers as one.
fn merge(db: &Db, parts: Vec<ChessExplore>, top: usize, recent: Option<usize>) -> ChessExplore {
    let mut totals = Stats::default();
    let mut ended = 0;
    let mut rows: Vec<MoveRow> = Vec::new();
    let mut by_code: HashMap<u16, usize> = HashMap::new();
    let mut tops: Vec<Ranked> = Vec::new();
    let mut newest: Vec<Ranked> = Vec::new();
    let mut openings = Vec::new();
    let mut fen = String::new();
    let mut without_speed: Option<u64> = None;
    for (m, p) in parts.into_iter().enumerate() {
        totals.merge(&p.totals);
        if let Some(n) = p.without_speed {
            without_speed = Some(without_speed.unwrap_or(0) + n);
        }
        ended += p.ended;
        fen = p.fen;
        openings.push(p.opening);
        for mut row in p.moves {
            if let Some(g) = &mut row.game {
                ids::rename(db, m, &mut g.id);
            }
            match by_code.get(&row.code) {
                Some(&i) => {
                    let r = &mut rows[i];
                    let mut s = r.stats;
                    s.merge(&row.stats);
                    r.set_stats(s);
                    r.game = r.game.take().or(row.game);
                }
                None => {
                    by_code.insert(row.code, rows.len());
                    rows.push(row);
                }
            }
        }
        tops.extend(p.top_games.into_iter().map(|g| ranked(m, g)));
        newest.extend(p.recent_games.into_iter().flatten().map(|g| ranked(m, g)));
    }
    // A move played once in the set was played once in one member, which named the game
    // as it names a single game of its own.
    for r in &mut rows {
        if r.games() != 1 {
            r.game = None;
        }
    }
    rows.sort_by(|a, b| b.games().cmp(&a.games()).then(a.code.cmp(&b.code)));
    tops.sort_by(|a, b| {
        top_order((0, &a.2.facts), (0, &b.2.facts)).then((a.0, a.1).cmp(&(b.0, b.1)))
    });
    tops.truncate(top);
    // The opening of a position given without its line is the best game's member's.
    let opening = match tops.first() {
        Some(&(m, _, _)) => openings.swap_remove(m),
        None => openings.swap_remove(0),
    };
    let recent_games = recent.map(|n| {
        newest.sort_by(|a, b| {
            b.2.facts
                .date
                .cmp(&a.2.facts.date)
                .then((a.0, a.1).cmp(&(b.0, b.1)))
        });
        newest.truncate(n);
        games(db, newest)
    });
    ChessExplore {
        fen,
        white: totals.first,
        draws: totals.draws,
        black: totals.second,
        unknown: totals.unknown,
        ended,
        average_rating: totals.average_rating(),
        moves: rows,
        top_games: games(db, tops),
        recent_games,
        opening,
        without_speed,
        totals,
    }
}

fn ranked(m: usize, g: TopGame) -> Ranked {
    (m, g.id.parse().unwrap_or(u32::MAX), g)
}

/// The games named as the set names them.
fn games(db: &Db, ranked: Vec<Ranked>) -> Vec<TopGame> {
    ranked
        .into_iter()
        .map(|(m, id, mut g)| {
            g.id = ids::name(db, m, id);
            g
        })
        .collect()
}

/// Each move's `reached`: the games of every member reaching the position it leads to.
fn reached(db: &Db, at: &ChessPosition, moves: &mut [MoveRow]) -> Result<()> {
    let snaps = db
        .members
        .iter()
        .map(|m| m.snapshot())
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let legal: Vec<(usize, shakmaty::Move)> = moves
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let m = row.uci.parse::<shakmaty::uci::UciMove>().ok()?;
            Some((i, m.to_move(&at.pos).ok()?))
        })
        .collect();
    let played: Vec<shakmaty::Move> = legal.iter().map(|(_, m)| *m).collect();
    let mut totals = vec![Reached::default(); played.len()];
    for snap in &snaps {
        for (t, more) in totals.iter_mut().zip(snap.chess_reached(&at.pos, &played)?) {
            t.white += more.white;
            t.draws += more.draws;
            t.black += more.black;
            t.unknown += more.unknown;
        }
    }
    for ((i, _), t) in legal.into_iter().zip(totals) {
        moves[i].reached = Some(t);
    }
    Ok(())
}
