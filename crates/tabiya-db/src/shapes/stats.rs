//! Statistics kept for popular shapes: for each exact material and pawn structure reached by
//! many games, what an exact structure search answers, summed once — as a T record keeps a
//! popular position's — so that the search reads one record instead of replaying those
//! games (see `docs/database.md`, *Structure search*).
//!
//! A record counts each game's first stand of the shape ([`super::stands`]): the games and
//! their results, the moves played there (each named by the first game that played it), the
//! pawn structures that follow (for a pawn structure), and the first games by rating, by date
//! and by id (each with its first ply), which are the first pages of the game list. It counts
//! the games with ids below the table's *through* (`meta`'s `shape_stats`); games imported
//! later are replayed by the search until an import finds enough of them to count again
//! (`super::tally`). A deletion or an edit patches every record that counted the game.
//!
//! | table `shape_stats` key | value |
//! |---|---|
//! | the shape (16 bytes, BE) | totals; moves (code, first game, UCI, SAN, statistics); next structures (shape, statistics); three lists of (game, ply) |

use tabiya_store::{ReadTx, WriteTx};

use super::stands::Shape;
use crate::codec::{Reader, put_str, put_varint};
use crate::schema::{META, meta_get};
use crate::stats::Stats;
use crate::{Error, Result};

/// The table of records.
pub const SHAPE_STATS: &str = "shape_stats";
/// The meta key of the games the records count (ids below it) and the games a shape needs
/// to have a record.
const THROUGH: &str = "shape_stats";

/// Games each of a record's lists holds at most.
pub const LIST_LEN: usize = 64;

/// The orders of a record's lists: those of a search's game list (`GameSort`'s rating,
/// date and id), each then by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOrder {
    /// Mean rating, highest first (unrated last), then newest.
    Rating,
    /// Newest first.
    Date,
    Id,
}

/// The lists a record keeps, in its order.
pub const LIST_ORDERS: [ListOrder; 3] = [ListOrder::Rating, ListOrder::Date, ListOrder::Id];

/// The order of two games (facts, id) in a list of `order`.
pub fn ranked(
    order: ListOrder,
    a: (&crate::stats::GameFacts, u32),
    b: (&crate::stats::GameFacts, u32),
) -> std::cmp::Ordering {
    let by = match order {
        ListOrder::Rating => crate::index::top_order((0, a.0), (0, b.0)),
        ListOrder::Date => b.0.date.cmp(&a.0.date),
        ListOrder::Id => std::cmp::Ordering::Equal,
    };
    by.then(a.1.cmp(&b.1))
}

/// A move played from a shape's first stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMove {
    /// Its code ([`crate::NO_MOVE`]: the games that ended there).
    pub code: u16,
    /// The first game (lowest id) that played it, which names it.
    pub first: u32,
    pub uci: String,
    pub san: String,
    pub stats: Stats,
}

/// What the games counted hold for one shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShapeRecord {
    /// Their results (and ratings), each game counted from White's side.
    pub totals: Stats,
    /// The moves played from their first stands, each from the mover's side.
    pub moves: Vec<RecordMove>,
    /// For a pawn structure: the structures that follow it.
    pub next: Vec<(Shape, Stats)>,
    /// The first games (id, first ply) in each of [`LIST_ORDERS`]: the first [`LIST_LEN`]
    /// when built; a change may shorten a list (the games left are still the first).
    pub lists: [Vec<(u32, u32)>; 3],
}

/// What the table counts: games with ids below `through`; shapes reached by at least
/// `threshold` of them have a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coverage {
    pub through: u32,
    pub threshold: u32,
}

/// A record's first byte: its encoding follows as it is.
const PLAIN: u8 = 0;
/// A record's first byte: its encoding follows compressed (zstd).
const PACKED: u8 = 1;
/// Records longer than this are compressed (their move names and statistics repeat).
const PACK_FROM: usize = 256;

impl ShapeRecord {
    /// The record as stored: [`PLAIN`] or [`PACKED`], then its encoding.
    pub fn to_stored(&self) -> Vec<u8> {
        let raw = self.encode();
        if raw.len() > PACK_FROM
            && let Ok(packed) = zstd::bulk::compress(&raw, 3)
            && packed.len() < raw.len()
        {
            let mut out = Vec::with_capacity(packed.len() + 1);
            out.push(PACKED);
            out.extend_from_slice(&packed);
            return out;
        }
        let mut out = Vec::with_capacity(raw.len() + 1);
        out.push(PLAIN);
        out.extend_from_slice(&raw);
        out
    }

    /// A record as stored ([`ShapeRecord::to_stored`]).
    pub fn from_stored(data: &[u8]) -> std::result::Result<ShapeRecord, crate::codec::DecodeError> {
        let mut r = Reader::new(data);
        match r.u8("shape record's form")? {
            PLAIN => ShapeRecord::decode(r.remaining()),
            PACKED => {
                // A record is far smaller than this (its lists are bounded, its moves and
                // structures a few thousand at most).
                let raw = zstd::bulk::decompress(r.remaining(), 16 << 20)
                    .map_err(|_| r.bad("shape record's compression"))?;
                ShapeRecord::decode(&raw)
            }
            _ => Err(r.bad("shape record's form")),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.totals.encode(&mut out);
        put_varint(&mut out, self.moves.len() as u64);
        for m in &self.moves {
            put_varint(&mut out, u64::from(m.code));
            put_varint(&mut out, u64::from(m.first));
            put_str(&mut out, &m.uci);
            put_str(&mut out, &m.san);
            m.stats.encode(&mut out);
        }
        put_varint(&mut out, self.next.len() as u64);
        for (shape, stats) in &self.next {
            out.extend_from_slice(&shape.to_be_bytes());
            stats.encode(&mut out);
        }
        for list in &self.lists {
            put_varint(&mut out, list.len() as u64);
            for &(id, ply) in list {
                put_varint(&mut out, u64::from(id));
                put_varint(&mut out, u64::from(ply));
            }
        }
        out
    }

    pub fn decode(data: &[u8]) -> std::result::Result<ShapeRecord, crate::codec::DecodeError> {
        let mut r = Reader::new(data);
        let totals = Stats::decode(&mut r)?;
        let n = r.varint("shape moves")? as usize;
        let mut moves = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            let code = r.varint("shape move")?;
            let code = u16::try_from(code).map_err(|_| r.bad("shape move"))?;
            moves.push(RecordMove {
                code,
                first: r.varint_u32("shape move's game")?,
                uci: r.str("shape move's UCI")?.to_string(),
                san: r.str("shape move's SAN")?.to_string(),
                stats: Stats::decode(&mut r)?,
            });
        }
        let n = r.varint("next structures")? as usize;
        let mut next = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            let shape = u128::from_be_bytes(r.array("next structure")?);
            next.push((shape, Stats::decode(&mut r)?));
        }
        let mut lists: [Vec<(u32, u32)>; 3] = Default::default();
        for list in &mut lists {
            let n = r.varint("shape list")? as usize;
            if n > LIST_LEN * 2 {
                return Err(r.bad("shape list"));
            }
            for _ in 0..n {
                let id = r.varint_u32("shape list's game")?;
                list.push((id, r.varint_u32("shape list's ply")?));
            }
        }
        if !r.is_empty() {
            return Err(r.bad("shape record's end"));
        }
        Ok(ShapeRecord {
            totals,
            moves,
            next,
            lists,
        })
    }

    /// The list of `order`, if the record keeps one.
    pub fn list(&self, order: ListOrder) -> &Vec<(u32, u32)> {
        let i = LIST_ORDERS.iter().position(|o| *o == order).unwrap_or(0);
        &self.lists[i]
    }
}

/// What the table counts, if the database keeps shape statistics.
pub fn coverage(read: &ReadTx) -> Result<Option<Coverage>> {
    let Some(v) = meta_get(read, THROUGH)? else {
        return Ok(None);
    };
    let bad = || Error::Corrupt(format!("meta {THROUGH}: {v:?} is not two numbers"));
    let (through, threshold) = v.split_once(' ').ok_or_else(bad)?;
    Ok(Some(Coverage {
        through: through.parse().map_err(|_| bad())?,
        threshold: threshold.parse().map_err(|_| bad())?,
    }))
}

/// Writes what the table counts (in `w`, with the records).
pub(crate) fn set_coverage(w: &WriteTx, c: Coverage) -> Result<()> {
    let v = format!("{} {}", c.through, c.threshold);
    w.with_table(META, |t| t.put(THROUGH.as_bytes(), v.as_bytes()))?;
    Ok(())
}

/// The record of `shape`, if it has one.
pub fn read_record(read: &ReadTx, shape: Shape) -> Result<Option<ShapeRecord>> {
    let Some(data) = read.table(SHAPE_STATS)?.get(&shape.to_be_bytes())? else {
        return Ok(None);
    };
    ShapeRecord::from_stored(&data)
        .map(Some)
        .map_err(|e| Error::Corrupt(format!("the shape statistics of {shape:#x}: {e}")))
}

/// Every record, in key order (what `tabiya check` reads).
pub fn each_record(
    read: &ReadTx,
    mut f: impl FnMut(Shape, std::result::Result<ShapeRecord, crate::codec::DecodeError>),
) -> Result<()> {
    read.table(SHAPE_STATS)?.scan(&[], None, |k, v| {
        if let Ok(k) = <[u8; 16]>::try_from(k) {
            f(u128::from_be_bytes(k), ShapeRecord::from_stored(v));
        }
        true
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips() {
        let s = Stats {
            first: 3,
            draws: 1,
            rating_games: 2,
            rating_sum: 9000,
            ..Stats::default()
        };
        let rec = ShapeRecord {
            totals: s,
            moves: vec![RecordMove {
                code: 12 | 28 << 6,
                first: 7,
                uci: "e2e4".into(),
                san: "e4".into(),
                stats: s,
            }],
            next: vec![(u128::MAX >> 1, s)],
            lists: [vec![(7, 0), (9, 2)], vec![], vec![(1, 5)]],
        };
        assert_eq!(ShapeRecord::decode(&rec.encode()).unwrap(), rec);
        assert_eq!(ShapeRecord::from_stored(&rec.to_stored()).unwrap(), rec);
        let mut long = rec.clone();
        long.moves = (0..200u16)
            .map(|c| RecordMove {
                code: c,
                ..rec.moves[0].clone()
            })
            .collect();
        let stored = long.to_stored();
        assert_eq!(stored[0], PACKED);
        assert_eq!(ShapeRecord::from_stored(&stored).unwrap(), long);
        let mut cut = rec.encode();
        cut.pop();
        assert!(ShapeRecord::decode(&cut).is_err());
    }
}
