//! Flashcards and training: a card is a chess position (by its key, so any move order finds
//! it) and the move(s) a player should know there, with an optional note; answers are
//! scheduled by SuperMemo's SM-2 (`sm2`) and kept as a history.
//!
//! | question | function | answer |
//! |---|---|---|
//! | a card by hand | [`add`] | [`AddReport`] |
//! | cards from a line | [`from_line`] | [`AddReport`] |
//! | cards from a book, to a depth | [`from_book`] | [`AddReport`] |
//! | cards from the database's most played moves | [`from_db`] | [`AddReport`] |
//! | cards from a repertoire (one per position of yours) | [`from_repertoire`] | [`AddReport`] |
//! | the cards, due first; the due ones | [`list`] | [`CardList`] |
//! | one card and its history | [`show`] | [`Card`] |
//! | a card deleted | [`delete`] | [`Card`] |
//! | an answer checked, graded, rescheduled | [`answer`] | [`Verdict`] |
//! | statistics | [`stats`] | [`CardStats`] |
//! | a position drawn for a terminal | [`diagram`] | text |
//!
//! Every function takes the time (`now`, seconds since 1970): the command line and the
//! server read it from [`crate::time::clock`], which tests set with `TABIYA_NOW`.

mod add;
mod answer;
mod diagram;
mod from_book;
mod from_db;
mod from_rep;
mod list;
pub mod sm2;
mod stats;
mod typed;
mod view;
mod walk;

pub use add::{AddReport, AddedCard, Outcome, add, from_line};
pub use answer::{Verdict, answer};
pub use diagram::diagram;
pub use from_book::from_book;
pub(crate) use from_book::not_to_play;
pub use from_db::from_db;
pub use from_rep::from_repertoire;
pub use list::{CardList, ListRequest, delete, list, show};
pub use stats::{CardStats, stats};
pub use view::{Card, CardMove, ReviewView, ScheduleView, Side};
pub use walk::WalkLimits;
