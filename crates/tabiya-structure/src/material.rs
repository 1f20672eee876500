//! Material: each side's pieces counted, as Scid and ChessBase write an ending
//! (`KRPvKR`: White's pieces, `v`, Black's).
//!
//! Each side is its king (`K`, optional) and a letter per piece: `Q R B N P`, exactly that
//! many. A letter may be followed by `*` (any number of that piece, none included) or `+`
//! (one or more); `m` is one minor piece, a bishop or a knight. A kind a side does not name
//! it does not have. So `KRvKmm` is a rook against two minor pieces and nothing else,
//! `KRP*vKRP*` a rook ending with any pawns, `KQ+R*B*N*P*vK` any material with a queen
//! against a bare king.

use shakmaty::{Board, Color, Role};

/// A signature that cannot be read: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("material {text:?}: {why}")]
pub struct MaterialError {
    pub text: String,
    pub why: String,
}

/// How many of a kind: at least `min`, at most `max` (`None`: no bound). A kind not named
/// is none at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Count {
    min: u32,
    max: Option<u32>,
}

impl Default for Count {
    fn default() -> Count {
        Count {
            min: 0,
            max: Some(0),
        }
    }
}

impl Count {
    fn add(&mut self, min: u32, max: Option<u32>) {
        self.min += min;
        self.max = match (self.max, max) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }

    fn holds(&self, n: u32) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }

    /// The one count this allows, if it allows only one.
    fn exact(&self) -> Option<u32> {
        (self.max == Some(self.min)).then_some(self.min)
    }
}

/// One side's material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Side {
    queens: Count,
    rooks: Count,
    bishops: Count,
    knights: Count,
    pawns: Count,
    /// Minor pieces named by `m`: bishops or knights beyond those named by `B` and `N`.
    minors: Option<Count>,
}

impl Side {
    fn parse(text: &str, who: &str) -> Result<Side, String> {
        let mut side = Side::default();
        let mut chars = text.chars().peekable();
        let mut kings = 0;
        while let Some(c) = chars.next() {
            let (min, max) = match chars.peek() {
                Some('*') => {
                    chars.next();
                    (0, None)
                }
                Some('+') => {
                    chars.next();
                    (1, None)
                }
                _ => (1, Some(1)),
            };
            let count = match c.to_ascii_uppercase() {
                'K' if max == Some(1) => {
                    kings += 1;
                    if kings > 1 {
                        return Err(format!("{who} ({text:?}) has one king"));
                    }
                    continue;
                }
                'K' => return Err(format!("{who} ({text:?}): a king is one, never K* or K+")),
                'Q' => &mut side.queens,
                'R' => &mut side.rooks,
                'B' => &mut side.bishops,
                'N' => &mut side.knights,
                'P' => &mut side.pawns,
                'M' => side.minors.get_or_insert_with(Count::default),
                _ => {
                    return Err(format!(
                        "{who} ({text:?}): {c:?} is not K, Q, R, B, N, P or m (a minor piece)"
                    ));
                }
            };
            count.add(min, max);
        }
        Ok(side)
    }

    fn holds(&self, board: &Board, color: Color) -> bool {
        let n = |role: Role| (board.by_role(role) & board.by_color(color)).count() as u32;
        self.holds_counts([
            n(Role::Queen),
            n(Role::Rook),
            n(Role::Bishop),
            n(Role::Knight),
            n(Role::Pawn),
        ])
    }

    /// The one set of counts (queens, rooks, bishops, knights, pawns) this side allows, if
    /// it allows only one.
    fn exact(&self) -> Option<[u32; 5]> {
        let minors = match self.minors {
            None => 0,
            Some(m) => m.exact()?,
        };
        // `m` names a bishop or a knight: counts differ by which it is (unless none).
        if minors > 0 {
            return None;
        }
        Some([
            self.queens.exact()?,
            self.rooks.exact()?,
            self.bishops.exact()?,
            self.knights.exact()?,
            self.pawns.exact()?,
        ])
    }

    /// [`Side::holds`] of counts: queens, rooks, bishops, knights, pawns.
    fn holds_counts(&self, [q, r, b, kn, p]: [u32; 5]) -> bool {
        let minors_hold = match self.minors {
            None => self.bishops.holds(b) && self.knights.holds(kn),
            // Bishops and knights beyond those named, counted together as minor pieces.
            Some(m) => {
                b >= self.bishops.min
                    && kn >= self.knights.min
                    && m.holds(b - self.bishops.min + kn - self.knights.min)
            }
        };
        minors_hold && self.queens.holds(q) && self.rooks.holds(r) && self.pawns.holds(p)
    }
}

/// A material signature (see the module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    text: String,
    white: Side,
    black: Side,
}

impl Material {
    /// Reads a signature: White's side, `v`, Black's.
    pub fn parse(text: &str) -> Result<Material, MaterialError> {
        let err = |why: String| MaterialError {
            text: text.to_string(),
            why,
        };
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let Some((w, b)) = compact.split_once('v') else {
            return Err(err(
                "White's pieces, v, Black's: KRPvKR (a rook and a pawn against a rook)".into(),
            ));
        };
        if b.contains('v') {
            return Err(err("one v, between White's pieces and Black's".into()));
        }
        Ok(Material {
            text: compact.clone(),
            white: Side::parse(w, "White's side").map_err(err)?,
            black: Side::parse(b, "Black's side").map_err(err)?,
        })
    }

    /// Whether `board` holds this material.
    pub fn matches(&self, board: &Board) -> bool {
        self.white.holds(board, Color::White) && self.black.holds(board, Color::Black)
    }

    /// Whether material of these counts (White's, then Black's: queens, rooks, bishops,
    /// knights, pawns) holds this signature.
    pub fn matches_counts(&self, counts: [[u32; 5]; 2]) -> bool {
        self.white.holds_counts(counts[0]) && self.black.holds_counts(counts[1])
    }

    /// The counts (White's, then Black's: queens, rooks, bishops, knights, pawns) when the
    /// signature names exactly one material (`KRPvKR`; not `KRP*vKR`, not `KRvKm`).
    pub fn exact_counts(&self) -> Option<[[u32; 5]; 2]> {
        Some([self.white.exact()?, self.black.exact()?])
    }

    /// The signature with the sides swapped (`KRvKP` is `KPvKR`).
    pub fn flipped(&self) -> Material {
        let (w, b) = self.text.split_once('v').unwrap_or((&self.text, ""));
        Material {
            text: format!("{b}v{w}"),
            white: self.black,
            black: self.white,
        }
    }

    /// The signature of `board`'s material, exact (`KRPPvKR`).
    pub fn of(board: &Board) -> String {
        let side = |color: Color| {
            let mut s = String::from("K");
            for (role, c) in [
                (Role::Queen, 'Q'),
                (Role::Rook, 'R'),
                (Role::Bishop, 'B'),
                (Role::Knight, 'N'),
                (Role::Pawn, 'P'),
            ] {
                for _ in 0..(board.by_role(role) & board.by_color(color)).count() {
                    s.push(c);
                }
            }
            s
        };
        format!("{}v{}", side(Color::White), side(Color::Black))
    }
}

impl std::fmt::Display for Material {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().as_setup().board.clone()
    }

    /// A rook and a pawn against a rook (Lucena-like).
    const RP_R: &str = "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1";
    /// A rook against a bishop and a knight, pawns on both sides.
    const R_MINORS: &str = "6k1/5ppp/3bn3/8/8/8/5PPP/3R2K1 w - - 0 1";

    #[test]
    fn one_material_or_many() {
        let counts = |sig: &str| Material::parse(sig).unwrap().exact_counts();
        // Queens, rooks, bishops, knights, pawns: White's, then Black's.
        assert_eq!(counts("KRPPvKBN"), Some([[0, 1, 0, 0, 2], [0, 0, 1, 1, 0]]));
        assert_eq!(counts("KvK"), Some([[0; 5], [0; 5]]));
        for many in ["KRP*vKR", "KQ+vK", "KRvKm", "KRvKmm"] {
            assert_eq!(counts(many), None, "{many}");
        }
    }

    #[test]
    fn exact_signatures() {
        let b = board(RP_R);
        assert_eq!(Material::of(&b), "KRPvKR");
        for (sig, expected) in [
            ("KRPvKR", true),
            ("RPvR", true),
            ("KR P v K R", true),
            ("KRvKR", false),
            ("KRPvKRP", false),
            ("KRPPvKR", false),
            ("KRvKRP", false),
        ] {
            assert_eq!(Material::parse(sig).unwrap().matches(&b), expected, "{sig}");
        }
    }

    #[test]
    fn any_number_and_minor_pieces() {
        let b = board(R_MINORS);
        assert_eq!(Material::of(&b), "KRPPPvKBNPPP");
        for (sig, expected) in [
            ("KRP*vKmmP*", true),
            ("KRP+vKmmP+", true),
            ("KRvKmm", false),
            ("KRP*vKBNP*", true),
            ("KRP*vKBmP*", true),
            ("KRP*vKNmP*", true),
            ("KRP*vKBBP*", false),
            ("KRP*vKmP*", false),
            ("KRP*vKm*P*", true),
            ("KQ*R*B*N*P*vKQ*R*B*N*P*", true),
            ("KR*P*vKR*P*", false),
        ] {
            assert_eq!(Material::parse(sig).unwrap().matches(&b), expected, "{sig}");
        }
        let flipped = Material::parse("KRP*vKmmP*").unwrap().flipped();
        assert_eq!(flipped.to_string(), "KmmP*vKRP*");
        assert!(!flipped.matches(&b));
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("KRP", "White's pieces, v, Black's"),
            ("KRvKvK", "one v"),
            ("KRXvK", "'X' is not K, Q, R, B, N, P or m"),
            ("KKvK", "has one king"),
            ("K*vK", "a king is one"),
        ] {
            let e = Material::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
