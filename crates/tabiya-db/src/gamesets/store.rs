//! The two tables of gamesets: `gamesets` (the name, folded for case, → the definition) and
//! `gameset_ids` (gameset id, row → the ranges of ids of that row, see [`super::ids`]).

use tabiya_store::{ReadTx, TableRef, WriteTx};

use super::ids::{IdSet, ROW_IDS};
use crate::codec::{Reader, put_str, put_varint};
use crate::{Error, Result};

pub const GAMESETS: &str = "gamesets";
pub const GAMESET_IDS: &str = "gameset_ids";

/// What a gameset is, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub id: u32,
    pub name: String,
    pub criteria: String,
    /// The gameset it was made from: its games are among the parent's.
    pub parent: Option<String>,
    /// Seconds since 1970 of its creation and of its last full computation.
    pub created: u64,
    pub refreshed: u64,
    /// The repertoire files its criteria follow, as they were read (name, PGN text).
    pub files: Vec<(String, String)>,
}

const VERSION: u8 = 1;

impl Definition {
    fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        put_varint(&mut out, self.id as u64);
        put_str(&mut out, &self.name);
        put_str(&mut out, &self.criteria);
        put_str(&mut out, self.parent.as_deref().unwrap_or(""));
        put_varint(&mut out, self.created);
        put_varint(&mut out, self.refreshed);
        put_varint(&mut out, self.files.len() as u64);
        for (n, t) in &self.files {
            put_str(&mut out, n);
            put_str(&mut out, t);
        }
        out
    }

    fn decode(data: &[u8]) -> std::result::Result<Definition, crate::DecodeError> {
        let mut r = Reader::new(data);
        if r.u8("gameset version")? != VERSION {
            return Err(r.bad("gameset version"));
        }
        let id = r.varint_u32("gameset id")?;
        let name = r.str("gameset name")?.to_string();
        let criteria = r.str("criteria")?.to_string();
        let parent = Some(r.str("parent")?.to_string()).filter(|p| !p.is_empty());
        let created = r.varint("created")?;
        let refreshed = r.varint("refreshed")?;
        let n = r.varint("files")?;
        let mut files = Vec::new();
        for _ in 0..n {
            files.push((r.str("file name")?.to_string(), r.str("file")?.to_string()));
        }
        Ok(Definition {
            id,
            name,
            criteria,
            parent,
            created,
            refreshed,
            files,
        })
    }
}

/// The key of a gameset's name: names are unique whatever their case.
pub fn name_key(name: &str) -> Vec<u8> {
    name.trim().to_lowercase().into_bytes()
}

fn row_key(set: u32, row: u32) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&set.to_be_bytes());
    k[4..].copy_from_slice(&row.to_be_bytes());
    k
}

fn corrupt(e: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("gameset: {e}"))
}

/// Every definition, by id (parents before their children: a child is made after its
/// parent, so it has a greater id).
pub fn definitions(read: &ReadTx) -> Result<Vec<Definition>> {
    let mut out = Vec::new();
    let mut err = None;
    read.table(GAMESETS)?.scan(&[], None, |_, v| {
        match Definition::decode(v) {
            Ok(d) => out.push(d),
            Err(e) => err = Some(corrupt(e)),
        }
        true
    })?;
    if let Some(e) = err {
        return Err(e);
    }
    out.sort_by_key(|d| d.id);
    Ok(out)
}

/// Every definition, from a write transaction.
pub fn definitions_in(w: &WriteTx) -> Result<Vec<Definition>> {
    let mut out = Vec::new();
    let mut err = None;
    w.with_table(GAMESETS, |t| {
        t.scan(&[], None, |_, v| {
            match Definition::decode(v) {
                Ok(d) => out.push(d),
                Err(e) => err = Some(corrupt(e)),
            }
            true
        })
    })?;
    if let Some(e) = err {
        return Err(e);
    }
    out.sort_by_key(|d| d.id);
    Ok(out)
}

pub fn put_definition(w: &WriteTx, d: &Definition) -> Result<()> {
    Ok(w.with_table(GAMESETS, |t| t.put(&name_key(&d.name), &d.encode()))?)
}

/// Removes a gameset: its definition and its ids.
pub fn remove(w: &WriteTx, d: &Definition) -> Result<()> {
    w.with_table(GAMESETS, |t| t.remove(&name_key(&d.name)).map(|_| ()))?;
    w.with_table(GAMESET_IDS, |t| {
        t.remove_range(&row_key(d.id, 0), &row_key(d.id + 1, 0))
            .map(|_| ())
    })?;
    Ok(())
}

/// A gameset's ids.
pub fn load_ids(table: &TableRef, set: u32) -> Result<IdSet> {
    let mut ids = IdSet::default();
    let mut err = None;
    table.scan(&row_key(set, 0), Some(&row_key(set + 1, 0)), |k, v| {
        let row = u32::from_be_bytes(k[4..8].try_into().unwrap_or_default());
        if let Err(e) = ids.decode_row(row, v) {
            err = Some(corrupt(e));
            return false;
        }
        true
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(ids),
    }
}

/// A gameset's ids, as a write transaction sees them.
pub fn load_ids_in(w: &WriteTx, set: u32) -> Result<IdSet> {
    let t = w.table(GAMESET_IDS)?;
    let mut ids = IdSet::default();
    let mut err = None;
    t.scan(&row_key(set, 0), Some(&row_key(set + 1, 0)), |k, v| {
        let row = u32::from_be_bytes(k[4..8].try_into().unwrap_or_default());
        if let Err(e) = ids.decode_row(row, v) {
            err = Some(corrupt(e));
            return false;
        }
        true
    })?;
    match err {
        Some(e) => Err(e),
        None => Ok(ids),
    }
}

/// Stores a gameset's ids whole (replacing what it had).
pub fn put_ids(w: &WriteTx, set: u32, ids: &IdSet) -> Result<()> {
    w.with_table(GAMESET_IDS, |t| {
        t.remove_range(&row_key(set, 0), &row_key(set + 1, 0))?;
        for row in ids.rows() {
            if let Some(v) = ids.encode_row(row) {
                t.put(&row_key(set, row), &v)?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// Adds and takes out ids of a gameset, row by row.
pub fn change_ids(w: &WriteTx, set: u32, add: &[u32], take: &[u32]) -> Result<()> {
    let mut rows: Vec<u32> = add.iter().chain(take).map(|id| id / ROW_IDS).collect();
    rows.sort_unstable();
    rows.dedup();
    let mut t = w.table(GAMESET_IDS)?;
    for row in rows {
        let key = row_key(set, row);
        let mut ids = IdSet::default();
        if let Some(v) = t.get(&key)? {
            ids.decode_row(row, &v).map_err(corrupt)?;
        }
        for &id in add.iter().filter(|id| *id / ROW_IDS == row) {
            ids.insert(id);
        }
        for &id in take.iter().filter(|id| *id / ROW_IDS == row) {
            ids.remove(id);
        }
        match ids.encode_row(row) {
            Some(v) => t.put(&key, &v)?,
            None => {
                t.remove(&key)?;
            }
        }
    }
    Ok(())
}

/// Whether a gameset holds a game, as a write transaction sees it.
pub fn holds(w: &WriteTx, set: u32, id: u32) -> Result<bool> {
    let t = w.table(GAMESET_IDS)?;
    let row = id / ROW_IDS;
    let mut ids = IdSet::default();
    if let Some(v) = t.get(&row_key(set, row))? {
        ids.decode_row(row, &v).map_err(corrupt)?;
    }
    Ok(ids.contains(id))
}
