//! `tabiya db merge`: other chess databases' games into one; `tabiya db subset`: a new
//! database of a gameset's games; `tabiya db load`: a cluster build into a new database.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use tabiya_service::export::Selection;
use tabiya_service::import::{ImportProgress, ImportReport};
use tabiya_service::merge;

use crate::output::{ImportTicker, print_json};

#[derive(Subcommand)]
pub enum DbCommand {
    /// Merge chess databases into one (created when missing): games already there are
    /// skipped, names unified, every statistic exact; killed, run it again to finish.
    Merge(MergeArgs),
    /// A new database of a gameset's games (or of the games meeting criteria), as CDB made
    /// one: the games as they stand, the corrections of names with them.
    Subset(SubsetArgs),
    /// Load a cluster build (`scripts/spark/tabiya_build.py --out BUILD`) into a new
    /// database: its games stored, their index assembled from its sorted occurrences.
    Load(LoadArgs),
    /// Build the structure index (material signatures and pawn structures of every
    /// position, for `tabiya search` at index speed) of the games stored before it was kept;
    /// from then on every import keeps it. Killed, run it again to finish.
    Structures(StructuresArgs),
}

#[derive(Args)]
pub struct StructuresArgs {
    #[command(flatten)]
    pub db: crate::args::DbArg,
    /// Print what was done as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct LoadArgs {
    /// The build's directory (with `games/` and `index/`).
    #[arg(value_name = "BUILD")]
    pub build: PathBuf,
    #[command(flatten)]
    pub db: crate::args::DbArg,
    /// The ply cap the build used (`--max-ply` of the job).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// Index memory in MiB for storing the games (as `tabiya import --memory`).
    #[arg(long, value_name = "MIB")]
    pub memory: Option<u64>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SubsetArgs {
    #[command(flatten)]
    pub db: crate::args::DbArg,
    /// The gameset whose games go in.
    #[arg(long, value_name = "NAME", required_unless_present = "criteria")]
    pub gameset: Option<String>,
    /// The games meeting these criteria go in (docs/gamesets.md).
    #[arg(long = "where", value_name = "CRITERIA", conflicts_with = "gameset")]
    pub criteria: Option<String>,
    /// The new database's directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Games per transaction (as `tabiya import --batch`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// The database to merge into.
    #[arg(long, value_name = "DIR")]
    pub into: PathBuf,
    /// The databases whose games go in.
    #[arg(required = true, value_name = "SRC")]
    pub sources: Vec<PathBuf>,
    /// Games per transaction (as `tabiya import --batch`; default: as many as memory allows).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: DbCommand) -> anyhow::Result<()> {
    match cmd {
        DbCommand::Structures(a) => {
            let db = a.db.open()?;
            let bar = crate::output::progress_count(0, "structure index");
            let built = tabiya_service::search::build_index(&db, |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            });
            bar.finish_and_clear();
            let built = built?;
            if a.json {
                return print_json(&built);
            }
            let indexed = match built.games {
                0 => "every game was in the shape index already".to_string(),
                n => format!("{n} games added to the shape index"),
            };
            let squared = match built.squared {
                0 => "every game was in the square index already".to_string(),
                n => format!("{n} to the square index"),
            };
            println!(
                "structure index of {}: {indexed}, {squared}; statistics of {} popular shapes (reached by {} games or more) over {} games{}; imports keep it from now on",
                a.db.dir().display(),
                built.statistics.records,
                built.statistics.threshold,
                built.statistics.games,
                if built.recounted {
                    ""
                } else {
                    " (as counted before: no game is new)"
                }
            );
            Ok(())
        }
        DbCommand::Merge(a) => {
            let progress = Arc::new(ImportProgress::default());
            let ticker = ImportTicker::start(&progress, a.sources.len());
            let result = merge::merge(&a.into, &a.sources, a.batch.unwrap_or(0), &progress);
            ticker.finish();
            let r = result?;
            if a.json {
                return print_json(&r);
            }
            if let ImportReport::Chess(s) = &r.import {
                crate::import::print_chess(s, &a.into)?;
            }
            if r.rules > 0 {
                println!("  name corrections brought over: {}", r.rules);
            }
            if let Some(f) = &r.spelling {
                println!("  spelling file brought over: {f}");
            }
            Ok(())
        }
        DbCommand::Load(a) => {
            let progress = Arc::new(ImportProgress::default());
            let ticker = ImportTicker::start(&progress, 1);
            let dir = a.db.dir();
            let result =
                tabiya_service::cluster::load(&a.build, &dir, a.max_ply, a.memory, &progress);
            ticker.finish();
            let s = result?;
            if a.json {
                return print_json(&s);
            }
            crate::import::print_chess(&s, &dir)
        }
        DbCommand::Subset(a) => {
            let selection = match (&a.gameset, &a.criteria) {
                (Some(g), _) => Selection::Gameset(g.clone()),
                (None, Some(c)) => Selection::Where(c.clone()),
                (None, None) => unreachable!("clap requires one"),
            };
            let progress = Arc::new(ImportProgress::default());
            let ticker = ImportTicker::start(&progress, 1);
            let result = merge::subset(
                &a.db.dir(),
                &selection,
                &a.output,
                a.batch.unwrap_or(0),
                &progress,
            );
            ticker.finish();
            let r = result?;
            if a.json {
                return print_json(&r);
            }
            if let ImportReport::Chess(s) = &r.import {
                crate::import::print_chess(s, &a.output)?;
            }
            Ok(())
        }
    }
}
