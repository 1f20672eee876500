//! Rare lines: opponent moves the repertoire prepares that the opponents play so seldom the
//! line could be pruned. The repertoire's own tree is walked from its start as `walk.rs`
//! walks (your k moves 1/k each, an opponent move its share of the database's games there,
//! 0 when no game played it), probabilities of all paths into a position summed; an
//! opponent move of the repertoire leading to a position less likely than `rare` from a
//! position at least that likely is the top of a rare line.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Move, Position};
use tabiya_db::chess::position_key;

use super::counts::Lookups;
use super::line::{movetext, san, uci};
use super::load::Repertoire;
use crate::cards::Side;
use crate::error::Result;

/// The top of a rare line.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RareLine {
    /// The position after the opponent's move.
    pub fen: String,
    /// A way there, ending with the opponent's move.
    pub line: String,
    pub uci: String,
    pub san: String,
    /// The probability the opponents lead there.
    pub probability: f64,
    /// Games reaching the position by any move order (with the filters).
    pub games: u64,
    /// The repertoire's positions from there on (what pruning would remove, unless other
    /// lines reach them too).
    pub positions_below: usize,
}

/// The probability of each repertoire position up to `depth` plies.
fn probabilities(
    rep: &Repertoire,
    side: Side,
    depth: u32,
    lookups: &mut Lookups<'_, '_>,
) -> Result<HashMap<u128, f64>> {
    let mut total: HashMap<u128, f64> = HashMap::new();
    let mut level: BTreeMap<u128, (shakmaty::Chess, f64)> = BTreeMap::new();
    for root in &rep.roots {
        level
            .entry(position_key(root))
            .or_insert((root.clone(), 0.0))
            .1 += 1.0;
    }
    for ply in 0..=depth {
        let mut next: BTreeMap<u128, (shakmaty::Chess, f64)> = BTreeMap::new();
        for (key, (pos, p)) in std::mem::take(&mut level) {
            crate::deadline::check()?;
            *total.entry(key).or_default() += p;
            let mine = rep.moves_at(&pos);
            if ply == depth || mine.is_empty() {
                continue;
            }
            let shares: Vec<(Move, f64)> = if Side::of(&pos) == side {
                mine.iter().map(|&m| (m, 1.0 / mine.len() as f64)).collect()
            } else {
                let counts = lookups.of(&pos)?;
                let continued = counts.continued().max(1) as f64;
                mine.iter()
                    .map(|&m| {
                        let games = counts
                            .moves
                            .iter()
                            .find(|(cm, _)| *cm == m)
                            .map_or(0, |(_, s)| s.games());
                        (m, games as f64 / continued)
                    })
                    .collect()
            };
            for (m, share) in shares {
                let mut child = pos.clone();
                child.play_unchecked(m);
                next.entry(position_key(&child)).or_insert((child, 0.0)).1 += p * share;
            }
        }
        level = next;
    }
    Ok(total)
}

/// The repertoire positions reachable from `pos` by its moves (not counting `pos`).
fn below(rep: &Repertoire, pos: &shakmaty::Chess, depth: u32) -> usize {
    let mut seen = HashSet::from([position_key(pos)]);
    let mut queue = VecDeque::from([(pos.clone(), 0u32)]);
    while let Some((p, d)) = queue.pop_front() {
        if d >= depth {
            continue;
        }
        for &m in rep.moves_at(&p) {
            let mut child = p.clone();
            child.play_unchecked(m);
            if seen.insert(position_key(&child)) {
                queue.push_back((child, d + 1));
            }
        }
    }
    seen.len() - 1
}

/// The rare lines of the repertoire up to `depth` plies, least likely first.
pub fn rare_lines(
    rep: &Repertoire,
    side: Side,
    depth: u32,
    rare: f64,
    lookups: &mut Lookups<'_, '_>,
) -> Result<Vec<RareLine>> {
    let total = probabilities(rep, side, depth, lookups)?;
    let mut out = Vec::new();
    for (key, e) in rep.entries() {
        if Side::of(&e.pos) == side || e.path.len() as u32 >= depth {
            continue;
        }
        let Some(&p) = total.get(&key) else { continue };
        if p < rare {
            continue;
        }
        for &m in &e.moves {
            let mut child = e.pos.clone();
            child.play_unchecked(m);
            let q = total.get(&position_key(&child)).copied().unwrap_or(0.0);
            if q >= rare {
                continue;
            }
            let mut line = e.path.clone();
            line.push(m);
            out.push(RareLine {
                fen: Fen::from_position(&child, EnPassantMode::Legal).to_string(),
                line: movetext(&rep.roots[e.root], &line),
                uci: uci(m),
                san: san(&e.pos, m),
                probability: q,
                games: lookups.of(&child)?.totals.games(),
                positions_below: below(rep, &child, depth.saturating_sub(line.len() as u32)),
            });
        }
    }
    out.sort_by(|a, b| {
        a.probability
            .total_cmp(&b.probability)
            .then_with(|| a.line.cmp(&b.line))
    });
    Ok(out)
}
