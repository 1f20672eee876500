//! `tabiya names alias | unalias | merge | split | rename | load-spelling`: corrections of
//! what names mean, each reported with the games it touched and the command that undoes it.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tabiya_service::entries::{self, Correction, CorrectionReport, EntryView};
use tabiya_service::names::NameKind;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct AliasArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// A spelling as written in games (any case).
    pub name: String,
    /// The name it means: another spelling, or a player's (event's, site's) name.
    #[arg(long)]
    pub to: String,
}

#[derive(Args)]
pub struct OneNameArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// A spelling as written in games (any case).
    pub name: String,
}

#[derive(Args)]
pub struct TwoNamesArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// A spelling, or a player's (event's, site's) name.
    pub a: String,
    /// Another.
    pub b: String,
}

#[derive(Args)]
pub struct RenameArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Which names: players, events, sites or annotators.
    #[arg(long, value_enum, default_value = "player")]
    pub kind: KindArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// A spelling, or the name shown now.
    pub name: String,
    /// The name to show.
    pub to: String,
}

#[derive(Args)]
pub struct LoadSpellingArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// Scid's spelling file: `.ssp`, or compressed `.ssp.zst`.
    pub file: PathBuf,
}

fn report(r: &CorrectionReport, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} game{} touched ({} spelling{})",
        r.done,
        r.games,
        if r.games == 1 { "" } else { "s" },
        r.spellings,
        if r.spellings == 1 { "" } else { "s" }
    )?;
    for e in &r.entries {
        write!(out, "  ")?;
        write_entry(&mut out, e)?;
    }
    writeln!(out, "undo: {}", r.undo)?;
    Ok(())
}

pub fn alias(a: AliasArgs) -> anyhow::Result<()> {
    let db = a.db.open()?;
    let r = entries::correct(
        &db,
        a.kind.into(),
        &Correction::Alias {
            name: a.name,
            to: a.to,
        },
    )?;
    report(&r, a.json)
}

pub fn unalias(a: OneNameArgs) -> anyhow::Result<()> {
    let db = a.db.open()?;
    let r = entries::correct(&db, a.kind.into(), &Correction::Unalias { name: a.name })?;
    report(&r, a.json)
}

/// `merge` (or, `together` false, `split`).
pub fn merge(a: TwoNamesArgs, together: bool) -> anyhow::Result<()> {
    let db = a.db.open()?;
    let c = if together {
        Correction::Merge { a: a.a, b: a.b }
    } else {
        Correction::Split { a: a.a, b: a.b }
    };
    let r = entries::correct(&db, a.kind.into(), &c)?;
    report(&r, a.json)
}

pub fn rename(a: RenameArgs) -> anyhow::Result<()> {
    let db = a.db.open()?;
    let r = entries::correct(
        &db,
        a.kind.into(),
        &Correction::Rename {
            name: a.name,
            to: a.to,
        },
    )?;
    report(&r, a.json)
}

pub fn load_spelling(a: LoadSpellingArgs) -> anyhow::Result<()> {
    let db = a.db.open()?;
    let r = entries::load_spelling(&db, &a.file)?;
    if a.json {
        return print_json(&r);
    }
    let mut out = std::io::stdout().lock();
    let counts: Vec<String> = r.names.iter().map(|(k, v)| format!("{v} {k}")).collect();
    writeln!(out, "{}: {}", r.file, counts.join(", "))?;
    for w in &r.warnings {
        writeln!(out, "  {w}")?;
    }
    if r.warning_count > r.warnings.len() as u64 {
        writeln!(
            out,
            "  … {} lines in all could not be used",
            r.warning_count
        )?;
    }
    for (dict, (spellings, games)) in &r.renamed {
        writeln!(
            out,
            "{dict}: {spellings} spellings now mean another name ({games} games)"
        )?;
    }
    if r.ambiguous > 0 {
        writeln!(
            out,
            "{} player spellings fit several players and were left alone (tabiya names ambiguous)",
            r.ambiguous
        )?;
    }
    Ok(())
}

#[derive(Clone, Copy, ValueEnum)]
pub enum KindArg {
    Player,
    Event,
    Site,
    Annotator,
}

impl From<KindArg> for NameKind {
    fn from(k: KindArg) -> NameKind {
        match k {
            KindArg::Player => NameKind::Player,
            KindArg::Event => NameKind::Event,
            KindArg::Site => NameKind::Site,
            KindArg::Annotator => NameKind::Annotator,
        }
    }
}

/// One entry on a line: its name, games (players), and its spellings when they differ
/// from it.
pub fn write_entry(out: &mut impl Write, e: &EntryView) -> std::io::Result<()> {
    let others: Vec<&str> = e
        .spellings
        .iter()
        .filter(|s| **s != e.name)
        .map(String::as_str)
        .collect();
    let mut notes = Vec::new();
    if let Some(g) = e.games {
        notes.push(format!("{g} games"));
    }
    if !others.is_empty() {
        notes.push(format!("also {}", others.join(" / ")));
    }
    if notes.is_empty() {
        writeln!(out, "{}", e.name)
    } else {
        writeln!(out, "{}  ({})", e.name, notes.join("; "))
    }
}
