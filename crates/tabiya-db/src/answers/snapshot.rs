//! Answering positions: statistics of every move, top games, and every game that reaches a
//! position by any move order, through a [`Snapshot`] (one read transaction).

use tabiya_store::ReadTx;

use crate::facts::FactsReader;
use crate::index::find::{Found, IndexReader, Next, Wanted};
use crate::index::{BLOCKS, POSTINGS, TOP_GAMES, top_order};
use crate::names::StoreNames;
use crate::players::PlayersReader;
use crate::stats::{GameFacts, Stats};
use crate::{Database, Result};

/// What the index knows of one position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionStats {
    /// Totals of the position (all games reaching it, wherever they went next).
    pub totals: Stats,
    /// Statistics per move code, [`crate::NO_MOVE`] for games that ended here. Sorted by
    /// games, most first.
    pub moves: Vec<(u16, Stats)>,
    /// Best-rated games reaching the position, with the move each played.
    pub top_games: Vec<(u32, u16)>,
}

/// How to order a game list. Ties go in import order (game id); the orders but `Id` are
/// over every game of the list, so that its pages follow one another exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GameSort {
    /// Mean rating, highest first (unrated last), then newest.
    Rating,
    /// Date, newest first.
    Date,
    /// Game id (import order).
    Id,
    /// Chess: the ECO tag, A00 first (text order), games without one (or `?`) last.
    Eco,
    /// Chess: the main line's length in plies, longest first.
    Length,
    /// The result: White's wins (the first player's), draws, Black's wins, then games
    /// without a result (`*`).
    Result,
}

/// What a chess game list is sorted by beyond a game's facts: its ECO tag (none when empty
/// or `?`) and its main line's length (read from the game's record, see
/// [`GameSort::needs_record`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListKey {
    pub eco: Option<String>,
    pub plies: u32,
}

impl GameSort {
    /// Whether the order reads each game's record (its ECO tag, its length), not only its
    /// facts.
    pub fn needs_record(self) -> bool {
        matches!(self, GameSort::Eco | GameSort::Length)
    }

    /// How two games compare in this order, ties left to the caller (`Id` leaves them all:
    /// its order is the caller's tie-break).
    pub fn order(self, a: (&GameFacts, &ListKey), b: (&GameFacts, &ListKey)) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match self {
            GameSort::Id => Ordering::Equal,
            GameSort::Rating => top_order((0, a.0), (0, b.0)),
            GameSort::Date => b.0.date.cmp(&a.0.date),
            GameSort::Result => result_rank(a.0).cmp(&result_rank(b.0)),
            GameSort::Eco => match (&a.1.eco, &b.1.eco) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            GameSort::Length => b.1.plies.cmp(&a.1.plies),
        }
    }
}

/// A result's place in [`GameSort::Result`]'s order.
fn result_rank(f: &GameFacts) -> u8 {
    match f.outcome() {
        crate::stats::GameOutcome::FirstWins => 0,
        crate::stats::GameOutcome::Draw => 1,
        crate::stats::GameOutcome::SecondWins => 2,
        crate::stats::GameOutcome::Unknown => 3,
    }
}

/// A page of the games reaching a position: the total, and (game id, move played there).
pub type GamePage = (u64, Vec<(u32, u16)>);

/// A consistent view of the database for queries (one read transaction).
pub struct Snapshot<'a> {
    db: &'a Database,
    pub(crate) read: ReadTx,
    pub(crate) index: IndexReader<'a>,
    pub(crate) facts: FactsReader,
    pub(crate) players: PlayersReader,
    pub(crate) names: StoreNames,
}

impl Snapshot<'_> {
    /// How many positions one move away this snapshot looked up for `reached` (the rest were
    /// told by the records: [`crate::index::record::TRecord::whole`] and `elsewhere`).
    pub fn reached_lookups(&self) -> u64 {
        self.index.lookups.get()
    }
}

impl Database {
    /// Opens a query snapshot.
    pub fn snapshot(&self) -> Result<Snapshot<'_>> {
        self.snapshot_of(self.answering_read()?)
    }

    /// A query snapshot on a given read transaction.
    pub(crate) fn snapshot_of(&self, read: ReadTx) -> Result<Snapshot<'_>> {
        Ok(Snapshot {
            db: self,
            index: self.index_reader(&read)?,
            facts: FactsReader::new(&read)?,
            players: PlayersReader::new(&read)?,
            names: StoreNames::new(&read)?,
            read,
        })
    }
}

impl<'a> Snapshot<'a> {
    pub fn database(&self) -> &'a Database {
        self.db
    }

    pub(crate) fn read_tx(&self) -> &ReadTx {
        &self.read
    }

    pub fn names(&self) -> &StoreNames {
        &self.names
    }

    pub fn facts(&self, game: u32) -> Result<GameFacts> {
        self.facts.get(game)
    }

    /// The name ids of a chess game's players.
    pub fn players(&self, game: u32) -> Result<crate::players::Players> {
        self.players.get(game)
    }

    /// The stored form of a game.
    pub fn game_record(&self, id: u32) -> Result<Option<Vec<u8>>> {
        self.index.replayer.games.get(id)
    }

    /// Ids of all games, in id order.
    pub fn all_game_ids(&self) -> Result<Vec<u32>> {
        self.index.replayer.games.ids()
    }

    pub(crate) fn find(&self, wanted: &Wanted<'_>) -> Result<Found> {
        self.index.find(wanted, &self.facts)
    }

    /// Statistics of a position and its best-rated games (for kinds whose index keeps every
    /// position explicitly, such as Othello).
    pub fn position(&self, key: u128, top_n: usize) -> Result<PositionStats> {
        self.position_with(key, &[], top_n)
    }

    /// Statistics of a position given also the keys of the positions one legal move away
    /// (chess keeps rare positions every other ply; see [`crate::index::build`]).
    pub fn position_with(
        &self,
        key: u128,
        successors: &[u128],
        top_n: usize,
    ) -> Result<PositionStats> {
        let found = self.find(&Wanted {
            key,
            next: Next::Keys(successors),
            reach: None,
            all: false,
        })?;
        self.position_stats(found, top_n)
    }

    /// Every game reaching a position (any move order), sorted and paged.
    pub fn position_games(
        &self,
        key: u128,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<GamePage> {
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
    ) -> Result<GamePage> {
        let found = self.find(&Wanted {
            key,
            next: Next::Keys(successors),
            reach: None,
            all: true,
        })?;
        self.page_of_games(found, sort, offset, limit)
    }

    /// Totals, moves by games, and the best-rated games of what the index found.
    pub(crate) fn position_stats(&self, found: Found, top_n: usize) -> Result<PositionStats> {
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
        ranked.sort_by(|a, b| top_order((a.0.0, &a.1), (b.0.0, &b.1)));
        ranked.truncate(top_n.min(TOP_GAMES.max(top_n)));
        Ok(PositionStats {
            totals,
            moves,
            top_games: ranked.into_iter().map(|(t, _)| t).collect(),
        })
    }

    /// The games the index found, sorted and paged.
    pub(crate) fn page_of_games(
        &self,
        found: Found,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<GamePage> {
        let mut all = found.all;
        all.sort_unstable();
        all.dedup_by_key(|t| t.0);
        let total = all.len() as u64;
        if sort != GameSort::Id {
            let mut keyed: Vec<(u32, u16, GameFacts)> = Vec::with_capacity(all.len());
            for (i, (g, code)) in all.into_iter().enumerate() {
                if i % 1024 == 1023 {
                    crate::deadline::check()?;
                }
                keyed.push((g, code, self.facts.get(g)?));
            }
            self.sort_games(&mut keyed, sort)?;
            all = keyed.into_iter().map(|(g, code, _)| (g, code)).collect();
        }
        let page = all.into_iter().skip(offset).take(limit).collect();
        Ok((total, page))
    }

    /// Sorts games (id, move, facts) as `sort` asks, ties in id order; ECO and length read
    /// each game's record once (chess only).
    pub(crate) fn sort_games(
        &self,
        games: &mut Vec<(u32, u16, GameFacts)>,
        sort: GameSort,
    ) -> Result<()> {
        if !sort.needs_record() {
            let none = ListKey::default();
            games.sort_by(|a, b| sort.order((&a.2, &none), (&b.2, &none)).then(a.0.cmp(&b.0)));
            return Ok(());
        }
        let eco = self.eco_tag_ids()?;
        let mut keyed: Vec<((u32, u16, GameFacts), ListKey)> = Vec::with_capacity(games.len());
        for (i, g) in games.drain(..).enumerate() {
            if i % 1024 == 1023 {
                crate::deadline::check()?;
            }
            let key = self.list_key(g.0, &eco)?;
            keyed.push((g, key));
        }
        keyed.sort_by(|a, b| {
            sort.order((&a.0.2, &a.1), (&b.0.2, &b.1))
                .then(a.0.0.cmp(&b.0.0))
        });
        games.extend(keyed.into_iter().map(|(g, _)| g));
        Ok(())
    }

    /// The tag-name ids spelt exactly `ECO` (what [`Snapshot::list_key`] looks for).
    pub(crate) fn eco_tag_ids(&self) -> Result<Vec<u32>> {
        Ok(self
            .names
            .all(crate::game::Dict::TagName)?
            .into_iter()
            .filter(|(_, name)| name == "ECO")
            .map(|(id, _)| id)
            .collect())
    }

    /// A chess game's ECO tag and length, read from its record without resolving names or
    /// decoding moves (`eco`: [`Snapshot::eco_tag_ids`]).
    pub(crate) fn list_key(&self, game: u32, eco: &[u32]) -> Result<ListKey> {
        let data = self
            .game_record(game)?
            .ok_or_else(|| crate::Error::Corrupt(format!("game {game} is missing")))?;
        let (eco, plies) = crate::chess::stored::eco_and_plies(&data, eco)
            .map_err(|e| crate::Error::Corrupt(format!("game {game}: {e}")))?;
        Ok(ListKey { eco, plies })
    }

    /// Reads the whole database once (the index's blocks and game lists, every game's facts,
    /// the names, the games), so that the store's page cache holds it: where a long-running
    /// explorer gets to after its first queries, at once. Returns the bytes read. Answers are
    /// the same without it; only the first read of each page is slower.
    pub fn warm_cache(&self) -> Result<u64> {
        self.warm_cache_until(u64::MAX, &|| false)
    }

    /// [`Snapshot::warm_cache`] until `budget` bytes are read (the store's cache holds no
    /// more: [`Database::warm_cache`]) or `stop` says so (checked every few hundred
    /// entries). What queries read most comes first: the index, then facts and names, the
    /// games last.
    pub fn warm_cache_until(&self, budget: u64, stop: &dyn Fn() -> bool) -> Result<u64> {
        let mut bytes = 0u64;
        let tables = [
            self.read.table(BLOCKS)?,
            self.read.table(POSTINGS)?,
            self.read.table(crate::facts::FACTS)?,
            self.read.table(crate::names::NAMES)?,
            self.read.table(crate::GAMES)?,
        ];
        let mut entries = 0u32;
        for table in &tables {
            table.scan(&[], None, |k, v| {
                bytes += (k.len() + v.len()) as u64;
                entries = entries.wrapping_add(1);
                bytes < budget && (!entries.is_multiple_of(256) || !stop())
            })?;
            if bytes >= budget || stop() {
                break;
            }
        }
        Ok(bytes)
    }
}

#[cfg(test)]
impl Snapshot<'_> {
    /// Per run: whether it has a T record of `key`, and the games of its S entries with
    /// `key`'s prefix that reach the position.
    fn tree_and_entry_games(&self, key: u128) -> Vec<(bool, Vec<u32>)> {
        let mut out = Vec::new();
        for r in self.index.runs.iter() {
            let has_t = self.index.t_record(r, key).unwrap().is_some();
            let mut games: Vec<u32> = self
                .index
                .s_entries(r, crate::index::prefix(key))
                .unwrap()
                .into_iter()
                .map(|e| e.game)
                .collect();
            games.dedup();
            games.retain(|&g| {
                self.index
                    .replayer
                    .occurrence_of(g, key, None)
                    .unwrap()
                    .is_some()
            });
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

    /// TWIC 920, from the shared data.
    fn twic() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/twic/twic0920.pgn")
    }

    /// A database of TWIC 920 imported with these options.
    fn twic_with(opts: ImportOptions) -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open_or_create(dir.path(), Kind::Chess, None).unwrap();
        db.import(&[twic()], &opts, &ImportProgress::default())
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

    /// Warming reads every table whole, stops at a budget or when told to, and changes no
    /// answer.
    #[test]
    fn warming_the_cache_reads_up_to_its_budget_and_stops_when_told() {
        let (_dir, db) = twic_with(ImportOptions::default());
        let snap = db.snapshot().unwrap();
        let pos = snap
            .chess_position(&shakmaty::Chess::default(), 15)
            .unwrap();
        let all = snap.warm_cache().unwrap();
        // Every table's keys and values, counted by a scan of their own.
        let mut counted = 0u64;
        for t in [
            crate::index::BLOCKS,
            crate::index::POSTINGS,
            crate::facts::FACTS,
            crate::names::NAMES,
            crate::GAMES,
        ] {
            snap.read
                .table(t)
                .unwrap()
                .scan(&[], None, |k, v| {
                    counted += (k.len() + v.len()) as u64;
                    true
                })
                .unwrap();
        }
        assert_eq!(all, counted);
        let part = snap.warm_cache_until(all / 3, &|| false).unwrap();
        assert!(part >= all / 3 && part < all, "{part} of {all}");
        let told = std::cell::Cell::new(0u32);
        let stopped = snap
            .warm_cache_until(u64::MAX, &|| {
                told.set(told.get() + 1);
                true
            })
            .unwrap();
        assert!(stopped < all && told.get() >= 1, "{stopped} of {all}");
        // The database's own bound: its cache holds the whole file here.
        assert_eq!(db.warm_cache(&|| false).unwrap(), all);
        let again = db.snapshot().unwrap();
        assert_eq!(
            again
                .chess_position(&shakmaty::Chess::default(), 15)
                .unwrap(),
            pos
        );
    }

    /// The runs' directories a handle keeps between snapshots (`Database::runs_of`) are the
    /// ones the store holds after every import and every merge through it: the games of
    /// each import are found by the next snapshot, and a merge's one run replaces its parts.
    #[test]
    fn kept_runs_follow_every_import_and_merge() {
        let opts = ImportOptions {
            keep_duplicates: true,
            ..ImportOptions::default()
        };
        let (_dir, db) = twic_with(opts.clone());
        let start = shakmaty::Chess::default();
        let games_at_start = |db: &Database| {
            let snap = db.snapshot().unwrap();
            let from_store = crate::index::load_runs(snap.read_tx()).unwrap();
            assert_eq!(
                *snap.index.runs, from_store,
                "the kept runs are the stored ones"
            );
            snap.chess_position(&start, 0).unwrap().totals.games()
        };
        let once = games_at_start(&db);
        assert!(once > 2000, "TWIC 920 has {once} games");
        db.import(&[twic()], &opts, &ImportProgress::default())
            .unwrap();
        assert_eq!(
            games_at_start(&db),
            2 * once,
            "the second import's run is read"
        );
        let runs = db.snapshot().unwrap().index.runs.len();
        crate::compact::compact(&db).unwrap();
        let merged = db.snapshot().unwrap().index.runs.len();
        assert!(
            merged <= runs,
            "{runs} runs before the merge, {merged} after"
        );
        assert_eq!(
            games_at_start(&db),
            2 * once,
            "the merged run counts them all"
        );
    }

    /// Positions whose T record and S entries meet in one merged run are answered the same
    /// whether the record's list of games decides or the entries' structure does.
    #[test]
    fn both_ways_of_telling_t_games_from_s_games_agree() {
        let (_dir, db) = twic_in_batches(61);
        let mut by_list = db.snapshot().unwrap();
        by_list.index.read_postings_up_to = u64::MAX;
        let mut by_entries = db.snapshot().unwrap();
        by_entries.index.read_postings_up_to = 0;
        assert_eq!(by_list.index.runs.len(), 1, "the small runs are merged");
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
        looking.index.use_complete = false;
        assert_eq!(alone.index.runs.len(), 1, "the small runs are merged");
        let run = &alone.index.runs[0];
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

    /// The best, newest and single games the index's records keep answer as looking at
    /// every game of the position does: after one run, and after many merged.
    #[test]
    fn explorer_lists_from_the_records_equal_every_game_looked_at() {
        let filter = crate::answers::chess::GameFilter::default();
        for (_dir, db) in [twic_with(ImportOptions::default()), twic_in_batches(61)] {
            let snap = db.snapshot().unwrap();
            let mode = shakmaty::CastlingMode::Standard;
            let (mut listed, mut singles) = (0, 0);
            for (id, ply, pos) in sampled_positions(&snap, 7, 30) {
                let line = [pos.clone()];
                let from_index = snap.chess_explore_recent(&line, mode, 15, Some(4)).unwrap();
                let every = snap.explore_all(&line, mode, &filter, 15, Some(4)).unwrap();
                assert_eq!(
                    serde_json::to_value(&from_index).unwrap(),
                    serde_json::to_value(&every).unwrap(),
                    "game {id} ply {ply}"
                );
                listed += usize::from(from_index.white + from_index.draws + from_index.black > 15);
                singles += from_index.moves.iter().filter(|m| m.game.is_some()).count();
            }
            assert!(
                listed > 100,
                "{listed} positions with more games than lists"
            );
            assert!(singles > 100, "{singles} single games named");
        }
    }

    /// An import's own segments merge into one whatever their sizes: the newest runs, and
    /// only those, become one run, which answers as the runs did.
    #[test]
    fn the_newest_runs_merge_into_one_and_answer_the_same() {
        crate::compact::HOLD.set(true);
        let (_dir, db) = twic_in_batches(400);
        crate::compact::HOLD.set(false);
        let before = db.snapshot().unwrap();
        let runs: Vec<(u32, u64)> = before.index.runs.iter().map(|r| (r.id, r.games)).collect();
        assert_eq!(runs.len(), 2245usize.div_ceil(400), "one run a batch");
        let positions = sampled_positions(&before, 17, 30);
        let answers = |snap: &super::Snapshot<'_>| -> Vec<_> {
            let at = |pos| snap.chess_position(pos, 8).unwrap();
            positions.iter().map(|(_, _, pos)| at(pos)).collect()
        };
        let want = answers(&before);
        drop(before);
        assert_eq!(crate::compact::merge_newest(&db, 3).unwrap(), 1);
        let after = db.snapshot().unwrap();
        let now: Vec<(u32, u64)> = after.index.runs.iter().map(|r| (r.id, r.games)).collect();
        assert_eq!(now.len(), runs.len() - 2);
        assert_eq!(
            now[..runs.len() - 3],
            runs[..runs.len() - 3],
            "older runs untouched"
        );
        let merged: u64 = runs[runs.len() - 3..].iter().map(|r| r.1).sum();
        assert_eq!(now.last().unwrap().1, merged, "the three newest as one");
        assert_eq!(answers(&after), want);
        assert_eq!(
            crate::compact::merge_newest(&db, 1).unwrap(),
            0,
            "one run: nothing"
        );
        assert_eq!(
            crate::compact::merge_newest(&db, 99).unwrap(),
            0,
            "more than there are"
        );
    }

    /// Each move's `reached` answered from its position's record where the record says the
    /// move's games are all that reach where it leads, equals looking that position up in
    /// every run: in one run, in many runs unmerged (a position popular in some runs only),
    /// merged into one, and after deletions and edits of results.
    #[test]
    fn reached_from_a_record_equals_looking_up_where_each_move_leads() {
        use crate::changes::TagEdit;
        crate::compact::HOLD.set(true);
        let (_many_dir, many) = twic_in_batches(400);
        crate::compact::HOLD.set(false);
        let (_one_dir, one) = twic_with(ImportOptions::default());
        let compare = |db: &Database, what: &str| {
            let with = db.snapshot().unwrap();
            let mut without = db.snapshot().unwrap();
            without.index.use_whole = false;
            let (mut moves, mut from_records, mut told) = (0usize, 0usize, 0usize);
            let mut from_lists = 0usize;
            let removed = |g: u32| with.index.amendments.is_removed(g);
            for (id, ply, pos) in sampled_positions(&with, 31, 20) {
                let legal: Vec<shakmaty::Move> = pos.legal_moves().into_iter().collect();
                let a = with.chess_reached(&pos, &legal).unwrap();
                let b = without.chess_reached(&pos, &legal).unwrap();
                assert_eq!(a, b, "{what}: game {id} ply {ply}");
                moves += legal.len();
                let key = position_key(&pos);
                for r in with.index.runs.iter() {
                    if let Some(rec) = with.index.t_record(r, key).unwrap() {
                        from_records += rec.whole.iter().filter(|&&w| w).count();
                        told += usize::from(rec.elsewhere.is_some());
                        let listed = rec.elsewhere.iter().flatten();
                        from_lists += listed.filter(|e| e.games.is_some()).count();
                    }
                }
                // A record in the only run that says where its moves lead: each legal move
                // not whole reaches the games that played it and the ones listed (less the
                // deleted), or none when neither.
                if let [r] = &with.index.runs[..]
                    && let Some(rec) = with.index.t_record(r, key).unwrap()
                    && let Some(elsewhere) = &rec.elsewhere
                {
                    for (m, t) in legal.iter().zip(&b) {
                        let code = crate::chess::moves::move_code(m);
                        let slot = rec.moves.iter().position(|e| e.code == code);
                        if slot.is_some_and(|s| rec.whole.get(s) == Some(&true)) {
                            continue;
                        }
                        let played = slot.map_or(0, |s| rec.moves[s].stats.games());
                        let others = match elsewhere.iter().find(|e| e.code == code) {
                            Some(e) => match &e.games {
                                Some(g) => g.iter().filter(|&&g| !removed(g)).count() as u64,
                                None => continue,
                            },
                            None => 0,
                        };
                        assert_eq!(
                            t.games(),
                            played + others,
                            "{what}: game {id} ply {ply}: {m} reaches other games than listed"
                        );
                    }
                }
            }
            assert!(
                from_records > 500,
                "{what}: {from_records} of {moves} moves answered by their record"
            );
            eprintln!(
                "{what}: {from_records} of {moves} moves whole, {from_lists} listed with the games reaching them elsewhere, in {told} records with lists"
            );
            (told, from_lists)
        };
        let (told, listed) = compare(&one, "one run");
        assert!(
            told > 20 && listed > 20,
            "{told} records with lists, {listed} moves listed"
        );
        let runs = many.snapshot().unwrap().index.runs.len();
        assert!(runs > 4, "{runs} runs");
        compare(&many, "runs unmerged");
        crate::compact::compact_all(&many).unwrap();
        assert_eq!(many.snapshot().unwrap().index.runs.len(), 1);
        compare(&many, "runs merged");
        for db in [&one, &many] {
            let ids = db.snapshot().unwrap().all_game_ids().unwrap();
            let gone: Vec<u32> = ids.iter().copied().step_by(13).collect();
            db.delete_games(&gone).unwrap();
            for &id in ids
                .iter()
                .skip(5)
                .step_by(11)
                .filter(|id| !gone.contains(id))
            {
                let result = if id % 2 == 0 { "0-1" } else { "1/2-1/2" };
                db.edit_game(id, &[TagEdit::Set("Result".into(), result.into())])
                    .unwrap();
            }
            compare(db, "after deletions and edits");
        }
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
        assert_eq!(many.index.runs.len(), 1, "merged at the end");
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
        assert_eq!(snap.index.runs.len(), 1, "the small runs are merged");
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
