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

/// Whether a tag name is a PGN symbol, what a tag pair's name is: a letter or digit first,
/// then letters, digits and `_+#=:-`. The writer writes every tag so named (and no other),
/// the parser counts such a line as a tag pair, an edit sets only such names.
pub fn is_tag_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_alphanumeric)
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b))
}

/// Bytes of the line `[Name "value"]` as the writer writes it (the value's `\` and `"`
/// escaped, the text UTF-8), without its line end: what [`MAX_TAG_LINE_BYTES`] bounds.
pub fn tag_line_bytes(name: &str, value: &str) -> usize {
    let escapes = value.bytes().filter(|&b| b == b'\\' || b == b'"').count();
    name.len() + value.len() + escapes + 5
}

/// Why a tag cannot be kept in a game, if it cannot: the one check of a tag that every
/// path writing a game shares — the import (on each tag as read, so a Latin-1 value that
/// grows when written as UTF-8 is measured as it will be written), an edit of a game's tags,
/// a name given to players or events (`names rename`), and the export (a game it writes must
/// be one the import reads back). Refused: a name that is not a PGN symbol
/// ([`is_tag_name`]); a value holding a line end or a NUL byte (a tag is one line of text);
/// a line longer than [`MAX_TAG_LINE_BYTES`] as written ([`tag_line_bytes`]).
pub fn tag_refusal(name: &str, value: &str) -> Option<String> {
    if !is_tag_name(name.as_bytes()) {
        return Some(format!(
            "`{name}` is not a PGN tag name (letters, digits and _+#=:- , a letter or digit first)"
        ));
    }
    if value.contains(['\n', '\r']) {
        return Some(format!("the value of {name} must be one line"));
    }
    if value.contains('\0') {
        return Some(format!(
            "the value of {name} holds a NUL byte, which PGN text never holds"
        ));
    }
    let bytes = tag_line_bytes(name, value);
    (bytes > MAX_TAG_LINE_BYTES).then(|| {
        format!(
            "tag {name}: its line would be {bytes} bytes as PGN, more than the {} KiB ({MAX_TAG_LINE_BYTES} bytes) a tag line may hold (a game with a longer one is refused by the import)",
            MAX_TAG_LINE_BYTES >> 10
        )
    })
}
