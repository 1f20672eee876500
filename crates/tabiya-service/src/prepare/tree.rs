//! The player's games counted into positions and moves, and the tree shown.
//!
//! Counting: each game of the player with the colour (and year) asked, from the standard
//! start, is replayed for its first `depth` moves; every position at plies `0..=depth` is
//! keyed by the database's position key (so move orders meet), and counts the game once —
//! at its first occurrence in the game, whose move (below ply `depth`) is the move the game
//! counts there. Results are the player's. A move's latest game is the latest by date
//! (`yyyymmdd`, unknown parts 0), then the later stored.
//!
//! Showing: from the start, the moves with at least `min_games` games, breadth first; a
//! position is shown when such a move leads to it, and is listed once, at the fewest moves.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};
use tabiya_db::chess::{decode_line_start, position_key};
use tabiya_db::{GameOutcome, Snapshot};

use super::{Colour, Latest, PrepMove, PrepPosition, Preparation, PrepareOptions, Score, percent};
use crate::error::Result;

/// Games and the player's results.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tally {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
}

impl Tally {
    fn add(&mut self, result: Option<bool>, draw: bool) {
        self.games += 1;
        match (result, draw) {
            (_, true) => self.draws += 1,
            (Some(true), _) => self.wins += 1,
            (Some(false), _) => self.losses += 1,
            (None, _) => {}
        }
    }

    fn score(&self) -> Score {
        Score {
            games: self.games,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            score: percent(self.wins, self.draws, self.losses),
        }
    }
}

/// A move counted in a position.
struct Edge {
    mv: Move,
    to: u128,
    tally: Tally,
    /// (date, id) of the latest game.
    latest: (u32, u32),
}

/// A position counted.
struct Node {
    pos: Chess,
    tally: Tally,
    edges: Vec<Edge>,
}

/// What the games counted.
pub(super) struct Counted {
    nodes: HashMap<u128, Node>,
    total: Tally,
    other_starts: u64,
}

/// A game's result for the player: (won or lost when decided, drawn).
fn result_for(outcome: GameOutcome, side: u8) -> (Option<bool>, bool) {
    match outcome {
        GameOutcome::Unknown => (None, false),
        GameOutcome::Draw => (None, true),
        GameOutcome::FirstWins => (Some(side == 0), false),
        GameOutcome::SecondWins => (Some(side == 1), false),
    }
}

/// Counts the player's games (ids with the side they had) into positions and moves.
pub(super) fn count(
    snap: &Snapshot<'_>,
    games: &[(u32, u8)],
    opts: &PrepareOptions,
) -> Result<Counted> {
    let start = Chess::default();
    let mut out = Counted {
        nodes: HashMap::new(),
        total: Tally::default(),
        other_starts: 0,
    };
    let mut seen: Vec<u128> = Vec::new();
    let mut keys: Vec<u128> = Vec::new();
    for &(id, side) in games {
        crate::deadline::check()?;
        let facts = snap.facts(id)?;
        if let Some(since) = opts.since {
            let year = facts.date / 10000;
            if year == 0 || year < u32::from(since) {
                continue;
            }
        }
        let Some(record) = snap.game_record(id)? else {
            continue;
        };
        let (first, _, moves, _) =
            decode_line_start(&record, opts.depth as usize).map_err(tabiya_db::Error::from)?;
        if first != start {
            out.other_starts += 1;
            continue;
        }
        let (result, draw) = result_for(facts.outcome(), side);
        out.total.add(result, draw);
        let mut pos = first;
        keys.clear();
        keys.push(position_key(&pos));
        let mut positions = Vec::with_capacity(moves.len() + 1);
        positions.push(pos.clone());
        for &m in &moves {
            pos.play_unchecked(m);
            keys.push(position_key(&pos));
            positions.push(pos.clone());
        }
        seen.clear();
        for (ply, &key) in keys.iter().enumerate() {
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let node = out.nodes.entry(key).or_insert_with(|| Node {
                pos: positions[ply].clone(),
                tally: Tally::default(),
                edges: Vec::new(),
            });
            node.tally.add(result, draw);
            let Some(&m) = moves.get(ply) else { continue };
            let to = keys[ply + 1];
            let edge = match node.edges.iter().position(|e| e.mv == m) {
                Some(i) => &mut node.edges[i],
                None => {
                    node.edges.push(Edge {
                        mv: m,
                        to,
                        tally: Tally::default(),
                        latest: (0, 0),
                    });
                    node.edges.last_mut().expect("just pushed")
                }
            };
            edge.tally.add(result, draw);
            edge.latest = edge.latest.max((facts.date, id));
        }
    }
    Ok(out)
}

/// `yyyy.mm.dd` with unknown parts `??`.
fn date_text(d: u32) -> String {
    let part = |v: u32, w: usize| {
        if v == 0 {
            "?".repeat(w)
        } else {
            format!("{v:0w$}")
        }
    };
    format!(
        "{}.{}.{}",
        part(d / 10000, 4),
        part(d / 100 % 100, 2),
        part(d % 100, 2)
    )
}

/// The tree shown: positions reached from the start by moves with at least `min_games`
/// games, breadth first, each move with its latest game's tags.
pub(super) fn shown(
    snap: &Snapshot<'_>,
    counted: Counted,
    opts: &PrepareOptions,
) -> Result<Preparation> {
    let player = match opts.colour {
        Colour::White => Color::White,
        Colour::Black => Color::Black,
    };
    let root_pos = Chess::default();
    let root = position_key(&root_pos);
    let mut nodes = counted.nodes;
    nodes.entry(root).or_insert_with(|| Node {
        pos: root_pos,
        tally: Tally::default(),
        edges: Vec::new(),
    });
    let mut tags: HashMap<u32, Vec<(String, String)>> = HashMap::new();
    let mut listed: HashSet<u128> = HashSet::new();
    let mut positions: Vec<PrepPosition> = Vec::new();
    let mut queue = VecDeque::from([(root, 0u32, Vec::<String>::new())]);
    listed.insert(root);
    while let Some((key, ply, line)) = queue.pop_front() {
        let node = &nodes[&key];
        let mut edges: Vec<&Edge> = node
            .edges
            .iter()
            .filter(|e| e.tally.games >= opts.min_games)
            .collect();
        let uci = |m: Move| UciMove::from_move(m, CastlingMode::Standard).to_string();
        edges.sort_by(|a, b| {
            b.tally
                .games
                .cmp(&a.tally.games)
                .then_with(|| uci(a.mv).cmp(&uci(b.mv)))
        });
        let mut moves = Vec::with_capacity(edges.len());
        for e in edges {
            let san = SanPlus::from_move(node.pos.clone(), e.mv).to_string();
            if listed.insert(e.to) {
                let mut next = line.clone();
                next.push(san.clone());
                queue.push_back((e.to, ply + 1, next));
            }
            let (date, id) = e.latest;
            if let Entry::Vacant(v) = tags.entry(id) {
                v.insert(snap.chess_tags(id)?.unwrap_or_default());
            }
            let tag = |name: &str| {
                tags[&id]
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            moves.push(PrepMove {
                uci: uci(e.mv),
                san,
                score: e.tally.score(),
                latest: Latest {
                    id,
                    date: date_text(date),
                    opponent: tag(if player == Color::White {
                        "Black"
                    } else {
                        "White"
                    }),
                    event: tag("Event"),
                },
                to: format!("{:032x}", e.to),
            });
        }
        positions.push(PrepPosition {
            key: format!("{key:032x}"),
            fen: Fen::from_position(&node.pos, EnPassantMode::Legal).to_string(),
            ply,
            line,
            player_to_move: node.pos.turn() == player,
            score: node.tally.score(),
            moves,
        });
    }
    Ok(Preparation {
        player: String::new(),
        color: opts.colour,
        since: opts.since,
        depth: opts.depth,
        min_games: opts.min_games,
        score: counted.total.score(),
        other_starts: counted.other_starts,
        positions,
        varies_most: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_results() {
        assert_eq!(date_text(19720711), "1972.07.11");
        assert_eq!(date_text(19720000), "1972.??.??");
        assert_eq!(date_text(0), "????.??.??");
        assert_eq!(result_for(GameOutcome::FirstWins, 1), (Some(false), false));
        assert_eq!(result_for(GameOutcome::SecondWins, 1), (Some(true), false));
        assert_eq!(result_for(GameOutcome::Draw, 0), (None, true));
        let mut t = Tally::default();
        t.add(Some(true), false);
        t.add(None, true);
        t.add(None, false);
        let s = t.score();
        assert_eq!((s.games, s.wins, s.draws, s.losses), (3, 1, 1, 0));
        assert_eq!(s.score, Some(75.0));
    }
}
