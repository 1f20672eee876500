//! `Database::import_wthor`: WTHOR `.wtb` files (with their `.jou`/`.trn` names) into an
//! Othello database.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tabiya_othello::wthor::{self, BoardSize, GameFile, Header, NameFile, NameKind};

use crate::game::{Dict, Occurrence};
use crate::import::{
    Batch, FileSummary, ImportOptions, ImportProgress, ImportSummary, Problem,
    commit_batch_with_plies,
};
use crate::index::Occ;
use crate::othello::keys::occurrences;
use crate::othello::names::{
    NameChange, NamesFileReport, NamesReport, WTHOR, WthorNames, created, name_key,
    names_header_key, year_header_key,
};
use crate::othello::stored::{MAX_MOVES, StoredGame};
use crate::{Database, Error, Kind, Result, meta_u64};

/// Where the names of imported games come from.
#[derive(Debug, Clone, Default)]
pub struct NameSources {
    /// The `.jou` file for every game file; `None` = the one beside each game file.
    pub jou: Option<PathBuf>,
    /// The `.trn` file for every game file; `None` = the one beside each game file.
    pub trn: Option<PathBuf>,
}

/// What a WTHOR import did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WthorImportSummary {
    #[serde(flatten)]
    pub summary: ImportSummary,
    /// Imported games that stop before the end (stored and indexed; their result is the
    /// stored, adjudicated score).
    pub unfinished: u64,
    /// Games whose disc counts were impossible (more than the board's 64 squares): stored
    /// with the count of the game replayed instead, each with a warning in the problems.
    #[serde(default)]
    pub scores_replaced: u64,
    /// Years of the games read.
    pub years: Vec<u16>,
    pub names: NamesReport,
}

/// The names file of `kind` (`.jou` players, `.trn` tournaments) that the games of
/// `game_file` are read with: the one `names` gives for every file, else the one beside it
/// ([`wthor::find_names_file`]), or why none was found. The one definition, for the import
/// by paths and for a hand-over (whose command finds the files to send by it).
pub fn names_file_of(
    game_file: &Path,
    names: &NameSources,
    kind: NameKind,
) -> std::result::Result<PathBuf, String> {
    let explicit = match kind {
        NameKind::Players => &names.jou,
        NameKind::Tournaments => &names.trn,
    };
    if let Some(p) = explicit {
        return Ok(p.clone());
    }
    let dir = game_file.parent().unwrap_or(Path::new(""));
    wthor::find_names_file(dir, kind).map_err(|e| e.to_string())
}

/// Where an import's WTHOR files are read from: files on this machine by their paths
/// ([`WthorPaths`]), or the bytes a hand-over received ([`WthorReceived`]). Every file is
/// known by its name as the user gave it, which every message gives.
pub trait WthorInputs {
    /// The game files (`.wtb`, `.wtd`), by name.
    fn files(&self) -> &[PathBuf];
    /// Game file `i` read (within [`GameFile::limit`]) and its size in bytes, or why it
    /// cannot be read.
    fn game_file(&mut self, i: usize) -> std::result::Result<(GameFile, u64), String>;
    /// The names file of `kind` game file `i` is read with ([`names_file_of`]), or why none
    /// was found.
    fn names_file_of(&self, i: usize, kind: NameKind) -> std::result::Result<PathBuf, String>;
    /// The names file `path` (one [`WthorInputs::names_file_of`] gave) read, or why not.
    fn names_file(&mut self, path: &Path, kind: NameKind) -> std::result::Result<NameFile, String>;
}

/// WTHOR files on this machine, read by their paths.
pub struct WthorPaths<'a> {
    pub files: &'a [PathBuf],
    pub names: &'a NameSources,
}

impl WthorInputs for WthorPaths<'_> {
    fn files(&self) -> &[PathBuf] {
        self.files
    }

    fn game_file(&mut self, i: usize) -> std::result::Result<(GameFile, u64), String> {
        let path = &self.files[i];
        let file = GameFile::read(path).map_err(|e| e.to_string())?;
        Ok((file, std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)))
    }

    fn names_file_of(&self, i: usize, kind: NameKind) -> std::result::Result<PathBuf, String> {
        names_file_of(&self.files[i], self.names, kind)
    }

    fn names_file(&mut self, path: &Path, kind: NameKind) -> std::result::Result<NameFile, String> {
        NameFile::read(path, kind).map_err(|e| e.to_string())
    }
}

/// WTHOR files received whole (a hand-over: the command read them, within their bounds,
/// and found their names files by [`names_file_of`]); each known by the command's name.
#[derive(Debug, Default)]
pub struct WthorReceived {
    /// The game files' names.
    pub files: Vec<PathBuf>,
    /// Each game file's bytes, or why the command could not read it (taken when read).
    pub games: Vec<std::result::Result<Vec<u8>, String>>,
    /// For each game file, its players' and its tournaments' names file, or why none was
    /// found.
    pub names_of: Vec<[std::result::Result<PathBuf, String>; 2]>,
    /// The names files: name, kind, bytes (or why the command could not read them).
    pub names: Vec<(PathBuf, NameKind, std::result::Result<Vec<u8>, String>)>,
}

impl WthorInputs for WthorReceived {
    fn files(&self) -> &[PathBuf] {
        &self.files
    }

    fn game_file(&mut self, i: usize) -> std::result::Result<(GameFile, u64), String> {
        let bytes = std::mem::replace(&mut self.games[i], Err("read twice".into()))?;
        let file = GameFile::parse(&bytes, &self.files[i]).map_err(|e| e.to_string())?;
        Ok((file, bytes.len() as u64))
    }

    fn names_file_of(&self, i: usize, kind: NameKind) -> std::result::Result<PathBuf, String> {
        let k = usize::from(kind == NameKind::Tournaments);
        self.names_of
            .get(i)
            .map_or_else(|| Err("no names file was sent".into()), |n| n[k].clone())
    }

    fn names_file(&mut self, path: &Path, kind: NameKind) -> std::result::Result<NameFile, String> {
        let (_, _, bytes) = self
            .names
            .iter()
            .find(|(p, k, _)| p == path && *k == kind)
            .ok_or_else(|| format!("{}: the names file was not sent", path.display()))?;
        let bytes = bytes.as_ref().map_err(Clone::clone)?;
        NameFile::parse(bytes, path, kind).map_err(|e| e.to_string())
    }
}

fn skip(summary: &mut ImportSummary, file: usize, kind: &str, problem: Problem) {
    summary.skipped += 1;
    summary.files[file].skipped += 1;
    *summary
        .skipped_by_reason
        .entry(kind.to_string())
        .or_default() += 1;
    summary.problems.push(problem);
}

impl Database {
    /// Imports WTHOR `.wtb` files into an Othello database: stores the games, indexes every
    /// position, and stores the `.jou`/`.trn` names (beside each file, or the ones given) keyed
    /// by WTHOR id — ids already stored keep their names unless a newer names file spells them
    /// differently (reported in [`NamesReport::changed`]). Games with an undecodable move byte
    /// or an illegal move are skipped and reported (file, game, offset); games equal to a
    /// stored game are skipped as duplicates; unfinished games are stored and indexed.
    pub fn import_wthor(
        &self,
        files: &[PathBuf],
        names: &NameSources,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<WthorImportSummary> {
        self.import_wthor_from(&mut WthorPaths { files, names }, opts, progress)
    }

    /// [`Database::import_wthor`] from files wherever they are ([`WthorInputs`]).
    pub fn import_wthor_from(
        &self,
        inputs: &mut dyn WthorInputs,
        opts: &ImportOptions,
        progress: &ImportProgress,
    ) -> Result<WthorImportSummary> {
        let files = inputs.files().to_vec();
        if self.kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is a {} database: WTHOR files can only go into an Othello database (use another --db)",
                self.dir().display(),
                self.kind().as_str()
            )));
        }
        if opts.structures {
            return Err(Error::Usage(crate::shapes::structures_are_for_chess(
                self.dir(),
            )));
        }
        let started = Instant::now();
        let mut out = WthorImportSummary {
            summary: ImportSummary {
                files: files
                    .iter()
                    .map(|f| FileSummary {
                        file: f.display().to_string(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            },
            ..Default::default()
        };
        // Read the game files and find their names files.
        let mut game_files: Vec<(usize, GameFile)> = Vec::new();
        let mut name_paths: BTreeSet<(PathBuf, u8)> = BTreeSet::new();
        for (i, path) in files.iter().enumerate() {
            let file_problem = |reason: String| Problem {
                file: path.display().to_string(),
                line: 0,
                game: 0,
                row: None,
                reason,
            };
            match inputs.game_file(i) {
                Ok((f, _)) if f.board == BoardSize::Ten => {
                    out.summary.problems.push(file_problem(format!(
                        "{}: a 10×10 game file; Tabiya's Othello database is 8×8 only (file skipped)",
                        path.display()
                    )));
                }
                Ok((f, bytes)) => {
                    for p in &f.problems {
                        out.summary.problems.push(file_problem(p.to_string()));
                    }
                    out.summary.files[i].bytes = bytes;
                    for (kind, tag) in [(NameKind::Players, 0u8), (NameKind::Tournaments, 1u8)] {
                        match inputs.names_file_of(i, kind) {
                            Ok(p) => {
                                name_paths.insert((p, tag));
                            }
                            Err(e) => out.summary.problems.push(file_problem(format!(
                                "{e}; the games are imported without these names"
                            ))),
                        }
                    }
                    game_files.push((i, f));
                }
                Err(e) => out
                    .summary
                    .problems
                    .push(file_problem(format!("{e} (file skipped)"))),
            }
        }
        let mut name_files = Vec::new();
        for (p, tag) in &name_paths {
            let kind = if *tag == 0 {
                NameKind::Players
            } else {
                NameKind::Tournaments
            };
            match inputs.names_file(p, kind) {
                Ok(f) => {
                    for problem in &f.problems {
                        out.summary.problems.push(Problem {
                            file: p.display().to_string(),
                            line: 0,
                            game: 0,
                            row: None,
                            reason: problem.to_string(),
                        });
                    }
                    name_files.push(f);
                }
                Err(e) => out.summary.problems.push(Problem {
                    file: p.display().to_string(),
                    line: 0,
                    game: 0,
                    row: None,
                    reason: e,
                }),
            }
        }
        apply_names(self, &name_files, &mut out.names)?;
        store_year_headers(
            self,
            &game_files.iter().map(|(_, f)| f.header).collect::<Vec<_>>(),
        )?;
        let years: BTreeSet<u16> = game_files.iter().map(|(_, f)| f.header.year).collect();
        out.years = years.into_iter().collect();

        let read = self.store.read()?;
        let mut next_game = meta_u64(&read, "next_game")?.max(1) as u32;
        let mut dedup = if opts.keep_duplicates {
            crate::keymap::KeyMap::default()
        } else {
            crate::facts::load_digests(&read)?
        };
        drop(read);

        // With the ply of every occurrence, rare positions are kept every other ply (found
        // through their successor's entry, see `run::build`).
        let (batch_tx, batch_rx) = crossbeam_channel::bounded::<(Batch, Vec<u16>)>(1);
        let batch_games = if opts.batch_games == 0 {
            crate::import::OTHELLO_BATCH_GAMES
        } else {
            opts.batch_games
        };
        std::thread::scope(|s| -> Result<()> {
            let writer = s.spawn(move || -> Result<()> {
                for (batch, plies) in batch_rx {
                    commit_batch_with_plies(self, batch, Some(plies))?;
                }
                Ok(())
            });
            let produced = (|| -> Result<()> {
                let mut batch = new_batch(next_game);
                let mut plies: Vec<u16> = Vec::new();
                let mut occs: Vec<Occurrence> = Vec::with_capacity(MAX_MOVES + 1);
                'files: for (fi, file) in &game_files {
                    let fi = *fi;
                    let name = file.path.display().to_string();
                    progress.reading.file_index.store(fi, Ordering::Relaxed);
                    if let Ok(mut n) = progress.reading.file_name.lock() {
                        n.clone_from(&name);
                    }
                    progress
                        .reading
                        .file_size
                        .store(out.summary.files[fi].bytes, Ordering::Relaxed);
                    let mut copies: HashMap<u128, u32> = HashMap::new();
                    for gi in 0..file.games.len() {
                        progress
                            .reading
                            .file_bytes
                            .store(file.record_offset(gi + 1) as u64, Ordering::Relaxed);
                        progress.games.fetch_add(1, Ordering::Relaxed);
                        out.summary.games += 1;
                        out.summary.files[fi].games += 1;
                        let offset = file.record_offset(gi);
                        let problem = |reason: String| Problem {
                            file: name.clone(),
                            line: 0,
                            game: gi as u64 + 1,
                            row: None,
                            reason,
                        };
                        let moves = match file.squares(gi) {
                            Ok(m) => m,
                            Err(e) => {
                                skip(
                                    &mut out.summary,
                                    fi,
                                    "bad move byte",
                                    problem(format!("{e} (game skipped)")),
                                );
                                continue;
                            }
                        };
                        let rec = &file.games[gi];
                        let (black_score, theoretical_score) =
                            match possible_scores(rec, &moves, &name, gi, offset) {
                                Some((scores, warnings)) => {
                                    out.scores_replaced += 1;
                                    out.summary.warnings += 1;
                                    for w in warnings {
                                        out.summary.problems.push(problem(w));
                                    }
                                    scores
                                }
                                None => (rec.black_score, rec.theoretical_score),
                            };
                        let game = StoredGame {
                            year: file.header.year,
                            tournament: rec.tournament,
                            black: rec.black,
                            white: rec.white,
                            black_score,
                            theoretical_score,
                            moves,
                        };
                        let base = game.digest(0);
                        let copy = copies.entry(base).or_insert(0);
                        let digest = if *copy == 0 { base } else { game.digest(*copy) };
                        *copy += 1;
                        if !opts.keep_duplicates && dedup.contains_key(&digest) {
                            out.summary.duplicates += 1;
                            out.summary.files[fi].duplicates += 1;
                            continue;
                        }
                        let last = match occurrences(&game.moves, &mut occs) {
                            Ok(b) => b,
                            Err(e) => {
                                let at = offset + 8 + e.index;
                                skip(
                                    &mut out.summary,
                                    fi,
                                    "illegal move",
                                    problem(format!(
                                        "{name}: game {gi} (record at offset {offset}): {e} at offset {at}, {} to move (game skipped)",
                                        e.board.side()
                                    )),
                                );
                                continue;
                            }
                        };
                        if !last.is_game_over() {
                            out.unfinished += 1;
                        }
                        let id = next_game;
                        next_game = next_game
                            .checked_add(1)
                            .ok_or_else(|| Error::Usage("database full (2^32 games)".into()))?;
                        if !opts.keep_duplicates {
                            dedup.insert(digest, id);
                        }
                        let mut record = Vec::with_capacity(12 + game.moves.len());
                        game.encode(&mut record);
                        batch.records.push(record);
                        batch.facts.push(game.facts());
                        batch.dedup.push((digest, id));
                        batch.occs.extend(occs.iter().map(|o| Occ {
                            key: o.key,
                            game: id,
                            code: o.code,
                            mover: o.mover,
                        }));
                        plies.extend(0..occs.len() as u16);
                        out.summary.imported += 1;
                        out.summary.files[fi].imported += 1;
                        progress.imported.fetch_add(1, Ordering::Relaxed);
                        if batch.records.len() >= batch_games {
                            let full = std::mem::replace(&mut batch, new_batch(next_game));
                            if batch_tx.send((full, std::mem::take(&mut plies))).is_err() {
                                break 'files;
                            }
                        }
                        if progress.reading.cancel.load(Ordering::Relaxed) {
                            out.summary.interrupted = true;
                            break 'files;
                        }
                    }
                }
                let _ = batch_tx.send((batch, plies));
                Ok(())
            })();
            drop(batch_tx);
            writer
                .join()
                .map_err(|_| Error::Corrupt("writer thread panicked".into()))??;
            produced
        })?;
        crate::compact::compact(self)?;
        let s = &mut out.summary;
        s.seconds = started.elapsed().as_secs_f64();
        s.games_per_second = if s.seconds > 0.0 {
            s.games as f64 / s.seconds
        } else {
            0.0
        };
        s.database_games = self.committed_game_count()?;
        Ok(out)
    }
}

/// Most discs a side can have: the board's 64 squares. A WTHOR score byte above it (black's
/// discs at the end, or the theoretical score: black's discs after perfect play from the
/// header's depth) is no count at all, and would skew every average it joined.
const SQUARES: u8 = 64;

/// The scores to store for a record holding an impossible one, and a warning for each
/// replaced; `None` when both are possible (or when the game cannot be replayed: it is
/// skipped for its illegal move). The count put in its place is black's on the game
/// replayed — to its end, empty squares to the winner, as WTHOR counts; for a record that
/// stops before the end, on the board where it stops, empty squares to the side ahead. The
/// theoretical score, perfect play from the last `depth` empty squares, is not computed:
/// the replayed count stands in for it, and the warning says so.
fn possible_scores(
    rec: &wthor::GameRecord,
    moves: &[tabiya_othello::Square],
    file: &str,
    game: usize,
    offset: usize,
) -> Option<((u8, u8), Vec<String>)> {
    if rec.black_score <= SQUARES && rec.theoretical_score <= SQUARES {
        return None;
    }
    let (outcome, _) = tabiya_othello::replay::replay_game(moves).ok()?;
    let count = outcome.score.0;
    let how = if outcome.finished {
        format!(
            "black's discs when the game is replayed to its end ({} moves; empty squares to the winner)",
            outcome.moves_played
        )
    } else {
        format!(
            "black's discs on the board where the record stops (unfinished after {} moves; empty squares to the side ahead — its adjudicated score is not known)",
            outcome.moves_played
        )
    };
    let at = |what: &str, byte: u8, place: usize| {
        format!(
            "{file}: game {game} (record at offset {offset}): {what} {byte} (byte at offset {}) is impossible, a board has {SQUARES} squares; stored as {count}, {how}",
            offset + place
        )
    };
    let mut warnings = Vec::new();
    let mut scores = (rec.black_score, rec.theoretical_score);
    if rec.black_score > SQUARES {
        warnings.push(at("black's disc count", rec.black_score, 6));
        scores.0 = count;
    }
    if rec.theoretical_score > SQUARES {
        warnings.push(format!(
            "{}: the score of perfect play from the header's depth is not computed, the count of the game as played stands in for it",
            at("the theoretical score", rec.theoretical_score, 7)
        ));
        scores.1 = count;
    }
    Some((scores, warnings))
}

fn new_batch(first_game: u32) -> Batch {
    Batch {
        first_game,
        records: Vec::new(),
        facts: Vec::new(),
        players: Vec::new(),
        occs: Vec::new(),
        dedup: Vec::new(),
        names: Vec::new(),
        ..Batch::default()
    }
}

/// Applies names files (in order of their creation dates, so the newest spelling wins whatever
/// the order given) and writes what changed, with the headers, in one transaction.
pub(crate) fn apply_names(
    db: &Database,
    files: &[NameFile],
    report: &mut NamesReport,
) -> Result<()> {
    let read = db.store.read()?;
    let mut stored = WthorNames::load(&read)?;
    drop(read);
    let mut order: Vec<&NameFile> = files.iter().collect();
    order.sort_by_key(|f| (created(&f.header), f.names.len()));
    let mut writes: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut dict: Vec<(Dict, u32, String)> = Vec::new();
    for f in order {
        let (list, header, label, d) = match f.kind {
            NameKind::Players => (
                &mut stored.players,
                &mut stored.jou_header,
                "player",
                Dict::Player,
            ),
            NameKind::Tournaments => (
                &mut stored.tournaments,
                &mut stored.trn_header,
                "tournament",
                Dict::Event,
            ),
        };
        let newer = header.is_none_or(|h| created(&f.header) >= created(&h));
        for (i, name) in f.names.iter().enumerate() {
            let Ok(id) = u16::try_from(i) else { break };
            match list.get(i) {
                Some(old) if old == name => {}
                Some(old) => {
                    if newer {
                        report.changed.push(NameChange {
                            kind: label.to_string(),
                            id,
                            old: old.text(),
                            new: name.text(),
                            file: f.path.display().to_string(),
                        });
                        list[i] = name.clone();
                        writes.push((name_key(f.kind, id).to_vec(), name.raw.clone()));
                        dict.push((d, id as u32, name.text()));
                    }
                }
                None => {
                    list.push(name.clone());
                    writes.push((name_key(f.kind, id).to_vec(), name.raw.clone()));
                    dict.push((d, id as u32, name.text()));
                    match f.kind {
                        NameKind::Players => report.players_added += 1,
                        NameKind::Tournaments => report.tournaments_added += 1,
                    }
                }
            }
        }
        if newer && *header != Some(f.header) {
            *header = Some(f.header);
            writes.push((
                names_header_key(f.kind).to_vec(),
                f.header.to_bytes().to_vec(),
            ));
        }
        report.files.push(NamesFileReport {
            file: f.path.display().to_string(),
            kind: f.kind,
            created: f.header.created(),
            names: f.names.len(),
            spellings_taken: newer,
        });
    }
    report.players = stored.players.len() as u64;
    report.tournaments = stored.tournaments.len() as u64;
    if writes.is_empty() {
        return Ok(());
    }
    let w = db.store.write()?;
    w.with_table(WTHOR, |t| {
        for (k, v) in &writes {
            t.put(k, v)?;
        }
        Ok(())
    })?;
    // The names also go in the common dictionaries (players, events), so `tabiya stats`
    // counts them.
    crate::names::write_names(&w, &dict)?;
    w.commit()?;
    db.committed();
    Ok(())
}

/// Stores the header of each year's file: the newest file of a year wins.
pub(crate) fn store_year_headers(db: &Database, headers: &[Header]) -> Result<()> {
    let read = db.store.read()?;
    let stored = WthorNames::load(&read)?.year_headers;
    drop(read);
    let mut best: BTreeMap<u16, Header> = stored.clone();
    for h in headers {
        if best.get(&h.year).is_none_or(|b| created(h) >= created(b)) {
            best.insert(h.year, *h);
        }
    }
    let changed: Vec<(u16, Header)> = best
        .into_iter()
        .filter(|(y, h)| stored.get(y) != Some(h))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    let w = db.store.write()?;
    w.with_table(WTHOR, |t| {
        for (y, h) in &changed {
            t.put(&year_header_key(*y), &h.to_bytes())?;
        }
        Ok(())
    })?;
    w.commit()?;
    db.committed();
    Ok(())
}
