//! Loading a cluster build: the games stored (already without duplicates, in id order)
//! with no index, then their one run assembled from every occurrence of every game, sorted
//! by whole key elsewhere (Spark) — the same assembly that merges an import's spilled
//! segments, with no T records to join.

use crate::import::{ImportOptions, ImportProgress, ImportSummary, Source};
use crate::index::merge::assemble::{Games, assemble};
use crate::index::sorted::OccStream;
use crate::index::writer::RunWriter;
use crate::index::{SKETCHES, put_run, run_key};
use crate::{Database, Error, Kind, META, Result, meta_u64};

impl Database {
    /// Loads games and their sorted occurrences into this new database: `games` are the
    /// games' PGN in id order, `positions` each one's counted positions, and `open` streams
    /// every counted position of every game in (key, game) order (it is called twice).
    /// Refused when the database holds games; an error when a game is not taken as given
    /// (rejected, or counted differently), naming it.
    pub fn load_sorted(
        &self,
        games: Vec<Source>,
        positions: &[u32],
        open: &dyn Fn() -> Result<OccStream<'static>>,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<ImportSummary> {
        if self.kind() != Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is an Othello database: a cluster build loads into a chess database",
                self.dir().display()
            )));
        }
        let held = self.committed_game_count()?;
        if held > 0 {
            return Err(Error::Usage(format!(
                "{} holds {held} games: a cluster build loads into a new database",
                self.dir().display()
            )));
        }
        let first = {
            let read = self.store.read()?;
            meta_u64(&read, "next_game")?.max(1) as u32
        };
        let opts = ImportOptions {
            keep_duplicates: true,
            build_index: false,
            ..opts.clone()
        };
        let mut summary = self.import_sources(games, &opts, progress)?;
        if let Some(p) = summary.problems.first() {
            return Err(Error::Input(format!(
                "{} game {} (line {}): {} — the cluster build took this game; is the tabiya that built it another version?",
                p.file, p.game, p.line, p.reason
            )));
        }
        if summary.imported != positions.len() as u64 {
            return Err(Error::Input(format!(
                "{} games stored where the build lists {}",
                summary.imported,
                positions.len()
            )));
        }
        let t = std::time::Instant::now();
        progress
            .indexing
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let written = self.write_sorted_run(first, positions, open);
        progress
            .indexing
            .store(false, std::sync::atomic::Ordering::Relaxed);
        written?;
        summary.runs_written = 1;
        summary.seconds += t.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// The run of games `first..` assembled from their sorted occurrences, in one
    /// transaction.
    fn write_sorted_run(
        &self,
        first: u32,
        positions: &[u32],
        open: &dyn Fn() -> Result<OccStream<'static>>,
    ) -> Result<()> {
        let _lock = self.lock_changes();
        let read = self.store.read()?;
        let run_id = meta_u64(&read, "next_run")? as u32;
        let w = self.store.write()?;
        let mut rw = RunWriter::new(&w, run_id, positions.len() as u64)?;
        let games = Games {
            first,
            counts: positions,
        };
        let done = assemble(&mut rw, &read, &games, None, open, true)?;
        let mut dir = rw.finish()?;
        dir.implicit = done.implicit;
        dir.complete = true;
        put_run(&w, run_id, &dir)?;
        w.with_table(SKETCHES, |t| t.put(&run_key(run_id), &done.sketch.encode()))?;
        w.with_table(META, |t| {
            t.put(b"next_run", (run_id + 1).to_string().as_bytes())
        })?;
        w.commit()?;
        self.committed();
        Ok(())
    }
}
