//! `tabiya book …`: opening books in ChessBase CTG, Polyglot and Kvetka formats — probe, dump,
//! check, info, convert, build (from PGN or a database), merge (Polyglot), game (Kvetka).
//!
//! Each command parses its arguments, calls one function of `tabiya_service::books`, and
//! prints the answer as a table or text, or as JSON with `--json`. The format of a book is
//! told from its path unless `--book-format` says it.

mod build;
mod show;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use tabiya_service::books::{BookFile, BookFormat};

use crate::args::PositionArg;

/// A book format on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Ctg,
    Polyglot,
    Kvetka,
}

impl From<FormatArg> for BookFormat {
    fn from(f: FormatArg) -> BookFormat {
        match f {
            FormatArg::Ctg => BookFormat::Ctg,
            FormatArg::Polyglot => BookFormat::Polyglot,
            FormatArg::Kvetka => BookFormat::Kvetka,
        }
    }
}

/// A book to read.
#[derive(Args, Clone)]
pub struct BookArg {
    /// The book: a Polyglot `.bin`; a CTG `.ctg` (or `.cto/.ctb/.ini`, or the stem); a Kvetka
    /// `name_0.kob` (or `.kob/.kin/.ksf`, or `dir/name`).
    #[arg(value_name = "BOOK")]
    pub book: PathBuf,
    /// Read the book as this format instead of telling it from the file.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub book_format: Option<FormatArg>,
}

impl BookArg {
    /// The book to read.
    pub fn file(&self) -> BookFile {
        BookFile {
            path: self.book.clone(),
            format: self.book_format.map(BookFormat::from),
        }
    }
}

#[derive(Subcommand)]
pub enum BookCommand {
    /// What a book holds for a position: its totals and its moves with their statistics.
    Probe(ProbeArgs),
    /// Everything in a book: Polyglot lines by colour (as `polyglot dump-book`), every
    /// position of a CTG or Kvetka book.
    Dump(DumpArgs),
    /// Check a book: CTG page walk against the .cto, Kvetka verification, Polyglot order,
    /// illegal moves and unreachable entries. Exits with status 1 when something is wrong.
    Check(CheckArgs),
    /// What a book is: format, files, header fields, counts.
    Info(InfoArgs),
    /// Convert any readable book to another format, reporting what the target cannot hold.
    Convert(ConvertArgs),
    /// Build a book from PGN files or a Tabiya database.
    Build(build::BuildArgs),
    /// Merge two Polyglot books as `polyglot merge-book` does (weights add).
    Merge(MergeArgs),
    /// Print the PGN text of the games a Kvetka book links to a position.
    Game(GameArgs),
}

#[derive(Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub book: BookArg,
    #[command(flatten)]
    pub position: PositionArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColourArg {
    White,
    Black,
}

#[derive(Args)]
pub struct DumpArgs {
    #[command(flatten)]
    pub book: BookArg,
    /// Polyglot: dump the lines of this colour only (default: both).
    #[arg(long, value_enum, alias = "colour")]
    pub color: Option<ColourArg>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub book: BookArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub book: BookArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub book: BookArg,
    /// Output: a Polyglot `.bin`, a CTG `.ctg` (or stem), a Kvetka `dir/name` (or
    /// `name_0.kob`).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Target format (default: from the output's extension).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Polyglot target: leave out moves whose statistics count fewer games (as
    /// `make-book -min-game`).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_game: u64,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// First book (`-in1`: its entries come first and absorb the second's weights).
    pub first: PathBuf,
    /// Second book (`-in2`).
    pub second: PathBuf,
    /// The merged book: a Polyglot `.bin` (`-out`).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct GameArgs {
    #[command(flatten)]
    pub book: BookArg,
    #[command(flatten)]
    pub position: PositionArg,
    /// Print only the N-th linked game (from 0, in the order `--json` lists them).
    #[arg(long, value_name = "N")]
    pub index: Option<usize>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: BookCommand) -> anyhow::Result<()> {
    match cmd {
        BookCommand::Probe(a) => show::probe(a),
        BookCommand::Dump(a) => show::dump(a),
        BookCommand::Check(a) => show::check(a),
        BookCommand::Info(a) => show::info(a),
        BookCommand::Convert(a) => build::convert(a),
        BookCommand::Build(a) => build::build(a),
        BookCommand::Merge(a) => build::merge(a),
        BookCommand::Game(a) => show::game(a),
    }
}
