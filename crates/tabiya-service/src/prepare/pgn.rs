//! The tree as one PGN game with variations, written by `tabiya-pgn`'s writer: the main
//! line is the most played move of each position, the others its variations, in the
//! reading order of [`super::walk`]; after each move a comment with its games, the player's
//! wins, draws and losses and score, and their latest game in the line — `{12 games, +5 =4
//! -3, 58.3%; latest 1972.07.11 Spassky, Boris V, Reykjavik WCh, game 812}` — and, for a
//! position continued elsewhere, `transposes to 1. d4 Nf6 2. c4`.

use std::collections::HashMap;
use std::path::Path;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use tabiya_pgn::{Game, Node, Variation};

use super::walk::{continued_here, numbered};
use super::{Colour, PrepMove, PrepPosition, Preparation, Score};
use crate::error::{Context, Error, ErrorKind, Result};

/// `12 games, +5 =4 -3, 58.3%`.
pub(super) fn score_text(s: &Score) -> String {
    let pct = s.score.map_or("-".to_string(), |p| format!("{p:.1}%"));
    format!(
        "{} game{}, +{} ={} -{}, {pct}",
        s.games,
        if s.games == 1 { "" } else { "s" },
        s.wins,
        s.draws,
        s.losses
    )
}

fn comment(mv: &PrepMove, to: &PrepPosition, continued: bool) -> String {
    let l = &mv.latest;
    let mut text = format!(
        "{}; latest {} {}, {}, game {}",
        score_text(&mv.score),
        l.date,
        l.opponent,
        l.event,
        l.id
    );
    if !continued {
        text.push_str(&format!("; transposes to {}", numbered(&to.line)));
    }
    text
}

struct Builder<'a> {
    prep: &'a Preparation,
    index: HashMap<&'a str, usize>,
}

impl Builder<'_> {
    /// The moves from `from` (at `pos`): the first with the others as its variations, then
    /// what follows the first.
    fn line(&self, from: &PrepPosition, pos: &Chess) -> Result<Vec<Node>> {
        let mut out = Vec::new();
        let mut rest = Vec::new();
        for (i, mv) in from.moves.iter().enumerate() {
            let to = &self.prep.positions[self.index[mv.to.as_str()]];
            let continued = continued_here(from, mv, to);
            let m = UciMove::from_ascii(mv.uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(pos).ok())
                .ok_or_else(|| Error::bad_input(format!("move {} is not legal", mv.uci)))?;
            let mut node = Node::new(m);
            node.comments.push(comment(mv, to, continued));
            let after = if continued {
                let mut next = pos.clone();
                next.play_unchecked(m);
                self.line(to, &next)?
            } else {
                Vec::new()
            };
            if i == 0 {
                out.push(node);
                rest = after;
            } else {
                let mut moves = vec![node];
                moves.extend(after);
                out[0].variations.push(Variation {
                    comments: Vec::new(),
                    moves,
                });
            }
        }
        out.extend(rest);
        Ok(out)
    }
}

/// The preparation as PGN text.
pub fn render_pgn(prep: &Preparation) -> Result<String> {
    let builder = Builder {
        prep,
        index: prep.index(),
    };
    let start = Chess::default();
    let moves = match prep.positions.first() {
        Some(root) => builder.line(root, &start)?,
        None => Vec::new(),
    };
    let colour = match prep.color {
        Colour::White => "White",
        Colour::Black => "Black",
    };
    let mut tags = vec![
        (
            "Event".to_string(),
            format!("Preparation: {} as {colour}", prep.player),
        ),
        ("Site".into(), "Tabiya".into()),
        ("Date".into(), "????.??.??".into()),
        ("Round".into(), "-".into()),
        ("White".into(), "?".into()),
        ("Black".into(), "?".into()),
        ("Result".into(), "*".into()),
        ("Annotator".into(), "tabiya prepare".into()),
    ];
    let who = if prep.color == Colour::White { 4 } else { 5 };
    tags[who].1 = prep.player.clone();
    let since = prep.since.map_or(String::new(), |y| format!(" since {y}"));
    let game = Game {
        tags,
        start,
        castling_mode: CastlingMode::Standard,
        comments: vec![format!(
            "{} as {colour}{since}: {}; the first {} plies, moves of at least {} game{}",
            prep.player,
            score_text(&prep.score),
            prep.depth,
            prep.min_games,
            if prep.min_games == 1 { "" } else { "s" }
        )],
        moves,
        after_null: Vec::new(),
        termination: None,
        warnings: Vec::new(),
    };
    Ok(tabiya_pgn::write::game_to_string(&game))
}

/// Writes the preparation as PGN to `path`.
pub fn write_pgn(prep: &Preparation, path: &Path) -> Result<()> {
    let text = render_pgn(prep)?;
    crate::books::paths::create_parent(path)?;
    std::fs::write(path, text).context(ErrorKind::Io, || format!("cannot write {}", path.display()))
}
