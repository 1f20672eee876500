//! A structure query: a pattern, a material signature and a pawn structure, each optional,
//! all to hold in one position — with the colours swapped too when asked (pgn-extract's
//! `FENPatternI`), and held for a number of consecutive plies (Scid's material search "for
//! N half-moves").
//!
//! [`Query::first_match`] walks a game's positions and says at which ply the query first
//! holds: what a search counts, and where a viewer opens the game.

use shakmaty::Board;

use crate::{Material, Pattern, PawnStructure};

/// One orientation of the query's parts (as given, or with colours swapped).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    pattern: Option<Pattern>,
    material: Option<Material>,
    pawns: Option<PawnStructure>,
}

impl Parts {
    fn holds(&self, board: &Board) -> bool {
        self.pawns.is_none_or(|p| p.matches(board))
            && self.material.as_ref().is_none_or(|m| m.matches(board))
            && self.pattern.as_ref().is_none_or(|p| p.matches(board))
    }
}

/// A structure query (see the module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    given: Parts,
    /// The parts with colours swapped, when either colour is asked for.
    swapped: Option<Parts>,
    hold: u32,
    opposite_bishops: bool,
}

/// A query with nothing to look for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a structure search needs a pattern, a material signature or a pawn structure")]
pub struct EmptyQuery;

impl Query {
    /// A query of the given parts (at least one). `either_colour`: a position also matches
    /// when every part holds with colours swapped. `hold`: the parts must hold in this many
    /// consecutive positions (at least 1; the first of them is the match).
    /// `opposite_bishops`: each side has exactly one bishop, on squares of opposite colours.
    pub fn new(
        pattern: Option<Pattern>,
        material: Option<Material>,
        pawns: Option<PawnStructure>,
        either_colour: bool,
        hold: u32,
        opposite_bishops: bool,
    ) -> Result<Query, EmptyQuery> {
        if pattern.is_none() && material.is_none() && pawns.is_none() && !opposite_bishops {
            return Err(EmptyQuery);
        }
        let given = Parts {
            pattern,
            material,
            pawns,
        };
        let swapped = either_colour.then(|| Parts {
            pattern: given.pattern.as_ref().map(Pattern::flipped),
            material: given.material.as_ref().map(Material::flipped),
            pawns: given.pawns.as_ref().map(PawnStructure::flipped),
        });
        // Swapping colours changes nothing of a symmetric query: ask it once.
        let swapped = swapped.filter(|s| *s != given);
        Ok(Query {
            given,
            swapped,
            hold: hold.max(1),
            opposite_bishops,
        })
    }

    /// The pawn structure asked for, as given.
    pub fn pawns(&self) -> Option<PawnStructure> {
        self.given.pawns
    }

    /// The pawn structures a match has: the one asked for, and its colours swapped when
    /// either colour is asked for.
    pub fn pawn_structures(&self) -> Vec<PawnStructure> {
        [
            self.given.pawns,
            self.swapped.as_ref().and_then(|s| s.pawns),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The material signatures asked for (as given, and swapped when asked for).
    pub fn materials(&self) -> Vec<&Material> {
        [
            self.given.material.as_ref(),
            self.swapped.as_ref().and_then(|s| s.material.as_ref()),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The material asked for, as given.
    pub fn material(&self) -> Option<&Material> {
        self.given.material.as_ref()
    }

    /// Whether bishops of opposite colours are asked for.
    pub fn asks_opposite_bishops(&self) -> bool {
        self.opposite_bishops
    }

    /// The patterns asked for (as given, and swapped when asked for).
    pub fn patterns(&self) -> Vec<&Pattern> {
        [
            self.given.pattern.as_ref(),
            self.swapped.as_ref().and_then(|s| s.pattern.as_ref()),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Whether a pattern is part of the query.
    pub fn has_pattern(&self) -> bool {
        self.given.pattern.is_some()
    }

    /// Consecutive positions the query must hold in.
    pub fn hold(&self) -> u32 {
        self.hold
    }

    /// Whether colours swapped are asked for (and differ from the query as given).
    pub fn either_colour(&self) -> bool {
        self.swapped.is_some()
    }

    /// Whether the query holds in one position, as given (`Some(false)`), with colours
    /// swapped (`Some(true)`), or not at all.
    pub fn matches(&self, board: &Board) -> Option<bool> {
        if self.opposite_bishops && !opposite_bishops(board) {
            return None;
        }
        if self.given.holds(board) {
            return Some(false);
        }
        match &self.swapped {
            Some(s) if s.holds(board) => Some(true),
            _ => None,
        }
    }

    /// A walk over one game's positions, in order: see [`Walk::next`].
    pub fn walk(&self) -> Walk<'_> {
        Walk {
            query: self,
            ply: 0,
            given: 0,
            swapped: 0,
        }
    }

    /// The first ply (0: the start position) from which the query holds for
    /// [`Query::hold`] consecutive positions of `boards`.
    pub fn first_match<'b>(&self, boards: impl IntoIterator<Item = &'b Board>) -> Option<u32> {
        let mut walk = self.walk();
        boards.into_iter().find_map(|b| walk.next(b))
    }
}

/// A query asked of one game's positions, one after another.
pub struct Walk<'q> {
    query: &'q Query,
    ply: u32,
    /// Consecutive positions so far in which the query holds as given, and swapped (a run
    /// is of one orientation: the same side has the material all along).
    given: u32,
    swapped: u32,
}

impl Walk<'_> {
    /// The next position of the game: returns the ply its run of matching positions began
    /// at once that run is long enough.
    pub fn next(&mut self, board: &Board) -> Option<u32> {
        let q = self.query;
        let bishops = !q.opposite_bishops || opposite_bishops(board);
        let given = bishops && q.given.holds(board);
        let swapped = bishops && q.swapped.as_ref().is_some_and(|s| s.holds(board));
        self.given = if given { self.given + 1 } else { 0 };
        self.swapped = if swapped { self.swapped + 1 } else { 0 };
        let ply = self.ply;
        self.ply += 1;
        (self.given >= q.hold || self.swapped >= q.hold).then(|| ply + 1 - q.hold)
    }

    /// The next position of the game, known from elsewhere (an index) not to match: it
    /// ends any run, as [`Walk::next`] of it would, without looking at the board.
    pub fn skip(&mut self) {
        self.given = 0;
        self.swapped = 0;
        self.ply += 1;
    }
}

/// Each side has exactly one bishop, and they stand on squares of opposite colours.
pub fn opposite_bishops(board: &Board) -> bool {
    use shakmaty::{Bitboard, Color, Role};
    let bishops = |c: Color| board.by_role(Role::Bishop) & board.by_color(c);
    let (w, b) = (bishops(Color::White), bishops(Color::Black));
    w.count() == 1 && b.count() == 1 && {
        let light = Bitboard::LIGHT_SQUARES;
        (w & light).is_empty() != (b & light).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().as_setup().board.clone()
    }

    #[test]
    fn a_skipped_position_ends_a_run_and_counts_a_ply() {
        let b = board("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1");
        let m = Material::parse("KRPvKR").unwrap();
        let q = Query::new(None, Some(m), None, false, 2, false).unwrap();
        let mut w = q.walk();
        assert_eq!(w.next(&b), None);
        w.skip();
        assert_eq!(
            w.next(&b),
            None,
            "the run begins again after the skipped ply"
        );
        assert_eq!(w.next(&b), Some(2), "held at plies 2 and 3");
    }

    #[test]
    fn all_parts_in_one_position() {
        // White: a rook and a pawn; Black: a rook. The white pawn on b7.
        let b = board("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1");
        let m = Material::parse("KRPvKR").unwrap();
        let p = Pattern::parse("*/1P*/*/*/*/*/*/*").unwrap();
        let q = Query::new(Some(p.clone()), Some(m.clone()), None, false, 1, false).unwrap();
        assert_eq!(q.matches(&b), Some(false));
        let other = Pattern::parse("*/P*/*/*/*/*/*/*").unwrap();
        let q = Query::new(Some(other), Some(m), None, false, 1, false).unwrap();
        assert_eq!(q.matches(&b), None);
        // Colours swapped: Black has the rook and pawn, on b2.
        let swapped = board("2r5/R7/8/8/8/8/1p6/1k1K4 w - - 0 1");
        let q = Query::new(
            Some(p),
            Some(Material::parse("KRPvKR").unwrap()),
            None,
            true,
            1,
            false,
        )
        .unwrap();
        assert_eq!(q.matches(&swapped), Some(true));
        assert_eq!(q.matches(&b), Some(false));
        assert!(Query::new(None, None, None, true, 1, false).is_err());
    }

    #[test]
    fn held_for_plies_in_one_orientation() {
        let rook_end = board("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1");
        let other = board("1K1k4/1P6/8/8/8/8/q7/2R5 w - - 0 1");
        let m = || Some(Material::parse("KRPvKR").unwrap());
        let q = Query::new(None, m(), None, false, 2, false).unwrap();
        assert_eq!(q.first_match([&other, &rook_end, &other, &rook_end]), None);
        assert_eq!(
            q.first_match([&other, &rook_end, &other, &rook_end, &rook_end]),
            Some(3)
        );
        let once = Query::new(None, m(), None, false, 1, false).unwrap();
        assert_eq!(once.first_match([&other, &rook_end]), Some(1));
    }

    #[test]
    fn bishops_of_opposite_colours() {
        // c1 is dark, c8 light: opposite; f8 dark: the same colour as c1.
        assert!(opposite_bishops(&board(
            "2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1"
        )));
        assert!(!opposite_bishops(&board(
            "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1"
        )));
        assert!(!opposite_bishops(&board(
            "2b1kb2/8/8/8/8/8/8/2B1K3 w - - 0 1"
        )));
    }
}
