//! Per-game facts (result, ratings, date, Othello values) and duplicate digests in
//! fixed-size slots, [`PER_ROW`] games a row (a row fits one 4 KiB page), so queries can rank
//! and count games without decoding them and imports can load every digest quickly.

use tabiya_store::{ReadTx, TableRef, WriteTx};

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::Result;
use crate::keymap::KeyHasher;
use crate::row_cache::RowCache;
use crate::stats::{GameFacts, Rank};

pub const FACTS: &str = "facts";
/// Games per row.
pub const PER_ROW: u32 = 128;
const FACTS_LEN: usize = GameFacts::ENCODED_LEN;
/// Slot: facts, then the 128-bit duplicate digest (0 = none).
const SLOT: usize = FACTS_LEN + 16;

fn row_key(game: u32) -> [u8; 4] {
    (game / PER_ROW).to_be_bytes()
}

/// Writes the facts and digests of consecutive games starting at `first`.
pub fn write_facts(w: &WriteTx, first: u32, facts: &[GameFacts], digests: &[u128]) -> Result<()> {
    w.with_table(FACTS, |t| {
        let mut i = 0usize;
        while i < facts.len() {
            let game = first + i as u32;
            let key = row_key(game);
            let mut row = t.get(&key)?.unwrap_or_default();
            let in_row = (PER_ROW - game % PER_ROW) as usize;
            let n = in_row.min(facts.len() - i);
            let start = (game % PER_ROW) as usize * SLOT;
            let end = start + n * SLOT;
            if row.len() < end {
                row.resize(end, 0);
            }
            let mut buf = Vec::with_capacity(n * SLOT);
            for (j, f) in facts.iter().enumerate().skip(i).take(n) {
                f.encode(&mut buf);
                buf.extend_from_slice(&digests.get(j).copied().unwrap_or(0).to_le_bytes());
            }
            row[start..end].copy_from_slice(&buf);
            t.put(&key, &row)?;
            i += n;
        }
        Ok(())
    })?;
    Ok(())
}

/// Sets the time-control class of games in their facts (the facts' last byte).
pub fn set_speeds(w: &WriteTx, speeds: &[(u32, Option<crate::Speed>)]) -> Result<()> {
    w.with_table(FACTS, |t| {
        for group in speeds.chunk_by(|a, b| a.0 / PER_ROW == b.0 / PER_ROW) {
            let key = row_key(group[0].0);
            let Some(mut row) = t.get(&key)? else {
                continue;
            };
            for &(game, speed) in group {
                let at = (game % PER_ROW) as usize * SLOT + FACTS_LEN - 1;
                if let Some(b) = row.get_mut(at) {
                    *b = crate::Speed::to_byte(speed);
                }
            }
            t.put(&key, &row)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Every stored duplicate digest with its game.
pub fn load_digests(read: &ReadTx) -> Result<crate::keymap::KeyMap<u32>> {
    let t = read.table(FACTS)?;
    let mut map = crate::keymap::KeyMap::default();
    t.scan(&[], None, |k, row| {
        let Ok(k) = <[u8; 4]>::try_from(k) else {
            return true;
        };
        let base = u32::from_be_bytes(k) * PER_ROW;
        for (i, slot) in row.chunks_exact(SLOT).enumerate() {
            let d = u128::from_le_bytes(slot[FACTS_LEN..].try_into().expect("16 bytes"));
            if d != 0 {
                map.insert(d, base + i as u32);
            }
        }
        true
    })?;
    Ok(map)
}

/// Reads facts with a row cache.
pub struct FactsReader {
    table: TableRef,
    cache: RowCache,
}

/// Rows kept before the cache starts over (16,384 rows: 2 million games, 58 MB).
const ROWS_CACHED: usize = 16_384;

/// Rows kept by a reader of games in id order ([`FactsReader::in_order`]).
pub(crate) const IN_ORDER_ROWS: usize = 4;

impl FactsReader {
    pub fn new(read: &ReadTx) -> Result<FactsReader> {
        Ok(FactsReader {
            table: read.table(FACTS)?,
            cache: RowCache::new(ROWS_CACHED),
        })
    }

    /// A reader for games asked in increasing id order (a replay of candidates): it keeps
    /// the last rows only, so that a pass over millions of games reuses a few buffers still
    /// in the processor's cache instead of copying each row into fresh memory (at ten
    /// million games, the page faults and copies of [`FactsReader::new`]'s rows were a
    /// twentieth of a pattern search's time).
    pub fn in_order(read: &ReadTx) -> Result<FactsReader> {
        Ok(FactsReader {
            table: read.table(FACTS)?,
            cache: RowCache::new(IN_ORDER_ROWS),
        })
    }

    pub fn get(&self, game: u32) -> Result<GameFacts> {
        let start = (game % PER_ROW) as usize * SLOT;
        self.cache.with(
            game / PER_ROW,
            || Ok(self.table.get(&row_key(game))?),
            |data| match data.get(start..start + FACTS_LEN) {
                Some(b) => GameFacts::decode(b.try_into().expect("slot size")),
                None => GameFacts::default(),
            },
        )
    }
}

/// Games' [`Rank`]s for a merge, each row of the facts table read once and kept, as 8
/// bytes a game.
///
/// A merge ranks the best and newest games of every record it writes, from the parts'
/// lists: hundreds of games a record, spread over the whole collection. Through
/// [`FactsReader`] (whose cache starts over at two million games) most of them were a
/// B-tree lookup of the facts table: at ten million games, 86 % of the time of writing the
/// merged records. Kept whole here, a row is read once: at most 8 bytes a game of the
/// database (80 MB at ten million).
pub struct Ranks {
    table: TableRef,
    rows: std::cell::RefCell<HashMap<u32, Box<[Rank]>, BuildHasherDefault<KeyHasher>>>,
}

impl Ranks {
    pub fn new(read: &ReadTx) -> Result<Ranks> {
        Ok(Ranks {
            table: read.table(FACTS)?,
            rows: Default::default(),
        })
    }

    /// The game's rank (the default when the table holds no facts of it).
    pub fn get(&self, game: u32) -> Result<Rank> {
        let row = game / PER_ROW;
        let at = (game % PER_ROW) as usize;
        let mut rows = self.rows.borrow_mut();
        if let Some(ranks) = rows.get(&row) {
            return Ok(ranks.get(at).copied().unwrap_or_default());
        }
        let data = self.table.get(&row_key(game))?.unwrap_or_default();
        let ranks: Box<[Rank]> = data
            .chunks_exact(SLOT)
            .map(|slot| GameFacts::decode(slot[..FACTS_LEN].try_into().expect("slot size")).rank())
            .collect();
        let answer = ranks.get(at).copied().unwrap_or_default();
        rows.insert(row, ranks);
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::GameOutcome;

    /// Ranks read through [`Ranks`] are the facts' own, row after row and across rows,
    /// and a game the table holds nothing of ranks as unknown, as through [`FactsReader`].
    #[test]
    fn ranks_are_the_facts_ranks_each_row_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = tabiya_store::Store::open(dir.path()).unwrap();
        // Games 100..400 (three rows, the first and last partly filled): ratings known for
        // some, dates of several years.
        let facts: Vec<GameFacts> = (0..300u32)
            .map(|i| GameFacts {
                outcome: Some(GameOutcome::Draw),
                ratings: if i % 3 == 0 {
                    [Some(2000 + i as u16), None]
                } else {
                    [Some(1500 + i as u16), Some(2500 - i as u16)]
                },
                year: Some(1990 + (i % 30) as u16),
                date: (1990 + i % 30) * 10000 + 101 + i % 28,
                ..GameFacts::default()
            })
            .collect();
        let w = store.write().unwrap();
        write_facts(&w, 100, &facts, &[]).unwrap();
        w.commit().unwrap();
        let read = store.read().unwrap();
        let (ranks, reader) = (Ranks::new(&read).unwrap(), FactsReader::new(&read).unwrap());
        for game in (0..500u32).rev().chain(0..500) {
            let want = match game.checked_sub(100).and_then(|i| facts.get(i as usize)) {
                Some(f) => Rank {
                    mean_rating: f.ratings[1].map(|b| (f.ratings[0].unwrap() + b) / 2),
                    date: f.date,
                },
                None => Rank::default(),
            };
            assert_eq!(ranks.get(game).unwrap(), want, "game {game}");
            assert_eq!(reader.get(game).unwrap().rank(), want, "game {game}");
        }
        assert_eq!(ranks.rows.borrow().len(), 4, "rows 0-3 each read once");
    }
}
