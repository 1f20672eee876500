//! `tabiya stats`: what a database holds and what it costs on disk.

use std::io::Write;

use clap::Args;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let s = args.db.open()?.stats()?;
    if args.json {
        return print_json(&s);
    }
    let mut w = std::io::stdout().lock();
    writeln!(w, "database {} ({})", dir.display(), s.kind)?;
    writeln!(w, "games                {:>14}", s.games)?;
    writeln!(w, "positions counted    {:>14}", s.positions)?;
    writeln!(w, "distinct positions  ≈{:>14}", s.distinct_positions)?;
    writeln!(
        w,
        "  in the tree (≥{} games) {:>9}",
        s.promote_at, s.tree_positions
    )?;
    writeln!(w, "index runs           {:>14}", s.runs)?;
    writeln!(
        w,
        "players / events / sites {:>6} / {} / {}",
        s.players, s.events, s.sites
    )?;
    writeln!(
        w,
        "bytes on disk        {:>14}  ({:.0} per game)",
        s.file_bytes, s.bytes_per_game
    )?;
    for p in &s.parts {
        writeln!(
            w,
            "  {:<10} {:>14}  ({:.0} per game)",
            p.name, p.bytes, p.bytes_per_game
        )?;
    }
    Ok(())
}
