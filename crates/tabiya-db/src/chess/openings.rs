//! Opening names from the Lichess chess-openings tables (CC0), bundled in the binary and
//! matched by position, so transpositions get their name too.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;
use shakmaty::{Chess, Move, Position};

use super::key::position_key;

const TABLES: [&str; 5] = [
    include_str!("../../../../data/eco/a.tsv"),
    include_str!("../../../../data/eco/b.tsv"),
    include_str!("../../../../data/eco/c.tsv"),
    include_str!("../../../../data/eco/d.tsv"),
    include_str!("../../../../data/eco/e.tsv"),
];

/// A named opening.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Opening {
    pub eco: String,
    pub name: String,
    /// The line as in the table (SAN with move numbers).
    #[serde(skip)]
    pub pgn: String,
    #[serde(skip)]
    pub plies: usize,
    /// The line's moves from the standard start.
    #[serde(skip)]
    pub moves: Vec<Move>,
}

fn table() -> &'static HashMap<u128, Opening> {
    static TABLE: OnceLock<HashMap<u128, Opening>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map: HashMap<u128, Opening> = HashMap::new();
        for text in TABLES {
            for line in text.lines().skip(1) {
                let mut cols = line.split('\t');
                let (Some(eco), Some(name), Some(pgn)) = (cols.next(), cols.next(), cols.next())
                else {
                    continue;
                };
                let mut pos = Chess::default();
                let mut plies = 0;
                let mut moves = Vec::new();
                let mut ok = true;
                for tok in pgn.split_whitespace() {
                    if tok.ends_with('.') {
                        continue;
                    }
                    match tok
                        .parse::<shakmaty::san::San>()
                        .ok()
                        .and_then(|s| s.to_move(&pos).ok())
                    {
                        Some(m) => {
                            pos.play_unchecked(m);
                            moves.push(m);
                            plies += 1;
                        }
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let op = Opening {
                    eco: eco.to_string(),
                    name: name.to_string(),
                    pgn: pgn.to_string(),
                    plies,
                    moves,
                };
                // Where two lines reach one position, the shorter (more general) line names it.
                map.entry(position_key(&pos))
                    .and_modify(|e| {
                        if op.plies < e.plies {
                            *e = op.clone();
                        }
                    })
                    .or_insert(op);
            }
        }
        map
    })
}

/// The opening named exactly at this position, if any.
pub fn named(pos: &Chess) -> Option<&'static Opening> {
    table().get(&position_key(pos))
}

/// The opening by key.
pub fn named_key(key: u128) -> Option<&'static Opening> {
    table().get(&key)
}

/// The last named position along a line of positions.
pub fn last_named<'a>(positions: impl IntoIterator<Item = &'a Chess>) -> Option<&'static Opening> {
    let mut last = None;
    for p in positions {
        if let Some(o) = named(p) {
            last = Some(o);
        }
    }
    last
}

/// Number of named positions.
pub fn count() -> usize {
    table().len()
}

/// Every named position with its opening (the shortest line of the tables reaching it), in
/// no particular order.
pub fn all() -> impl Iterator<Item = (u128, &'static Opening)> {
    table().iter().map(|(k, o)| (*k, o))
}

impl Opening {
    /// The position the opening's line reaches.
    pub fn position(&self) -> Chess {
        let mut pos = Chess::default();
        for m in &self.moves {
            pos.play_unchecked(*m);
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn play(moves: &str) -> Vec<Chess> {
        let mut pos = Chess::default();
        let mut out = vec![pos.clone()];
        for m in moves.split_whitespace() {
            let mv = m.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            out.push(pos.clone());
        }
        out
    }

    #[test]
    fn names_follow_the_tables_and_transpositions() {
        // b.tsv: "B20 Sicilian Defense 1. e4 c5"
        let line = play("e4 c5");
        let o = last_named(&line).unwrap();
        assert_eq!(
            (o.eco.as_str(), o.name.as_str()),
            ("B20", "Sicilian Defense")
        );
        // 1. Nf3 d5 2. d4 reaches the Queen's Pawn position "1. d4 d5 2. Nf3" (D02).
        let t = play("Nf3 d5 d4");
        let direct = play("d4 d5 Nf3");
        assert_eq!(named(t.last().unwrap()), named(direct.last().unwrap()));
        assert!(named(t.last().unwrap()).is_some());
        assert!(count() > 3000);
    }

    #[test]
    fn every_named_position_is_reached_by_its_moves() {
        let mut n = 0;
        for (key, o) in all() {
            assert_eq!(position_key(&o.position()), key, "{} {}", o.eco, o.name);
            assert_eq!(o.moves.len(), o.plies);
            n += 1;
        }
        assert_eq!(n, count());
        // The Sicilian's line, as moves: 1. e4 c5.
        let sicilian = named(play("e4 c5").last().unwrap()).unwrap();
        let uci: Vec<String> = sicilian
            .moves
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(uci, ["e2e4", "c7c5"]);
    }
}
