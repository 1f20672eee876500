//! A run's directory: the first key of each block, counts, and the "T records complete" mark.

use crate::codec::{DecodeError, Reader, put_varint};

/// The directory of a run: first key of every block, plus counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunDir {
    pub id: u32,
    pub t_first: Vec<u128>,
    pub s_first: Vec<u32>,
    pub t_records: u64,
    pub s_entries: u64,
    /// Occurrences kept implicitly (through their successor's entry).
    pub implicit: u64,
    /// Games indexed by the run.
    pub games: u64,
    /// Encoded bytes of its blocks and postings.
    pub bytes: u64,
    /// Whether its T records are complete: every game of the run reaching a position with a
    /// T record is in that record (no S entry, explicit or implicit, holds it), except for
    /// the keys in `incomplete`. A query then needs no S entries for such a position. True
    /// of every batch's run; a merge keeps it true by moving S entries into T records (see
    /// `merge.rs`). Runs written before this was recorded read as not complete.
    pub complete: bool,
    /// T record keys the merge could not make complete (sorted; almost always empty).
    pub incomplete: Vec<u128>,
}

impl RunDir {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.t_first.len() as u64);
        for k in &self.t_first {
            out.extend_from_slice(&k.to_be_bytes());
        }
        put_varint(&mut out, self.s_first.len() as u64);
        for p in &self.s_first {
            out.extend_from_slice(&p.to_be_bytes());
        }
        put_varint(&mut out, self.t_records);
        put_varint(&mut out, self.s_entries);
        put_varint(&mut out, self.implicit);
        put_varint(&mut out, self.games);
        put_varint(&mut out, self.bytes);
        put_varint(&mut out, u64::from(self.complete));
        put_varint(&mut out, self.incomplete.len() as u64);
        for k in &self.incomplete {
            out.extend_from_slice(&k.to_be_bytes());
        }
        out
    }

    pub fn decode(id: u32, data: &[u8]) -> Result<RunDir, DecodeError> {
        let mut r = Reader::new(data);
        let nt = r.varint("t blocks")? as usize;
        let mut t_first = Vec::with_capacity(nt.min(1 << 24));
        for _ in 0..nt {
            t_first.push(u128::from_be_bytes(r.array::<16>("t first key")?));
        }
        let ns = r.varint("s blocks")? as usize;
        let mut s_first = Vec::with_capacity(ns.min(1 << 24));
        for _ in 0..ns {
            s_first.push(u32::from_be_bytes(r.array::<4>("s first prefix")?));
        }
        let mut dir = RunDir {
            id,
            t_first,
            s_first,
            t_records: r.varint("t records")?,
            s_entries: r.varint("s entries")?,
            implicit: r.varint("implicit")?,
            games: r.varint("games")?,
            bytes: r.varint("bytes")?,
            complete: false,
            incomplete: Vec::new(),
        };
        if !r.remaining().is_empty() {
            dir.complete = r.varint("complete")? == 1;
            let n = r.varint("incomplete keys")? as usize;
            for _ in 0..n {
                dir.incomplete
                    .push(u128::from_be_bytes(r.array::<16>("incomplete key")?));
            }
        }
        Ok(dir)
    }

    /// Whether the run's T record of `key` (if it has one) holds every game of the run
    /// reaching the position.
    pub fn complete_for(&self, key: u128) -> bool {
        self.complete && self.incomplete.binary_search(&key).is_err()
    }

    /// Block holding `key` among the T blocks, if any could.
    pub fn t_block_for(&self, key: u128) -> Option<u32> {
        let i = self.t_first.partition_point(|&f| f <= key);
        (i > 0).then(|| (i - 1) as u32)
    }

    pub fn s_block_for(&self, prefix: u32) -> Option<u32> {
        let i = self.s_first.partition_point(|&f| f <= prefix);
        (i > 0).then(|| (i - 1) as u32)
    }
}
