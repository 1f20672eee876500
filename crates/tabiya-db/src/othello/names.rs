//! WTHOR names and headers: the `wthor` table keeps the header of every imported file and
//! every name record with all its bytes, so an export writes them back as they were (what an
//! import writes of them: `import/othello.rs`, `apply_names` and `store_year_headers`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tabiya_othello::wthor::{self, Header, Name, NameKind};
use tabiya_store::ReadTx;

use crate::{Error, Result};

pub use crate::schema::WTHOR;

pub(crate) fn name_key(kind: NameKind, id: u16) -> [u8; 3] {
    let [a, b] = id.to_be_bytes();
    match kind {
        NameKind::Players => [b'J', a, b],
        NameKind::Tournaments => [b'T', a, b],
    }
}

pub(crate) fn names_header_key(kind: NameKind) -> [u8; 2] {
    match kind {
        NameKind::Players => *b"HJ",
        NameKind::Tournaments => *b"HT",
    }
}

pub(crate) fn year_header_key(year: u16) -> [u8; 4] {
    let [a, b] = year.to_be_bytes();
    [b'H', b'Y', a, b]
}

fn header_from(data: &[u8]) -> Result<Header> {
    let b: &[u8; wthor::HEADER_SIZE] = data
        .try_into()
        .map_err(|_| Error::Corrupt(format!("WTHOR header of {} bytes", data.len())))?;
    Ok(Header::parse(b))
}

/// Creation date of a header as a sortable number.
pub(crate) fn created(h: &Header) -> u32 {
    (h.created_century as u32 * 100 + h.created_year as u32) * 10000
        + h.created_month as u32 * 100
        + h.created_day as u32
}

/// The WTHOR names and headers stored in a database.
#[derive(Debug, Clone, Default)]
pub struct WthorNames {
    /// Player name records, index = WTHOR id.
    pub players: Vec<Name>,
    /// Tournament name records, index = WTHOR id.
    pub tournaments: Vec<Name>,
    /// Header of the `.jou` file the player names come from (the newest one imported).
    pub jou_header: Option<Header>,
    /// Header of the `.trn` file.
    pub trn_header: Option<Header>,
    /// Header of the `.wtb` file of each year.
    pub year_headers: BTreeMap<u16, Header>,
}

impl WthorNames {
    /// Loads the names and headers.
    pub fn load(read: &ReadTx) -> Result<WthorNames> {
        let t = read.table(WTHOR)?;
        let mut out = WthorNames::default();
        let mut bad: Option<String> = None;
        let mut players: BTreeMap<u16, Name> = BTreeMap::new();
        let mut tournaments: BTreeMap<u16, Name> = BTreeMap::new();
        t.scan(&[], None, |k, v| {
            let id = |k: &[u8]| k.get(1..3).map(|b| u16::from_be_bytes([b[0], b[1]]));
            match (k.first(), k.len()) {
                (Some(b'J'), 3) => {
                    players.insert(id(k).unwrap_or(0), Name { raw: v.to_vec() });
                }
                (Some(b'T'), 3) => {
                    tournaments.insert(id(k).unwrap_or(0), Name { raw: v.to_vec() });
                }
                (Some(b'H'), _) => match header_from(v) {
                    Ok(h) => match &k[1..] {
                        b"J" => out.jou_header = Some(h),
                        b"T" => out.trn_header = Some(h),
                        [b'Y', a, b] => {
                            out.year_headers.insert(u16::from_be_bytes([*a, *b]), h);
                        }
                        _ => {
                            bad = Some(format!("unknown WTHOR header key {k:?}"));
                            return false;
                        }
                    },
                    Err(e) => {
                        bad = Some(e.to_string());
                        return false;
                    }
                },
                _ => {
                    bad = Some(format!("unknown WTHOR table key {k:?}"));
                    return false;
                }
            }
            true
        })?;
        if let Some(b) = bad {
            return Err(Error::Corrupt(b));
        }
        for (list, map, what) in [
            (&mut out.players, players, "player"),
            (&mut out.tournaments, tournaments, "tournament"),
        ] {
            for (i, (id, name)) in map.into_iter().enumerate() {
                if id as usize != i {
                    return Err(Error::Corrupt(format!(
                        "WTHOR {what} names: id {i} is missing"
                    )));
                }
                list.push(name);
            }
        }
        Ok(out)
    }

    /// The list of one kind.
    pub fn list(&self, kind: NameKind) -> &[Name] {
        match kind {
            NameKind::Players => &self.players,
            NameKind::Tournaments => &self.tournaments,
        }
    }

    /// A player's name, `?` for an id without a name.
    pub fn player(&self, id: u16) -> String {
        self.players
            .get(id as usize)
            .map_or_else(|| "?".to_string(), Name::text)
    }

    /// A tournament's name, `?` for an id without a name.
    pub fn tournament(&self, id: u16) -> String {
        self.tournaments
            .get(id as usize)
            .map_or_else(|| "?".to_string(), Name::text)
    }

    /// True for a player whose name contains "(" (the WTHOR convention for programs).
    pub fn is_program(&self, id: u16) -> bool {
        self.players.get(id as usize).is_some_and(Name::is_program)
    }
}

/// A name that an import changed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NameChange {
    /// `player` or `tournament`.
    pub kind: String,
    /// WTHOR id.
    pub id: u16,
    /// The stored spelling before.
    pub old: String,
    /// The new spelling.
    pub new: String,
    /// The names file it came from.
    pub file: String,
}

/// A names file read by an import.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamesFileReport {
    pub file: String,
    /// `players` or `tournaments`.
    pub kind: NameKind,
    /// Creation date from its header.
    pub created: String,
    pub names: usize,
    /// False when an older file than the stored names was given: its new ids are added, its
    /// spellings of known ids are not taken.
    pub spellings_taken: bool,
}

/// What an import did to the names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamesReport {
    pub files: Vec<NamesFileReport>,
    pub players_added: u64,
    pub tournaments_added: u64,
    /// Known ids whose spelling changed (a newer names file corrects them).
    pub changed: Vec<NameChange>,
    /// Names in the database after the import.
    pub players: u64,
    pub tournaments: u64,
}
