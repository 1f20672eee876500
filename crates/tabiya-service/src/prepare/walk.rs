//! The tree in reading order: from the start, each position's moves most played first,
//! each followed by what comes after it — depth first, as a book or a PGN reads. A position
//! reached by several move orders is continued once, after the fewest moves (its `line`);
//! elsewhere its move says where (a transposition).

use std::collections::HashMap;

use super::{PrepMove, PrepPosition, Preparation};

/// One move in reading order.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// Moves before it (0 for the first move).
    pub depth: usize,
    pub from: &'a PrepPosition,
    pub mv: &'a PrepMove,
    /// The position it leads to.
    pub to: &'a PrepPosition,
    /// Whether that position is continued here (else it is a transposition into the
    /// position continued after `to.line`).
    pub continued: bool,
}

/// Whether the position `to`, reached from `from` by `mv`, is continued after this move:
/// its line is `from`'s and the move.
pub fn continued_here(from: &PrepPosition, mv: &PrepMove, to: &PrepPosition) -> bool {
    to.line.len() == from.line.len() + 1
        && to.line[..from.line.len()] == from.line[..]
        && to.line.last() == Some(&mv.san)
}

/// Every move of the tree shown, in reading order.
pub fn steps(prep: &Preparation) -> Vec<Step<'_>> {
    let index = prep.index();
    let mut out = Vec::new();
    if let Some(root) = prep.positions.first() {
        visit(prep, &index, root, &mut out);
    }
    out
}

fn visit<'a>(
    prep: &'a Preparation,
    index: &HashMap<&str, usize>,
    from: &'a PrepPosition,
    out: &mut Vec<Step<'a>>,
) {
    for mv in &from.moves {
        let to = &prep.positions[index[mv.to.as_str()]];
        let continued = continued_here(from, mv, to);
        out.push(Step {
            depth: from.line.len(),
            from,
            mv,
            to,
            continued,
        });
        if continued {
            visit(prep, index, to, out);
        }
    }
}

/// Moves in PGN style from the start: `1. e4 c5 2. Nf3`.
pub fn numbered(line: &[String]) -> String {
    numbered_from(line, 0)
}

/// The moves of `line` from the `first`-th (0-based) in PGN style, `…` first when some are
/// left out: `…8... O-O 9. O-O`.
pub fn numbered_from(line: &[String], first: usize) -> String {
    let first = first.min(line.len());
    let mut out = String::new();
    if first > 0 {
        out.push('…');
    }
    for (i, san) in line.iter().enumerate().skip(first) {
        if i > first {
            out.push(' ');
        }
        if i == first || i.is_multiple_of(2) {
            out.push_str(&move_text(i, san));
        } else {
            out.push_str(san);
        }
    }
    out
}

/// A move with its number: `3. Nf3` or `3... Nc6` (after `depth` moves from the start).
pub fn move_text(depth: usize, san: &str) -> String {
    let n = depth / 2 + 1;
    if depth.is_multiple_of(2) {
        format!("{n}. {san}")
    } else {
        format!("{n}... {san}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_numbered() {
        let line: Vec<String> = ["e4", "c5", "Nf3", "d6"].map(String::from).to_vec();
        assert_eq!(numbered(&line), "1. e4 c5 2. Nf3 d6");
        assert_eq!(numbered_from(&line, 1), "…1... c5 2. Nf3 d6");
        assert_eq!(numbered_from(&line, 2), "…2. Nf3 d6");
        assert_eq!(numbered(&[]), "");
    }
}
