//! What a database is made of at the top: its kind, its format version, and the names of
//! the tables every part uses, and the settings and counters of `meta` read.

use crate::Result;

/// The table of settings and counters.
pub const META: &str = "meta";
/// The table of stored games.
pub const GAMES: &str = "games";
/// The table of WTHOR headers and names.
///
/// | key | value |
/// |---|---|
/// | `H` `J` | header of the `.jou` file the player names come from (16 bytes) |
/// | `H` `T` | header of the `.trn` file |
/// | `H` `Y` year (u16 BE) | header of the `.wtb` file of that year |
/// | `J` id (u16 BE) | player name record, all 20 bytes |
/// | `T` id (u16 BE) | tournament name record, all 26 bytes |
pub const WTHOR: &str = "wthor";
/// The table of engine evaluations (see `crate::evals`).
pub const EVALS: &str = "evals";

/// Version of the on-disk layout: 2 since games carry their time-control class and players,
/// 3 since a move's rating sums leave out the games without a result, 4 since games can be
/// deleted and edited and names have entries (a database of an earlier format is upgraded
/// when opened, see `crate::upgrade`).
pub const FORMAT_VERSION: u32 = 4;

/// What a database holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

pub(crate) fn meta_get(read: &tabiya_store::ReadTx, name: &str) -> Result<Option<String>> {
    let t = read.table(META)?;
    Ok(t.get(name.as_bytes())?
        .map(|v| String::from_utf8_lossy(&v).into_owned()))
}

pub(crate) fn meta_u64(read: &tabiya_store::ReadTx, name: &str) -> Result<u64> {
    Ok(meta_get(read, name)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}
