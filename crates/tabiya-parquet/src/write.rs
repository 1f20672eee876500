//! Games written as Parquet: Tabiya's id of each game (`GameId`, `int64`), the Seven Tag
//! Roster and Lichess's columns (ratings as `int16`, `Date` and `UTCDate` as `date32` — a
//! `Date` that is no whole day null, its text in `tags` —, `UTCTime` as `time32[ms]` —
//! Parquet's TIME has no seconds — in whole seconds, the rest text), the other tags in a
//! `tags` map, and the movetext as PGN export writes it but on one line; zstd pages, row
//! groups of 64 Ki games, written a batch of 4,096 games at a time.

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Int16Builder, Int64Builder, MapBuilder, MapFieldNames, StringBuilder,
    Time32MillisecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use tabiya_pgn::Game;

use crate::columns::{COLUMNS, GAME_ID, Holds, MOVETEXT};
use crate::split::split;
use crate::values::{day_of, rating_of, time_of};

/// Games a record batch holds before it is handed to the Parquet writer.
const BATCH_GAMES: usize = 4096;
/// Games a row group holds: tens of megabytes, what Spark and DuckDB read in parallel.
const ROW_GROUP_GAMES: usize = 64 * 1024;

/// One column being filled.
enum Builder {
    Text(StringBuilder),
    Whole(Int16Builder),
    Day(Date32Builder),
    Id(Int64Builder),
    Time(Time32MillisecondBuilder),
    Tags(Box<MapBuilder<StringBuilder, StringBuilder>>),
}

fn tags_builder() -> MapBuilder<StringBuilder, StringBuilder> {
    // The names the Parquet format's MAP uses, as Spark and pyarrow write it.
    let names = MapFieldNames {
        entry: "key_value".into(),
        key: "key".into(),
        value: "value".into(),
    };
    MapBuilder::new(Some(names), StringBuilder::new(), StringBuilder::new())
}

fn builder(holds: Holds) -> Builder {
    match holds {
        Holds::Text | Holds::Movetext => Builder::Text(StringBuilder::new()),
        Holds::Rating | Holds::Diff => Builder::Whole(Int16Builder::new()),
        Holds::Day | Holds::Date => Builder::Day(Date32Builder::new()),
        Holds::Id => Builder::Id(Int64Builder::new()),
        Holds::Time => Builder::Time(Time32MillisecondBuilder::new()),
        Holds::Tags => Builder::Tags(Box::new(tags_builder())),
    }
}

/// The schema Tabiya writes.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|&(name, holds)| {
            let t = match holds {
                Holds::Text | Holds::Movetext => DataType::Utf8,
                Holds::Rating | Holds::Diff => DataType::Int16,
                Holds::Day | Holds::Date => DataType::Date32,
                // What DuckDB, Polars, pandas and Spark all read as a plain whole number.
                Holds::Id => DataType::Int64,
                // Parquet's TIME has no seconds unit: milliseconds, whole seconds.
                Holds::Time => DataType::Time32(TimeUnit::Millisecond),
                Holds::Tags => tags_builder().finish().data_type().clone(),
            };
            let always = matches!(name, GAME_ID | "Result" | MOVETEXT | "tags");
            Field::new(name, t, !always)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// PGN export's movetext on one line: the line ends its wrapping put between tokens become
/// the spaces they stand for. A line end inside a comment is the comment's own text (PGN
/// has no other way to write it) and stays, so the round trip keeps it.
fn one_line(movetext: &mut String) {
    if !movetext.contains('\n') {
        return;
    }
    let mut in_comment = false;
    // A comment never holds `}` (PGN export drops it): braces pair up exactly.
    *movetext = movetext
        .chars()
        .map(|c| match c {
            '{' => {
                in_comment = true;
                c
            }
            '}' => {
                in_comment = false;
                c
            }
            '\n' if !in_comment => ' ',
            _ => c,
        })
        .collect();
}

fn parquet_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot write Parquet: {e}"))
}

/// Writes games as Parquet to `W`.
pub struct GameWriter<W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    columns: Vec<Builder>,
    pending: usize,
    written: u64,
    movetext: String,
}

impl<W: Write + Send> GameWriter<W> {
    /// Starts a file on `out`.
    pub fn new(out: W) -> io::Result<GameWriter<W>> {
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(3).map_err(parquet_error)?,
            ))
            .set_max_row_group_row_count(Some(ROW_GROUP_GAMES))
            .set_created_by(format!("tabiya {}", env!("CARGO_PKG_VERSION")))
            .build();
        let schema = schema();
        let writer =
            ArrowWriter::try_new(out, Arc::clone(&schema), Some(props)).map_err(parquet_error)?;
        Ok(GameWriter {
            writer,
            schema,
            columns: COLUMNS.iter().map(|&(_, h)| builder(h)).collect(),
            pending: 0,
            written: 0,
            movetext: String::new(),
        })
    }

    /// Adds one game, `id` its id in the database it comes from (the `GameId` column).
    pub fn write(&mut self, id: u32, game: &Game) -> io::Result<()> {
        let row = split(game);
        for (k, column) in self.columns.iter_mut().enumerate() {
            let (name, holds) = COLUMNS[k];
            let v = row.columns[k];
            match column {
                Builder::Text(b) if name == MOVETEXT => {
                    self.movetext.clear();
                    tabiya_pgn::write_movetext(game, &mut self.movetext);
                    one_line(&mut self.movetext);
                    b.append_value(&self.movetext);
                }
                Builder::Id(b) => b.append_value(i64::from(id)),
                Builder::Text(b) => b.append_option(v),
                Builder::Whole(b) => {
                    b.append_option(v.and_then(|t| rating_of(t, holds == Holds::Diff)))
                }
                Builder::Day(b) => b.append_option(v.and_then(day_of)),
                Builder::Time(b) => b.append_option(v.and_then(time_of).map(|s| s * 1000)),
                Builder::Tags(b) => {
                    for (name, value) in &row.tags {
                        b.keys().append_value(name);
                        b.values().append_option(*value);
                    }
                    b.append(true).map_err(parquet_error)?;
                }
            }
        }
        self.pending += 1;
        if self.pending >= BATCH_GAMES {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands the games gathered to the Parquet writer.
    fn flush(&mut self) -> io::Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|c| -> ArrayRef {
                match c {
                    Builder::Text(b) => Arc::new(b.finish()),
                    Builder::Whole(b) => Arc::new(b.finish()),
                    Builder::Day(b) => Arc::new(b.finish()),
                    Builder::Id(b) => Arc::new(b.finish()),
                    Builder::Time(b) => Arc::new(b.finish()),
                    Builder::Tags(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        let batch =
            RecordBatch::try_new(Arc::clone(&self.schema), arrays).map_err(parquet_error)?;
        self.writer.write(&batch).map_err(parquet_error)?;
        self.written += self.pending as u64;
        self.pending = 0;
        Ok(())
    }

    /// Ends the file (its footer written); returns the games written and the output.
    pub fn finish(mut self) -> io::Result<(u64, W)> {
        self.flush()?;
        let out = self.writer.into_inner().map_err(parquet_error)?;
        Ok((self.written, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetext_on_one_line_but_a_comment_s_own_line_ends() {
        let mut pgn = String::from("1. Nf3 {a\nb} Nf6 ");
        for i in 2..40 {
            let (w, b) = if i % 2 == 0 {
                ("Ng1", "Ng8")
            } else {
                ("Nf3", "Nf6")
            };
            pgn.push_str(&format!("{i}. {w} {b} "));
        }
        pgn.push('*');
        let game = tabiya_pgn::parse_game(pgn.as_bytes(), 1).unwrap();
        let mut wrapped = String::new();
        tabiya_pgn::write_movetext(&game, &mut wrapped);
        assert!(wrapped.matches('\n').count() > 2, "{wrapped}");
        let mut line = wrapped.clone();
        one_line(&mut line);
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        assert!(
            line.starts_with("1. Nf3 {a\nb} 1... Nf6 2. Ng1 Ng8 3. Nf3"),
            "{line}"
        );
        assert_eq!(line.replace('\n', " "), wrapped.replace('\n', " "));
    }
}
