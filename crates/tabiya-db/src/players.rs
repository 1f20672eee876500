//! The players of every chess game by their dictionary ids, 128 games a row (1 KiB), so a
//! query can keep the games of one player (either colour, or one) without decoding them.
//! Written with the games; a database of format 1 gets it when opened (see
//! [`crate::Database::open`]).

use tabiya_store::{ReadTx, TableRef, WriteTx};

use crate::Result;
use crate::row_cache::RowCache;

pub const PLAYERS: &str = "players";
/// Games per row.
const PER_ROW: u32 = 128;
/// White's id + 1, Black's id + 1, u32 little-endian (0: no name).
const SLOT: usize = 8;

fn row_key(game: u32) -> [u8; 4] {
    (game / PER_ROW).to_be_bytes()
}

/// The players of a game: White's and Black's name ids (`None` when the game names none).
pub type Players = [Option<u32>; 2];

fn encode(p: &Players, out: &mut [u8]) {
    for (i, id) in p.iter().enumerate() {
        let v = id.map_or(0, |id| id + 1);
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
}

fn decode(b: &[u8]) -> Players {
    let id = |i: usize| {
        let v = u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        v.checked_sub(1)
    };
    [id(0), id(1)]
}

/// Writes the players of consecutive games starting at `first`.
pub fn write_players(w: &WriteTx, first: u32, players: &[Players]) -> Result<()> {
    w.with_table(PLAYERS, |t| {
        let mut i = 0usize;
        while i < players.len() {
            let game = first + i as u32;
            let key = row_key(game);
            let mut row = t.get(&key)?.unwrap_or_default();
            let n = ((PER_ROW - game % PER_ROW) as usize).min(players.len() - i);
            let start = (game % PER_ROW) as usize * SLOT;
            let end = start + n * SLOT;
            if row.len() < end {
                row.resize(end, 0);
            }
            for (j, p) in players[i..i + n].iter().enumerate() {
                encode(p, &mut row[start + j * SLOT..start + (j + 1) * SLOT]);
            }
            t.put(&key, &row)?;
            i += n;
        }
        Ok(())
    })?;
    Ok(())
}

/// Reads players with a row cache.
pub struct PlayersReader {
    table: TableRef,
    rows: RowCache,
}

/// Rows kept before the cache starts over (16,384 rows: 2 million games, 32 MB).
const ROWS_CACHED: usize = 16_384;

impl PlayersReader {
    pub fn new(read: &ReadTx) -> Result<PlayersReader> {
        Ok(PlayersReader {
            table: read.table(PLAYERS)?,
            rows: RowCache::new(ROWS_CACHED),
        })
    }

    /// A reader for games asked in increasing id order: the last rows only (see
    /// [`crate::facts::FactsReader::in_order`]).
    pub fn in_order(read: &ReadTx) -> Result<PlayersReader> {
        Ok(PlayersReader {
            table: read.table(PLAYERS)?,
            rows: RowCache::new(crate::facts::IN_ORDER_ROWS),
        })
    }

    /// The players of a game (`[None, None]` for a game the table does not hold).
    pub fn get(&self, game: u32) -> Result<Players> {
        let start = (game % PER_ROW) as usize * SLOT;
        self.rows.with(
            game / PER_ROW,
            || Ok(self.table.get(&row_key(game))?),
            |data| data.get(start..start + SLOT).map_or([None, None], decode),
        )
    }
}

/// Every game's players, in id order: `f(game, players)` for each slot the table holds
/// (deleted games have none).
pub fn scan_players(read: &ReadTx, mut f: impl FnMut(u32, Players)) -> Result<()> {
    let table = read.table(PLAYERS)?;
    table.scan(&[], None, |k, v| {
        if let Ok(row) = <[u8; 4]>::try_from(k) {
            let base = u32::from_be_bytes(row) * PER_ROW;
            for (i, slot) in v.chunks_exact(SLOT).enumerate() {
                let p = decode(slot);
                if p != [None, None] {
                    f(base + i as u32, p);
                }
            }
        }
        true
    })?;
    Ok(())
}
