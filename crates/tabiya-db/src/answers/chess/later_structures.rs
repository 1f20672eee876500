//! The pawn structures a position's games reach later: for every game reaching the
//! position (any move order, once each, passing the filter), the distinct pawn structures
//! its main line settles into after it — each held for at least `held` consecutive
//! positions, the position's own structure left out — counted once per game, with the
//! games' results, most frequent first. A way into the plans of an opening by structure.
//! Every game of the position is replayed (exact), on every core, under the request's
//! deadline.

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::{Chess, Position};
use tabiya_structure::PawnStructure;

use super::filter::GameFilter;
use crate::chess::key::position_key;
use crate::chess::stored::decode_line;
use crate::records::Records;
use crate::stats::{GameFacts, Stats};
use crate::{Error, Result, Snapshot};

/// One pawn structure reached later, with the games that reached it by result.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaterStructure {
    /// The structure as a board of pawns (`tabiya search --pawns` takes it).
    pub pawns: String,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Without a result (`*`), not counted in white/draws/black.
    pub unknown: u64,
    /// Mean rating of the games' players (both rated).
    pub average_rating: Option<u32>,
    /// Mean number of plies from the position to the structure's first position.
    pub average_plies: u32,
    /// The sums the figures are formed from (not shown: a set's answers are summed by them).
    #[serde(skip)]
    pub stats: Stats,
    #[serde(skip)]
    pub plies: u64,
}

impl LaterStructure {
    /// The row of structure `pawns` from its sums.
    pub fn new(pawns: String, stats: Stats, plies: u64) -> LaterStructure {
        LaterStructure {
            pawns,
            games: stats.games(),
            white: stats.first,
            draws: stats.draws,
            black: stats.second,
            unknown: stats.unknown,
            average_rating: stats.average_rating(),
            average_plies: plies.checked_div(stats.games()).unwrap_or(0) as u32,
            stats,
            plies,
        }
    }
}

/// The pawn structures a position's games reach later.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaterStructures {
    /// Games reaching the position that the filter keeps (each once): those looked at.
    pub games: u64,
    /// Consecutive positions a structure must hold to count.
    pub held: u32,
    /// Distinct structures reached, all of them (the list holds the most frequent).
    pub distinct: u64,
    /// The most frequent first (ties: by the structure's text), at most the number asked.
    pub structures: Vec<LaterStructure>,
}

/// A structure's sums over the games: results (White wins, draws, Black wins, unknown),
/// the rated games' ratings (as [`Stats`] counts them), and plies from the position to it;
/// small, as a position of the first moves leads to millions of structures.
#[derive(Default, Clone, Copy)]
struct Sums {
    results: [u32; 4],
    rated: u32,
    rating_sum: u64,
    plies: u64,
}

impl Sums {
    /// One game's part, before its plies: its result and its players' ratings.
    fn of_game(f: &GameFacts) -> Sums {
        let mut one = Stats::default();
        one.add_game(f, 0);
        Sums {
            results: [one.first, one.draws, one.second, one.unknown].map(|n| n as u32),
            rated: one.rating_games as u32,
            rating_sum: one.rating_sum,
            plies: 0,
        }
    }

    fn add(&mut self, o: &Sums) {
        for (a, b) in self.results.iter_mut().zip(o.results) {
            *a += b;
        }
        self.rated += o.rated;
        self.rating_sum += o.rating_sum;
        self.plies += o.plies;
    }

    fn games(&self) -> u64 {
        self.results.iter().map(|&n| u64::from(n)).sum()
    }

    /// The sums as [`Stats`] (the fields they hold).
    fn stats(&self) -> Stats {
        let [first, draws, second, unknown] = self.results.map(u64::from);
        Stats {
            first,
            draws,
            second,
            unknown,
            rating_games: u64::from(self.rated),
            rating_sum: self.rating_sum,
            ..Stats::default()
        }
    }
}

impl Snapshot<'_> {
    /// The pawn structures the games reaching `pos` (and passing `filter`) reach later, each
    /// held for at least `held` positions (1: every structure passed through), most
    /// frequent first, at most `limit`.
    pub fn chess_later_structures(
        &self,
        pos: &Chess,
        filter: &GameFilter,
        held: u32,
        limit: usize,
    ) -> Result<LaterStructures> {
        self.check_chess()?;
        let games = self.filtered_games(pos, filter)?;
        let held = held.max(1);
        let key = position_key(pos);
        let workers = crate::workers::for_items(games.len());
        let per = games.len().div_ceil(workers).max(1);
        let read = self.read.clone();
        let results = crate::workers::run(workers, "structure", |i| {
            let share = games
                .get(i * per..((i + 1) * per).min(games.len()))
                .unwrap_or(&[]);
            let records = Records::new(&read)?;
            let mut sums = HashMap::new();
            for (i, (id, _, facts)) in share.iter().enumerate() {
                if i % 1024 == 1023 {
                    crate::deadline::check()?;
                }
                let Some(raw) = records.get(*id)? else {
                    continue;
                };
                game_structures(pos, key, held, &raw, facts, &mut sums)
                    .map_err(|e| Error::Corrupt(format!("game {id}: {e}")))?;
            }
            Ok(sums)
        })?;
        let mut all: HashMap<u128, Sums> = HashMap::new();
        for r in results {
            if all.is_empty() {
                all = r;
                continue;
            }
            for (k, s) in r {
                all.entry(k).or_default().add(&s);
            }
        }
        let distinct = all.len() as u64;
        // Only the rows that can be listed are named (ties at the cut included: the order
        // among them is by name).
        let mut by_games: Vec<(u128, Sums)> = all.into_iter().collect();
        by_games.sort_unstable_by_key(|(_, s)| std::cmp::Reverse(s.games()));
        if let Some(cut) = by_games
            .get(limit.saturating_sub(1))
            .map(|(_, s)| s.games())
        {
            let keep = by_games.partition_point(|(_, s)| s.games() >= cut);
            by_games.truncate(keep);
        }
        let rows = by_games
            .into_iter()
            .map(|(k, s)| {
                LaterStructure::new(PawnStructure::from_key(k).to_string(), s.stats(), s.plies)
            })
            .collect();
        Ok(LaterStructures {
            games: games.len() as u64,
            held,
            distinct,
            structures: most_frequent(rows, limit),
        })
    }
}

/// The `limit` rows of most games, ties by the structure's text (one order everywhere).
pub fn most_frequent(mut rows: Vec<LaterStructure>, limit: usize) -> Vec<LaterStructure> {
    rows.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.pawns.cmp(&b.pawns)));
    rows.truncate(limit);
    rows
}

/// Adds the structures one game (stored form `raw`, facts `facts`) reaches after its first
/// stand in the position of key `key` (`pos`) to `sums`, each once.
fn game_structures(
    pos: &Chess,
    key: u128,
    held: u32,
    raw: &[u8],
    facts: &GameFacts,
    sums: &mut HashMap<u128, Sums>,
) -> std::result::Result<(), crate::codec::DecodeError> {
    let (start, _, moves, _) = decode_line(raw)?;
    let here =
        |p: &Chess| p.board() == pos.board() && p.turn() == pos.turn() && position_key(p) == key;
    let mut p = start;
    let mut at = None;
    if here(&p) {
        at = Some(0);
    } else {
        for (i, m) in moves.iter().enumerate() {
            p.play_unchecked(*m);
            if here(&p) {
                at = Some(i + 1);
                break;
            }
        }
    }
    // A game the index names that never stands there (edited since): nothing to add.
    let Some(at) = at else { return Ok(()) };
    let own = PawnStructure::of(p.board()).key();
    // Runs of one structure: (structure, plies after the position where it began, length).
    let mut run = (own, 0u32, 1u32);
    let mut seen: Vec<(u128, u32)> = Vec::new();
    let close = |run: (u128, u32, u32), seen: &mut Vec<(u128, u32)>| {
        if run.0 != own && run.2 >= held && !seen.iter().any(|s| s.0 == run.0) {
            seen.push((run.0, run.1));
        }
    };
    for (after, m) in moves[at..].iter().enumerate() {
        p.play_unchecked(*m);
        let s = PawnStructure::of(p.board()).key();
        if s == run.0 {
            run.2 += 1;
        } else {
            close(run, &mut seen);
            run = (s, after as u32 + 1, 1);
        }
    }
    close(run, &mut seen);
    let one = Sums::of_game(facts);
    for (k, plies) in seen {
        sums.entry(k).or_default().add(&Sums {
            plies: u64::from(plies),
            ..one
        });
    }
    Ok(())
}
