//! `tabiya annotate`: every position of chosen games evaluated by the engines (each distinct
//! position once; resumable), then each game's inaccuracies, mistakes and blunders, and the
//! games as annotated PGN.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use tabiya_service::annotate::{self, AnnotateReport};
use tabiya_service::engine::{self, Engines, Limit};
use tabiya_service::export::{self, Selection};

use crate::args::{DbArg, PositionArg};
use crate::engine_args::EngineArgs;
use crate::output::{print_json, progress_count};

#[derive(Args)]
pub struct AnnotateArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Annotate one game.
    #[arg(long, conflicts_with_all = ["fen", "play", "all"])]
    pub game: Option<u32>,
    /// Annotate a gameset's games (tabiya gameset).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["fen", "play", "all", "game"])]
    pub gameset: Option<String>,
    /// Annotate every game.
    #[arg(long, conflicts_with_all = ["fen", "play"])]
    pub all: bool,
    /// (or --fen/--play: every game reaching that position)
    #[command(flatten)]
    pub position: PositionArg,
    /// Search each position to this depth (default 16).
    #[arg(long, conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Search each position this long, milliseconds.
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Evaluate again positions already evaluated.
    #[arg(long)]
    pub fresh: bool,
    /// Engines searching at once (default: one per core).
    #[arg(long)]
    pub engines: Option<usize>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Also write the games as PGN with [%eval] comments, NAGs and the engine's lines
    /// ("-": standard output).
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// The report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AnnotateArgs) -> anyhow::Result<()> {
    let selection = if let Some(id) = args.game {
        Selection::Game(id)
    } else if let Some(name) = &args.gameset {
        Selection::Gameset(name.clone())
    } else if args.position.is_given() {
        Selection::Position(Box::new(args.position.resolve()?))
    } else if args.all {
        Selection::All
    } else {
        anyhow::bail!(
            "which games? give --game ID, --gameset NAME, --all, or a position (--fen/--play) for its games"
        );
    };
    let limit = engine::limit(args.depth, args.movetime, Limit::Depth(16))?;
    let db = args.db.open()?;
    let ids = export::game_ids(&db, &selection)?;
    let stop = crate::interrupt::stop_flag();
    let engines = Engines::start(
        &args
            .engine
            .settings(args.engines.unwrap_or_else(engine::cores))?,
    )?;
    let bar = progress_count(0, "evaluating positions");
    let report = annotate::annotate(&db, &engines, &ids, limit, args.fresh, &stop, |p| {
        bar.set_length(p.total);
        bar.set_position(p.done);
    });
    bar.finish_and_clear();
    drop(engines);
    let report = report?;
    if let Some(path) = &args.pgn {
        let mut out: Box<dyn Write> = if path.as_os_str() == "-" {
            Box::new(std::io::BufWriter::new(std::io::stdout().lock()))
        } else {
            Box::new(std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("creating {}", path.display()))?,
            ))
        };
        annotate::write_pgn(&db, &ids, &mut out)?;
    }
    let to_stdout = args.pgn.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if args.json {
        print_json(&report)?;
    } else if to_stdout {
        print_summary(&mut std::io::stderr().lock(), &report)?;
    } else {
        print_summary(&mut std::io::stdout().lock(), &report)?;
    }
    if report.stopped {
        eprintln!(
            "tabiya: stopped; what was evaluated is kept: the same command goes on from there"
        );
        std::process::exit(130);
    }
    Ok(())
}

fn print_summary(out: &mut dyn Write, r: &AnnotateReport) -> anyhow::Result<()> {
    writeln!(
        out,
        "{} games, {} positions ({} distinct, {} known before): {} searched by {} × {} at {} in {:.1} s ({:.1} a second){}",
        r.games,
        r.positions,
        r.distinct,
        r.already_known,
        r.evaluated,
        r.engines,
        r.engine,
        r.limit,
        r.seconds,
        r.positions_per_second,
        if r.failed > 0 {
            format!("; {} searches failed", r.failed)
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "judged by the loss of winning chances (Lichess): inaccuracy ≥ {}, mistake ≥ {}, blunder ≥ {}",
        r.thresholds.inaccuracy, r.thresholds.mistake, r.thresholds.blunder
    )?;
    for g in &r.reports {
        writeln!(
            out,
            "#{} {} - {} {}: white {}/{}/{} (acpl {}), black {}/{}/{} (acpl {}){}",
            g.id,
            g.white,
            g.black,
            g.result,
            g.white_tally.inaccuracies,
            g.white_tally.mistakes,
            g.white_tally.blunders,
            g.white_tally.acpl.map_or("-".into(), |a| a.to_string()),
            g.black_tally.inaccuracies,
            g.black_tally.mistakes,
            g.black_tally.blunders,
            g.black_tally.acpl.map_or("-".into(), |a| a.to_string()),
            if g.unevaluated > 0 {
                format!(" ({} moves unevaluated)", g.unevaluated)
            } else {
                String::new()
            }
        )?;
        for j in g
            .judged
            .iter()
            .filter(|j| j.judgement != "inaccuracy" || r.reports.len() == 1)
        {
            writeln!(
                out,
                "    {}{} {} ({} → {}){}",
                j.number,
                j.san,
                j.judgement,
                j.before.text(),
                j.after.text(),
                j.best
                    .as_ref()
                    .map_or(String::new(), |b| format!(", {b} was best"))
            )?;
        }
    }
    Ok(())
}
