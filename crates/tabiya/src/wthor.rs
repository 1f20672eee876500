//! `tabiya wthor` commands: check, csv, info, opening, export (from an Othello database).

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use serde::Serialize;
use tabiya_othello::check::{CheckOptions, Problem};
use tabiya_othello::csv as wcsv;
use tabiya_othello::wthor::{GameFile, NameFile, NameKind};

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
    /// Exits 0 even when problems are found (it is a report); non-zero only when a file cannot
    /// be read or checked.
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
        db: crate::args::DbArg,
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
        WthorCommand::Export { db, output, json } => crate::othello_db::export(&db, &output, json),
    }
}

fn describe(p: &Problem) -> String {
    match p {
        Problem::BadMoveByte { message, .. } => message.clone(),
        Problem::IllegalMove {
            mv,
            square,
            side,
            reason,
            ..
        } => {
            format!("illegal move {mv} {square} ({side} to move): {reason}")
        }
        Problem::Unfinished {
            moves,
            discs,
            stored_black_score,
        } => format!(
            "unfinished after {moves} moves: board {}-{}, stored black score {stored_black_score}",
            discs.0, discs.1
        ),
        Problem::ScoreMismatch { stored, board, .. } => {
            format!("stored black score {stored}, board gives {board}")
        }
        Problem::UnknownId { field, id, known } => format!(
            "unknown {field} id {id} (names 0–{})",
            known.saturating_sub(1)
        ),
    }
}

fn run_check(files: &[PathBuf], names: &NameFiles, json: bool) -> anyhow::Result<()> {
    let report = tabiya_othello::check(files, &names.options());
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
            for p in &f.read_problems {
                writeln!(out, "  read: {p}")?;
            }
            for p in f.problems.iter().take(SHOWN) {
                writeln!(
                    out,
                    "  game {} (offset {}): {}",
                    p.game,
                    p.offset,
                    describe(&p.problem)
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
    if report.unreadable_files > 0 {
        anyhow::bail!(
            "{} of {} files could not be read or checked",
            report.unreadable_files,
            report.files.len()
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
    let export = wcsv::export(files, &names.options())?;
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

fn write_csv(w: &mut impl Write, rows: &[wcsv::CsvRow]) -> std::io::Result<()> {
    wcsv::write_header(w)?;
    for r in rows {
        wcsv::write_row(w, r)?;
    }
    w.flush()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoRow {
    file: String,
    kind: &'static str,
    header: tabiya_othello::wthor::Header,
    created: String,
    records: usize,
    trailing_bytes: usize,
    problems: Vec<String>,
}

fn run_info(files: &[PathBuf], json: bool) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for path in files {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let row = match ext.as_str() {
            "jou" | "trn" => {
                let kind = if ext == "jou" {
                    NameKind::Players
                } else {
                    NameKind::Tournaments
                };
                let f = NameFile::read(path, kind)?;
                InfoRow {
                    file: path.display().to_string(),
                    kind: if ext == "jou" {
                        "players"
                    } else {
                        "tournaments"
                    },
                    header: f.header,
                    created: f.header.created(),
                    records: f.names.len(),
                    trailing_bytes: f.trailing.len(),
                    problems: f.problems.iter().map(|p| p.to_string()).collect(),
                }
            }
            _ => {
                let f = GameFile::read(path)?;
                InfoRow {
                    file: path.display().to_string(),
                    kind: match f.board {
                        tabiya_othello::wthor::BoardSize::Eight => "games 8x8",
                        tabiya_othello::wthor::BoardSize::Ten => "games 10x10",
                    },
                    header: f.header,
                    created: f.header.created(),
                    records: f.games.len(),
                    trailing_bytes: f.trailing.len(),
                    problems: f.problems.iter().map(|p| p.to_string()).collect(),
                }
            }
        };
        rows.push(row);
    }
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OpeningOut {
    name: Option<String>,
    aliases: Vec<String>,
    moves_to_name: Option<usize>,
    named_line: Option<String>,
}

fn run_opening(moves: &str, json: bool) -> anyhow::Result<()> {
    let moves = tabiya_othello::parse_transcript(moves)?;
    let found = tabiya_othello::deepest_opening(&moves);
    let out = OpeningOut {
        name: found.map(|(_, o)| o.name.to_string()),
        aliases: found
            .map(|(_, o)| o.aliases.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        moves_to_name: found.map(|(n, _)| n),
        named_line: found.map(|(_, o)| tabiya_othello::format_transcript(&o.moves)),
    };
    if json {
        return print_json(&out);
    }
    match found {
        Some((n, o)) => {
            let aliases = if o.aliases.is_empty() {
                String::new()
            } else {
                format!(" ({})", o.aliases.join(", "))
            };
            println!(
                "{}{aliases} after {n} moves (named line {})",
                o.name,
                tabiya_othello::format_transcript(&o.moves)
            );
        }
        None => println!("no named opening on this line"),
    }
    Ok(())
}
