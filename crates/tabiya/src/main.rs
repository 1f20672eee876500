//! The `tabiya` binary: a thin command line over the Tabiya crates.
//!
//! Each command group lives in its own module and only parses arguments, calls library code,
//! and prints (a table on a terminal, JSON with `--json`).

mod analyse;
mod annotate;
mod args;
mod book;
mod cards;
mod check;
mod db;
mod demo;
mod duplicates;
mod edit;
mod engine_args;
mod explore;
mod export;
mod games;
mod gameset;
mod generate;
mod import;
mod interrupt;
mod names;
mod names_edit;
mod note;
mod novelty;
mod output;
mod position;
mod prepare;
mod repertoire;
mod search;
mod serve;
mod source;
mod spark;
mod stats;
mod train;
mod wthor;

use clap::{Parser, Subcommand};

/// jemalloc rather than glibc's malloc: a server's answers allocate and free many buffers of
/// every size on many threads, and glibc's malloc spent a third of a material search's time
/// at ten million games in `_int_malloc` and `malloc_consolidate` (`BENCHMARKS.md`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    Import(import::ImportArgs),
    /// What was played in a position: moves with results, ratings, top games, opening.
    Explore(explore::ExploreArgs),
    /// Every game reaching a position, by any move order.
    Games(games::GamesArgs),
    /// Games in which a pattern, a material signature or a pawn structure holds: their
    /// results, the moves played from there, the games (chess).
    Search(search::SearchArgs),
    /// Write games back as PGN.
    Export(export::ExportArgs),
    /// Analyse a position with a UCI engine (Stockfish): lines as they come, the result kept
    /// by position in the database.
    #[command(alias = "analyze")]
    Analyse(analyse::AnalyseArgs),
    /// Evaluate every position of games with the engines, report their mistakes, write them
    /// as annotated PGN.
    Annotate(annotate::AnnotateArgs),
    /// Change a game's tags (result, ratings, names, date, any tag): every statistic follows.
    Edit(edit::EditArgs),
    /// Delete games: every answer leaves them out from then on.
    Delete(edit::DeleteArgs),
    /// Games told twice though not byte for byte (same players after names, and the same
    /// moves, or the same date and event with one line beginning the other); --remove
    /// keeps the longer, better annotated copy.
    Duplicates(duplicates::DuplicatesArgs),
    /// Notes kept with positions (Markdown), found by any move order.
    #[command(subcommand)]
    Note(note::NoteCommand),
    /// Novelties: the earlier games in each position of games (stored, or of a PGN file),
    /// and the first move leading where no earlier game went.
    Novelty(novelty::NoveltyArgs),
    /// Repertoires (a PGN with variations, or a book) against the database, by position:
    /// gaps, bad moves, rare lines; where games left them.
    #[command(subcommand)]
    Repertoire(repertoire::RepertoireCommand),
    /// Preparation against a player: their repertoire with one colour as the database knows
    /// it, by position (transpositions merged) — how often, how they scored, their latest
    /// game, where they vary most; as a tree, JSON, PGN or a book.
    Prepare(prepare::PrepareArgs),
    /// Gamesets: named criteria whose games are kept current (docs/gamesets.md).
    #[command(subcommand)]
    Gameset(gameset::GamesetCommand),
    /// Flashcards: a position and the move(s) to know there, by hand, from a line, a book
    /// or the database's most played moves.
    #[command(subcommand)]
    Cards(cards::CardsCommand),
    /// Quiz the due flashcards in the terminal, scheduled by spaced repetition (SM-2).
    Train(train::TrainArgs),
    /// Whole databases: merge several into one.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// What the database holds and what it costs on disk.
    Stats(stats::StatsArgs),
    /// Verify a database: every page's checksum, every table decoded, the index recomputed
    /// from the stored games; says what is wrong and where (exit status 1 when anything is).
    Check(check::CheckArgs),
    /// Player, event and site names: search (any case, accents, typos) and list.
    #[command(subcommand)]
    Names(names::NamesCommand),
    /// Serve databases and books over HTTP: the Lichess-compatible explorer API, Tabiya's API
    /// and a web page with a board.
    Serve(serve::ServeArgs),
    /// Generate realistic PGN from real games (deterministic), for scale benchmarks.
    Gen(generate::GenArgs),
    /// A cluster build's worker commands (run by `scripts/spark/tabiya_build.py`).
    #[command(subcommand, hide = true)]
    Spark(spark::SparkCommand),
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
        Command::Demo(a) => demo::run(a),
        Command::Import(a) => import::run(a),
        Command::Explore(a) => explore::run(a),
        Command::Games(a) => games::run(a),
        Command::Search(a) => search::run(a),
        Command::Export(a) => export::run(a),
        Command::Analyse(a) => analyse::run(a),
        Command::Annotate(a) => annotate::run(a),
        Command::Edit(a) => edit::run_edit(a),
        Command::Delete(a) => edit::run_delete(a),
        Command::Duplicates(a) => duplicates::run(a),
        Command::Db(cmd) => db::run(cmd),
        Command::Note(cmd) => note::run(cmd),
        Command::Gameset(cmd) => gameset::run(cmd),
        Command::Novelty(a) => novelty::run(a),
        Command::Repertoire(cmd) => repertoire::run(cmd),
        Command::Prepare(a) => prepare::run(a),
        Command::Cards(cmd) => cards::run(cmd),
        Command::Train(a) => train::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Check(a) => check::run(a),
        Command::Names(cmd) => names::run(cmd),
        Command::Serve(a) => serve::run(a),
        Command::Gen(a) => generate::run(a),
        Command::Spark(cmd) => spark::run(cmd),
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command, flag and argument says what it is in `--help` (clap's own `--help`
    /// and `--version` aside).
    #[test]
    fn every_flag_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() && sub.get_long_about().is_none() {
                    missing.push(format!("{path} {} (the command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "tabiya", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:#?}");
    }
}
