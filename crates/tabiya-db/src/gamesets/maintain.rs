//! Gamesets kept current: each game imported or edited is judged against every gameset in
//! the transaction that stores it (a child's only when its parent takes it), and a deleted
//! game leaves them all in the transaction that deletes it. (When what names mean changes,
//! `super::names_changed` computes again the gamesets whose names now mean other games.)

use std::collections::HashMap;

use tabiya_store::{ReadTx, WriteTx};

use super::compile::{Node, Resolver, compile};
use super::criteria::parse_stored;
use super::game_view::GameView;
use super::ids::IdSet;
use super::store::{Definition, change_ids, definitions, definitions_in};
use crate::game::{Dict, NameLookup};
use crate::names::StoreNames;
use crate::persons::{Entries, read_entries};
use crate::{Error, Result};

/// Resolves names with the entries a transaction sees (or given ones); positions are
/// judged from each game's moves.
pub(crate) struct TxResolver<'r> {
    read: &'r ReadTx,
    names: StoreNames,
    entries: HashMap<Dict, Entries>,
    spellings: HashMap<Dict, Vec<(u32, String)>>,
    files: Vec<(String, String)>,
}

impl<'r> TxResolver<'r> {
    pub fn new(read: &'r ReadTx, entries: Option<&[Entries]>) -> Result<TxResolver<'r>> {
        let mut map = HashMap::new();
        for e in entries.unwrap_or_default() {
            map.insert(e.dict, e.clone());
        }
        Ok(TxResolver {
            read,
            names: StoreNames::new(read)?,
            entries: map,
            spellings: HashMap::new(),
            files: Vec::new(),
        })
    }

    pub fn with_files(&mut self, files: &[(String, String)]) {
        self.files = files.to_vec();
    }
}

impl Resolver for TxResolver<'_> {
    fn entries(&mut self, dict: Dict) -> Result<&Entries> {
        if !self.entries.contains_key(&dict) {
            let e = read_entries(self.read, dict)?
                .unwrap_or_else(|| Entries::new(dict, Vec::new(), Vec::new(), Vec::new()));
            self.entries.insert(dict, e);
        }
        Ok(&self.entries[&dict])
    }

    fn spellings(&mut self, dict: Dict) -> Result<&[(u32, String)]> {
        if !self.spellings.contains_key(&dict) {
            let all = self.names.all(dict)?;
            self.spellings.insert(dict, all);
        }
        Ok(&self.spellings[&dict])
    }

    fn reaching(&mut self, _fen: &str) -> Result<Option<(u32, IdSet)>> {
        Ok(None)
    }

    fn file(&mut self, name: &str) -> Result<String> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| Error::Corrupt(format!("gameset: the file {name} was not kept")))
    }
}

/// A gameset compiled to judge games one by one.
pub(crate) struct LiveSet {
    pub def: Definition,
    pub node: Node,
    /// Its parent's place in [`Live::sets`].
    parent: Option<usize>,
}

/// Every gameset of a database, compiled.
#[derive(Default)]
pub(crate) struct Live {
    pub sets: Vec<LiveSet>,
}

/// Compiles a definition with a resolver.
pub(crate) fn compile_definition(d: &Definition, r: &mut dyn Resolver) -> Result<Node> {
    let e = parse_stored(&d.criteria)
        .map_err(|e| Error::Corrupt(format!("gameset {}: {}", d.name, e.explain(&d.criteria))))?;
    compile(&e, r)
}

impl Live {
    fn from_definitions(defs: Vec<Definition>, read: &ReadTx) -> Result<Live> {
        let mut sets: Vec<LiveSet> = Vec::with_capacity(defs.len());
        let mut r = TxResolver::new(read, None)?;
        for def in defs {
            r.with_files(&def.files);
            let node = compile_definition(&def, &mut r)?;
            let parent = def
                .parent
                .as_ref()
                .and_then(|p| sets.iter().position(|s| s.def.name.eq_ignore_ascii_case(p)));
            sets.push(LiveSet { def, node, parent });
        }
        Ok(Live { sets })
    }

    /// The gamesets as `read` sees them.
    pub fn load(read: &ReadTx) -> Result<Live> {
        let defs = definitions(read)?;
        if defs.is_empty() {
            return Ok(Live::default());
        }
        Live::from_definitions(defs, read)
    }

    /// The gamesets as a write transaction holds them (names resolved with `read`).
    pub fn load_in(w: &WriteTx, read: &ReadTx) -> Result<Live> {
        let defs = definitions_in(w)?;
        if defs.is_empty() {
            return Ok(Live::default());
        }
        Live::from_definitions(defs, read)
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Whether each gameset takes the game, in the order of [`Self::sets`].
    pub fn judge(&self, g: &GameView<'_>) -> Result<Vec<bool>> {
        let mut inside = Vec::with_capacity(self.sets.len());
        for s in &self.sets {
            let parent_ok = s.parent.is_none_or(|p| inside[p]);
            inside.push(parent_ok && s.node.accepts(g)?);
        }
        Ok(inside)
    }
}

/// Joins and departures gathered for one transaction.
#[derive(Default)]
pub(crate) struct Moves {
    add: HashMap<u32, Vec<u32>>,
    take: HashMap<u32, Vec<u32>>,
}

impl Moves {
    /// A game judged: it joins the gamesets that take it, and (when it was in some,
    /// `before`) leaves those that no longer do.
    pub fn judged(&mut self, live: &Live, game: u32, inside: &[bool], before: Option<&[bool]>) {
        for (i, s) in live.sets.iter().enumerate() {
            let was = before.is_some_and(|b| b[i]);
            if inside[i] && !was {
                self.add.entry(s.def.id).or_default().push(game);
            } else if !inside[i] && was {
                self.take.entry(s.def.id).or_default().push(game);
            }
        }
    }

    /// Writes them.
    pub fn write(self, w: &WriteTx) -> Result<()> {
        let mut sets: Vec<u32> = self.add.keys().chain(self.take.keys()).copied().collect();
        sets.sort_unstable();
        sets.dedup();
        for set in sets {
            let add = self.add.get(&set).map(Vec::as_slice).unwrap_or_default();
            let take = self.take.get(&set).map(Vec::as_slice).unwrap_or_default();
            change_ids(w, set, add, take)?;
        }
        Ok(())
    }
}

/// Names of the games being stored, not yet written, before those the store has.
pub(crate) struct PendingNames<'a> {
    pub new: &'a HashMap<(Dict, u32), String>,
    pub store: &'a StoreNames,
}

impl NameLookup for PendingNames<'_> {
    fn name(&self, dict: Dict, id: u32) -> Option<String> {
        self.new
            .get(&(dict, id))
            .cloned()
            .or_else(|| self.store.name(dict, id))
    }

    fn failure(&self) -> Option<std::sync::Arc<str>> {
        self.store.failure()
    }
}

/// Judges the games of an import transaction as they come, and writes where they go.
pub(crate) struct Judge {
    live: Live,
    store: StoreNames,
    new_names: HashMap<(Dict, u32), String>,
    moves: Moves,
    max_ply: Option<u32>,
}

impl Judge {
    /// `None` when the database has no gameset.
    pub fn load(db: &crate::Database) -> Result<Option<Judge>> {
        if db.kind() != crate::Kind::Chess {
            return Ok(None);
        }
        let read = db.store.read()?;
        let live = Live::load(&read)?;
        if live.is_empty() {
            return Ok(None);
        }
        Ok(Some(Judge {
            live,
            store: StoreNames::new(&read)?,
            new_names: HashMap::new(),
            moves: Moves::default(),
            max_ply: db.max_ply(),
        }))
    }

    /// Names the coming games use that the store has not yet.
    pub fn new_names(&mut self, names: &[(Dict, u32, String)]) {
        for (d, id, n) in names {
            self.new_names.insert((*d, *id), n.clone());
        }
    }

    /// A new game (its stored form, uncompressed).
    pub fn judge_new(
        &mut self,
        id: u32,
        facts: crate::GameFacts,
        players: crate::Players,
        record: &[u8],
    ) -> Result<()> {
        let names = PendingNames {
            new: &self.new_names,
            store: &self.store,
        };
        let no_load =
            |id: u32| -> Result<Vec<u8>> { Err(Error::Corrupt(format!("game {id}: not at hand"))) };
        let no_players = |id: u32| -> Result<crate::Players> {
            Err(Error::Corrupt(format!("game {id}: players not at hand")))
        };
        let g = GameView::new(id, facts, &no_players, &names, self.max_ply, &no_load)
            .with_record(record.to_vec(), players);
        let inside = self.live.judge(&g)?;
        self.moves.judged(&self.live, id, &inside, None);
        Ok(())
    }

    /// Writes the games' gamesets in the transaction that stores them; ready for the next.
    pub fn write(&mut self, w: &WriteTx) -> Result<()> {
        std::mem::take(&mut self.moves).write(w)
    }
}

/// Games edited in `w` (id, facts, players, the new stored form): each joins or leaves
/// the gamesets as it now meets their criteria.
pub(crate) fn games_edited(
    db: &crate::Database,
    read: &ReadTx,
    w: &WriteTx,
    new_names: &HashMap<(Dict, u32), String>,
    games: &[(u32, crate::GameFacts, crate::Players, &[u8])],
) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    let live = Live::load_in(w, read)?;
    if live.is_empty() {
        return Ok(());
    }
    let store = StoreNames::new(read)?;
    let names = PendingNames {
        new: new_names,
        store: &store,
    };
    let no_load =
        |id: u32| -> Result<Vec<u8>> { Err(Error::Corrupt(format!("game {id}: not at hand"))) };
    let mut moves = Moves::default();
    let no_players = |id: u32| -> Result<crate::Players> {
        Err(Error::Corrupt(format!("game {id}: players not at hand")))
    };
    for &(id, facts, players, raw) in games {
        let g = GameView::new(id, facts, &no_players, &names, db.max_ply(), &no_load)
            .with_record(raw.to_vec(), players);
        let inside = live.judge(&g)?;
        let before = live
            .sets
            .iter()
            .map(|s| super::store::holds(w, s.def.id, id))
            .collect::<Result<Vec<bool>>>()?;
        moves.judged(&live, id, &inside, Some(&before));
    }
    moves.write(w)
}

/// Games deleted in `w`: they leave every gameset.
pub(crate) fn games_deleted(w: &WriteTx, games: &[u32]) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    for d in definitions_in(w)? {
        change_ids(w, d.id, &[], games)?;
    }
    Ok(())
}
