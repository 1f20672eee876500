//! An Othello position as a user gives it: a line of moves from the start, like
//! `f5d6c3d3c4`, in any of the 8 orientations.

use crate::error::Result;

/// An Othello position, resolved.
#[derive(Debug, Clone)]
pub struct OthelloPosition {
    pub(crate) asked: tabiya_db::othello::AskedPosition,
}

impl OthelloPosition {
    /// The position after `line` (empty: the start). An illegal move is a `BadRequest`
    /// naming it.
    pub fn from_line(line: &str) -> Result<OthelloPosition> {
        Ok(OthelloPosition {
            asked: tabiya_db::othello::AskedPosition::from_line(line)?,
        })
    }
}
