//! The `tabiya` binary: a thin command line over the Tabiya crates.
//!
//! Each command group lives in its own module and only parses arguments, calls library code,
//! and prints (a table on a terminal, JSON with `--json`).

mod args;
mod book;
mod db;
mod demo;
mod generate;
mod othello_db;
mod output;
mod position;
mod wthor;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tabiya",
    version,
    about = "A positional game database for chess and Othello"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import the bundled sample into a local database and explore a few positions.
    Demo(demo::DemoArgs),
    /// Import PGN files into a database (created if needed).
    Import(db::ImportArgs),
    /// What was played in a position: moves with results, ratings, top games, opening.
    Explore(db::ExploreArgs),
    /// Every game reaching a position, by any move order.
    Games(db::GamesArgs),
    /// Write games back as PGN.
    Export(db::ExportArgs),
    /// What the database holds and what it costs on disk.
    Stats(db::StatsArgs),
    /// Generate realistic PGN from real games (deterministic), for scale benchmarks.
    Gen(generate::GenArgs),
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
        Command::Demo(a) => demo::demo(a),
        Command::Import(a) => db::import(a),
        Command::Explore(a) => db::explore(a),
        Command::Games(a) => db::games(a),
        Command::Export(a) => db::export(a),
        Command::Stats(a) => db::stats(a),
        Command::Gen(a) => generate::generate(a),
        Command::Book(cmd) => book::run(cmd),
        Command::Position(cmd) => position::run(cmd),
        Command::Wthor(cmd) => wthor::run(cmd),
    };
    if let Err(err) = result {
        // Output cut short by the reader (`tabiya ... | head`) is not an error.
        if err.chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        }) {
            std::process::exit(0);
        }
        output::report_error(&err);
        std::process::exit(1);
    }
}
