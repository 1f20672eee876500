//! Keeping the structure index: whether a database keeps it, and building it for the games
//! no shape segment covers (`tabiya db structures`; imports then keep it for their games).

use tabiya_store::{ReadTx, WriteTx};

use super::keys::GameShapes;
use super::rows::{read_segments, write_segment};
use super::uncovered;
use crate::chess::stored::decode_line;
use crate::records::Records;
use crate::schema::{META, meta_get};
use crate::{Database, Error, Kind, Result};

/// The meta key saying the database keeps the structure index.
const KEEPS: &str = "shapes";

/// Games indexed per transaction by [`Database::build_structure_index`].
const CHUNK_IDS: u32 = 250_000;

/// What building the structure index did.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct StructuresBuilt {
    /// Games read and indexed (those no segment covered).
    pub games: u64,
    /// Shape segments written.
    pub segments: u64,
    /// Games added to the square index (those no square segment covered, or whose segment
    /// was written as segments no longer are).
    pub squared: u64,
    /// The shape statistics: counted again, or as they were counted before.
    pub statistics: super::ShapeStatsCounted,
    /// Whether they were counted again (not when they counted every stored game already
    /// and no game was indexed now).
    pub recounted: bool,
}

/// Whether the database read by `read` keeps the structure index.
pub(crate) fn kept(read: &ReadTx) -> Result<bool> {
    Ok(meta_get(read, KEEPS)?.as_deref() == Some("1"))
}

/// Marks the database as keeping the structure index (in `w`, with a segment).
pub(crate) fn mark_kept(w: &WriteTx) -> Result<()> {
    w.with_table(META, |t| t.put(KEEPS.as_bytes(), b"1"))?;
    Ok(())
}

impl Database {
    /// Whether the database keeps the structure index (imports then add to it).
    pub fn keeps_structures(&self) -> Result<bool> {
        kept(&self.store.read()?)
    }

    /// Builds the structure index of every stored game no shape segment covers, in
    /// transactions of [`CHUNK_IDS`] ids (killed, it is run again to finish), and marks the
    /// database as keeping it. `progress(done, total)` after each transaction.
    pub fn build_structure_index(
        &self,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<StructuresBuilt> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(super::structures_are_for_chess(self.dir())));
        }
        let read = self.store.read()?;
        let end = Records::new(&read)?.ids_end()?;
        let mut segs = read_segments(&read)?;
        segs.sort_by_key(|s| s.first);
        let ranges = uncovered(segs.iter().map(|s| (s.first, s.end)), end);
        let total: u64 = ranges.iter().map(|(a, b)| u64::from(b - a)).sum();
        let mut built = StructuresBuilt::default();
        let mut done = 0;
        for (a, b) in ranges {
            let mut from = a;
            while from < b {
                let to = from.saturating_add(CHUNK_IDS).min(b);
                let (mut pairs, games) = shapes_of(&read, from, to)?;
                let w = self.store.write()?;
                write_segment(&w, from, to, &mut pairs)?;
                mark_kept(&w)?;
                w.commit()?;
                self.committed();
                built.games += games;
                built.segments += 1;
                done += u64::from(to - from);
                progress(done, total);
                from = to;
            }
        }
        if built.segments == 0 && !self.keeps_structures()? {
            let w = self.store.write()?;
            mark_kept(&w)?;
            w.commit()?;
            self.committed();
        }
        built.squared = self.build_square_index(true)?;
        let kept = match built.games {
            0 => self.shape_stats_current()?,
            _ => None,
        };
        (built.statistics, built.recounted) = match kept {
            Some(counted) => (counted, false),
            None => (self.count_shape_stats()?, true),
        };
        Ok(built)
    }
}

/// (entry, game) pairs, and the games they are of.
type Shapes = (Vec<(u64, u32)>, u64);

/// The shapes of the stored games with ids in `from..to`, read on every core: (entry, game)
/// pairs, and how many games (what `tabiya check` compares a segment's rows with).
pub(crate) fn shapes_of(read: &ReadTx, from: u32, to: u32) -> Result<Shapes> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let share = crate::workers::id_shares(from, to, workers);
    let parts: Vec<Result<Shapes>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|i| {
                let read = read.clone();
                let (a, b) = share(i);
                s.spawn(move || -> Result<Shapes> {
                    let mut out = Vec::new();
                    let mut entries = Vec::new();
                    let mut games = 0;
                    if a < b {
                        Records::new(&read)?.scan_range(a, Some(b), |id, raw| {
                            let (start, _, line, _) = decode_line(raw)
                                .map_err(|e| Error::Corrupt(format!("game {id}: {e}")))?;
                            let mut shapes = GameShapes::default();
                            let mut pos = start;
                            entries.clear();
                            shapes.position(shakmaty::Position::board(&pos), &mut entries);
                            for m in &line {
                                shakmaty::Position::play_unchecked(&mut pos, *m);
                                shapes.position(shakmaty::Position::board(&pos), &mut entries);
                            }
                            out.extend(entries.iter().map(|&e| (e, id)));
                            games += 1;
                            Ok(true)
                        })?;
                    }
                    Ok((out, games))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Corrupt("a structure index worker failed".into()))
                })
            })
            .collect()
    });
    let mut all = Vec::new();
    let mut games = 0;
    for p in parts {
        let (pairs, n) = p?;
        all.extend(pairs);
        games += n;
    }
    Ok((all, games))
}
