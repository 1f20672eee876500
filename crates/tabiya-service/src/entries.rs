//! What names mean: the entries (players, events, sites) of a chess database, each with every
//! spelling that means it, and the user's corrections — alias, unalias, merge, split, rename
//! — each reported with the games it touched and undone by its opposite. Scid's spelling
//! file loaded into a database. See `tabiya_db`'s `persons` for how entries are computed.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use tabiya_db::{Dict, Entries, NameRule, Selector, Snapshot};
pub use tabiya_db::{NameSource, PlayerInfo};

use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::names::NameKind;

/// One entry as shown.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct EntryView {
    pub name: String,
    pub source: NameSource,
    /// Players: the games they played (events, sites and annotators are not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    /// Its spellings as written in games, alphabetical.
    pub spellings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<PlayerInfo>,
}

fn check_chess(db: &Db) -> Result<()> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its names are WTHOR's (tabiya wthor)",
            db.dir().display()
        )));
    }
    Ok(())
}

fn entry_dict(kind: NameKind) -> Dict {
    kind.dict()
}

/// The spellings of a dictionary by id.
fn spellings(snap: &Snapshot<'_>, dict: Dict) -> Result<HashMap<u32, String>> {
    Ok(snap.names().all(dict)?.into_iter().collect())
}

fn view(entries: &Entries, e: u32, names: &HashMap<u32, String>) -> EntryView {
    let entry = &entries.entries[e as usize];
    let mut spellings: Vec<String> = entry
        .spellings
        .iter()
        .filter_map(|s| names.get(s).cloned())
        .collect();
    spellings.sort_by_cached_key(|s| (tabiya_names::fold(s), s.clone()));
    EntryView {
        name: entry.name.clone(),
        source: entry.source,
        games: (entries.dict == Dict::Player).then_some(entry.games),
        spellings,
        info: entry.info.clone(),
    }
}

/// The games of the player a name means (any spelling of theirs, any case), as the filters
/// take them.
pub fn player_selector(snap: &Snapshot<'_>, name: &str) -> Result<Selector> {
    let entries = snap.entries(Dict::Player)?;
    let names = snap.names().all(Dict::Player)?;
    let ids = entries.resolve(&names, name);
    Ok(entries.selector(&ids))
}

/// The entries a name means, as shown.
pub fn lookup(db: &Db, kind: NameKind, name: &str) -> Result<Vec<EntryView>> {
    check_chess(db)?;
    let snap = db.inner()?.snapshot()?;
    let dict = entry_dict(kind);
    let entries = snap.entries(dict)?;
    let list = snap.names().all(dict)?;
    let names: HashMap<u32, String> = list.iter().cloned().collect();
    Ok(entries
        .resolve(&list, name)
        .into_iter()
        .map(|e| view(&entries, e, &names))
        .collect())
}

/// Entries of a dictionary, alphabetical, those whose name or a spelling contains `filter`
/// (any case, accents) when given; from `offset`, at most `limit`; and how many there are.
pub fn list(
    db: &Db,
    kind: NameKind,
    filter: Option<&str>,
    offset: usize,
    limit: usize,
) -> Result<(u64, Vec<EntryView>)> {
    check_chess(db)?;
    let snap = db.inner()?.snapshot()?;
    let dict = entry_dict(kind);
    let entries = snap.entries(dict)?;
    let names = spellings(&snap, dict)?;
    // A spelling's games outside its player's life are listed when there are any.
    let outside: Vec<u32> = entries.dated.iter().map(|d| d.outside).collect();
    let want = filter.map(tabiya_names::fold);
    // Players no game names any more (deleted or edited away) are not listed.
    let mut shown: Vec<u32> = (0..entries.entries.len() as u32)
        .filter(|e| !outside.contains(e) || entries.entries[*e as usize].games > 0)
        .filter(|e| dict != Dict::Player || entries.entries[*e as usize].games > 0)
        .filter(|&e| {
            let entry = &entries.entries[e as usize];
            want.as_ref().is_none_or(|w| {
                tabiya_names::fold(&entry.name).contains(w.as_str())
                    || entry.spellings.iter().any(|s| {
                        names
                            .get(s)
                            .is_some_and(|n| tabiya_names::fold(n).contains(w.as_str()))
                    })
            })
        })
        .collect();
    shown.sort_by_cached_key(|&e| {
        let n = &entries.entries[e as usize].name;
        (tabiya_names::fold(n), n.clone())
    });
    let total = shown.len() as u64;
    Ok((
        total,
        shown
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|e| view(&entries, e, &names))
            .collect(),
    ))
}

/// A spelling that fits several entries and was left alone.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct AmbiguousName {
    pub name: String,
    pub candidates: Vec<String>,
}

/// The spellings left alone because they fit several entries.
pub fn ambiguous(db: &Db, kind: NameKind) -> Result<Vec<AmbiguousName>> {
    check_chess(db)?;
    let snap = db.inner()?.snapshot()?;
    let dict = entry_dict(kind);
    let entries = snap.entries(dict)?;
    let names = spellings(&snap, dict)?;
    let mut out: Vec<AmbiguousName> = entries
        .ambiguous
        .iter()
        .filter_map(|a| {
            names.get(&a.spelling).map(|n| AmbiguousName {
                name: n.clone(),
                candidates: a.candidates.clone(),
            })
        })
        .collect();
    out.sort_by_cached_key(|a| tabiya_names::fold(&a.name));
    Ok(out)
}

/// A correction of how names group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// The spelling `name` means the same as `to` (a spelling or an entry's name).
    Alias { name: String, to: String },
    /// The opposite of `Alias`: the spelling goes back to what it meant before (or, never
    /// aliased, leaves its entry).
    Unalias { name: String },
    /// The entries of `a` and `b` are one.
    Merge { a: String, b: String },
    /// The opposite of `Merge`.
    Split { a: String, b: String },
    /// The entry of `name` is shown as `to`.
    Rename { name: String, to: String },
}

/// What a correction did.
#[derive(Debug, Clone, Serialize)]
pub struct CorrectionReport {
    /// In words.
    pub done: String,
    /// Games whose player (event, site) changed: they now count for another entry or under
    /// another name.
    pub games: u64,
    /// Spellings whose entry changed.
    pub spellings: u64,
    /// The entries of the names involved, after.
    pub entries: Vec<EntryView>,
    /// The command that undoes it.
    pub undo: String,
}

/// A name given to a correction: a spelling as written (any case), or an entry's name
/// (then its first spelling stands for it).
fn spelling_for(
    entries: &Entries,
    list: &[(u32, String)],
    kind: NameKind,
    name: &str,
) -> Result<String> {
    if let Some((_, n)) = list.iter().find(|(_, n)| n == name) {
        return Ok(n.clone());
    }
    let lower = name.trim().to_lowercase();
    if let Some((_, n)) = list.iter().find(|(_, n)| n.trim().to_lowercase() == lower) {
        return Ok(n.clone());
    }
    let names: HashMap<u32, &String> = list.iter().map(|(i, n)| (*i, n)).collect();
    for e in entries.resolve(list, name) {
        if let Some(s) = entries.entries[e as usize].spellings.first()
            && let Some(n) = names.get(s)
        {
            return Ok((*n).clone());
        }
    }
    Err(Error::not_found(format!(
        "no {} named {name:?} (tabiya names search --kind {} finds spellings)",
        kind.as_str(),
        kind.as_str()
    )))
}

/// Makes a correction and reports it.
pub fn correct(db: &Db, kind: NameKind, c: &Correction) -> Result<CorrectionReport> {
    check_chess(db)?;
    let dict = entry_dict(kind);
    let (entries, list, rules) = {
        let snap = db.inner()?.snapshot()?;
        (
            snap.entries(dict)?,
            snap.names().all(dict)?,
            db.inner()?.name_rules()?,
        )
    };
    let sp = |n: &str| spelling_for(&entries, &list, kind, n);
    let k = kind.as_str();
    let mine = |r: &NameRule| r.dict() == dict;
    let (drop, add, done, undo, involved): (
        Vec<u32>,
        Option<NameRule>,
        String,
        String,
        Vec<String>,
    ) = match c {
        Correction::Alias { name, to } => {
            let (name, to) = (sp(name)?, sp(to)?);
            let drop = rules
                    .iter()
                    .filter(|(_, r)| mine(r) && matches!(r, NameRule::Alias { name: n, .. } | NameRule::Separate { name: n, .. } if *n == name))
                    .map(|(k, _)| *k)
                    .collect();
            (
                drop,
                Some(NameRule::Alias {
                    dict,
                    name: name.clone(),
                    to: to.clone(),
                }),
                format!("{name:?} is an alias of {to:?}"),
                format!("tabiya names unalias --kind {k} {name:?}"),
                vec![name, to],
            )
        }
        Correction::Unalias { name } => {
            let name = sp(name)?;
            let aliases: Vec<u32> = rules
                .iter()
                .filter(|(_, r)| {
                    mine(r) && matches!(r, NameRule::Alias { name: n, .. } if *n == name)
                })
                .map(|(k, _)| *k)
                .collect();
            let was = rules.iter().rev().find_map(|(_, r)| match r {
                NameRule::Alias { name: n, to, .. } if mine(r) && *n == name => Some(to.clone()),
                _ => None,
            });
            match was {
                Some(to) => (
                    aliases,
                    None,
                    format!("{name:?} is no longer an alias of {to:?}"),
                    format!("tabiya names alias --kind {k} {name:?} --to {to:?}"),
                    vec![name, to],
                ),
                None => {
                    let with = entries
                        .entry_of_spelling(
                            list.iter().find(|(_, n)| *n == name).map_or(0, |(i, _)| *i),
                        )
                        .map(|e| entries.entries[e as usize].name.clone())
                        .unwrap_or_default();
                    (
                        Vec::new(),
                        Some(NameRule::Separate {
                            dict,
                            name: name.clone(),
                        }),
                        format!("{name:?} is a name of its own, no longer one of {with:?}"),
                        format!("tabiya names alias --kind {k} {name:?} --to {with:?}"),
                        vec![name, with],
                    )
                }
            }
        }
        Correction::Merge { a, b } => {
            let (a, b) = (sp(a)?, sp(b)?);
            let splits: Vec<u32> = rules
                    .iter()
                    .filter(|(_, r)| mine(r) && matches!(r, NameRule::Split { a: x, b: y, .. } if (*x == a && *y == b) || (*x == b && *y == a)))
                    .map(|(k, _)| *k)
                    .collect();
            let add = splits.is_empty().then(|| NameRule::Merge {
                dict,
                a: a.clone(),
                b: b.clone(),
            });
            (
                splits,
                add,
                format!("{a:?} and {b:?} are one"),
                format!("tabiya names split --kind {k} {a:?} {b:?}"),
                vec![a, b],
            )
        }
        Correction::Split { a, b } => {
            let (a, b) = (sp(a)?, sp(b)?);
            let merges: Vec<u32> = rules
                    .iter()
                    .filter(|(_, r)| mine(r) && matches!(r, NameRule::Merge { a: x, b: y, .. } if (*x == a && *y == b) || (*x == b && *y == a)))
                    .map(|(k, _)| *k)
                    .collect();
            let add = merges.is_empty().then(|| NameRule::Split {
                dict,
                a: a.clone(),
                b: b.clone(),
            });
            (
                merges,
                add,
                format!("{a:?} and {b:?} are two"),
                format!("tabiya names merge --kind {k} {a:?} {b:?}"),
                vec![a, b],
            )
        }
        Correction::Rename { name, to } => {
            let name = sp(name)?;
            let id = list.iter().find(|(_, n)| *n == name).map(|(i, _)| *i);
            let entry = id.and_then(|i| entries.entry_of_spelling(i));
            let old = entry
                .map(|e| entries.entries[e as usize].name.clone())
                .unwrap_or_else(|| name.clone());
            let same_entry: Vec<String> = entry
                .map(|e| {
                    let names: HashMap<u32, &String> = list.iter().map(|(i, n)| (*i, n)).collect();
                    entries.entries[e as usize]
                        .spellings
                        .iter()
                        .filter_map(|s| names.get(s).map(|n| (*n).clone()))
                        .collect()
                })
                .unwrap_or_default();
            if to.trim().is_empty() {
                return Err(Error::bad_request("a name cannot be empty"));
            }
            let drop = rules
                .iter()
                .filter(|(_, r)| {
                    mine(r)
                        && matches!(r, NameRule::Rename { name: n, .. } if same_entry.contains(n))
                })
                .map(|(k, _)| *k)
                .collect();
            (
                drop,
                Some(NameRule::Rename {
                    dict,
                    name: name.clone(),
                    display: to.trim().to_string(),
                }),
                format!("{old:?} is shown as {to:?}"),
                format!("tabiya names rename --kind {k} {name:?} {old:?}"),
                vec![name],
            )
        }
    };
    let (before, after) = match (c, add) {
        // A rename to the name the entry has without renames is their undoing: the rules
        // dropped, none added.
        (Correction::Rename { to, .. }, Some(rule)) => {
            let (before, dropped) = db.inner()?.change_name_rules(dict, &drop, None)?;
            let name = involved.first().cloned().unwrap_or_default();
            let now = list
                .iter()
                .find(|(_, n)| *n == name)
                .and_then(|(i, _)| dropped.entry_of_spelling(*i))
                .map(|e| dropped.entries[e as usize].name.clone());
            if now.as_deref() == Some(to.trim()) {
                (before, dropped)
            } else {
                (
                    before,
                    db.inner()?.change_name_rules(dict, &[], Some(rule))?.1,
                )
            }
        }
        (_, add) => db.inner()?.change_name_rules(dict, &drop, add)?,
    };
    let changed = changed_spellings(&before, &after, &list);
    let snap = db.inner()?.snapshot()?;
    let games = snap.games_with_spellings(dict, &changed)?;
    let names: HashMap<u32, String> = list.iter().cloned().collect();
    let mut shown: Vec<u32> = Vec::new();
    let outside: Vec<u32> = after.dated.iter().map(|d| d.outside).collect();
    for n in &involved {
        for e in after.resolve(&list, n) {
            let empty_outside = outside.contains(&e) && after.entries[e as usize].games == 0;
            if !shown.contains(&e) && !empty_outside {
                shown.push(e);
            }
        }
    }
    Ok(CorrectionReport {
        done,
        games,
        spellings: changed.len() as u64,
        entries: shown.into_iter().map(|e| view(&after, e, &names)).collect(),
        undo,
    })
}

/// Spellings that mean another entry, or show another name, after a change: each entry
/// after it continues the entry before it that it shares most spellings with (the one
/// showing the same name first); a spelling whose entry continues another, or now shows
/// another name, changed. (Aliasing a spelling into a player changes that spelling's games
/// only; renaming a player changes all of theirs.)
fn changed_spellings(before: &Entries, after: &Entries, list: &[(u32, String)]) -> Vec<u32> {
    let mut shared: HashMap<(u32, u32), u64> = HashMap::new();
    for (s, _) in list {
        if let (Some(b), Some(a)) = (before.entry_of_spelling(*s), after.entry_of_spelling(*s)) {
            *shared.entry((a, b)).or_default() += 1;
        }
    }
    let mut origin: HashMap<u32, (u64, bool, std::cmp::Reverse<u32>, u32)> = HashMap::new();
    for (&(a, b), &n) in &shared {
        let same_name = after.entries[a as usize].name == before.entries[b as usize].name;
        let rank = (n, same_name, std::cmp::Reverse(b), b);
        let best = origin.entry(a).or_insert(rank);
        if rank > *best {
            *best = rank;
        }
    }
    let mut out: Vec<u32> = list
        .iter()
        .map(|(i, _)| *i)
        .filter(
            |&s| match (before.entry_of_spelling(s), after.entry_of_spelling(s)) {
                (Some(b), Some(a)) => {
                    origin.get(&a).map(|o| o.3) != Some(b)
                        || after.entries[a as usize].name != before.entries[b as usize].name
                }
                (None, None) => false,
                _ => true,
            },
        )
        .collect();
    out.sort_unstable();
    out
}

/// What loading a spelling file did.
#[derive(Debug, Clone, Serialize)]
pub struct SpellingReport {
    pub file: String,
    /// Correct names the file holds, by section.
    pub names: BTreeMap<String, u64>,
    /// Lines the file could not use (with their numbers), at most 20 shown.
    pub warnings: Vec<String>,
    pub warning_count: u64,
    /// Spellings of the database that now mean another entry or show another name, and
    /// their games (players: games played), by dictionary.
    pub renamed: BTreeMap<String, (u64, u64)>,
    /// Players' spellings that fit several of the file's players, left alone.
    pub ambiguous: u64,
}

/// Loads Scid's spelling file (`.ssp`, or `.ssp.zst`) into a chess database.
pub fn load_spelling(db: &Db, path: &Path) -> Result<SpellingReport> {
    check_chess(db)?;
    let bytes = crate::inputs::read_whole(path, crate::inputs::Whole::Spelling)?;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let lists: Vec<(Dict, Vec<(u32, String)>)> = {
        let snap = db.inner()?.snapshot()?;
        tabiya_db::ENTRY_DICTS
            .iter()
            .map(|&d| Ok((d, snap.names().all(d)?)))
            .collect::<Result<_>>()?
    };
    let (spelling, before, after) = db.inner()?.load_spelling(&file, &bytes).map_err(|e| {
        Error::bad_input(format!(
            "{}: {}",
            path.display(),
            without_name(&e.to_string(), &file)
        ))
    })?;
    let snap = db.inner()?.snapshot()?;
    let mut renamed = BTreeMap::new();
    let mut ambiguous = 0;
    for (dict, list) in &lists {
        let Some(a) = after.iter().find(|e| e.dict == *dict) else {
            continue;
        };
        let changed = match before.iter().find(|e| e.dict == *dict) {
            Some(b) => changed_spellings(b, a, list),
            None => list.iter().map(|(i, _)| *i).collect(),
        };
        let games = snap.games_with_spellings(*dict, &changed)?;
        renamed.insert(dict_name(*dict).to_string(), (changed.len() as u64, games));
        if *dict == Dict::Player {
            ambiguous = a.ambiguous.len() as u64;
        }
    }
    use tabiya_names::ssp::Section;
    let names = [
        ("players", Section::Player),
        ("events", Section::Event),
        ("sites", Section::Site),
        ("rounds", Section::Round),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), spelling.len(s) as u64))
    .collect();
    Ok(SpellingReport {
        file,
        names,
        warning_count: spelling.warnings().len() as u64,
        warnings: spelling
            .warnings()
            .iter()
            .take(20)
            .map(|w| format!("line {}: {}", w.line, w.message))
            .collect(),
        renamed,
        ambiguous,
    })
}

fn dict_name(d: Dict) -> &'static str {
    match d {
        Dict::Player => "players",
        Dict::Event => "events",
        Dict::Site => "sites",
        Dict::Round => "rounds",
        Dict::TagName => "tags",
        Dict::Annotator => "annotators",
    }
}

/// One dictionary for [`CanonicalNames`]: its tags, its spellings by name, its entries.
struct Renamer {
    tags: &'static [&'static str],
    ids: HashMap<String, u32>,
    entries: Entries,
}

/// The names games show as their entries' (what `export --canonical-names` writes).
pub(crate) struct CanonicalNames {
    dicts: Vec<Renamer>,
}

impl CanonicalNames {
    pub fn new(snap: &Snapshot<'_>) -> Result<CanonicalNames> {
        let mut dicts = Vec::new();
        for (dict, tags) in [
            (Dict::Player, &["White", "Black"][..]),
            (Dict::Event, &["Event"][..]),
            (Dict::Site, &["Site"][..]),
            (Dict::Annotator, &["Annotator"][..]),
        ] {
            let ids = snap
                .names()
                .all(dict)?
                .into_iter()
                .map(|(i, n)| (n, i))
                .collect();
            dicts.push(Renamer {
                tags,
                ids,
                entries: snap.entries(dict)?,
            });
        }
        Ok(CanonicalNames { dicts })
    }

    /// Replaces a game's players, event, site and annotator by their entries' names (a player's as
    /// on the game's date, `yyyymmdd`).
    pub fn apply(&self, game: &mut tabiya_pgn::Game, date: u32) {
        for Renamer { tags, ids, entries } in &self.dicts {
            for (name, value) in game.tags.iter_mut() {
                if !tags.contains(&name.as_str()) {
                    continue;
                }
                if let Some(e) = ids
                    .get(value.as_str())
                    .and_then(|&id| entries.entry_of(id, date))
                {
                    value.clone_from(&entries.entries[e as usize].name);
                }
            }
        }
    }
}

/// What `names fill-elo` did.
#[derive(Debug, Clone, Serialize)]
pub struct EloFilled {
    /// Games given a rating they lacked.
    pub games: u64,
    /// Ratings given (a game may get two).
    pub ratings: u64,
    /// T records counted again.
    pub records: u64,
}

/// Gives the games' players the ratings they lack from the loaded spelling file's `%Elo`
/// histories (the rating list of the game's year and month, as Scid reads it), for players
/// the file names (`names load-spelling`), in one transaction.
pub fn fill_elo(db: &Db) -> Result<EloFilled> {
    check_chess(db)?;
    let snap = db.inner()?.snapshot()?;
    let Some(spelling) = snap.spelling()? else {
        return Err(Error::bad_request(
            "no spelling file is loaded: tabiya names load-spelling FILE first",
        ));
    };
    let entries = snap.entries(Dict::Player)?;
    let mut person_of: HashMap<u32, Option<tabiya_names::ssp::PersonId>> = HashMap::new();
    let mut edits: Vec<(u32, Vec<tabiya_db::TagEdit>)> = Vec::new();
    let mut ratings = 0;
    for id in snap.all_game_ids()? {
        let f = snap.facts(id)?;
        if f.ratings[0].is_some() && f.ratings[1].is_some() {
            continue;
        }
        let players = snap.players(id)?;
        let (year, month) = ((f.date / 10000) as u16, (f.date / 100 % 100) as u8);
        if year == 0 {
            continue;
        }
        let mut game = Vec::new();
        for (side, tag) in [(0, "WhiteElo"), (1, "BlackElo")] {
            let (None, Some(spelling_id)) = (f.ratings[side], players[side]) else {
                continue;
            };
            let Some(e) = entries.entry_of(spelling_id, f.date) else {
                continue;
            };
            let entry = &entries.entries[e as usize];
            if entry.info.is_none() {
                continue;
            }
            let person = *person_of
                .entry(e)
                .or_insert_with(|| spelling.person_id(&entry.name));
            if let Some(elo) =
                person.and_then(|p| spelling.elo_at(p, year, (month > 0).then_some(month)))
            {
                game.push(tabiya_db::TagEdit::Set(tag.into(), elo.to_string()));
                ratings += 1;
            }
        }
        if !game.is_empty() {
            edits.push((id, game));
        }
    }
    drop(snap);
    if edits.is_empty() {
        return Ok(EloFilled {
            games: 0,
            ratings: 0,
            records: 0,
        });
    }
    let done = db.inner()?.edit_games(&edits)?;
    Ok(EloFilled {
        games: done.iter().filter(|e| e.changed).count() as u64,
        ratings,
        records: done.first().map_or(0, |e| e.records),
    })
}

/// A message without the file name it starts with (the caller names the file itself).
fn without_name<'a>(message: &'a str, file: &str) -> &'a str {
    message
        .strip_prefix(file)
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(message)
}
