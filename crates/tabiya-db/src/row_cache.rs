//! The rows a reader of a per-game table (`facts`, `players`: one row per 128 game ids) has
//! read, each read once. They are kept in a map by row number, so that a lookup of a few
//! games far apart costs what they need: the vector indexed by row number this replaced
//! grew to the highest id's row (1.2 MB zeroed at ten million games, for each reader of each
//! query). A scan meets each row 128 times in a row, and finds it with one cheap lookup.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::Result;
use crate::keymap::KeyHasher;

pub(crate) struct RowCache {
    rows: RefCell<HashMap<u32, Box<[u8]>, BuildHasherDefault<KeyHasher>>>,
    /// Rows kept before the cache starts over.
    cap: usize,
}

impl RowCache {
    pub fn new(cap: usize) -> RowCache {
        RowCache {
            rows: RefCell::default(),
            cap: cap.max(1),
        }
    }

    /// `f` of row `row`'s bytes (empty when the table holds none), read by `load` the first
    /// time it is asked for.
    pub fn with<R>(
        &self,
        row: u32,
        load: impl FnOnce() -> Result<Option<Vec<u8>>>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let mut rows = self.rows.borrow_mut();
        if let Some(data) = rows.get(&row) {
            return Ok(f(data));
        }
        if rows.len() >= self.cap {
            rows.clear();
        }
        let data = load()?.unwrap_or_default().into_boxed_slice();
        let answer = f(&data);
        rows.insert(row, data);
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_is_read_once_until_the_cache_starts_over() {
        let cache = RowCache::new(2);
        let reads = std::cell::Cell::new(0);
        let row = |n: u32| {
            cache
                .with(
                    n,
                    || {
                        reads.set(reads.get() + 1);
                        Ok((n != 7).then(|| vec![n as u8; 3]))
                    },
                    |d| d.to_vec(),
                )
                .unwrap()
        };
        assert_eq!(row(1_000_000), vec![64; 3]);
        assert_eq!(row(1_000_000), vec![64; 3]);
        assert_eq!(row(7), Vec::<u8>::new(), "a row the table lacks is empty");
        assert_eq!(reads.get(), 2);
        assert_eq!(row(3), vec![3; 3], "past the cap, the cache starts over");
        assert_eq!(row(1_000_000), vec![64; 3]);
        assert_eq!(reads.get(), 4);
    }
}
