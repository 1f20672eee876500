//! Writing games as PGN (export format: Seven Tag Roster first, lines of at most 80
//! characters, canonical SAN).

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Position};

use crate::model::{Game, Node, SEVEN_TAG_ROSTER};

/// Appends a tag value escaped (`\` and `"`).
fn push_escaped(value: &str, out: &mut String) {
    if !value.contains(['\\', '"']) {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Appends the movetext tokens of a line. Comments and variations are single tokens so that
/// wrapping never changes a comment's text.
fn line_tokens(pos: &Chess, nodes: &[Node], mut force_number: bool, toks: &mut Vec<String>) {
    let mut pos = pos.clone();
    for node in nodes {
        let before = pos.clone();
        let number = pos.fullmoves().get();
        if pos.turn() == Color::White {
            toks.push(format!("{number}."));
        } else if force_number {
            toks.push(format!("{number}..."));
        }
        toks.push(SanPlus::from_move_and_play_unchecked(&mut pos, node.mv).to_string());
        force_number = false;
        for nag in &node.nags {
            toks.push(format!("${nag}"));
        }
        for c in &node.comments {
            toks.push(comment_token(c));
            force_number = true;
        }
        for var in &node.variations {
            let mut inner = Vec::new();
            for c in &var.comments {
                inner.push(comment_token(c));
            }
            line_tokens(&before, &var.moves, true, &mut inner);
            if inner.is_empty() {
                continue;
            }
            inner[0].insert(0, '(');
            inner.last_mut().expect("non-empty").push(')');
            toks.extend(inner);
            force_number = true;
        }
    }
}

/// The main line's null moves (written `--`, as python-chess writes them) and the moves
/// after each.
fn null_tokens(game: &Game, toks: &mut Vec<String>) {
    let mut pos = game.indexed_end();
    // A black move needs its number after a comment or a variation (or at the start).
    let mut force = game
        .moves
        .last()
        .is_none_or(|n| !n.comments.is_empty() || !n.variations.is_empty());
    for null in &game.after_null {
        let number = pos.fullmoves().get();
        if pos.turn() == Color::White {
            toks.push(format!("{number}."));
        } else if force {
            toks.push(format!("{number}..."));
        }
        toks.push("--".to_string());
        for nag in &null.nags {
            toks.push(format!("${nag}"));
        }
        force = false;
        for c in &null.comments {
            toks.push(comment_token(c));
            force = true;
        }
        let Some(after) = crate::model::play_null(&pos) else {
            return;
        };
        pos = after;
        line_tokens(&pos, &null.moves, force, toks);
        for n in &null.moves {
            pos.play_unchecked(n.mv);
        }
        if let Some(last) = null.moves.last() {
            force = !last.comments.is_empty() || !last.variations.is_empty();
        }
    }
}

/// A comment as one token. PGN has no escape for `}` inside a comment: it is dropped, as
/// python-chess does.
fn comment_token(text: &str) -> String {
    format!("{{{}}}", text.replace('}', "").trim())
}

/// Joins tokens with spaces into lines of at most 80 characters (a longer token stands alone).
fn wrap(tokens: &[String], out: &mut String) {
    let mut line_len = 0;
    for tok in tokens {
        if line_len > 0 {
            if line_len + 1 + tok.len() > 80 {
                out.push('\n');
                line_len = 0;
            } else {
                out.push(' ');
                line_len += 1;
            }
        }
        out.push_str(tok);
        line_len += tok.len();
    }
}

/// Writes one game as PGN text, ending with a blank line.
pub fn write_game(game: &Game, out: &mut String) {
    let result = game.result_str();
    for name in SEVEN_TAG_ROSTER {
        let value = if name == "Result" {
            result
        } else {
            game.tag(name).unwrap_or("?")
        };
        write_tag(name, value, out);
    }
    for (name, value) in other_tags(game) {
        write_tag(name, value, out);
    }
    out.push('\n');
    write_movetext(game, out);
    out.push_str("\n\n");
}

/// One tag line, `[Name "value"]` and its line end, the value escaped.
pub fn write_tag(name: &str, value: &str, out: &mut String) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    push_escaped(value, out);
    out.push_str("\"]\n");
}

/// The tags [`write_game`] writes after the Seven Tag Roster, in the game's order: every
/// tag but the roster's (a repeated roster tag too) and those whose name is not a PGN
/// symbol ([`crate::bounds::is_tag_name`]: what PGN can hold, and what an edit may set).
pub fn other_tags(game: &Game) -> impl Iterator<Item = (&str, &str)> {
    game.tags
        .iter()
        .filter(|(name, _)| {
            !SEVEN_TAG_ROSTER.contains(&name.as_str())
                && crate::bounds::is_tag_name(name.as_bytes())
        })
        .map(|(n, v)| (n.as_str(), v.as_str()))
}

/// The movetext [`write_game`] writes (comments before the first move, moves, NAGs,
/// comments, variations, the result), in lines of at most 80 characters, without a line end
/// after the last.
pub fn write_movetext(game: &Game, out: &mut String) {
    let mut toks: Vec<String> = game.comments.iter().map(|c| comment_token(c)).collect();
    line_tokens(&game.start, &game.moves, true, &mut toks);
    null_tokens(game, &mut toks);
    toks.push(game.result_str().to_string());
    wrap(&toks, out);
}

/// Writes one game as a PGN string.
pub fn game_to_string(game: &Game) -> String {
    let mut s = String::new();
    write_game(game, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use crate::parse::parse_game;

    use super::*;

    #[test]
    fn round_trip_keeps_everything() {
        let pgn = "[Event \"T \\\"x\\\"\"]\n[Site \"?\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[WhiteElo \"2500\"]\n\n{intro} 1. e4 $1 {good} e5 (1... c5 {sic} 2. Nf3 (2. c3) d6) 2. Nf3 Nc6 1-0\n\n";
        let g = parse_game(pgn.as_bytes(), 1).unwrap();
        let out = game_to_string(&g);
        let g2 = parse_game(out.as_bytes(), 1).unwrap();
        assert_eq!(g.tags, g2.tags);
        assert_eq!(g.moves, g2.moves);
        assert_eq!(g.comments, g2.comments);
        assert!(
            out.contains("(1... c5 {sic} 2. Nf3 (2. c3) 2... d6)"),
            "{out}"
        );
        assert!(out.contains("[Event \"T \\\"x\\\"\"]"));
    }

    #[test]
    fn long_games_wrap_at_80() {
        let mut pgn = String::from("1. Nf3 Nf6 ");
        for i in 2..60 {
            pgn.push_str(&format!("{i}. Ng1 Ng8 {}. Nf3 Nf6 ", i));
        }
        pgn.push('*');
        let g = parse_game(pgn.as_bytes(), 1).unwrap();
        let out = game_to_string(&g);
        assert!(out.lines().all(|l| l.len() <= 80));
    }
}
