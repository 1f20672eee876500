//! Names for Tabiya: matching the spellings of a chess player's name, and Scid's spelling
//! file. Pure: no storage, no I/O beyond a `BufRead` given by the caller.
//!
//! - [`fold`] folds a name for matching (case, accents, punctuation, spacing).
//! - [`parse`] splits a player name into surname and given names, [`compatible`] says whether
//!   two names may be one person, and [`cluster`] groups a dictionary of names into persons.
//! - [`ssp::Spelling`] reads Scid's `.ssp` spelling file and corrects player, event, site and
//!   round names as Scid does (`docs/formats/ssp.md`).

mod cluster;
mod fold;
mod person;
pub mod ssp;

pub use cluster::{Ambiguity, Cluster, Clustering, cluster};
pub use fold::fold;
pub use person::{PersonName, compatible, parse};
