//! Arguments several commands share: where the database is, and a chess position.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tabiya_service::games::{GameSort, PlayerKind};
use tabiya_service::reads::Source;
use tabiya_service::{ChessPosition, Db, OthelloPosition};

/// Where the database lives.
#[derive(Args, Clone)]
pub struct DbArg {
    /// Database directory (default: $TABIYA_DB, else ./tabiya-db).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

impl DbArg {
    pub fn dir(&self) -> PathBuf {
        self.db
            .clone()
            .or_else(|| std::env::var_os("TABIYA_DB").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("tabiya-db"))
    }

    /// Opens the database to read it. When a `tabiya serve` holds it, the error says where
    /// the same answers are.
    pub fn open(&self) -> anyhow::Result<Db> {
        let dir = self.dir();
        match Source::open(&dir)? {
            Source::Local(db) => Ok(db),
            Source::Served(server) => Err(anyhow::anyhow!(
                "{} is served by {}: ask it there (the page, or its /api/ for the same JSON \
                 as --json: see docs/api.md), or stop that server to use it from the \
                 command line",
                dir.display(),
                server.url()
            )),
        }
    }
}

/// Where the database lives, or several chess databases opened as one set.
#[derive(Args, Clone)]
pub struct DbSetArg {
    /// Database directory (default: $TABIYA_DB, else ./tabiya-db). Give it several times to
    /// ask several chess databases as one set (read only; its games are named MEMBER:ID,
    /// 1:42 being game 42 of the first --db).
    #[arg(long = "db", value_name = "DIR")]
    pub dbs: Vec<PathBuf>,
}

impl DbSetArg {
    /// The directory, or a set's first, for messages.
    pub fn dir(&self) -> PathBuf {
        self.one().dir()
    }

    fn one(&self) -> DbArg {
        DbArg {
            db: self.dbs.first().cloned(),
        }
    }
}

/// A chess position given on the command line.
#[derive(Args, Clone)]
pub struct PositionArg {
    /// Position as FEN.
    #[arg(long, conflicts_with = "play")]
    pub fen: Option<String>,
    /// Moves from the start, UCI or SAN, separated by commas or spaces (e2e4,c7c5).
    #[arg(long)]
    pub play: Option<String>,
}

impl PositionArg {
    pub fn is_given(&self) -> bool {
        self.fen.is_some() || self.play.is_some()
    }

    /// The position (the start when none is given).
    pub fn resolve(&self) -> tabiya_service::Result<ChessPosition> {
        ChessPosition::resolve(self.fen.as_deref(), self.play.as_deref())
    }
}

/// `--moves` of `tabiya explore` (Othello databases).
#[derive(Args, Clone, Default)]
pub struct MovesArg {
    /// Othello: the position after these moves from the start, like f5d6c3d3c4 (any of the 8
    /// orientations; "" or absent = the start position)
    #[arg(long, value_name = "LINE", conflicts_with_all = ["fen", "play"])]
    pub moves: Option<String>,
}

impl MovesArg {
    pub fn resolve(&self) -> tabiya_service::Result<OthelloPosition> {
        OthelloPosition::from_line(self.moves.as_deref().unwrap_or(""))
    }
}

/// `--jou`/`--trn` of `tabiya import` (WTHOR only).
#[derive(Args, Clone, Default)]
pub struct WthorNameArgs {
    /// WTHOR player names (.jou) for every .wtb file [default: WTHOR.JOU beside each file]
    #[arg(long, value_name = "FILE")]
    pub jou: Option<PathBuf>,
    /// WTHOR tournament names (.trn) for every .wtb file [default: WTHOR.TRN beside each file]
    #[arg(long, value_name = "FILE")]
    pub trn: Option<PathBuf>,
}

/// Filters of `tabiya games` on an Othello database.
#[derive(Args, Clone, Default)]
pub struct OthelloFilterArgs {
    /// Othello: games reaching the position after these moves (any orientation, any order)
    #[arg(long, value_name = "LINE", conflicts_with_all = ["fen", "play"])]
    pub moves: Option<String>,
    /// Games of a player: chess, by any spelling of theirs (any case: `Polgar,Ju` finds
    /// every game of Judit Polgar); Othello, whose name contains this (case-insensitive)
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Othello: games of a tournament whose name contains this (case-insensitive)
    #[arg(long, value_name = "NAME")]
    pub tournament: Option<String>,
    /// Othello: games from this year on
    #[arg(long, value_name = "YEAR")]
    pub from: Option<u16>,
    /// Othello: games up to this year
    #[arg(long, value_name = "YEAR")]
    pub to: Option<u16>,
    /// Othello: games between two humans (no name contains "(")
    #[arg(long, conflicts_with = "programs")]
    pub humans: bool,
    /// Othello: games with at least one program (a name containing "(")
    #[arg(long)]
    pub programs: bool,
}

impl OthelloFilterArgs {
    pub fn players(&self) -> PlayerKind {
        if self.humans {
            PlayerKind::Humans
        } else if self.programs {
            PlayerKind::Programs
        } else {
            PlayerKind::Any
        }
    }
}

/// How to order a game list.
#[derive(Clone, Copy, ValueEnum)]
pub enum SortArg {
    Rating,
    Date,
    Id,
}

impl From<SortArg> for GameSort {
    fn from(s: SortArg) -> GameSort {
        match s {
            SortArg::Rating => GameSort::Rating,
            SortArg::Date => GameSort::Date,
            SortArg::Id => GameSort::Id,
        }
    }
}

/// How to order a position's games (`tabiya games`): also by ECO, length and result.
#[derive(Clone, Copy, ValueEnum)]
pub enum GamesSortArg {
    Rating,
    Date,
    Id,
    Eco,
    Length,
    Result,
}

impl From<GamesSortArg> for GameSort {
    fn from(s: GamesSortArg) -> GameSort {
        match s {
            GamesSortArg::Rating => GameSort::Rating,
            GamesSortArg::Date => GameSort::Date,
            GamesSortArg::Id => GameSort::Id,
            GamesSortArg::Eco => GameSort::Eco,
            GamesSortArg::Length => GameSort::Length,
            GamesSortArg::Result => GameSort::Result,
        }
    }
}

/// The explorer's filters of a chess database (with a player given apart: `--player`).
#[derive(Args, Clone, Default)]
pub struct ChessFilterArgs {
    /// Chess: the colour the player (--player) had
    #[arg(long, value_name = "white|black")]
    pub color: Option<String>,
    /// Chess: games from this month on (YYYY or YYYY-MM)
    #[arg(long, value_name = "YYYY[-MM]")]
    pub since: Option<String>,
    /// Chess: games up to this month (YYYY or YYYY-MM)
    #[arg(long, value_name = "YYYY[-MM]")]
    pub until: Option<String>,
    /// Chess: time-control class (ultraBullet, bullet, blitz, rapid, classical, correspondence); repeatable
    #[arg(long = "speed", value_name = "CLASS")]
    pub speeds: Vec<String>,
    /// Chess: lowest mean rating of the two players
    #[arg(long, value_name = "ELO")]
    pub rating_min: Option<u16>,
    /// Chess: highest mean rating of the two players
    #[arg(long, value_name = "ELO")]
    pub rating_max: Option<u16>,
    /// Chess: only the games of this gameset (tabiya gameset)
    #[arg(long, value_name = "NAME")]
    pub gameset: Option<String>,
    /// Chess: only the games meeting these criteria, e.g. "avgelo >= 2500" (docs/gamesets.md)
    #[arg(long = "where", value_name = "CRITERIA")]
    pub criteria: Option<String>,
}

impl ChessFilterArgs {
    pub fn is_given(&self) -> bool {
        self.color.is_some()
            || self.since.is_some()
            || self.until.is_some()
            || !self.speeds.is_empty()
            || self.rating_min.is_some()
            || self.rating_max.is_some()
            || self.gameset.is_some()
            || self.criteria.is_some()
    }

    /// The filter, with the player (any spelling of theirs, any case) when given.
    pub fn filter(&self, player: Option<&str>) -> anyhow::Result<tabiya_service::filter::Filter> {
        Ok(tabiya_service::filter::Filter {
            since: self.since.clone(),
            until: self.until.clone(),
            rating_min: self.rating_min,
            rating_max: self.rating_max,
            speeds: self.speeds.clone(),
            player: player.map(str::to_string),
            colour: self
                .color
                .as_deref()
                .map(tabiya_service::filter::Colour::from_name)
                .transpose()?,
            gameset: self.gameset.clone(),
            criteria: self.criteria.clone(),
            ..Default::default()
        })
    }
}
