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
//!
//! No two games are compared unless they share what any duplicates share: a start and a
//! main line, or a start, an event and a line's first 10 plies (see `sets_of`): the cost
//! follows the games of a pairing, not their pairs (20,000 games of `?` against `?` took
//! 17 s, 100,000 took 17 minutes; now 0.35 s and 1.8 s, `BENCHMARKS.md`).

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
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct DuplicateSet {
    /// The copy to keep first, then the others.
    pub games: Vec<Copy>,
    /// Why they are one: `same moves`, or `one line begins the other`.
    pub why: String,
}

/// What `tabiya duplicates` reports.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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

/// Why games are one, as the sets say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    Same,
    Prefix,
    Both,
}

impl Why {
    fn as_str(self) -> &'static str {
        match self {
            Why::Same => "same moves",
            Why::Prefix => "one line begins the other",
            Why::Both => "same moves, and one line begins the other",
        }
    }

    /// A set's reason once a pair of its games joins it for `reason`: the set's own (or,
    /// for a game alone, the other's set's), unless that is another.
    fn with(set: Option<Why>, reason: Why) -> Why {
        match set {
            Some(w) if w != reason => Why::Both,
            _ => reason,
        }
    }
}

/// The parts of a date (`2001.05.01`: 2001, 5, 1), an unknown part (`??`, `0`, anything not
/// a number) as `None`.
fn date_parts(d: &str) -> impl Iterator<Item = Option<u32>> + '_ {
    d.split('.')
        .map(|p| p.parse::<u32>().ok().filter(|&v| v > 0))
}

/// What two games of a pair must agree on, as one list: the result (`None` for `*`) then
/// the date's parts, the unknown ones at the end left out. Two games agree when every place
/// both know holds the same: results the same or one `*`, and every date part both know
/// (as far as the shorter date goes) the same.
fn pattern(result: &str, date: &str, results: &mut HashMap<String, u32>) -> Vec<Option<u32>> {
    let r = (result != "*").then(|| {
        let n = results.len() as u32;
        *results.entry(result.to_string()).or_insert(n)
    });
    let mut p: Vec<Option<u32>> = std::iter::once(r).chain(date_parts(date)).collect();
    while p.last() == Some(&None) {
        p.pop();
    }
    p
}

/// A set of pairs of games, every one of them a duplicate for the same reason: each game
/// of `x` with each of `y` (a clique: `y` empty, each game of `x` with each other).
/// Both sides ascending.
struct Block {
    x: Vec<usize>,
    y: Vec<usize>,
    why: Why,
    /// Whether a game of `x` (of `y`) was joined to every later game of the other side.
    joined: [bool; 2],
}

/// The games of a pairing that can be one with each other, as [`Block`]s: every pair of
/// games in agreement (see [`pattern`]) among the games `left` and `right` (`right` empty:
/// the pairs within `left`). Games are grouped by the places their patterns know; for two
/// such groups, the pairs in agreement are exactly those alike on the places both know,
/// found by grouping each side on those: `O(games × kinds of pattern)`, not a comparison of
/// every pair.
fn blocks_of(
    left: &[usize],
    right: &[usize],
    why: Why,
    patterns: &[Vec<Option<u32>>],
    out: &mut Vec<Block>,
) {
    fn known(p: &[Option<u32>]) -> Vec<usize> {
        p.iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|_| i))
            .collect()
    }
    fn by_known(games: &[usize], patterns: &[Vec<Option<u32>>]) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut m: HashMap<Vec<usize>, Vec<usize>> = HashMap::new();
        for &g in games {
            m.entry(known(&patterns[g])).or_default().push(g);
        }
        let mut v: Vec<(Vec<usize>, Vec<usize>)> = m.into_iter().collect();
        v.sort();
        v
    }
    fn by_values(
        games: &[usize],
        places: &[usize],
        patterns: &[Vec<Option<u32>>],
    ) -> HashMap<Vec<u32>, Vec<usize>> {
        let mut m: HashMap<Vec<u32>, Vec<usize>> = HashMap::new();
        for &g in games {
            let key = places
                .iter()
                .map(|&p| patterns[g][p].unwrap_or(0))
                .collect();
            m.entry(key).or_default().push(g);
        }
        m
    }
    // The places two kinds both know (both lists ascending).
    let both = |a: &[usize], b: &[usize]| -> Vec<usize> {
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push(a[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        out
    };
    let lefts = by_known(left, patterns);
    if right.is_empty() {
        for (i, (ka, ga)) in lefts.iter().enumerate() {
            // Alike on every place: each with each.
            for (_, g) in by_values(ga, ka, patterns) {
                if g.len() > 1 {
                    out.push(Block {
                        x: g,
                        y: Vec::new(),
                        why,
                        joined: [false; 2],
                    });
                }
            }
            for (kb, gb) in &lefts[i + 1..] {
                let places = both(ka, kb);
                let mut xs = by_values(ga, &places, patterns);
                for (key, y) in by_values(gb, &places, patterns) {
                    if let Some(x) = xs.remove(&key) {
                        out.push(Block {
                            x,
                            y,
                            why,
                            joined: [false; 2],
                        });
                    }
                }
            }
        }
        return;
    }
    let rights = by_known(right, patterns);
    for (ka, ga) in &lefts {
        for (kb, gb) in &rights {
            let places = both(ka, kb);
            let mut xs = by_values(ga, &places, patterns);
            for (key, y) in by_values(gb, &places, patterns) {
                if let Some(x) = xs.remove(&key) {
                    out.push(Block {
                        x,
                        y,
                        why,
                        joined: [false; 2],
                    });
                }
            }
        }
    }
}

/// Games joined into sets (union-find).
struct Sets {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl Sets {
    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.root(a), self.root(b));
        if a != b {
            if self.size[a] < self.size[b] {
                std::mem::swap(&mut a, &mut b);
            }
            self.parent[b] = a;
            self.size[a] += self.size[b];
        }
    }
}

/// The sets of duplicates among the games of two players.
///
/// Which pairs are duplicates (see the module) is found by grouping, never by comparing
/// every pair: games with the same start and main line are candidates for `same moves`;
/// for `one line begins the other`, the games of one start and event, their distinct lines
/// sorted, where a line's continuations follow it. Within each, pairs agree on result and
/// date by [`blocks_of`]. A set is the games linked by such pairs.
///
/// Its reason is what the pairwise rule (the games in order, each with every later one,
/// a pair's reason merged into its set's) gives — which in a set linked both ways can
/// depend on that order: it is replayed exactly, each game at a time, from what its pairs
/// with later games are (`O(blocks)` a game, not `O(games)`): a game already in a set keeps
/// the set's reason if every later pair of its has it, else it becomes both; a game alone
/// takes the reason of its first pair merged with the set of that pair's other game.
fn sets_of(told: &[(String, Told)]) -> Vec<DuplicateSet> {
    let n = told.len();
    // Moves and starts as numbers, so lines compare, hash and sort as numbers.
    let mut move_ids: HashMap<Move, u32> = HashMap::new();
    let lines: Vec<Vec<u32>> = told
        .iter()
        .map(|(_, t)| {
            t.line
                .iter()
                .map(|m| {
                    let k = move_ids.len() as u32;
                    *move_ids.entry(*m).or_insert(k)
                })
                .collect()
        })
        .collect();
    let mut results = HashMap::new();
    let patterns: Vec<Vec<Option<u32>>> = told
        .iter()
        .map(|(_, t)| pattern(&t.result, &t.copy.date, &mut results))
        .collect();
    let mut blocks: Vec<Block> = Vec::new();
    // Same moves: the games of each start and line.
    let mut by_line: HashMap<(&str, &[u32]), Vec<usize>> = HashMap::new();
    for (i, (_, t)) in told.iter().enumerate() {
        by_line.entry((&t.start, &lines[i])).or_default().push(i);
    }
    let mut classes: Vec<Vec<usize>> = by_line.into_values().filter(|g| g.len() > 1).collect();
    classes.sort_unstable();
    for g in &classes {
        blocks_of(g, &[], Why::Same, &patterns, &mut blocks);
    }
    // One line begins the other: per start and event, each distinct line of MIN_PREFIX
    // plies or more with the games of the lines continuing it.
    type ByLine<'a> = HashMap<&'a [u32], Vec<usize>>;
    let mut by_event: HashMap<(&str, &str), ByLine> = HashMap::new();
    for (i, (event, t)) in told.iter().enumerate() {
        by_event
            .entry((&t.start, event))
            .or_default()
            .entry(&lines[i])
            .or_default()
            .push(i);
    }
    let mut buckets: Vec<Vec<(&[u32], Vec<usize>)>> = by_event
        .into_values()
        .filter(|b| b.len() > 1)
        .map(|b| {
            let mut b: Vec<(&[u32], Vec<usize>)> = b.into_iter().collect();
            b.sort_unstable();
            b
        })
        .collect();
    buckets.sort_unstable_by(|a, b| a[0].1.cmp(&b[0].1));
    for bucket in &buckets {
        // Plies in common of each line with the next: a line's continuations are the lines
        // after it while those stay at least its length.
        let common: Vec<usize> = bucket
            .windows(2)
            .map(|w| {
                w[0].0
                    .iter()
                    .zip(w[1].0)
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .collect();
        for (t, (line, games)) in bucket.iter().enumerate() {
            if line.len() < MIN_PREFIX {
                continue;
            }
            let mut longer: Vec<usize> = Vec::new();
            for (u, &c) in common.iter().enumerate().skip(t) {
                if c < line.len() {
                    break;
                }
                longer.extend(&bucket[u + 1].1);
            }
            if !longer.is_empty() {
                longer.sort_unstable();
                blocks_of(games, &longer, Why::Prefix, &patterns, &mut blocks);
            }
        }
    }
    // Each game's blocks, and its side in each.
    let mut member: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for &g in &block.x {
            member[g].push((b, 0));
        }
        for &g in &block.y {
            member[g].push((b, 1));
        }
    }
    // The pairwise rule replayed, game by game (see above).
    let mut sets = Sets {
        parent: (0..n).collect(),
        size: vec![1; n],
    };
    let mut why: Vec<Option<Why>> = vec![None; n];
    for (i, of_i) in member.iter().enumerate() {
        let (mut earlier, mut later_same, mut later_prefix) = (false, false, false);
        let mut first: Option<(usize, Why)> = None;
        for &(b, side) in of_i {
            let block = &blocks[b];
            // (A clique's other games are its own.)
            let other = if side == 0 && !block.y.is_empty() {
                &block.y
            } else {
                &block.x
            };
            earlier |= other[0] < i;
            let after = other.partition_point(|&g| g <= i);
            if let Some(&j) = other.get(after) {
                match block.why {
                    Why::Same => later_same = true,
                    _ => later_prefix = true,
                }
                if first.is_none_or(|(f, _)| j < f) {
                    first = Some((j, block.why));
                }
            }
        }
        let start = if earlier {
            let r = sets.root(i);
            why[r]
        } else if let Some((j, reason)) = first {
            let r = sets.root(j);
            Some(Why::with(why[r], reason))
        } else {
            continue;
        };
        let mut now = start.expect("a game in a set has its set's reason");
        if later_same {
            now = Why::with(Some(now), Why::Same);
        }
        if later_prefix {
            now = Why::with(Some(now), Why::Prefix);
        }
        for &(b, side) in of_i {
            let block = &mut blocks[b];
            if block.y.is_empty() {
                // A clique: its first game joins it whole.
                if block.x[0] == i {
                    for &j in &block.x[1..] {
                        sets.join(i, j);
                    }
                }
                continue;
            }
            let other = if side == 0 { &block.y } else { &block.x };
            let after = other.partition_point(|&g| g <= i);
            if block.joined[side] {
                // An earlier game of this side joined every later game of the other, now
                // one set: joining one of them is joining them all.
                if let Some(&j) = other.get(after) {
                    sets.join(i, j);
                }
            } else {
                for &j in &other[after..] {
                    sets.join(i, j);
                }
                block.joined[side] = true;
            }
        }
        let r = sets.root(i);
        why[r] = Some(now);
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        let r = sets.root(i);
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
                why: why[r].unwrap_or(Why::Same).as_str().to_string(),
            }
        })
        .collect();
    out.sort_by_key(|s| s.games[0].id);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    /// Whether two dates can be one: every part both know (year, month, day) is the same.
    fn dates_agree(a: &str, b: &str) -> bool {
        let parts = |d: &str| -> Vec<Option<u32>> { date_parts(d).collect() };
        parts(a)
            .iter()
            .zip(parts(b).iter())
            .all(|(x, y)| x.is_none() || y.is_none() || x == y)
    }

    /// Whether two results can be one game's: the same, or one unknown.
    fn results_agree(a: &str, b: &str) -> bool {
        a == b || a == "*" || b == "*"
    }

    /// The sets as they were found before grouping, every pair compared in order: what
    /// [`sets_of`] must give, sets, order and reasons alike.
    fn sets_before(told: &[(String, Told)]) -> Vec<DuplicateSet> {
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
                if !dates_agree(&a.copy.date, &b.copy.date) || !results_agree(&a.result, &b.result)
                {
                    continue;
                }
                let reason = if a.line == b.line {
                    "same moves"
                } else if told[i].0 == told[j].0
                    && short.len() >= MIN_PREFIX
                    && long.starts_with(short)
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

    fn summary(sets: &[DuplicateSet]) -> Vec<(Vec<u32>, String)> {
        sets.iter()
            .map(|s| (s.games.iter().map(|c| c.id).collect(), s.why.clone()))
            .collect()
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        }
    }

    /// A move for tests (the 64 squares, by four pieces: 256 moves).
    fn mv(n: u32) -> Move {
        Move::Normal {
            role: [Role::Knight, Role::Bishop, Role::Rook, Role::Queen][(n / 64) as usize],
            from: Square::A1,
            capture: None,
            to: Square::new(n % 64),
            promotion: None,
        }
    }

    /// A pairing's games drawn from few lines (cuts of three main lines that part at ply
    /// 11, so that lines begin others, at 10 plies and more and fewer), dates (known,
    /// partly known, unknown, two parts, four), results and events: sets linked by both
    /// reasons, through dates and results that agree with others that do not agree with
    /// each other.
    fn pairing(rng: &mut Rng, n: usize) -> Vec<(String, Told)> {
        let mains: Vec<Vec<Move>> = (0..3)
            .map(|v| {
                (0..16)
                    .map(|p| mv(if p < 11 { p } else { 20 + v * 16 + p }))
                    .collect()
            })
            .collect();
        let cuts = [0, 3, 9, 10, 11, 12, 14, 16];
        let dates = [
            "2001.05.01",
            "2001.??.??",
            "2001.06.01",
            "????.??.??",
            "2002.05.01",
            "2001.05",
            "",
            "2001.05.01.7",
            "????.05.??",
            "2001.05.00",
        ];
        let results = ["1-0", "0-1", "*", "1/2-1/2", "*"];
        (0..n)
            .map(|i| {
                let line: Vec<Move> = mains[rng.below(3)][..cuts[rng.below(cuts.len())]].to_vec();
                let event = ["Open", "Cup", "?"][rng.below(3)].to_string();
                let t = Told {
                    copy: Copy {
                        id: i as u32 + 1,
                        white: "?".into(),
                        black: "?".into(),
                        date: dates[rng.below(dates.len())].into(),
                        event: event.clone(),
                        plies: line.len(),
                        annotations: rng.below(2),
                        tags: 7 + rng.below(2),
                    },
                    result: results[rng.below(results.len())].into(),
                    start: if rng.below(10) == 0 { "other" } else { "start" }.into(),
                    line,
                };
                (event, t)
            })
            .collect()
    }

    /// The grouped search against every pair compared, on thousands of random pairings of
    /// 2 to 60 games: the same sets, in the same order, kept copy first, for the same
    /// reasons — including the sets whose reason the order of the pairs decides.
    #[test]
    fn the_sets_are_those_of_every_pair_compared() {
        let mut rng = Rng(31);
        let mut seen = HashMap::new();
        let mut by_order = 0;
        for round in 0..6_000 {
            let told = pairing(&mut rng, 2 + round % 59);
            let want = summary(&sets_before(&told));
            assert_eq!(summary(&sets_of(&told)), want, "round {round}");
            for (ids, why) in want {
                // The reasons of all the set's pairs: when the set's reason is not what
                // they make together, the order of the pairs decided it.
                let (mut same, mut begins) = (false, false);
                for (k, &a) in ids.iter().enumerate() {
                    for &b in &ids[k + 1..] {
                        let (x, y) = (&told[a as usize - 1], &told[b as usize - 1]);
                        if x.1.start != y.1.start
                            || !dates_agree(&x.1.copy.date, &y.1.copy.date)
                            || !results_agree(&x.1.result, &y.1.result)
                        {
                            continue;
                        }
                        let (s, l) = if x.1.line.len() <= y.1.line.len() {
                            (&x.1.line, &y.1.line)
                        } else {
                            (&y.1.line, &x.1.line)
                        };
                        if s == l {
                            same = true;
                        } else if x.0 == y.0 && s.len() >= MIN_PREFIX && l.starts_with(s) {
                            begins = true;
                        }
                    }
                }
                let all = match (same, begins) {
                    (true, false) => Why::Same,
                    (false, true) => Why::Prefix,
                    _ => Why::Both,
                };
                by_order += usize::from(all.as_str() != why);
                *seen.entry(why).or_insert(0) += 1;
            }
        }
        // Every reason came up, many times, and sets whose reason the order decided.
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert!(seen.values().all(|&n| n > 1_000), "{seen:?}");
        assert!(by_order > 30, "{by_order}");
    }

    /// By hand: a set whose reason the order of its pairs decides, kept as the pairwise
    /// rule gives it. Line L has 12 plies; game 1 is its first 10 (2001.05.01, event E1),
    /// 2 is L (2001.06.01, E2), 3 its first 11 (2001.??.??, E1), 4 is L (2001.06.01, E1).
    /// Pairs: 1–3 one begins the other (E1, dates agree); 2–4 same moves; 3–4 one begins the
    /// other (E1, dates agree); 1–2 and 2–3 not (events), 1–4 not (dates). In order: 1–3
    /// makes {1, 3} "begins", 2–4 makes {2, 4} "same moves", 3–4 joins them and the set of
    /// the earlier game (3) gives its reason: "one line begins the other", though 2 and 4
    /// are the same moves (with the ids the other way round it would be both).
    #[test]
    fn a_set_joined_both_ways() {
        let line: Vec<Move> = (0..12).map(mv).collect();
        let game = |id: u32, plies: usize, date: &str, event: &str| {
            (
                event.to_string(),
                Told {
                    copy: Copy {
                        id,
                        white: "?".into(),
                        black: "?".into(),
                        date: date.into(),
                        event: event.into(),
                        plies,
                        annotations: 0,
                        tags: 7,
                    },
                    result: "*".into(),
                    start: "start".into(),
                    line: line[..plies].to_vec(),
                },
            )
        };
        let mut told = vec![
            game(1, 10, "2001.05.01", "E1"),
            game(2, 12, "2001.06.01", "E2"),
            game(3, 11, "2001.??.??", "E1"),
            game(4, 12, "2001.06.01", "E1"),
        ];
        // Kept first: the longest (2 and 4, 12 plies; then the first imported), then 3, 1.
        let got = summary(&sets_of(&told));
        assert_eq!(
            got,
            [(vec![2, 4, 3, 1], "one line begins the other".to_string())]
        );
        assert_eq!(got, summary(&sets_before(&told)));
        // The same four imported as 4, 2, 1, 3 (renumbered 1 to 4): pairs 1–2 same moves,
        // 1–4 and 3–4 begins. In order: 1–2 makes {1, 2} "same moves", 1–4 adds 4 for
        // "begins": both; 3–4 adds 3 to that set, still both.
        told.swap(0, 3);
        told.swap(2, 3);
        for (i, (_, t)) in told.iter_mut().enumerate() {
            t.copy.id = i as u32 + 1;
        }
        let got = summary(&sets_of(&told));
        assert_eq!(
            got,
            [(
                vec![1, 2, 4, 3],
                "same moves, and one line begins the other".to_string()
            )]
        );
        assert_eq!(got, summary(&sets_before(&told)));
    }
}
