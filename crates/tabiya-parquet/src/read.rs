//! A Parquet file's games: the file's layout checked when it is opened, then its rows read
//! a record batch at a time (memory stays a batch and a page per column whatever the file's
//! size) and handed on as chunks of PGN text, one game a row, for the PGN import's pipeline.

use std::path::Path;

use arrow_array::RecordBatch;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaData;
use tabiya_pgn::pipeline::RowChunks;
use tabiya_pgn::{Chunk, GameSpan};

use crate::layout::Layout;
use crate::row_pgn::RowCells;

/// Rows a chunk holds: a few hundred kilobytes of PGN text, as the PGN splitter's chunks, so
/// every parse thread has work from the start.
const BATCH_ROWS: usize = 256;

/// The games of one Parquet file, a chunk at a time.
pub struct ParquetGames {
    reader: ParquetRecordBatchReader,
    layout: Layout,
    rows: u64,
    rows_read: u64,
    size: u64,
}

/// Opens a Parquet file of games, or says what is wrong with it (naming the column). Only
/// a regular file is opened, never waiting on a FIFO (read from its end, a Parquet file
/// cannot be a stream): `X is a FIFO (a named pipe), not a regular file`.
pub fn open(path: &Path) -> Result<ParquetGames, String> {
    let (file, size) = open_file(path)?;
    open_from(file, size, path)
}

/// The file [`open`] reads, opened (a regular file only) with its size, or why not
/// (`cannot read: …`): the reading of a file's bytes elsewhere (a hand-over sends them to
/// a server) opens it, and fails, alike.
pub fn open_file(path: &Path) -> Result<(std::fs::File, u64), String> {
    crate::dataset::open_file(path).map_err(|e| format!("cannot read: {e}"))
}

/// [`open`] on a file already open (of `size` bytes); `named` is the path the games are
/// known by, whose folders `key=value` are the file's Hive partitions — a copy kept
/// elsewhere (a server's, of a file a hand-over sent) reads as the original.
pub fn open_from(file: std::fs::File, size: u64, named: &Path) -> Result<ParquetGames, String> {
    // The Parquet types alone: text as text however a writer's Arrow schema kept it.
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| format!("not a Parquet file Tabiya can read: {e}"))?;
    let layout = Layout::of(builder.schema(), &partition_keys(named))?;
    check_codecs(builder.metadata(), &layout)?;
    let rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
    let mask = ProjectionMask::roots(builder.parquet_schema(), layout.read.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| format!("cannot read the rows: {e}"))?;
    Ok(ParquetGames {
        reader,
        layout,
        rows,
        rows_read: 0,
        size,
    })
}

/// The keys of the Hive partitions a file is in: `year`, `month` for
/// `data/year=2024/month=01/x.parquet`.
fn partition_keys(path: &Path) -> Vec<String> {
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    dir.components()
        .filter_map(|c| {
            let c = c.as_os_str().to_str()?;
            let (key, _) = c.split_once('=')?;
            (!key.is_empty()).then(|| key.to_string())
        })
        .collect()
}

/// Every page of the columns read is in a compression Tabiya reads (snappy, gzip, zstd or
/// none), else the column and its codec are named.
fn check_codecs(meta: &ParquetMetaData, layout: &Layout) -> Result<(), String> {
    let schema = meta.file_metadata().schema_descr();
    for group in meta.row_groups() {
        for (leaf, column) in group.columns().iter().enumerate() {
            if layout
                .read
                .binary_search(&schema.get_column_root_idx(leaf))
                .is_err()
            {
                continue;
            }
            match column.compression() {
                Compression::UNCOMPRESSED
                | Compression::SNAPPY
                | Compression::GZIP(_)
                | Compression::ZSTD(_) => {}
                other => {
                    return Err(format!(
                        "column {} is compressed with {other}, which Tabiya does not read (it reads snappy, gzip, zstd and uncompressed pages)",
                        column.column_path()
                    ));
                }
            }
        }
    }
    Ok(())
}

impl ParquetGames {
    /// Rows in the file.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The rows of one batch as a chunk of games.
    fn chunk(&mut self, batch: &RecordBatch) -> Chunk {
        let mut text = String::with_capacity(batch.num_rows() * 1024);
        let mut games = Vec::with_capacity(batch.num_rows());
        let mut cells = RowCells::new(&self.layout, batch);
        for row in 0..batch.num_rows() {
            let start = text.len();
            cells.write(row, &mut text);
            games.push(GameSpan {
                start,
                end: text.len(),
                offset: self.rows_read,
                line: self.rows_read + 1,
                dropped: 0,
            });
            self.rows_read += 1;
        }
        Chunk {
            data: text.into_bytes(),
            games,
        }
    }
}

impl RowChunks for ParquetGames {
    fn next_chunk(&mut self) -> Result<Option<Chunk>, String> {
        match self.reader.next() {
            None => Ok(None),
            Some(Ok(batch)) => Ok(Some(self.chunk(&batch))),
            Some(Err(e)) => Err(format!(
                "cannot read the rows from row {} on: {e}",
                self.rows_read + 1
            )),
        }
    }

    /// The file's bytes in proportion to the rows read.
    fn bytes(&self) -> u64 {
        if self.rows == 0 {
            return self.size;
        }
        (self.size as u128 * self.rows_read as u128 / self.rows as u128) as u64
    }

    fn size(&self) -> Option<u64> {
        Some(self.size)
    }
}
