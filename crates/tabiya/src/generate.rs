//! `tabiya gen`: deterministic realistic PGN for scale benchmarks.

use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tabiya_service::generate::{self, GenRequest};

use crate::output::print_json;

#[derive(Args)]
pub struct GenArgs {
    /// Number of games to write.
    #[arg(long)]
    pub games: u64,
    /// Random seed: the same seed and sources give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file (.zst to compress; `-` or none: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Real games to learn from (default: the bundled sample).
    #[arg(long = "from", value_name = "PGN")]
    pub from: Vec<PathBuf>,
    /// Print what was written as JSON on standard output (needs --output).
    #[arg(long, requires = "output")]
    pub json: bool,
}

pub fn run(mut args: GenArgs) -> anyhow::Result<()> {
    // `-o -` is standard output, as `tabiya import -` reads standard input.
    if args.output.as_deref().is_some_and(|p| p.as_os_str() == "-") {
        if args.json {
            anyhow::bail!("--json needs --output FILE: standard output carries the games");
        }
        args.output = None;
    }
    let req = GenRequest {
        games: args.games,
        seed: args.seed,
        from: args.from.clone(),
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
    let Some(path) = &args.output else {
        let out = std::io::BufWriter::new(std::io::stdout().lock());
        generate::generate(&req, out, |n| bar.set_position(n))?;
        bar.finish_and_clear();
        return Ok(());
    };
    let summary = generate::generate_to_file(&req, path, |n| bar.set_position(n))?;
    bar.finish_and_clear();
    if args.json {
        return print_json(&summary);
    }
    eprintln!(
        "wrote {} games learned from {} real games ({} positions in the opening tree)",
        summary.games, summary.learned_games, summary.tree_positions
    );
    Ok(())
}
