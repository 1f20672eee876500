//! Tabiya's library face: every question a user can ask, as one function with a typed,
//! serialisable answer (the JSON shapes `--json` prints). The command line and the server
//! only parse what they are given, call these functions, and print or send the answer.
//!
//! - [`position`]: a chess position from a FEN and moves.
//! - [`books`]: opening books — probe, dump, check, info, convert, merge, build (from PGN or
//!   a database), the games a Kvetka book links.

pub mod books;
pub mod error;
pub mod position;

pub use error::{Context, Error, ErrorKind, Result};
pub use position::ChessPosition;
