//! What one game may hold: the bounds that keep hostile input (`/dev/zero`, a
//! decompression bomb, a megabyte tag, variations nested thousands deep) from taking
//! unbounded memory, time or stack. `docs/formats/pgn.md`, *What is a game, and its bounds*.

/// Most bytes one game may hold (32 MiB: a game with ten megabytes of comments, or a
/// million moves, is far below; the largest real games are a few hundred kilobytes).
pub const MAX_GAME_BYTES: usize = 32 << 20;

/// Most bytes of one game read before the input is given up (256 MiB): past it, the game
/// is taken for text that never ends.
pub const MAX_SKIP_BYTES: u64 = 256 << 20;

/// Longest tag line read (8 KiB, what the tokenizer's buffer holds whole): a game with a
/// longer one is refused, saying so, by both paths (real tags are a few dozen bytes).
pub const MAX_TAG_LINE_BYTES: usize = 8 << 10;

/// Deepest nesting of variations kept: a variation deeper is dropped with a warning (its
/// text skipped without recursion), so no game makes the code that walks a game's tree
/// (stored form, writer, JSON) recurse without bound. Real games nest a handful deep.
pub const MAX_VARIATION_DEPTH: usize = 256;
