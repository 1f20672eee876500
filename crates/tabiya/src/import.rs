//! `tabiya import`: games into a database (PGN into chess, WTHOR into Othello).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use clap::Args;
use tabiya_service::ErrorKind;
use tabiya_service::handover::{HandOff, hand_over_import};
use tabiya_service::import::{
    self, ImportProgress, ImportReport, ImportRequest, ImportSummary, NameSources,
    WthorImportSummary,
};

use crate::args::{DbArg, WthorNameArgs};
use crate::output::{ImportBar, ImportTicker, print_json};

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// PGN files (plain, .zst, .gz, .bz2), - for standard input, Parquet files (the Lichess
    /// database's columns, or what `tabiya export --format parquet` writes) or folders of
    /// them (every .parquet below, as Hive partitions year=…/month=…), or WTHOR .wtb files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Index positions up to this ply only (set when the database is created).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// Keep games equal to a stored game (same Seven Tag Roster and main line).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Chess: keep the structure index (material and pawn structures, for `tabiya search`
    /// at index speed; about half again the database's size): from then on every import
    /// keeps it; `tabiya db structures` builds it for the games stored before
    #[arg(long)]
    pub structures: bool,
    /// Games per transaction (each makes an index run; runs are merged at the end).
    /// Default: as many as --memory allows (chess), 50,000 (Othello).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// Chess: memory for building the index of one transaction, in MiB (about 60 bytes a
    /// position). Default: a quarter of the machine's memory (or of the container's
    /// limit), 256 MiB to 16 GiB.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(64..))]
    pub memory: Option<u64>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub names: WthorNameArgs,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let files = tabiya_service::inputs::expand(&args.files)?;
    let req = ImportRequest {
        files: files.clone(),
        max_ply: args.max_ply,
        keep_duplicates: args.keep_duplicates,
        structures: args.structures,
        batch: args.batch.unwrap_or(0),
        memory_mib: args.memory,
        names: NameSources {
            jou: args.names.jou.clone(),
            trn: args.names.trn.clone(),
        },
    };
    let progress = Arc::new(ImportProgress::default());
    // Ctrl-C: stop reading, commit the games read whole, say so (a second: at once).
    let asked = Arc::clone(&progress);
    crate::interrupt::on_first_signal(
        move || asked.reading.cancel.swap(true, Ordering::SeqCst),
        "stopping: keeping the games read so far",
    );
    let ticker = ImportTicker::start(&progress, files.len());
    let result = import::import(&dir, &req, &progress);
    ticker.finish();
    let report = match result {
        // A server holds the database: it imports for us.
        Err(e) if e.kind() == ErrorKind::InUse => match HandOff::find(&dir) {
            Some(server) => {
                eprintln!(
                    "{} is served by {}: the server imports the files",
                    dir.display(),
                    server.url()
                );
                let mut bar = ImportBar::new();
                let r = hand_over_import(&server, &req, |s| bar.draw(s, files.len()));
                bar.finish_and_clear();
                r?
            }
            None => return Err(e.into()),
        },
        r => r?,
    };
    if args.json {
        print_json(&report)?;
    } else {
        match &report {
            ImportReport::Chess(s) => print_chess(s, &dir)?,
            ImportReport::Othello(w) => print_othello(w, &dir)?,
        }
    }
    let summary = match &report {
        ImportReport::Chess(s) => s,
        ImportReport::Othello(w) => &w.summary,
    };
    if summary.interrupted {
        eprintln!(
            "interrupted: {} games kept; run the same command again to finish{}",
            summary.imported,
            if req.keep_duplicates {
                " (without --keep-duplicates, or the games kept come in twice)"
            } else {
                " (the games kept are skipped as duplicates)"
            }
        );
        std::process::exit(130);
    }
    // A file that could not be read (missing, unreadable, cut short) fails the command, once
    // the rest is in.
    let mut failed: Vec<&str> = summary
        .problems
        .iter()
        .filter(|p| p.game == 0)
        .map(|p| p.file.as_str())
        .collect();
    failed.dedup();
    if !failed.is_empty() {
        anyhow::bail!(
            "{} of {} input file(s) could not be read whole: {} (the rest was imported)",
            failed.len(),
            files.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// The database's games after the import; or, when nothing was stored in a database the
/// import would have made, that none was made.
fn database_line(out: &mut impl Write, dir: &Path, s: &ImportSummary) -> anyhow::Result<()> {
    if s.database_games == 0 && !tabiya_service::Db::exists(dir) {
        writeln!(
            out,
            "  nothing imported: no database made at {}",
            dir.display()
        )?;
    } else {
        writeln!(
            out,
            "  database {}: {} games",
            dir.display(),
            s.database_games
        )?;
    }
    Ok(())
}

/// The first lines of an import's terminal summary (chess and Othello alike).
fn print_head(out: &mut impl Write, s: &ImportSummary, skipped: &str) -> anyhow::Result<()> {
    writeln!(
        out,
        "imported {} of {} games from {} file(s) in {:.2} s ({:.0} games/s)",
        s.imported,
        s.games,
        s.files.len(),
        s.seconds,
        s.games_per_second
    )?;
    writeln!(out, "  duplicates skipped: {}", s.duplicates)?;
    writeln!(out, "  {skipped}, skipped: {}", s.skipped)?;
    for (reason, n) in &s.skipped_by_reason {
        writeln!(out, "    {n:>6}  {reason}")?;
    }
    Ok(())
}

pub fn print_chess(summary: &ImportSummary, dir: &Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    print_head(&mut out, summary, "malformed or unsupported")?;
    if summary.not_pgn > 0 {
        writeln!(
            out,
            "  text that is not a PGN game (no tag pair, no move), skipped: {}",
            summary.not_pgn
        )?;
    }
    if summary.warnings > 0 {
        writeln!(
            out,
            "  imported with warnings (e.g. a variation cut at an illegal move): {}",
            summary.warnings
        )?;
    }
    database_line(&mut out, dir, summary)?;
    for n in &summary.notes {
        writeln!(out, "  note: {}", file_problem(&n.file, &n.reason))?;
    }
    drop(out);
    for p in summary.problems.iter().take(20) {
        if p.game == 0 {
            eprintln!("{}", file_problem(&p.file, &p.reason));
        } else if let Some(row) = p.row {
            eprintln!("{}: row {row}: {}", p.file, p.reason);
        } else {
            eprintln!("{}:{}: game {}: {}", p.file, p.line, p.game, p.reason);
        }
    }
    if summary.problems.len() > 20 {
        eprintln!(
            "... and {} more (use --json to see all)",
            summary.problems.len() - 20
        );
    }
    Ok(())
}

fn print_othello(s: &WthorImportSummary, dir: &Path) -> anyhow::Result<()> {
    let c = &s.summary;
    let mut out = std::io::stdout().lock();
    print_head(&mut out, c, "illegal or undecodable")?;
    writeln!(
        out,
        "  unfinished games imported (result = stored adjudicated score): {}",
        s.unfinished
    )?;
    if s.scores_replaced > 0 {
        writeln!(
            out,
            "  impossible disc counts (over 64) replaced by the game's replayed count: {} games (see the warnings)",
            s.scores_replaced
        )?;
    }
    let n = &s.names;
    writeln!(
        out,
        "  names: {} players (+{}), {} tournaments (+{})",
        n.players, n.players_added, n.tournaments, n.tournaments_added
    )?;
    for ch in &n.changed {
        writeln!(
            out,
            "    {} {} renamed: {:?} -> {:?}",
            ch.kind, ch.id, ch.old, ch.new
        )?;
    }
    database_line(&mut out, dir, c)?;
    drop(out);
    for p in c.problems.iter().take(20) {
        eprintln!("{}", file_problem(&p.file, &p.reason));
    }
    if c.problems.len() > 20 {
        eprintln!(
            "... and {} more (use --json to see all)",
            c.problems.len() - 20
        );
    }
    Ok(())
}

/// A problem with a whole file, naming the file once.
fn file_problem(file: &str, reason: &str) -> String {
    if reason.contains(file) {
        reason.to_string()
    } else {
        format!("{file}: {reason}")
    }
}
