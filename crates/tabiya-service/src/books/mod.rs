//! Opening books: ChessBase CTG, Polyglot and Kvetka — probe, dump, check, info, convert,
//! merge, build (from PGN files or a database), and the games a Kvetka book links.
//!
//! A book's format is told from its path (extension, sibling files, magic bytes) unless
//! [`BookFile::format`] says it. Every command is one function with a typed answer whose
//! JSON is what `tabiya book … --json` prints. Errors name the file (and the byte offset
//! for damaged files).
//!
//! | command | function | answer |
//! |---|---|---|
//! | `probe` | [`probe()`] (the explorer's `--book`: [`probe_any`]) | [`ProbeAnswer`] |
//! | `dump` | [`dump()`] | [`BookDump`] |
//! | `check` | [`check()`] | [`CheckReport`] |
//! | `info` | [`info()`] | [`BookInfo`] |
//! | `convert` | [`convert()`] | [`ConvertReport`] |
//! | `merge` | [`merge()`] | [`MergeReport`] |
//! | `build` | [`build()`] | [`BuildReport`] |
//! | `game` | [`linked_games`] | [`LinkedGames`] |

mod build;
mod check;
mod convert;
mod dump;
mod eco;
mod games;
mod info;
mod linked;
mod merge;
pub(crate) mod open;
pub(crate) mod paths;
mod probe;

pub use build::{BuildOptions, BuildReport, KvetkaOptions, Problem, build};
pub use check::{CheckReport, CtgCheck, CtgCheckProblem, KvetkaCheck, PolyglotCheck, check};
pub use convert::{ConvertRequest, convert};
pub use dump::{
    BookDump, Colour, CtgDump, CtgDumpPosition, KvetkaDump, KvetkaDumpPosition, PolyglotDump,
    PolyglotLines, UnknownMoveJson, dump,
};
pub use eco::eco_comment;
pub use info::{BookInfo, CtgInfo, KvetkaInfo, KvetkaSourceInfo, PolyglotInfo, info};
pub use linked::{EcoJson, GameLinkJson, LinkedGame, LinkedGames, linked_games};
pub use merge::{MergeReport, merge};
pub use open::{BookFile, open};
pub use probe::{BookAnswer, ProbeAnswer, probe, probe_any, probe_open};

/// The position type [`probe_any`] takes (a [`crate::ChessPosition`]'s `pos`).
pub use shakmaty::Chess;
/// The codec types the answers hold.
pub use tabiya_books::convert::{AnyBook, BookFormat, ConvertReport, ReadReport};
pub use tabiya_books::{BookProbe, BookProbeMove};

#[cfg(test)]
mod tests;
