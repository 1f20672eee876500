//! `tabiya novelty`: for games of a PGN file (not stored) or stored games, the earlier games
//! of the database in each position, and the first move leading where no earlier game went.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use tabiya_service::novelty::Report;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct NoveltyArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Stored games by id (repeatable, or several after one --game).
    #[arg(long = "game", value_name = "ID", num_args = 1.., conflicts_with = "file")]
    pub games: Vec<u32>,
    /// A PGN file whose games are judged against the database (they are not stored).
    #[arg(value_name = "FILE.pgn", required_unless_present = "games")]
    pub file: Option<PathBuf>,
    /// Every ply with its earlier games, not only the novelty.
    #[arg(long)]
    pub plies: bool,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

fn print(w: &mut impl Write, r: &Report, plies: bool) -> std::io::Result<()> {
    let which = match (r.id, r.number) {
        (Some(id), _) => format!("game {id}"),
        (_, Some(n)) => format!("game {n} of the file"),
        _ => "game".into(),
    };
    writeln!(w, "{which}: {} - {}, {}", r.white, r.black, r.date)?;
    match (&r.novelty, &r.last_known) {
        (Some(n), Some(k)) => writeln!(
            w,
            "  novelty {} (ply {}); the last move in the database {} ({} earlier game{})",
            n.text,
            n.ply,
            k.text,
            k.earlier,
            if k.earlier == 1 { "" } else { "s" }
        )?,
        (Some(n), None) => writeln!(w, "  novelty {} (ply {}), the first move", n.text, n.ply)?,
        (None, _) => writeln!(
            w,
            "  no novelty: every position was reached by earlier games"
        )?,
    }
    if plies {
        for p in &r.plies {
            writeln!(w, "  {:>4} {:<8} {:>9}", p.ply, p.san, p.earlier)?;
        }
    }
    Ok(())
}

pub fn run(args: NoveltyArgs) -> anyhow::Result<()> {
    let db = crate::source::open(&args.db)?;
    let file = match &args.file {
        Some(f) => {
            let bytes =
                tabiya_service::inputs::read_whole(f, tabiya_service::inputs::Whole::Games)?;
            Some((f.display().to_string(), bytes))
        }
        None => None,
    };
    let reports = db.ask(&tabiya_service::reads::Novelties {
        games: args.games.clone(),
        file,
    })?;
    if args.json {
        return print_json(&reports);
    }
    let mut out = std::io::stdout().lock();
    for r in &reports {
        print(&mut out, r, args.plies)?;
    }
    Ok(())
}
