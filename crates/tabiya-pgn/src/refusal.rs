//! Whether the import would refuse a game as a writer writes it: the checks the import
//! makes of a game's bytes ([`crate::bounds`], `parse`), in one place for a writer (an edit,
//! an export, a copy) to ask before it hands a game on. Apart from `bounds`, which the
//! readers use, so that no module loops back to the parser.

use crate::bounds::MAX_GAME_BYTES;

/// Why the import would refuse a game written as `text` (one game's PGN, as the writer
/// writes it), if it would: longer than [`MAX_GAME_BYTES`](crate::bounds::MAX_GAME_BYTES), a NUL byte, a tag line longer
/// than [`MAX_TAG_LINE_BYTES`](crate::bounds::MAX_TAG_LINE_BYTES) — the checks the import makes of a game's bytes before it
/// parses them (`Splitter`, `parse::refuse_long_tags`, `parse::refuse_nul`), here in one
/// place for a writer to ask before it hands a game on.
pub fn text_refusal(text: &[u8]) -> Option<String> {
    if text.len() > MAX_GAME_BYTES {
        return Some(format!(
            "{} bytes as PGN, more than the {} MiB a game may hold (the import refuses it)",
            text.len(),
            MAX_GAME_BYTES >> 20
        ));
    }
    if let Err(e) = crate::parse::refuse_long_tags(text, 1) {
        // Named by its tag: the line's text up to the value.
        let line = text
            .split(|&b| b == b'\n')
            .nth(e.line as usize - 1)
            .unwrap_or(&[]);
        let name = line
            .iter()
            .position(|&b| b == b'[')
            .map(|at| &line[at + 1..])
            .and_then(|rest| rest.split(|&b| b == b' ' || b == b'"').next())
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        return Some(format!("tag {name}: {}", e.reason));
    }
    crate::parse::refuse_nul(text, 1).err().map(|e| e.reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::{MAX_TAG_LINE_BYTES, tag_line_bytes, tag_refusal};

    /// The bound as the writer and both readers see it: a line of exactly
    /// [`MAX_TAG_LINE_BYTES`] is read back by the direct path and the parser; one byte more
    /// is refused by both, and by [`tag_refusal`] and [`text_refusal`].
    #[test]
    fn a_tag_line_at_the_bound_is_read_one_past_is_refused() {
        // `[Annotator "` is 12 bytes, `"]` 2: the value fills the rest.
        for (len, kept) in [
            (MAX_TAG_LINE_BYTES - 14, true),
            (MAX_TAG_LINE_BYTES - 13, false),
        ] {
            let value = "a".repeat(len);
            assert_eq!(tag_line_bytes("Annotator", &value), len + 14);
            assert_eq!(tag_refusal("Annotator", &value).is_none(), kept, "{len}");
            let mut game = crate::parse::parse_game(b"[Event \"x\"]\n\n1. e4 *\n", 1).unwrap();
            game.tags.push(("Annotator".into(), value.clone()));
            let text = crate::write::game_to_string(&game);
            let refusal = text_refusal(text.as_bytes());
            assert_eq!(refusal.is_none(), kept, "{len}");
            if let Some(why) = refusal {
                assert!(
                    why.starts_with("tag Annotator: tag line of 8193 bytes"),
                    "{why}"
                );
            }
            let parsed = crate::parse::parse_game(text.as_bytes(), 1);
            assert_eq!(parsed.is_ok(), kept, "{len}");
            if kept {
                let full = parsed.unwrap();
                assert!(full.tag("Annotator") == Some(value.as_str()));
                let plain = crate::fast::parse_plain(text.as_bytes()).unwrap();
                assert!(plain.tags == full.tags);
            }
        }
    }

    /// Escapes and UTF-8 count: 4,000 `"` make a line of over 8,000 bytes; 5,000 `é` (two
    /// bytes each in UTF-8, one in a Latin-1 file) one of over 10,000.
    #[test]
    fn the_line_is_measured_as_written() {
        assert!(tag_refusal("Event", &"\"".repeat(4000)).is_none());
        assert!(tag_refusal("Event", &"\"".repeat(4100)).is_some());
        assert!(tag_refusal("Event", &"é".repeat(4000)).is_none());
        assert!(tag_refusal("Event", &"é".repeat(5000)).is_some());
        assert!(tag_refusal("Event", "a\0b").is_some());
        assert!(tag_refusal("Event", "a\nb").is_some());
        assert!(tag_refusal("Bad Name", "x").is_some());
        assert!(tag_refusal("_x", "x").is_some());
        assert!(tag_refusal("Foo-Bar+1", "x").is_none());
    }

    /// A Latin-1 file's tag of 5,000 `é` is a line of 5,010 bytes there, but of 10,010 once
    /// stored and written as UTF-8: the import refuses it as it would refuse the line it
    /// writes (both paths), rather than keep a game its own export cannot give back.
    #[test]
    fn a_tag_is_bounded_as_it_will_be_written() {
        let mut text = b"[Event \"".to_vec();
        text.extend(std::iter::repeat_n(0xE9u8, 5000));
        text.extend_from_slice(b"\"]\n\n1. e4 e5 *\n");
        assert!(text.len() < MAX_TAG_LINE_BYTES);
        assert!(crate::fast::parse_plain(&text).is_none());
        let e = crate::parse::parse_game(&text, 1).unwrap_err();
        assert!(e.reason.contains("tag Event: 10010 bytes"), "{e}");
        // 4,000 are 8,010 bytes as UTF-8: kept.
        let mut text = b"[Event \"".to_vec();
        text.extend(std::iter::repeat_n(0xE9u8, 4000));
        text.extend_from_slice(b"\"]\n\n1. e4 e5 *\n");
        assert!(crate::parse::parse_game(&text, 1).is_ok());
    }

    /// Tags whose names hold `_+#=:-` (PGN symbols: the parser reads them, an edit may set
    /// them) are written, and read back.
    #[test]
    fn symbol_names_are_written_and_read_back() {
        let g = crate::parse::parse_game(
            b"[Event \"x\"]\n[Foo-Bar \"1\"]\n[A+B#C=D:E \"2\"]\n[_x \"3\"]\n\n1. e4 *\n",
            1,
        )
        .unwrap();
        let back =
            crate::parse::parse_game(crate::write::game_to_string(&g).as_bytes(), 1).unwrap();
        assert_eq!(back.tag("Foo-Bar"), Some("1"));
        assert_eq!(back.tag("A+B#C=D:E"), Some("2"));
        // Not a PGN symbol: not written (and an edit cannot set it).
        assert_eq!(back.tag("_x"), None);
    }
}
