//! The rare occurrences of an import's segments, spilled to disk sorted by whole key, so
//! that the segments' runs merge into one at the end without replaying a game
//! (`index::merge::merge_sorted`), when the import is asked to (`ImportOptions::merge_sorted`).
//! It spills from its first segment that fills the index memory (an import of one segment
//! has nothing to merge and spills nothing); the
//! files live in the database directory's `spill/` and are removed when the merge is done
//! (or by the next import, after a crash: the runs themselves are committed, and a merge
//! that replays joins them then).

use std::path::PathBuf;

use crate::index::load_runs;
use crate::index::merge::assemble::Games;
use crate::index::record::Occ;
use crate::index::sorted::{KeyedOcc, OccStream, SortedWriter, merge_streams, read_files};
use crate::trace::trace;
use crate::{Database, Error, Result};

/// The spill of one import.
pub(crate) struct Spill {
    dir: PathBuf,
    /// The first spilled game, and the counted positions of each game from it on.
    first: Option<u32>,
    counts: Vec<u32>,
    /// Each spilled segment's run and its two files (lower and upper half of the keys).
    segments: Vec<(u32, [PathBuf; 2])>,
}

/// Where a database's spill files go.
fn spill_dir(db: &Database) -> PathBuf {
    db.dir().join("spill")
}

/// Removes what a killed import left behind.
pub(crate) fn clear_stale(db: &Database) -> Result<()> {
    let dir = spill_dir(db);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::Input(format!("{}: {e}", dir.display()))),
    }
}

impl Spill {
    pub(crate) fn new(db: &Database) -> Result<Spill> {
        clear_stale(db)?;
        let dir = spill_dir(db);
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?;
        Ok(Spill {
            dir,
            first: None,
            counts: Vec::new(),
            segments: Vec::new(),
        })
    }

    /// Writes a segment's rare occurrences while its run is built: `build` gets the two
    /// sinks (see `index::build::RareSinks`) and returns what it built.
    pub(crate) fn segment<T>(
        &mut self,
        run_id: u32,
        first_game: u32,
        occs: &[Occ],
        plies: &[u16],
        build: impl FnOnce(crate::index::build::RareSinks<'_, '_>) -> T,
    ) -> Result<T> {
        if occs.len() != plies.len() {
            return Err(Error::Corrupt("a segment to spill has no plies".into()));
        }
        // Where each game's positions start among the segment's (games are in order).
        let mut starts: Vec<u32> = Vec::new();
        for (i, o) in occs.iter().enumerate() {
            let g = (o.game - first_game) as usize;
            while starts.len() <= g {
                starts.push(i as u32);
            }
        }
        let at = self.first.get_or_insert(first_game);
        let expected = *at as usize + self.counts.len();
        if expected != first_game as usize {
            return Err(Error::Corrupt(format!(
                "spilled segments not in a row: game {first_game} after {expected}"
            )));
        }
        for (g, &s) in starts.iter().enumerate() {
            let end = starts.get(g + 1).copied().unwrap_or(occs.len() as u32);
            self.counts.push(end - s);
        }
        let paths = [0, 1].map(|h| self.dir.join(format!("run-{run_id}-{h}.occ")));
        let mut writers = [
            Some(SortedWriter::create(&paths[0])?),
            Some(SortedWriter::create(&paths[1])?),
        ];
        let at = Placing {
            occs,
            plies,
            starts: &starts,
            first_game,
        };
        let [w0, w1] = &mut writers;
        let (mut e0, mut e1) = (None, None);
        let (mut s0, mut s1) = (
            |ix: u32| at.put(ix, w0.as_mut().expect("open"), &mut e0),
            |ix: u32| at.put(ix, w1.as_mut().expect("open"), &mut e1),
        );
        let built = build([&mut s0, &mut s1]);
        if let Some(e) = e0.or(e1) {
            return Err(e);
        }
        for w in writers.into_iter().flatten() {
            w.finish()?;
        }
        self.segments.push((run_id, paths));
        Ok(built)
    }
}

/// What turns a segment's occurrence (by its index) into a spilled record.
struct Placing<'a> {
    occs: &'a [Occ],
    plies: &'a [u16],
    /// Where each game's positions start among the segment's.
    starts: &'a [u32],
    first_game: u32,
}

impl Placing<'_> {
    fn put(&self, ix: u32, w: &mut SortedWriter, err: &mut Option<Error>) {
        if err.is_some() {
            return;
        }
        let (i, occs, plies) = (ix as usize, self.occs, self.plies);
        let o = occs[i];
        let rank = ix - self.starts[(o.game - self.first_game) as usize];
        let Ok(rank) = u16::try_from(rank) else {
            *err = Some(Error::Usage(format!(
                "game {} counts more than 65,536 positions",
                { o.game }
            )));
            return;
        };
        let adj = i + 1 < occs.len()
            && occs[i + 1].game == o.game
            && plies[i + 1] == plies[i].wrapping_add(1);
        let rec = KeyedOcc {
            key: o.key,
            game: o.game,
            rank,
            code: o.code,
            mover: o.mover,
            adj,
        };
        if let Err(e) = w.push(&rec) {
            *err = Some(e);
        }
    }
}

impl Spill {
    /// Merges the spilled segments' runs into one (when there are several), then removes
    /// the files. Returns whether it merged.
    pub(crate) fn merge(self, db: &Database) -> Result<bool> {
        let t = std::time::Instant::now();
        let merged = self.merge_runs(db);
        let removed = std::fs::remove_dir_all(&self.dir);
        let merged = merged?;
        removed.map_err(|e| Error::Input(format!("{}: {e}", self.dir.display())))?;
        trace("spilled segments merged", t);
        Ok(merged)
    }

    fn merge_runs(&self, db: &Database) -> Result<bool> {
        if self.segments.len() < 2 {
            return Ok(false);
        }
        let runs = {
            let read = db.store.read()?;
            load_runs(&read)?
        };
        let wanted: Vec<u32> = self.segments.iter().map(|s| s.0).collect();
        let parts: Vec<_> = runs
            .into_iter()
            .filter(|r| wanted.contains(&r.id))
            .collect();
        if parts.len() != wanted.len() {
            return Err(Error::Corrupt("a spilled segment's run is missing".into()));
        }
        let games = Games {
            first: self.first.unwrap_or(0),
            counts: &self.counts,
        };
        let files: Vec<[PathBuf; 2]> = self.segments.iter().map(|s| s.1.clone()).collect();
        let open = move || -> Result<OccStream<'static>> {
            Ok(merge_streams(
                files.iter().map(|f| read_files(f.to_vec())).collect(),
            ))
        };
        crate::compact::merge_sorted(db, &parts, &games, &open)?;
        Ok(true)
    }
}
