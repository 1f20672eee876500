//! The positional database: game kinds, the position index, import and queries.
//!
//! A database is a directory holding one store ([`tabiya_store`]) with these tables:
//!
//! | table | key | value |
//! |---|---|---|
//! | `meta` | name | setting or counter (kind, format version, ply cap, next game and run ids, the games' zstd dictionary) |
//! | `games` | game id (u32 BE) | the game in its stored form (chess: `chess::stored`; Othello: [`othello::StoredGame`]) |
//! | `facts` | game id / 128 | facts and duplicate digests of 128 games |
//! | `names` | dictionary, id / 64 | 64 names of one dictionary (players, events, sites, rounds, tag names) |
//! | `runs` | run id | a run's directory ([`RunDir`]) |
//! | `blocks` | run id, kind, block | the run's T-record and S-entry blocks |
//! | `postings` | run id, position key | the game list of a popular position, when long |
//! | `sketches` | run id | a run's distinct-position estimate (HyperLogLog) |
//! | `wthor` | kind, id | Othello only: WTHOR file headers and name records |
//! | `evals` | position key | chess only: the engine evaluation kept for the position (`evals`) |
//! | `notes` | position key | a note (Markdown) kept with the position |
//! | `gamesets` | name, folded for case | a gameset's definition (criteria, parent, dates, repertoire files) |
//! | `gameset_ids` | gameset id, id / 65536 | the ranges of game ids of the gameset in that row |
//! | `cards`, `card_keys`, `card_reviews` | card id; position key; card id, answer number | flashcards, by id and by position, and their answers (`cards`) |
//! | `shapes` | kind, first id, … | chess, when kept: the structure index (`shapes`): material and pawn keys of each segment's games, the squares pieces stood on |
//! | `shape_stats` | shape | chess, when kept: what a search of a popular material or pawn structure answers (`shapes::stats`) |
//!
//! Every import transaction holds a segment: its games, names, facts, duplicate digests and
//! index run appear together or not at all.
//!
//! The modules, bottom up: the shared vocabulary of game kinds (`game`: occurrences, move
//! codes, name dictionaries), counting (`stats`) and the schema (`schema`, `ids`); each
//! kind's vocabulary ([`chess`], [`othello`]: keys, moves, stored forms, tags, replay,
//! openings, facts); the tables (`facts`, `records`, `names`); the seam through which the
//! index replays games of either kind (`replay`); the index (`index`: build, encode, write,
//! merge, find — through store transactions, never a `Database`); the database
//! (`database`, `upgrade`, `compact`); imports (`import`: PGN, WTHOR, segments); the answers
//! (`answers`: [`Snapshot`] and what each kind answers from it); beside them changes,
//! gamesets, persons, evaluations, cards and statistics. No import loop between files nor
//! between these modules (`scripts/check-modules`). Only what this file re-exports is
//! public.

mod answers;
mod cards;
mod changes;
mod check;
mod codec;
mod compact;
mod database;
mod dbstats;
pub mod deadline;
mod digest;
mod error;
mod evals;
mod facts;
/// Stored bytes' decoders for the fuzz targets (`fuzz/`), behind the `fuzzing` feature.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod game;
mod gamesets;
mod hll;
mod ids;
mod import;
mod index;
mod keymap;
mod names;
mod notes;
mod persons;
mod players;
mod records;
mod replay;
mod row_cache;
mod schema;
mod shapes;
mod speed;
mod stats;
mod trace;
mod upgrade;
pub mod words;
mod workers;

pub mod chess;
pub mod othello;

pub use answers::{GamePage, GameSort, ListKey, PositionStats, Snapshot};
pub use cards::{
    Added as CardAdded, CARD_KEYS, CARD_REVIEWS, CARDS, NewCard, Review as CardReview,
    Schedule as CardSchedule, StoredCard,
};
pub use changes::{Deleted, Edited, TagEdit, check_edit};
pub use check::{CheckReport, Problem as CheckProblem, check, verify_pages};
pub use compact::{compact, compact_all};
pub use database::{Database, FORMAT_VERSION, GAMES, Kind, META, PinnedAnswers, QUERY_CACHE_MAX};
pub use dbstats::{
    DbStats, NamedGames, Part, PositionKinds, RatingBin, Ratings, ReachedOpening, Results,
    SpeedGames, Speeds, TOP as STATS_TOP, YearGames, collect as collect_stats,
};
pub use digest::game_digest;
pub use error::{DecodeError, Error, Result};
pub use evals::{EVALS, EvalBrief, EvalLine, EvalScore, EvalsStored, StoredEval};
pub use game::{Dict, NO_MOVE, NameLookup, Names, Occurrence};
pub use gamesets::{GAMESET_IDS, GAMESETS, Gameset, IdSet, ParseError, files_of};
pub use import::{
    BYTES_PER_OCCURRENCE, FileSummary, ImportOptions, ImportProgress, ImportSummary,
    OTHELLO_BATCH_GAMES, Problem, ReadProgress, Source, default_index_memory,
};
pub use index::sorted::{KeyedOcc, OccStream};
pub use index::{PROMOTE_AT, RunDir};
pub use names::StoreNames;
pub use notes::{NOTE_MAX, NOTES};
pub use persons::{
    Ambiguous, Dated, ENTRY_DICTS, Entries, Entry, NameRule, PlayerInfo, Selector,
    Source as NameSource,
};
pub use players::Players;
pub(crate) use schema::meta_u64;
pub use shapes::{ShapeStatsCounted, StructuresBuilt};
pub use speed::Speed;
pub use stats::{GameFacts, GameOutcome, Stats, fide_dp};
