//! `tabiya export`: chess games back out as PGN or Parquet.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use tabiya_service::Kind;
use tabiya_service::reads::export::{Chosen, Export, ExportFormat};

use crate::args::{DbArg, PositionArg};

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Export one game.
    #[arg(long, conflicts_with_all = ["fen", "play", "gameset", "criteria"])]
    pub game: Option<u32>,
    /// Export a gameset's games (tabiya gameset).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["fen", "play", "criteria"])]
    pub gameset: Option<String>,
    /// Export the games meeting these criteria (docs/gamesets.md).
    #[arg(long = "where", value_name = "CRITERIA", conflicts_with_all = ["fen", "play"])]
    pub criteria: Option<String>,
    #[command(flatten)]
    pub position: PositionArg,
    /// Output file (default: standard output; Parquet needs a file).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// pgn, or parquet (a row a game: the Seven Tag Roster and the Lichess database's
    /// columns, the other tags in a map, the movetext; see docs/formats/parquet.md). Default: parquet
    /// when the output file ends in .parquet, else pgn.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the engine evaluations kept in the database into the games: [%eval] after each
    /// move, NAGs, comments and the engine's line at inaccuracies, mistakes and blunders
    /// (see `tabiya annotate`).
    #[arg(long)]
    pub evals: bool,
    /// Write players, events and sites under the names they mean (`tabiya names list`:
    /// normalised, from Scid's spelling file, or as corrected), not as each game wrote them.
    #[arg(long, conflicts_with = "evals")]
    pub canonical_names: bool,
    /// Write the positions' notes (`tabiya note`) as comments, at the first move of each
    /// game that reaches a noted position.
    #[arg(long, conflicts_with = "evals")]
    pub notes: bool,
}

/// What games are written as.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Pgn,
    Parquet,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let db = crate::source::open(&args.db)?;
    if db.kind()? == Kind::Othello {
        bail!(
            "{} is an Othello database: export it as WTHOR files with `tabiya wthor export --db {} -o OUTDIR`",
            dir.display(),
            dir.display()
        );
    }
    let chosen = if let Some(id) = args.game {
        Chosen::Game(id)
    } else if let Some(name) = &args.gameset {
        Chosen::Gameset(name.clone())
    } else if let Some(c) = &args.criteria {
        Chosen::Where(c.clone())
    } else if args.position.is_given() {
        args.position.resolve()?;
        Chosen::Position(crate::source::at(&args.position))
    } else {
        Chosen::All
    };
    let asked = |chosen, format| Export {
        chosen,
        format,
        evals: args.evals,
        canonical_names: args.canonical_names,
        notes: args.notes,
    };
    let format = args.format.unwrap_or_else(|| {
        let parquet = args.output.as_ref().is_some_and(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
        });
        if parquet {
            Format::Parquet
        } else {
            Format::Pgn
        }
    });
    if format == Format::Parquet {
        let Some(path) = &args.output else {
            bail!("--format parquet writes a file: name it with -o FILE.parquet");
        };
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        let n = db.export(&asked(chosen, ExportFormat::Parquet), &mut out)?;
        out.flush()?;
        return summary(n, "Parquet", args.output.as_ref());
    }
    let mut out: Box<dyn Write + Send> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout(),
        )),
    };
    let n = db.export(&asked(chosen, ExportFormat::Pgn), &mut out)?;
    out.flush()?;
    summary(n, "PGN", args.output.as_ref())
}

/// What was written, on standard error (standard output may be the games themselves).
fn summary(games: u64, format: &str, output: Option<&PathBuf>) -> anyhow::Result<()> {
    let to = output.map_or_else(
        || "standard output".to_string(),
        |p| p.display().to_string(),
    );
    let plural = if games == 1 { "" } else { "s" };
    eprintln!("exported {games} game{plural} as {format} to {to}");
    Ok(())
}
