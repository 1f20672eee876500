//! Kvetka opening books (seed 004): `.kob` position files in 2048-byte blocks, the `.kin`
//! block index and the `.ksf` game sources. See `docs/formats/kvetka.md` for the layout as
//! Tabiya implements it and every interpretation of the seed.
//!
//! * [`KvetkaBook`] reads a book (numbered or concatenated `.kob` files, with or without
//!   `.kin`), probes positions ([`KvetkaBook::probe`] → [`crate::BookProbe`],
//!   [`KvetkaBook::probe_detail`] → raw fields), reads every element as a
//!   [`crate::BookPosition`], dumps and verifies, and tells where a linked game's text is
//!   ([`KvetkaBook::game_source`]).
//! * [`write_book`] writes a book from [`KvetkaPositionInput`]s (a [`crate::BookPosition`]
//!   plus game references); [`aggregate_games`] builds those from [`crate::BookGame`]s.
//! * [`position_key`] / [`decode_key`] / [`transform`] are the 22-byte position key codec;
//!   [`encode_move`] / [`decode_move`] the one-byte move codes.

use std::path::PathBuf;

use thiserror::Error;

mod format;
mod key;
mod ksf;
mod moves;
mod reader;
mod writer;

pub use format::{
    BLOCK_SIZE, Cursor, ELEMENT_TYPE_LINKS, FLAG_COMMENT, FLAG_LAST_GAMES, FLAG_SOME_GAME,
    GameLink, KvetkaHeader, MAX_COMMENT_CHARS, MAX_ELEMENT, ParseError, RawElement, StringOrder,
    compact_len, put_compact, put_unicode,
};
pub use key::{
    KEY_LEN, KeyError, KvetkaKey, Normalisation, decode_key, decode_key_setup, encode_normalised,
    normalise, position_key, transform,
};
pub use ksf::{Ksf, KsfGame, KsfSource, TOC_UNIT, result_byte};
pub use moves::{
    CODE_CASTLE_LONG, CODE_CASTLE_SHORT, CodeMeaning, MoveCodeError, MoveDecodeError, code_meaning,
    decode_move, encode_move,
};
pub use reader::{
    EcoComment, ElementLocation, GameSource, IndexSource, KvetkaBook, KvetkaDetailMove,
    KvetkaElement, KvetkaProbeDetail, MAX_KSF_BYTES, ReadOptions, map_move,
};
pub use writer::{
    AggregateReport, DEFAULT_SPLIT_THRESHOLD, EcoLookup, GameFilter, KvetkaBookSpec,
    KvetkaGameInfo, KvetkaGameRef, KvetkaPositionInput, KvetkaSource, KvetkaWriteReport,
    aggregate_games, write_book,
};

/// Errors of the Kvetka reader and writer. Corruption errors name the file and byte offset.
#[derive(Debug, Error)]
pub enum KvetkaError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: byte offset {offset}: {what}", path.display())]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("{0}")]
    Invalid(String),
    /// A named file refused before it was read: not a regular file (a FIFO, a device, a
    /// directory), larger than the format allows, or cut short while it was read.
    #[error(transparent)]
    File(tabiya_files::FileError),
}

impl From<tabiya_files::FileError> for KvetkaError {
    /// The operating system's errors as [`KvetkaError::Io`], the refusals as they are.
    fn from(e: tabiya_files::FileError) -> KvetkaError {
        match e {
            tabiya_files::FileError::Io { path, source } => KvetkaError::Io { path, source },
            other => KvetkaError::File(other),
        }
    }
}
