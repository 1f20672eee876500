//! `tabiya demo`: imports the bundled sample into a local database and shows what the
//! explorer says of a few well-known positions.

use std::io::Write;

use clap::Args;
use tabiya_service::demo;

use crate::args::DbArg;
use crate::explore::print_chess;

#[derive(Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print the explorer's answers and stop, instead of serving the page.
    #[arg(long)]
    pub no_serve: bool,
    /// Print the import and the answers as JSON (and stop).
    #[arg(long)]
    pub json: bool,
    /// Address the page is served on.
    #[arg(long, value_name = "ADDR", default_value = tabiya_server::DEFAULT_BIND)]
    pub bind: String,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let d = demo::run(&dir, 3)?;
    if args.json {
        return crate::output::print_json(&d);
    }
    if !args.no_serve {
        println!(
            "Imported {} games ({} already there) into {}; it now holds {} games.",
            d.import.imported,
            d.import.duplicates,
            dir.display(),
            d.import.database_games
        );
        return crate::serve::serve(tabiya_server::Config {
            bind: args.bind,
            dbs: vec![("demo".to_string(), vec![dir])],
            ..tabiya_server::Config::default()
        });
    }
    {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "Imported {} games ({} already there) into {} in {:.2} s; it now holds {} games.\n",
            d.import.imported,
            d.import.duplicates,
            dir.display(),
            d.import.seconds,
            d.import.database_games
        )?;
    }
    for p in &d.positions {
        println!(
            "== {}{}",
            p.position,
            if p.play.is_empty() {
                String::new()
            } else {
                format!("  (--play {})", p.play)
            }
        );
        print_chess(&p.explorer)?;
        println!();
    }
    println!(
        "Try: tabiya explore --db {} --play e2e4,e7e5   |   tabiya games --db {} --play e2e4,c7c5",
        dir.display(),
        dir.display()
    );
    Ok(())
}
