//! `tabiya names`: the player, event and site names of a chess database — searched as
//! people type them (any case or accent, a typo or two) or listed.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use tabiya_service::names::{self, NameKind};

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Subcommand)]
pub enum NamesCommand {
    /// Names found by a query: by the start of any word, any case or accent, then with a
    /// typo allowed (marked ~).
    Search(SearchArgs),
    /// Every name, alphabetical, paged.
    List(ListArgs),
    /// A player's games: results by colour, years, ratings, most played openings.
    Show(ShowArgs),
}

#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long)]
    pub json: bool,
    /// The player's name as written in the games (any case or accents).
    pub name: String,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum KindArg {
    Player,
    Event,
    Site,
}

impl From<KindArg> for NameKind {
    fn from(k: KindArg) -> NameKind {
        match k {
            KindArg::Player => NameKind::Player,
            KindArg::Event => NameKind::Event,
            KindArg::Site => NameKind::Site,
        }
    }
}

#[derive(Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// At most this many.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
    /// What to look for, e.g. "karpov an" or "kasprov".
    pub query: String,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: NamesCommand) -> anyhow::Result<()> {
    match cmd {
        NamesCommand::Search(a) => {
            let db = a.db.open()?;
            let hits = names::search(&db, a.kind.into(), &a.query, a.limit)?;
            if a.json {
                return print_json(&hits);
            }
            let mut out = std::io::stdout().lock();
            if hits.is_empty() {
                writeln!(out, "no name found for {:?}", a.query)?;
            }
            for h in hits {
                writeln!(out, "{}{}", if h.fuzzy { "~ " } else { "  " }, h.name)?;
            }
            Ok(())
        }
        NamesCommand::Show(a) => {
            let db = a.db.open()?;
            let c = tabiya_service::player::card(&db, &a.name)?;
            if a.json {
                return print_json(&c);
            }
            let mut out = std::io::stdout().lock();
            writeln!(out, "{} — {} games", c.names.join(" / "), c.games)?;
            if let (Some(a), Some(b)) = (c.first_year, c.last_year) {
                writeln!(out, "years {a}–{b}")?;
            }
            if let (Some(a), Some(b)) = (c.rating_min, c.rating_max) {
                writeln!(out, "ratings {a}–{b}")?;
            }
            for (colour, s) in [("white", &c.white), ("black", &c.black)] {
                writeln!(
                    out,
                    "as {colour}: {} games, +{} ={} -{}{}",
                    s.games,
                    s.wins,
                    s.draws,
                    s.losses,
                    if s.unknown > 0 {
                        format!(" ({} without result)", s.unknown)
                    } else {
                        String::new()
                    }
                )?;
            }
            for o in &c.openings {
                writeln!(out, "  {:>4}  {} {}", o.games, o.eco, o.name)?;
            }
            Ok(())
        }
        NamesCommand::List(a) => {
            let db = a.db.open()?;
            let (total, page) = names::list(&db, a.kind.into(), a.offset, a.limit)?;
            if a.json {
                return print_json(&serde_json::json!({
                    "total": total,
                    "offset": a.offset,
                    "names": page,
                }));
            }
            let mut out = std::io::stdout().lock();
            for n in &page {
                writeln!(out, "{n}")?;
            }
            writeln!(
                out,
                "({} to {} of {total})",
                (a.offset + 1).min(total as usize),
                a.offset + page.len()
            )?;
            Ok(())
        }
    }
}
