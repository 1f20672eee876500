//! `tabiya gen`: deterministic realistic PGN for scale benchmarks.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tabiya_gen::Model;

use crate::output::print_json;

#[derive(Args)]
pub struct GenArgs {
    /// Number of games to write.
    #[arg(long)]
    pub games: u64,
    /// Random seed: the same seed and sources give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file (.zst to compress; default standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Real games to learn from (default: the bundled sample).
    #[arg(long = "from", value_name = "PGN")]
    pub from: Vec<PathBuf>,
    /// Print what was written as JSON on standard output (needs --output).
    #[arg(long, requires = "output")]
    pub json: bool,
}

/// What `gen` wrote.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenSummary {
    games: u64,
    seed: u64,
    output: PathBuf,
    bytes: u64,
    learned_games: u64,
    tree_positions: usize,
    seconds: f64,
}

pub fn generate(args: GenArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let mut model = Model::default();
    if args.from.is_empty() {
        model.learn_pgn(zstd::stream::read::Decoder::new(crate::demo::sample())?)?;
    }
    for p in &args.from {
        let input =
            tabiya_pgn::input::open(p).with_context(|| format!("reading {}", p.display()))?;
        model
            .learn_pgn(input.reader)
            .with_context(|| format!("reading {}", p.display()))?;
    }
    anyhow::ensure!(model.games_learned() > 0, "no standard games to learn from");
    let out: Box<dyn Write> = match &args.output {
        Some(p) => {
            let f = std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
            );
            if p.extension().is_some_and(|e| e == "zst") {
                Box::new(zstd::stream::write::Encoder::new(f, 3)?.auto_finish())
            } else {
                Box::new(f)
            }
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    // A bar on a terminal when writing to a file (standard output carries the games).
    let bar = ProgressBar::with_draw_target(Some(args.games), ProgressDrawTarget::stderr());
    if args.output.is_none() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    tabiya_gen::generate_with_progress(&model, args.games, args.seed, out, |n| {
        bar.set_position(n)
    })?;
    bar.finish_and_clear();
    if let Some(p) = &args.output {
        let summary = GenSummary {
            games: args.games,
            seed: args.seed,
            output: p.clone(),
            bytes: std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
            learned_games: model.games_learned(),
            tree_positions: model.tree_positions(),
            seconds: started.elapsed().as_secs_f64(),
        };
        if args.json {
            return print_json(&summary);
        }
        eprintln!(
            "wrote {} games learned from {} real games ({} positions in the opening tree)",
            summary.games, summary.learned_games, summary.tree_positions
        );
    }
    Ok(())
}
