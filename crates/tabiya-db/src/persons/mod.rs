//! Entries: what the spellings of a dictionary mean. Games keep the names as written (the
//! `names` dictionaries, by id); an *entry* is one player, event or site, with every spelling
//! that means it, a name to show, and for players the spelling file's data. Entries are
//! computed ([`build`]) from the spellings, Scid's spelling file when one is loaded (its
//! correct names win), normalisation, and the user's rules ([`rules`]); they are computed
//! again after every import and every change of rules, and stored whole, one row a
//! dictionary (`entries`).
//!
//! A player's spelling that the file corrects to a player with life dates means that player
//! only in games dated within them ([`Dated`]); in other games it is the name as written.

mod build;
pub mod rules;

use std::collections::HashMap;

use serde::Serialize;
use tabiya_store::{ReadTx, WriteTx};

pub use rules::{NAME_RULES, NameRule};

use crate::codec::{DecodeError, Reader, put_str, put_varint};
use crate::facts::FactsReader;
use crate::game::Dict;
use crate::names::StoreNames;
use crate::players::scan_players;
use crate::{Error, Result};

/// The table of entries: dictionary → its entries, encoded.
pub const ENTRIES: &str = "entries";
/// The table holding the loaded spelling file (`ssp`: zstd-compressed; `file`: its name).
pub const SPELLING: &str = "spelling";

/// The dictionaries with entries.
pub const ENTRY_DICTS: [Dict; 4] = [Dict::Player, Dict::Event, Dict::Site, Dict::Annotator];

/// Where an entry's grouping and name come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// One spelling, as written.
    Written,
    /// Spellings found to be one (surname first, initials, case, accents, punctuation).
    Normalised,
    /// Scid's spelling file.
    Spelling,
    /// The user's rules.
    User,
}

/// What the spelling file says of a player.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerInfo {
    pub titles: Vec<String>,
    pub country: Option<String>,
    pub peak_elo: Option<u16>,
    pub birth: Option<String>,
    pub death: Option<String>,
    pub bio: Vec<String>,
    /// Birth and death as Scid packs dates (0: unknown).
    #[serde(skip)]
    pub born: u32,
    #[serde(skip)]
    pub died: u32,
}

fn date_text(d: tabiya_names::ssp::PartialDate) -> String {
    let part = |v: Option<u8>| v.map_or("??".to_string(), |v| format!("{v:02}"));
    format!("{:04}.{}.{}", d.year, part(d.month), part(d.day))
}

impl From<&tabiya_names::ssp::PersonInfo<'_>> for PlayerInfo {
    fn from(p: &tabiya_names::ssp::PersonInfo<'_>) -> PlayerInfo {
        PlayerInfo {
            titles: p.titles.iter().map(|t| t.to_uppercase()).collect(),
            country: p.country.map(str::to_string),
            peak_elo: p.peak_elo,
            birth: p.birth.map(date_text),
            death: p.death.map(date_text),
            bio: p.bio.iter().map(|b| b.to_string()).collect(),
            born: p.birth.map_or(0, |d| d.packed()),
            died: p.death.map_or(0, |d| d.packed()),
        }
    }
}

/// One player, event or site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The name to show.
    pub name: String,
    pub source: Source,
    /// Its spellings (name ids of the dictionary), sorted.
    #[serde(skip)]
    pub spellings: Vec<u32>,
    /// Games (players: games played, each side once) under it.
    pub games: u64,
    /// Players: what the spelling file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<PlayerInfo>,
}

/// A spelling that means its entry only in games within a player's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dated {
    pub spelling: u32,
    pub entry: u32,
    pub born: u32,
    pub died: u32,
    /// The entry of its games outside the life (the name as written).
    pub outside: u32,
}

impl Dated {
    /// Whether a game of this date (`yyyymmdd`, unknown parts 0) is within the life, dates
    /// compared as Scid packs them.
    pub fn within(&self, date: u32) -> bool {
        let (y, m, d) = (date / 10000, date / 100 % 100, date % 100);
        let game = y << 9 | m << 5 | d;
        game == 0 || !(game < self.born || (self.died != 0 && game > self.died))
    }
}

/// A spelling that fits several entries, left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ambiguous {
    #[serde(skip)]
    pub spelling: u32,
    pub candidates: Vec<String>,
}

/// The entries of one dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entries {
    pub dict: Dict,
    pub entries: Vec<Entry>,
    pub dated: Vec<Dated>,
    pub ambiguous: Vec<Ambiguous>,
    of_spelling: HashMap<u32, u32>,
    dated_of: HashMap<u32, usize>,
}

/// Which games of a dictionary's spellings some entries hold: spellings always, and
/// spellings only within or only outside a life.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    /// Spellings whose every game is in (sorted).
    pub always: Vec<u32>,
    /// (dated spelling, whether the games within its life are in).
    pub dated: Vec<(Dated, bool)>,
}

impl Selector {
    pub fn is_empty(&self) -> bool {
        self.always.is_empty() && self.dated.is_empty()
    }

    /// Whether a game with this spelling and date is in.
    pub fn matches(&self, spelling: u32, date: u32) -> bool {
        self.always.binary_search(&spelling).is_ok()
            || self
                .dated
                .iter()
                .any(|(d, within)| d.spelling == spelling && d.within(date) == *within)
    }
}

impl Entries {
    pub(crate) fn new(
        dict: Dict,
        entries: Vec<Entry>,
        dated: Vec<Dated>,
        ambiguous: Vec<Ambiguous>,
    ) -> Entries {
        let mut of_spelling = HashMap::new();
        let outside: Vec<u32> = dated.iter().map(|d| d.outside).collect();
        for (e, entry) in entries.iter().enumerate() {
            if outside.contains(&(e as u32)) {
                continue;
            }
            for &s in &entry.spellings {
                of_spelling.entry(s).or_insert(e as u32);
            }
        }
        let dated_of = dated
            .iter()
            .enumerate()
            .map(|(i, d)| (d.spelling, i))
            .collect();
        Entries {
            dict,
            entries,
            dated,
            ambiguous,
            of_spelling,
            dated_of,
        }
    }

    /// The entry of a spelling in a game of this date (`yyyymmdd`); `None` for a spelling
    /// newer than the entries (added by an edit since they were computed).
    pub fn entry_of(&self, spelling: u32, date: u32) -> Option<u32> {
        if let Some(&i) = self.dated_of.get(&spelling) {
            let d = &self.dated[i];
            return Some(if d.within(date) { d.entry } else { d.outside });
        }
        self.of_spelling.get(&spelling).copied()
    }

    /// The entry a spelling means in an undated game.
    pub fn entry_of_spelling(&self, spelling: u32) -> Option<u32> {
        self.of_spelling.get(&spelling).copied()
    }

    /// The entries a name means: the entry of each spelling equal to it (any case), the
    /// entries shown under it, and failing both, the same with accents and punctuation
    /// ignored too. A spelling with a life means both its entries.
    pub fn resolve(&self, names: &[(u32, String)], query: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for pass in 0..2 {
            let same = |a: &str| -> bool {
                if pass == 0 {
                    a.trim().to_lowercase() == query.trim().to_lowercase()
                } else {
                    tabiya_names::fold(a) == tabiya_names::fold(query)
                }
            };
            for (id, n) in names {
                if same(n) {
                    if let Some(&i) = self.dated_of.get(id) {
                        out.push(self.dated[i].entry);
                        out.push(self.dated[i].outside);
                    } else if let Some(e) = self.entry_of_spelling(*id) {
                        out.push(e);
                    }
                }
            }
            for (e, entry) in self.entries.iter().enumerate() {
                if same(&entry.name) && !self.dated.iter().any(|d| d.outside == e as u32) {
                    out.push(e as u32);
                }
            }
            if !out.is_empty() {
                break;
            }
        }
        if out.is_empty()
            && let Some(want) = tabiya_names::parse(query)
        {
            // Written another way round (`Judit Polgar`): the same surname and given names;
            // or, with fewer given names or initials, the one entry it fits.
            let outside: Vec<u32> = self.dated.iter().map(|d| d.outside).collect();
            let mut fits = Vec::new();
            for (e, entry) in self.entries.iter().enumerate() {
                if outside.contains(&(e as u32)) {
                    continue;
                }
                if let Some(p) = tabiya_names::parse(&entry.name) {
                    if p == want {
                        out.push(e as u32);
                    } else if tabiya_names::compatible(&want, &p) {
                        fits.push(e as u32);
                    }
                }
            }
            if out.is_empty() && fits.len() == 1 {
                out = fits;
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The games of some entries, as spellings and lives.
    pub fn selector(&self, entries: &[u32]) -> Selector {
        let mut sel = Selector::default();
        for &e in entries {
            let Some(entry) = self.entries.get(e as usize) else {
                continue;
            };
            for &s in &entry.spellings {
                match self.dated_of.get(&s).map(|&i| self.dated[i]) {
                    Some(d) => {
                        let inside = entries.contains(&d.entry);
                        let outside = entries.contains(&d.outside);
                        if inside && outside {
                            sel.always.push(s);
                        } else {
                            sel.dated.push((d, inside));
                        }
                    }
                    None => sel.always.push(s),
                }
            }
        }
        sel.always.sort_unstable();
        sel.always.dedup();
        sel.dated.dedup();
        sel
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.entries.len() as u64);
        for e in &self.entries {
            put_str(&mut out, &e.name);
            out.push(e.source as u8);
            put_varint(&mut out, e.games);
            put_varint(&mut out, e.spellings.len() as u64);
            let mut last = 0;
            for &s in &e.spellings {
                put_varint(&mut out, u64::from(s - last));
                last = s;
            }
            match &e.info {
                None => out.push(0),
                Some(i) => {
                    out.push(1);
                    put_varint(&mut out, i.titles.len() as u64);
                    for t in &i.titles {
                        put_str(&mut out, t);
                    }
                    put_str(&mut out, i.country.as_deref().unwrap_or(""));
                    put_varint(&mut out, u64::from(i.peak_elo.unwrap_or(0)));
                    put_str(&mut out, i.birth.as_deref().unwrap_or(""));
                    put_str(&mut out, i.death.as_deref().unwrap_or(""));
                    put_varint(&mut out, i.bio.len() as u64);
                    for b in &i.bio {
                        put_str(&mut out, b);
                    }
                    put_varint(&mut out, u64::from(i.born));
                    put_varint(&mut out, u64::from(i.died));
                }
            }
        }
        put_varint(&mut out, self.dated.len() as u64);
        for d in &self.dated {
            for v in [d.spelling, d.entry, d.born, d.died, d.outside] {
                put_varint(&mut out, u64::from(v));
            }
        }
        put_varint(&mut out, self.ambiguous.len() as u64);
        for a in &self.ambiguous {
            put_varint(&mut out, u64::from(a.spelling));
            put_varint(&mut out, a.candidates.len() as u64);
            for c in &a.candidates {
                put_str(&mut out, c);
            }
        }
        out
    }

    fn decode(dict: Dict, data: &[u8]) -> std::result::Result<Entries, DecodeError> {
        let mut r = Reader::new(data);
        let n = r.varint("entries")?;
        let mut entries = Vec::with_capacity(n.min(1 << 20) as usize);
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
        for _ in 0..n {
            let name = r.str("entry name")?.to_string();
            let source = match r.u8("entry source")? {
                0 => Source::Written,
                1 => Source::Normalised,
                2 => Source::Spelling,
                3 => Source::User,
                _ => return Err(r.bad("entry source")),
            };
            let games = r.varint("entry games")?;
            let ns = r.varint("entry spellings")?;
            let mut spellings = Vec::with_capacity(ns.min(1 << 16) as usize);
            let mut last = 0u32;
            for _ in 0..ns {
                last = last
                    .checked_add(r.varint_u32("spelling")?)
                    .ok_or_else(|| r.bad("spelling"))?;
                spellings.push(last);
            }
            let info = match r.u8("entry info")? {
                0 => None,
                _ => {
                    let nt = r.varint("titles")?;
                    let mut titles = Vec::new();
                    for _ in 0..nt.min(64) {
                        titles.push(r.str("title")?.to_string());
                    }
                    let country = opt(r.str("country")?);
                    let peak = r.varint("peak")? as u16;
                    let birth = opt(r.str("birth")?);
                    let death = opt(r.str("death")?);
                    let nb = r.varint("bio")?;
                    let mut bio = Vec::new();
                    for _ in 0..nb.min(1024) {
                        bio.push(r.str("bio")?.to_string());
                    }
                    Some(PlayerInfo {
                        titles,
                        country,
                        peak_elo: (peak != 0).then_some(peak),
                        birth,
                        death,
                        bio,
                        born: r.varint_u32("born")?,
                        died: r.varint_u32("died")?,
                    })
                }
            };
            entries.push(Entry {
                name,
                source,
                spellings,
                games,
                info,
            });
        }
        let nd = r.varint("dated")?;
        let mut dated = Vec::new();
        for _ in 0..nd {
            let mut v = [0u32; 5];
            for x in &mut v {
                *x = r.varint_u32("dated")?;
            }
            dated.push(Dated {
                spelling: v[0],
                entry: v[1],
                born: v[2],
                died: v[3],
                outside: v[4],
            });
        }
        let na = r.varint("ambiguous")?;
        let mut ambiguous = Vec::new();
        for _ in 0..na {
            let spelling = r.varint_u32("ambiguous")?;
            let nc = r.varint("candidates")?;
            let mut candidates = Vec::new();
            for _ in 0..nc.min(1024) {
                candidates.push(r.str("candidate")?.to_string());
            }
            ambiguous.push(Ambiguous {
                spelling,
                candidates,
            });
        }
        Ok(Entries::new(dict, entries, dated, ambiguous))
    }
}

/// The user's rules, in order, with their sequence numbers.
pub(crate) fn load_rules(read: &ReadTx) -> Result<Vec<(u32, NameRule)>> {
    let t = read.table(NAME_RULES)?;
    let mut out = Vec::new();
    let mut bad = None;
    t.scan(&[], None, |k, v| {
        match (<[u8; 4]>::try_from(k), NameRule::decode(v)) {
            (Ok(k), Ok(r)) => out.push((u32::from_be_bytes(k), r)),
            (_, Err(e)) => bad = Some(e),
            _ => {}
        }
        true
    })?;
    match bad {
        Some(e) => Err(Error::Corrupt(format!("name rule: {e}"))),
        None => Ok(out),
    }
}

/// The spelling file loaded into the database, if any, read.
pub(crate) fn load_spelling(read: &ReadTx) -> Result<Option<tabiya_names::ssp::Spelling>> {
    let Some(packed) = read.table(SPELLING)?.get(b"ssp")? else {
        return Ok(None);
    };
    let raw = zstd::decode_all(&packed[..])
        .map_err(|e| Error::Corrupt(format!("the stored spelling file: {e}")))?;
    let s = tabiya_names::ssp::Spelling::read(&raw[..])
        .map_err(|e| Error::Corrupt(format!("the stored spelling file: {e}")))?;
    Ok(Some(s))
}

/// The entries of a dictionary as a read transaction sees them (`None` before the first
/// computation).
pub(crate) fn read_entries(read: &ReadTx, dict: Dict) -> Result<Option<Entries>> {
    match read
        .table(ENTRIES)?
        .get_with(&[dict as u8], |v| Entries::decode(dict, v))?
    {
        None => Ok(None),
        Some(e) => Ok(Some(
            e.map_err(|e| Error::Corrupt(format!("entries: {e}")))?,
        )),
    }
}

/// Every dictionary's entries from what `read` sees, with `rules` and the loaded spelling
/// file.
pub(crate) fn compute(
    read: &ReadTx,
    rules: &[NameRule],
    ssp: Option<&tabiya_names::ssp::Spelling>,
) -> Result<Vec<Entries>> {
    let names = StoreNames::new(read)?;
    let mut games: HashMap<u32, u64> = HashMap::new();
    scan_players(read, |_, p| {
        for id in p.into_iter().flatten() {
            *games.entry(id).or_default() += 1;
        }
    })?;
    let mut out = Vec::new();
    for dict in ENTRY_DICTS {
        let spelt: Vec<build::Spelt> = names
            .all(dict)?
            .into_iter()
            .map(|(id, name)| build::Spelt {
                id,
                games: games.get(&id).copied().unwrap_or(0),
                name,
            })
            .collect();
        let mut entries = build::build(dict, &spelt, rules, ssp);
        if !entries.dated.is_empty() {
            // Games by the entry each side means on its date.
            let facts = FactsReader::new(read)?;
            let mut counts = vec![0u64; entries.entries.len()];
            let mut err = None;
            scan_players(read, |g, p| {
                for id in p.into_iter().flatten() {
                    let date = match facts.get(g) {
                        Ok(f) => f.date,
                        Err(e) => {
                            err = Some(e);
                            0
                        }
                    };
                    if let Some(e) = entries.entry_of(id, date) {
                        counts[e as usize] += 1;
                    }
                }
            })?;
            if let Some(e) = err {
                return Err(e);
            }
            for (e, n) in entries.entries.iter_mut().zip(counts) {
                e.games = n;
            }
        }
        out.push(entries);
    }
    Ok(out)
}

/// [`compute`], written.
pub(crate) fn rebuild_into(
    read: &ReadTx,
    w: &WriteTx,
    rules: &[NameRule],
    ssp: Option<&tabiya_names::ssp::Spelling>,
) -> Result<Vec<Entries>> {
    let all = compute(read, rules, ssp)?;
    w.with_table(ENTRIES, |t| {
        for e in &all {
            t.put(&[e.dict as u8], &e.encode())?;
        }
        Ok(())
    })?;
    Ok(all)
}

/// Keeps the players' entries' game counts right through a change of a few games, in its
/// transaction: each (spelling, game date, +1 or -1). Spellings without an entry yet are
/// left to the next computation.
pub(crate) fn count_players(read: &ReadTx, w: &WriteTx, sides: &[(u32, u32, i64)]) -> Result<()> {
    if sides.is_empty() {
        return Ok(());
    }
    let Some(mut entries) = read_entries(read, Dict::Player)? else {
        return Ok(());
    };
    for &(spelling, date, delta) in sides {
        if let Some(e) = entries.entry_of(spelling, date) {
            let g = &mut entries.entries[e as usize].games;
            *g = g.saturating_add_signed(delta);
        }
    }
    w.with_table(ENTRIES, |t| t.put(&[Dict::Player as u8], &entries.encode()))?;
    Ok(())
}
