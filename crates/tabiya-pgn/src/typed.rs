//! Moves as a user types them on a command line or in a box (`--play`, a criterion's
//! line): UCI or SAN, separated by spaces or commas, with what a PGN's movetext carries
//! around them — move numbers (`1.`, `12...`, glued as `1.e4`), `...`, annotation glyphs
//! (`!?`), NAGs (`$1`), comments in braces, a result at the end — taken as the page's paste
//! box takes them. A word that is no move at all is told from a move not legal here.

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

/// One move word of a typed line: its text (numbers and glyphs removed) and where the word
/// begins in the line (a byte offset), for messages that point at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'a> {
    pub text: &'a str,
    pub at: usize,
}

/// Why a word could not be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordError {
    /// Not written as a move (`xx`, `e9`).
    NotAMove,
    /// A move, but not one of the legal moves here (or one of several: ambiguous).
    NotLegal,
    /// A move of several pieces alike, not saying which (`Nd2` with two knights able to).
    Ambiguous,
}

/// Results, which end a line.
const RESULTS: [&str; 5] = ["1-0", "0-1", "1/2-1/2", "½-½", "*"];

/// The move words of `line`, in order: numbers, `...`, glyphs, NAGs and comments left out,
/// the words after a result ignored.
pub fn words<'a>(line: &'a str) -> Vec<Word<'a>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    let push = |from: usize, to: usize, out: &mut Vec<Word<'a>>| -> bool {
        let raw = &line[from..to];
        if RESULTS.contains(&raw) {
            return false;
        }
        // A move number, possibly glued to its move (`12.e4`, `12...Nf6`), and `...`.
        let after_digits = raw.trim_start_matches(|c: char| c.is_ascii_digit());
        let text = if after_digits.len() < raw.len() && after_digits.starts_with('.') {
            after_digits.trim_start_matches('.')
        } else {
            raw.trim_start_matches('.')
        };
        let text = text.trim_end_matches(['!', '?']);
        if text.is_empty() || text.starts_with('$') || text.chars().all(|c| "!?".contains(c)) {
            return true;
        }
        // `text` is a slice of `line`: its offset there.
        let at = text.as_ptr() as usize - line.as_ptr() as usize;
        out.push(Word { text, at });
        true
    };
    for (i, c) in line.char_indices() {
        match c {
            '{' => {
                if let Some(s) = start.take()
                    && !push(s, i, &mut out)
                {
                    return out;
                }
                depth += 1;
            }
            '}' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            c if c.is_whitespace() || c == ',' => {
                if let Some(s) = start.take()
                    && !push(s, i, &mut out)
                {
                    return out;
                }
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if let Some(s) = start {
        push(s, line.len(), &mut out);
    }
    out
}

/// The legal move `word` means in `pos`: UCI (either castling notation), or SAN written
/// leniently (`0-0` for `O-O`, a check mark or not).
pub fn resolve(pos: &Chess, word: &str) -> Result<Move, WordError> {
    let word = word.trim_end_matches(['+', '#']);
    let castle = match word {
        "0-0" => Some("O-O"),
        "0-0-0" => Some("O-O-O"),
        _ => None,
    };
    let word = castle.unwrap_or(word);
    if let Ok(uci) = word.parse::<UciMove>() {
        return uci.to_move(pos).map_err(|_| WordError::NotLegal);
    }
    match word.parse::<San>() {
        Ok(san) => san.to_move(pos).map_err(|e| match e {
            shakmaty::san::SanError::AmbiguousSan => WordError::Ambiguous,
            shakmaty::san::SanError::IllegalSan => WordError::NotLegal,
        }),
        Err(_) => Err(WordError::NotAMove),
    }
}

/// How a move of `pos`'s side is numbered in notation: `12.` for White, `12...` for Black.
pub fn move_number(pos: &Chess) -> String {
    let n = pos.fullmoves();
    match pos.turn() {
        Color::White => format!("{n}."),
        Color::Black => format!("{n}..."),
    }
}

/// A message for a word that cannot be played in `pos`: `move 2... "e4": not legal here`.
pub fn word_message(pos: &Chess, word: &str, e: &WordError) -> String {
    let number = move_number(pos);
    match e {
        WordError::NotAMove => format!(
            "move {number} {word:?}: not a move (write moves like e4, Nf3, O-O, e7e8=Q or e2e4)"
        ),
        WordError::NotLegal => format!(
            "move {number} {word:?}: not legal here ({} to move)",
            if pos.turn() == Color::White {
                "White"
            } else {
                "Black"
            }
        ),
        WordError::Ambiguous => {
            format!("move {number} {word:?}: ambiguous here (say which piece: Nbd2, R1e1)")
        }
    }
}

/// Plays every word of `line` from `start`: the positions' moves, or the message naming the
/// first word that cannot be played and where it begins.
pub fn play_line(start: &Chess, line: &str) -> Result<Vec<Move>, (String, usize)> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for w in words(line) {
        let m = resolve(&pos, w.text).map_err(|e| (word_message(&pos, w.text, &e), w.at))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<&str> {
        words(line).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn numbers_glyphs_comments_and_results_are_not_moves() {
        assert_eq!(texts("1. e4 c5 2. Nf3"), ["e4", "c5", "Nf3"]);
        assert_eq!(texts("1.e4 c5 2.Nf3 d6"), ["e4", "c5", "Nf3", "d6"]);
        assert_eq!(texts("1... c5 2. Nf3"), ["c5", "Nf3"]);
        assert_eq!(texts("12...Nf6 13. O-O"), ["Nf6", "O-O"]);
        assert_eq!(texts("e2e4,c7c5, g1f3"), ["e2e4", "c7c5", "g1f3"]);
        assert_eq!(
            texts("1. e4!? c5?! $6 {Sicilian} 2. Nf3 1-0 3. d4"),
            ["e4", "c5", "Nf3"]
        );
        assert_eq!(texts("1. e4 ... c5 *"), ["e4", "c5"]);
        assert_eq!(texts("  "), Vec::<&str>::new());
        let w = words("1. e4 c5");
        assert_eq!((w[0].at, w[1].at), (3, 6));
        assert_eq!(words("1.e4")[0].at, 2);
    }

    #[test]
    fn a_word_that_is_no_move_is_told_from_an_illegal_move() {
        let start = Chess::default();
        let moves = play_line(&start, "1. e4 c5 2. Nf3").unwrap();
        let uci: Vec<String> = moves
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(uci, ["e2e4", "c7c5", "g1f3"]);
        assert_eq!(
            play_line(&start, "0-0").unwrap_err().0,
            "move 1. \"0-0\": not legal here (White to move)"
        );
        let (msg, at) = play_line(&start, "1. e4 xx").unwrap_err();
        assert!(msg.starts_with("move 1... \"xx\": not a move"), "{msg}");
        assert_eq!(at, 6);
        let (msg, _) = play_line(&start, "1. e4 e4").unwrap_err();
        assert_eq!(msg, "move 1... \"e4\": not legal here (Black to move)");
        assert_eq!(
            play_line(&start, "e4 e5 Nf3 Nc6 Bc4 Nf6 0-0").map(|m| m.len()),
            Ok(7),
            "0-0 is O-O"
        );
        assert_eq!(resolve(&start, "e2e5"), Err(WordError::NotLegal));
        assert_eq!(resolve(&start, "e9"), Err(WordError::NotAMove));
    }
}
