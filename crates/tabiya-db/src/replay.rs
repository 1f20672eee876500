//! The seam between the index and the game kinds: replaying a stored game to recover the
//! positions it counts. The index (merges, queries) asks this one interface; each kind
//! answers from its own stored form ([`crate::chess::replay`], [`crate::othello::keys`]).

use tabiya_store::ReadTx;

use crate::chess::walk::Reach;
use crate::game::Occurrence;
use crate::records::Records;
use crate::schema::Kind;
use crate::{Error, Result};

/// Replays stored games to recover their counted positions.
pub(crate) struct Replayer<'a> {
    pub games: Records,
    kind: Kind,
    max_ply: Option<u32>,
    _db: std::marker::PhantomData<&'a ()>,
}

impl Replayer<'_> {
    pub fn new<'a>(read: &ReadTx, kind: Kind, max_ply: Option<u32>) -> Result<Replayer<'a>> {
        Ok(Replayer {
            games: Records::new(read)?,
            kind,
            max_ply,
            _db: std::marker::PhantomData,
        })
    }

    /// The stored form of a game the index refers to.
    pub fn record(&self, game: u32) -> Result<Vec<u8>> {
        self.games
            .get(game)?
            .ok_or_else(|| Error::Corrupt(format!("index refers to missing game {game}")))
    }

    /// [`Replayer::occurrences_with_plies`] into buffers the caller reuses.
    pub fn occurrences_with_plies_into(
        &self,
        game: u32,
        occs: &mut Vec<Occurrence>,
        plies: &mut Vec<u16>,
    ) -> Result<()> {
        match self.kind {
            Kind::Chess => {
                crate::chess::replay::replay_record(&self.record(game)?, self.max_ply, occs, plies)?
            }
            Kind::Othello => {
                *occs = self.occurrences(game)?;
                plies.clear();
                plies.extend((0..occs.len()).map(|i| i as u16));
            }
        }
        Ok(())
    }

    /// The counted positions of a game with the ply of each.
    pub fn occurrences_with_plies(&self, game: u32) -> Result<(Vec<Occurrence>, Vec<u16>)> {
        let (mut occs, mut plies) = (Vec::with_capacity(128), Vec::with_capacity(128));
        self.occurrences_with_plies_into(game, &mut occs, &mut plies)?;
        Ok((occs, plies))
    }

    /// The occurrence of position `key` in a game (its first), or `None` when the game does
    /// not reach it within the ply cap. Chess replays only up to it; with `reach` (the
    /// position's [`Reach`]) it also stops once the game can no longer get there.
    pub fn occurrence_of(
        &self,
        game: u32,
        key: u128,
        reach: Option<&Reach>,
    ) -> Result<Option<Occurrence>> {
        match self.kind {
            Kind::Chess => {
                let data = self.record(game)?;
                let mut occs = Vec::with_capacity(64);
                let mut plies = Vec::with_capacity(64);
                crate::chess::replay::replay_record_until(
                    &data,
                    self.max_ply,
                    Some((key, reach)),
                    &mut occs,
                    &mut plies,
                )?;
                Ok(occs.last().filter(|o| o.key == key).copied())
            }
            Kind::Othello => Ok(self.occurrences(game)?.into_iter().find(|o| o.key == key)),
        }
    }

    /// The counted positions of a game.
    pub fn occurrences(&self, game: u32) -> Result<Vec<Occurrence>> {
        let data = self.record(game)?;
        match self.kind {
            Kind::Chess => {
                let mut occs = Vec::with_capacity(128);
                let mut plies = Vec::with_capacity(128);
                crate::chess::replay::replay_record(&data, self.max_ply, &mut occs, &mut plies)?;
                Ok(occs)
            }
            Kind::Othello => crate::othello::keys::record_occurrences(&data),
        }
    }

    /// The keys of the positions one legal move after position `key` in a game (its first
    /// occurrence), or `None` when the game never reaches it. Only chess needs them (its
    /// index keeps rare positions every other ply); Othello keeps every position.
    pub fn successor_keys(&self, game: u32, key: u128) -> Result<Option<Vec<u128>>> {
        match self.kind {
            Kind::Chess => Ok(crate::chess::replay::successor_keys_in_record(
                &self.record(game)?,
                key,
            )?),
            Kind::Othello => Ok(None),
        }
    }
}
