//! `tabiya duplicates`: games told twice though not byte for byte, listed, and removed on
//! request (the longer, better annotated copy kept).

use std::io::Write;

use clap::Args;
use tabiya_service::duplicates;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct DuplicatesArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Delete every copy but the one kept (the longer, then better annotated, then with
    /// more tags, then first imported).
    #[arg(long)]
    pub remove: bool,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DuplicatesArgs) -> anyhow::Result<()> {
    let d = if args.remove {
        duplicates::find(&args.db.open()?, true)?
    } else {
        crate::source::open(&args.db)?.ask(&tabiya_service::reads::Duplicates {})?
    };
    if args.json {
        return print_json(&d);
    }
    let mut out = std::io::stdout().lock();
    for set in &d.sets {
        writeln!(
            out,
            "{} ({}):",
            set.games[0].white.clone() + " – " + &set.games[0].black,
            set.why
        )?;
        for (i, c) in set.games.iter().enumerate() {
            writeln!(
                out,
                "  {} game {:>7}  {}  {}  {} plies, {} annotations{}",
                if i == 0 { "keep  " } else { "copy  " },
                c.id,
                c.date,
                c.event,
                c.plies,
                c.annotations,
                if i > 0 && d.removed > 0 {
                    " — deleted"
                } else {
                    ""
                }
            )?;
        }
    }
    writeln!(
        out,
        "{} set{} of the same game, {} cop{}{}; {} games in the database",
        d.sets.len(),
        if d.sets.len() == 1 { "" } else { "s" },
        d.copies,
        if d.copies == 1 { "y" } else { "ies" },
        if d.removed > 0 {
            format!(", {} deleted", d.removed)
        } else if d.copies > 0 {
            " (--remove deletes them)".to_string()
        } else {
            String::new()
        },
        d.games_left
    )?;
    Ok(())
}
