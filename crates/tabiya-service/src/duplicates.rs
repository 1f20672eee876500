//! Near-duplicates: the same game told twice though not byte for byte (an import already
//! skips games equal in their Seven Tag Roster and moves). Two games are one when they have
//! the same players — after names: any spelling of each (`tabiya names`) —, dates that can
//! be one (every part both know the same: `2001.05.01` and `2001.??.??`) and results that
//! can be one (the same, or one `*`), and
//!
//! - the same date and event, and one's main line (of 10 plies or more) begins the
//!   other's (a game cut short, or given in full elsewhere), or
//! - the same main line from the same start, whatever their other tags say (a date, an
//!   event, a round spelt otherwise or missing).
//!
//! The copy kept is the longer one, then the better annotated (comments, NAGs, variations),
//! then the one with more tags, then the first imported. Removing the others is a deletion
//! (`Database::delete_games`): every answer stays exact.

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Move};
use tabiya_db::Dict;

use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// A main line shorter than this (5 moves) beginning another is no evidence: players meet
/// twice in an event, and the same few first moves are common.
const MIN_PREFIX: usize = 10;

/// One game of a set of duplicates.
#[derive(Debug, Clone, Serialize)]
pub struct Copy {
    pub id: u32,
    pub white: String,
    pub black: String,
    pub date: String,
    pub event: String,
    /// Half-moves of its main line.
    pub plies: usize,
    /// Comments, NAGs and variations.
    pub annotations: usize,
    pub tags: usize,
}

/// Games that are one game.
#[derive(Debug, Clone, Serialize)]
pub struct DuplicateSet {
    /// The copy to keep first, then the others.
    pub games: Vec<Copy>,
    /// Why they are one: `same moves`, or `one line begins the other`.
    pub why: String,
}

/// What `tabiya duplicates` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Duplicates {
    pub sets: Vec<DuplicateSet>,
    /// Games that are another's copy (all but the kept one of each set).
    pub copies: u64,
    /// Games deleted (with `remove`).
    pub removed: u64,
    pub games_left: u64,
}

/// A game as compared.
struct Told {
    copy: Copy,
    result: String,
    start: String,
    line: Vec<Move>,
}

fn annotations(g: &tabiya_pgn::Game) -> usize {
    g.comments.len()
        + g.moves
            .iter()
            .map(|n| n.comments.len() + n.nags.len() + n.variations.len())
            .sum::<usize>()
}

/// Finds near-duplicates; with `remove`, deletes every copy but the one kept of each set.
pub fn find(db: &Db, remove: bool) -> Result<Duplicates> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: near-duplicates are looked for in chess databases (an Othello import already skips a game equal to a stored one)",
            db.dir().display()
        )));
    }
    let snap = db.inner()?.snapshot()?;
    let players = snap.entries(Dict::Player)?;
    let events = snap.entries(Dict::Event)?;
    let event_ids: HashMap<String, u32> = snap
        .names()
        .all(Dict::Event)?
        .into_iter()
        .map(|(i, n)| (n, i))
        .collect();
    // Games by their two players (entries as on each game's date).
    let mut by_players: HashMap<(Option<u32>, Option<u32>), Vec<u32>> = HashMap::new();
    for id in snap.all_game_ids()? {
        let p = snap.players(id)?;
        let date = snap.facts(id)?.date;
        let entry = |s: Option<u32>| s.map(|s| players.entry_of(s, date).unwrap_or(u32::MAX - s));
        by_players
            .entry((entry(p[0]), entry(p[1])))
            .or_default()
            .push(id);
    }
    let mut groups: Vec<Vec<u32>> = by_players.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_unstable();
    let mut sets = Vec::new();
    for group in groups {
        let mut told = Vec::with_capacity(group.len());
        for &id in &group {
            let Some(g) = snap.chess_game(id)? else {
                continue;
            };
            let tag = |n: &str| g.tag(n).unwrap_or("").to_string();
            let event = tag("Event");
            let event_key = event_ids
                .get(&event)
                .and_then(|&i| events.entry_of_spelling(i))
                .map_or(event.clone(), |e| events.entries[e as usize].name.clone());
            told.push((
                event_key,
                Told {
                    copy: Copy {
                        id,
                        white: tag("White"),
                        black: tag("Black"),
                        date: tag("Date"),
                        event,
                        plies: g.moves.len(),
                        annotations: annotations(&g),
                        tags: g.tags.len(),
                    },
                    result: g.result_str().to_string(),
                    start: Fen::from_position(&g.start, EnPassantMode::Legal).to_string(),
                    line: g.main_line().copied().collect(),
                },
            ));
        }
        sets.extend(sets_of(&told));
    }
    let copies: u64 = sets.iter().map(|s| s.games.len() as u64 - 1).sum();
    let mut removed = 0;
    if remove && copies > 0 {
        let ids: Vec<u32> = sets
            .iter()
            .flat_map(|s| s.games[1..].iter().map(|c| c.id))
            .collect();
        drop(snap);
        removed = db.inner()?.delete_games(&ids)?.games;
    }
    Ok(Duplicates {
        sets,
        copies,
        removed,
        games_left: db.inner()?.game_count()?,
    })
}

/// Whether two dates can be one: every part both know (year, month, day) is the same.
fn dates_agree(a: &str, b: &str) -> bool {
    let parts = |d: &str| -> Vec<Option<u32>> {
        d.split('.')
            .map(|p| p.parse::<u32>().ok().filter(|&v| v > 0))
            .collect()
    };
    parts(a)
        .iter()
        .zip(parts(b).iter())
        .all(|(x, y)| x.is_none() || y.is_none() || x == y)
}

/// Whether two results can be one game's: the same, or one unknown.
fn results_agree(a: &str, b: &str) -> bool {
    a == b || a == "*" || b == "*"
}

/// The sets of duplicates among the games of two players.
fn sets_of(told: &[(String, Told)]) -> Vec<DuplicateSet> {
    let n = told.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut why: HashMap<usize, &'static str> = HashMap::new();
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (&told[i].1, &told[j].1);
            if a.start != b.start {
                continue;
            }
            let (short, long) = if a.line.len() <= b.line.len() {
                (&a.line, &b.line)
            } else {
                (&b.line, &a.line)
            };
            if !dates_agree(&a.copy.date, &b.copy.date) || !results_agree(&a.result, &b.result) {
                continue;
            }
            let reason = if a.line == b.line {
                "same moves"
            } else if told[i].0 == told[j].0 && short.len() >= MIN_PREFIX && long.starts_with(short)
            {
                "one line begins the other"
            } else {
                continue;
            };
            let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
            if ri != rj {
                parent[rj] = ri;
            }
            let r = root(&mut parent, i);
            let w = why.remove(&ri).or(why.remove(&rj));
            why.insert(
                r,
                match w {
                    Some(w) if w != reason => "same moves, and one line begins the other",
                    _ => reason,
                },
            );
        }
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        members.entry(r).or_default().push(i);
    }
    let mut out: Vec<DuplicateSet> = members
        .into_iter()
        .filter(|(_, m)| m.len() > 1)
        .map(|(r, mut m)| {
            // Longer, better annotated, more tags, first imported.
            m.sort_by(|&x, &y| {
                let (a, b) = (&told[x].1.copy, &told[y].1.copy);
                b.plies
                    .cmp(&a.plies)
                    .then(b.annotations.cmp(&a.annotations))
                    .then(b.tags.cmp(&a.tags))
                    .then(a.id.cmp(&b.id))
            });
            DuplicateSet {
                games: m.into_iter().map(|i| told[i].1.copy.clone()).collect(),
                why: why.get(&r).copied().unwrap_or("same moves").to_string(),
            }
        })
        .collect();
    out.sort_by_key(|s| s.games[0].id);
    out
}
