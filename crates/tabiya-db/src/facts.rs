//! Per-game facts (result, ratings, date, Othello values) in fixed-size slots, 1024 games a
//! row, so queries can rank and count games without decoding them.

use std::cell::RefCell;
use std::collections::HashMap;

use tabiya_store::{ReadTx, TableRef, WriteTx};

use crate::stats::GameFacts;
use crate::Result;

pub const FACTS: &str = "facts";
const PER_ROW: u32 = 1024;
const SLOT: usize = GameFacts::ENCODED_LEN;

fn row_key(game: u32) -> [u8; 4] {
    (game / PER_ROW).to_be_bytes()
}

/// Writes the facts of consecutive games starting at `first`.
pub fn write_facts(w: &WriteTx, first: u32, facts: &[GameFacts]) -> Result<()> {
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
            for f in &facts[i..i + n] {
                f.encode(&mut buf);
            }
            row[start..end].copy_from_slice(&buf);
            t.put(&key, &row)?;
            i += n;
        }
        Ok(())
    })?;
    Ok(())
}

/// Reads facts with a small row cache.
pub struct FactsReader {
    table: TableRef,
    cache: RefCell<HashMap<u32, Vec<u8>>>,
}

impl FactsReader {
    pub fn new(read: &ReadTx) -> Result<FactsReader> {
        Ok(FactsReader { table: read.table(FACTS)?, cache: RefCell::new(HashMap::new()) })
    }

    pub fn get(&self, game: u32) -> Result<GameFacts> {
        let row = game / PER_ROW;
        let mut cache = self.cache.borrow_mut();
        if !cache.contains_key(&row) {
            if cache.len() > 4096 {
                cache.clear();
            }
            let data = self.table.get(&row_key(game))?.unwrap_or_default();
            cache.insert(row, data);
        }
        let data = &cache[&row];
        let start = (game % PER_ROW) as usize * SLOT;
        match data.get(start..start + SLOT) {
            Some(b) => Ok(GameFacts::decode(b.try_into().expect("slot size"))),
            None => Ok(GameFacts::default()),
        }
    }
}
