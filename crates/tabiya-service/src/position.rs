//! A chess position as a user gives it: a FEN (or `startpos`) and moves played from it, in
//! UCI or SAN, separated by commas or spaces, with move numbers and a result if the user
//! writes them (`1. e4 c5 2. Nf3`; `tabiya_pgn::typed`).

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

use crate::error::{Context, Error, ErrorKind, Result};

/// A chess position, resolved, with the line that led to it (for naming its opening).
#[derive(Debug, Clone)]
pub struct ChessPosition {
    pub pos: Chess,
    /// How castling is written (Chess960 when the FEN needs it).
    pub mode: CastlingMode,
    /// Every position from the start to this one.
    pub line: Vec<Chess>,
    /// The position the moves were played from, and the moves (for an engine, which is
    /// told the moves so that it knows the repetitions).
    pub start: Chess,
    pub moves: Vec<shakmaty::Move>,
    /// The position's FEN (en passant only when a capture there is legal).
    pub fen: String,
}

impl ChessPosition {
    /// The position after a move given in UCI (`None` when it is not a legal move here).
    pub fn after_uci(&self, uci: &str) -> Option<Chess> {
        let m = uci.parse::<UciMove>().ok()?.to_move(&self.pos).ok()?;
        let mut child = self.pos.clone();
        child.play_unchecked(m);
        Some(child)
    }

    /// A move of this position given in UCI, in SAN (`None` when it is not legal here).
    pub fn san_of(&self, uci: &str) -> Option<String> {
        let m = uci.parse::<UciMove>().ok()?.to_move(&self.pos).ok()?;
        Some(shakmaty::san::SanPlus::from_move(self.pos.clone(), m).to_string())
    }

    /// The standard starting position.
    pub fn start() -> ChessPosition {
        ChessPosition::resolve(None, None).expect("the start position is legal")
    }

    /// Resolves `fen` (absent or `startpos`: the standard start) and the moves of `play`
    /// from it. Errors name the FEN, or the move and its number.
    pub fn resolve(fen: Option<&str>, play: Option<&str>) -> Result<ChessPosition> {
        let (start, mode) = match fen {
            Some(f) if f != "startpos" => {
                let fen = Fen::from_ascii(f.trim().as_bytes())
                    .context(ErrorKind::BadRequest, || format!("invalid FEN {f:?}"))?;
                let mode = CastlingMode::detect(fen.as_setup());
                let pos: Chess = fen
                    .into_position(mode)
                    .context(ErrorKind::BadRequest, || format!("illegal position {f:?}"))?;
                (pos, mode)
            }
            _ => (Chess::default(), CastlingMode::Standard),
        };
        let mut pos = start.clone();
        let mut line = vec![pos.clone()];
        let mut moves = Vec::new();
        if let Some(play) = play {
            let played = tabiya_pgn::typed::play_line(&start, play)
                .map_err(|(message, _)| Error::bad_request(message))?;
            for m in played {
                pos.play_unchecked(m);
                moves.push(m);
                line.push(pos.clone());
            }
        }
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        Ok(ChessPosition {
            pos,
            mode,
            line,
            start,
            moves,
            fen,
        })
    }
}
