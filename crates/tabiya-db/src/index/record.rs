//! T records (a popular position's statistics per move and its games) and S entries (one
//! game of a rare position), with their encodings inside a run's blocks.

use super::{INLINE_POSTINGS, RECENT_GAMES, TOP_GAMES};
use crate::codec::{DecodeError, Reader, put_varint};
use crate::stats::{GameFacts, Rank, Stats};

/// One counted position of one game, as the index builder sees it. Aligned to 8 bytes, not
/// the key's 16: 24 bytes instead of 32, for the hundreds of millions an import holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(8))]
pub struct Occ {
    pub key: u128,
    pub game: u32,
    pub code: u16,
    pub mover: u8,
}

/// Statistics of one move of a T record ([`crate::chess::NO_MOVE`] for games ending there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveEntry {
    pub code: u16,
    pub stats: Stats,
}

/// A game in a postings list: its id and the slot (index into the record's moves) of the
/// move it played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    pub game: u32,
    pub slot: u8,
}

/// A position with many games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TRecord {
    pub key: u128,
    pub moves: Vec<MoveEntry>,
    /// Best-rated games (by mean rating, then date), only when there are more than
    /// [`TOP_GAMES`] postings; otherwise the postings themselves are the top games.
    pub top: Vec<Posting>,
    /// The newest games (by date, newest first, then by id), when the record keeps them
    /// ([`RECENT_GAMES`] of them, beside a `top` list; a record with no `top` list lists all
    /// its games). Records written before they were kept, and patched records, have none.
    pub recent: Option<Vec<Posting>>,
    /// The game of each move played by one game only, by the move's slot, when the record
    /// says (records written before, and patched records, do not).
    pub singles: Option<Vec<(u8, u32)>>,
    /// By move slot (empty: none known): whether the games that played the move are every
    /// game of the run reaching the position it leads to, by any move order. The move's
    /// statistics are then that position's whole answer in the run, with no lookup of it.
    /// Deletions and edits keep it true (they take games out of both sets alike, and patch
    /// the move's statistics); runs only grow by merges, which keep it where they can tell.
    pub whole: Vec<bool>,
    /// Every legal move whose position some game of the run reaches other than by playing
    /// that move here (by another move order, or a move played by no game of the record),
    /// with those games when there are few, when the build could tell; `None` when it
    /// could not. A legal move not listed is whole, or played by no game and leading where
    /// no game of the run goes. The move's `reached` in the run is then its statistics and
    /// the listed games', with no lookup, and a merge keeps a move whole when no part lists
    /// it. The record is *closed* when the list is empty.
    pub elsewhere: Option<Vec<Elsewhere>>,
    /// Number of games; the list itself is inline when short, else in the postings table.
    pub n_postings: u64,
    pub postings: Option<Vec<Posting>>,
}

impl TRecord {
    /// Forgets what the record says of where its moves lead ([`TRecord::whole`],
    /// [`TRecord::elsewhere`]): for a record written where that is not known (merged with
    /// games from elsewhere, or assembled from streams that do not tell).
    pub fn forget_where_moves_lead(&mut self) {
        self.whole.clear();
        self.elsewhere = None;
    }

    #[cfg(test)]
    pub fn totals(&self) -> Stats {
        let mut s = Stats::default();
        for m in &self.moves {
            s.merge(&m.stats);
        }
        s
    }
}

/// A legal move of a [`TRecord`] whose position the run's games reach other than by that
/// move from the record's position ([`TRecord::elsewhere`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elsewhere {
    pub code: u16,
    /// Those games (sorted), when at most [`ELSEWHERE_GAMES`]; `None` when more. Each game
    /// of the move reaches that position too (the build and merges list a move played by
    /// the record's games only then; otherwise it is listed with `None`).
    pub games: Option<Vec<u32>>,
}

/// The most games a record lists for a move reached elsewhere ([`Elsewhere::games`]):
/// more, and the explorer looks the position up.
pub const ELSEWHERE_GAMES: usize = 32;

/// An S entry: a game reaching a rare position whose key starts with `prefix`.
///
/// `pred` is set when the position the game played just before this one is kept only
/// through this entry (an *implicit* position, see [`build`]): a query for that position
/// looks for the entries of its successors with `pred` set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SEntry {
    pub prefix: u32,
    pub game: u32,
    pub pred: bool,
}

/// Orders games for "top games": higher mean rating first, then newer, then lower id.
pub fn top_order(a: (u32, &GameFacts), b: (u32, &GameFacts)) -> std::cmp::Ordering {
    top_rank_order((a.0, a.1.rank()), (b.0, b.1.rank()))
}

/// [`top_order`] of games by their ranks.
fn top_rank_order(a: (u32, Rank), b: (u32, Rank)) -> std::cmp::Ordering {
    b.1.mean_rating
        .cmp(&a.1.mean_rating)
        .then(b.1.date.cmp(&a.1.date))
        .then(a.0.cmp(&b.0))
}

/// Builds a T record from the occurrences of one position (any order, one per game).
pub fn make_record(key: u128, occs: &[Occ], facts: &dyn Fn(u32) -> GameFacts) -> TRecord {
    let mut moves: Vec<MoveEntry> = Vec::new();
    let mut postings: Vec<Posting> = Vec::with_capacity(occs.len());
    // Each game's facts are read once, for the statistics and for ranking the best games.
    let mut ranked: Vec<(Posting, Rank)> = Vec::with_capacity(if occs.len() > TOP_GAMES {
        occs.len()
    } else {
        0
    });
    // Gathered in a loop of their own: the reads (scattered over the facts of a whole
    // segment) then overlap instead of waiting one by one behind the statistics.
    let gathered: Vec<GameFacts> = occs.iter().map(|o| facts(o.game)).collect();
    for (o, f) in occs.iter().zip(gathered) {
        let slot = match moves.iter().position(|m| m.code == o.code) {
            Some(s) => s,
            None => {
                moves.push(MoveEntry {
                    code: o.code,
                    stats: Stats::default(),
                });
                moves.len() - 1
            }
        };
        moves[slot].stats.add_game(&f, o.mover);
        let p = Posting {
            game: o.game,
            slot: slot as u8,
        };
        postings.push(p);
        if occs.len() > TOP_GAMES {
            ranked.push((p, f.rank()));
        }
    }
    postings.sort_unstable();
    let (top, recent) = if postings.len() > TOP_GAMES {
        (best_of(&mut ranked), Some(newest_of(&mut ranked)))
    } else {
        (Vec::new(), None)
    };
    TRecord {
        key,
        singles: Some(singles_of(&moves, &postings)),
        moves,
        top,
        recent,
        whole: Vec::new(),
        elsewhere: None,
        n_postings: postings.len() as u64,
        postings: Some(postings),
    }
}

/// The game of each move that one game played, from a record's postings.
pub(crate) fn singles_of(moves: &[MoveEntry], postings: &[Posting]) -> Vec<(u8, u32)> {
    let single = |slot: u8| {
        moves
            .get(slot as usize)
            .is_some_and(|m| m.stats.games() == 1)
    };
    let mut out: Vec<(u8, u32)> = postings
        .iter()
        .filter(|p| single(p.slot))
        .map(|p| (p.slot, p.game))
        .collect();
    out.sort_unstable();
    out
}

/// Orders games for "newest games": later date first, then lower id (as a game list sorted
/// by date).
pub fn newest_order(a: (u32, &GameFacts), b: (u32, &GameFacts)) -> std::cmp::Ordering {
    newest_rank_order((a.0, a.1.rank()), (b.0, b.1.rank()))
}

/// [`newest_order`] of games by their ranks.
fn newest_rank_order(a: (u32, Rank), b: (u32, Rank)) -> std::cmp::Ordering {
    b.1.date.cmp(&a.1.date).then(a.0.cmp(&b.0))
}

/// The [`RECENT_GAMES`] newest of some games with their ranks.
pub(crate) fn newest_of(ranked: &mut [(Posting, Rank)]) -> Vec<Posting> {
    first_of(ranked, RECENT_GAMES, newest_rank_order)
}

/// The [`TOP_GAMES`] best-ranked of some games with their ranks.
pub(crate) fn best_of(ranked: &mut [(Posting, Rank)]) -> Vec<Posting> {
    first_of(ranked, TOP_GAMES, top_rank_order)
}

/// The first `n` of some games (once each) in an order of games.
fn first_of(
    ranked: &mut [(Posting, Rank)],
    n: usize,
    by: fn((u32, Rank), (u32, Rank)) -> std::cmp::Ordering,
) -> Vec<Posting> {
    let order = |a: &(Posting, Rank), b: &(Posting, Rank)| by((a.0.game, a.1), (b.0.game, b.1));
    // Only the first few matter: set them apart before sorting (room for repeated games).
    let keep = (4 * n).min(ranked.len());
    if ranked.len() > keep {
        ranked.select_nth_unstable_by(keep - 1, order);
    }
    let mut first = ranked[..keep].to_vec();
    first.sort_unstable_by(order);
    first.dedup_by_key(|x| x.0.game);
    first.truncate(n);
    first.into_iter().map(|(p, _)| p).collect()
}

/// Merges records of the same key (from different runs, or promoted S entries).
///
/// `whole`: the parts are the position's complete records in every run merged (and the
/// merged record is complete). A move is then still the whole of where it leads when no
/// part lists it as reached elsewhere ([`TRecord::elsewhere`]: each part plays it whole, or
/// not at all and its run does not go where it leads); the merged list is the parts'
/// lists joined, when every part has one. Otherwise no move keeps a flag or a list.
/// `rank`: a game's [`Rank`], for the merged lists of best and newest games.
pub fn merge_records(
    key: u128,
    parts: Vec<TRecord>,
    rank: &dyn Fn(u32) -> Rank,
    whole: bool,
) -> TRecord {
    let mut moves: Vec<MoveEntry> = Vec::new();
    // Each part: its list of moves reached elsewhere, and its moves' codes with their flags.
    type Said = (Option<Vec<Elsewhere>>, Vec<(u16, bool)>);
    let said: Vec<Said> = parts
        .iter()
        .map(|p| {
            let flags = p.moves.iter().enumerate();
            let flags = flags.map(|(i, m)| (m.code, p.whole.get(i) == Some(&true)));
            (p.elsewhere.clone(), flags.collect())
        })
        .collect();
    let mut postings: Vec<Posting> = Vec::new();
    let mut best: Vec<Posting> = Vec::new();
    let mut newest: Vec<Posting> = Vec::new();
    let (mut best_n, mut newest_n) = (TOP_GAMES, Some(RECENT_GAMES));
    for rec in parts {
        let mut remap = Vec::with_capacity(rec.moves.len());
        for m in rec.moves {
            let slot = match moves.iter().position(|x| x.code == m.code) {
                Some(s) => {
                    moves[s].stats.merge(&m.stats);
                    s
                }
                None => {
                    moves.push(m);
                    moves.len() - 1
                }
            };
            remap.push(slot as u8);
        }
        let own = rec.postings.expect("postings loaded before merging");
        let moved = |p: &Posting| Posting {
            game: p.game,
            slot: remap[p.slot as usize],
        };
        if rec.top.is_empty() {
            best.extend(own.iter().map(moved));
            newest.extend(own.iter().map(moved));
        } else {
            best_n = best_n.min(rec.top.len());
            best.extend(rec.top.iter().map(moved));
            match &rec.recent {
                Some(r) => {
                    newest_n = newest_n.map(|n| n.min(r.len()));
                    newest.extend(r.iter().map(moved));
                }
                None => newest_n = None,
            }
        }
        postings.extend(own.iter().map(moved));
    }
    postings.sort_unstable();
    postings.dedup_by_key(|p| p.game);
    let (top, recent) = if postings.len() > TOP_GAMES {
        let with_ranks = |v: Vec<Posting>| -> Vec<(Posting, Rank)> {
            v.into_iter().map(|p| (p, rank(p.game))).collect()
        };
        let mut top = best_of(&mut with_ranks(best));
        top.truncate(best_n);
        let recent = newest_n.map(|n| {
            let mut r = newest_of(&mut with_ranks(newest));
            r.truncate(n);
            r
        });
        (top, recent)
    } else {
        (Vec::new(), None)
    };
    // A part plays the move whole, or does not play it and says its run does not go where
    // it leads (a part with a list lists each move it plays that is not whole).
    let whole_of = |code: u16| {
        said.iter().all(
            |(elsewhere, flags)| match flags.iter().find(|f| f.0 == code) {
                Some(&(_, w)) => w,
                None => elsewhere
                    .as_ref()
                    .is_some_and(|e| e.iter().all(|e| e.code != code)),
            },
        )
    };
    let (whole, elsewhere) = if whole {
        let w: Vec<bool> = moves.iter().map(|m| whole_of(m.code)).collect();
        let lists = said.into_iter().map(|p| p.0).collect::<Option<Vec<_>>>();
        (
            if w.contains(&true) { w } else { Vec::new() },
            lists.map(join_elsewhere),
        )
    } else {
        (Vec::new(), None)
    };
    TRecord {
        key,
        singles: Some(singles_of(&moves, &postings)),
        moves,
        top,
        recent,
        whole,
        elsewhere,
        n_postings: postings.len() as u64,
        postings: Some(postings),
    }
}

/// The lists of moves reached elsewhere of a position's records in runs merged into one:
/// each move's games joined ([`Elsewhere::games`] `None` when any part's is, or when more
/// than [`ELSEWHERE_GAMES`]).
fn join_elsewhere(lists: Vec<Vec<Elsewhere>>) -> Vec<Elsewhere> {
    let mut joined: Vec<Elsewhere> = Vec::new();
    for e in lists.into_iter().flatten() {
        match joined.iter_mut().find(|j| j.code == e.code) {
            Some(j) => {
                j.games = match (j.games.take(), e.games) {
                    (Some(mut a), Some(b)) => {
                        a.extend(b);
                        a.sort_unstable();
                        a.dedup();
                        (a.len() <= ELSEWHERE_GAMES).then_some(a)
                    }
                    _ => None,
                }
            }
            None => joined.push(e),
        }
    }
    joined.sort_unstable_by_key(|e| e.code);
    joined
}

fn encode_postings(postings: &[Posting], out: &mut Vec<u8>) {
    let mut last = 0u32;
    for p in postings {
        put_varint(out, (p.game - last) as u64);
        out.push(p.slot);
        last = p.game;
    }
}

fn decode_postings(r: &mut Reader<'_>, n: u64) -> Result<Vec<Posting>, DecodeError> {
    let mut v = Vec::with_capacity(n.min(1 << 20) as usize);
    let mut last = 0u32;
    for _ in 0..n {
        let d = r.varint_u32("posting")?;
        last = last.checked_add(d).ok_or(DecodeError {
            what: "posting",
            offset: r.pos(),
            cause: None,
        })?;
        let slot = r.u8("posting slot")?;
        v.push(Posting { game: last, slot });
    }
    Ok(v)
}

/// Set in a record's move count when a byte of [`SINGLES`] and [`NEWEST`] follows it
/// (records written before those were kept have neither).
const EXTENDED: u64 = 0x400;
/// Each move played by one game carries that game (a varint, 0 when not known).
const SINGLES: u8 = 1;
/// A list of the newest games follows the best games.
const NEWEST: u8 = 2;
/// A bit set of [`TRecord::whole`] follows the moves (a byte for each 8 moves).
const WHOLE: u8 = 4;
/// [`TRecord::elsewhere`] known and empty (written first as "closed": every move played
/// whole, and no game going where another move leads).
const CLOSED: u8 = 8;
/// [`TRecord::elsewhere`] known and not empty: it follows the [`WHOLE`] bits (a count byte;
/// each move's code, a byte of its games' count, 255 when not listed, and its games as
/// varint differences).
const ELSEWHERE: u8 = 16;
/// [`Elsewhere::games`] not listed.
const MANY: u8 = 255;

/// Encodes a T record; long postings lists are returned separately for the postings table.
pub fn encode_record(rec: &TRecord, out: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::with_capacity(64);
    body.extend_from_slice(&rec.key.to_be_bytes());
    let flags = if rec.singles.is_some() { SINGLES } else { 0 }
        | if rec.recent.is_some() { NEWEST } else { 0 }
        | if rec.whole.contains(&true) { WHOLE } else { 0 }
        | match rec.elsewhere.as_deref() {
            Some([]) => CLOSED,
            Some(_) => ELSEWHERE,
            None => 0,
        };
    if flags == 0 {
        put_varint(&mut body, rec.moves.len() as u64);
    } else {
        put_varint(&mut body, rec.moves.len() as u64 | EXTENDED);
        body.push(flags);
    }
    for (slot, m) in rec.moves.iter().enumerate() {
        body.extend_from_slice(&m.code.to_le_bytes());
        m.stats.encode(&mut body);
        if let Some(singles) = &rec.singles
            && m.stats.games() == 1
        {
            let game = singles
                .iter()
                .find(|s| s.0 as usize == slot)
                .map_or(0, |s| s.1);
            put_varint(&mut body, game as u64);
        }
    }
    if flags & WHOLE != 0 {
        for eight in 0..rec.moves.len().div_ceil(8) {
            let mut byte = 0u8;
            for bit in 0..8 {
                if rec.whole.get(eight * 8 + bit) == Some(&true) {
                    byte |= 1 << bit;
                }
            }
            body.push(byte);
        }
    }
    if flags & ELSEWHERE != 0 {
        let moves = rec.elsewhere.as_deref().unwrap_or(&[]);
        // At most 218 legal moves in a chess position.
        body.push(moves.len() as u8);
        for e in moves {
            body.extend_from_slice(&e.code.to_le_bytes());
            match &e.games {
                Some(games) => {
                    body.push(games.len() as u8);
                    let mut last = 0u32;
                    for &g in games {
                        put_varint(&mut body, (g - last) as u64);
                        last = g;
                    }
                }
                None => body.push(MANY),
            }
        }
    }
    put_varint(&mut body, rec.top.len() as u64);
    for p in &rec.top {
        put_varint(&mut body, p.game as u64);
        body.push(p.slot);
    }
    if let Some(recent) = &rec.recent {
        put_varint(&mut body, recent.len() as u64);
        for p in recent {
            put_varint(&mut body, p.game as u64);
            body.push(p.slot);
        }
    }
    put_varint(&mut body, rec.n_postings);
    let postings = rec.postings.as_deref().unwrap_or(&[]);
    let external = if rec.n_postings as usize <= INLINE_POSTINGS {
        encode_postings(postings, &mut body);
        None
    } else {
        let mut ext = Vec::with_capacity(postings.len() * 2);
        encode_postings(postings, &mut ext);
        Some(ext)
    };
    put_varint(out, body.len() as u64);
    out.extend_from_slice(&body);
    external
}

/// Decodes a T record body (after its length). Long postings are left unloaded.
pub fn decode_record(body: &[u8]) -> Result<TRecord, DecodeError> {
    let mut r = Reader::new(body);
    let key = u128::from_be_bytes(r.array::<16>("record key")?);
    let mut n = r.varint("move count")?;
    let flags = if n & EXTENDED != 0 {
        n &= !EXTENDED;
        r.u8("record flags")?
    } else {
        0
    };
    if n > 256 || flags & !(SINGLES | NEWEST | WHOLE | CLOSED | ELSEWHERE) != 0 {
        return Err(DecodeError {
            what: "move count",
            offset: r.pos(),
            cause: None,
        });
    }
    let mut moves = Vec::with_capacity(n as usize);
    let mut singles = (flags & SINGLES != 0).then(Vec::new);
    for slot in 0..n {
        let code = u16::from_le_bytes(r.array::<2>("move code")?);
        let stats = Stats::decode(&mut r)?;
        if let Some(singles) = &mut singles
            && stats.games() == 1
        {
            let game = r.varint_u32("single game")?;
            if game != 0 {
                singles.push((slot as u8, game));
            }
        }
        moves.push(MoveEntry { code, stats });
    }
    let mut whole = Vec::new();
    if flags & WHOLE != 0 {
        let bits = r.bytes(moves.len().div_ceil(8), "whole moves")?;
        whole = (0..moves.len())
            .map(|i| bits[i / 8] >> (i % 8) & 1 == 1)
            .collect();
    }
    let elsewhere = if flags & ELSEWHERE != 0 {
        Some(decode_elsewhere(&mut r)?)
    } else {
        (flags & CLOSED != 0).then(Vec::new)
    };
    let top = decode_games(&mut r, TOP_GAMES, "top")?;
    let recent = if flags & NEWEST != 0 {
        Some(decode_games(&mut r, RECENT_GAMES, "newest")?)
    } else {
        None
    };
    let n_postings = r.varint("postings count")?;
    let postings = if n_postings as usize <= INLINE_POSTINGS {
        Some(decode_postings(&mut r, n_postings)?)
    } else {
        None
    };
    Ok(TRecord {
        key,
        moves,
        top,
        recent,
        singles,
        whole,
        elsewhere,
        n_postings,
        postings,
    })
}

/// A record's [`TRecord::elsewhere`] (after its flag).
fn decode_elsewhere(r: &mut Reader<'_>) -> Result<Vec<Elsewhere>, DecodeError> {
    const WHAT: &str = "moves reached elsewhere";
    let n = r.u8(WHAT)?;
    let mut moves = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let code = u16::from_le_bytes(r.array::<2>(WHAT)?);
        let count = r.u8(WHAT)?;
        let games = if count == MANY {
            None
        } else if count as usize > ELSEWHERE_GAMES {
            return Err(DecodeError {
                what: WHAT,
                offset: r.pos(),
                cause: None,
            });
        } else {
            let mut games = Vec::with_capacity(count as usize);
            let mut last = 0u32;
            for _ in 0..count {
                last = last.checked_add(r.varint_u32(WHAT)?).ok_or(DecodeError {
                    what: WHAT,
                    offset: r.pos(),
                    cause: None,
                })?;
                games.push(last);
            }
            Some(games)
        };
        moves.push(Elsewhere { code, games });
    }
    Ok(moves)
}

/// A record's list of at most `most` games (its best or its newest).
fn decode_games(
    r: &mut Reader<'_>,
    most: usize,
    what: &'static str,
) -> Result<Vec<Posting>, DecodeError> {
    let n = r.varint(what)?;
    if n > most as u64 {
        return Err(DecodeError {
            what,
            offset: r.pos(),
            cause: None,
        });
    }
    let mut games = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let game = r.varint_u32(what)?;
        let slot = r.u8(what)?;
        games.push(Posting { game, slot });
    }
    Ok(games)
}

pub fn decode_external_postings(data: &[u8], n: u64) -> Result<Vec<Posting>, DecodeError> {
    decode_postings(&mut Reader::new(data), n)
}

/// Decodes a T block into its records (long postings unloaded).
pub fn decode_t_block(block: &[u8]) -> Result<Vec<TRecord>, DecodeError> {
    let mut r = Reader::new(block);
    let n = r.varint("block count")?;
    let mut v = Vec::with_capacity(n.min(4096) as usize);
    for _ in 0..n {
        let len = r.varint("record length")? as usize;
        v.push(decode_record(r.bytes(len, "record")?)?);
    }
    Ok(v)
}

/// Finds one record in a T block without decoding the others.
pub fn find_in_t_block(block: &[u8], key: u128) -> Result<Option<TRecord>, DecodeError> {
    let mut r = Reader::new(block);
    let n = r.varint("block count")?;
    for _ in 0..n {
        let len = r.varint("record length")? as usize;
        let body = r.bytes(len, "record")?;
        if body.len() < 16 {
            return Err(DecodeError {
                what: "record",
                offset: r.pos(),
                cause: None,
            });
        }
        let k = u128::from_be_bytes(body[..16].try_into().expect("16 bytes"));
        if k == key {
            return decode_record(body).map(Some);
        }
        if k > key {
            break;
        }
    }
    Ok(None)
}
