//! `tabiya analyse`: one position analysed by the engine — its lines as they come, the
//! result (kept in the database with `--db`, and taken from there when deep enough).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use tabiya_service::analysis::{self, Analysis, AnalysisRequest, Pv};
use tabiya_service::engine::{self, Engines, Limit};
use tabiya_service::{Db, ErrorKind};

use crate::args::{DbArg, PositionArg};
use crate::engine_args::EngineArgs;
use crate::output::print_json;

#[derive(Args)]
pub struct AnalyseArgs {
    /// Keep the result in this database (and use the one kept there when deep enough).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub position: PositionArg,
    /// Search to this depth (default 20).
    #[arg(long, conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Search this long, milliseconds.
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Lines to show (1 to 10).
    #[arg(long, default_value_t = 1)]
    pub multipv: u32,
    /// Ignore the evaluation kept in the database (the new one replaces it).
    #[arg(long)]
    pub fresh: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// The result as JSON (no lines as they come).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AnalyseArgs) -> anyhow::Result<()> {
    let at = args.position.resolve()?;
    let req = AnalysisRequest {
        at,
        limit: engine::limit(args.depth, args.movetime, Limit::Depth(20))?,
        multipv: analysis::multipv(Some(args.multipv))?,
        fresh: args.fresh,
    };
    let db: Option<Db> = match &args.db {
        Some(dir) => {
            if !Db::exists(dir) {
                return Err(tabiya_service::Error::new(
                    ErrorKind::NotFound,
                    format!("no database in {}", dir.display()),
                )
                .into());
            }
            Some(
                DbArg {
                    db: Some(dir.clone()),
                }
                .open()?,
            )
        }
        None => None,
    };
    let stop = crate::interrupt::stop_flag();
    let engines = Engines::start(&args.engine.settings(1)?)?;
    let live = !args.json && std::io::stdout().is_terminal();
    let mut out = std::io::stdout().lock();
    if live {
        writeln!(out, "{}  {}", engines.identity().name, req.at.fen)?;
    }
    let result = analysis::analyse(
        &engines,
        db.as_ref(),
        &req,
        "command line",
        false,
        &stop,
        |pv| {
            if live {
                let _ = writeln!(out, "{}", line_text(pv, req.multipv > 1));
            }
        },
    )?;
    drop(engines);
    if args.json {
        drop(out);
        return print_json(&result);
    }
    print_result(&mut out, &result, req.multipv > 1)?;
    Ok(())
}

fn line_text(pv: &Pv, numbered: bool) -> String {
    let mut s = String::new();
    if numbered {
        s.push_str(&format!("{}. ", pv.multipv));
    }
    let bound = match pv.bound {
        Some("lower") => "≥",
        Some("upper") => "≤",
        _ => "",
    };
    s.push_str(&format!(
        "depth {:>2}  {bound}{:>6}  {}",
        pv.depth,
        pv.score.signed_text(),
        pv.san.join(" ")
    ));
    s
}

fn print_result(out: &mut impl Write, a: &Analysis, numbered: bool) -> anyhow::Result<()> {
    writeln!(out, "{}", a.fen)?;
    writeln!(
        out,
        "{} · depth {} · {} nodes · {:.1} s · {}{}",
        a.engine,
        a.depth,
        a.nodes,
        a.time_ms as f64 / 1000.0,
        if a.source == "stored" {
            format!("kept since {}", a.date)
        } else if a.stored {
            "kept in the database".to_string()
        } else {
            "computed now".to_string()
        },
        if a.stopped { " · stopped early" } else { "" }
    )?;
    match &a.best {
        Some(b) => writeln!(out, "best move: {}", b.san)?,
        None => writeln!(out, "no legal move")?,
    }
    for pv in &a.pvs {
        writeln!(out, "{}", line_text(pv, numbered))?;
    }
    Ok(())
}
