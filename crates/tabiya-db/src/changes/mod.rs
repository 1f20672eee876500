//! Games changed after their import: tags edited, games deleted. Each change is one write
//! transaction (the game, its facts and players, new names, the removed set and the patches
//! of the T records that counted it), so a crash leaves all of it or none; readers go on
//! answering from the state before it until it commits. How the index stays exact without
//! being rebuilt: [`crate::index::amend`] (what readers see) and [`retally`] (what a change
//! writes).

mod names;
mod retally;
mod tag_edit;

use serde::{Deserialize, Serialize};
use tabiya_store::{ReadTx, WriteTx};

pub use tag_edit::{TagEdit, check as check_edit};

use self::retally::Retally;
use crate::chess::stored::{decode_game, encode_body, skip_tags};
use crate::chess::tags::tag_part_ids;
use crate::codec::Reader;
use crate::facts::{FactsReader, write_facts};
use crate::index::amend::{PATCHES, REMOVED_KEY, encode_removed, load_removed, patch_key};
use crate::names::{FewNames, NAMES, StoreNames, write_names};
use crate::players::write_players;
use crate::records::{DICT_KEY, Packer, encoder_dictionary};
use crate::shapes::tally::Changed;
use crate::stats::GameFacts;
use crate::{Database, Error, GAMES, Kind, META, Result, game_digest};

/// What a deletion did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Deleted {
    /// Games deleted.
    pub games: u64,
    /// Ids asked for that name no game (never imported, or deleted before).
    pub missing: Vec<u32>,
    /// T records whose statistics changed.
    pub records: u64,
}

/// What an edit did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Edited {
    pub game: u32,
    /// Whether the tags changed (setting a tag to its value changes nothing).
    pub changed: bool,
    /// The game's tags before and after.
    pub before: Vec<(String, String)>,
    pub after: Vec<(String, String)>,
    /// T records whose statistics changed (an edit of the result, a rating or a date; for
    /// several games edited in one change, those of all of them).
    pub records: u64,
}

/// One write: the transaction, and a read of the state it starts from (nothing else
/// writes meanwhile: the database's change lock is held).
struct Change<'a> {
    db: &'a Database,
    write: WriteTx,
    read: ReadTx,
}

impl<'a> Change<'a> {
    fn begin(db: &'a Database) -> Result<Change<'a>> {
        let write = db.store.write()?;
        let read = db.store.read()?;
        Ok(Change { db, write, read })
    }

    /// Writes the patches and the removed set, and commits.
    fn commit(
        self,
        patches: Vec<(u32, u128, crate::index::amend::Patch)>,
        removing: &[u32],
    ) -> Result<()> {
        if !patches.is_empty() {
            self.write.with_table(PATCHES, |t| {
                for (run, key, p) in &patches {
                    t.put(&patch_key(*run, *key), &p.encode())?;
                }
                Ok(())
            })?;
        }
        if !removing.is_empty() {
            let mut removed = load_removed(&self.read)?;
            removed.extend_from_slice(removing);
            removed.sort_unstable();
            removed.dedup();
            self.write
                .with_table(META, |t| t.put(REMOVED_KEY, &encode_removed(&removed)))?;
        }
        self.write.commit()?;
        self.db.committed();
        Ok(())
    }
}

impl Database {
    /// Deletes games by id, in one transaction: every answer then leaves them out, as if
    /// they had never been imported. Ids naming no game are reported, not an error.
    pub fn delete_games(&self, ids: &[u32]) -> Result<Deleted> {
        let _lock = self.lock_changes();
        let change = Change::begin(self)?;
        let index = self.index_reader(&change.read)?;
        let facts = FactsReader::new(&change.read)?;
        let mut retally = Retally::new(&index, &facts);
        let mut ids: Vec<u32> = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut out = Deleted::default();
        let mut gone = Vec::new();
        for &id in &ids {
            if index.amendments.is_removed(id) || index.replayer.games.get(id)?.is_none() {
                out.missing.push(id);
                continue;
            }
            let occs = index.replayer.occurrences(id)?;
            retally.change(id, &occs, facts.get(id)?, None)?;
            gone.push(id);
        }
        let patches = retally.finish()?;
        out.games = gone.len() as u64;
        out.records = patches.len() as u64;
        if gone.is_empty() {
            return Ok(out);
        }
        change.write.with_table(GAMES, |t| {
            for id in &gone {
                t.remove(&id.to_be_bytes())?;
            }
            Ok(())
        })?;
        if self.kind() == Kind::Chess {
            let players = crate::players::PlayersReader::new(&change.read)?;
            let mut sides = Vec::new();
            for &id in &gone {
                let date = facts.get(id)?.date;
                for p in players.get(id)?.into_iter().flatten() {
                    sides.push((p, date, -1));
                }
            }
            crate::persons::count_players(&change.read, &change.write, &sides)?;
        }
        for &id in &gone {
            // No facts, no digest (the same game imported again is not a duplicate).
            write_facts(&change.write, id, &[GameFacts::default()], &[0])?;
            if self.kind() == Kind::Chess {
                write_players(&change.write, id, &[[None, None]])?;
            }
        }
        crate::gamesets::maintain::games_deleted(&change.write, &gone)?;
        let shapes: Vec<Changed> = gone
            .iter()
            .map(|&id| {
                Ok(Changed {
                    id,
                    before: facts.get(id)?,
                    after: None,
                })
            })
            .collect::<Result<_>>()?;
        crate::shapes::tally::patch(&change.read, &change.write, &shapes)?;
        change.commit(patches, &gone)?;
        Ok(out)
    }

    /// Edits a chess game's tags: its stored form, facts, players and duplicate digest
    /// change, and every statistic that counted it (a result, a rating, a date). A player,
    /// event or site spelt in a way no game spelt before finds what it means (the entries
    /// are computed again, in a transaction of their own).
    pub fn edit_game(&self, id: u32, edits: &[TagEdit]) -> Result<Edited> {
        let mut out = self.edit_games(&[(id, edits.to_vec())])?;
        Ok(out.pop().expect("one game, one answer"))
    }

    /// [`Database::edit_game`] for many games in one transaction (all or none): each
    /// T record they touch is counted again once.
    pub fn edit_games(&self, edits: &[(u32, Vec<TagEdit>)]) -> Result<Vec<Edited>> {
        let (edited, new_spellings) = self.edit_games_alone(edits, true)?;
        if new_spellings {
            self.rebuild_names()?;
        }
        Ok(edited)
    }

    /// [`Database::edit_games`] without the bounds of a tag ([`check_edit`]'s and the
    /// game's): for tests only, to make what a database written before the bounds existed
    /// holds — a game the import would refuse, which every copy must then refuse loudly.
    #[doc(hidden)]
    pub fn edit_games_past_bounds(&self, edits: &[(u32, Vec<TagEdit>)]) -> Result<Vec<Edited>> {
        let (edited, new_spellings) = self.edit_games_alone(edits, false)?;
        if new_spellings {
            self.rebuild_names()?;
        }
        Ok(edited)
    }

    /// [`Database::edit_games`] but for the entries; says whether it added spellings.
    /// `bounded`: each edit checked, and the game after it (false for tests only).
    fn edit_games_alone(
        &self,
        edits: &[(u32, Vec<TagEdit>)],
        bounded: bool,
    ) -> Result<(Vec<Edited>, bool)> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(
                "the games of an Othello database have no tags to edit (delete and import instead)"
                    .into(),
            ));
        }
        let mut ids: Vec<u32> = edits.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::Usage(format!(
                "game {} is edited twice in one change",
                w[0]
            )));
        }
        for (id, e) in edits
            .iter()
            .filter(|_| bounded)
            .flat_map(|(id, e)| e.iter().map(move |e| (*id, e)))
        {
            check_edit(e).map_err(|err| match err {
                Error::Usage(why) => Error::Usage(format!("game {id}: {why}")),
                other => other,
            })?;
        }
        let _lock = self.lock_changes();
        let change = Change::begin(self)?;
        let index = self.index_reader(&change.read)?;
        let facts = FactsReader::new(&change.read)?;
        let players_now = crate::players::PlayersReader::new(&change.read)?;
        let names = StoreNames::new(&change.read)?;
        let table = change.read.table(NAMES)?;
        let dict = change.read.table(META)?.get(DICT_KEY)?;
        let dict = dict.as_deref().map(encoder_dictionary);
        let mut packer = Packer::new(dict.as_ref())?;
        // The games as they are, and the names they have (no dictionary read unless a
        // name is new).
        let mut stored = Vec::with_capacity(edits.len());
        let mut seed = Vec::new();
        for (id, _) in edits {
            let missing = || Error::NotFound(format!("no game {id} in {}", self.dir().display()));
            if index.amendments.is_removed(*id) {
                return Err(missing());
            }
            let data = index.replayer.games.get(*id)?.ok_or_else(missing)?;
            for (d, i) in tag_part_ids(skip_tags(&mut Reader::new(&data))?)? {
                if let Some(n) = crate::NameLookup::name(&names, d, i) {
                    seed.push((d, n, i));
                }
            }
            stored.push(data);
        }
        let mut few = FewNames::new(&table, seed);
        let mut retally = Retally::new(&index, &facts);
        let mut shapes = Vec::new();
        let mut out = Vec::with_capacity(edits.len());
        let mut sides: Vec<(u32, u32, i64)> = Vec::new();
        let mut writes = Vec::new();
        for ((id, game_edits), data) in edits.iter().zip(&stored) {
            let mut game = decode_game(data, &names)?;
            let before = game.tags.clone();
            let changed = tag_edit::apply(&mut game, game_edits);
            out.push(Edited {
                game: *id,
                changed,
                before,
                after: game.tags.clone(),
                ..Edited::default()
            });
            if !changed {
                continue;
            }
            if bounded {
                refuse_unreadable(*id, data, &names, &game)?;
            }
            // The stored form again: the body as before but for the result.
            let mut body = Vec::new();
            encode_body(&game, &mut body);
            let mut raw = Vec::with_capacity(data.len() + 64);
            let players = crate::chess::stored::assemble_tags(
                game.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
                &mut few,
                &body,
                &mut raw,
            );
            let old_facts = facts.get(*id)?;
            let new_facts = crate::chess::facts(&game);
            if new_facts != old_facts {
                let occs = index.replayer.occurrences(*id)?;
                retally.change(*id, &occs, old_facts, Some(new_facts))?;
                shapes.push(Changed {
                    id: *id,
                    before: old_facts,
                    after: Some(new_facts),
                });
            }
            let old_players = players_now.get(*id)?;
            if old_players != players || old_facts.date != new_facts.date {
                sides.extend(
                    old_players
                        .into_iter()
                        .flatten()
                        .map(|p| (p, old_facts.date, -1)),
                );
                sides.extend(
                    players
                        .into_iter()
                        .flatten()
                        .map(|p| (p, new_facts.date, 1)),
                );
            }
            let mut packed = Vec::new();
            packer.pack(&raw, &mut packed)?;
            writes.push((*id, packed, new_facts, game_digest(&game), players, raw));
        }
        let new_names = few.finish()?;
        let patches = retally.finish()?;
        let records = patches.len() as u64;
        for e in out.iter_mut().filter(|e| e.changed) {
            e.records = records;
        }
        if writes.is_empty() {
            return Ok((out, false));
        }
        change.write.with_table(GAMES, |t| {
            for (id, packed, ..) in &writes {
                t.put(&id.to_be_bytes(), packed)?;
            }
            Ok(())
        })?;
        write_names(&change.write, &new_names)?;
        for (id, _, f, digest, players, _) in &writes {
            write_facts(&change.write, *id, &[*f], &[*digest])?;
            write_players(&change.write, *id, &[*players])?;
        }
        crate::persons::count_players(&change.read, &change.write, &sides)?;
        let added: std::collections::HashMap<(crate::Dict, u32), String> = new_names
            .iter()
            .map(|(d, i, n)| ((*d, *i), n.clone()))
            .collect();
        let games: Vec<_> = writes
            .iter()
            .map(|(id, _, f, _, p, raw)| (*id, *f, *p, raw.as_slice()))
            .collect();
        crate::gamesets::maintain::games_edited(self, &change.read, &change.write, &added, &games)?;
        crate::shapes::tally::patch(&change.read, &change.write, &shapes)?;
        change.commit(patches, &[])?;
        let new_spellings = new_names
            .iter()
            .any(|(d, _, _)| crate::persons::ENTRY_DICTS.contains(d));
        Ok((out, new_spellings))
    }

    /// Held by every change and merge: a merge reads its parts before it writes, and no
    /// change may come between.
    pub(crate) fn lock_changes(&self) -> std::sync::MutexGuard<'_, ()> {
        self.changes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Refuses an edit after which the game, written as PGN, is one the import refuses (each
/// tag set was checked alone; here the game whole: more than `MAX_GAME_BYTES` with the tags
/// added) — unless it was so before the edit (a game stored before the bounds existed can
/// still be edited, to mend it).
fn refuse_unreadable(
    id: u32,
    data: &[u8],
    names: &StoreNames,
    game: &tabiya_pgn::Game,
) -> Result<()> {
    let Some(why) = tabiya_pgn::refusal::text_refusal(tabiya_pgn::game_to_string(game).as_bytes())
    else {
        return Ok(());
    };
    let before = decode_game(data, names)?;
    if tabiya_pgn::refusal::text_refusal(tabiya_pgn::game_to_string(&before).as_bytes()).is_some() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "game {id}: after this edit the import would refuse the game ({why}): edit refused"
    )))
}
