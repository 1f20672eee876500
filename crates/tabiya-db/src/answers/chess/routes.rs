//! The move orders that reach a position: for every game reaching it, the moves from the
//! game's start to the first time it stood there, counted by sequence — the transpositions
//! into the position, by frequency. Every game reaching the position is replayed (exact).

use std::collections::HashMap;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use crate::chess::key::position_key;
use crate::chess::stored::decode_line;
use crate::chess::walk::Reach;
use crate::index::find::{Next, Wanted};
use crate::stats::GameOutcome;
use crate::{Error, Result, Snapshot};

/// One move order into the position, with its games by result.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    /// The game's start when it is not the standard one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_fen: Option<String>,
    /// The moves, SAN, from the start.
    pub san: Vec<String>,
    pub uci: Vec<String>,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub unknown: u64,
}

/// The move orders into a position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Routes {
    /// Games reaching the position (each once).
    pub games: u64,
    /// Distinct move orders among them.
    pub distinct: u64,
    /// Games that came by the move order asked (from the standard start), when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_asked: Option<u64>,
    /// The most frequent first, at most the number asked.
    pub routes: Vec<Route>,
}

/// A move order: the game's start when not the standard one, and the moves.
type Order = (Option<String>, Vec<Move>);

/// Its start position and games by result (White wins, draws, Black wins, unknown).
type Tally = (Chess, [u64; 4]);

impl Snapshot<'_> {
    /// The move orders by which the games reach `pos`, most frequent first, at most `limit`;
    /// with `asked` (moves from the standard start), how many games came by it.
    pub fn chess_routes(
        &self,
        pos: &Chess,
        limit: usize,
        asked: Option<&[Move]>,
    ) -> Result<Routes> {
        let key = position_key(pos);
        let reach = Reach::of(pos);
        let found = self.find(&Wanted {
            key,
            next: Next::Of(pos),
            reach: Some(&reach),
            all: true,
        })?;
        let mut ids: Vec<u32> = found.all.into_iter().map(|(g, _)| g).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut by: HashMap<Order, Tally> = HashMap::new();
        for &id in &ids {
            let data = self
                .game_record(id)?
                .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
            let (start, _, moves, _) =
                decode_line(&data).map_err(|e| Error::Corrupt(format!("game {id}: {e}")))?;
            let mut p = start.clone();
            let mut upto = None;
            if position_key(&p) == key {
                upto = Some(0);
            } else {
                for (i, m) in moves.iter().enumerate() {
                    p.play_unchecked(*m);
                    if position_key(&p) == key {
                        upto = Some(i + 1);
                        break;
                    }
                }
            }
            let Some(n) = upto else { continue };
            let from = (start != Chess::default())
                .then(|| Fen::from_position(&start, EnPassantMode::Legal).to_string());
            let slot = match self.facts(id)?.outcome() {
                GameOutcome::FirstWins => 0,
                GameOutcome::Draw => 1,
                GameOutcome::SecondWins => 2,
                GameOutcome::Unknown => 3,
            };
            by.entry((from, moves[..n].to_vec()))
                .or_insert_with(|| (start, [0; 4]))
                .1[slot] += 1;
        }
        let distinct = by.len() as u64;
        let by_asked = asked.map(|a| {
            by.get(&(None, a.to_vec()))
                .map_or(0, |(_, r)| r.iter().sum())
        });
        let mut all: Vec<_> = by.into_iter().collect();
        // Most games first; ties shortest first, then by start and moves (UCI), so that
        // every process gives one order (a hash map's is its own).
        let text = |moves: &[Move]| -> Vec<String> {
            moves
                .iter()
                .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
                .collect()
        };
        all.sort_by(|a, b| {
            let (na, nb) = (a.1.1.iter().sum::<u64>(), b.1.1.iter().sum::<u64>());
            nb.cmp(&na)
                .then(a.0.1.len().cmp(&b.0.1.len()))
                .then_with(|| a.0.0.cmp(&b.0.0))
                .then_with(|| text(&a.0.1).cmp(&text(&b.0.1)))
        });
        let routes = all
            .into_iter()
            .take(limit)
            .map(|((from_fen, moves), (start, r))| {
                let mut p = start;
                let mut san = Vec::with_capacity(moves.len());
                let mut uci = Vec::with_capacity(moves.len());
                for m in &moves {
                    san.push(SanPlus::from_move(p.clone(), *m).to_string());
                    uci.push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
                    p.play_unchecked(*m);
                }
                Route {
                    from_fen,
                    san,
                    uci,
                    games: r.iter().sum(),
                    white: r[0],
                    draws: r[1],
                    black: r[2],
                    unknown: r[3],
                }
            })
            .collect();
        Ok(Routes {
            games: ids.len() as u64,
            distinct,
            by_asked,
            routes,
        })
    }
}
