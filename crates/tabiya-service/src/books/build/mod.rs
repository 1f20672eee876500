//! Building a book from PGN files or a Tabiya database: Polyglot (byte-identical to
//! `polyglot make-book`), CTG, Kvetka.

mod ctg;
mod kvetka;
mod polyglot;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use tabiya_books::convert::BookFormat;

use super::games::{self, InputGame, ReadOptions, ReadSummary};
use super::paths::create_parent;
use crate::error::{Error, Result};

pub use super::games::Problem;

/// What to build, from what.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The book format to write.
    pub format: BookFormat,
    /// A Polyglot `.bin`; a CTG stem or `.ctg` (writes `.ctg/.cto/.ctb/.ini`); a Kvetka
    /// `dir/name` (writes `name_0.kob`, … `name.kin`, `name.ksf`).
    pub output: PathBuf,
    /// PGN files (plain, .zst, .gz, .bz2; `-` for standard input).
    pub inputs: Vec<PathBuf>,
    /// Build from the games of this Tabiya database instead of PGN files.
    pub db: Option<PathBuf>,
    /// With `db`: only the games of this gameset.
    pub gameset: Option<String>,
    /// Leave out positions and moves seen in fewer games (default 3 for Polyglot, as
    /// `polyglot make-book`; 1 for CTG and Kvetka, so the book agrees with the database).
    pub min_game: Option<u32>,
    /// Count only the first N half-moves of each game (Polyglot default 1024; CTG and
    /// Kvetka: whole games; Kvetka at most 254).
    pub max_ply: Option<u32>,
    /// Keep only positions with White (Black) to move.
    pub only_white: bool,
    pub only_black: bool,
    /// Polyglot: every move gets weight 1.
    pub uniform: bool,
    /// Kvetka options: the book's caption (default: its name), the header's Elo filters,
    /// transpositions (`links`), no game references, the `.kob` split size.
    pub kvetka: KvetkaOptions,
    /// Parse threads (default: the machine's cores).
    pub threads: Option<usize>,
}

/// Options only a Kvetka book has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KvetkaOptions {
    /// The book's caption (default: its name).
    pub caption: Option<String>,
    /// Only games whose White, Black, stronger or weaker player is rated at least this
    /// (written to the book's header; unrated games fail every non-zero filter).
    pub min_white_elo: u16,
    pub min_black_elo: u16,
    pub min_stronger_elo: u16,
    pub min_weaker_elo: u16,
    /// Set the header's `links` flag and add every legal move between two stored positions
    /// (transpositions), as Kvetka does when adding games.
    pub links: bool,
    /// Store no game references in elements (`element_type` bit 0 clear; no `.ksf`).
    pub no_game_links: bool,
    /// Split `.kob` files so none passes this many bytes (default 20 MB, at least one
    /// 2048-byte block per file).
    pub split_size: Option<u64>,
}

impl KvetkaOptions {
    /// Whether any was given.
    fn any(&self) -> bool {
        *self != KvetkaOptions::default()
    }
}

/// What a build did.
#[derive(Debug, Clone, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct BuildReport {
    pub format: Option<BookFormat>,
    pub files: Vec<PathBuf>,
    /// Games found in the inputs, skipped as unreadable, and counted.
    pub games: u64,
    pub games_skipped: u64,
    pub games_used: u64,
    /// Polyglot: games not from the standard start (skipped, as make-book cannot replay
    /// them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_non_standard_start: Option<u64>,
    pub positions: u64,
    pub moves: u64,
    /// What the format could not hold, counted (CTG and Kvetka).
    pub lost: BTreeMap<&'static str, u64>,
    pub problems: Vec<Problem>,
    pub seconds: f64,
    pub games_per_second: f64,
}

impl BuildReport {
    fn lose(&mut self, what: &'static str, n: u64) {
        if n > 0 {
            *self.lost.entry(what).or_default() += n;
        }
    }
}

/// `book build`: checks that the options go together, then builds.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let format = opts.format;
    if opts.inputs.is_empty() && opts.db.is_none() {
        return Err(Error::bad_request(
            "give PGN files (or - for standard input), or --db DIR",
        ));
    }
    if opts.uniform && format != BookFormat::Polyglot {
        return Err(Error::bad_request(format!(
            "--uniform is a Polyglot option (weights); {format} books hold statistics"
        )));
    }
    if opts.kvetka.any() && format != BookFormat::Kvetka {
        return Err(Error::bad_request(format!(
            "--min-*-elo, --links, --no-game-links, --split-size and --caption are Kvetka options; \
             not for {format} books"
        )));
    }
    create_parent(&opts.output)?;
    let started = Instant::now();
    let mut report = match format {
        BookFormat::Polyglot => polyglot::build(opts)?,
        BookFormat::Ctg => ctg::build(opts)?,
        BookFormat::Kvetka => kvetka::build(opts)?,
    };
    report.format = Some(format);
    report.seconds = started.elapsed().as_secs_f64();
    report.games_per_second = if report.seconds > 0.0 {
        report.games as f64 / report.seconds
    } else {
        0.0
    };
    Ok(report)
}

fn threads(opts: &BuildOptions) -> usize {
    opts.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

/// The games of the inputs (PGN or database) streamed to `f` in input order.
fn with_games<R>(
    opts: &BuildOptions,
    names: bool,
    polyglot_max_ply: Option<u32>,
    f: impl FnOnce(&mut dyn Iterator<Item = InputGame>) -> R,
) -> Result<(R, ReadSummary)> {
    if let Some(dir) = &opts.db {
        let (games, summary) = games::read_database(dir, None, names, opts.gameset.as_deref())?;
        let r = f(&mut games.into_iter());
        return Ok((r, summary));
    }
    let mut stream = games::read_pgn(
        &opts.inputs,
        ReadOptions {
            threads: threads(opts),
            names,
            polyglot_max_ply,
        },
    )?;
    let r = f(&mut stream);
    let summary = stream.summary().clone();
    summary.finish()?;
    Ok((r, summary))
}
