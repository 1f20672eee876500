//! `tabiya gen`: deterministic realistic PGN for scale benchmarks.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use tabiya_gen::Model;

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
}

pub fn generate(args: GenArgs) -> anyhow::Result<()> {
    let mut model = Model::default();
    if args.from.is_empty() {
        model.learn_pgn(zstd::stream::read::Decoder::new(crate::demo::sample())?)?;
    }
    for p in &args.from {
        let input = tabiya_pgn::input::open(p).with_context(|| format!("reading {}", p.display()))?;
        model.learn_pgn(input.reader).with_context(|| format!("reading {}", p.display()))?;
    }
    anyhow::ensure!(model.games_learned() > 0, "no standard games to learn from");
    let out: Box<dyn Write> = match &args.output {
        Some(p) => {
            let f = std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?);
            if p.extension().is_some_and(|e| e == "zst") {
                Box::new(zstd::stream::write::Encoder::new(f, 3)?.auto_finish())
            } else {
                Box::new(f)
            }
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    tabiya_gen::generate(&model, args.games, args.seed, out)?;
    if args.output.is_some() {
        eprintln!(
            "wrote {} games learned from {} real games ({} positions in the opening tree)",
            args.games,
            model.games_learned(),
            model.tree_positions()
        );
    }
    Ok(())
}
