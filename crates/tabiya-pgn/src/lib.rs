//! PGN games for Tabiya: a streaming reader that keeps every tag, variation, comment and NAG,
//! a writer, and compressed inputs.
//!
//! - [`input::open`] opens plain, `.zst`, `.gz`, `.bz2` files or standard input.
//! - [`split::Splitter`] cuts the byte stream into whole games (with byte offsets and line
//!   numbers) without parsing them, so games can be parsed on several threads.
//! - [`parse::parse_game`] parses one game into a [`Game`], checking every move.
//! - [`parse::read_tags`] reads only a game's tags (its moves unread).
//! - [`fast::visit_plain`] reads a plain game (tags, moves, a result) move by move for a
//!   caller that wants no [`Game`] built (the importer).
//! - [`pipeline::ordered`] reads inputs on a reader thread, parses their chunks on worker
//!   threads with the caller's function, and gives the results back in input order; a
//!   table's rows made PGN text (`tabiya-parquet`) come in through it too
//!   ([`pipeline::Source::Rows`]).
//! - [`typed::play_line`] plays moves as a user types them (`1. e4 c5 2. Nf3`, `e2e4,c7c5`),
//!   telling a word that is no move from a move not legal there.
//! - [`write::write_game`] writes a game back as PGN ([`write::write_movetext`] its
//!   movetext alone).

pub mod bounds;
pub mod fast;
mod game_error;
pub mod input;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod refusal;
pub mod san;
pub mod split;
pub mod typed;
pub mod write;

pub use game_error::GameError;
pub use model::{Game, Node, NullSegment, Variation};
pub use parse::{GameParser, parse_game, read_tags};
pub use split::{Chunk, GameSpan, MAX_GAME_BYTES, Splitter};
pub use write::{game_to_string, other_tags, write_game, write_movetext, write_tag};

/// Reads every game of an input sequentially: `(span, result)` pairs in file order. A
/// convenience for tools and tests; the importer parses chunks in parallel instead.
pub fn read_all<R: std::io::Read>(
    reader: R,
) -> impl Iterator<Item = std::io::Result<(GameSpan, Result<Game, GameError>)>> {
    Splitter::new(reader).flat_map(
        |chunk| -> Vec<std::io::Result<(GameSpan, Result<Game, GameError>)>> {
            match chunk {
                Err(e) => vec![Err(e)],
                Ok(chunk) => chunk
                    .games
                    .iter()
                    .map(|span| {
                        let parsed = match span.refusal() {
                            Some(e) => Err(e),
                            None => parse_game(chunk.game_bytes(span), span.line),
                        };
                        Ok((*span, parsed))
                    })
                    .collect(),
            }
        },
    )
}
