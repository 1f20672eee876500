//! One game as a criterion looks at it: its facts and players at once (from their tables),
//! the rest decoded from its stored form only when a condition asks — tags, name ids, the
//! counted positions, the main line.

use std::cell::OnceCell;

use shakmaty::{CastlingMode, Chess, Move};

use crate::chess::replay::replay_record;
use crate::chess::stored::{F_ANNOTATED, decode_line, decode_tags, skip_tags};
use crate::chess::tags::tag_part_ids;
use crate::codec::Reader;
use crate::game::{Dict, NameLookup, Occurrence};
use crate::players::Players;
use crate::stats::GameFacts;
use crate::{Error, Result};

/// A game being judged.
pub(crate) struct GameView<'a> {
    pub id: u32,
    pub facts: GameFacts,
    players: OnceCell<Players>,
    load_players: &'a dyn Fn(u32) -> Result<Players>,
    pub names: &'a dyn NameLookup,
    max_ply: Option<u32>,
    load: &'a dyn Fn(u32) -> Result<Vec<u8>>,
    record: OnceCell<Vec<u8>>,
    tags: OnceCell<Vec<(String, String)>>,
    ids: OnceCell<Vec<(Dict, u32)>>,
    keys: OnceCell<Vec<u128>>,
    line: OnceCell<(Chess, CastlingMode, Vec<Move>)>,
}

fn corrupt(id: u32, e: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("game {id}: {e}"))
}

impl<'a> GameView<'a> {
    pub fn new(
        id: u32,
        facts: GameFacts,
        load_players: &'a dyn Fn(u32) -> Result<Players>,
        names: &'a dyn NameLookup,
        max_ply: Option<u32>,
        load: &'a dyn Fn(u32) -> Result<Vec<u8>>,
    ) -> GameView<'a> {
        GameView {
            id,
            facts,
            players: OnceCell::new(),
            load_players,
            names,
            max_ply,
            load,
            record: OnceCell::new(),
            tags: OnceCell::new(),
            ids: OnceCell::new(),
            keys: OnceCell::new(),
            line: OnceCell::new(),
        }
    }

    /// A view of a game whose stored form and players are at hand (a game being imported
    /// or edited).
    pub fn with_record(mut self, record: Vec<u8>, players: Players) -> GameView<'a> {
        self.record = OnceCell::from(record);
        self.players = OnceCell::from(players);
        self
    }

    /// The ids of the game's two players.
    pub fn players(&self) -> Result<Players> {
        if let Some(p) = self.players.get() {
            return Ok(*p);
        }
        let p = (self.load_players)(self.id)?;
        Ok(*self.players.get_or_init(|| p))
    }

    fn record(&self) -> Result<&[u8]> {
        if let Some(r) = self.record.get() {
            return Ok(r);
        }
        let r = (self.load)(self.id)?;
        Ok(self.record.get_or_init(|| r))
    }

    /// Every tag, as exported.
    pub fn tags(&self) -> Result<&[(String, String)]> {
        if let Some(t) = self.tags.get() {
            return Ok(t);
        }
        let t = decode_tags(self.record()?, self.names).map_err(|e| corrupt(self.id, e))?;
        Ok(self.tags.get_or_init(|| t))
    }

    /// A tag's value (any case of its name).
    pub fn tag(&self, name: &str) -> Result<Option<&str>> {
        Ok(self
            .tags()?
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str()))
    }

    /// The dictionary id of the game's event or site.
    pub fn name_id(&self, dict: Dict) -> Result<Option<u32>> {
        if self.ids.get().is_none() {
            let mut r = Reader::new(self.record()?);
            let part = skip_tags(&mut r).map_err(|e| corrupt(self.id, e))?;
            let ids = tag_part_ids(part).map_err(|e| corrupt(self.id, e))?;
            let _ = self.ids.set(ids);
        }
        let ids = self.ids.get().expect("set above");
        // The roster's slots come first: White, Black, Event, Site, Round.
        Ok(ids.iter().find(|(d, _)| *d == dict).map(|(_, id)| *id))
    }

    /// Whether the game has comments, NAGs or variations.
    pub fn annotated(&self) -> Result<bool> {
        let mut r = Reader::new(self.record()?);
        skip_tags(&mut r).map_err(|e| corrupt(self.id, e))?;
        Ok(r.u8("game flags").map_err(|e| corrupt(self.id, e))? & F_ANNOTATED != 0)
    }

    /// The keys of the positions the index counts for the game, in the order reached.
    pub fn keys(&self) -> Result<&[u128]> {
        if let Some(k) = self.keys.get() {
            return Ok(k);
        }
        let mut occs: Vec<Occurrence> = Vec::new();
        let mut plies = Vec::new();
        replay_record(self.record()?, self.max_ply, &mut occs, &mut plies)
            .map_err(|e| corrupt(self.id, e))?;
        let keys = occs.into_iter().map(|o| o.key).collect();
        Ok(self.keys.get_or_init(|| keys))
    }

    /// The start position and main line.
    pub fn line(&self) -> Result<&(Chess, CastlingMode, Vec<Move>)> {
        if let Some(l) = self.line.get() {
            return Ok(l);
        }
        let (start, mode, moves, _) =
            decode_line(self.record()?).map_err(|e| corrupt(self.id, e))?;
        Ok(self.line.get_or_init(|| (start, mode, moves)))
    }

    /// Plies of the main line.
    pub fn plies(&self) -> Result<u32> {
        Ok(self.line()?.2.len() as u32)
    }

    /// A player's name as written (0: White, 1: Black).
    pub fn player_name(&self, side: usize) -> Result<Option<String>> {
        match self.players()?[side] {
            Some(id) => self
                .names
                .name_checked(Dict::Player, id)
                .map_err(|why| Error::Corrupt(why.to_string())),
            None => Ok(None),
        }
    }
}
