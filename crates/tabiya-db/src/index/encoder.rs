//! Cutting a run's T records and S entries into blocks as they stream in, so merges write
//! without holding the run.

use super::BLOCK_BYTES;
use super::record::{SEntry, TRecord, encode_record};
use super::sblock::{
    S_HEADER, bit_width, checkpoint_bytes, encode_s_block, rice_guess, s_block_size,
};
use crate::codec::put_varint;

/// Incremental block writer, so merges can stream.
#[derive(Default)]
pub struct RunEncoder {
    t_cur: Vec<u8>,
    t_first: Option<u128>,
    t_count: u64,
    s_cur: Vec<SEntry>,
    s_min_game: u32,
    s_max_game: u32,
    pub t_records: u64,
    pub s_entries: u64,
}

/// What a [`RunEncoder`] emits as it fills blocks.
pub enum Emitted {
    TBlock(u128, Vec<u8>),
    SBlock(u32, Vec<u8>),
    Postings(u128, Vec<u8>),
}

impl RunEncoder {
    pub fn push_record(&mut self, rec: &TRecord, emit: &mut dyn FnMut(Emitted)) {
        let mut enc = Vec::with_capacity(64);
        let ext = encode_record(rec, &mut enc);
        if self.t_first.is_some() && self.t_cur.len() + enc.len() > BLOCK_BYTES {
            self.flush_t(emit);
        }
        if self.t_first.is_none() {
            self.t_first = Some(rec.key);
        }
        self.t_cur.extend_from_slice(&enc);
        if let Some(ext) = ext {
            emit(Emitted::Postings(rec.key, ext));
        }
        self.t_count += 1;
        self.t_records += 1;
    }

    /// S entries must come in (prefix, game) order. A block never splits a prefix, so the
    /// block directory finds every entry of a prefix in one block.
    pub fn push_single(&mut self, e: SEntry, emit: &mut dyn FnMut(Emitted)) {
        if self.s_cur.is_empty() {
            self.s_min_game = e.game;
            self.s_max_game = e.game;
        }
        self.s_min_game = self.s_min_game.min(e.game);
        self.s_max_game = self.s_max_game.max(e.game);
        self.s_cur.push(e);
        self.s_entries += 1;
        // Cheap estimate first (Rice cost ≈ span / 2^k + n (k + 1)); the exact size only
        // near the limit.
        let n = self.s_cur.len() as u64;
        if n.is_multiple_of(16) {
            let span = (e.prefix - self.s_cur[0].prefix) as u64;
            let k = rice_guess(span, n) as u64;
            let w = bit_width(self.s_max_game - self.s_min_game) as u64;
            let est = ((span >> k) + n * (k + 2 + w)).div_ceil(8) as usize
                + S_HEADER
                + checkpoint_bytes(n as usize);
            if est * 100 > BLOCK_BYTES * 97 && s_block_size(&self.s_cur).0 > BLOCK_BYTES {
                self.cut_s(emit);
            }
        }
    }

    /// Emits the longest run of whole prefixes that fits a block; keeps the rest.
    fn cut_s(&mut self, emit: &mut dyn FnMut(Emitted)) {
        let mut n = self.s_cur.len();
        while n > 1 && s_block_size(&self.s_cur[..n]).0 > BLOCK_BYTES {
            n -= (n / 64).max(1);
        }
        // Move the cut back to a prefix boundary (keep at least one prefix).
        while n > 0 && n < self.s_cur.len() && self.s_cur[n].prefix == self.s_cur[n - 1].prefix {
            n -= 1;
        }
        if n == 0 {
            // One prefix larger than a block: emit it whole.
            n = self
                .s_cur
                .iter()
                .position(|e| e.prefix != self.s_cur[0].prefix)
                .unwrap_or(self.s_cur.len());
        }
        let rest = self.s_cur.split_off(n);
        let block = std::mem::replace(&mut self.s_cur, rest);
        (self.s_min_game, self.s_max_game) =
            self.s_cur.iter().fold((u32::MAX, 0), |(lo, hi), e| {
                (lo.min(e.game), hi.max(e.game))
            });
        emit(Emitted::SBlock(block[0].prefix, encode_s_block(&block)));
    }

    fn flush_t(&mut self, emit: &mut dyn FnMut(Emitted)) {
        if let Some(first) = self.t_first.take() {
            let mut block = Vec::with_capacity(self.t_cur.len() + 4);
            put_varint(&mut block, self.t_count);
            block.extend_from_slice(&self.t_cur);
            self.t_cur.clear();
            self.t_count = 0;
            emit(Emitted::TBlock(first, block));
        }
    }

    pub fn finish(&mut self, emit: &mut dyn FnMut(Emitted)) {
        self.flush_t(emit);
        while !self.s_cur.is_empty() {
            if s_block_size(&self.s_cur).0 > BLOCK_BYTES {
                self.cut_s(emit);
            } else {
                let block = std::mem::take(&mut self.s_cur);
                emit(Emitted::SBlock(block[0].prefix, encode_s_block(&block)));
            }
        }
    }
}
