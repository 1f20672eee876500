//! Stored games are compressed one by one with a zstd dictionary trained on the database's
//! own games, so each game stays readable on its own (a query decodes a handful of games)
//! while taking a fraction of its raw size.
//!
//! A stored value is one codec byte then the payload: 0 = raw, 1 = zstd with the database's
//! dictionary (`meta/zdict`). The dictionary is trained once, from the first batch of at least
//! [`TRAIN_MIN`] games; games stored before that stay raw.

use std::cell::RefCell;

use tabiya_store::{ReadTx, TableRef};
use zstd::dict::{DecoderDictionary, EncoderDictionary};

use crate::schema::{GAMES, META};
use crate::{Error, Result};

pub const RAW: u8 = 0;
pub const ZSTD_DICT: u8 = 1;
/// Fewest games worth training a dictionary on.
pub const TRAIN_MIN: usize = 1000;
const DICT_BYTES: usize = 48 * 1024;
const LEVEL: i32 = 3;
pub const DICT_KEY: &[u8] = b"zdict";

/// Trains a dictionary on raw game records: 1/32 of the samples' size, between 8 and 48 KiB,
/// so small databases do not carry a dictionary bigger than what it saves.
///
/// zstd's default trainer (`ZDICT_trainFromBuffer`) builds dictionaries for four segment
/// sizes and keeps the one that compresses best: about 0.1 s for a thousand games, most of
/// a small import's time. One build with a fixed segment size of 100 bytes (d = 8) compressed
/// TWIC, TCEC and generated games as well or better (within 1 %; see BENCHMARKS.md) in a
/// third to a half of the time.
#[allow(unsafe_code)] // one memory map / FFI call, see the SAFETY comment below
pub fn train(samples: &[Vec<u8>]) -> Option<Vec<u8>> {
    use zstd::zstd_safe::zstd_sys as zs;
    // Every n-th record, at most 2,000: enough for a good dictionary, quick to train.
    let step = (samples.len() / 2000).max(1);
    let take: Vec<&Vec<u8>> = samples.iter().step_by(step).take(2000).collect();
    let total: usize = take.iter().map(|s| s.len()).sum();
    let size = (total / 32).clamp(8 * 1024, DICT_BYTES);
    let mut flat = Vec::with_capacity(total);
    let mut sizes = Vec::with_capacity(take.len());
    for s in &take {
        flat.extend_from_slice(s);
        sizes.push(s.len());
    }
    let params = zs::ZDICT_fastCover_params_t {
        k: 100,
        d: 8,
        // Defaults: f = 20, one thread, all samples, accel = 1, no dictionary shrinking.
        f: 0,
        steps: 0,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: zs::ZDICT_params_t {
            compressionLevel: LEVEL,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let mut dict = vec![0u8; size];
    // SAFETY: `dict` is writable for `size` bytes; `flat` holds exactly the sum of `sizes`
    // bytes, one length per sample; zstd reads and writes nothing else.
    let n = unsafe {
        zs::ZDICT_trainFromBuffer_fastCover(
            dict.as_mut_ptr().cast(),
            dict.len(),
            flat.as_ptr().cast(),
            sizes.as_ptr(),
            sizes.len() as u32,
            params,
        )
    };
    // SAFETY: a pure function of the returned code.
    if unsafe { zs::ZDICT_isError(n) } != 0 {
        // Too few or too small samples: the games stay raw until a later batch trains one.
        return None;
    }
    dict.truncate(n);
    Some(dict)
}

/// Compresses records with a dictionary, reusing one compression context.
pub struct Packer<'d> {
    compressor: Option<zstd::bulk::Compressor<'d>>,
    scratch: Vec<u8>,
}

impl<'d> Packer<'d> {
    pub fn new(dict: Option<&'d EncoderDictionary<'static>>) -> Result<Packer<'d>> {
        let compressor = match dict {
            Some(d) => Some(
                zstd::bulk::Compressor::with_prepared_dictionary(d)
                    .map_err(|e| Error::Corrupt(format!("zstd: {e}")))?,
            ),
            None => None,
        };
        Ok(Packer {
            compressor,
            scratch: Vec::new(),
        })
    }

    pub fn pack(&mut self, raw: &[u8], out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        match &mut self.compressor {
            Some(c) => {
                out.push(ZSTD_DICT);
                // Into the caller's buffer: no zeroed allocation per game.
                let mut packed = std::mem::take(&mut self.scratch);
                packed.clear();
                packed.reserve(zstd::zstd_safe::compress_bound(raw.len()));
                c.compress_to_buffer(raw, &mut packed)
                    .map_err(|e| Error::Corrupt(format!("zstd: {e}")))?;
                out.extend_from_slice(&packed);
                self.scratch = packed;
            }
            None => {
                out.push(RAW);
                out.extend_from_slice(raw);
            }
        }
        Ok(())
    }
}

/// Prepares a dictionary for [`Packer`].
pub fn encoder_dictionary(dict: &[u8]) -> EncoderDictionary<'static> {
    EncoderDictionary::copy(dict, LEVEL)
}

/// The dictionary `dict` prepared for decompression, once per process: a decompression
/// context borrows it for as long as it lives, so it is kept to the end; each distinct
/// dictionary (one per database opened) is prepared and kept once, however many readers
/// (one or more per query) ask for it.
fn prepared(dict: &[u8]) -> &'static DecoderDictionary<'static> {
    type Kept = Vec<(Box<[u8]>, &'static DecoderDictionary<'static>)>;
    static KEPT: std::sync::Mutex<Kept> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, d)) = kept.iter().find(|(bytes, _)| **bytes == *dict) {
        return d;
    }
    let d: &'static DecoderDictionary<'static> = Box::leak(Box::new(DecoderDictionary::copy(dict)));
    kept.push((dict.into(), d));
    d
}

/// Reads stored games, decompressing them.
pub struct Records {
    table: TableRef,
    dict: Option<&'static DecoderDictionary<'static>>,
    decompressor: RefCell<Option<zstd::bulk::Decompressor<'static>>>,
}

impl Records {
    pub fn new(read: &ReadTx) -> Result<Records> {
        let dict = read.table(META)?.get(DICT_KEY)?.map(|d| prepared(&d));
        let decompressor = match dict {
            Some(d) => Some(
                zstd::bulk::Decompressor::with_prepared_dictionary(d)
                    .map_err(|e| Error::Corrupt(format!("zstd: {e}")))?,
            ),
            None => None,
        };
        Ok(Records {
            table: read.table(GAMES)?,
            dict,
            decompressor: RefCell::new(decompressor),
        })
    }

    /// The raw stored form of a game.
    pub fn get(&self, id: u32) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::new();
        Ok(self.get_into(id, &mut out)?.then_some(out))
    }

    /// [`Records::get`] into `out` (its allocation kept for the next game, as a search that
    /// reads thousands asks): false when no game has this id. The stored bytes are
    /// decompressed where the storage engine holds them, not copied first.
    pub fn get_into(&self, id: u32, out: &mut Vec<u8>) -> Result<bool> {
        let mut d = self.decompressor.borrow_mut();
        let unpacked = self.table.get_with(&id.to_be_bytes(), |v| {
            unpack_into(v, self.dict.is_some(), d.as_mut(), out)
        })?;
        match unpacked {
            None => Ok(false),
            Some(r) => r
                .map(|()| true)
                .map_err(|e| Error::Corrupt(format!("game {id}: {e}"))),
        }
    }

    /// Every stored game in id order, decompressed: `f(id, raw stored form)`, until it
    /// returns false. One pass over the table (no lookup per game).
    pub fn scan(&self, f: impl FnMut(u32, &[u8]) -> Result<bool>) -> Result<()> {
        self.scan_range(0, None, f)
    }

    /// [`Records::scan`] of the games with ids in `from..to` (`to` `None`: to the last).
    pub fn scan_range(
        &self,
        from: u32,
        to: Option<u32>,
        mut f: impl FnMut(u32, &[u8]) -> Result<bool>,
    ) -> Result<()> {
        let mut d = self.decompressor.borrow_mut();
        let mut failed = None;
        let to = to.map(u32::to_be_bytes);
        self.table
            .scan(&from.to_be_bytes(), to.as_ref().map(|t| &t[..]), |k, v| {
                let Ok(k) = <[u8; 4]>::try_from(k) else {
                    return true;
                };
                let id = u32::from_be_bytes(k);
                let step = unpack(v, self.dict.is_some(), d.as_mut())
                    .map_err(|e| Error::Corrupt(format!("game {id}: {e}")))
                    .and_then(|raw| f(id, &raw));
                match step {
                    Ok(go_on) => go_on,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            })?;
        failed.map_or(Ok(()), Err)
    }

    /// Every stored game in id order, decompressed or not: `f(key, raw stored form or why
    /// it cannot be read)` for every entry, a damaged one included (for `tabiya check`).
    pub fn scan_all(
        &self,
        mut f: impl FnMut(&[u8], std::result::Result<&[u8], String>),
    ) -> Result<()> {
        let mut d = self.decompressor.borrow_mut();
        self.table.scan(&[], None, |k, v| {
            match unpack(v, self.dict.is_some(), d.as_mut()) {
                Ok(raw) => f(k, Ok(&raw)),
                Err(e) => f(k, Err(e)),
            }
            true
        })?;
        Ok(())
    }

    /// One past the greatest game id (0: no game).
    pub fn ids_end(&self) -> Result<u32> {
        Ok(self
            .table
            .last_key()?
            .and_then(|k| <[u8; 4]>::try_from(k.as_slice()).ok())
            .map_or(0, |k| u32::from_be_bytes(k) + 1))
    }

    /// Ids of all games, in id order.
    pub fn ids(&self) -> Result<Vec<u32>> {
        let mut ids = Vec::new();
        self.table.scan(&[], None, |k, _| {
            if let Ok(k) = <[u8; 4]>::try_from(k) {
                ids.push(u32::from_be_bytes(k));
            }
            true
        })?;
        Ok(ids)
    }
}

pub(crate) fn unpack(
    stored: &[u8],
    has_dict: bool,
    d: Option<&mut zstd::bulk::Decompressor<'static>>,
) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    unpack_into(stored, has_dict, d, &mut out)?;
    Ok(out)
}

/// [`unpack`] into `out`, which is cleared first.
pub(crate) fn unpack_into(
    stored: &[u8],
    has_dict: bool,
    d: Option<&mut zstd::bulk::Decompressor<'static>>,
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    out.clear();
    match stored.split_first() {
        Some((&RAW, rest)) => {
            out.extend_from_slice(rest);
            Ok(())
        }
        Some((&ZSTD_DICT, rest)) => {
            let d = d
                .filter(|_| has_dict)
                .ok_or("compressed, but the database has no dictionary")?;
            let size = zstd::zstd_safe::get_frame_content_size(rest)
                .ok()
                .flatten()
                .ok_or("compressed game without its size")? as usize;
            if size > 64 << 20 {
                return Err("implausible game size".into());
            }
            out.reserve(size);
            let n = d
                .decompress_to_buffer(rest, out)
                .map_err(|e| e.to_string())?;
            if n != size {
                return Err(format!("{n} bytes where the frame says {size}"));
            }
            Ok(())
        }
        Some((c, _)) => Err(format!("unknown codec {c}")),
        None => Err("empty record".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks_with_and_without_dictionary() {
        let samples: Vec<Vec<u8>> = (0..2000u32)
            .map(|i| {
                format!(
                    "[Event \"Club {}\"] moves e4 e5 Nf3 Nc6 Bb5 a6 game {i}",
                    i % 17
                )
                .into_bytes()
            })
            .collect();
        let dict = train(&samples).expect("dictionary");
        let ed = encoder_dictionary(&dict);
        let mut with = Packer::new(Some(&ed)).unwrap();
        let mut without = Packer::new(None).unwrap();
        let dd: &'static DecoderDictionary<'static> =
            Box::leak(Box::new(DecoderDictionary::copy(&dict)));
        let mut dec = zstd::bulk::Decompressor::with_prepared_dictionary(dd).unwrap();
        let mut out = Vec::new();
        for s in samples.iter().take(50) {
            with.pack(s, &mut out).unwrap();
            assert!(out.len() < s.len());
            assert_eq!(&unpack(&out, true, Some(&mut dec)).unwrap(), s);
            without.pack(s, &mut out).unwrap();
            assert_eq!(&unpack(&out, false, None).unwrap(), s);
        }
        assert!(unpack(&[9, 1, 2], false, None).is_err());
        // Asked again, a dictionary is the one prepared before (not one more kept).
        assert!(std::ptr::eq(prepared(&dict), prepared(&dict)));
        assert!(!std::ptr::eq(prepared(&dict), prepared(&dict[1..])));
        assert!(unpack(&[ZSTD_DICT, 1, 2], true, Some(&mut dec)).is_err());
    }
}
