//! Compact chess position codecs: B32 (32 bytes) and CDB's 24-byte form.
//!
//! * [`b32`] — a position in 32 bytes, one 4-bit code per square, with side to move,
//!   castling rights, en-passant file, half-move clock and full-move number hidden in the
//!   first 32 empty squares (layout: `docs/formats/b32.md`). Round-trips every FEN whose
//!   half-move clock is at most 127 and whose full-move number is at most 65535.
//! * [`cdb`] — CDB's 24-byte compressed position: a file-ordered occupancy bitmap followed
//!   by 4-bit man codes, with castling rooks and en-passant pawns given their own codes and
//!   the side to move hidden in the en-passant code (layout: `docs/formats/cdb.md`). No
//!   clocks.
//!
//! Both codecs are pure functions over byte arrays; decoding never panics and every decoding
//! error names the byte offset it concerns.

pub mod b32;
pub mod cdb;

pub use b32::{B32Error, decode_b32, encode_b32, encode_b32_position};
pub use cdb::{CdbError, decode_cdb, decode_cdb_setup, encode_cdb, encode_cdb_setup};
