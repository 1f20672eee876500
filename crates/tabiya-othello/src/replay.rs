//! Replaying a transcript (passes implicit, as in WTHOR): each position's canonical key, the
//! move played in canonical orientation, the symmetry used.

use serde::Serialize;

use crate::board::{Board, Color, MoveError};
use crate::square::Square;
use crate::symmetry::{Canonical, canonicalize};

/// One move of a replayed game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// 0-based index of the move in the transcript (passes are not counted).
    pub index: usize,
    /// The position before the move, in the transcript's orientation, with the side that plays
    /// the move to move (after any implicit pass).
    pub board: Board,
    /// True when the other side had to pass just before this move.
    pub passed_before: bool,
    /// The move as written in the transcript.
    pub square: Square,
    /// `board` in canonical form: key, symmetry used, own symmetries.
    pub canonical: Canonical,
    /// The move in canonical orientation ([`Canonical::canonical_move`]).
    pub canonical_move: Square,
}

/// An illegal move met during a replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {} ({square}): {error}", index + 1)]
pub struct IllegalMove {
    /// 0-based index of the move in the transcript.
    pub index: usize,
    /// The square.
    pub square: Square,
    /// The position in which it was tried.
    pub board: Board,
    /// What was wrong.
    pub error: MoveError,
}

/// Replays a transcript from the start position (or any board), move by move, passing
/// implicitly when the side to move has no legal move. Stops after the first illegal move,
/// which it yields as an error.
///
/// Each [`Ply`] describes the position *before* a move; the position after the last move is
/// [`Replay::board`] once the iterator is exhausted (it has no move, so it is not yielded).
#[derive(Clone, Debug)]
pub struct Replay<'a> {
    board: Board,
    moves: &'a [Square],
    next: usize,
    failed: bool,
    canonical: bool,
}

impl<'a> Replay<'a> {
    /// A replay of `moves` from the start position.
    pub fn new(moves: &'a [Square]) -> Replay<'a> {
        Replay::from_board(Board::start(), moves)
    }

    /// A replay of `moves` from `board`.
    pub fn from_board(board: Board, moves: &'a [Square]) -> Replay<'a> {
        Replay {
            board,
            moves,
            next: 0,
            failed: false,
            canonical: true,
        }
    }

    /// Skips the canonical form (the [`Ply::canonical`] field then holds the board as it stands
    /// with the identity symmetry): for callers that only need the boards, e.g. validation.
    pub fn without_canonical(mut self) -> Replay<'a> {
        self.canonical = false;
        self
    }

    /// The current board: after the moves yielded so far (before the failed move, if one
    /// failed).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// True when a move failed.
    pub fn failed(&self) -> bool {
        self.failed
    }
}

impl Iterator for Replay<'_> {
    type Item = Result<Ply, IllegalMove>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next >= self.moves.len() {
            return None;
        }
        let index = self.next;
        let square = self.moves[index];
        match self.board.play_or_pass(square) {
            Ok((after, passed)) => {
                let before = if passed {
                    self.board.with_side(self.board.side().other())
                } else {
                    self.board
                };
                let canonical = if self.canonical {
                    canonicalize(&before)
                } else {
                    Canonical {
                        board: before,
                        key: crate::symmetry::PositionKey::of_board(&before),
                        symmetry: crate::symmetry::Symmetry::Identity,
                        stabilizer: 1,
                    }
                };
                let canonical_move = if self.canonical {
                    canonical.canonical_move(square)
                } else {
                    square
                };
                self.board = after;
                self.next += 1;
                Some(Ok(Ply {
                    index,
                    board: before,
                    passed_before: passed,
                    square,
                    canonical,
                    canonical_move,
                }))
            }
            Err(error) => {
                self.failed = true;
                Some(Err(IllegalMove {
                    index,
                    square,
                    board: self.board,
                    error,
                }))
            }
        }
    }
}

/// How a replayed game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameOutcome {
    /// Moves played (legal ones).
    pub moves_played: usize,
    /// Passes that happened between them (implicit in the transcript).
    pub passes: usize,
    /// True when neither side can move at the end.
    pub finished: bool,
    /// Black and white discs on the final board.
    pub discs: (u8, u8),
    /// The final score with empties to the winner (meaningful when `finished`).
    pub score: (u8, u8),
    /// The side to move at the end (after an implicit pass if one is due).
    pub side_to_move: Color,
}

/// Replays a whole transcript quickly (no canonical forms). Returns the outcome, or the first
/// illegal move.
pub fn replay_game(moves: &[Square]) -> Result<(GameOutcome, Board), IllegalMove> {
    let mut board = Board::start();
    let mut passes = 0;
    for (index, &square) in moves.iter().enumerate() {
        match board.play_or_pass(square) {
            Ok((after, passed)) => {
                passes += passed as usize;
                board = after;
            }
            Err(error) => {
                return Err(IllegalMove {
                    index,
                    square,
                    board,
                    error,
                });
            }
        }
    }
    let finished = board.is_game_over();
    if !finished && board.legal_moves() == 0 {
        board = board.with_side(board.side().other());
    }
    Ok((
        GameOutcome {
            moves_played: moves.len(),
            passes,
            finished,
            discs: board.count(),
            score: board.final_score(),
            side_to_move: board.side(),
        },
        board,
    ))
}
