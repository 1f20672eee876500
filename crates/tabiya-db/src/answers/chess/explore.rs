//! The chess explorer's answer for a position, shaped like the Lichess opening explorer's:
//! totals, every move with its results, average rating, performance and years, the
//! best-rated games, and the opening's name; and a page of the games reaching a position.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::filter::GameFilter;
use crate::answers::{GameSort, Snapshot};
use crate::chess::key::position_key;
use crate::chess::moves::code_to_move;
use crate::chess::openings::{self, Opening};
use crate::game::NO_MOVE;
use crate::index::record::newest_order;
use crate::stats::{GameFacts, GameOutcome, Stats};
use crate::{Error, Result};

/// A player of a game, with the rating of that game.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Player {
    pub name: String,
    pub rating: Option<u16>,
}

/// One of the best-rated games of a position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct TopGame {
    pub id: String,
    /// The move it played in the position (UCI).
    pub uci: Option<String>,
    pub white: Player,
    pub black: Player,
    #[serde(default, deserialize_with = "crate::words::maybe_word")]
    pub winner: Option<crate::words::Word>,
    pub year: Option<u16>,
    /// `YYYY-MM` when the month is known.
    pub month: Option<String>,
    /// The game's facts, by which answers of several databases are merged (not shown).
    #[serde(skip)]
    pub facts: GameFacts,
}

/// One move of a position with the results of the games that played it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveRow {
    pub uci: String,
    pub san: String,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub average_rating: Option<u32>,
    pub performance: Option<i32>,
    pub first_year: Option<u16>,
    pub last_year: Option<u16>,
    /// Games with this move and no result (`*`), not counted in white/draws/black.
    pub unknown: u64,
    /// Mean rating of the mover's opponents, over the games with a result and both ratings
    /// (those `performance` is over).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_opponent_rating: Option<u32>,
    /// The game, when exactly one game played the move (and the position holds at most
    /// [`SINGLE_GAMES_UP_TO`] games: finding it reads every game of the position).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<TopGame>,
    /// The stored engine evaluation of the position the move leads to, when there is one
    /// (filled in by whoever shows evaluations: queries of the index leave it empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<crate::EvalBrief>,
    /// The games that reach the position after the move by any move order (each once),
    /// beside those that played the move here; left out of filtered answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// The opening the move leads to, when the position after it is one the opening table
    /// names (as the Lichess explorer's moves carry it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening: Option<OpeningName>,
    /// The move's code and raw sums, by which answers of several databases are summed
    /// exactly (not shown: the fields above are formed from them).
    #[serde(skip)]
    pub code: u16,
    #[serde(skip)]
    pub stats: Stats,
}

/// Games reaching a position by any move order, by result.
#[derive(Debug, Clone, Copy, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Reached {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Without a result (`*`).
    pub unknown: u64,
}

impl Reached {
    pub fn games(&self) -> u64 {
        self.white + self.draws + self.black + self.unknown
    }
}

/// A game of a position: its id, the move it played there, its facts.
pub(crate) type PositionGame = (u32, u16, GameFacts);

/// Positions with at most this many games name the game of each move played once.
pub const SINGLE_GAMES_UP_TO: u64 = 100_000;

impl MoveRow {
    /// Games that played the move, results known or not.
    pub fn games(&self) -> u64 {
        self.white + self.draws + self.black + self.unknown
    }

    /// The row of a move (named by UCI and SAN, of code `code`) with its statistics.
    pub fn new(uci: String, san: String, code: u16, stats: Stats) -> MoveRow {
        let mut row = MoveRow {
            uci,
            san,
            white: 0,
            draws: 0,
            black: 0,
            average_rating: None,
            performance: None,
            first_year: None,
            last_year: None,
            unknown: 0,
            average_opponent_rating: None,
            game: None,
            eval: None,
            reached: None,
            opening: None,
            code,
            stats: Stats::default(),
        };
        row.set_stats(stats);
        row
    }

    /// Sets the move's statistics, and every figure formed from them.
    pub fn set_stats(&mut self, s: Stats) {
        self.white = s.first;
        self.draws = s.draws;
        self.black = s.second;
        self.unknown = s.unknown;
        self.average_rating = s.average_rating();
        self.performance = s.performance();
        self.first_year = (s.min_year != 0).then_some(s.min_year);
        self.last_year = (s.max_year != 0).then_some(s.max_year);
        self.average_opponent_rating = (s.perf_games > 0)
            .then(|| ((2 * s.perf_opp_sum + s.perf_games) / (2 * s.perf_games)) as u32);
        self.stats = s;
    }
}

/// An opening's ECO code and name (Lichess's tables).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct OpeningName {
    pub eco: String,
    pub name: String,
}

/// What the explorer shows of a chess position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChessExplore {
    pub fen: String,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Games reaching the position with no result.
    pub unknown: u64,
    /// Games that ended in this position.
    pub ended: u64,
    pub average_rating: Option<u32>,
    pub moves: Vec<MoveRow>,
    pub top_games: Vec<TopGame>,
    /// The newest games, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<TopGame>>,
    pub opening: Option<OpeningName>,
    /// With a speed filter: the games of the position (passing the other filters) that have
    /// no time control to tell their speed (no `TimeControl` tag, as in most over-the-board
    /// collections), left out by the speed filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub without_speed: Option<u64>,
    /// Every game's statistics summed (`ended` included), by which answers of several
    /// databases are summed exactly (not shown).
    #[serde(skip)]
    pub totals: Stats,
}

/// One game of a position's game list.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct GameRow {
    pub id: String,
    pub white: Player,
    pub black: Player,
    pub result: String,
    pub date: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// The move played in the asked position (UCI).
    pub uci: Option<String>,
    /// The game's facts, by which pages of several databases are merged (not shown).
    #[serde(skip)]
    pub facts: GameFacts,
    /// Its ECO tag and length, by which they are merged too (not shown).
    #[serde(skip)]
    pub list: crate::answers::ListKey,
}

/// A page of the games reaching a position, and how many there are.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ChessGames {
    pub total: u64,
    pub games: Vec<GameRow>,
}

/// Who won, as Lichess says it.
fn winner(f: &GameFacts) -> Option<&'static str> {
    match f.outcome() {
        GameOutcome::FirstWins => Some("white"),
        GameOutcome::SecondWins => Some("black"),
        _ => None,
    }
}

/// A tag's value, `?` when the game has none.
pub(super) fn tag(tags: &[(String, String)], name: &str) -> String {
    tags.iter()
        .find(|(k, _)| k == name)
        .map_or("?", |(_, v)| v.as_str())
        .to_string()
}

/// The row of a move with its statistics (`None` for a code that is no legal move).
fn move_row(pos: &Chess, mode: CastlingMode, code: u16, s: &Stats) -> Option<MoveRow> {
    let m = code_to_move(pos, code)?;
    let mut row = MoveRow::new(
        UciMove::from_move(m, mode).to_string(),
        SanPlus::from_move(pos.clone(), m).to_string(),
        code,
        *s,
    );
    let mut after = pos.clone();
    after.play_unchecked(m);
    row.opening = openings::named(&after).map(|o| OpeningName {
        eco: o.eco.clone(),
        name: o.name.clone(),
    });
    Some(row)
}

fn uci(pos: &Chess, mode: CastlingMode, code: u16) -> Option<String> {
    code_to_move(pos, code).map(|m| UciMove::from_move(m, mode).to_string())
}

impl Snapshot<'_> {
    pub(crate) fn check_chess(&self) -> Result<()> {
        if self.database().kind() != crate::Kind::Chess {
            return Err(Error::Usage(format!(
                "{} is not a chess database",
                self.database().dir().display()
            )));
        }
        Ok(())
    }

    /// The explorer's answer for the last position of `line` (the positions from the
    /// game's start, which name its opening), with `top_n` best-rated games.
    pub fn chess_explore(
        &self,
        line: &[Chess],
        mode: CastlingMode,
        top_n: usize,
    ) -> Result<ChessExplore> {
        self.chess_explore_recent(line, mode, top_n, None)
    }

    /// [`Self::chess_explore`] with, when asked, the `recent` newest games too: from the
    /// index's records where their lists reach that far (records keep [`TOP_GAMES`] best
    /// and [`crate::index::RECENT_GAMES`] newest games), else from every game of the
    /// position.
    ///
    /// [`TOP_GAMES`]: crate::index::TOP_GAMES
    pub fn chess_explore_recent(
        &self,
        line: &[Chess],
        mode: CastlingMode,
        top_n: usize,
        recent: Option<usize>,
    ) -> Result<ChessExplore> {
        self.check_chess()?;
        let pos = line.last().cloned().unwrap_or_default();
        let mut found = self.chess_find(&pos, false)?;
        if top_n > found.top_known || recent.is_some_and(|n| n > found.recent_known) {
            // The records keep fewer best or newest games than asked (records written
            // before they kept more, or patched since): every game is looked at.
            return self.explore_all(line, mode, &GameFilter::default(), top_n, recent);
        }
        let newest = match recent {
            Some(n) => {
                let mut known = std::mem::take(&mut found.recent);
                known.extend_from_slice(&found.each);
                Some(self.newest_of(known, n)?)
            }
            None => None,
        };
        let singles: Vec<(u16, Option<u32>)> = found
            .stats
            .iter()
            .filter(|(_, s)| s.games() == 1)
            .map(|(&code, _)| (code, found.single(code)))
            .collect();
        let singles_known = found.singles_known;
        let ps = self.position_stats(found, top_n)?;
        let mut moves = Vec::new();
        let mut ended = 0;
        for (code, s) in &ps.moves {
            if *code == NO_MOVE {
                ended = s.games();
                continue;
            }
            if let Some(mut row) = move_row(&pos, mode, *code, s) {
                if let Some(&(_, Some(id))) = singles.iter().find(|x| x.0 == *code) {
                    row.game = Some(self.top_game(&pos, mode, id, *code)?);
                }
                moves.push(row);
            }
        }
        let unnamed = moves.iter().any(|m| m.games() == 1 && m.game.is_none());
        if unnamed && !singles_known && ps.totals.games() <= SINGLE_GAMES_UP_TO {
            // Records written before they named their moves' single games.
            let games = self.filtered_games(&pos, &GameFilter::default())?;
            self.name_single_games(&pos, mode, &mut moves, &games)?;
        }
        let mut top_games = Vec::new();
        for &(id, code) in &ps.top_games {
            top_games.push(self.top_game(&pos, mode, id, code)?);
        }
        let recent_games = match newest {
            Some(ids) => {
                let mut out = Vec::with_capacity(ids.len());
                for (id, code) in ids {
                    out.push(self.top_game(&pos, mode, id, code)?);
                }
                Some(out)
            }
            None => None,
        };
        self.fill_reached(&pos, &mut moves)?;
        let opening = self.opening_of(line, &ps.top_games)?.map(|o| OpeningName {
            eco: o.eco.clone(),
            name: o.name.clone(),
        });
        let t: &Stats = &ps.totals;
        Ok(ChessExplore {
            fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            white: t.first,
            draws: t.draws,
            black: t.second,
            unknown: t.unknown,
            ended,
            average_rating: t.average_rating(),
            moves,
            top_games,
            recent_games,
            opening,
            without_speed: None,
            totals: *t,
        })
    }

    /// The `n` newest of some games (a game once, however often listed).
    fn newest_of(&self, mut games: Vec<(u32, u16)>, n: usize) -> Result<Vec<(u32, u16)>> {
        games.sort_unstable();
        games.dedup_by_key(|g| g.0);
        let mut dated = Vec::with_capacity(games.len());
        for (id, code) in games {
            dated.push((id, code, self.facts(id)?));
        }
        dated.sort_by(|a, b| newest_order((a.0, &a.2), (b.0, &b.2)));
        Ok(dated
            .into_iter()
            .take(n)
            .map(|(id, code, _)| (id, code))
            .collect())
    }

    /// Each move's `reached`: one lookup of the position it leads to.
    fn fill_reached(&self, pos: &Chess, moves: &mut [MoveRow]) -> Result<()> {
        let legal: Vec<(usize, Move)> = moves
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let mv = m.uci.parse::<UciMove>().ok()?.to_move(pos).ok()?;
                Some((i, mv))
            })
            .collect();
        let played: Vec<Move> = legal.iter().map(|(_, mv)| *mv).collect();
        let reached = self.chess_reached(pos, &played)?;
        for ((i, _), r) in legal.into_iter().zip(reached) {
            moves[i].reached = Some(r);
        }
        Ok(())
    }

    fn top_game(&self, pos: &Chess, mode: CastlingMode, id: u32, code: u16) -> Result<TopGame> {
        let f = self.facts(id)?;
        let tags = self.chess_tags(id)?.unwrap_or_default();
        Ok(TopGame {
            id: id.to_string(),
            uci: uci(pos, mode, code),
            white: Player {
                name: tag(&tags, "White"),
                rating: f.ratings[0],
            },
            black: Player {
                name: tag(&tags, "Black"),
                rating: f.ratings[1],
            },
            winner: winner(&f),
            year: f.year,
            month: (f.date / 100 % 100 != 0)
                .then(|| format!("{}-{:02}", f.date / 10000, f.date / 100 % 100)),
            facts: f,
        })
    }

    /// The opening of the position: the last named position of the line, or, for a position
    /// given without its line (a FEN), of the best game's line to it.
    fn opening_of(&self, line: &[Chess], top: &[(u32, u16)]) -> Result<Option<&'static Opening>> {
        if let Some(o) = openings::last_named(line) {
            return Ok(Some(o));
        }
        let Some(pos) = line.last() else {
            return Ok(None);
        };
        let key = position_key(pos);
        if let Some(&(id, _)) = top.first()
            && let Some(g) = self.chess_game(id)?
        {
            let mut pos = g.start.clone();
            let mut line = vec![pos.clone()];
            for n in &g.moves {
                if position_key(&pos) == key {
                    break;
                }
                pos.play_unchecked(n.mv);
                line.push(pos.clone());
            }
            if position_key(&pos) == key {
                return Ok(openings::last_named(&line));
            }
        }
        Ok(None)
    }

    /// The explorer's answer counting only the games that pass `filter`, with `top_n`
    /// best-rated games and, when asked, `recent` newest ones (both among those games).
    /// Every game of the position is looked at: exact, and slower than [`Self::chess_explore`]
    /// for popular positions.
    pub fn chess_explore_filtered(
        &self,
        line: &[Chess],
        mode: CastlingMode,
        filter: &GameFilter,
        top_n: usize,
        recent: Option<usize>,
    ) -> Result<ChessExplore> {
        if filter.is_empty() {
            return self.chess_explore_recent(line, mode, top_n, recent);
        }
        self.explore_all(line, mode, filter, top_n, recent)
    }

    /// [`Self::chess_explore_filtered`] from every game of the position.
    pub(crate) fn explore_all(
        &self,
        line: &[Chess],
        mode: CastlingMode,
        filter: &GameFilter,
        top_n: usize,
        recent: Option<usize>,
    ) -> Result<ChessExplore> {
        self.check_chess()?;
        let pos = line.last().cloned().unwrap_or_default();
        let (games, without_speed) = self.filtered_games_counted(&pos, filter)?;
        let mover = if pos.turn() == shakmaty::Color::White {
            0
        } else {
            1
        };
        let mut by_move: std::collections::HashMap<u16, Stats> = Default::default();
        for (_, code, f) in &games {
            by_move.entry(*code).or_default().add_game(f, mover);
        }
        let mut stats: Vec<(u16, Stats)> = by_move.into_iter().collect();
        stats.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.cmp(&b.0)));
        let mut totals = Stats::default();
        let mut moves = Vec::new();
        let mut ended = 0;
        for (code, s) in &stats {
            totals.merge(s);
            if *code == NO_MOVE {
                ended = s.games();
                continue;
            }
            if let Some(row) = move_row(&pos, mode, *code, s) {
                moves.push(row);
            }
        }
        self.name_single_games(&pos, mode, &mut moves, &games)?;
        if filter.is_empty() {
            // Every game counted: the moves' positions by any move order beside them.
            self.fill_reached(&pos, &mut moves)?;
        }
        let mut ranked: Vec<&(u32, u16, GameFacts)> = games.iter().collect();
        ranked.sort_by(|a, b| crate::index::top_order((a.0, &a.2), (b.0, &b.2)));
        let mut top_games = Vec::new();
        for &&(id, code, _) in ranked.iter().take(top_n) {
            top_games.push(self.top_game(&pos, mode, id, code)?);
        }
        let recent_games = match recent {
            None => None,
            Some(n) => {
                // As a game list sorted by date: newest first, then in id order.
                ranked.sort_by(|a, b| newest_order((a.0, &a.2), (b.0, &b.2)));
                let mut out = Vec::new();
                for &&(id, code, _) in ranked.iter().take(n) {
                    out.push(self.top_game(&pos, mode, id, code)?);
                }
                Some(out)
            }
        };
        let top_ids: Vec<(u32, u16)> = top_games
            .iter()
            .filter_map(|g| g.id.parse().ok().map(|id| (id, 0)))
            .collect();
        let opening = self.opening_of(line, &top_ids)?.map(|o| OpeningName {
            eco: o.eco.clone(),
            name: o.name.clone(),
        });
        Ok(ChessExplore {
            fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            white: totals.first,
            draws: totals.draws,
            black: totals.second,
            unknown: totals.unknown,
            ended,
            average_rating: totals.average_rating(),
            moves,
            top_games,
            recent_games,
            opening,
            without_speed,
            totals,
        })
    }

    /// Names the game of each move played by one game of `games` (the position's games).
    fn name_single_games(
        &self,
        pos: &Chess,
        mode: CastlingMode,
        moves: &mut [MoveRow],
        games: &[(u32, u16, GameFacts)],
    ) -> Result<()> {
        for m in moves.iter_mut().filter(|m| m.games() == 1) {
            let code = games.iter().find(|(_, code, _)| {
                code_to_move(pos, *code)
                    .is_some_and(|mv| UciMove::from_move(mv, mode).to_string() == m.uci)
            });
            if let Some(&(id, code, _)) = code {
                m.game = Some(self.top_game(pos, mode, id, code)?);
            }
        }
        Ok(())
    }

    /// The games reaching `pos` (once each) that pass `filter`: id, the move played there,
    /// facts.
    pub(crate) fn filtered_games(
        &self,
        pos: &Chess,
        filter: &GameFilter,
    ) -> Result<Vec<(u32, u16, GameFacts)>> {
        Ok(self.filtered_games_counted(pos, filter)?.0)
    }

    /// [`Self::filtered_games`], and with a speed filter, how many games it leaves out only
    /// because they have no speed (no time control).
    pub(crate) fn filtered_games_counted(
        &self,
        pos: &Chess,
        filter: &GameFilter,
    ) -> Result<(Vec<PositionGame>, Option<u64>)> {
        let any_speed = filter.speeds.as_ref().map(|_| GameFilter {
            speeds: None,
            ..filter.clone()
        });
        let mut without_speed = 0;
        let found = self.chess_find(pos, true)?;
        let mut all = found.all;
        all.sort_unstable();
        all.dedup_by_key(|t| t.0);
        let mut out = Vec::with_capacity(all.len());
        let no_players = [None, None];
        for (i, (g, code)) in all.into_iter().enumerate() {
            if i % 1024 == 1023 {
                crate::deadline::check()?;
            }
            if !filter.admits(g) {
                continue;
            }
            let f = self.facts(g)?;
            let players = if filter.needs_players() {
                self.players(g)?
            } else {
                no_players
            };
            if filter.accepts(&f, &players) {
                out.push((g, code, f));
            } else if f.speed.is_none()
                && let Some(any) = &any_speed
                && any.accepts(&f, &players)
            {
                without_speed += 1;
            }
        }
        Ok((out, any_speed.map(|_| without_speed)))
    }

    /// A page of the games reaching `pos` (any move order) that pass `filter`, sorted, with
    /// their tags and the move each played there.
    pub fn chess_games_filtered(
        &self,
        pos: &Chess,
        mode: CastlingMode,
        filter: &GameFilter,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<ChessGames> {
        if filter.is_empty() {
            return self.chess_games(pos, mode, sort, offset, limit);
        }
        self.check_chess()?;
        let mut games = self.filtered_games(pos, filter)?;
        self.sort_games(&mut games, sort)?;
        let total = games.len() as u64;
        let page: Vec<(u32, u16)> = games
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(g, c, _)| (g, c))
            .collect();
        Ok(ChessGames {
            total,
            games: self.game_rows(pos, mode, page)?,
        })
    }

    /// A page of the games reaching `pos` (any move order), sorted, with their tags and the
    /// move each played there.
    pub fn chess_games(
        &self,
        pos: &Chess,
        mode: CastlingMode,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<ChessGames> {
        self.check_chess()?;
        let (total, page) = self.chess_position_games(pos, sort, offset, limit)?;
        Ok(ChessGames {
            total,
            games: self.game_rows(pos, mode, page)?,
        })
    }

    /// The rows of a page of games.
    fn game_rows(
        &self,
        pos: &Chess,
        mode: CastlingMode,
        page: Vec<(u32, u16)>,
    ) -> Result<Vec<GameRow>> {
        let mut games = Vec::with_capacity(page.len());
        let eco = self.eco_tag_ids()?;
        for (id, code) in page {
            let tags = self
                .chess_tags(id)?
                .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
            let f = self.facts(id)?;
            let list = self.list_key(id, &eco)?;
            games.push(GameRow {
                id: id.to_string(),
                white: Player {
                    name: tag(&tags, "White"),
                    rating: f.ratings[0],
                },
                black: Player {
                    name: tag(&tags, "Black"),
                    rating: f.ratings[1],
                },
                result: tag(&tags, "Result"),
                date: tag(&tags, "Date"),
                event: tag(&tags, "Event"),
                site: tag(&tags, "Site"),
                round: tag(&tags, "Round"),
                uci: uci(pos, mode, code),
                facts: f,
                list,
            });
        }
        Ok(games)
    }
}
