//! Tabiya's library face: every question a user can ask, as one function with a typed,
//! serialisable answer (the JSON shapes `--json` prints). The command line and the server
//! only parse what they are given, call these functions, and print or send the answer.
//!
//! - [`database`]: open or create a database of either kind ([`Db`]); its statistics.
//! - [`dbset`]: several chess databases opened as one set (`Db::open_set`): explore and
//!   game lists over all of them, summed exactly; games named `MEMBER:ID`.
//! - [`import`]: games in (PGN, Parquet or WTHOR), with progress; [`inputs`]: which
//!   files an import's arguments name and how each is read.
//! - [`explore`]: what the explorer shows of a position (chess, with books beside it;
//!   Othello); [`games`]: the games of a position, paged; [`export`]: games out as PGN or
//!   WTHOR files; [`gamesets`]: named criteria whose games are kept current, and the
//!   games a gameset or criterion selects.
//! - [`position`], [`othello`]: positions as users give them.
//! - [`books`]: opening books — probe, dump, check, info, convert, merge, build (from PGN or
//!   a database), the games a Kvetka book links.
//! - [`engine`]: the UCI engines asked ([`engine::Engines`], a pool); [`analysis`]: one
//!   position analysed, its evaluation kept by position and shown by the explorer;
//!   [`annotate`]: every position of chosen games evaluated, their mistakes reported and
//!   written into PGN.
//! - [`cluster`]: a cluster build's worker commands (games, occurrences) and its load.
//! - [`cards`]: flashcards (a position and the moves to know there) made by hand, from a
//!   line, a book or the database, answered and scheduled by SM-2.
//! - [`reads`]: the read commands' questions, answered by the database opened here or by
//!   the server that holds it (`POST /api/admin/read`), the same answer either way.
//! - [`codecs`]: compact position codecs; [`wthor`]: WTHOR files on their own;
//!   [`generate`]: realistic PGN for benchmarks; [`demo`]: the bundled sample.

pub mod analysis;
pub mod annotate;
pub mod books;
pub mod cards;
pub mod check;
pub mod cluster;
pub mod codecs;
pub mod database;
pub mod dbset;
pub mod deadline;
pub mod demo;
pub mod duplicates;
pub mod edit;
pub mod engine;
pub mod entries;
pub mod error;
pub mod explore;
pub mod export;
pub mod filter;
pub mod game;
pub mod games;
pub mod gamesets;
pub mod generate;
pub mod handover;
pub mod import;
pub mod inputs;
pub mod merge;
pub mod names;
pub mod notes;
pub mod novelty;
pub mod othello;
pub mod player;
pub mod position;
pub mod prepare;
pub mod reads;
pub mod repertoire;
pub mod search;
pub mod time;
pub mod wthor;

pub use database::{Db, Kind};
pub use error::{Context, Error, ErrorKind, Result};
pub use othello::OthelloPosition;
pub use position::ChessPosition;
