//! One change to a chess game's tags, checked before anything is written.

use tabiya_pgn::model::Game;

use crate::{Error, Result};

/// A change to a game's tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagEdit {
    /// Sets a tag (its first occurrence; added at the end when the game has none).
    Set(String, String),
    /// Removes every occurrence of a tag.
    Unset(String),
}

impl TagEdit {
    pub fn name(&self) -> &str {
        match self {
            TagEdit::Set(n, _) | TagEdit::Unset(n) => n,
        }
    }

    /// Reads `TAG=VALUE` (a `--set`).
    pub fn parse_set(s: &str) -> Result<TagEdit> {
        let Some((name, value)) = s.split_once('=') else {
            return Err(Error::Usage(format!(
                "`{s}`: a tag to set is written TAG=VALUE (e.g. Result=1-0)"
            )));
        };
        Ok(TagEdit::Set(name.trim().to_string(), value.to_string()))
    }
}

/// Checks an edit: what the import would refuse in a tag is refused here, by the one check
/// they share ([`tabiya_pgn::bounds::tag_refusal`]: a PGN tag name, a value on one line
/// without a NUL byte, a line within the bound as written), so that an edited game is one
/// every copy of the database (export, merge, subset, Parquet) reads back; a Result PGN
/// knows; the start position and how the moves are read (FEN, SetUp, Variant) are part of
/// the moves and are not tags to edit.
pub fn check(edit: &TagEdit) -> Result<()> {
    let name = edit.name();
    match edit {
        TagEdit::Set(_, value) => {
            if let Some(why) = tabiya_pgn::bounds::tag_refusal(name, value) {
                return Err(Error::Usage(why));
            }
        }
        // Any tag a game holds can go (one whose name is not a PGN symbol too: the writer
        // leaves it out).
        TagEdit::Unset(_) if name.is_empty() => {
            return Err(Error::Usage("no tag name to unset".into()));
        }
        TagEdit::Unset(_) => {}
    }
    if name == "FEN" || name == "SetUp" || name == "Variant" {
        return Err(Error::Usage(format!(
            "{name} says where the moves start and how they are read: changing it would change the game's moves, which an edit of tags does not do"
        )));
    }
    match edit {
        TagEdit::Set(_, value) => {
            if name == "Result" && !matches!(value.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                return Err(Error::Usage(format!(
                    "Result `{value}`: a result is 1-0, 0-1, 1/2-1/2 or *"
                )));
            }
        }
        TagEdit::Unset(_) => {
            if name == "Result" {
                return Err(Error::Usage(
                    "every game has a Result (the Seven Tag Roster); set it to * for an unknown one"
                        .into(),
                ));
            }
        }
    }
    Ok(())
}

/// Applies edits (already checked) to a game's tags. Returns whether anything changed.
pub fn apply(game: &mut Game, edits: &[TagEdit]) -> bool {
    let before = game.tags.clone();
    for edit in edits {
        match edit {
            TagEdit::Set(name, value) => {
                match game.tags.iter_mut().find(|(n, _)| n == name) {
                    Some((_, v)) => v.clone_from(value),
                    None => game.tags.push((name.clone(), value.clone())),
                }
                if name == "Result" {
                    // The result is the tag's from now on, not what the movetext ended with.
                    game.termination = None;
                }
            }
            TagEdit::Unset(name) => game.tags.retain(|(n, _)| n != name),
        }
    }
    game.tags != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_checked_and_applied() {
        assert!(check(&TagEdit::parse_set("Result=1-0").unwrap()).is_ok());
        assert!(check(&TagEdit::parse_set("Result=2-0").unwrap()).is_err());
        assert!(check(&TagEdit::parse_set("FEN=8/8/8/8/8/8/8/8 w - - 0 1").unwrap()).is_err());
        assert!(check(&TagEdit::Unset("Result".into())).is_err());
        assert!(check(&TagEdit::parse_set("Bad Name=x").unwrap()).is_err());
        assert!(check(&TagEdit::parse_set("Annotator=a\nb").unwrap()).is_err());
        assert!(TagEdit::parse_set("NoEquals").is_err());
        let mut g =
            tabiya_pgn::parse::parse_game(b"[White \"A\"]\n[WhiteElo \"2000\"]\n\n1. e4 *\n", 1)
                .unwrap();
        assert!(apply(
            &mut g,
            &[
                TagEdit::Set("White".into(), "B".into()),
                TagEdit::Unset("WhiteElo".into()),
                TagEdit::Set("Annotator".into(), "C".into()),
            ]
        ));
        assert_eq!(
            g.tags,
            vec![
                ("White".to_string(), "B".to_string()),
                ("Annotator".to_string(), "C".to_string())
            ]
        );
        assert!(!apply(&mut g, &[TagEdit::Set("White".into(), "B".into())]));
    }

    /// What the import refuses in a tag is refused in an edit: `[Annotator "…"]` is 14 bytes
    /// besides the value, so 8,178 bytes of value make a line of 8,192 (kept) and 8,179 one
    /// of 8,193 (refused, naming the tag and the bound); a NUL byte; a line end; a name that
    /// is not a PGN symbol; the tags that say how the moves are read.
    #[test]
    fn edits_keep_to_the_bounds_of_the_import() {
        let set = |n: &str, v: &str| check(&TagEdit::Set(n.into(), v.into()));
        assert!(set("Annotator", &"a".repeat(8178)).is_ok());
        let e = set("Annotator", &"a".repeat(8179)).unwrap_err().to_string();
        assert!(
            e.contains("tag Annotator") && e.contains("8193 bytes"),
            "{e}"
        );
        assert!(e.contains("8 KiB (8192 bytes)"), "{e}");
        assert!(set("Annotator", "a\0b").is_err());
        assert!(set("Annotator", "a\rb").is_err());
        assert!(set("Variant", "Atomic").is_err());
        assert!(set("Foo-Bar", "1").is_ok());
        assert!(set("_x", "1").is_err());
        assert!(check(&TagEdit::Unset("_x".into())).is_ok());
        assert!(check(&TagEdit::Unset("".into())).is_err());
    }
}
