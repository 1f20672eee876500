//! One stored chess game as JSON, ready for a viewer: its tags in file order, its start
//! position, and every move of the main line and of the variations with SAN, UCI, the FEN
//! after it, its comments and NAGs.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode};
use tabiya_pgn::{Node, Variation};

use crate::database::{Db, Kind};
use crate::error::{Error, Result};

/// A tag.
#[derive(Debug, Clone, Serialize)]
pub struct Tag {
    pub name: String,
    pub value: String,
}

/// A move of the game or of a variation.
#[derive(Debug, Clone, Serialize)]
pub struct GameMove {
    /// Half-move number from the game's start (1 = the first move).
    pub ply: u32,
    pub san: String,
    pub uci: String,
    /// The position after the move.
    pub fen: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    /// Numeric annotation glyphs (`$1` = good move …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<u8>,
    /// Alternatives to this move, each from the position before it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<GameVariation>,
}

/// An alternative line.
#[derive(Debug, Clone, Serialize)]
pub struct GameVariation {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    pub moves: Vec<GameMove>,
}

/// A whole game.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameJson {
    /// The game's number, as a string like the game lists' `id` (Lichess's shape).
    pub id: String,
    pub tags: Vec<Tag>,
    /// The position before the first move.
    pub start_fen: String,
    pub result: &'static str,
    /// Comments before the first move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    pub moves: Vec<GameMove>,
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn line(start: &Chess, ply: u32, nodes: &[Node], mode: CastlingMode) -> Vec<GameMove> {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let before = pos.clone();
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, n.mv).to_string();
        let ply = ply + i as u32;
        out.push(GameMove {
            ply,
            san,
            uci: UciMove::from_move(n.mv, mode).to_string(),
            fen: fen(&pos),
            comments: n.comments.clone(),
            nags: n.nags.clone(),
            variations: n
                .variations
                .iter()
                .map(|v: &Variation| GameVariation {
                    comments: v.comments.clone(),
                    moves: line(&before, ply, &v.moves, mode),
                })
                .collect(),
        });
    }
    out
}

/// The game a set or a database names `id` (`MEMBER:ID` in a set, see
/// [`crate::dbset::ids`]), as JSON.
pub fn game_named(db: &Db, id: &str) -> Result<GameJson> {
    let (m, n) = crate::dbset::ids::parse(db, id)?;
    let mut g = game(&db.member(m), n)?;
    g.id = crate::dbset::ids::name(db, m, n);
    Ok(g)
}

/// Game `id` of a chess database as JSON (`NotFound` when there is none).
pub fn game(db: &Db, id: u32) -> Result<GameJson> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its games are listed with their moves",
            db.dir().display()
        )));
    }
    let snap = db.inner()?.snapshot()?;
    let g = snap
        .chess_game(id)?
        .ok_or_else(|| Error::not_found(format!("no game {id} in {}", db.dir().display())))?;
    Ok(GameJson {
        id: id.to_string(),
        tags: g
            .tags
            .iter()
            .map(|(name, value)| Tag {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
        start_fen: fen(&g.start),
        result: g.result_str(),
        comments: g.comments.clone(),
        moves: main_line(&g),
    })
}

/// The main line, its null moves (`--`, UCI `0000`, as python-chess writes them) and the
/// moves after them included.
fn main_line(g: &tabiya_pgn::Game) -> Vec<GameMove> {
    let mut moves = line(&g.start, 1, &g.moves, g.castling_mode);
    let mut pos = g.indexed_end();
    for null in &g.after_null {
        let Some(after) = tabiya_pgn::model::play_null(&pos) else {
            break;
        };
        pos = after;
        let ply = moves.len() as u32 + 1;
        moves.push(GameMove {
            ply,
            san: "--".to_string(),
            uci: "0000".to_string(),
            fen: fen(&pos),
            comments: null.comments.clone(),
            nags: null.nags.clone(),
            variations: Vec::new(),
        });
        moves.extend(line(&pos, ply + 1, &null.moves, g.castling_mode));
        for n in &null.moves {
            shakmaty::Position::play_unchecked(&mut pos, n.mv);
        }
    }
    moves
}
