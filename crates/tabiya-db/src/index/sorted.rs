//! Occurrences with their whole keys, sorted by key: what a run is assembled from without
//! replaying a game ([`super::assemble`]). An import that needs several segments spills each
//! segment's rare occurrences to files like this; a cluster build (Spark) sorts every
//! occurrence of its games into partitions of the same rows.
//!
//! A file is a sequence of [`RECORD_BYTES`]-byte records in (key, game) order.

use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use super::record::Occ;
use crate::{Error, Result};

/// One counted position of one game, with what a run needs of it: its whole key, the
/// game, its place among the game's counted positions (`rank`, 0 for the first), the move
/// played there and who played it, and whether the game's next counted position comes one
/// ply later (`adj`: what the implicit rule needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedOcc {
    pub key: u128,
    pub game: u32,
    pub rank: u16,
    pub code: u16,
    pub mover: u8,
    pub adj: bool,
}

impl KeyedOcc {
    pub fn occ(&self) -> Occ {
        Occ {
            key: self.key,
            game: self.game,
            code: self.code,
            mover: self.mover,
        }
    }

    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[..16].copy_from_slice(&self.key.to_be_bytes());
        b[16..20].copy_from_slice(&self.game.to_le_bytes());
        b[20..22].copy_from_slice(&self.rank.to_le_bytes());
        b[22..24].copy_from_slice(&self.code.to_le_bytes());
        b[24] = self.mover;
        b[25] = u8::from(self.adj);
        b
    }

    pub fn decode(b: &[u8; RECORD_BYTES]) -> KeyedOcc {
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        KeyedOcc {
            key: u128::from_be_bytes(b[..16].try_into().expect("16 bytes")),
            game: u32::from_le_bytes(b[16..20].try_into().expect("4 bytes")),
            rank: u16_at(20),
            code: u16_at(22),
            mover: b[24],
            adj: b[25] != 0,
        }
    }
}

/// Bytes of one record in a file.
pub const RECORD_BYTES: usize = 26;

/// A stream of occurrences in (key, game) order.
pub type OccStream<'a> = Box<dyn Iterator<Item = Result<KeyedOcc>> + Send + 'a>;

/// Writes records to a file.
pub struct SortedWriter {
    path: PathBuf,
    out: BufWriter<File>,
    written: u64,
    last: Option<(u128, u32)>,
}

impl SortedWriter {
    pub fn create(path: &Path) -> Result<SortedWriter> {
        let f = File::create(path).map_err(|e| io_error(path, e))?;
        Ok(SortedWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, f),
            written: 0,
            last: None,
        })
    }

    /// Appends one record; they must come in (key, game) order.
    pub fn push(&mut self, o: &KeyedOcc) -> Result<()> {
        let at = (o.key, o.game);
        if self.last.is_some_and(|l| l > at) {
            return Err(Error::Corrupt(format!(
                "{}: occurrences out of order",
                self.path.display()
            )));
        }
        self.last = Some(at);
        self.written += 1;
        self.out
            .write_all(&o.encode())
            .map_err(|e| io_error(&self.path, e))
    }

    /// Flushes the file; returns the records written.
    pub fn finish(mut self) -> Result<u64> {
        self.out.flush().map_err(|e| io_error(&self.path, e))?;
        Ok(self.written)
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Input(format!("{}: {e}", path.display()))
}

/// Reads the records of files one after the other (each file's keys all after the one
/// before's, as a sort's partitions or a segment's two halves are).
pub fn read_files(paths: Vec<PathBuf>) -> OccStream<'static> {
    Box::new(FileChain {
        paths: paths.into_iter(),
        current: None,
    })
}

struct FileChain {
    paths: std::vec::IntoIter<PathBuf>,
    current: Option<(PathBuf, BufReader<File>, u64)>,
}

impl Iterator for FileChain {
    type Item = Result<KeyedOcc>;

    fn next(&mut self) -> Option<Result<KeyedOcc>> {
        loop {
            if self.current.is_none() {
                let path = self.paths.next()?;
                match File::open(&path) {
                    Ok(f) => self.current = Some((path, BufReader::with_capacity(1 << 20, f), 0)),
                    Err(e) => {
                        self.paths = Vec::new().into_iter();
                        return Some(Err(io_error(&path, e)));
                    }
                }
            }
            let (path, r, at) = self.current.as_mut().expect("opened above");
            let mut b = [0u8; RECORD_BYTES];
            match r.read_exact(&mut b) {
                Ok(()) => {
                    *at += RECORD_BYTES as u64;
                    return Some(Ok(KeyedOcc::decode(&b)));
                }
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                    let len = std::fs::metadata(&*path).map(|m| m.len()).unwrap_or(0);
                    if len != *at {
                        let path = path.clone();
                        let at = *at;
                        self.current = None;
                        self.paths = Vec::new().into_iter();
                        return Some(Err(Error::Corrupt(format!(
                            "{}: cut short at byte {} (records are {RECORD_BYTES} bytes)",
                            path.display(),
                            at
                        ))));
                    }
                    self.current = None;
                }
                Err(e) => {
                    let e = io_error(path, e);
                    self.current = None;
                    self.paths = Vec::new().into_iter();
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Merges sorted streams into one (a k-way merge: each stream's next record in a heap; of
/// equal (key, game), the earlier stream's first).
pub fn merge_streams<'a>(streams: Vec<OccStream<'a>>) -> OccStream<'a> {
    if streams.len() == 1 {
        return streams.into_iter().next().expect("one stream");
    }
    Box::new(KMerge {
        streams,
        heap: BinaryHeap::new(),
        started: false,
        failed: false,
    })
}

struct KMerge<'a> {
    streams: Vec<OccStream<'a>>,
    heap: BinaryHeap<std::cmp::Reverse<(u128, u32, usize, Packed)>>,
    started: bool,
    failed: bool,
}

/// A record kept in the heap beside its sort key (its encoded bytes, ordered but never
/// compared before the stream index is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Packed([u8; RECORD_BYTES]);

impl KMerge<'_> {
    fn refill(&mut self, i: usize) -> Result<()> {
        if let Some(next) = self.streams[i].next() {
            let o = next?;
            self.heap
                .push(std::cmp::Reverse((o.key, o.game, i, Packed(o.encode()))));
        }
        Ok(())
    }
}

impl Iterator for KMerge<'_> {
    type Item = Result<KeyedOcc>;

    fn next(&mut self) -> Option<Result<KeyedOcc>> {
        if self.failed {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.streams.len() {
                if let Err(e) = self.refill(i) {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let std::cmp::Reverse((_, _, i, packed)) = self.heap.pop()?;
        if let Err(e) = self.refill(i) {
            self.failed = true;
            return Some(Err(e));
        }
        Some(Ok(KeyedOcc::decode(&packed.0)))
    }
}

/// Groups a sorted stream by key: calls `f` with each key's occurrences (in game order).
pub fn for_each_key(
    stream: OccStream<'_>,
    mut f: impl FnMut(u128, &[KeyedOcc]) -> Result<()>,
) -> Result<()> {
    let mut group: Vec<KeyedOcc> = Vec::new();
    let mut last: Option<(u128, u32)> = None;
    for o in stream {
        let o = o?;
        if let Some((k, g)) = last {
            if (o.key, o.game) < (k, g) {
                return Err(Error::Corrupt(format!(
                    "occurrences out of order: key {:032x} game {} after key {k:032x} game {g}",
                    o.key, o.game
                )));
            }
            if o.key != k {
                f(k, &group)?;
                group.clear();
            }
        }
        last = Some((o.key, o.game));
        group.push(o);
    }
    if let Some((k, _)) = last {
        f(k, &group)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(key: u128, game: u32) -> KeyedOcc {
        KeyedOcc {
            key,
            game,
            rank: (game % 7) as u16,
            code: 300 + game as u16,
            mover: (game % 2) as u8,
            adj: game.is_multiple_of(3),
        }
    }

    #[test]
    fn records_round_trip_through_files_and_merge_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let a: Vec<KeyedOcc> = vec![occ(1, 4), occ(5, 2), occ(u128::MAX, 1)];
        let b: Vec<KeyedOcc> = vec![occ(1, 2), occ(5, 9), occ(1 << 100, 3)];
        let mut paths = Vec::new();
        for (i, part) in [&a, &b].iter().enumerate() {
            let p = dir.path().join(format!("{i}.occ"));
            let mut w = SortedWriter::create(&p).unwrap();
            for o in part.iter() {
                w.push(o).unwrap();
            }
            assert_eq!(w.finish().unwrap(), 3);
            paths.push(p);
        }
        let streams = paths.iter().map(|p| read_files(vec![p.clone()])).collect();
        let merged: Vec<KeyedOcc> = merge_streams(streams).map(|o| o.unwrap()).collect();
        let mut expected: Vec<KeyedOcc> = a.iter().chain(&b).copied().collect();
        expected.sort_by_key(|o| (o.key, o.game));
        assert_eq!(merged, expected);
        let mut groups = Vec::new();
        for_each_key(Box::new(expected.into_iter().map(Ok)), |k, g| {
            groups.push((k, g.iter().map(|o| o.game).collect::<Vec<_>>()));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            groups,
            vec![
                (1, vec![2, 4]),
                (5, vec![2, 9]),
                (1 << 100, vec![3]),
                (u128::MAX, vec![1])
            ]
        );
    }

    #[test]
    fn a_file_out_of_order_or_cut_short_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.occ");
        let mut w = SortedWriter::create(&p).unwrap();
        w.push(&occ(9, 1)).unwrap();
        assert!(w.push(&occ(3, 1)).is_err());
        w.finish().unwrap();
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.truncate(RECORD_BYTES - 3);
        std::fs::write(&p, &bytes).unwrap();
        let got: Vec<Result<KeyedOcc>> = read_files(vec![p.clone()]).collect();
        let err = got[0].as_ref().unwrap_err().to_string();
        assert!(err.contains("x.occ") && err.contains("cut short"), "{err}");
        let unordered = vec![Ok(occ(9, 1)), Ok(occ(3, 1))];
        let e = for_each_key(Box::new(unordered.into_iter()), |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("out of order"), "{e}");
    }
}
