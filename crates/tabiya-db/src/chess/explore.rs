//! The chess explorer's answer for a position, shaped like the Lichess opening explorer's:
//! totals, every move with its results, average rating, performance and years, the
//! best-rated games, and the opening's name; and a page of the games reaching a position.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use super::key::position_key;
use super::moves::code_to_move;
use super::openings::{self, Opening};
use crate::game::NO_MOVE;
use crate::query::{GameSort, Snapshot};
use crate::stats::{GameFacts, GameOutcome, Stats};
use crate::{Error, Result};

/// A player of a game, with the rating of that game.
#[derive(Debug, Clone, Serialize)]
pub struct Player {
    pub name: String,
    pub rating: Option<u16>,
}

/// One of the best-rated games of a position.
#[derive(Debug, Clone, Serialize)]
pub struct TopGame {
    pub id: String,
    /// The move it played in the position (UCI).
    pub uci: Option<String>,
    pub white: Player,
    pub black: Player,
    pub winner: Option<&'static str>,
    pub year: Option<u16>,
    /// `YYYY-MM` when the month is known.
    pub month: Option<String>,
}

/// One move of a position with the results of the games that played it.
#[derive(Debug, Clone, Serialize)]
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
}

/// An opening's ECO code and name (Lichess's tables).
#[derive(Debug, Clone, Serialize)]
pub struct OpeningName {
    pub eco: String,
    pub name: String,
}

/// What the explorer shows of a chess position.
#[derive(Debug, Clone, Serialize)]
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
    pub opening: Option<OpeningName>,
}

/// One game of a position's game list.
#[derive(Debug, Clone, Serialize)]
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
}

/// A page of the games reaching a position, and how many there are.
#[derive(Debug, Clone, Serialize)]
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
fn tag(tags: &[(String, String)], name: &str) -> String {
    tags.iter()
        .find(|(k, _)| k == name)
        .map_or("?", |(_, v)| v.as_str())
        .to_string()
}

fn uci(pos: &Chess, mode: CastlingMode, code: u16) -> Option<String> {
    code_to_move(pos, code).map(|m| UciMove::from_move(m, mode).to_string())
}

impl Snapshot<'_> {
    fn check_chess(&self) -> Result<()> {
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
        self.check_chess()?;
        let pos = line.last().cloned().unwrap_or_default();
        let ps = self.chess_position(&pos, top_n)?;
        let mut moves = Vec::new();
        let mut ended = 0;
        for (code, s) in &ps.moves {
            if *code == NO_MOVE {
                ended = s.games();
                continue;
            }
            let Some(m) = code_to_move(&pos, *code) else {
                continue;
            };
            moves.push(MoveRow {
                uci: UciMove::from_move(m, mode).to_string(),
                san: SanPlus::from_move(pos.clone(), m).to_string(),
                white: s.first,
                draws: s.draws,
                black: s.second,
                average_rating: s.average_rating(),
                performance: s.performance(),
                first_year: (s.min_year != 0).then_some(s.min_year),
                last_year: (s.max_year != 0).then_some(s.max_year),
                unknown: s.unknown,
            });
        }
        let mut top_games = Vec::new();
        for &(id, code) in &ps.top_games {
            top_games.push(self.top_game(&pos, mode, id, code)?);
        }
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
            opening,
        })
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
        let mut games = Vec::with_capacity(page.len());
        for (id, code) in page {
            let tags = self
                .chess_tags(id)?
                .ok_or_else(|| Error::Corrupt(format!("game {id} is missing")))?;
            let f = self.facts(id)?;
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
            });
        }
        Ok(ChessGames { total, games })
    }
}
