//! Which of a file's columns are which: the known columns matched by name in any case and
//! their types checked, the other columns of text or numbers read as tags of their name
//! (but a Hive partition's key), the rest — and `GameId`, Tabiya's ids — left unread. What
//! is wrong is said naming the column.

use arrow_schema::Schema;

use crate::cells::{Family, family};
use crate::columns::{COLUMNS, Holds, MOVETEXT, describe, known};

/// Where a file keeps what a game needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// For each known column (as [`COLUMNS`] lists them): its index among the columns read.
    pub known: [Option<usize>; COLUMNS.len()],
    /// Other columns read as tags: their index among the columns read, and the tag's name.
    pub extra: Vec<(usize, String)>,
    /// The file's top-level columns to read, in the file's order.
    pub read: Vec<usize>,
}

/// The types a known column may have.
fn accepts(holds: Holds, f: Family) -> bool {
    use Family::*;
    f == Null
        || match holds {
            Holds::Text | Holds::Date => matches!(f, Text | Whole | Float | Day | Time),
            Holds::Rating | Holds::Diff => matches!(f, Text | Whole | Float),
            Holds::Day => matches!(f, Text | Day),
            Holds::Time => matches!(f, Text | Time),
            Holds::Movetext => f == Text,
            Holds::Tags => f == Pairs,
            Holds::Id => true,
        }
}

/// A column name that can be a PGN tag's: letters, digits, `_` (and not pandas' index,
/// `__index_level_0__`).
fn tag_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with("__")
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Layout {
    /// The layout of a file's schema, or what is wrong with it; columns named in
    /// `partitions` (the keys of the folders `key=value` the file is in, which a writer may
    /// have kept in the file too) are not tags.
    pub fn of(schema: &Schema, partitions: &[String]) -> Result<Layout, String> {
        let mut file_known: [Option<usize>; COLUMNS.len()] = [None; COLUMNS.len()];
        let mut file_extra = Vec::new();
        for (i, field) in schema.fields().iter().enumerate() {
            let fam = family(field.data_type());
            match known(field.name()) {
                // Tabiya's ids of the games it wrote: an import numbers its games anew.
                Some(k) if COLUMNS[k].1 == Holds::Id => {}
                Some(k) => {
                    let (name, holds) = COLUMNS[k];
                    if let Some(j) = file_known[k] {
                        return Err(format!(
                            "columns {} and {} both name {name} (names are matched in any case)",
                            schema.field(j).name(),
                            field.name()
                        ));
                    }
                    if !accepts(holds, fam) {
                        return Err(format!(
                            "column {} holds {}; Tabiya reads {} there",
                            field.name(),
                            field.data_type(),
                            describe(holds)
                        ));
                    }
                    file_known[k] = Some(i);
                }
                None if tag_name(field.name())
                    && !partitions.iter().any(|p| p == field.name())
                    && matches!(
                        fam,
                        Family::Text | Family::Whole | Family::Float | Family::Day | Family::Time
                    ) =>
                {
                    file_extra.push((i, field.name().clone()))
                }
                None => {}
            }
        }
        let movetext = known(MOVETEXT).expect("the movetext column is known");
        if file_known[movetext].is_none() {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(format!(
                "no movetext column: Tabiya reads each game's moves from a column named movetext (PGN movetext); the file's columns are: {}",
                names.join(", ")
            ));
        }
        let mut read: Vec<usize> = file_known
            .iter()
            .flatten()
            .copied()
            .chain(file_extra.iter().map(|(i, _)| *i))
            .collect();
        read.sort_unstable();
        let at = |i: usize| read.binary_search(&i).expect("a column read");
        Ok(Layout {
            known: file_known.map(|k| k.map(at)),
            extra: file_extra.into_iter().map(|(i, n)| (at(i), n)).collect(),
            read,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType, Field, TimeUnit};

    fn schema(fields: &[(&str, DataType)]) -> Schema {
        Schema::new(
            fields
                .iter()
                .map(|(n, t)| Field::new(*n, t.clone(), true))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn names_in_any_case_and_other_columns_as_tags() {
        let s = schema(&[
            (
                "year",
                DataType::List(Field::new("x", DataType::Int8, true).into()),
            ),
            ("whiteelo", DataType::Int16),
            ("MOVETEXT", DataType::Utf8),
            ("PlyCount", DataType::Int32),
            ("UtcTime", DataType::Time32(TimeUnit::Millisecond)),
            ("__index_level_0__", DataType::Int64),
            ("month", DataType::Int32),
            ("gameid", DataType::Int64),
        ]);
        let l = Layout::of(&s, &["month".to_string()]).unwrap();
        assert_eq!(l.read, [1, 2, 3, 4]);
        assert_eq!(l.known[known("WhiteElo").unwrap()], Some(0));
        assert_eq!(l.known[known("movetext").unwrap()], Some(1));
        assert_eq!(l.known[known("UTCTime").unwrap()], Some(3));
        assert_eq!(l.extra, [(2, "PlyCount".to_string())]);
        // Tabiya's ids are not read, not even as a tag.
        assert_eq!(l.known[known("GameId").unwrap()], None);
    }

    #[test]
    fn what_is_wrong_names_the_column() {
        let e = Layout::of(&schema(&[("Event", DataType::Utf8)]), &[]).unwrap_err();
        assert!(
            e.contains("no movetext column") && e.contains("Event"),
            "{e}"
        );
        let e = Layout::of(
            &schema(&[("movetext", DataType::Utf8), ("UTCDate", DataType::Float64)]),
            &[],
        )
        .unwrap_err();
        assert!(e.starts_with("column UTCDate holds Float64"), "{e}");
        let e = Layout::of(
            &schema(&[
                ("movetext", DataType::Utf8),
                ("ECO", DataType::Utf8),
                ("eco", DataType::Utf8),
            ]),
            &[],
        )
        .unwrap_err();
        assert!(e.contains("ECO and eco"), "{e}");
    }
}
