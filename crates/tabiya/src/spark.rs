//! `tabiya spark`: the worker commands a cluster build's stages run on each batch of games
//! (`scripts/spark/tabiya_build.py`; `docs/scale.md`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use tabiya_service::cluster;

use crate::output::print_json;

#[derive(Subcommand)]
pub enum SparkCommand {
    /// Parse a batch of games as an import would: each row's text, duplicate digest and
    /// counted positions, or why it is refused (IN: a Parquet file with a `pgn` column, or
    /// a games table).
    Games(WorkerArgs),
    /// Every counted position of a batch of games with ids (IN: `id`, `pgn`), with its
    /// whole key, for the cluster's sort.
    Occurrences(WorkerArgs),
}

#[derive(Args)]
pub struct WorkerArgs {
    /// The batch (Parquet).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Where its rows go (Parquet).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Count positions up to this ply only (as the database loaded will: `import --max-ply`).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// What was done, as JSON (else one line).
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SparkCommand) -> anyhow::Result<()> {
    let (a, report) = match cmd {
        SparkCommand::Games(a) => {
            let r = cluster::prepare_games(&a.input, &a.output, a.max_ply)?;
            (a, r)
        }
        SparkCommand::Occurrences(a) => {
            let r = cluster::occurrences(&a.input, &a.output, a.max_ply)?;
            (a, r)
        }
    };
    if a.json {
        return print_json(&report);
    }
    println!(
        "{}: {} games, {} accepted, {} refused, {} occurrences",
        a.output.display(),
        report.rows,
        report.accepted,
        report.refused,
        report.occurrences
    );
    Ok(())
}
