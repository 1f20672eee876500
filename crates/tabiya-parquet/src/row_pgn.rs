//! One row as the PGN text of one game, for the PGN import to read: the Seven Tag Roster,
//! the other columns' tags in Lichess's order, the other tags' column in its own order (or
//! where it says the columns' tags stood), then the movetext as it is.
//!
//! A null is a tag the game does not have. A `Date` in the tags column is the game's `Date`,
//! written in the roster's place and preferred to the `Date` column (Tabiya writes there a
//! date that is no whole day, `1990.??.??`, the column null). A file without a `Date` column
//! (Lichess's) gives a game without a `Date` tag its `UTCDate` as `Date`, as Lichess's PGN
//! does (both are the day the game began, in UTC).

use arrow_array::RecordBatch;

use crate::cells::{Cells, Pairs};
use crate::columns::{COLUMNS, Holds, MOVETEXT, TAG_ORDER, TAGS, column_of};
use crate::layout::Layout;

const ROSTER: [&str; 7] = tabiya_pgn::model::SEVEN_TAG_ROSTER;

/// Where the columns a row needs are in [`COLUMNS`], found once.
struct Places {
    roster: [usize; 7],
    order: [usize; TAG_ORDER.len()],
    date: usize,
    utc_date: usize,
    movetext: usize,
    tags: usize,
}

impl Places {
    fn new() -> Places {
        let at = |name: &str| column_of(name).expect("a known column");
        Places {
            roster: ROSTER.map(at),
            order: TAG_ORDER.map(at),
            date: at("Date"),
            utc_date: at("UTCDate"),
            movetext: at(MOVETEXT),
            tags: at(TAGS),
        }
    }
}

/// A batch's columns, ready to be read row by row.
pub struct RowCells<'a> {
    at: Places,
    known: [Option<Cells<'a>>; COLUMNS.len()],
    extra: Vec<(&'a str, Cells<'a>)>,
    pairs: Option<Pairs<'a>>,
    /// Reused buffers: one value, one row's other tags.
    value: String,
    other: Vec<(String, Option<String>)>,
}

impl<'a> RowCells<'a> {
    /// The columns of `batch`, which holds the columns `layout` reads.
    pub fn new(layout: &'a Layout, batch: &'a RecordBatch) -> RowCells<'a> {
        let known = std::array::from_fn(|k| {
            let (_, holds) = COLUMNS[k];
            layout.known[k]
                .filter(|_| holds != Holds::Tags)
                .map(|i| Cells::new(batch.column(i).as_ref(), holds == Holds::Diff))
        });
        let at = Places::new();
        let tags = at.tags;
        RowCells {
            at,
            known,
            extra: layout
                .extra
                .iter()
                .map(|(i, n)| (n.as_str(), Cells::new(batch.column(*i).as_ref(), false)))
                .collect(),
            pairs: layout.known[tags].and_then(|i| Pairs::new(batch.column(i).as_ref())),
            value: String::new(),
            other: Vec::new(),
        }
    }

    /// Appends row `row` as the PGN text of one game.
    pub fn write(&mut self, row: usize, out: &mut String) {
        self.other.clear();
        if let Some(p) = &self.pairs {
            p.read(row, &mut self.other);
        }
        for (i, name) in ROSTER.into_iter().enumerate() {
            let k = self.at.roster[i];
            if k == self.at.date {
                // The exact text the tags column keeps (a partial date) before the column.
                let kept = self
                    .other
                    .iter()
                    .position(|(n, v)| n == "Date" && v.is_some());
                if let Some(j) = kept {
                    let (_, v) = self.other.remove(j);
                    put_tag(name, v.as_deref().unwrap_or_default(), out);
                    continue;
                }
            }
            if self.put(k, row, name, out) {
                continue;
            }
            // No Date column (Lichess's files): the day the game began, when the row has no
            // Date tag of its own.
            if k == self.at.date
                && self.known[k].is_none()
                && !self.other.iter().any(|(n, _)| n == "Date")
            {
                self.put(self.at.utc_date, row, name, out);
            }
        }
        let mut used = [false; COLUMNS.len()];
        let other = std::mem::take(&mut self.other);
        if other.iter().any(|(_, v)| v.is_none()) {
            // Written by Tabiya from a game whose tags were in another order: the names
            // without a value say where each column's tag stood.
            for (name, value) in &other {
                match (value, column_of(name)) {
                    (Some(v), _) => put_tag(name, v, out),
                    (None, Some(k)) if !used[k] && TAG_ORDER.contains(&name.as_str()) => {
                        used[k] = self.put(k, row, name, out);
                    }
                    (None, _) => {}
                }
            }
            self.put_columns(row, &used, out);
        } else {
            self.put_columns(row, &used, out);
            for (name, value) in &other {
                if let Some(v) = value {
                    put_tag(name, v, out);
                }
            }
        }
        self.other = other;
        out.push('\n');
        if let Some(c) = &self.known[self.at.movetext] {
            c.push(row, out);
        }
        out.push('\n');
    }

    /// The columns' tags in Lichess's order (but those already written), then the other
    /// columns read as tags.
    fn put_columns(&mut self, row: usize, used: &[bool; COLUMNS.len()], out: &mut String) {
        for (i, name) in TAG_ORDER.into_iter().enumerate() {
            let k = self.at.order[i];
            if !used[k] {
                self.put(k, row, name, out);
            }
        }
        for (name, cells) in &self.extra {
            self.value.clear();
            if cells.push(row, &mut self.value) {
                put_tag(name, &self.value, out);
            }
        }
    }

    /// Writes the tag `name` from known column `k` when the row has a value there.
    fn put(&mut self, k: usize, row: usize, name: &str, out: &mut String) -> bool {
        let Some(cells) = &self.known[k] else {
            return false;
        };
        self.value.clear();
        if !cells.push(row, &mut self.value) {
            return false;
        }
        put_tag(name, &self.value, out);
        true
    }
}

/// One tag line; a name PGN cannot hold is left out (letters, digits and `_+#=:-`, the
/// characters of a PGN symbol, are kept: PGN export writes such names), a line break in a
/// value becomes a space.
fn put_tag(name: &str, value: &str, out: &mut String) {
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b))
    {
        return;
    }
    if value.contains(['\n', '\r']) {
        tabiya_pgn::write_tag(name, &value.replace(['\n', '\r'], " "), out);
    } else {
        tabiya_pgn::write_tag(name, value, out);
    }
}
