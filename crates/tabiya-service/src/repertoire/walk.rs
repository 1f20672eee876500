//! The opponents' walk through a repertoire: from its start, ply by ply, where the
//! repertoire's side is to move it plays the repertoire's moves (each of k moves taken with
//! probability 1/k: you play each of your choices equally often), where the other side is
//! it plays every move the database knows there, with the move's share of the games that
//! went on. Positions are merged by key at every ply, so the probabilities of all the
//! paths into a position are summed and a transposition is one position; a position met at
//! two plies sums both. Positions below `min_share` are not followed.

use std::collections::BTreeMap;

use shakmaty::{Chess, Move, Position};
use tabiya_db::chess::position_key;

use super::counts::Lookups;
use super::load::Repertoire;
use crate::cards::Side;
use crate::error::Result;

/// A position the walk reached and how.
#[derive(Debug, Clone)]
pub struct Reached {
    pub pos: Chess,
    /// The probability the opponents lead there (summed over paths and plies).
    pub probability: f64,
    /// The most likely way there: its root, moves, and ply.
    pub root: usize,
    pub path: Vec<Move>,
    best: f64,
}

/// What the walk found: every own-side position it reached, by key (the repertoire answers
/// some; the others are gaps).
pub struct Walked {
    pub own: BTreeMap<u128, Reached>,
}

struct Node {
    pos: Chess,
    p: f64,
    root: usize,
    path: Vec<Move>,
    best: f64,
}

fn push(level: &mut BTreeMap<u128, Node>, pos: Chess, p: f64, root: usize, path: Vec<Move>) {
    let key = position_key(&pos);
    match level.get_mut(&key) {
        Some(n) => {
            n.p += p;
            if p > n.best {
                n.best = p;
                n.root = root;
                n.path = path;
            }
        }
        None => {
            level.insert(
                key,
                Node {
                    pos,
                    p,
                    root,
                    path,
                    best: p,
                },
            );
        }
    }
}

/// Walks `depth` plies from the repertoire's roots.
pub fn walk(
    rep: &Repertoire,
    side: Side,
    depth: u32,
    min_share: f64,
    lookups: &mut Lookups<'_, '_>,
) -> Result<Walked> {
    let mut level = BTreeMap::new();
    for (i, root) in rep.roots.iter().enumerate() {
        push(&mut level, root.clone(), 1.0, i, Vec::new());
    }
    let mut own: BTreeMap<u128, Reached> = BTreeMap::new();
    for ply in 0..=depth {
        let mut next = BTreeMap::new();
        for (key, node) in std::mem::take(&mut level) {
            crate::deadline::check()?;
            if node.p < min_share {
                continue;
            }
            let ours = Side::of(&node.pos) == side;
            if ours {
                let r = own.entry(key).or_insert_with(|| Reached {
                    pos: node.pos.clone(),
                    probability: 0.0,
                    root: node.root,
                    path: node.path.clone(),
                    best: 0.0,
                });
                r.probability += node.p;
                if node.best > r.best {
                    r.best = node.best;
                    r.root = node.root;
                    r.path = node.path.clone();
                }
            }
            if ply == depth {
                continue;
            }
            let moves: Vec<(Move, f64)> = if ours {
                let mine = rep.moves_at(&node.pos);
                let k = mine.len() as f64;
                mine.iter().map(|&m| (m, 1.0 / k)).collect()
            } else {
                let counts = lookups.of(&node.pos)?;
                let continued = counts.continued();
                counts
                    .moves
                    .iter()
                    .map(|(m, s)| (*m, s.games() as f64 / continued.max(1) as f64))
                    .collect()
            };
            for (m, share) in moves {
                let mut child = node.pos.clone();
                child.play_unchecked(m);
                let mut path = node.path.clone();
                path.push(m);
                push(&mut next, child, node.p * share, node.root, path);
            }
        }
        level = next;
    }
    Ok(Walked { own })
}
