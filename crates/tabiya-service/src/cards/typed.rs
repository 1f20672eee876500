//! A move as a player types it: SAN (`Nf3`, `exd5`, `O-O`, `e8=Q+`) or UCI (`g1f3`, `e1g1`
//! or `e1h1` for castling), with an optional mark of how sure the player was: `!` (easy) or
//! `?` (hard) after the move.

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move};

use crate::error::{Error, Result};

/// How the player marked a right answer: SM-2's quality 5 (`!`), 3 (`?`), or 4 unmarked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Easy,
    Hard,
}

/// The legal move `text` means in `pos`, and its mark. Errors say the text is not a move,
/// or not a legal one here.
pub fn read_move(pos: &Chess, text: &str) -> Result<(Move, Option<Mark>)> {
    let t = text.trim();
    let bare = t.trim_end_matches(['!', '?', '+', '#']);
    let marks = &t[bare.len()..];
    let mark = if marks.contains('?') {
        Some(Mark::Hard)
    } else if marks.contains('!') {
        Some(Mark::Easy)
    } else {
        None
    };
    if bare.is_empty() {
        return Err(Error::bad_request(
            "give a move, in SAN (Nf3) or UCI (g1f3)",
        ));
    }
    if let Ok(u) = bare.parse::<UciMove>() {
        return u
            .to_move(pos)
            .map(|m| (m, mark))
            .map_err(|_| Error::bad_request(format!("{bare} is not a legal move here")));
    }
    // Castling written with zeros, as some do.
    let san_text = match bare {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        other => other,
    };
    match san_text.parse::<San>() {
        Ok(san) => san
            .to_move(pos)
            .map(|m| (m, mark))
            .map_err(|e| Error::bad_request(format!("{bare} is not a legal move here ({e})"))),
        Err(_) => Err(Error::bad_request(format!(
            "{bare:?} is not a move: write it in SAN (Nf3, O-O) or UCI (g1f3)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::view::uci;

    fn after(moves: &[&str]) -> Chess {
        use shakmaty::Position as _;
        let mut pos = Chess::default();
        for m in moves {
            let mv = read_move(&pos, m).unwrap().0;
            pos.play_unchecked(mv);
        }
        pos
    }

    #[test]
    fn san_uci_and_marks() {
        let pos = Chess::default();
        for (text, want, mark) in [
            ("Nf3", "g1f3", None),
            ("g1f3", "g1f3", None),
            (" Nf3! ", "g1f3", Some(Mark::Easy)),
            ("e4?", "e2e4", Some(Mark::Hard)),
            ("e4!?", "e2e4", Some(Mark::Hard)),
        ] {
            let (m, k) = read_move(&pos, text).unwrap();
            assert_eq!((uci(&pos, m).as_str(), k), (want, mark), "{text}");
        }
        // Castling, any notation.
        let pos = after(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]);
        for text in ["O-O", "0-0", "e1g1", "e1h1", "O-O+"] {
            assert_eq!(
                uci(&pos, read_move(&pos, text).unwrap().0),
                "e1g1",
                "{text}"
            );
        }
    }

    #[test]
    fn wrong_text_is_a_clear_error() {
        let pos = Chess::default();
        for (text, says) in [
            ("Nf6", "not a legal move"),
            ("e2e5", "not a legal move"),
            ("hello", "not a move"),
            ("", "give a move"),
            ("!!", "give a move"),
        ] {
            let e = read_move(&pos, text).unwrap_err();
            assert!(e.to_string().contains(says), "{text}: {e}");
            assert_eq!(e.kind(), crate::ErrorKind::BadRequest);
        }
    }
}
