//! Structure search: the games in which a pattern, a material signature or a pawn structure
//! (a [`tabiya_structure::Query`]) holds in some position of the main line, answered as the
//! explorer answers an exact position — the games' results, the moves played from the
//! first matching position of each game, the games themselves (each with that ply), and for
//! a pawn structure the structures reached next.
//!
//! The games asked are the candidates the structure index gives (every game when it cannot
//! narrow them, see `docs/database.md`, *Structure search*), each replayed from its stored
//! form on every core until the query holds: only a replay knows the first matching ply,
//! so an index candidate that cannot match costs a replay, never a wrong answer.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};
use tabiya_structure::{PawnStructure, Query};

use super::explore::{MoveRow, Player, tag};
use super::filter::GameFilter;
use crate::answers::snapshot::Snapshot;
use crate::chess::moves::{move_code, names_as_played};
use crate::chess::stored::{LineReader, decode_line, read_line};
use crate::codec::DecodeError;
use crate::facts::FactsReader;
use crate::game::NO_MOVE;
use crate::keymap::KeyHasher;
use crate::players::PlayersReader;
use crate::records::Records;
use crate::shapes::lines::{LineMoves, LineReader as SearchLines};
use crate::shapes::squares::Plies;
use crate::stats::{GameFacts, Stats};
use crate::{Error, GameSort, Result};

/// How much of the answer to give.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct SearchPage {
    pub sort: GameSort,
    pub offset: usize,
    pub limit: usize,
    /// Pawn structures reached next to list (most frequent first).
    pub next: usize,
    /// Moves from the first matching position to list (most played first; all:
    /// `usize::MAX`).
    pub moves: usize,
}

impl Default for SearchPage {
    fn default() -> SearchPage {
        SearchPage {
            sort: GameSort::Rating,
            offset: 0,
            limit: 20,
            next: 10,
            moves: usize::MAX,
        }
    }
}

/// One game of a structure search: its tags, and where the query first holds.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct SearchGame {
    pub id: String,
    pub white: Player,
    pub black: Player,
    pub result: String,
    pub date: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// The first ply at which the query holds (0: the start position); a viewer opens the
    /// game there.
    pub ply: u32,
    /// The position at that ply.
    pub fen: String,
    /// The move played there (UCI and SAN); none when the game ended there.
    pub uci: Option<String>,
    pub san: Option<String>,
    /// Whether it held with colours swapped (`--either-colour`).
    pub swapped: bool,
    #[serde(skip)]
    pub facts: GameFacts,
}

/// A pawn structure reached next: the first different pawn structure after the first
/// matching position, in the games that reached one.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct NextStructure {
    /// As a board of pawns (`8/pp3ppp/…`).
    pub pawns: String,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub unknown: u64,
}

/// The answer of a structure search.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StructureSearch {
    /// Games in which the query holds, results known or not.
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Matching games without a result (`*`), not in white/draws/black.
    pub unknown: u64,
    pub average_rating: Option<u32>,
    /// Games whose first matching position is their last (no move played from it).
    pub ended: u64,
    /// The moves played from each game's first matching position, most played first (a
    /// black move's SAN written after `...`: `...Be7`); the performance is the mover's (the
    /// side to move there, which can differ between games). The first `moves` asked.
    pub moves: Vec<MoveRow>,
    /// How many different moves were played from there (`moves` may list fewer).
    pub distinct_moves: u64,
    /// A page of the matching games.
    pub list: Vec<SearchGame>,
    /// For a pawn structure: the pawn structures reached next, most frequent first; the
    /// games that never left the structure are not among them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Vec<NextStructure>>,
    /// Games replayed to answer (those the index could not rule out, after the filters).
    pub replayed: u64,
    /// Of the games asked, those the structure index does not cover, read one by one
    /// (none when the index cannot narrow the query: no material, no pawn structure, no
    /// pattern that pins a piece, and every game is read). `tabiya db structures` indexes
    /// them.
    pub unindexed: u64,
    /// Every matching game's results summed, by which answers of several databases are
    /// summed exactly (not shown).
    #[serde(skip)]
    pub totals: Stats,
}

/// A matching game, as a worker finds it.
#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub id: u32,
    pub ply: u32,
    pub swapped: bool,
    pub facts: GameFacts,
}

/// A move played from first matching positions: the first game that played it (whose
/// position names it) and its statistics.
#[derive(Debug, Clone)]
pub(super) struct MoveSums {
    pub first: u32,
    pub uci: String,
    pub san: String,
    pub stats: Stats,
}

/// What one worker found over its share of the games.
#[derive(Default)]
pub(super) struct Found {
    pub hits: Vec<Hit>,
    /// Every matching game's results (the hits may be a page of them).
    pub totals: Stats,
    pub moves: HashMap<u16, MoveSums, BuildHasherDefault<KeyHasher>>,
    /// Next pawn structure (by key) and the games' results.
    pub next: HashMap<u128, Stats>,
    pub replayed: u64,
    /// Games read from the ranges the index does not cover.
    pub unindexed: u64,
}

impl Found {
    pub(super) fn merge(&mut self, other: Found) {
        self.hits.extend(other.hits);
        self.totals.merge(&other.totals);
        for (code, m) in other.moves {
            match self.moves.get_mut(&code) {
                Some(mine) => {
                    mine.stats.merge(&m.stats);
                    if m.first < mine.first {
                        mine.first = m.first;
                        mine.uci = m.uci;
                        mine.san = m.san;
                    }
                }
                None => {
                    self.moves.insert(code, m);
                }
            }
        }
        for (k, s) in other.next {
            self.next.entry(k).or_default().merge(&s);
        }
        self.replayed += other.replayed;
        self.unindexed += other.unindexed;
    }
}

/// Which games to replay: the index's candidates (sorted ids, each with the plies a match
/// can be at) and the id ranges it does not cover (read whole).
pub(crate) struct Candidates {
    pub ids: Vec<u32>,
    /// One per id: a replay tests the query from the first of these plies and goes no
    /// further than the last looking for the first match.
    pub plies: Vec<Plies>,
    pub ranges: Vec<(u32, u32)>,
}

impl Candidates {
    /// No game.
    pub(super) fn none() -> Candidates {
        Candidates {
            ids: Vec::new(),
            plies: Vec::new(),
            ranges: Vec::new(),
        }
    }

    /// Every game, ids below `end`.
    pub(crate) fn all(end: u32) -> Candidates {
        Candidates {
            ids: Vec::new(),
            plies: Vec::new(),
            ranges: vec![(0, end)],
        }
    }

    /// The share of worker `i` of `n`: a slice of the ids with their plies, a part of each
    /// range.
    fn share(&self, i: usize, n: usize) -> (&[u32], &[Plies], Vec<(u32, u32)>) {
        let per = self.ids.len().div_ceil(n);
        let part = (i * per).min(self.ids.len())..((i + 1) * per).min(self.ids.len());
        let (ids, plies) = (&self.ids[part.clone()], &self.plies[part]);
        let ranges = self
            .ranges
            .iter()
            .map(|&(a, b)| {
                let per = (b - a).div_ceil(n as u32);
                let from = a.saturating_add(per * i as u32).min(b);
                (from, from.saturating_add(per).min(b))
            })
            .filter(|(a, b)| a < b)
            .collect();
        (ids, plies, ranges)
    }

    /// Those below `through`, and those from it on.
    pub(super) fn split(self, through: u32) -> (Candidates, Candidates) {
        let at = self.ids.partition_point(|id| *id < through);
        let (below, later) = (self.ids[..at].to_vec(), self.ids[at..].to_vec());
        let (plies_below, plies_later) = (self.plies[..at].to_vec(), self.plies[at..].to_vec());
        let clip = |lo: u32, hi: u32| -> Vec<(u32, u32)> {
            self.ranges
                .iter()
                .map(|&(a, b)| (a.max(lo), b.min(hi)))
                .filter(|(a, b)| a < b)
                .collect()
        };
        (
            Candidates {
                ids: below,
                plies: plies_below,
                ranges: clip(0, through),
            },
            Candidates {
                ids: later,
                plies: plies_later,
                ranges: clip(through, u32::MAX),
            },
        )
    }

    /// Games to ask at most (ids, and every id of the ranges).
    fn len(&self) -> u64 {
        self.ids.len() as u64
            + self
                .ranges
                .iter()
                .map(|(a, b)| u64::from(b - a))
                .sum::<u64>()
    }
}

impl Snapshot<'_> {
    /// The answer of a structure search over the games passing `filter`.
    pub fn chess_search(
        &self,
        query: &Query,
        filter: &GameFilter,
        page: SearchPage,
    ) -> Result<StructureSearch> {
        if self.database().kind() != crate::Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is not a chess database: structure search is for chess",
                self.database().dir().display()
            )));
        }
        let found = match self.found_from_stats(query, filter, page)? {
            Some(found) => found,
            None => {
                let candidates = self.structure_candidates(query)?;
                self.replay_candidates(query, filter, &candidates, page.next > 0)?
            }
        };
        let unindexed = found.unindexed;
        let mut answer = self.search_answer(query, found, page)?;
        if narrows(query) {
            answer.unindexed = unindexed;
        }
        Ok(answer)
    }

    /// Replays the candidates passing `filter` on every core.
    pub(super) fn replay_candidates(
        &self,
        query: &Query,
        filter: &GameFilter,
        candidates: &Candidates,
        want_next: bool,
    ) -> Result<Found> {
        let want_next = want_next && query.pawns().is_some();
        let removed_ids = self.index.amendments.removed();
        let removed = |id: u32| removed_ids.binary_search(&id).is_ok();
        // A replay costs tens of microseconds: a few hundred games are worth a second core.
        let workers = match candidates.len() {
            0..256 => 1,
            _ => crate::workers::for_items(usize::MAX),
        };
        let read = self.read.clone();
        let line_segments = crate::shapes::squares::line_segments(&read)?;
        let results = crate::workers::run(workers, "search", |i| {
            let (ids, plies, ranges) = candidates.share(i, workers);
            let mut w = Worker {
                query,
                filter,
                want_next,
                games: Records::new(&read)?,
                stored: Vec::new(),
                // Candidates are asked in id order (lines, then records, then ranges).
                facts: FactsReader::in_order(&read)?,
                players: PlayersReader::in_order(&read)?,
                found: Found::default(),
                seen: 0,
            };
            // The games with search lines from them (read in key order), the rest from
            // their records.
            let (ids, plies): (Vec<u32>, Vec<Plies>) = ids
                .iter()
                .zip(plies)
                .filter(|(id, _)| !removed(**id))
                .map(|(&id, &u)| (id, u))
                .unzip();
            let lines = SearchLines::new(&read, line_segments.clone())?;
            let rest = lines.each_line(&ids, |i, codes| {
                w.game(ids[i], Source::Line(codes), plies[i])
            })?;
            for i in rest {
                w.game(ids[i], Source::Record, plies[i])?;
            }
            let games = Records::new(&read)?;
            for (a, b) in ranges {
                games.scan_range(a, Some(b), |id, raw| {
                    if !removed(id) {
                        w.found.unindexed += 1;
                        w.game(id, Source::Raw(raw), Plies::ANY)?;
                    }
                    Ok(true)
                })?;
            }
            Ok(w.found)
        })?;
        let mut found = Found::default();
        for r in results {
            found.merge(r);
        }
        Ok(found)
    }

    /// The answer from what the workers found.
    fn search_answer(
        &self,
        query: &Query,
        found: Found,
        page: SearchPage,
    ) -> Result<StructureSearch> {
        let Found {
            mut hits,
            totals,
            moves,
            next,
            replayed,
            ..
        } = found;
        let mut ended = 0;
        let mut rows: Vec<MoveRow> = Vec::new();
        let mut sums: Vec<(u16, MoveSums)> = moves.into_iter().collect();
        sums.sort_by(|a, b| {
            b.1.stats
                .games()
                .cmp(&a.1.stats.games())
                .then(a.1.first.cmp(&b.1.first))
        });
        for (code, m) in sums {
            if code == NO_MOVE {
                ended = m.stats.games();
                continue;
            }
            rows.push(MoveRow::new(m.uci, m.san, code, m.stats));
        }
        let distinct_moves = rows.len() as u64;
        rows.truncate(page.moves);
        // (The search is asked by rating, date or id: by the facts alone.)
        let none = crate::answers::ListKey::default();
        let order = |a: &Hit, b: &Hit| {
            page.sort
                .order((&a.facts, &none), (&b.facts, &none))
                .then(a.id.cmp(&b.id))
        };
        // The page's games only are put in order (the order is total: ties go by id).
        let wanted = page.offset.saturating_add(page.limit).min(hits.len());
        if wanted < hits.len() {
            hits.select_nth_unstable_by(wanted, order);
            hits.truncate(wanted);
        }
        // Then those before the page set apart (a page past the last game sorts nothing).
        let before = page.offset.min(hits.len());
        if before > 0 && before < hits.len() {
            hits.select_nth_unstable_by(before, order);
        }
        hits[before..].sort_by(order);
        let mut list = Vec::new();
        for h in &hits[before..] {
            list.push(self.search_game(h)?);
        }
        let next = query.pawns().is_some().then(|| {
            let mut v: Vec<(u128, Stats)> = next.into_iter().collect();
            v.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.cmp(&b.0)));
            v.into_iter()
                .take(page.next)
                .map(|(k, s)| NextStructure {
                    pawns: PawnStructure::from_key(k).to_string(),
                    games: s.games(),
                    white: s.first,
                    draws: s.draws,
                    black: s.second,
                    unknown: s.unknown,
                })
                .collect()
        });
        Ok(StructureSearch {
            games: totals.games(),
            white: totals.first,
            draws: totals.draws,
            black: totals.second,
            unknown: totals.unknown,
            average_rating: totals.average_rating(),
            ended,
            moves: rows,
            distinct_moves,
            list,
            next,
            replayed,
            unindexed: 0,
            totals,
        })
    }

    /// A listed game: its tags, and the position and move at its first matching ply.
    fn search_game(&self, h: &Hit) -> Result<SearchGame> {
        let raw = self
            .game_record(h.id)?
            .ok_or_else(|| Error::Corrupt(format!("game {} is missing", h.id)))?;
        let (start, mode, line, _) =
            decode_line(&raw).map_err(|e| Error::Corrupt(format!("game {}: {e}", h.id)))?;
        let mut pos = start;
        for m in line.iter().take(h.ply as usize) {
            pos.play_unchecked(*m);
        }
        let mv = line.get(h.ply as usize);
        let tags = self.chess_tags(h.id)?.unwrap_or_default();
        Ok(SearchGame {
            id: h.id.to_string(),
            white: Player {
                name: tag(&tags, "White"),
                rating: h.facts.ratings[0],
            },
            black: Player {
                name: tag(&tags, "Black"),
                rating: h.facts.ratings[1],
            },
            result: tag(&tags, "Result"),
            date: tag(&tags, "Date"),
            event: tag(&tags, "Event"),
            site: tag(&tags, "Site"),
            round: tag(&tags, "Round"),
            ply: h.ply,
            fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            uci: mv.map(|m| UciMove::from_move(*m, mode).to_string()),
            san: mv.map(|m| SanPlus::from_move(pos.clone(), *m).to_string()),
            swapped: h.swapped,
            facts: h.facts,
        })
    }
}

/// One thread's share of a search.
struct Worker<'q> {
    query: &'q Query,
    filter: &'q GameFilter,
    want_next: bool,
    games: Records,
    /// The game being asked, decompressed (one allocation for all).
    stored: Vec<u8>,
    facts: FactsReader,
    players: PlayersReader,
    found: Found,
    seen: u64,
}

/// Where a worker reads a game's moves.
enum Source<'a> {
    /// Its record, to be read.
    Record,
    /// Its record, read by a scan.
    Raw(&'a [u8]),
    /// Its search line's codes.
    Line(&'a [u8]),
}

impl Worker<'_> {
    /// Asks one game at `plies` (the query is not tested before the first, and the replay
    /// goes no further than the last unless it matched by then).
    fn game(&mut self, id: u32, source: Source<'_>, plies: Plies) -> Result<()> {
        self.seen += 1;
        if self.seen.is_multiple_of(1024) {
            crate::deadline::check()?;
        }
        if !self.filter.admits(id) {
            return Ok(());
        }
        let facts = self.facts.get(id)?;
        let players = if self.filter.needs_players() {
            self.players.get(id)?
        } else {
            [None, None]
        };
        if !self.filter.accepts(&facts, &players) {
            return Ok(());
        }
        // From its search line (no record read, no move decoded by attacks) when its
        // square segment keeps one, else from its record.
        let (query, want_next) = (self.query, self.want_next);
        let from_record = |raw: &[u8]| {
            read_line(raw).and_then(|(start, mode, moves)| {
                locate(query, start, mode, moves, want_next, plies)
            })
        };
        let located = match source {
            Source::Line(codes) => {
                let (start, mode) = (Chess::default(), shakmaty::CastlingMode::Standard);
                locate(query, start, mode, LineMoves::new(codes), want_next, plies)
            }
            Source::Raw(raw) => from_record(raw),
            // A game no longer stored (removed by another path) matches nothing.
            Source::Record if !self.games.get_into(id, &mut self.stored)? => return Ok(()),
            Source::Record => from_record(&self.stored),
        };
        self.found.replayed += 1;
        let Some(at) = located.map_err(|e| Error::Corrupt(format!("game {id}: {e}")))? else {
            return Ok(());
        };
        let Located {
            first,
            here,
            mode,
            played,
            next,
        } = at;
        let swapped = self.query.matches(here.board()) == Some(true);
        let mover = u8::from(here.turn() == Color::Black);
        let played = played.as_ref();
        let code = played.map_or(NO_MOVE, move_code);
        let name = |m: &shakmaty::Move| names_as_played(&here, m, mode);
        let sums = self.found.moves.entry(code).or_insert_with(|| {
            let (uci, san) = played.map_or_else(Default::default, name);
            MoveSums {
                first: id,
                uci,
                san,
                stats: Stats::default(),
            }
        });
        if id < sums.first {
            sums.first = id;
            (sums.uci, sums.san) = played.map_or_else(Default::default, name);
        }
        sums.stats.add_game(&facts, mover);
        self.found.totals.add_game(&facts, 0);
        if let Some(k) = next {
            self.found.next.entry(k).or_default().add_game(&facts, 0);
        }
        self.found.hits.push(Hit {
            id,
            ply: first,
            swapped,
            facts,
        });
        Ok(())
    }
}

/// Where a query first holds in a game: the ply, the position there, the game's castling
/// mode, the move played there, and (when asked) the next pawn structure the game reached.
struct Located {
    first: u32,
    here: Chess,
    mode: shakmaty::CastlingMode,
    played: Option<shakmaty::Move>,
    next: Option<u128>,
}

/// A game's main line read move by move: from its record, or from its search line.
trait Moves {
    /// The move played from `pos` (the line's position so far), `None` past its end.
    fn next_move(&mut self, pos: &Chess) -> std::result::Result<Option<Move>, DecodeError>;
}

impl Moves for LineReader<'_> {
    fn next_move(&mut self, pos: &Chess) -> std::result::Result<Option<Move>, DecodeError> {
        LineReader::next_move(self, pos)
    }
}

impl Moves for LineMoves<'_> {
    fn next_move(&mut self, pos: &Chess) -> std::result::Result<Option<Move>, DecodeError> {
        LineMoves::next_move(self, pos)
    }
}

/// Reads a game's main line (from `start`, castling in `mode`) as far as `query` needs: to
/// its first match (and to the next pawn structure after it when `want_next`), no further;
/// none when it has not matched by ply `plies.until` (the square index's word that no later
/// ply can). The query is not tested before ply `plies.from` (nor can it hold there).
fn locate(
    query: &Query,
    start: Chess,
    mode: shakmaty::CastlingMode,
    mut line: impl Moves,
    want_next: bool,
    plies: Plies,
) -> std::result::Result<Option<Located>, DecodeError> {
    let hold = query.hold();
    // Held for several plies: the match began `hold - 1` plies back, replayed from the moves.
    let mut moves = Vec::new();
    let mut walk = query.walk();
    let mut pos = start.clone();
    let mut ply = 0u32;
    let (first, here, played) = loop {
        let found = if ply < plies.from {
            walk.skip();
            None
        } else {
            walk.next(pos.board())
        };
        if let Some(first) = found {
            if hold == 1 {
                let played = line.next_move(&pos)?;
                break (first, pos, played);
            }
            let mut here = start;
            for m in moves.iter().take(first as usize) {
                here.play_unchecked(*m);
            }
            let played = match moves.get(first as usize) {
                Some(m) => Some(*m),
                None => line.next_move(&pos)?,
            };
            break (first, here, played);
        }
        if ply >= plies.until {
            return Ok(None);
        }
        ply += 1;
        match line.next_move(&pos)? {
            Some(m) => {
                if hold > 1 {
                    moves.push(m);
                }
                pos.play_unchecked(m);
            }
            None => return Ok(None),
        }
    };
    let mut next = None;
    if want_next && let Some(m) = played {
        // From the match on, the first pawn structure that differs (the moves after the
        // match: those kept, then the rest of the line).
        let now = PawnStructure::of(here.board());
        let mut p: Chess = here.clone();
        let mut kept = moves.iter().skip(first as usize).copied();
        let mut mv = Some(m);
        // The first kept move, if any, is `played` itself.
        kept.next();
        while let Some(m) = mv {
            p.play_unchecked(m);
            let s = PawnStructure::of(p.board());
            if s != now {
                next = Some(s.key());
                break;
            }
            mv = match kept.next() {
                Some(k) => Some(k),
                None => line.next_move(&p)?,
            };
        }
    }
    Ok(Some(Located {
        first,
        here,
        mode,
        played,
        next,
    }))
}

/// Whether the structure index can narrow `query`'s games: a material, a pawn structure, or
/// patterns that each pin a piece.
fn narrows(query: &Query) -> bool {
    let patterns = query.patterns();
    !query.pawn_structures().is_empty()
        || !query.materials().is_empty()
        || (!patterns.is_empty() && patterns.iter().all(|p| !p.pinned().is_empty()))
}
