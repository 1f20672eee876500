//! The `tabiya` binary: a thin command line over the Tabiya crates.
//!
//! Each command group lives in its own module and only parses arguments, calls library code,
//! and prints (a table on a terminal, JSON with `--json`).

mod book;
mod output;
mod position;
mod wthor;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "tabiya", version, about = "A positional game database for chess and Othello")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Opening books: ChessBase CTG, Polyglot, Kvetka.
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Compact position codecs (B32, CDB, CTG, Kvetka and Polyglot keys).
    #[command(subcommand)]
    Position(position::PositionCommand),
    /// WTHOR Othello databases: check, CSV export.
    #[command(subcommand)]
    Wthor(wthor::WthorCommand),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Book(cmd) => book::run(cmd),
        Command::Position(cmd) => position::run(cmd),
        Command::Wthor(cmd) => wthor::run(cmd),
    };
    if let Err(err) = result {
        output::report_error(&err);
        std::process::exit(1);
    }
}
