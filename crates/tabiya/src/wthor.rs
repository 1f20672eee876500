//! `tabiya wthor` commands: check, csv, info, opening, export (from an Othello database).

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use tabiya_service::wthor::{self, CheckOptions, CsvRow};

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct NameFiles {
    /// Player names (.jou) for every game file [default: WTHOR.JOU beside each game file]
    #[arg(long, value_name = "FILE")]
    jou: Option<PathBuf>,
    /// Tournament names (.trn) for every game file [default: WTHOR.TRN beside each game file]
    #[arg(long, value_name = "FILE")]
    trn: Option<PathBuf>,
}

impl NameFiles {
    fn options(&self) -> CheckOptions {
        CheckOptions {
            jou: self.jou.clone(),
            trn: self.trn.clone(),
        }
    }
}

#[derive(Subcommand)]
pub enum WthorCommand {
    /// Replay every game and report illegal moves, unfinished games, wrong scores, unknown ids.
    ///
    /// Exits 0 even when games have problems (it is a report); non-zero when a file cannot be
    /// read or checked, or is damaged (cut short, or another number of games than its header
    /// declares).
    Check {
        /// Game files (.wtb)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        names: NameFiles,
        /// Print the full report as JSON
        #[arg(long)]
        json: bool,
    },
    /// Export games as CSV (UTF-8 with BOM, RFC 4180) or, with --json, as a JSON array.
    Csv {
        /// Game files (.wtb, or .wtd for 10×10)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output file [default: standard output]
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        #[command(flatten)]
        names: NameFiles,
        /// Write the rows as a JSON array of objects instead of CSV
        #[arg(long)]
        json: bool,
    },
    /// Show the header fields of WTHOR files (.wtb, .wtd, .jou, .trn).
    Info {
        /// WTHOR files
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Write an Othello database back as WTHOR files: WTH_<year>.wtb per year, WTHOR.JOU,
    /// WTHOR.TRN (byte-identical to the files it was imported from).
    Export {
        #[command(flatten)]
        db: DbArg,
        /// Output directory (created if needed)
        #[arg(short, long, value_name = "OUTDIR")]
        output: PathBuf,
        /// Print what was written as JSON
        #[arg(long)]
        json: bool,
    },
    /// Name the opening of a line of moves (deepest named position on the line).
    Opening {
        /// Moves like f5d6c3d3c4 (any orientation)
        moves: String,
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: WthorCommand) -> anyhow::Result<()> {
    match cmd {
        WthorCommand::Check { files, names, json } => run_check(&files, &names, json),
        WthorCommand::Csv {
            files,
            output,
            names,
            json,
        } => run_csv(&files, output, &names, json),
        WthorCommand::Info { files, json } => run_info(&files, json),
        WthorCommand::Opening { moves, json } => run_opening(&moves, json),
        WthorCommand::Export { db, output, json } => run_export(&db, &output, json),
    }
}

fn run_check(files: &[PathBuf], names: &NameFiles, json: bool) -> anyhow::Result<()> {
    let report = wthor::check(files, &names.options());
    if json {
        print_json(&report)?;
    } else {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        const SHOWN: usize = 5;
        for f in &report.files {
            if let Some(e) = &f.error {
                writeln!(out, "{}: ERROR: {e}", f.file)?;
                continue;
            }
            writeln!(
                out,
                "{}: {} games, {} illegal, {} bad move bytes, {} unfinished, {} score mismatches, {} with unknown ids",
                f.file,
                f.games,
                f.illegal,
                f.bad_move_bytes,
                f.unfinished,
                f.score_mismatches,
                f.unknown_ids
            )?;
            if let Some(d) = &f.damaged {
                writeln!(out, "  DAMAGED: {d}")?;
            }
            for p in &f.read_problems {
                writeln!(out, "  read: {p}")?;
            }
            for p in f.problems.iter().take(SHOWN) {
                writeln!(
                    out,
                    "  game {} (offset {}): {}",
                    p.game,
                    p.offset,
                    wthor::describe(&p.problem)
                )?;
            }
            if f.problems.len() > SHOWN {
                writeln!(
                    out,
                    "  … {} more problems (see --json)",
                    f.problems.len() - SHOWN
                )?;
            }
        }
        writeln!(
            out,
            "total: {} files, {} games, {} illegal, {} bad move bytes, {} unfinished, {} score mismatches, {} with unknown ids, {} with passes",
            report.files.len(),
            report.games,
            report.illegal,
            report.bad_move_bytes,
            report.unfinished,
            report.score_mismatches,
            report.unknown_ids,
            report.games_with_passes
        )?;
    }
    if report.unreadable_files > 0 || report.damaged_files > 0 {
        anyhow::bail!(
            "{} of {} files could not be read or checked, {} damaged",
            report.unreadable_files,
            report.files.len(),
            report.damaged_files
        );
    }
    Ok(())
}

fn run_csv(
    files: &[PathBuf],
    output: Option<PathBuf>,
    names: &NameFiles,
    json: bool,
) -> anyhow::Result<()> {
    let export = wthor::csv(files, &names.options())?;
    for w in &export.warnings {
        eprintln!("tabiya: warning: {w}");
    }
    match (&output, json) {
        (None, true) => print_json(&export.rows)?,
        (Some(path), true) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let mut w = BufWriter::new(file);
            serde_json::to_writer_pretty(&mut w, &export.rows)?;
            writeln!(w)?;
            w.flush()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        (None, false) => {
            let stdout = std::io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            write_csv(&mut w, &export.rows)?;
        }
        (Some(path), false) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let mut w = BufWriter::new(file);
            write_csv(&mut w, &export.rows)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

fn write_csv(w: &mut impl Write, rows: &[CsvRow]) -> std::io::Result<()> {
    wthor::write_csv_header(w)?;
    for r in rows {
        wthor::write_csv_row(w, r)?;
    }
    w.flush()
}

fn run_info(files: &[PathBuf], json: bool) -> anyhow::Result<()> {
    let rows = wthor::info(files)?;
    if json {
        return print_json(&rows);
    }
    for r in &rows {
        let h = &r.header;
        println!(
            "{}: {}, created {}, {} records, year {}, board size byte {}, game type {}, depth {}, reserved {}, {} trailing bytes",
            r.file,
            r.kind,
            r.created,
            r.records,
            h.year,
            h.board_size,
            h.game_type,
            h.depth,
            h.reserved,
            r.trailing_bytes
        );
        for p in &r.problems {
            println!("  {p}");
        }
    }
    Ok(())
}

fn run_opening(moves: &str, json: bool) -> anyhow::Result<()> {
    let out = wthor::opening(moves)?;
    if json {
        return print_json(&out);
    }
    match (&out.name, out.moves_to_name, &out.named_line) {
        (Some(name), Some(n), Some(line)) => {
            let aliases = if out.aliases.is_empty() {
                String::new()
            } else {
                format!(" ({})", out.aliases.join(", "))
            };
            println!("{name}{aliases} after {n} moves (named line {line})");
        }
        _ => println!("no named opening on this line"),
    }
    Ok(())
}

/// `tabiya wthor export`: writes an Othello database back as WTHOR files.
fn run_export(db: &DbArg, output: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let e = tabiya_service::export::wthor(&db.open()?, output)?;
    if json {
        return print_json(&e);
    }
    let mut w = std::io::stdout().lock();
    for f in &e.files {
        writeln!(
            w,
            "{:<40} {:>7} records {:>9} bytes",
            f.file, f.records, f.bytes
        )?;
    }
    writeln!(
        w,
        "{} games, {} players, {} tournaments written to {}",
        e.games,
        e.players,
        e.tournaments,
        output.display()
    )?;
    Ok(())
}
