//! Chess questions to a [`Snapshot`]: a position's statistics and games (replays stopped
//! early where a game can no longer reach the position), a game's tags or whole game.

use shakmaty::{Chess, Move, Position};

use super::Reached;
use crate::Result;
use crate::answers::{GamePage, GameSort, PositionStats, Snapshot};
use crate::chess::key::position_key;
use crate::chess::moves::move_code;
use crate::chess::stored::{decode_game, decode_tags};
use crate::chess::walk::Reach;
use crate::index::find::{Found, Next, Wanted};

impl Snapshot<'_> {
    /// The tags of a chess game, without decoding its moves.
    pub fn chess_tags(&self, id: u32) -> Result<Option<Vec<(String, String)>>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(decode_tags(&data, &self.names)?)),
            None => Ok(None),
        }
    }

    /// A whole chess game.
    pub fn chess_game(&self, id: u32) -> Result<Option<tabiya_pgn::Game>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(decode_game(&data, &self.names)?)),
            None => Ok(None),
        }
    }

    /// Statistics of a chess position and its best-rated games. The same as
    /// [`Snapshot::position_with`] with its key and successors' keys, quicker: replays of
    /// candidate games stop as soon as they can no longer reach the position ([`Reach`]).
    pub fn chess_position(&self, pos: &Chess, top_n: usize) -> Result<PositionStats> {
        let found = self.chess_find(pos, false)?;
        self.position_stats(found, top_n)
    }

    /// What the index holds of a chess position (every game when `all`), its candidates'
    /// replays stopped as soon as they can no longer reach it ([`Reach`]).
    pub(crate) fn chess_find(&self, pos: &Chess, all: bool) -> Result<Found> {
        let reach = Reach::of(pos);
        self.find(&Wanted {
            key: position_key(pos),
            next: Next::Of(pos),
            reach: Some(&reach),
            all,
        })
    }

    /// The totals of a chess position alone: [`Snapshot::chess_position`] without ranking
    /// its best games (what each move's `reached` needs).
    pub fn chess_totals(&self, pos: &Chess) -> Result<crate::Stats> {
        let found = self.chess_find(pos, false)?;
        let mut totals = crate::Stats::default();
        for s in found.stats.values() {
            totals.merge(s);
        }
        Ok(totals)
    }

    /// The games reaching the positions some moves of a chess position lead to, by result
    /// (each move's `reached`): the results of [`Snapshot::chess_totals`] of each, in the
    /// moves' order. A run whose record of the position tells where a move leads (its
    /// games are all that go there, or the few others are listed) answers from the record:
    /// no lookup of that position in that run.
    pub fn chess_reached(&self, pos: &Chess, moves: &[Move]) -> Result<Vec<Reached>> {
        let codes: Vec<u16> = moves.iter().map(move_code).collect();
        let totals =
            self.index
                .totals_after(position_key(pos), &codes, &self.facts, &mut |i, in_run| {
                    let mut child = pos.clone();
                    child.play_unchecked(moves[i]);
                    let reach = Reach::of(&child);
                    let wanted = Wanted {
                        key: position_key(&child),
                        next: Next::Of(&child),
                        reach: Some(&reach),
                        all: false,
                    };
                    let found = self.index.find_in(&wanted, &self.facts, in_run)?;
                    let mut totals = crate::Stats::default();
                    for s in found.stats.values() {
                        totals.merge(s);
                    }
                    Ok(totals)
                })?;
        Ok(totals
            .into_iter()
            .map(|t| Reached {
                white: t.first,
                draws: t.draws,
                black: t.second,
                unknown: t.unknown,
            })
            .collect())
    }

    /// Every game reaching a chess position: [`Snapshot::position_games_with`] with the
    /// quicker replays of [`Snapshot::chess_position`].
    pub fn chess_position_games(
        &self,
        pos: &Chess,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<GamePage> {
        let found = self.chess_find(pos, true)?;
        self.page_of_games(found, sort, offset, limit)
    }
}
