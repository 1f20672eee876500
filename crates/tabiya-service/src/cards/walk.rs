//! The walk that makes cards from a book or a database: from a position, breadth first, to a
//! depth in plies. Where the chosen side is to move, its best move(s) make a card and the walk
//! follows them; where the other side is, the walk follows every move the source knows. A
//! position met again (by another move order) is not walked twice.

use std::collections::{HashSet, VecDeque};

use shakmaty::{Chess, Move, Position as _};
use tabiya_db::chess::position_key;

use super::add::Draft;
use super::view::Side;
use crate::error::Result;

/// What the walk asks of a book or a database.
pub(crate) trait MoveSource {
    /// The moves known in `pos`, best first (ties broken by UCI, so that walks repeat).
    /// `for_side`: the chosen side is to move (a source may leave out moves it would never
    /// recommend, like a book's red ones).
    fn moves(&mut self, pos: &Chess, for_side: bool) -> Result<Vec<Move>>;
}

/// How far and how wide to walk.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    /// Plies from the walk's first position.
    pub depth: u32,
    /// How many of the best moves of the chosen side make its card (1: the best).
    pub best: usize,
    /// Stop after this many cards.
    pub max_cards: usize,
}

/// The cards a walk makes, and whether it stopped at `max_cards`.
pub(crate) fn walk(
    start: &Chess,
    path: &[Move],
    side: Side,
    limits: WalkLimits,
    source: &mut dyn MoveSource,
) -> Result<(Vec<Draft>, bool)> {
    let first = path.iter().fold(start.clone(), |mut p, &m| {
        p.play_unchecked(m);
        p
    });
    let mut seen = HashSet::from([position_key(&first)]);
    let mut queue = VecDeque::from([(first, path.to_vec(), 0u32)]);
    let mut drafts = Vec::new();
    while let Some((pos, moves, ply)) = queue.pop_front() {
        if ply >= limits.depth {
            continue;
        }
        let ours = Side::of(&pos) == side;
        let mut next = source.moves(&pos, ours)?;
        if ours {
            next.truncate(limits.best.max(1));
            if next.is_empty() {
                continue;
            }
            if drafts.len() == limits.max_cards {
                return Ok((drafts, true));
            }
            drafts.push(Draft::at(start, &moves, pos.clone(), next.clone()));
        }
        for m in next {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if seen.insert(position_key(&child)) {
                let mut line = moves.clone();
                line.push(m);
                queue.push_back((child, line, ply + 1));
            }
        }
    }
    Ok((drafts, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::view::uci;

    /// A source knowing two moves everywhere: e4 or d4 for White, e5 or d5 for Black, ranked
    /// d before e; then knights.
    struct Two;

    impl MoveSource for Two {
        fn moves(&mut self, pos: &Chess, _: bool) -> Result<Vec<Move>> {
            let want: &[&str] = if pos.turn().is_white() {
                &["d2d4", "e2e4", "g1f3"]
            } else {
                &["d7d5", "e7e5", "g8f6"]
            };
            Ok(want
                .iter()
                .filter_map(|u| super::super::view::legal(pos, u))
                .take(2)
                .collect())
        }
    }

    fn cards(d: &[Draft]) -> Vec<(Vec<String>, Vec<String>)> {
        d.iter()
            .map(|d| {
                (
                    d.line.clone(),
                    d.moves.iter().map(|&m| uci(&d.pos, m)).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn the_chosen_side_follows_its_best_the_other_every_move() {
        let limits = WalkLimits {
            depth: 3,
            best: 1,
            max_cards: 100,
        };
        let (d, cut) = walk(&Chess::default(), &[], Side::White, limits, &mut Two).unwrap();
        assert!(!cut);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // Ply 0: White's best, d4. Ply 1: Black's two replies. Ply 2: White's best after each.
        assert_eq!(
            cards(&d),
            vec![
                (s(&[]), s(&["d2d4"])),
                (s(&["d2d4", "d7d5"]), s(&["e2e4"])),
                (s(&["d2d4", "e7e5"]), s(&["e2e4"])),
            ]
        );
        // For Black, two best: cards after 1. d4 and 1. e4, each with two moves.
        let limits = WalkLimits {
            depth: 2,
            best: 2,
            max_cards: 100,
        };
        let (d, _) = walk(&Chess::default(), &[], Side::Black, limits, &mut Two).unwrap();
        assert_eq!(
            cards(&d),
            vec![
                (s(&["d2d4"]), s(&["d7d5", "e7e5"])),
                (s(&["e2e4"]), s(&["d7d5", "e7e5"])),
            ]
        );
        // A limit of one card stops the walk and says so.
        let limits = WalkLimits {
            depth: 4,
            best: 1,
            max_cards: 1,
        };
        let (d, cut) = walk(&Chess::default(), &[], Side::White, limits, &mut Two).unwrap();
        assert_eq!((d.len(), cut), (1, true));
    }
}
