//! `repertoire games`: where games left a repertoire, and how they scored from there. A game
//! is in the repertoire while its position is one of the repertoire's (by any move order);
//! it leaves it with the move after which it never comes back. The move is yours (you
//! deviated from your preparation), the opponent's (a move the repertoire does not prepare
//! for), or made where the repertoire's line had ended. Games that never leave stayed in it.

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

use super::line::{movetext, san, uci};
use super::load::Repertoire;
use crate::cards::Side;
use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// Which games, for which side.
#[derive(Debug, Clone)]
pub struct GamesOptions {
    pub side: Side,
    /// Only this player's games with the repertoire's side (any spelling, as `--player`).
    pub player: Option<String>,
    /// Only a gameset's games.
    pub gameset: Option<String>,
    /// Only the games meeting these criteria (`docs/gamesets.md`).
    pub criteria: Option<String>,
    /// Games listed one by one at most (all are counted).
    pub limit: usize,
}

/// Results from the repertoire side's point of view.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Score {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Games without a result.
    pub unknown: u64,
    /// Wins and half the draws over the games with a result.
    pub score: Option<f64>,
}

impl Score {
    fn add(&mut self, points: Option<u64>) {
        self.games += 1;
        match points {
            Some(2) => self.wins += 1,
            Some(1) => self.draws += 1,
            Some(_) => self.losses += 1,
            None => self.unknown += 1,
        }
        let decided = self.wins + self.draws + self.losses;
        self.score =
            (decided > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / decided as f64);
    }
}

/// Where games left the repertoire with one move, and how they scored.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Departure {
    /// The position left (in the repertoire) and the repertoire's way to it with the move.
    pub fen: String,
    pub line: String,
    pub uci: String,
    pub san: String,
    /// `you`, `opponent`, or `end` (the repertoire had no move there).
    pub who: &'static str,
    /// What the repertoire gives there.
    pub expected: Vec<String>,
    #[serde(flatten)]
    pub score: Score,
}

/// One game and where it left.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameLeft {
    pub id: u32,
    pub white: String,
    pub black: String,
    pub date: String,
    pub result: String,
    /// The move that left (`12... Nf6`) and its ply (1 = White's first move); none when
    /// the game stayed in the repertoire.
    pub ply: Option<u32>,
    pub left_with: Option<String>,
    pub who: Option<&'static str>,
    pub expected: Vec<String>,
    /// It left the repertoire earlier and came back by transposition.
    pub came_back: bool,
}

/// The answer of `repertoire games`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GamesReport {
    pub repertoire: String,
    pub side: &'static str,
    /// Every game looked at, and by who left: `you`, `opponent`, `end`, and those that
    /// stayed in the repertoire to their end.
    pub all: Score,
    pub you: Score,
    pub opponent: Score,
    pub end: Score,
    pub stayed: Score,
    /// Departures by position and move, most games first.
    pub departures: Vec<Departure>,
    /// The first `limit` games, in id order.
    pub games: Vec<GameLeft>,
}

fn tag(tags: &[(String, String)], k: &str) -> String {
    tags.iter()
        .find(|(n, _)| n == k)
        .map_or_else(|| "?".to_string(), |(_, v)| v.clone())
}

fn quoted(name: &str) -> Result<String> {
    if !name.contains('\'') {
        Ok(format!("'{name}'"))
    } else if !name.contains('"') {
        Ok(format!("\"{name}\""))
    } else {
        Err(Error::bad_request(format!(
            "player {name:?}: a name cannot hold both kinds of quotes"
        )))
    }
}

/// The ids of the chosen games, in id order.
fn ids(snap: &tabiya_db::Snapshot<'_>, o: &GamesOptions) -> Result<Vec<u32>> {
    let mut sets = Vec::new();
    if let Some(p) = &o.player {
        let colour = if o.side.is_white() { "white" } else { "black" };
        let set = snap.games_where(&format!("{colour} = {}", quoted(p)?))?;
        if set.is_empty() {
            return Err(Error::not_found(format!(
                "no game where {p} had {colour} (tabiya names search finds the spellings)"
            )));
        }
        sets.push(set);
    }
    if let Some(c) = &o.criteria {
        sets.push(snap.games_where(c)?);
    }
    if let Some(g) = &o.gameset {
        sets.push(snap.gameset(g)?.1);
    }
    let Some((first, rest)) = sets.split_first() else {
        return Ok(snap.all_game_ids()?);
    };
    Ok(first
        .iter()
        .filter(|&id| rest.iter().all(|s| s.contains(id)))
        .collect())
}

/// Where the line `positions` (from a game's start) left the repertoire: the index of the
/// last position in it after which none is, and whether an earlier one was left.
fn exit(rep: &Repertoire, positions: &[Chess]) -> (Option<usize>, bool) {
    let inside: Vec<bool> = positions.iter().map(|p| rep.get(p).is_some()).collect();
    let Some(last) = inside.iter().rposition(|&b| b) else {
        return (None, false);
    };
    let left_before = inside[..last].windows(2).any(|w| w[0] && !w[1]) || !inside[0];
    (Some(last), left_before)
}

/// Where the chosen games left `rep`, and how they scored.
pub fn games(db: &Db, rep: &Repertoire, o: &GamesOptions) -> Result<GamesReport> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: repertoires are chess",
            db.dir().display()
        )));
    }
    let snap = db.inner()?.snapshot()?;
    let side_index = if o.side.is_white() { 0 } else { 1 };
    let mut report = GamesReport {
        repertoire: rep.name.clone(),
        side: if o.side.is_white() { "white" } else { "black" },
        all: Score::default(),
        you: Score::default(),
        opponent: Score::default(),
        end: Score::default(),
        stayed: Score::default(),
        departures: Vec::new(),
        games: Vec::new(),
    };
    let mut groups: HashMap<(u128, String), Departure> = HashMap::new();
    let mut order: Vec<(u128, String)> = Vec::new();
    for id in ids(&snap, o)? {
        crate::deadline::check()?;
        let Some(game) = snap.chess_game(id)? else {
            continue;
        };
        let points = snap.facts(id)?.outcome().score2(side_index);
        let mut positions = vec![game.start.clone()];
        for n in &game.moves {
            let mut p = positions.last().cloned().unwrap_or_default();
            p.play_unchecked(n.mv);
            positions.push(p);
        }
        report.all.add(points);
        let (last, came_back) = exit(rep, &positions);
        let mut left = GameLeft {
            id,
            white: tag(&game.tags, "White"),
            black: tag(&game.tags, "Black"),
            date: tag(&game.tags, "Date"),
            result: tag(&game.tags, "Result"),
            ply: None,
            left_with: None,
            who: None,
            expected: Vec::new(),
            came_back,
        };
        match last {
            Some(i) if i + 1 < positions.len() && rep.get(&positions[i]).is_some() => {
                let pos = &positions[i];
                let m = game.moves[i].mv;
                let Some(entry) = rep.get(pos) else { continue };
                let who = if entry.moves.is_empty() {
                    "end"
                } else if Side::of(pos) == o.side {
                    "you"
                } else {
                    "opponent"
                };
                let expected: Vec<String> = entry.moves.iter().map(|&e| san(pos, e)).collect();
                let number = pos.fullmoves().get();
                let dots = if pos.turn().is_white() { "." } else { "..." };
                left.ply = Some(i as u32 + 1);
                left.left_with = Some(format!("{number}{dots} {}", san(pos, m)));
                left.who = Some(who);
                left.expected = expected.clone();
                match who {
                    "you" => report.you.add(points),
                    "opponent" => report.opponent.add(points),
                    _ => report.end.add(points),
                }
                let key = (tabiya_db::chess::position_key(pos), uci(m));
                let group = groups.entry(key.clone()).or_insert_with(|| {
                    order.push(key);
                    let mut line = entry.path.clone();
                    line.push(m);
                    Departure {
                        fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
                        line: movetext(&rep.roots[entry.root], &line),
                        uci: uci(m),
                        san: san(pos, m),
                        who,
                        expected,
                        score: Score::default(),
                    }
                });
                group.score.add(points);
            }
            _ => report.stayed.add(points),
        }
        if report.games.len() < o.limit {
            report.games.push(left);
        }
    }
    let mut departures: Vec<Departure> = order
        .into_iter()
        .filter_map(|k| groups.remove(&k))
        .collect();
    departures.sort_by_key(|d| std::cmp::Reverse(d.score.games));
    report.departures = departures;
    Ok(report)
}
