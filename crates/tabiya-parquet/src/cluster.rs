//! The tables a cluster build (Spark) passes between its stages and Tabiya's worker
//! commands, and loads at the end: games as PGN text by row, what the worker found of each
//! game, and counted-position occurrences with their whole keys. Columns are found by name,
//! in any case; a missing or mistyped one is named.
//!
//! | table | columns |
//! |---|---|
//! | worker input (games) | `pgn` string — or any games table [`crate::open`] reads |
//! | worker output (games) | `row` int64, `pgn` string, `digest` binary(16), `positions` int32, `error` string |
//! | worker input (ids) and load input `games/` | `id` int64, `pgn` string (and `positions` int32 for a load) |
//! | occurrences, load input `index/` | `key` binary(16, big-endian), `game` int64, `rank` int32, `code` int32, `mover` int32, `adj` boolean |

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Int32Builder, Int64Builder, StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use tabiya_pgn::pipeline::RowChunks;
use tabiya_pgn::{Chunk, GameSpan};

/// Rows read or written at a time.
const BATCH_ROWS: usize = 8192;

/// Opens a Parquet file for reading the named columns (in that order), or says which one
/// is missing or of another type.
fn columns(
    path: &Path,
    wanted: &[(&str, &[DataType])],
) -> Result<ParquetRecordBatchReader, String> {
    let (file, _) = crate::dataset::open_file(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{}: not a Parquet file: {e}", path.display()))?;
    let schema = builder.schema().clone();
    let mut roots = Vec::new();
    for (name, types) in wanted {
        let Some((i, f)) = schema
            .fields()
            .iter()
            .enumerate()
            .find(|(_, f)| f.name().eq_ignore_ascii_case(name))
        else {
            return Err(format!("{}: no column {name}", path.display()));
        };
        if !types.contains(f.data_type()) {
            return Err(format!(
                "{}: column {name} holds {}, not {}",
                path.display(),
                f.data_type(),
                types
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        roots.push(i);
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| format!("{}: cannot read the rows: {e}", path.display()))
}

/// The index of a column in a projected batch (columns keep the file's order).
fn col<'b>(batch: &'b RecordBatch, name: &str) -> &'b ArrayRef {
    let i = batch
        .schema()
        .fields()
        .iter()
        .position(|f| f.name().eq_ignore_ascii_case(name))
        .expect("projected column");
    batch.column(i)
}

const TEXT: &[DataType] = &[DataType::Utf8, DataType::LargeUtf8];
const WHOLE64: &[DataType] = &[DataType::Int64];
const WHOLE32: &[DataType] = &[DataType::Int32];
const BYTES: &[DataType] = &[DataType::Binary, DataType::LargeBinary];

fn texts(a: &ArrayRef) -> Vec<Option<String>> {
    match a.data_type() {
        DataType::LargeUtf8 => a
            .as_string::<i64>()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect(),
        _ => a
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect(),
    }
}

fn byte_rows(a: &ArrayRef) -> Vec<Option<Vec<u8>>> {
    match a.data_type() {
        DataType::LargeBinary => a
            .as_binary::<i64>()
            .iter()
            .map(|s| s.map(<[u8]>::to_vec))
            .collect(),
        _ => a
            .as_binary::<i32>()
            .iter()
            .map(|s| s.map(<[u8]>::to_vec))
            .collect(),
    }
}

/// Whether a Parquet file has a `pgn` column (a worker's input of PGN texts).
pub fn has_pgn_column(path: &Path) -> Result<bool, String> {
    let (file, _) = crate::dataset::open_file(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{}: not a Parquet file: {e}", path.display()))?;
    Ok(builder
        .schema()
        .fields()
        .iter()
        .any(|f| f.name().eq_ignore_ascii_case("pgn")))
}

/// The games of a worker's input, one PGN text a row: its `pgn` column, else its rows as a
/// games table read as the import reads them. Chunks of games, in row order.
pub fn game_chunks(path: &Path) -> Result<Box<dyn RowChunks>, String> {
    if has_pgn_column(path)? {
        Ok(Box::new(PgnColumn {
            reader: columns(path, &[("pgn", TEXT)])?,
            rows_read: 0,
        }))
    } else {
        crate::open(path)
            .map(|g| Box::new(g) as Box<dyn RowChunks>)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// A `pgn` column's rows as chunks of games (a row without text is an empty game, which
/// the import refuses).
struct PgnColumn {
    reader: ParquetRecordBatchReader,
    rows_read: u64,
}

impl RowChunks for PgnColumn {
    fn next_chunk(&mut self) -> Result<Option<Chunk>, String> {
        let batch = match self.reader.next() {
            None => return Ok(None),
            Some(b) => b.map_err(|e| format!("row {}: {e}", self.rows_read + 1))?,
        };
        let mut data = Vec::new();
        let mut games = Vec::with_capacity(batch.num_rows());
        for text in texts(col(&batch, "pgn")) {
            let start = data.len();
            data.extend_from_slice(text.unwrap_or_default().trim_end().as_bytes());
            games.push(GameSpan {
                start,
                end: data.len(),
                offset: self.rows_read,
                line: self.rows_read + 1,
                dropped: 0,
            });
            data.extend_from_slice(b"\n\n");
            self.rows_read += 1;
        }
        Ok(Some(Chunk { data, games }))
    }

    fn bytes(&self) -> u64 {
        0
    }

    fn size(&self) -> Option<u64> {
        None
    }
}

/// What a worker found of one input row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedRow {
    pub row: i64,
    pub pgn: String,
    /// `None` when the game is refused (then `error` says why).
    pub digest: Option<[u8; 16]>,
    pub positions: Option<i32>,
    pub error: Option<String>,
}

fn zstd_props() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).expect("level 1")))
        .build()
}

fn write_batches(path: &Path, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<(), String> {
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = ArrowWriter::try_new(file, schema, Some(zstd_props()))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for b in &batches {
        w.write(b).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    w.close().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// Writes a worker's findings, one row an input row.
pub fn write_prepared(path: &Path, rows: &[PreparedRow]) -> Result<(), String> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("row", DataType::Int64, false),
        Field::new("pgn", DataType::Utf8, false),
        Field::new("digest", DataType::Binary, true),
        Field::new("positions", DataType::Int32, true),
        Field::new("error", DataType::Utf8, true),
    ]));
    let mut batches = Vec::new();
    for part in rows.chunks(BATCH_ROWS) {
        let (mut row, mut pgn, mut digest, mut positions, mut error) = (
            Int64Builder::new(),
            StringBuilder::new(),
            BinaryBuilder::new(),
            Int32Builder::new(),
            StringBuilder::new(),
        );
        for r in part {
            row.append_value(r.row);
            pgn.append_value(&r.pgn);
            digest.append_option(r.digest.as_ref());
            positions.append_option(r.positions);
            error.append_option(r.error.as_deref());
        }
        let cols: Vec<ArrayRef> = vec![
            Arc::new(row.finish()),
            Arc::new(pgn.finish()),
            Arc::new(digest.finish()),
            Arc::new(positions.finish()),
            Arc::new(error.finish()),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), cols).map_err(|e| e.to_string())?);
    }
    write_batches(path, schema, batches)
}

/// Reads a worker's findings (what the tests check a worker's output with).
pub fn read_prepared(path: &Path) -> Result<Vec<PreparedRow>, String> {
    let reader = columns(
        path,
        &[
            ("row", WHOLE64),
            ("pgn", TEXT),
            ("digest", BYTES),
            ("positions", WHOLE32),
            ("error", TEXT),
        ],
    )?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| format!("{}: {e}", path.display()))?;
        let rows = col(&batch, "row").as_primitive::<Int64Type>().clone();
        let pgn = texts(col(&batch, "pgn"));
        let digest = byte_rows(col(&batch, "digest"));
        let positions = col(&batch, "positions").as_primitive::<Int32Type>().clone();
        let error = texts(col(&batch, "error"));
        for i in 0..batch.num_rows() {
            out.push(PreparedRow {
                row: rows.value(i),
                pgn: pgn[i].clone().unwrap_or_default(),
                digest: digest[i].as_deref().and_then(|d| d.try_into().ok()),
                positions: positions.is_valid(i).then(|| positions.value(i)),
                error: error[i].clone(),
            });
        }
    }
    Ok(out)
}

/// Games with ids: `(id, pgn)` of every row, and each row's `positions` when asked for
/// (a load's `games/` files). A row without an id or a text is an error naming it.
pub fn read_id_games(path: &Path, with_positions: bool) -> Result<Vec<(i64, String, i32)>, String> {
    let mut wanted: Vec<(&str, &[DataType])> = vec![("id", WHOLE64), ("pgn", TEXT)];
    if with_positions {
        wanted.push(("positions", WHOLE32));
    }
    let mut out = Vec::new();
    for batch in columns(path, &wanted)? {
        let batch = batch.map_err(|e| format!("{}: {e}", path.display()))?;
        let ids = col(&batch, "id").as_primitive::<Int64Type>().clone();
        let pgn = texts(col(&batch, "pgn"));
        let positions =
            with_positions.then(|| col(&batch, "positions").as_primitive::<Int32Type>().clone());
        for (i, text) in pgn.into_iter().enumerate() {
            let row = out.len() + 1;
            let (Some(text), true) = (text, ids.is_valid(i)) else {
                return Err(format!("{}: row {row} has no id or no pgn", path.display()));
            };
            let n = match &positions {
                Some(p) if p.is_valid(i) => p.value(i),
                Some(_) => {
                    return Err(format!("{}: row {row} has no positions", path.display()));
                }
                None => 0,
            };
            out.push((ids.value(i), text, n));
        }
    }
    Ok(out)
}

/// Writes games by row: `id` (when given) and `pgn`, and `positions` (when given) — a
/// worker's input, or a load's `games/` file.
pub fn write_games(
    path: &Path,
    ids: Option<&[i64]>,
    pgn: &[String],
    positions: Option<&[i32]>,
) -> Result<(), String> {
    let mut fields = Vec::new();
    if ids.is_some() {
        fields.push(Field::new("id", DataType::Int64, false));
    }
    fields.push(Field::new("pgn", DataType::Utf8, false));
    if positions.is_some() {
        fields.push(Field::new("positions", DataType::Int32, false));
    }
    let schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::new();
    for start in (0..pgn.len()).step_by(BATCH_ROWS) {
        let end = (start + BATCH_ROWS).min(pgn.len());
        let mut cols: Vec<ArrayRef> = Vec::new();
        if let Some(ids) = ids {
            let mut b = Int64Builder::new();
            b.append_slice(&ids[start..end]);
            cols.push(Arc::new(b.finish()));
        }
        let mut t = StringBuilder::new();
        pgn[start..end].iter().for_each(|p| t.append_value(p));
        cols.push(Arc::new(t.finish()));
        if let Some(n) = positions {
            let mut b = Int32Builder::new();
            b.append_slice(&n[start..end]);
            cols.push(Arc::new(b.finish()));
        }
        batches.push(RecordBatch::try_new(schema.clone(), cols).map_err(|e| e.to_string())?);
    }
    write_batches(path, schema, batches)
}

/// One counted position of one game, as the occurrence tables hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OccRow {
    pub key: u128,
    pub game: i64,
    pub rank: i32,
    pub code: i32,
    pub mover: i32,
    pub adj: bool,
}

fn occ_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::Binary, false),
        Field::new("game", DataType::Int64, false),
        Field::new("rank", DataType::Int32, false),
        Field::new("code", DataType::Int32, false),
        Field::new("mover", DataType::Int32, false),
        Field::new("adj", DataType::Boolean, false),
    ]))
}

/// Writes occurrence rows.
pub fn write_occurrences(path: &Path, rows: &[OccRow]) -> Result<(), String> {
    let schema = occ_schema();
    let mut batches = Vec::new();
    for part in rows.chunks(BATCH_ROWS * 8) {
        let mut key = BinaryBuilder::new();
        let (mut game, mut rank, mut code, mut mover, mut adj) = (
            Int64Builder::new(),
            Int32Builder::new(),
            Int32Builder::new(),
            Int32Builder::new(),
            BooleanBuilder::new(),
        );
        for r in part {
            key.append_value(r.key.to_be_bytes());
            game.append_value(r.game);
            rank.append_value(r.rank);
            code.append_value(r.code);
            mover.append_value(r.mover);
            adj.append_value(r.adj);
        }
        let cols: Vec<ArrayRef> = vec![
            Arc::new(key.finish()),
            Arc::new(game.finish()),
            Arc::new(rank.finish()),
            Arc::new(code.finish()),
            Arc::new(mover.finish()),
            Arc::new(adj.finish()),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), cols).map_err(|e| e.to_string())?);
    }
    write_batches(path, schema, batches)
}

/// Reads a file's occurrence rows a batch at a time.
pub struct OccReader {
    reader: ParquetRecordBatchReader,
    name: String,
    batch: std::vec::IntoIter<OccRow>,
    rows: u64,
}

impl OccReader {
    pub fn open(path: &Path) -> Result<OccReader, String> {
        Ok(OccReader {
            reader: columns(
                path,
                &[
                    ("key", BYTES),
                    ("game", WHOLE64),
                    ("rank", WHOLE32),
                    ("code", WHOLE32),
                    ("mover", WHOLE32),
                    ("adj", &[DataType::Boolean]),
                ],
            )?,
            name: path.display().to_string(),
            batch: Vec::new().into_iter(),
            rows: 0,
        })
    }

    fn fill(&mut self) -> Result<bool, String> {
        let Some(batch) = self.reader.next() else {
            return Ok(false);
        };
        let batch = batch.map_err(|e| format!("{}: {e}", self.name))?;
        let keys = byte_rows(col(&batch, "key"));
        let game = col(&batch, "game").as_primitive::<Int64Type>().clone();
        let rank = col(&batch, "rank").as_primitive::<Int32Type>().clone();
        let code = col(&batch, "code").as_primitive::<Int32Type>().clone();
        let mover = col(&batch, "mover").as_primitive::<Int32Type>().clone();
        let adj = col(&batch, "adj").as_boolean().clone();
        let mut rows = Vec::with_capacity(batch.num_rows());
        for (i, k) in keys.into_iter().enumerate() {
            self.rows += 1;
            let key = k
                .and_then(|k| <[u8; 16]>::try_from(k).ok())
                .ok_or_else(|| format!("{}: row {}: key is not 16 bytes", self.name, self.rows))?;
            if game.is_null(i)
                || rank.is_null(i)
                || code.is_null(i)
                || mover.is_null(i)
                || adj.is_null(i)
            {
                return Err(format!(
                    "{}: row {}: a value is missing",
                    self.name, self.rows
                ));
            }
            rows.push(OccRow {
                key: u128::from_be_bytes(key),
                game: game.value(i),
                rank: rank.value(i),
                code: code.value(i),
                mover: mover.value(i),
                adj: adj.value(i),
            });
        }
        self.batch = rows.into_iter();
        Ok(true)
    }
}

impl Iterator for OccReader {
    type Item = Result<OccRow, String>;

    fn next(&mut self) -> Option<Result<OccRow, String>> {
        loop {
            if let Some(r) = self.batch.next() {
                return Some(Ok(r));
            }
            match self.fill() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_and_findings_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let occ = dir.path().join("o.parquet");
        let rows: Vec<OccRow> = (0..20_000)
            .map(|i| OccRow {
                key: (i as u128) << 100 | 7,
                game: i / 3 + 1,
                rank: (i % 3) as i32,
                code: 65535 - i as i32 % 9,
                mover: (i % 2) as i32,
                adj: i % 5 != 0,
            })
            .collect();
        write_occurrences(&occ, &rows).unwrap();
        let back: Vec<OccRow> = OccReader::open(&occ).unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(back, rows);
        let found = dir.path().join("f.parquet");
        let prepared = vec![
            PreparedRow {
                row: 0,
                pgn: "1. e4 *".into(),
                digest: Some([7; 16]),
                positions: Some(2),
                error: None,
            },
            PreparedRow {
                row: 1,
                pgn: "1. e5 *".into(),
                digest: None,
                positions: None,
                error: Some("illegal move".into()),
            },
        ];
        write_prepared(&found, &prepared).unwrap();
        assert_eq!(read_prepared(&found).unwrap(), prepared);
        let e = OccReader::open(&found).err().unwrap();
        assert!(e.contains("no column key"), "{e}");
        let e = read_id_games(&occ, false).unwrap_err();
        assert!(e.contains("no column id"), "{e}");
    }
}
