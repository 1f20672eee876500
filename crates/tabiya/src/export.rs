//! `tabiya export`: chess games back out as PGN.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use tabiya_service::Kind;
use tabiya_service::export::{self, Selection};

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
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
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

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let db = args.db.open()?;
    if db.kind() == Kind::Othello {
        bail!(
            "{} is an Othello database: export it as WTHOR files with `tabiya wthor export --db {} -o OUTDIR`",
            dir.display(),
            dir.display()
        );
    }
    let selection = if let Some(id) = args.game {
        Selection::Game(id)
    } else if let Some(name) = &args.gameset {
        Selection::Gameset(name.clone())
    } else if let Some(c) = &args.criteria {
        Selection::Where(c.clone())
    } else if args.position.is_given() {
        Selection::Position(Box::new(args.position.resolve()?))
    } else {
        Selection::All
    };
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    if args.evals {
        let ids = export::game_ids(&db, &selection)?;
        tabiya_service::annotate::write_pgn(&db, &ids, &mut out)?;
    } else {
        export::pgn_named(&db, &selection, args.canonical_names, args.notes, &mut out)?;
    }
    Ok(())
}
