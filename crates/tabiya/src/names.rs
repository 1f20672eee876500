//! `tabiya names`: the player, event and site names of a chess database — searched as
//! people type them (any case or accent, a typo or two) or listed.

use std::io::Write;

use clap::{Args, Subcommand};
use tabiya_service::entries;
use tabiya_service::reads;

use crate::args::DbArg;
use crate::names_edit::{KindArg, write_entry};
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
    /// Spellings left alone because they fit several players (or events, sites).
    Ambiguous(AmbiguousArgs),
    /// Make a spelling mean the same as another name (undo: unalias).
    Alias(crate::names_edit::AliasArgs),
    /// A spelling goes back to what it meant before its alias (or leaves its group).
    Unalias(crate::names_edit::OneNameArgs),
    /// Two names mean one player (event, site) (undo: split).
    Merge(crate::names_edit::TwoNamesArgs),
    /// Two names mean two (undo: merge).
    Split(crate::names_edit::TwoNamesArgs),
    /// Show a player (event, site) under another name (undo: rename back).
    Rename(crate::names_edit::RenameArgs),
    /// Load Scid's spelling file (.ssp or .ssp.zst): its correct names win, for the games
    /// stored and those imported later.
    LoadSpelling(crate::names_edit::LoadSpellingArgs),
    /// Give games the ratings they lack from the spelling file's %Elo histories.
    FillElo(FillEloArgs),
}

#[derive(Args)]
pub struct FillEloArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct AmbiguousArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// The player's name as written in the games (any case or accents).
    pub name: String,
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
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// What to look for, e.g. "karpov an" or "kasprov".
    pub query: String,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Names skipped first (the next page: --offset 100).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Names listed at most.
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Only the players (events, sites) whose name or a spelling contains this (any case
    /// or accents).
    #[arg(long)]
    pub filter: Option<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: NamesCommand) -> anyhow::Result<()> {
    match cmd {
        NamesCommand::Search(a) => {
            let hits = crate::source::open(&a.db)?.ask(&reads::NamesSearch {
                kind: a.kind.into(),
                query: a.query.clone(),
                limit: a.limit,
            })?;
            if a.json {
                return print_json(&hits);
            }
            let mut out = std::io::stdout().lock();
            if hits.is_empty() {
                writeln!(out, "no name found for {:?}", a.query)?;
            }
            for h in hits {
                let means = h
                    .means
                    .as_ref()
                    .map(|m| format!(" → {m}"))
                    .unwrap_or_default();
                let games = h
                    .games
                    .map(|g| format!("  ({g} games)"))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{}{}{means}{games}",
                    if h.fuzzy { "~ " } else { "  " },
                    h.name
                )?;
            }
            Ok(())
        }
        NamesCommand::Show(a) => {
            let c = crate::source::open(&a.db)?.ask(&reads::PlayerCard {
                name: a.name.clone(),
            })?;
            if a.json {
                return print_json(&c);
            }
            let mut out = std::io::stdout().lock();
            writeln!(out, "{} — {} games", c.name, c.games)?;
            if c.names.len() > 1 || c.names.first() != Some(&c.name) {
                writeln!(out, "spelt {}", c.names.join(" / "))?;
            }
            if let Some(i) = &c.info {
                write_info(&mut out, i)?;
            }
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
            let (total, page) = crate::source::open(&a.db)?.ask(&reads::NameEntries {
                kind: a.kind.into(),
                filter: a.filter.clone(),
                offset: a.offset,
                limit: a.limit,
            })?;
            if a.json {
                return print_json(&serde_json::json!({
                    "total": total,
                    "offset": a.offset,
                    "entries": page,
                }));
            }
            let mut out = std::io::stdout().lock();
            for e in &page {
                write_entry(&mut out, e)?;
            }
            writeln!(
                out,
                "({} to {} of {total})",
                (a.offset + 1).min(total as usize),
                a.offset + page.len()
            )?;
            Ok(())
        }
        NamesCommand::Ambiguous(a) => {
            let list = crate::source::open(&a.db)?.ask(&reads::AmbiguousNames {
                kind: a.kind.into(),
            })?;
            if a.json {
                return print_json(&list);
            }
            let mut out = std::io::stdout().lock();
            for n in &list {
                writeln!(out, "{} — could be {}", n.name, n.candidates.join(" / "))?;
            }
            writeln!(out, "({} names left alone)", list.len())?;
            Ok(())
        }
        NamesCommand::Alias(a) => crate::names_edit::alias(a),
        NamesCommand::Unalias(a) => crate::names_edit::unalias(a),
        NamesCommand::Merge(a) => crate::names_edit::merge(a, true),
        NamesCommand::Split(a) => crate::names_edit::merge(a, false),
        NamesCommand::Rename(a) => crate::names_edit::rename(a),
        NamesCommand::LoadSpelling(a) => crate::names_edit::load_spelling(a),
        NamesCommand::FillElo(a) => {
            let db = a.db.open()?;
            let r = entries::fill_elo(&db)?;
            if a.json {
                return print_json(&r);
            }
            println!(
                "{} ratings given to {} games from the spelling file's %Elo histories ({} tree records counted again)",
                r.ratings, r.games, r.records
            );
            Ok(())
        }
    }
}

/// What the spelling file says of a player, on a line or two.
fn write_info(out: &mut impl Write, i: &entries::PlayerInfo) -> std::io::Result<()> {
    let mut parts = Vec::new();
    if !i.titles.is_empty() {
        parts.push(i.titles.join("+"));
    }
    if let Some(c) = &i.country {
        parts.push(c.clone());
    }
    if let Some(p) = i.peak_elo {
        parts.push(format!("peak {p}"));
    }
    match (&i.birth, &i.death) {
        (Some(b), Some(d)) => parts.push(format!("{b}–{d}")),
        (Some(b), None) => parts.push(format!("born {b}")),
        (None, Some(d)) => parts.push(format!("died {d}")),
        _ => {}
    }
    if !parts.is_empty() {
        writeln!(out, "{}", parts.join(", "))?;
    }
    for b in &i.bio {
        writeln!(out, "  {b}")?;
    }
    Ok(())
}
