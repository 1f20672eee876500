//! Othello questions: a position asked by a line of moves (any orientation, any order), its
//! explorer answer, and game lists with filters.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tabiya_othello::wthor::{Name, NameKind};
use tabiya_othello::{Board, Canonical, Color, Replay, Square, canonicalize, format_transcript};

use crate::answers::{GameSort, Snapshot};
use crate::game::NO_MOVE;
use crate::othello::keys::{index_key, mover, settle};
use crate::othello::names::{WTHOR, WthorNames, name_key};
use crate::othello::stored::StoredGame;
use crate::stats::{GameOutcome, Stats};
use crate::{Error, Kind, Result};

/// A position asked by a line of moves from the start (passes implicit), in the orientation
/// the user gave.
#[derive(Debug, Clone)]
pub struct AskedPosition {
    /// The line.
    pub moves: Vec<Square>,
    /// The position reached, with the side that plays next to move ([`settle`]).
    pub board: Board,
    /// Its canonical form.
    pub canonical: Canonical,
}

impl AskedPosition {
    /// The position after a transcript like `f5d6c3` (empty = the start position).
    pub fn from_line(text: &str) -> Result<AskedPosition> {
        let moves = tabiya_othello::parse_transcript(text)
            .map_err(|e| Error::Usage(format!("--moves: {e}")))?;
        AskedPosition::from_moves(moves)
    }

    /// The position after these moves.
    pub fn from_moves(moves: Vec<Square>) -> Result<AskedPosition> {
        let mut replay = Replay::new(&moves).without_canonical();
        for ply in replay.by_ref() {
            ply.map_err(|e| Error::Usage(format!("--moves: {e} ({} to move)", e.board.side())))?;
        }
        let board = settle(replay.board());
        let canonical = canonicalize(&board);
        Ok(AskedPosition {
            moves,
            board,
            canonical,
        })
    }

    /// The index key of the position.
    pub fn index_key(&self) -> u128 {
        index_key(self.canonical.key)
    }

    /// The index keys of the positions one legal move away (the index finds a rare position
    /// through the entry of the position after it).
    pub fn successor_keys(&self) -> Vec<u128> {
        Square::iter_bits(self.board.legal_moves())
            .filter_map(|m| self.board.play(m).ok())
            .map(|b| index_key(canonicalize(&settle(&b)).key))
            .collect()
    }

    /// The moves of the asked orientation that a canonical move code stands for: one square,
    /// or several when the position has symmetries of its own (f5, d3, c4, e6 from the start).
    /// The first is the representative shown: the one furthest towards column h, then row 1
    /// (f5 from the start, the move every WTHOR game begins with).
    pub fn user_moves(&self, code: u16) -> Vec<Square> {
        let Some(sq) = u8::try_from(code).ok().and_then(Square::new) else {
            return Vec::new();
        };
        let mut v: Vec<Square> = Square::iter_bits(self.board.legal_moves())
            .filter(|&u| self.canonical.canonical_move(u) == sq)
            .collect();
        if v.is_empty() {
            v.push(self.canonical.to_original(sq));
        }
        v.sort_by_key(|s| (std::cmp::Reverse(s.column()), s.row()));
        v
    }
}

/// A name with its WTHOR id.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, serde::Deserialize)]
pub struct NamedId {
    pub id: u16,
    pub name: String,
}

/// One game as listed by `explore` and `games`.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloGameRow {
    pub id: u32,
    pub year: u16,
    pub tournament: NamedId,
    pub black: NamedId,
    pub white: NamedId,
    pub black_score: u8,
    pub theoretical_score: u8,
    /// `black`, `white` or `draw` (from the stored score).
    #[serde(deserialize_with = "crate::words::word")]
    pub winner: crate::words::Word,
    /// The moves as stored (WTHOR orientation).
    pub moves: String,
    /// The move this game played in the asked position, in the asked orientation (absent when
    /// no position was asked or the game ended there).
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub played: Option<String>,
}

/// The classic opening of an asked line.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningInfo {
    pub name: String,
    pub aliases: Vec<String>,
    /// The opening's line as in the table (from f5).
    pub line: String,
    /// Moves of the asked line played when the named position is reached.
    pub at_move: usize,
}

/// One next move of an explored position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloMove {
    /// The move in the asked orientation.
    #[serde(rename = "move")]
    pub square: String,
    /// Other moves of the asked position that are the same move by a symmetry of the position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equivalent: Vec<String>,
    pub games: u64,
    pub black: u64,
    pub draws: u64,
    pub white: u64,
    /// Wins of the side to move plus half the draws, over the games.
    pub win_rate: f64,
    pub average_black_discs: Option<f64>,
    pub average_theoretical_score: Option<f64>,
}

/// What the database knows of an Othello position.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloExplore {
    /// The asked line.
    pub line: String,
    /// `black` or `white`; `none` when the game is over.
    #[serde(deserialize_with = "crate::words::word")]
    pub side_to_move: crate::words::Word,
    /// Canonical position key (hex).
    pub key: String,
    pub games: u64,
    pub black: u64,
    pub draws: u64,
    pub white: u64,
    /// Games that ended in this position.
    pub ended: u64,
    /// Mean of black's stored final score over the games.
    pub average_black_discs: Option<f64>,
    /// Mean of the stored theoretical black score.
    pub average_theoretical_score: Option<f64>,
    pub moves: Vec<OthelloMove>,
    pub opening: Option<OpeningInfo>,
    /// Newest games reaching the position.
    pub top_games: Vec<OthelloGameRow>,
}

fn averages(s: &Stats) -> (Option<f64>, Option<f64>) {
    if s.value_games == 0 {
        return (None, None);
    }
    let n = s.value_games as f64;
    (Some(s.value_sum as f64 / n), Some(s.value2_sum as f64 / n))
}

fn winner(g: &StoredGame) -> &'static str {
    match g.outcome() {
        GameOutcome::FirstWins => "black",
        GameOutcome::SecondWins => "white",
        _ => "draw",
    }
}

/// Which games by the kind of their players.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PlayerKind {
    #[default]
    Any,
    /// Neither player is a program.
    Humans,
    /// At least one player is a program (its name contains "(").
    Programs,
}

/// Filters of [`Snapshot::othello_games`].
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    /// Games reaching this position (any move order, any orientation).
    pub position: Option<AskedPosition>,
    /// A player (black or white) whose name contains this, case-insensitive.
    pub player: Option<String>,
    /// A tournament whose name contains this, case-insensitive.
    pub tournament: Option<String>,
    /// First year.
    pub from: Option<u16>,
    /// Last year.
    pub to: Option<u16>,
    pub players: PlayerKind,
}

/// A page of games.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OthelloGames {
    /// Games matching the filters.
    pub total: u64,
    pub offset: usize,
    pub games: Vec<OthelloGameRow>,
}

fn matching_ids(list: &[Name], needle: &str) -> HashSet<u16> {
    let needle = needle.to_lowercase();
    list.iter()
        .enumerate()
        .filter(|(_, n)| n.text().to_lowercase().contains(&needle))
        .filter_map(|(i, _)| u16::try_from(i).ok())
        .collect()
}

/// Names for rows of games: all loaded, or read one by one from the store.
enum RowNames<'n> {
    Loaded(&'n WthorNames),
    Store(tabiya_store::TableRef),
}

impl RowNames<'_> {
    fn get(&self, kind: NameKind, id: u16) -> Result<String> {
        Ok(match (self, kind) {
            (RowNames::Loaded(n), NameKind::Players) => n.player(id),
            (RowNames::Loaded(n), NameKind::Tournaments) => n.tournament(id),
            (RowNames::Store(t), _) => t
                .get(&name_key(kind, id))?
                .map_or_else(|| "?".to_string(), |raw| Name { raw }.text()),
        })
    }
}

impl Snapshot<'_> {
    /// A stored Othello game.
    pub fn othello_game(&self, id: u32) -> Result<Option<StoredGame>> {
        match self.game_record(id)? {
            Some(data) => Ok(Some(StoredGame::decode(&data)?)),
            None => Ok(None),
        }
    }

    /// The name of one player or tournament (`?` for an id without a name).
    pub fn wthor_name(&self, kind: NameKind, id: u16) -> Result<String> {
        RowNames::Store(self.read_tx().table(WTHOR)?).get(kind, id)
    }

    /// The WTHOR names and headers of the database.
    pub fn wthor_names(&self) -> Result<WthorNames> {
        WthorNames::load(self.read_tx())
    }

    fn row(
        &self,
        names: &RowNames<'_>,
        id: u32,
        code: Option<u16>,
        asked: Option<&AskedPosition>,
    ) -> Result<OthelloGameRow> {
        let g = self
            .othello_game(id)?
            .ok_or_else(|| Error::Corrupt(format!("the index refers to missing game {id}")))?;
        let played = match (code, asked) {
            (Some(c), Some(a)) if c != NO_MOVE => a.user_moves(c).first().map(|s| s.to_string()),
            _ => None,
        };
        Ok(OthelloGameRow {
            id,
            year: g.year,
            tournament: NamedId {
                id: g.tournament,
                name: names.get(NameKind::Tournaments, g.tournament)?,
            },
            black: NamedId {
                id: g.black,
                name: names.get(NameKind::Players, g.black)?,
            },
            white: NamedId {
                id: g.white,
                name: names.get(NameKind::Players, g.white)?,
            },
            black_score: g.black_score,
            theoretical_score: g.theoretical_score,
            winner: winner(&g),
            moves: format_transcript(&g.moves),
            played,
        })
    }

    /// Statistics of a position: totals, every next move in the asked orientation, the
    /// classic opening of the line, the newest `top_n` games.
    pub fn othello_explore(&self, asked: &AskedPosition, top_n: usize) -> Result<OthelloExplore> {
        if self.database().kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is not an Othello database",
                self.database().dir().display()
            )));
        }
        let ps = self.position_with(asked.index_key(), &asked.successor_keys(), top_n)?;
        let side = if asked.board.is_game_over() {
            None
        } else {
            Some(asked.board.side())
        };
        let mut moves = Vec::new();
        let mut ended = 0;
        for (code, s) in &ps.moves {
            if *code == NO_MOVE {
                ended += s.games();
                continue;
            }
            let squares = asked.user_moves(*code);
            let Some(first) = squares.first() else {
                continue;
            };
            let wins = match side {
                Some(Color::Black) => s.first,
                _ => s.second,
            };
            let games = s.games();
            let (avg_discs, avg_theory) = averages(s);
            moves.push(OthelloMove {
                square: first.to_string(),
                equivalent: squares[1..].iter().map(|s| s.to_string()).collect(),
                games,
                black: s.first,
                draws: s.draws,
                white: s.second,
                win_rate: if games == 0 {
                    0.0
                } else {
                    (wins as f64 + s.draws as f64 / 2.0) / games as f64
                },
                average_black_discs: avg_discs,
                average_theoretical_score: avg_theory,
            });
        }
        // A few rows: their names are read one by one rather than all loaded.
        let names = RowNames::Store(self.read_tx().table(WTHOR)?);
        let mut top_games = Vec::new();
        for &(id, code) in ps.top_games.iter().take(top_n) {
            top_games.push(self.row(&names, id, Some(code), Some(asked))?);
        }
        let opening = tabiya_othello::deepest_opening(&asked.moves).map(|(at, o)| OpeningInfo {
            name: o.name.to_string(),
            aliases: o.aliases.iter().map(|a| a.to_string()).collect(),
            line: format_transcript(&o.moves),
            at_move: at,
        });
        let t = &ps.totals;
        let (average_black_discs, average_theoretical_score) = averages(t);
        Ok(OthelloExplore {
            line: format_transcript(&asked.moves),
            side_to_move: match side {
                Some(c) => {
                    if c == Color::Black {
                        "black"
                    } else {
                        "white"
                    }
                }
                None => "none",
            },
            key: asked.canonical.key.to_string(),
            games: t.games(),
            black: t.first,
            draws: t.draws,
            white: t.second,
            ended,
            average_black_discs,
            average_theoretical_score,
            moves,
            opening,
            top_games,
        })
    }

    /// The games matching the filters, sorted (`Date`: newest year first, then id; `Rating`
    /// is taken as `Date`, WTHOR has no ratings; `Id`: import order) and paged.
    pub fn othello_games(
        &self,
        filter: &GameFilter,
        sort: GameSort,
        offset: usize,
        limit: usize,
    ) -> Result<OthelloGames> {
        if self.database().kind() != Kind::Othello {
            return Err(Error::Usage(format!(
                "{} is not an Othello database",
                self.database().dir().display()
            )));
        }
        let names = self.wthor_names()?;
        let candidates: Vec<(u32, Option<u16>)> = match &filter.position {
            Some(a) => self
                .position_games_with(
                    a.index_key(),
                    &a.successor_keys(),
                    GameSort::Id,
                    0,
                    usize::MAX,
                )?
                .1
                .into_iter()
                .map(|(g, c)| (g, Some(c)))
                .collect(),
            None => self
                .all_game_ids()?
                .into_iter()
                .map(|g| (g, None))
                .collect(),
        };
        let players = filter
            .player
            .as_deref()
            .map(|p| matching_ids(&names.players, p));
        let tournaments = filter
            .tournament
            .as_deref()
            .map(|t| matching_ids(&names.tournaments, t));
        let need_record =
            players.is_some() || tournaments.is_some() || filter.players != PlayerKind::Any;
        let mut kept: Vec<(u32, Option<u16>, u16)> = Vec::new();
        for (i, (id, code)) in candidates.into_iter().enumerate() {
            if i % 1024 == 1023 {
                crate::deadline::check()?;
            }
            let year = self.facts(id)?.year.unwrap_or(0);
            if filter.from.is_some_and(|y| year < y) || filter.to.is_some_and(|y| year > y) {
                continue;
            }
            if need_record {
                let g = self
                    .othello_game(id)?
                    .ok_or_else(|| Error::Corrupt(format!("missing game {id}")))?;
                if players
                    .as_ref()
                    .is_some_and(|p| !p.contains(&g.black) && !p.contains(&g.white))
                {
                    continue;
                }
                if tournaments
                    .as_ref()
                    .is_some_and(|t| !t.contains(&g.tournament))
                {
                    continue;
                }
                let program = names.is_program(g.black) || names.is_program(g.white);
                match filter.players {
                    PlayerKind::Humans if program => continue,
                    PlayerKind::Programs if !program => continue,
                    _ => {}
                }
            }
            kept.push((id, code, year));
        }
        match sort {
            GameSort::Id => kept.sort_unstable_by_key(|k| k.0),
            GameSort::Date | GameSort::Rating => {
                kept.sort_unstable_by_key(|k| (std::cmp::Reverse(k.2), k.0))
            }
            GameSort::Eco | GameSort::Length | GameSort::Result => {
                return Err(Error::Usage(
                    "Othello games are sorted by date or id (ECO, length and result are chess's)"
                        .into(),
                ));
            }
        }
        let total = kept.len() as u64;
        let mut games = Vec::new();
        for &(id, code, _) in kept.iter().skip(offset).take(limit) {
            games.push(self.row(
                &RowNames::Loaded(&names),
                id,
                code,
                filter.position.as_ref(),
            )?);
        }
        Ok(OthelloGames {
            total,
            offset,
            games,
        })
    }
}

/// What WZebra does without an index: replays every game to the asked position's move number
/// and compares canonical keys there. Returns the totals, the statistics per canonical move
/// code ([`NO_MOVE`] for games ending there) and the indices of the matching games. For
/// benchmarks and for checking the index.
pub fn scan_games<'a>(
    games: impl IntoIterator<Item = &'a StoredGame>,
    asked: &AskedPosition,
) -> (Stats, HashMap<u16, Stats>, Vec<usize>) {
    let n = asked.board.disc_count() as usize - 4;
    let want = asked.canonical.key;
    let mut totals = Stats::default();
    let mut moves: HashMap<u16, Stats> = HashMap::new();
    let mut found = Vec::new();
    'games: for (i, g) in games.into_iter().enumerate() {
        if g.moves.len() < n {
            continue;
        }
        let mut board = Board::start();
        for &sq in &g.moves[..n] {
            match board.play_or_pass(sq) {
                Ok((b, _)) => board = b,
                Err(_) => continue 'games,
            }
        }
        let board = settle(&board);
        let c = canonicalize(&board);
        if c.key != want {
            continue;
        }
        let code = g
            .moves
            .get(n)
            .map_or(NO_MOVE, |&sq| c.canonical_move(sq).index() as u16);
        let f = g.facts();
        totals.add_game(&f, mover(board.side()));
        moves
            .entry(code)
            .or_default()
            .add_game(&f, mover(board.side()));
        found.push(i);
    }
    (totals, moves, found)
}
