//! Dictionaries of names (players, events, sites, rounds, tag names): each distinct string is
//! stored once and games refer to it by id.

use std::collections::HashMap;

use tabiya_store::{ReadTx, TableRef, WriteTx};

use crate::Result;
use crate::game::{Dict, NameLookup, Names};

pub const NAMES: &str = "names";

/// Names per row: a row holds ids `block * 64 .. block * 64 + 63` of one dictionary, each as
/// `varint(len + 1)` then its bytes (`0` for an id not in use).
const PER_ROW: u32 = 64;

fn row_key(dict: Dict, id: u32) -> [u8; 5] {
    let mut k = [0u8; 5];
    k[0] = dict as u8;
    k[1..].copy_from_slice(&(id / PER_ROW).to_be_bytes());
    k
}

/// Decodes a row into its 64 slots.
pub(crate) fn decode_row(data: &[u8]) -> Vec<Option<String>> {
    let mut r = crate::codec::Reader::new(data);
    let mut out = Vec::with_capacity(PER_ROW as usize);
    while !r.is_empty() && out.len() < PER_ROW as usize {
        match r.varint("name") {
            Ok(0) => out.push(None),
            Ok(n) => match r.bytes((n - 1) as usize, "name") {
                Ok(b) => out.push(Some(String::from_utf8_lossy(b).into_owned())),
                Err(_) => break,
            },
            Err(_) => break,
        }
    }
    out
}

fn encode_row(slots: &[Option<String>]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in slots {
        match s {
            None => crate::codec::put_varint(&mut out, 0),
            Some(n) => {
                crate::codec::put_varint(&mut out, n.len() as u64 + 1);
                out.extend_from_slice(n.as_bytes());
            }
        }
    }
    out
}

fn dict_of(b: u8) -> Option<Dict> {
    Dict::ALL.iter().copied().find(|d| *d as u8 == b)
}

/// All names in memory, for imports: lookups and new ids without touching the store; new
/// names are written with the batch that first uses them.
#[derive(Default)]
pub struct NameCache {
    /// Per dictionary (indexed by `Dict as usize`), so lookups by `&str` allocate nothing.
    ids: [HashMap<String, u32>; 6],
    next: HashMap<Dict, u32>,
    pending: Vec<(Dict, u32, String)>,
}

impl NameCache {
    pub fn load(read: &ReadTx) -> Result<NameCache> {
        let mut cache = NameCache::default();
        let t = read.table(NAMES)?;
        let mut bad = None;
        t.scan(&[], None, |k, v| {
            let (Some(dict), Ok(block)) = (
                k.first().copied().and_then(dict_of),
                <[u8; 4]>::try_from(&k[1..]),
            ) else {
                bad = Some("bad name row key");
                return false;
            };
            let base = u32::from_be_bytes(block) * PER_ROW;
            for (i, slot) in decode_row(v).into_iter().enumerate() {
                if let Some(name) = slot {
                    let id = base + i as u32;
                    cache.ids[dict as usize].insert(name, id);
                    let next = cache.next.entry(dict).or_insert(0);
                    *next = (*next).max(id + 1);
                }
            }
            true
        })?;
        if let Some(b) = bad {
            return Err(crate::Error::Corrupt(format!("name dictionary: {b}")));
        }
        Ok(cache)
    }

    /// The id of a name in a dictionary, if it has one.
    pub fn get(&self, dict: Dict, name: &str) -> Option<u32> {
        self.ids[dict as usize].get(name).copied()
    }

    /// Names added since the last [`NameCache::take_pending`].
    pub fn take_pending(&mut self) -> Vec<(Dict, u32, String)> {
        std::mem::take(&mut self.pending)
    }
}

impl Names for NameCache {
    fn id(&mut self, dict: Dict, name: &str) -> u32 {
        if let Some(&id) = self.ids[dict as usize].get(name) {
            return id;
        }
        let next = self.next.entry(dict).or_insert(0);
        let id = *next;
        *next += 1;
        self.ids[dict as usize].insert(name.to_string(), id);
        self.pending.push((dict, id, name.to_string()));
        id
    }
}

/// Name ids for a change of a few games: names already known (`seed`, e.g. those the
/// games had) answer at once; a dictionary is read only when a name not in the seed is
/// asked of it. New names are kept for [`write_names`].
pub struct FewNames<'r> {
    table: &'r TableRef,
    seed: HashMap<(Dict, String), u32>,
    loaded: HashMap<Dict, (HashMap<String, u32>, u32)>,
    pending: Vec<(Dict, u32, String)>,
    error: Option<crate::Error>,
}

impl<'r> FewNames<'r> {
    pub fn new(table: &'r TableRef, seed: impl IntoIterator<Item = (Dict, String, u32)>) -> Self {
        FewNames {
            table,
            seed: seed.into_iter().map(|(d, n, id)| ((d, n), id)).collect(),
            loaded: HashMap::new(),
            pending: Vec::new(),
            error: None,
        }
    }

    /// The names added, or the error a dictionary's reading met.
    pub fn finish(self) -> Result<Vec<(Dict, u32, String)>> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.pending),
        }
    }

    fn load(&mut self, dict: Dict) -> &mut (HashMap<String, u32>, u32) {
        if !self.loaded.contains_key(&dict) {
            let mut map = HashMap::new();
            let mut next = 0u32;
            let from = [dict as u8];
            let to = [dict as u8 + 1];
            let scanned = self.table.scan(&from, Some(&to), |k, v| {
                if let Ok(block) = <[u8; 4]>::try_from(&k[1..]) {
                    let base = u32::from_be_bytes(block) * PER_ROW;
                    for (i, slot) in decode_row(v).into_iter().enumerate() {
                        if let Some(n) = slot {
                            let id = base + i as u32;
                            next = next.max(id + 1);
                            map.entry(n).or_insert(id);
                        }
                    }
                }
                true
            });
            if let Err(e) = scanned {
                self.error.get_or_insert(e.into());
            }
            self.loaded.insert(dict, (map, next));
        }
        self.loaded.get_mut(&dict).expect("loaded above")
    }
}

impl Names for FewNames<'_> {
    fn id(&mut self, dict: Dict, name: &str) -> u32 {
        if let Some(&id) = self.seed.get(&(dict, name.to_string())) {
            return id;
        }
        let (map, next) = self.load(dict);
        if let Some(&id) = map.get(name) {
            return id;
        }
        let id = *next;
        *next += 1;
        map.insert(name.to_string(), id);
        self.pending.push((dict, id, name.to_string()));
        id
    }
}

/// Writes names (new ones, or new spellings of existing ids).
pub fn write_names(w: &WriteTx, names: &[(Dict, u32, String)]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    w.with_table(NAMES, |t| {
        let mut rows: HashMap<[u8; 5], Vec<Option<String>>> = HashMap::new();
        for (dict, id, name) in names {
            let key = row_key(*dict, *id);
            let row = match rows.entry(key) {
                std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(t.get(&key)?.map(|v| decode_row(&v)).unwrap_or_default())
                }
            };
            let slot = (id % PER_ROW) as usize;
            if row.len() <= slot {
                row.resize(slot + 1, None);
            }
            row[slot] = Some(name.clone());
        }
        for (key, row) in rows {
            t.put(&key, &encode_row(&row))?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Reads names from the store (rows cached).
pub struct StoreNames {
    table: TableRef,
    rows: std::cell::RefCell<HashMap<[u8; 5], Vec<Option<String>>>>,
    /// The store's error of the last row that could not be read.
    failed: std::cell::RefCell<Option<std::sync::Arc<str>>>,
}

impl StoreNames {
    pub fn new(read: &ReadTx) -> Result<StoreNames> {
        Ok(StoreNames {
            table: read.table(NAMES)?,
            rows: Default::default(),
            failed: Default::default(),
        })
    }

    fn each(&self, dict: Dict, mut f: impl FnMut(u32, &str)) -> Result<()> {
        let from = [dict as u8];
        let to = [dict as u8 + 1];
        self.table.scan(&from, Some(&to), |k, v| {
            if let Ok(block) = <[u8; 4]>::try_from(&k[1..]) {
                let base = u32::from_be_bytes(block) * PER_ROW;
                for (i, slot) in decode_row(v).iter().enumerate() {
                    if let Some(n) = slot {
                        f(base + i as u32, n);
                    }
                }
            }
            true
        })?;
        Ok(())
    }

    /// Every name of a dictionary with its id, in id order.
    pub fn all(&self, dict: Dict) -> Result<Vec<(u32, String)>> {
        let mut out = Vec::new();
        self.each(dict, |id, name| out.push((id, name.to_string())))?;
        Ok(out)
    }

    /// Ids of every name equal to `name` but for case (a player can be written
    /// `Carlsen, Magnus` and `CARLSEN, Magnus`), sorted.
    pub fn ids_of(&self, dict: Dict, name: &str) -> Result<Vec<u32>> {
        let want = name.trim().to_lowercase();
        let mut out = Vec::new();
        self.each(dict, |id, n| {
            if n.trim().to_lowercase() == want {
                out.push(id);
            }
        })?;
        out.sort_unstable();
        Ok(out)
    }

    /// Ids of every name containing `needle` (case-insensitive) in a dictionary.
    pub fn find(&self, dict: Dict, needle: &str) -> Result<Vec<u32>> {
        let needle = needle.to_lowercase();
        let mut out = Vec::new();
        self.each(dict, |id, name| {
            if name.to_lowercase().contains(&needle) {
                out.push(id);
            }
        })?;
        Ok(out)
    }

    pub fn count(&self, dict: Dict) -> Result<u64> {
        let mut n = 0;
        self.each(dict, |_, _| n += 1)?;
        Ok(n)
    }
}

impl NameLookup for StoreNames {
    fn name(&self, dict: Dict, id: u32) -> Option<String> {
        let key = row_key(dict, id);
        let mut rows = self.rows.borrow_mut();
        if !rows.contains_key(&key) {
            if rows.len() > 4096 {
                rows.clear();
            }
            match self.table.get(&key) {
                Ok(v) => {
                    rows.insert(key, v.map(|v| decode_row(&v)).unwrap_or_default());
                }
                Err(e) => {
                    // Not kept: the name is missing, and the decoder's error says why.
                    *self.failed.borrow_mut() = Some(e.to_string().into());
                    return None;
                }
            }
        }
        rows[&key].get((id % PER_ROW) as usize).cloned().flatten()
    }

    fn failure(&self) -> Option<std::sync::Arc<str>> {
        self.failed.borrow().clone()
    }
}
