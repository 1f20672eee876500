//! `tabiya edit` and `tabiya delete`: a game's tags changed, games taken out; every
//! statistic that counted them follows at once.

use std::io::Write;

use clap::Args;
use tabiya_service::edit::{DeleteSelection, EditRequest};
use tabiya_service::handover::{HandOff, hand_over_delete, hand_over_edit};
use tabiya_service::{Db, ErrorKind};

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct EditArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The game to edit (its id, as `games` and `export` give it).
    #[arg(long, value_name = "ID")]
    pub game: u32,
    /// Set a tag: TAG=VALUE (repeatable), e.g. `--set Result=1/2-1/2 --set WhiteElo=2650`.
    #[arg(long, value_name = "TAG=VALUE")]
    pub set: Vec<String>,
    /// Remove a tag (repeatable).
    #[arg(long, value_name = "TAG")]
    pub unset: Vec<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The games to delete (repeatable, or several ids after one --game).
    #[arg(long = "game", value_name = "ID", num_args = 1.., required_unless_present_any = ["gameset", "criteria"])]
    pub games: Vec<u32>,
    /// Delete a gameset's games (tabiya gameset).
    #[arg(long, value_name = "NAME")]
    pub gameset: Option<String>,
    /// Delete the games meeting these criteria (docs/gamesets.md); with --gameset, those of
    /// the gameset that meet them.
    #[arg(long = "where", value_name = "CRITERIA")]
    pub criteria: Option<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

/// The database to change, or, when a `tabiya serve` holds it, that server (which makes
/// the change: it shows at once in what it serves).
pub(crate) enum Target {
    Here(Db),
    Served(HandOff),
}

pub(crate) fn target(db: &DbArg) -> anyhow::Result<Target> {
    let dir = db.dir();
    match Db::open(&dir) {
        Ok(db) => Ok(Target::Here(db)),
        Err(e) if e.kind() == ErrorKind::InUse => match HandOff::find(&dir) {
            Some(server) => {
                eprintln!(
                    "{} is served by {}: the server makes the change",
                    dir.display(),
                    server.url()
                );
                Ok(Target::Served(server))
            }
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

pub fn run_edit(args: EditArgs) -> anyhow::Result<()> {
    let req = EditRequest::from_args(&args.set, &args.unset)?;
    let edited = match target(&args.db)? {
        Target::Here(db) => db.edit_game(args.game, &req)?,
        Target::Served(server) => hand_over_edit(&server, args.game, &req)?,
    };
    if args.json {
        return print_json(&edited);
    }
    let mut w = std::io::stdout().lock();
    if !edited.changed {
        writeln!(
            w,
            "game {}: nothing changed (its tags already say so)",
            edited.game
        )?;
        return Ok(());
    }
    writeln!(w, "game {} edited:", edited.game)?;
    for (name, old) in &edited.before {
        match edited.after.iter().find(|(n, _)| n == name) {
            Some((_, new)) if new == old => {}
            Some((_, new)) => writeln!(w, "  {name}: {old} → {new}")?,
            None => writeln!(w, "  {name}: {old} → (removed)")?,
        }
    }
    for (name, new) in &edited.after {
        if !edited.before.iter().any(|(n, _)| n == name) {
            writeln!(w, "  {name}: (new) {new}")?;
        }
    }
    writeln!(w, "{} tree records counted it again", edited.records)?;
    Ok(())
}

pub fn run_delete(args: DeleteArgs) -> anyhow::Result<()> {
    let sel = DeleteSelection {
        ids: args.games.clone(),
        gameset: args.gameset.clone(),
        criteria: args.criteria.clone(),
    };
    let report = match target(&args.db)? {
        Target::Here(db) => db.delete_selected(&sel)?,
        Target::Served(server) => hand_over_delete(&server, &sel)?,
    };
    if args.json {
        return print_json(&report);
    }
    let mut w = std::io::stdout().lock();
    writeln!(
        w,
        "{} game{} deleted ({} tree records counted again); {} left",
        report.deleted.games,
        if report.deleted.games == 1 { "" } else { "s" },
        report.deleted.records,
        report.games_left
    )?;
    if !report.deleted.missing.is_empty() {
        let ids: Vec<String> = report.deleted.missing.iter().map(u32::to_string).collect();
        writeln!(w, "no such game: {}", ids.join(", "))?;
    }
    Ok(())
}
