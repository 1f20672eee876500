//! `tabiya db merge`: other chess databases' games into one.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use tabiya_service::import::{ImportProgress, ImportReport};
use tabiya_service::merge;

use crate::output::{ImportTicker, print_json};

#[derive(Subcommand)]
pub enum DbCommand {
    /// Merge chess databases into one (created when missing): games already there are
    /// skipped, names unified, every statistic exact; killed, run it again to finish.
    Merge(MergeArgs),
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
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: DbCommand) -> anyhow::Result<()> {
    match cmd {
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
    }
}
