//! What a cluster build's worker makes of games: exactly what an import's parse threads
//! make of them (the same [`ChunkParser`]), handed out game by game — the duplicate digest
//! and the counted positions with their plies, or why the game is refused.

use tabiya_pgn::{Chunk, GameError};

use super::parse_chunk::{ChunkParser, ParsedChunk};
use crate::game::Occurrence;
use crate::index::sorted::KeyedOcc;

/// One game of a chunk, as an import would take it.
pub struct PreparedGame<'a> {
    /// The duplicate digest (two games with one digest are one game to an import).
    pub digest: u128,
    /// Its counted positions, in game order, and the ply of each.
    pub occs: &'a [Occurrence],
    pub plies: &'a [u16],
}

/// Parses a chunk's games as an import does; `each` gets every game in order, prepared or
/// refused.
pub fn prepare_chunk(
    chunk: &Chunk,
    max_ply: Option<u32>,
    mut each: impl FnMut(Result<PreparedGame<'_>, &GameError>),
) {
    let parsed = ChunkParser::new().parse(chunk, max_ply, false, ParsedChunk::default());
    for g in &parsed.games {
        match &g.result {
            Ok(p) => each(Ok(PreparedGame {
                digest: p.hash,
                occs: &parsed.occs[p.occs.clone()],
                plies: &parsed.plies[p.occs.clone()],
            })),
            Err(e) => each(Err(e)),
        }
    }
}

/// A game's counted positions as sorted-occurrence records of game `id` (each with its
/// rank, and whether the next one comes one ply later); an error for a game of more than
/// 65,536 counted positions (ranks are 16 bits).
pub fn keyed_occurrences(
    id: u32,
    game: &PreparedGame<'_>,
    out: &mut Vec<KeyedOcc>,
) -> Result<(), String> {
    let n = game.occs.len();
    if n > 1 << 16 {
        return Err(format!("game {id} counts {n} positions (at most 65,536)"));
    }
    for (i, o) in game.occs.iter().enumerate() {
        out.push(KeyedOcc {
            key: o.key,
            game: id,
            rank: i as u16,
            code: o.code,
            mover: o.mover,
            adj: i + 1 < n && game.plies[i + 1] == game.plies[i].wrapping_add(1),
        });
    }
    Ok(())
}
