//! `tabiya prepare`: a player's repertoire as the database knows it (by position), printed
//! as an indented tree, as JSON, or written as PGN or a book.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use tabiya_service::prepare::{
    self, Colour, DEFAULT_DEPTH, DEFAULT_MIN_GAMES, Preparation, PrepareOptions, Score, walk,
};

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct PrepareArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The player (any spelling, any case or accents).
    #[arg(long, value_name = "NAME")]
    pub player: String,
    /// The colour the player had: white or black.
    #[arg(long, value_name = "white|black")]
    pub color: String,
    /// Only games of this year or later.
    #[arg(long, value_name = "YEAR")]
    pub since: Option<u16>,
    /// Moves read from each game.
    #[arg(long, value_name = "PLIES", default_value_t = DEFAULT_DEPTH)]
    pub depth: u32,
    /// Show a move only with at least this many games (1 shows all).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_GAMES)]
    pub min_games: u64,
    /// Write the tree to a file: PGN with variations (`.pgn`) or a book (`.bin`, `.ctg`).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// What to write with -o: pgn, polyglot or ctg (default: from the file's extension).
    #[arg(long, value_name = "pgn|polyglot|ctg", requires = "output")]
    pub format: Option<String>,
    /// The whole tree as JSON (with -o: what was written).
    #[arg(long)]
    pub json: bool,
}

fn score_columns(s: &Score) -> String {
    let pct = s.score.map_or("-".to_string(), |p| format!("{p:.1}%"));
    format!(
        "{:>6}  +{:<4} ={:<4} -{:<4} {:>6}",
        s.games, s.wins, s.draws, s.losses, pct
    )
}

fn print(w: &mut impl Write, prep: &Preparation) -> std::io::Result<()> {
    let colour = match prep.color {
        Colour::White => "White",
        Colour::Black => "Black",
    };
    let since = prep.since.map_or(String::new(), |y| format!(" since {y}"));
    let s = &prep.score;
    writeln!(
        w,
        "{} as {colour}{since}: {} game{}, +{} ={} -{}, {} (the first {} plies; moves of at least {} game{})",
        prep.player,
        s.games,
        if s.games == 1 { "" } else { "s" },
        s.wins,
        s.draws,
        s.losses,
        s.score.map_or("-".to_string(), |p| format!("{p:.1}%")),
        prep.depth,
        prep.min_games,
        if prep.min_games == 1 { "" } else { "s" },
    )?;
    if prep.other_starts > 0 {
        writeln!(
            w,
            "({} game{} from another start position left out)",
            prep.other_starts,
            if prep.other_starts == 1 { "" } else { "s" }
        )?;
    }
    let steps = walk::steps(prep);
    if steps.is_empty() {
        writeln!(w, "No move of at least {} games.", prep.min_games)?;
        return Ok(());
    }
    let label = |st: &walk::Step<'_>| {
        format!(
            "{}{}",
            "  ".repeat(st.depth),
            walk::move_text(st.depth, &st.mv.san)
        )
    };
    let width = steps
        .iter()
        .map(|st| label(st).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(12, 48);
    writeln!(
        w,
        "\n{:<width$} {:>6}  {:<17} {:>6}  latest game",
        "move", "games", "+won =drawn -lost", "score"
    )?;
    for st in &steps {
        let l = &st.mv.latest;
        let moved = if st.continued {
            String::new()
        } else {
            let tail = st.to.line.len().saturating_sub(4);
            format!(
                "  → transposes to {}",
                walk::numbered_from(&st.to.line, tail)
            )
        };
        writeln!(
            w,
            "{:<width$} {}  {} {}, {} (#{}){moved}",
            label(st),
            score_columns(&st.mv.score),
            l.date,
            l.opponent,
            l.event,
            l.id
        )?;
    }
    if !prep.varies_most.is_empty() {
        writeln!(w, "\nWhere they vary most:")?;
        for v in &prep.varies_most {
            let at = if v.line.is_empty() {
                "at the start".to_string()
            } else {
                format!("after {}", walk::numbered(&v.line))
            };
            let shares: Vec<String> = v
                .moves
                .iter()
                .map(|m| format!("{} {:.1}% ({})", m.san, m.share, m.games))
                .collect();
            writeln!(
                w,
                "  {at} ({} games, {:.2} bits): {}",
                v.games,
                v.entropy,
                shares.join(", ")
            )?;
        }
    }
    Ok(())
}

pub fn run(args: PrepareArgs) -> anyhow::Result<()> {
    let opts = PrepareOptions {
        since: args.since,
        depth: args.depth,
        min_games: args.min_games,
        ..PrepareOptions::new(args.player, Colour::from_name(&args.color)?)
    };
    let prep =
        crate::source::open(&args.db)?.ask(&tabiya_service::reads::Prepare { options: opts })?;
    if let Some(out) = &args.output {
        let written = prepare::write(&prep, out, args.format.as_deref())?;
        if args.json {
            return print_json(&written);
        }
        let files: Vec<String> = written
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        println!(
            "wrote {} ({}): {} positions, {} moves",
            files.join(", "),
            written.format,
            written.positions,
            written.moves
        );
        return Ok(());
    }
    if args.json {
        return print_json(&prep);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    print(&mut out, &prep)?;
    out.flush()?;
    Ok(())
}
