//! Chess games as Parquet rows, both ways — a pure codec, no storage.
//!
//! - Reading ([`open`]): the Lichess database's schema (`Lichess/standard-chess-games`:
//!   Event, Site, White, Black, Result, titles, ratings as whole numbers, `UTCDate` as a
//!   date, `UTCTime` as a time, ECO, Opening, Termination, TimeControl, `movetext`) and the
//!   one Tabiya writes; column names in any case, other columns of text or numbers as tags.
//!   Each row becomes the PGN text of one game, handed to the PGN import's pipeline a record
//!   batch at a time ([`tabiya_pgn::pipeline::RowChunks`]), so a row is read exactly as the
//!   same game written as PGN.
//! - Writing ([`GameWriter`]): each game's id, the roster and Lichess's columns (`Date` a
//!   `date32`, a date that is no whole day kept as text in `tags`), the other tags in a
//!   `tags` map, the movetext as PGN export writes it on one line; read back, the games are
//!   the same.
//! - Inputs ([`is_parquet`], [`files_under`]): a file by its magic bytes or name, a
//!   Hive-partitioned folder as its files.
//!
//! - [`cluster`]: the tables a cluster build (Spark) passes to Tabiya's worker commands and
//!   loads: games by row, what the worker found of each, occurrences with whole keys.
//!
//! `docs/formats/parquet.md` describes the columns both ways.

mod cells;
pub mod cluster;
pub mod columns;
mod dataset;
mod layout;
mod read;
mod row_pgn;
mod split;
mod values;
mod write;

pub use dataset::{MAGIC, files_under, is_parquet};
pub use read::{ParquetGames, open, open_file, open_from};
pub use split::{RowTags, split};
pub use write::{GameWriter, schema};
