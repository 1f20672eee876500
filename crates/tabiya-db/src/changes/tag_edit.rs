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

/// Whether a tag name is a PGN symbol: a letter or digit first, then letters, digits and
/// `_+#=:-`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || "_+#=:-".contains(c))
}

/// Checks an edit: a tag name PGN can hold, a value on one line, a Result PGN knows; the
/// start position (FEN, SetUp) is part of the moves and is not a tag to edit.
pub fn check(edit: &TagEdit) -> Result<()> {
    let name = edit.name();
    if !valid_name(name) {
        return Err(Error::Usage(format!(
            "`{name}` is not a PGN tag name (letters, digits and _+#=:- , a letter or digit first)"
        )));
    }
    if name == "FEN" || name == "SetUp" {
        return Err(Error::Usage(format!(
            "{name} says where the moves start: changing it would change the game's moves, which an edit of tags does not do"
        )));
    }
    match edit {
        TagEdit::Set(_, value) => {
            if value.contains(['\n', '\r']) {
                return Err(Error::Usage(format!(
                    "the value of {name} must be one line"
                )));
            }
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
}
