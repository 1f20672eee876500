//! Gamesets (CDB's "primary means of searching the database and manipulating collections of
//! games"): named criteria (`criteria`, documented in `docs/gamesets.md`), optionally made
//! from another gameset (their games are among its games), with the games that meet them
//! stored as ranges of ids (`ids`, `store`) and kept current by every import, edit and
//! deletion in its own transaction (`maintain`). Created by judging every game — or, when
//! the criteria require a position, only the games the index lists for it.

mod compile;
pub(crate) mod criteria;
mod game_view;
pub(crate) use crate::ids;
pub(crate) mod maintain;
mod store;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use self::compile::{Node, Resolver};
use self::game_view::GameView;
use self::maintain::{TxResolver, compile_definition};
use self::store::{
    Definition, definitions, definitions_in, load_ids, load_ids_in, put_definition, put_ids,
};
use crate::chess::position_key;
use crate::chess::walk::Reach;
use crate::game::Dict;
use crate::index::find::{Next, Wanted};
use crate::persons::Entries;
use crate::{Database, Error, Kind, Result, Snapshot, meta_u64};

pub use crate::ids::IdSet;
pub use criteria::ParseError;
pub use store::{GAMESET_IDS, GAMESETS};

/// A gameset as shown.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Gameset {
    pub name: String,
    pub criteria: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Games in it now.
    pub games: u64,
    /// Ranges of consecutive ids they make.
    pub ranges: u64,
    /// Seconds since 1970.
    pub created: u64,
    pub refreshed: u64,
    /// Repertoire files its criteria follow (kept in the database as they were read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The repertoire files a criterion names (`follows FILE`), to be read by the caller.
pub fn files_of(criteria: &str) -> std::result::Result<Vec<String>, String> {
    fn walk(e: &criteria::Expr, out: &mut Vec<String>) {
        match e {
            criteria::Expr::And(p) | criteria::Expr::Or(p) => p.iter().for_each(|e| walk(e, out)),
            criteria::Expr::Not(p) => walk(p, out),
            criteria::Expr::Cond(criteria::Cond::Follows { file, .. }) => {
                if !out.contains(file) {
                    out.push(file.clone())
                }
            }
            criteria::Expr::Cond(_) => {}
        }
    }
    let e = criteria::parse(criteria).map_err(|e| e.explain(criteria))?;
    let mut out = Vec::new();
    walk(&e, &mut out);
    Ok(out)
}

/// Resolves names and positions with a snapshot: names by the entries it sees (or those
/// given), positions by the index.
struct SnapResolver<'s, 'a> {
    snap: &'s Snapshot<'a>,
    entries: HashMap<Dict, Entries>,
    spellings: HashMap<Dict, Vec<(u32, String)>>,
    files: Vec<(String, String)>,
    /// Games from this id on are not in the snapshot.
    end: u32,
}

impl<'s, 'a> SnapResolver<'s, 'a> {
    fn new(snap: &'s Snapshot<'a>, entries: Option<&[Entries]>) -> Result<SnapResolver<'s, 'a>> {
        Ok(SnapResolver {
            snap,
            entries: entries
                .unwrap_or_default()
                .iter()
                .map(|e| (e.dict, e.clone()))
                .collect(),
            spellings: HashMap::new(),
            files: Vec::new(),
            end: meta_u64(snap.read_tx(), "next_game")? as u32,
        })
    }
}

impl Resolver for SnapResolver<'_, '_> {
    fn entries(&mut self, dict: Dict) -> Result<&Entries> {
        if !self.entries.contains_key(&dict) {
            let e = self.snap.entries(dict)?;
            self.entries.insert(dict, e);
        }
        Ok(&self.entries[&dict])
    }

    fn spellings(&mut self, dict: Dict) -> Result<&[(u32, String)]> {
        if !self.spellings.contains_key(&dict) {
            let all = self.snap.names().all(dict)?;
            self.spellings.insert(dict, all);
        }
        Ok(&self.spellings[&dict])
    }

    fn reaching(&mut self, fen: &str) -> Result<Option<(u32, IdSet)>> {
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .ok_or_else(|| Error::Corrupt(format!("gameset: the position {fen}")))?;
        let reach = Reach::of(&pos);
        let found = self.snap.find(&Wanted {
            key: position_key(&pos),
            next: Next::Of(&pos),
            reach: Some(&reach),
            all: true,
        })?;
        Ok(Some((
            self.end,
            found.all.into_iter().map(|(g, _)| g).collect(),
        )))
    }

    fn file(&mut self, name: &str) -> Result<String> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| Error::Usage(format!("the file {name} was not read")))
    }
}

/// The games of a snapshot with ids in `ids` (all when `None`) that meet the criteria.
fn members(snap: &Snapshot<'_>, node: &Node, within: Option<&IdSet>, from: u32) -> Result<IdSet> {
    let load = |id: u32| -> Result<Vec<u8>> {
        snap.game_record(id)?
            .ok_or_else(|| Error::NotFound(format!("game {id} is missing")))
    };
    let players = |id: u32| snap.players(id);
    let max_ply = snap.database().max_ply();
    let judge = |id: u32, out: &mut IdSet| -> Result<()> {
        let g = GameView::new(id, snap.facts(id)?, &players, snap.names(), max_ply, &load);
        match node.accepts(&g) {
            Ok(true) => {
                out.insert(id);
            }
            Ok(false) => {}
            // An id with no game (none was stored under it): not a game to judge.
            Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
        Ok(())
    };
    let mut out = IdSet::default();
    let candidates: Option<IdSet> = match (node.candidates(), within) {
        (Some(c), Some(w)) => {
            let mut c = c.clone();
            c.intersect(w);
            Some(c)
        }
        (Some(c), None) => Some(c.clone()),
        (None, Some(w)) => Some(w.clone()),
        (None, None) => None,
    };
    match candidates {
        Some(c) => {
            for (i, id) in c.iter().filter(|id| *id >= from).enumerate() {
                if i % 1024 == 1023 {
                    crate::deadline::check()?;
                }
                judge(id, &mut out)?;
            }
        }
        None => {
            // Every game: the ids given so far but those deleted (no need to read the
            // games' table for them).
            let end = meta_u64(snap.read_tx(), "next_game")? as u32;
            let removed = &snap.index.amendments;
            for (i, id) in (from.max(1)..end)
                .filter(|id| !removed.is_removed(*id))
                .enumerate()
            {
                if i % 1024 == 1023 {
                    crate::deadline::check()?;
                }
                judge(id, &mut out)?;
            }
        }
    }
    Ok(out)
}

fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(Error::Usage(format!(
            "{name:?}: a gameset's name is 1 to 100 characters, none a control character"
        )));
    }
    Ok(name.to_string())
}

fn to_view(d: &Definition, ids: &IdSet) -> Gameset {
    Gameset {
        name: d.name.clone(),
        criteria: d.criteria.clone(),
        parent: d.parent.clone(),
        games: ids.len(),
        ranges: ids.ranges().len() as u64,
        created: d.created,
        refreshed: d.refreshed,
        files: d.files.iter().map(|(n, _)| n.clone()).collect(),
    }
}

impl Database {
    fn check_gameset_kind(&self) -> Result<()> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is an Othello database: gamesets are kept for chess databases",
                self.dir().display()
            )));
        }
        Ok(())
    }

    /// Makes a gameset: the games that meet `criteria` (among `parent`'s games when given),
    /// kept current from then on. `files` holds the text of each repertoire file the
    /// criteria follow ([`files_of`]).
    pub fn create_gameset(
        &self,
        name: &str,
        criteria: &str,
        parent: Option<&str>,
        files: Vec<(String, String)>,
    ) -> Result<Gameset> {
        self.check_gameset_kind()?;
        let name = check_name(name)?;
        let expr = criteria::parse(criteria).map_err(|e| Error::Usage(e.explain(criteria)))?;
        let _lock = self.lock_changes();
        let snap = self.snapshot_of(self.store.read()?)?;
        let defs = definitions(snap.read_tx())?;
        if let Some(d) = defs.iter().find(|d| d.name.eq_ignore_ascii_case(&name)) {
            return Err(Error::Usage(format!(
                "a gameset {:?} exists already (tabiya gameset delete, or another name)",
                d.name
            )));
        }
        let parent = match parent {
            None => None,
            Some(p) => Some(
                defs.iter()
                    .find(|d| d.name.eq_ignore_ascii_case(p.trim()))
                    .cloned()
                    .ok_or_else(|| Error::NotFound(format!("no gameset {p:?}")))?,
            ),
        };
        let mut r = SnapResolver::new(&snap, None)?;
        r.files = files.clone();
        let node = compile::compile(&expr, &mut r)?;
        let within = match &parent {
            Some(p) => Some(load_ids(&snap.read_tx().table(GAMESET_IDS)?, p.id)?),
            None => None,
        };
        let mut ids = members(&snap, &node, within.as_ref(), 0)?;
        let end = r.end;
        drop(snap);
        let id = defs.iter().map(|d| d.id + 1).max().unwrap_or(0);
        let t = now();
        let def = Definition {
            id,
            name,
            criteria: criteria.trim().to_string(),
            parent: parent.as_ref().map(|p| p.name.clone()),
            created: t,
            refreshed: t,
            files,
        };
        let w = self.store.write()?;
        // Games stored since the snapshot (an import of the same process) are judged too.
        let later = self.snapshot_of(self.store.read()?)?;
        if meta_u64(later.read_tx(), "next_game")? as u32 > end {
            let within = match &parent {
                Some(p) => Some(load_ids(&later.read_tx().table(GAMESET_IDS)?, p.id)?),
                None => None,
            };
            for g in members(&later, &node, within.as_ref(), end)?.iter() {
                ids.insert(g);
            }
        }
        put_definition(&w, &def)?;
        put_ids(&w, id, &ids)?;
        w.commit()?;
        self.committed();
        Ok(to_view(&def, &ids))
    }

    /// Deletes a gameset (not its games). One that others were made from is refused.
    pub fn delete_gameset(&self, name: &str) -> Result<Gameset> {
        self.check_gameset_kind()?;
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let defs = definitions_in(&w)?;
        let def = find(&defs, name)?;
        let children: Vec<&str> = defs
            .iter()
            .filter(|d| {
                d.parent
                    .as_ref()
                    .is_some_and(|p| p.eq_ignore_ascii_case(&def.name))
            })
            .map(|d| d.name.as_str())
            .collect();
        if !children.is_empty() {
            return Err(Error::Usage(format!(
                "gameset {:?} is the parent of {}: delete {} first",
                def.name,
                children.join(", "),
                if children.len() == 1 { "it" } else { "them" }
            )));
        }
        let ids = load_ids_in(&w, def.id)?;
        let view = to_view(def, &ids);
        store::remove(&w, def)?;
        w.commit()?;
        self.committed();
        Ok(view)
    }

    /// Judges every game again for a gameset (and the gamesets made from it): what the
    /// criteria mean now (names, the opening table) decides.
    pub fn refresh_gameset(&self, name: &str) -> Result<Vec<Gameset>> {
        self.check_gameset_kind()?;
        let _lock = self.lock_changes();
        let w = self.store.write()?;
        let defs = definitions_in(&w)?;
        let def = find(&defs, name)?.clone();
        let snap = self.snapshot_of(self.store.read()?)?;
        recompute(&snap, &w, &defs, &[def.id], None).and_then(|out| {
            w.commit()?;
            self.committed();
            Ok(out)
        })
    }
}

fn find<'d>(defs: &'d [Definition], name: &str) -> Result<&'d Definition> {
    defs.iter()
        .find(|d| d.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
            Error::NotFound(format!(
                "no gameset {name:?}{}",
                if defs.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (there are {})",
                        defs.iter()
                            .map(|d| d.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ))
        })
}

/// Computes again the gamesets `roots` and every gameset made from them, in `w`, from the
/// games `snap` sees (names resolved with `entries` when given).
fn recompute(
    snap: &Snapshot<'_>,
    w: &tabiya_store::WriteTx,
    defs: &[Definition],
    roots: &[u32],
    entries: Option<&[Entries]>,
) -> Result<Vec<Gameset>> {
    let mut redo: Vec<u32> = roots.to_vec();
    // Children come after their parents (greater ids).
    for d in defs {
        if let Some(p) = &d.parent
            && defs
                .iter()
                .any(|q| q.name.eq_ignore_ascii_case(p) && redo.contains(&q.id))
            && !redo.contains(&d.id)
        {
            redo.push(d.id);
        }
    }
    let mut done: HashMap<u32, IdSet> = HashMap::new();
    let mut out = Vec::new();
    let t = now();
    for d in defs.iter().filter(|d| redo.contains(&d.id)) {
        let mut r = SnapResolver::new(snap, entries)?;
        r.files = d.files.clone();
        let node = compile_definition(d, &mut r)?;
        let within = match &d.parent {
            None => None,
            Some(p) => {
                let pd = defs
                    .iter()
                    .find(|q| q.name.eq_ignore_ascii_case(p))
                    .ok_or_else(|| Error::Corrupt(format!("gameset {}: no parent {p}", d.name)))?;
                Some(match done.get(&pd.id) {
                    Some(ids) => ids.clone(),
                    None => load_ids_in(w, pd.id)?,
                })
            }
        };
        let ids = members(snap, &node, within.as_ref(), 0)?;
        let mut def = d.clone();
        def.refreshed = t;
        put_definition(w, &def)?;
        put_ids(w, d.id, &ids)?;
        out.push(to_view(&def, &ids));
        done.insert(d.id, ids);
    }
    Ok(out)
}

/// After the names' entries were computed again in `w` (`after`): the gamesets whose name
/// conditions now mean other spellings are computed again, in the same transaction.
pub(crate) fn names_changed(
    db: &Database,
    read: &tabiya_store::ReadTx,
    w: &tabiya_store::WriteTx,
    after: &[Entries],
) -> Result<()> {
    let defs = definitions_in(w)?;
    if defs.is_empty() {
        return Ok(());
    }
    let mut changed = Vec::new();
    for d in &defs {
        let mut old = TxResolver::new(read, None)?;
        old.with_files(&d.files);
        let before = compile_definition(d, &mut old)?;
        if !before.uses_names() {
            continue;
        }
        let mut new = TxResolver::new(read, Some(after))?;
        new.with_files(&d.files);
        let now = compile_definition(d, &mut new)?;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        before.selectors(&mut a);
        now.selectors(&mut b);
        if a != b {
            changed.push(d.id);
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    let snap = db.snapshot_of(db.store.read()?)?;
    recompute(&snap, w, &defs, &changed, Some(after)).map(|_| ())
}

impl Snapshot<'_> {
    /// Every gameset, in the order they were made.
    pub fn gamesets(&self) -> Result<Vec<Gameset>> {
        let table = self.read_tx().table(GAMESET_IDS)?;
        definitions(self.read_tx())?
            .iter()
            .map(|d| Ok(to_view(d, &load_ids(&table, d.id)?)))
            .collect()
    }

    /// A gameset and its games.
    pub fn gameset(&self, name: &str) -> Result<(Gameset, IdSet)> {
        let defs = definitions(self.read_tx())?;
        let d = find(&defs, name)?;
        let ids = load_ids(&self.read_tx().table(GAMESET_IDS)?, d.id)?;
        Ok((to_view(d, &ids), ids))
    }

    /// Judges games against a criterion without keeping it (`tabiya games --where`): the
    /// ids of those that meet it.
    pub fn games_where(&self, criteria: &str) -> Result<IdSet> {
        if self.database().kind() != Kind::Chess {
            return Err(Error::Usage("criteria are for chess databases".to_string()));
        }
        let expr = criteria::parse(criteria).map_err(|e| Error::Usage(e.explain(criteria)))?;
        if !files_of(criteria).unwrap_or_default().is_empty() {
            return Err(Error::Usage(
                "follows FILE is for a gameset (tabiya gameset create), which keeps the file"
                    .into(),
            ));
        }
        let mut r = SnapResolver::new(self, None)?;
        let node = compile::compile(&expr, &mut r)?;
        members(self, &node, None, 0)
    }
}
