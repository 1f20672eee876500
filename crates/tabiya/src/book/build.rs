//! `tabiya book build | convert | merge`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use tabiya_service::books::{self, BookFormat, BuildOptions, ConvertRequest, KvetkaOptions};

use super::{ConvertArgs, FormatArg, MergeArgs};
use crate::output::print_json;

#[derive(Args)]
pub struct BuildArgs {
    /// Book format to write.
    #[arg(long, value_enum)]
    pub format: FormatArg,
    /// Output: a Polyglot `.bin`; a CTG stem or `.ctg` (writes `.ctg/.cto/.ctb/.ini`); a
    /// Kvetka `dir/name` (writes `name_0.kob`, … `name.kin`, `name.ksf`).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// PGN files (plain, .zst, .gz, .bz2; `-` for standard input).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Build from the games of this Tabiya database instead of PGN files.
    #[arg(long = "db", value_name = "DIR", conflicts_with = "inputs")]
    pub db: Option<PathBuf>,
    /// With --db: only the games of this gameset (tabiya gameset).
    #[arg(long, value_name = "NAME", requires = "db")]
    pub gameset: Option<String>,
    /// Leave out positions and moves seen in fewer games (default 3 for Polyglot, as
    /// `polyglot make-book`; 1 for CTG and Kvetka, so the book agrees with the database).
    #[arg(long, value_name = "N")]
    pub min_game: Option<u32>,
    /// Count only the first N half-moves of each game (Polyglot default 1024; CTG and
    /// Kvetka: whole games; Kvetka at most 254).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// Keep only positions with White to move.
    #[arg(long, conflicts_with = "only_black")]
    pub only_white: bool,
    /// Keep only positions with Black to move.
    #[arg(long)]
    pub only_black: bool,
    /// Polyglot: every move gets weight 1.
    #[arg(long)]
    pub uniform: bool,
    /// Kvetka: the book's caption (default: its name).
    #[arg(long)]
    pub caption: Option<String>,
    /// Kvetka: only games whose White is rated at least N (written to the book's header).
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_white_elo: u16,
    /// Kvetka: only games whose Black is rated at least N.
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_black_elo: u16,
    /// Kvetka: only games whose stronger player is rated at least N.
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_stronger_elo: u16,
    /// Kvetka: only games whose weaker player is rated at least N (unrated games fail every
    /// non-zero Elo filter).
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_weaker_elo: u16,
    /// Kvetka: set the header's `links` flag and add every legal move between two stored
    /// positions (transpositions), as Kvetka does when adding games.
    #[arg(long)]
    pub links: bool,
    /// Kvetka: store no game references in elements (`element_type` bit 0 clear; no `.ksf`).
    #[arg(long)]
    pub no_game_links: bool,
    /// Kvetka: split `.kob` files so none passes this many bytes (default 20 MB, at least one
    /// 2048-byte block per file).
    #[arg(long, value_name = "BYTES")]
    pub split_size: Option<u64>,
    /// Parse threads (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

impl BuildArgs {
    /// The service's options.
    fn options(&self) -> BuildOptions {
        BuildOptions {
            format: self.format.into(),
            output: self.output.clone(),
            inputs: self.inputs.clone(),
            db: self.db.clone(),
            gameset: self.gameset.clone(),
            min_game: self.min_game,
            max_ply: self.max_ply,
            only_white: self.only_white,
            only_black: self.only_black,
            uniform: self.uniform,
            kvetka: KvetkaOptions {
                caption: self.caption.clone(),
                min_white_elo: self.min_white_elo,
                min_black_elo: self.min_black_elo,
                min_stronger_elo: self.min_stronger_elo,
                min_weaker_elo: self.min_weaker_elo,
                links: self.links,
                no_game_links: self.no_game_links,
                split_size: self.split_size,
            },
            threads: self.threads,
        }
    }
}

/// The report as JSON, or a summary on standard error.
pub fn build(args: BuildArgs) -> anyhow::Result<()> {
    let report = books::build(&args.options())?;
    if args.json {
        return print_json(&report);
    }
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "{} book: {} games read ({} skipped), {} used; {} positions, {} moves; {:.2} s",
        format_name(report.format),
        report.games,
        report.games_skipped,
        report.games_used,
        report.positions,
        report.moves,
        report.seconds
    )?;
    if let Some(n) = report.skipped_non_standard_start.filter(|&n| n > 0) {
        writeln!(
            err,
            "  {n} games from a FEN start skipped (polyglot make-book replays every game from the standard start)"
        )?;
    }
    for (k, v) in &report.lost {
        writeln!(err, "  not held by the format: {k}: {v}")?;
    }
    for p in &report.problems {
        writeln!(err, "  skipped: {} line {}: {}", p.file, p.line, p.reason)?;
    }
    for f in &report.files {
        writeln!(err, "  wrote {}", f.display())?;
    }
    Ok(())
}

/// A format's name (empty when the answer has none).
fn format_name(f: Option<BookFormat>) -> String {
    f.map(|f| f.to_string()).unwrap_or_default()
}

pub fn convert(args: ConvertArgs) -> anyhow::Result<()> {
    let report = books::convert(&ConvertRequest {
        book: args.book.file(),
        output: args.output.clone(),
        format: args.format.map(BookFormat::from),
        min_game: args.min_game,
    })?;
    if args.json {
        return print_json(&report);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} → {}: read {} positions ({} moves) of {} records; wrote {} positions, {} moves",
        format_name(report.source_format),
        format_name(report.target_format),
        report.read.positions,
        report.read.moves,
        report.read.records,
        report.positions_written,
        report.moves_written
    )?;
    if report.lost.is_empty() {
        writeln!(out, "nothing lost")?;
    }
    for (k, v) in &report.lost {
        writeln!(out, "  not carried over: {k}: {v}")?;
    }
    for f in &report.files {
        writeln!(out, "  wrote {}", f.display())?;
    }
    Ok(())
}

pub fn merge(args: MergeArgs) -> anyhow::Result<()> {
    let m = books::merge(&args.first, &args.second, &args.output)?;
    if args.json {
        return print_json(&m);
    }
    println!(
        "merged {} ({} entries) and {} ({} entries) into {} ({} entries)",
        m.first.display(),
        m.first_entries,
        m.second.display(),
        m.second_entries,
        m.output.display(),
        m.entries
    );
    Ok(())
}
