//! The chess game kind: position keys ([`key`]), move codes ([`moves`]), the positions a game
//! counts ([`walk`]) and their replay from a stored game ([`replay`]), the stored form of a
//! game ([`stored`], [`tags`]), its facts for the index ([`facts`]) and opening names
//! ([`openings`]).

pub mod facts;
pub mod key;
pub mod moves;
pub mod openings;
pub mod replay;
pub mod stored;
pub mod tags;
pub mod walk;

#[cfg(test)]
mod tests;

// The answers of chess, kept under `chess` for the public API (they live in `answers/chess`).
pub use crate::answers::chess::{
    ChessExplore, ChessGames, EarlierGames, GameFilter, GameRow, LaterStructure, LaterStructures,
    MonthResults, MoveCounts, MoveRow, MoveYears, NextStructure, OpeningName, Player, PlayerFilter,
    PositionMonths, PositionYears, Reached, Route, Routes, SINGLE_GAMES_UP_TO, SearchGame,
    SearchPage, StructureSearch, TopGame, YearResults, most_frequent_structures,
};
pub use crate::game::{Dict, NO_MOVE, NameLookup, Names, Occurrence};
pub use crate::import::cluster;
pub use crate::index::{TOP_GAMES, top_order};
pub use facts::{facts, facts_from, index_outcome};
pub use key::{next_key, next_key_from, position_key, successor_keys};
pub use moves::{code_to_move, decode_move, encode_move, encode_move_ep, move_code};
pub use replay::{replay_record, replay_record_until, successor_keys_in_record};
pub use stored::{
    assemble, assemble_tags, decode_game, decode_line, decode_line_start, decode_tags, encode_body,
    encode_game, prepare, put_body_head,
};
pub use tags::{encode_tag_list, encode_tags};
pub use walk::{Left, Reach, Walk, occurrences, occurrences_with_plies};
