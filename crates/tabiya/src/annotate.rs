//! `tabiya annotate`: every position of chosen games evaluated by the engines (each distinct
//! position once; resumable), then each game's inaccuracies, mistakes and blunders, and the
//! games as annotated PGN; with `--novelties`, each game's novelty too (`--no-engine`: only
//! that, no engine needed).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use tabiya_service::annotate::{self, AnnotateReport, EngineWork, GameReport, Stage};
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
    /// Also judge each game against the database's earlier games: the novelty (the first
    /// move leading where none went) gets $146 and a comment in the PGN, and the report
    /// each game's earlier games per ply.
    #[arg(long)]
    pub novelties: bool,
    /// Run no engine (with --novelties: mark the novelties only).
    #[arg(long, conflicts_with_all = ["depth", "movetime", "fresh", "engines", "engine", "threads", "hash", "options"])]
    pub no_engine: bool,
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
    if args.no_engine && !args.novelties {
        anyhow::bail!("--no-engine leaves nothing to do: add --novelties to mark the novelties");
    }
    let limit = engine::limit(args.depth, args.movetime, Limit::Depth(16))?;
    let db = args.db.open()?;
    let ids = export::game_ids(&db, &selection)?;
    let stop = crate::interrupt::stop_flag();
    let engines = if args.no_engine {
        None
    } else {
        Some(Engines::start(
            &args
                .engine
                .settings(args.engines.unwrap_or_else(engine::cores))?,
        )?)
    };
    let work = engines.as_ref().map(|engines| EngineWork {
        engines,
        limit,
        fresh: args.fresh,
    });
    let bar = progress_count(0, "evaluating positions");
    let mut stage = Stage::Evaluating;
    let report = annotate::annotate(&db, &ids, work, args.novelties, &stop, |p| {
        if p.stage != stage {
            stage = p.stage;
            bar.reset();
            bar.set_prefix("judging novelties");
        }
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
        annotate::write_annotated(&db, &ids, &report, &mut out)?;
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
        if report.engine.is_some() {
            eprintln!(
                "tabiya: stopped; what was evaluated is kept: the same command goes on from there"
            );
        } else {
            eprintln!("tabiya: stopped");
        }
        std::process::exit(130);
    }
    Ok(())
}

fn print_summary(out: &mut dyn Write, r: &AnnotateReport) -> anyhow::Result<()> {
    if let Some(e) = &r.engine {
        writeln!(
            out,
            "{} games, {} positions ({} distinct, {} known before): {} searched by {} × {} at {} in {:.1} s ({:.1} a second){}",
            r.games,
            e.positions,
            e.distinct,
            e.already_known,
            e.evaluated,
            e.engines,
            e.engine,
            e.limit,
            e.seconds,
            e.positions_per_second,
            if e.failed > 0 {
                format!("; {} searches failed", e.failed)
            } else {
                String::new()
            }
        )?;
        writeln!(
            out,
            "judged by the loss of winning chances (Lichess): inaccuracy ≥ {}, mistake ≥ {}, blunder ≥ {}",
            e.thresholds.inaccuracy, e.thresholds.mistake, e.thresholds.blunder
        )?;
    }
    if let Some(n) = &r.novelties {
        writeln!(
            out,
            "{} games judged against the earlier games, {} with a novelty, in {:.1} s ({:.1} games a second)",
            n.judged, n.with_novelty, n.seconds, n.games_per_second
        )?;
    }
    for g in &r.reports {
        print_game(out, g, r.reports.len() == 1)?;
    }
    Ok(())
}

fn print_game(out: &mut dyn Write, g: &GameReport, alone: bool) -> anyhow::Result<()> {
    write!(out, "#{} {} - {} {}", g.id, g.white, g.black, g.result)?;
    let Some(e) = &g.engine else {
        writeln!(out, ": {}", novelty_text(g))?;
        return Ok(());
    };
    writeln!(
        out,
        ": white {}/{}/{} (acpl {}), black {}/{}/{} (acpl {}){}",
        e.white_tally.inaccuracies,
        e.white_tally.mistakes,
        e.white_tally.blunders,
        e.white_tally.acpl.map_or("-".into(), |a| a.to_string()),
        e.black_tally.inaccuracies,
        e.black_tally.mistakes,
        e.black_tally.blunders,
        e.black_tally.acpl.map_or("-".into(), |a| a.to_string()),
        if e.unevaluated > 0 {
            format!(" ({} moves unevaluated)", e.unevaluated)
        } else {
            String::new()
        }
    )?;
    if g.novelty.is_some() {
        writeln!(out, "    {}", novelty_text(g))?;
    }
    for j in e
        .judged
        .iter()
        .filter(|j| j.judgement != "inaccuracy" || alone)
    {
        writeln!(
            out,
            "    {}{} {} ({} → {}){}",
            j.number,
            j.san,
            j.judgement,
            j.before.signed_text(),
            j.after.signed_text(),
            j.best
                .as_ref()
                .map_or(String::new(), |b| format!(", {b} was best"))
        )?;
    }
    Ok(())
}

/// `novelty 14. Nd5 N; last known 13... Be7 (34 earlier games)`.
fn novelty_text(g: &GameReport) -> String {
    let Some(r) = &g.novelty else {
        return "not judged".into();
    };
    match (&r.novelty, &r.last_known) {
        (Some(n), Some(k)) => format!(
            "novelty {} N; last known {} ({} earlier game{})",
            n.text,
            k.text,
            k.earlier,
            if k.earlier == 1 { "" } else { "s" }
        ),
        (Some(n), None) => format!("novelty {} N, the first move", n.text),
        (None, _) => "no novelty: every position was reached by earlier games".into(),
    }
}
