//! Answering positions: statistics of every move, top games, and every game that reaches a
//! position by any move order.

use std::collections::HashMap;

use tabiya_store::{ReadTx, TableRef};

use crate::chess::{self, NO_MOVE};
use crate::facts::FactsReader;
use crate::merge::Replayer;
use crate::names::StoreNames;
use crate::run::{self, BLOCKS, POSTINGS, RunDir, TOP_GAMES};
use crate::stats::{GameFacts, Stats};
use crate::{Database, Error, Result, load_runs};

/// What the index knows of one position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionStats {
    /// Totals of the position (all games reaching it, wherever they went next).
    pub totals: Stats,
    /// Statistics per move code, [`NO_MOVE`] for games that ended here. Sorted by games,
    /// most first.
    pub moves: Vec<(u16, Stats)>,
    /// Best-rated games reaching the position, with the move each played.
    pub top_games: Vec<(u32, u16)>,
}

/// How to order a game list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameSort {
    /// Mean rating, highest first (unrated last), then newest.
    Rating,
    /// Date, newest first.
    Date,
    /// Game id (import order).
    Id,
}

/// A consistent view of the database for queries (one read transaction).
pub struct Snapshot<'a> {
    db: &'a Database,
    read: ReadTx,
    runs: Vec<RunDir>,
    blocks: TableRef,
    postings: TableRef,
    facts: FactsReader,
    replayer: Replayer<'a>,
    names: StoreNames,
    /// [`READ_POSTINGS_UP_TO`] (tests lower it to check the other way gives the same).
    read_postings_up_to: u64,
    /// Whether a complete T record ([`RunDir::complete_for`]) is taken as the whole answer
    /// of its run (tests turn it off to check that looking further finds nothing more).
    use_complete: bool,
}

impl Database {
    /// Opens a query snapshot.
    pub fn snapshot(&self) -> Result<Snapshot<'_>> {
        let read = self.store.read()?;
        let runs = load_runs(&read)?;
        Ok(Snapshot {
            db: self,
            runs,
            blocks: read.table(BLOCKS)?,
            postings: read.table(POSTINGS)?,
            facts: FactsReader::new(&read)?,
            replayer: Replayer {
                games: crate::records::Records::new(&read)?,
                db: self,
            },
            names: StoreNames::new(&read)?,
            read,
            read_postings_up_to: READ_POSTINGS_UP_TO,
            use_complete: true,
        })
    }
}

/// T records with at most this many games have their list read when an S entry of the same
/// run leads to the position too (cheaper than replaying whole games to tell without it).
const READ_POSTINGS_UP_TO: u64 = 20_000;

/// The positions one legal move away from an asked one: given, or computed from it only
/// when a run needs them (a complete T record answers without).
#[derive(Clone, Copy)]
enum Next<'p> {
    Keys(&'p [u128]),
    Of(&'p shakmaty::Chess),
}

/// Games of one position found in one run.
struct Found {
    stats: HashMap<u16, Stats>,
    top: Vec<(u32, u16)>,
    /// All games, when asked for.
    all: Vec<(u32, u16)>,
}

impl Found {
    /// Counts game `g`, which played `o.code` at the position.
    fn add_game(&mut self, facts: GameFacts, g: u32, o: chess::Occurrence, want_all: bool) {
        self.stats
            .entry(o.code)
            .or_default()
            .add_game(&facts, o.mover);
        self.top.push((g, o.code));
        if want_all {
            self.all.push((g, o.code));
        }
    }
}

impl<'a> Snapshot<'a> {
    pub fn database(&self) -> &'a Database {
        self.db
    }

    pub fn read_tx(&self) -> &ReadTx {
        &self.read
    }

    pub fn names(&self) -> &StoreNames {
        &self.names
    }

    pub fn facts(&self, game: u32) -> Result<GameFacts> {
        self.facts.get(game)
    }

    /// The stored form of a game.
    pub fn game_record(&self, id: u32) -> Result<Option<Vec<u8>>> {
        self.replayer.games.get(id)
    }

    /// The tags of a chess game, without decoding its moves.
    pub fn chess_tags(&self, id: u32) -> Result<Option<Vec<(String, String)>>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(chess::decode_tags(&data, &self.names)?)),
            None => Ok(None),
        }
    }

    /// A whole chess game.
    pub fn chess_game(&self, id: u32) -> Result<Option<tabiya_pgn::Game>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(chess::decode_game(&data, &self.names)?)),
            None => Ok(None),
        }
    }

    fn s_entries(&self, r: &RunDir, prefix: u32) -> Result<Vec<run::SEntry>> {
        let Some(b) = r.s_block_for(prefix) else {
            return Ok(Vec::new());
        };
        let found = self
            .blocks
            .get_with(&run::block_key(r.id, b'S', b), |block| {
                run::find_in_s_block(block, prefix)
            })?;
        match found {
            Some(entries) => Ok(entries?),
            None => Err(Error::Corrupt(format!(
                "missing index block {}/S/{b}",
                r.id
            ))),
        }
    }

    /// Everything the index holds of one position, run by run: T records, and the games of
    /// S entries — the position's own (prefix `key`), and those of its successors whose
    /// entries say the position before them was kept implicitly.
    fn find(
        &self,
        key: u128,
        next: Next<'_>,
        reach: Option<&chess::Reach>,
        want_all: bool,
    ) -> Result<Found> {
        let mut found = Found {
            stats: HashMap::new(),
            top: Vec::new(),
            all: Vec::new(),
        };
        let mut computed: Option<Vec<u128>> = None;
        let prefix = run::prefix(key);
        for r in &self.runs {
            // Games of this run counted by a T record of the position (their ids, loaded
            // only if an S entry of the run also leads to the position).
            let mut record: Option<run::TRecord> = None;
            let mut t_games: Option<Vec<run::Posting>> = None;
            if let Some(b) = r.t_block_for(key) {
                let block = self
                    .blocks
                    .get(&run::block_key(r.id, b'T', b))?
                    .ok_or_else(|| Error::Corrupt(format!("missing index block {}/T/{b}", r.id)))?;
                if let Some(rec) = run::find_in_t_block(&block, key)? {
                    for m in &rec.moves {
                        found.stats.entry(m.code).or_default().merge(&m.stats);
                    }
                    let code = |slot: u8| rec.moves.get(slot as usize).map_or(NO_MOVE, |m| m.code);
                    if want_all || rec.top.is_empty() {
                        let postings = self.load_postings(r, &rec)?;
                        if rec.top.is_empty() {
                            found
                                .top
                                .extend(postings.iter().map(|p| (p.game, code(p.slot))));
                        }
                        if want_all {
                            found
                                .all
                                .extend(postings.iter().map(|p| (p.game, code(p.slot))));
                        }
                        t_games = Some(postings);
                    }
                    if !rec.top.is_empty() {
                        found
                            .top
                            .extend(rec.top.iter().map(|p| (p.game, code(p.slot))));
                    }
                    if self.use_complete && r.complete_for(key) {
                        // The record holds every game of this run reaching the position.
                        continue;
                    }
                    record = Some(rec);
                }
            }
            // Games of the run reaching the position in S entries: its own (prefix of `key`)
            // or, where it was kept implicitly, its successors' with `pred` set. (A run made
            // by merging can hold a T record of a position and, from another of its parts,
            // S entries of it too.) A prefix only selects candidates; a replay decides.
            let mut direct: HashMap<u32, usize> = HashMap::new();
            for e in self.s_entries(r, prefix)? {
                *direct.entry(e.game).or_default() += 1;
            }
            let mut via: HashMap<u32, Vec<u128>> = HashMap::new();
            let successors: &[u128] = match next {
                Next::Keys(k) => k,
                Next::Of(pos) => computed.get_or_insert_with(|| chess::successor_keys(pos)),
            };
            for &q in successors {
                for e in self.s_entries(r, run::prefix(q))? {
                    if e.pred {
                        via.entry(e.game).or_default().push(q);
                    }
                }
            }
            let mut candidates: Vec<u32> = direct.keys().chain(via.keys()).copied().collect();
            candidates.sort_unstable();
            candidates.dedup();
            let Some(rec) = &record else {
                // No T record here: every candidate reaching the position counts, whichever
                // entry named it, and its replay can stop at the position.
                for g in candidates {
                    if let Some(o) = self.replayer.occurrence_of(g, key, reach)? {
                        found.add_game(self.facts.get(g)?, g, o, want_all);
                    }
                }
                continue;
            };
            // With a T record, a candidate reaching the position counts unless the record
            // counted it. With a list of games short enough to read, that decides, and the
            // replay stops at the position.
            if rec.n_postings <= self.read_postings_up_to {
                for g in candidates {
                    let Some(o) = self.replayer.occurrence_of(g, key, reach)? else {
                        continue;
                    };
                    if t_games.is_none() {
                        t_games = Some(self.load_postings(r, rec)?);
                    }
                    if t_games
                        .as_ref()
                        .is_some_and(|p| p.binary_search_by_key(&g, |x| x.game).is_err())
                    {
                        found.add_game(self.facts.get(g)?, g, o, want_all);
                    }
                }
                continue;
            }
            // A long list (perhaps a million games) is not read: the entries tell instead. A
            // game whose entries with the position's prefix are as many as its positions with
            // that prefix has the position explicitly in S; one whose successor's `pred` entry
            // comes one ply after it has it implicitly. Only a prefix shared by two of a
            // game's positions leaves it to the list.
            for g in candidates {
                let (occs, plies) = self.replayer.occurrences_with_plies(g)?;
                let Some(i) = occs.iter().position(|o| o.key == key) else {
                    continue;
                };
                let with_prefix = |p: u32| occs.iter().filter(|o| run::prefix(o.key) == p).count();
                let mut counts = false;
                let mut ambiguous = false;
                if let Some(&n) = direct.get(&g) {
                    if n == with_prefix(prefix) {
                        counts = true;
                    } else {
                        ambiguous = true;
                    }
                }
                if !counts && let Some(qs) = via.get(&g) {
                    for &q in qs {
                        if with_prefix(run::prefix(q)) != 1 {
                            ambiguous = true;
                            continue;
                        }
                        if let Some(o) = occs.get(i + 1)
                            && o.key == q
                            && plies[i + 1] == plies[i].wrapping_add(1)
                        {
                            counts = true;
                            break;
                        }
                    }
                }
                if !counts && ambiguous {
                    if t_games.is_none() {
                        t_games = Some(self.load_postings(r, rec)?);
                    }
                    counts = t_games
                        .as_ref()
                        .is_some_and(|p| p.binary_search_by_key(&g, |x| x.game).is_err());
                }
                if counts {
                    found.add_game(self.facts.get(g)?, g, occs[i], want_all);
                }
            }
        }
        Ok(found)
    }

    fn load_postings(&self, r: &RunDir, rec: &run::TRecord) -> Result<Vec<run::Posting>> {
        match &rec.postings {
            Some(p) => Ok(p.clone()),
            None => {
                let data = self
                    .postings
                    .get(&run::postings_key(r.id, rec.key))?
                    .ok_or_else(|| Error::Corrupt("missing postings".into()))?;
                Ok(run::decode_external_postings(&data, rec.n_postings)?)
            }
        }
    }

    /// Statistics of a position and its best-rated games (for kinds whose index keeps every
    /// position explicitly, such as Othello).
    pub fn position(&self, key: u128, top_n: usize) -> Result<PositionStats> {
        self.position_with(key, &[], top_n)
    }

    /// Statistics of a position given also the keys of the positions one legal move away
    /// (chess keeps rare positions every other ply; see `run::build`).
    pub fn position_with(
        &self,
        key: u128,
        successors: &[u128],
        top_n: usize,
    ) -> Result<PositionStats> {
        let found = self.find(key, Next::Keys(successors), None, false)?;
        self.position_stats(found, top_n)
    }

    /// Statistics of a chess position and its best-rated games. The same as
    /// [`Snapshot::position_with`] with its key and successors' keys, quicker: replays of
    /// candidate games stop as soon as they can no longer reach the position
    /// ([`chess::Reach`]).
    pub fn chess_position(&self, pos: &shakmaty::Chess, top_n: usize) -> Result<PositionStats> {
        let reach = chess::Reach::of(pos);
        let found = self.find(chess::position_key(pos), Next::Of(pos), Some(&reach), false)?;
        self.position_stats(found, top_n)
    }

    /// Every game reaching a chess position: [`Snapshot::position_games_with`] with the
    /// quicker replays of [`Snapshot::chess_position`].
    pub fn chess_position_games(
        &self,
        pos: &shakmaty::Chess,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<(u64, Vec<(u32, u16)>)> {
        let reach = chess::Reach::of(pos);
        let found = self.find(chess::position_key(pos), Next::Of(pos), Some(&reach), true)?;
        self.page_of_games(found, sort, offset, limit)
    }

    fn position_stats(&self, found: Found, top_n: usize) -> Result<PositionStats> {
        let mut totals = Stats::default();
        let mut moves: Vec<(u16, Stats)> = found.stats.into_iter().collect();
        for (_, s) in &moves {
            totals.merge(s);
        }
        moves.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.cmp(&b.0)));
        let mut top = found.top;
        top.sort_unstable();
        top.dedup_by_key(|t| t.0);
        let mut ranked: Vec<((u32, u16), GameFacts)> = Vec::with_capacity(top.len());
        for t in top {
            ranked.push((t, self.facts.get(t.0)?));
        }
        ranked.sort_by(|a, b| run::top_order((a.0.0, &a.1), (b.0.0, &b.1)));
        ranked.truncate(top_n.min(TOP_GAMES.max(top_n)));
        Ok(PositionStats {
            totals,
            moves,
            top_games: ranked.into_iter().map(|(t, _)| t).collect(),
        })
    }

    /// Every game reaching a position (any move order), sorted and paged: the total and the
    /// page of (game id, move played there).
    pub fn position_games(
        &self,
        key: u128,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<(u64, Vec<(u32, u16)>)> {
        self.position_games_with(key, &[], sort, offset, limit)
    }

    /// [`Snapshot::position_games`] with the keys of the positions one move away.
    pub fn position_games_with(
        &self,
        key: u128,
        successors: &[u128],
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<(u64, Vec<(u32, u16)>)> {
        let found = self.find(key, Next::Keys(successors), None, true)?;
        self.page_of_games(found, sort, offset, limit)
    }

    fn page_of_games(
        &self,
        found: Found,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<(u64, Vec<(u32, u16)>)> {
        let mut all = found.all;
        all.sort_unstable();
        all.dedup_by_key(|t| t.0);
        let total = all.len() as u64;
        match sort {
            GameSort::Id => {}
            GameSort::Rating | GameSort::Date => {
                let mut keyed: Vec<((u32, u16), GameFacts)> = Vec::with_capacity(all.len());
                for t in all {
                    keyed.push((t, self.facts.get(t.0)?));
                }
                if sort == GameSort::Rating {
                    keyed.sort_by(|a, b| run::top_order((a.0.0, &a.1), (b.0.0, &b.1)));
                } else {
                    keyed.sort_by(|a, b| b.1.date.cmp(&a.1.date).then(a.0.0.cmp(&b.0.0)));
                }
                all = keyed.into_iter().map(|(t, _)| t).collect();
            }
        }
        let page = all.into_iter().skip(offset).take(limit).collect();
        Ok((total, page))
    }

    /// Reads the whole database once (the index's blocks and game lists, every game's facts,
    /// the games, the names), so that the store's page cache holds it: where a long-running
    /// explorer gets to after its first queries, at once. Returns the bytes read. Answers are
    /// the same without it; only the first read of each page is slower.
    pub fn warm_cache(&self) -> Result<u64> {
        let mut bytes = 0u64;
        let tables = [
            self.read.table(run::BLOCKS)?,
            self.read.table(run::POSTINGS)?,
            self.read.table(crate::facts::FACTS)?,
            self.read.table(crate::GAMES)?,
            self.read.table(crate::names::NAMES)?,
        ];
        for table in &tables {
            table.scan(&[], None, |k, v| {
                bytes += (k.len() + v.len()) as u64;
                true
            })?;
        }
        Ok(bytes)
    }

    /// Ids of all games, in id order.
    pub fn all_game_ids(&self) -> Result<Vec<u32>> {
        self.replayer.games.ids()
    }
}

#[cfg(test)]
impl Snapshot<'_> {
    /// Per run: whether it has a T record of `key`, and the games of its S entries with
    /// `key`'s prefix that reach the position.
    fn tree_and_entry_games(&self, key: u128) -> Vec<(bool, Vec<u32>)> {
        let mut out = Vec::new();
        for r in &self.runs {
            let has_t = match r.t_block_for(key) {
                Some(b) => {
                    let block = self
                        .blocks
                        .get(&run::block_key(r.id, b'T', b))
                        .unwrap()
                        .unwrap();
                    run::find_in_t_block(&block, key).unwrap().is_some()
                }
                None => false,
            };
            let mut games: Vec<u32> = self
                .s_entries(r, run::prefix(key))
                .unwrap()
                .into_iter()
                .map(|e| e.game)
                .collect();
            games.dedup();
            games.retain(|&g| self.replayer.occurrence_of(g, key, None).unwrap().is_some());
            out.push((has_t, games));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shakmaty::Position;

    use crate::chess::{self, position_key, successor_keys};
    use crate::{Database, ImportOptions, ImportProgress, Kind};

    /// A database of TWIC 920 imported with these options.
    fn twic_with(opts: ImportOptions) -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
        let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/pgn/twic/twic0920.pgn");
        db.import(&[twic], &opts, &ImportProgress::default())
            .unwrap();
        (dir, db)
    }

    /// A database of TWIC 920 imported in batches of `batch` games (many small runs, then
    /// merged into one).
    fn twic_in_batches(batch: usize) -> (tempfile::TempDir, Database) {
        twic_with(ImportOptions {
            batch_games: batch,
            ..ImportOptions::default()
        })
    }

    /// The positions before each of the first `plies` moves of every `every`-th game, with
    /// the game's id and the ply.
    fn sampled_positions(
        snap: &super::Snapshot<'_>,
        every: usize,
        plies: usize,
    ) -> Vec<(u32, usize, shakmaty::Chess)> {
        let mut out = Vec::new();
        for id in snap.all_game_ids().unwrap().into_iter().step_by(every) {
            let data = snap.game_record(id).unwrap().unwrap();
            let (mut pos, _, moves, _) = chess::decode_line(&data).unwrap();
            for (ply, m) in moves.iter().take(plies).enumerate() {
                out.push((id, ply, pos.clone()));
                pos.play_unchecked(*m);
            }
        }
        out
    }

    /// Positions whose T record and S entries meet in one merged run are answered the same
    /// whether the record's list of games decides or the entries' structure does.
    #[test]
    fn both_ways_of_telling_t_games_from_s_games_agree() {
        let (_dir, db) = twic_in_batches(61);
        let mut by_list = db.snapshot().unwrap();
        by_list.read_postings_up_to = u64::MAX;
        let mut by_entries = db.snapshot().unwrap();
        by_entries.read_postings_up_to = 0;
        assert_eq!(by_list.runs.len(), 1, "the small runs are merged");
        let mut compared = 0;
        for (id, ply, pos) in sampled_positions(&by_list, 23, usize::MAX)
            .into_iter()
            .filter(|p| p.1 % 3 == 0)
        {
            let (key, succ) = (position_key(&pos), successor_keys(&pos));
            let a = by_list.position_with(key, &succ, 8).unwrap();
            let b = by_entries.position_with(key, &succ, 8).unwrap();
            assert_eq!(a.totals, b.totals, "game {id} ply {ply}");
            assert_eq!(a.moves, b.moves, "game {id} ply {ply}");
            // Replays cut short where the game can no longer reach the position.
            for snap in [&by_list, &by_entries] {
                let c = snap.chess_position(&pos, 8).unwrap();
                assert_eq!(
                    (&c.totals, &c.moves, &c.top_games),
                    (&a.totals, &a.moves, &a.top_games),
                    "game {id} ply {ply}"
                );
                let all = snap
                    .chess_position_games(&pos, super::GameSort::Id, 0, usize::MAX)
                    .unwrap();
                assert_eq!(
                    all,
                    snap.position_games_with(key, &succ, super::GameSort::Id, 0, usize::MAX)
                        .unwrap()
                );
                assert_eq!(all.0, a.totals.games(), "game {id} ply {ply}");
            }
            assert!(a.totals.games() > 0, "game {id} ply {ply}");
            compared += 1;
        }
        assert!(compared > 1000, "{compared}");
    }

    /// After a merge, a T record holds every game of its run reaching the position (the run
    /// says so), and answering from it alone gives what looking through the S entries too
    /// gives.
    #[test]
    fn complete_t_records_answer_alone() {
        let (_dir, db) = twic_in_batches(61);
        let alone = db.snapshot().unwrap();
        let mut looking = db.snapshot().unwrap();
        looking.use_complete = false;
        assert_eq!(alone.runs.len(), 1, "the small runs are merged");
        let run = &alone.runs[0];
        assert!(run.complete, "a merge of complete runs is complete");
        assert!(
            run.incomplete.len() < 5,
            "{} incomplete records",
            run.incomplete.len()
        );
        let mut answered_alone = 0;
        for (id, _, pos) in sampled_positions(&alone, 5, 60) {
            let key = position_key(&pos);
            if alone.tree_and_entry_games(key)[0].0 && run.complete_for(key) {
                answered_alone += 1;
            }
            let a = alone.chess_position(&pos, 8).unwrap();
            let b = looking.chess_position(&pos, 8).unwrap();
            assert_eq!(a, b, "game {id}");
            let ga = alone
                .chess_position_games(&pos, super::GameSort::Id, 0, usize::MAX)
                .unwrap();
            let gb = looking
                .chess_position_games(&pos, super::GameSort::Id, 0, usize::MAX)
                .unwrap();
            assert_eq!(ga, gb, "game {id}");
        }
        assert!(
            answered_alone > 2000,
            "{answered_alone} positions answered by their T record alone"
        );
    }

    /// An import needing more index memory than it has is written as several runs (one per
    /// transaction, merged at the end) and answers like an import written as one.
    #[test]
    fn imports_bigger_than_their_index_memory_answer_like_one_run() {
        let (_a, whole) = twic_with(ImportOptions::default());
        const OCCURRENCES: u64 = 20_000;
        let tight = ImportOptions {
            index_memory: OCCURRENCES * crate::import::BYTES_PER_OCCURRENCE,
            ..ImportOptions::default()
        };
        let (_b, split) = twic_with(tight);
        let read =
            |db: &Database, what: &str| crate::meta_u64(&db.store.read().unwrap(), what).unwrap();
        assert_eq!(read(&whole, "next_run"), 1, "the whole import in one run");
        let counted: u64 = crate::dbstats::collect(&whole).unwrap().positions;
        let runs = read(&split, "next_run");
        assert!(
            runs >= counted.div_ceil(OCCURRENCES),
            "{runs} runs for {counted} positions, {OCCURRENCES} a run"
        );
        let (one, many) = (whole.snapshot().unwrap(), split.snapshot().unwrap());
        assert_eq!(many.runs.len(), 1, "merged at the end");
        for (id, _, pos) in sampled_positions(&one, 11, 50) {
            assert_eq!(
                one.chess_position(&pos, 8).unwrap(),
                many.chess_position(&pos, 8).unwrap(),
                "game {id}"
            );
            let ga = one
                .chess_position_games(&pos, super::GameSort::Id, 0, usize::MAX)
                .unwrap();
            let gb = many
                .chess_position_games(&pos, super::GameSort::Id, 0, usize::MAX)
                .unwrap();
            assert_eq!(ga, gb, "game {id}");
        }
    }

    /// A merge moves into a position's T record the S entries of that position that other
    /// parts held (and the implicit occurrences those entries' replays reveal), so a popular
    /// position's games are in its record, not left for queries to replay.
    #[test]
    fn merged_t_records_take_in_the_entries_of_their_position() {
        let (_dir, db) = twic_in_batches(97);
        let snap = db.snapshot().unwrap();
        assert_eq!(snap.runs.len(), 1, "the small runs are merged");
        let (mut trees, mut in_entries) = (0, 0);
        for (id, _, pos) in sampled_positions(&snap, 7, 40) {
            for (has_t, games) in snap.tree_and_entry_games(position_key(&pos)) {
                if has_t {
                    trees += 1;
                    assert!(
                        games.is_empty(),
                        "game {id}: S entries of a T position: games {games:?}"
                    );
                } else {
                    in_entries += games.len();
                }
            }
        }
        // Both kinds were seen: the check above was not vacuous.
        assert!(
            trees > 1000 && in_entries > 100,
            "{trees} T positions, {in_entries} entries of others"
        );
    }
}
