//! What a database is made of at the top: its kind, its format version, and the names of
//! the tables every part uses.

/// The table of settings and counters.
pub const META: &str = "meta";
/// The table of stored games.
pub const GAMES: &str = "games";
/// The table of engine evaluations (see `crate::evals`).
pub const EVALS: &str = "evals";

/// Version of the on-disk layout: 2 since games carry their time-control class and players,
/// 3 since a move's rating sums leave out the games without a result, 4 since games can be
/// deleted and edited and names have entries (a database of an earlier format is upgraded
/// when opened, see `crate::upgrade`).
pub const FORMAT_VERSION: u32 = 4;

/// What a database holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Chess,
    Othello,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Chess => "chess",
            Kind::Othello => "othello",
        }
    }
}
