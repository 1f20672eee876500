//! `tabiya check`: verifies a database and says what is wrong and where.

use std::io::Write;

use clap::Args;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let r = match tabiya_service::check::check(&dir) {
        Ok(r) => r,
        Err(e) if e.kind() == tabiya_service::ErrorKind::InUse => {
            match tabiya_service::handover::HandOff::find(&dir) {
                Some(server) => anyhow::bail!(
                    "{e}: the server at {} holds it; `tabiya check` reads the file page by page and needs it to itself, so stop that server to check it (meanwhile the server checks every page it reads against its sum)",
                    server.url()
                ),
                None => return Err(e.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    if args.json {
        print_json(&r)?;
    } else {
        let mut w = std::io::stdout().lock();
        for p in &r.problems {
            writeln!(
                w,
                "{}: {}: {}: {}",
                r.file.display(),
                p.part,
                p.place,
                p.what
            )?;
        }
        if r.problem_count as usize > r.problems.len() {
            writeln!(
                w,
                "… and {} more",
                r.problem_count as usize - r.problems.len()
            )?;
        }
        if r.ok() {
            writeln!(
                w,
                "ok: {} ({} bytes{}): {} games ({} deleted), {} positions replayed and found in {} runs ({} T records, {} S entries, {} implicit); {} names, {} gamesets, {} notes, {} cards, {} answers, {} evaluations",
                r.file.display(),
                r.file_bytes,
                if r.pages_verified {
                    ", every page's checksum verified"
                } else {
                    ", read-only: pages not verified"
                },
                r.games,
                r.deleted_games,
                r.positions_replayed,
                r.runs,
                r.tree_records,
                r.single_entries,
                r.implicit,
                r.names,
                r.gamesets,
                r.notes,
                r.cards,
                r.card_reviews,
                r.evals
            )?;
            if r.shape_segments > 0 {
                writeln!(
                    w,
                    "    structure index: {} segments, {} games' shapes found, {} games' search lines as their records",
                    r.shape_segments, r.shape_games, r.line_games
                )?;
            }
        }
    }
    if !r.ok() {
        anyhow::bail!(
            "{} is damaged: {} problem{} found",
            r.file.display(),
            r.problem_count,
            if r.problem_count == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
