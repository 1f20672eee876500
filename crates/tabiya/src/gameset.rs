//! `tabiya gameset create | list | show | games | export | delete | refresh`: named criteria
//! whose games the database keeps current (`docs/gamesets.md`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use tabiya_service::gamesets::{self, Gameset};
use tabiya_service::reads::{
    self,
    export::{Chosen, Export, ExportFormat},
};

use crate::args::DbArg;
use crate::edit::{Target, target};
use crate::output::print_json;

#[derive(Subcommand)]
pub enum GamesetCommand {
    /// Make a gameset: the games meeting the criteria, kept current from then on.
    Create(CreateArgs),
    /// Every gameset with its criteria and games.
    List(ListArgs),
    /// One gameset: criteria, parent, games, the ranges of ids they make.
    Show(NameArgs),
    /// A gameset's games, in id order.
    Games(GamesArgs),
    /// A gameset's games as PGN.
    Export(ExportArgs),
    /// Delete a gameset (not its games: `tabiya delete --gameset` deletes those).
    Delete(NameArgs),
    /// Judge every game again (after the opening table or the criteria's files changed).
    Refresh(NameArgs),
}

#[derive(Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Its name.
    pub name: String,
    /// The criteria, e.g. "avgelo >= 2500 and result = '1-0'" (docs/gamesets.md).
    #[arg(long = "where", value_name = "CRITERIA")]
    pub criteria: String,
    /// Made from another gameset: only its games are judged, and they stay among them.
    #[arg(long = "from", value_name = "PARENT")]
    pub from: Option<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct NameArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The gameset's name.
    pub name: String,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The gameset's name.
    pub name: String,
    /// Games listed at most.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Games of the list skipped first (the next page: --offset 20).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The gameset's name.
    pub name: String,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

fn when(secs: u64) -> String {
    tabiya_service::time::iso_utc(secs)
}

fn print_one(w: &mut impl Write, g: &Gameset) -> std::io::Result<()> {
    writeln!(w, "{}", g.name)?;
    writeln!(w, "  where    {}", g.criteria)?;
    if let Some(p) = &g.parent {
        writeln!(w, "  from     {p}")?;
    }
    writeln!(w, "  games    {} in {} ranges of ids", g.games, g.ranges)?;
    writeln!(w, "  created  {}", when(g.created))?;
    if g.refreshed != g.created {
        writeln!(w, "  computed {}", when(g.refreshed))?;
    }
    for f in &g.files {
        writeln!(w, "  file     {f} (kept in the database)")?;
    }
    Ok(())
}

pub fn run(cmd: GamesetCommand) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match cmd {
        GamesetCommand::Create(a) => {
            let g = match target(&a.db)? {
                Target::Here(db) => {
                    let base = std::env::current_dir()?;
                    gamesets::create(
                        &db,
                        &a.name,
                        &a.criteria,
                        a.from.as_deref(),
                        gamesets::Repertoires::Files { base: &base },
                    )?
                }
                Target::Served(server) => {
                    // The server reads no file: the repertoires followed go with the call.
                    let base = std::env::current_dir()?;
                    let repertoires = gamesets::read_followed(&a.criteria, &base)?;
                    tabiya_service::handover::hand_over_gameset(
                        &server,
                        &a.name,
                        &a.criteria,
                        a.from.as_deref(),
                        repertoires,
                    )?
                }
            };
            if a.json {
                return print_json(&g);
            }
            print_one(&mut out, &g)?;
        }
        GamesetCommand::List(a) => {
            let all = crate::source::open(&a.db)?.ask(&reads::GamesetList {})?;
            if a.json {
                return print_json(&all);
            }
            if all.is_empty() {
                writeln!(out, "no gameset (tabiya gameset create NAME --where \"…\")")?;
            }
            for g in &all {
                let from = g
                    .parent
                    .as_ref()
                    .map(|p| format!(" (from {p})"))
                    .unwrap_or_default();
                writeln!(out, "{:>9}  {}{from}: {}", g.games, g.name, g.criteria)?;
            }
        }
        GamesetCommand::Show(a) => {
            let s = crate::source::open(&a.db)?.ask(&reads::GamesetShow {
                name: a.name.clone(),
            })?;
            if a.json {
                return print_json(&s);
            }
            print_one(&mut out, &s.gameset)?;
            let shown: Vec<String> = s
                .id_ranges
                .iter()
                .take(20)
                .map(|(a, b)| {
                    if a == b {
                        a.to_string()
                    } else {
                        format!("{a}-{b}")
                    }
                })
                .collect();
            let more = if s.id_ranges.len() > 20 {
                format!(" … ({} more)", s.id_ranges.len() - 20)
            } else {
                String::new()
            };
            writeln!(out, "  ids      {}{more}", shown.join(" "))?;
        }
        GamesetCommand::Games(a) => {
            let page = crate::source::open(&a.db)?.ask(&reads::GamesetGames {
                name: a.name.clone(),
                offset: a.offset,
                limit: a.limit,
            })?;
            if a.json {
                return print_json(&page);
            }
            writeln!(out, "{}: {} games", page.gameset, page.total)?;
            for g in &page.games {
                writeln!(
                    out,
                    "{:>8}  {} - {}  {}  {}  {}",
                    g.id, g.white, g.black, g.result, g.date, g.event
                )?;
            }
        }
        GamesetCommand::Export(a) => {
            let db = crate::source::open(&a.db)?;
            let asked = Export {
                chosen: Chosen::Gameset(a.name.clone()),
                format: ExportFormat::Pgn,
                evals: false,
                canonical_names: false,
                notes: false,
            };
            let mut w: Box<dyn Write + Send> = match &a.output {
                Some(p) => Box::new(std::io::BufWriter::new(
                    std::fs::File::create(p)
                        .with_context(|| format!("creating {}", p.display()))?,
                )),
                None => Box::new(std::io::BufWriter::with_capacity(
                    1 << 16,
                    std::io::stdout(),
                )),
            };
            db.export(&asked, &mut w)?;
            w.flush()?;
        }
        GamesetCommand::Delete(a) => {
            let g = match target(&a.db)? {
                Target::Here(db) => gamesets::delete(&db, &a.name)?,
                Target::Served(server) => {
                    tabiya_service::handover::hand_over_gameset_delete(&server, &a.name)?
                }
            };
            if a.json {
                return print_json(&g);
            }
            writeln!(
                out,
                "gameset {} deleted (its {} games stay in the database)",
                g.name, g.games
            )?;
        }
        GamesetCommand::Refresh(a) => {
            let db = a.db.open()?;
            let done = gamesets::refresh(&db, &a.name)?;
            if a.json {
                return print_json(&done);
            }
            for g in &done {
                writeln!(out, "{}: {} games", g.name, g.games)?;
            }
        }
    }
    Ok(())
}
