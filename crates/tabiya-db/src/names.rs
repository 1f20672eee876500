//! Dictionaries of names (players, events, sites, rounds, tag names): each distinct string is
//! stored once and games refer to it by id.

use std::collections::HashMap;

use tabiya_store::{ReadTx, TableRef, WriteTx};

use crate::chess::{Dict, NameLookup, Names};
use crate::Result;

pub const NAMES: &str = "names";
pub const NAME_IDS: &str = "name_ids";

fn id_key(dict: Dict, id: u32) -> [u8; 5] {
    let mut k = [0u8; 5];
    k[0] = dict as u8;
    k[1..].copy_from_slice(&id.to_be_bytes());
    k
}

fn name_key(dict: Dict, name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(name.len() + 1);
    k.push(dict as u8);
    k.extend_from_slice(name.as_bytes());
    k
}

/// All names in memory, for imports: lookups and new ids without touching the store; new
/// names are written with the batch that first uses them.
#[derive(Default)]
pub struct NameCache {
    ids: HashMap<(Dict, String), u32>,
    next: HashMap<Dict, u32>,
    pending: Vec<(Dict, u32, String)>,
}

impl NameCache {
    pub fn load(read: &ReadTx) -> Result<NameCache> {
        let mut cache = NameCache::default();
        let t = read.table(NAME_IDS)?;
        let mut bad = None;
        t.scan(&[], None, |k, v| {
            let Some(dict) = Dict::ALL.iter().copied().find(|d| *d as u8 == k[0]) else {
                bad = Some("unknown dictionary");
                return false;
            };
            let (Ok(name), Ok(id)) = (std::str::from_utf8(&k[1..]), <[u8; 4]>::try_from(v)) else {
                bad = Some("bad name entry");
                return false;
            };
            let id = u32::from_be_bytes(id);
            cache.ids.insert((dict, name.to_string()), id);
            let next = cache.next.entry(dict).or_insert(0);
            *next = (*next).max(id + 1);
            true
        })?;
        if let Some(b) = bad {
            return Err(crate::Error::Corrupt(format!("name dictionary: {b}")));
        }
        Ok(cache)
    }

    /// Names added since the last [`NameCache::take_pending`].
    pub fn take_pending(&mut self) -> Vec<(Dict, u32, String)> {
        std::mem::take(&mut self.pending)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn get(&self, dict: Dict, name: &str) -> Option<u32> {
        self.ids.get(&(dict, name.to_string())).copied()
    }
}

impl Names for NameCache {
    fn id(&mut self, dict: Dict, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(&(dict, name.to_string())) {
            return id;
        }
        let next = self.next.entry(dict).or_insert(0);
        let id = *next;
        *next += 1;
        self.ids.insert((dict, name.to_string()), id);
        self.pending.push((dict, id, name.to_string()));
        id
    }
}

/// Writes new names.
pub fn write_names(w: &WriteTx, names: &[(Dict, u32, String)]) -> Result<()> {
    w.with_table(NAMES, |t| {
        for (dict, id, name) in names {
            t.put(&id_key(*dict, *id), name.as_bytes())?;
        }
        Ok(())
    })?;
    w.with_table(NAME_IDS, |t| {
        for (dict, id, name) in names {
            t.put(&name_key(*dict, name), &id.to_be_bytes())?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Reads names from the store.
pub struct StoreNames {
    table: TableRef,
}

impl StoreNames {
    pub fn new(read: &ReadTx) -> Result<StoreNames> {
        Ok(StoreNames { table: read.table(NAMES)? })
    }

    /// Ids of every name containing `needle` (case-insensitive) in a dictionary.
    pub fn find(&self, dict: Dict, needle: &str) -> Result<Vec<u32>> {
        let needle = needle.to_lowercase();
        let mut out = Vec::new();
        let from = [dict as u8];
        let to = [dict as u8 + 1];
        self.table.scan(&from, Some(&to), |k, v| {
            if let (Ok(id), Ok(name)) = (<[u8; 4]>::try_from(&k[1..]), std::str::from_utf8(v))
                && name.to_lowercase().contains(&needle)
            {
                out.push(u32::from_be_bytes(id));
            }
            true
        })?;
        Ok(out)
    }

    pub fn count(&self, dict: Dict) -> Result<u64> {
        let mut n = 0;
        self.table.scan(&[dict as u8], Some(&[dict as u8 + 1]), |_, _| {
            n += 1;
            true
        })?;
        Ok(n)
    }
}

impl NameLookup for StoreNames {
    fn name(&self, dict: Dict, id: u32) -> Option<String> {
        self.table
            .get_with(&id_key(dict, id), |v| String::from_utf8_lossy(v).into_owned())
            .ok()
            .flatten()
    }
}
