//! `tabiya note set | show | delete`: text kept with a chess position, found by any move
//! order; `explore` shows it, `export --notes` writes it into the games that reach it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use tabiya_service::inputs::{self, Whole};
use tabiya_service::notes::{self, Note};
use tabiya_service::reads;

use crate::args::{DbArg, PositionArg};
use crate::edit::{Target, target};
use crate::output::print_json;

#[derive(Subcommand)]
pub enum NoteCommand {
    /// Keep a note with a position (replacing any): the text, or --file.
    Set(SetArgs),
    /// A position's note.
    Show(PositionArgs),
    /// Delete a position's note.
    Delete(PositionArgs),
}

#[derive(Args)]
pub struct PositionArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub position: PositionArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SetArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub position: PositionArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// The note's text from a file (Markdown), - for standard input.
    #[arg(long, conflicts_with = "text")]
    pub file: Option<PathBuf>,
    /// The note (Markdown).
    #[arg(required_unless_present = "file")]
    pub text: Option<String>,
}

fn print(n: &Note, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(n);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", n.fen)?;
    match &n.note {
        Some(t) => writeln!(out, "{t}")?,
        None => writeln!(out, "(no note)")?,
    }
    Ok(())
}

/// Keeps (or, empty, deletes) a note — through the server when one holds the database.
fn change(db: &DbArg, position: &PositionArg, text: &str) -> anyhow::Result<Note> {
    let at = position.resolve()?;
    Ok(match target(db)? {
        Target::Here(db) => notes::set(&db, &at, text)?,
        Target::Served(server) => tabiya_service::handover::hand_over_note(&server, &at.fen, text)?,
    })
}

/// A note's text from a file, or from standard input for `-`: at most what a note holds
/// (`inputs::Whole::Note`), a regular file only, UTF-8.
fn note_file(p: &Path) -> anyhow::Result<String> {
    let bytes = if p.as_os_str() == "-" {
        let bound = Whole::Note.bound();
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(bound + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > bound {
            anyhow::bail!(
                "standard input holds more than {}; at most {} is read for a note",
                inputs::size_text(bound),
                inputs::size_text(bound)
            );
        }
        bytes
    } else {
        inputs::read_whole(p, Whole::Note)?
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text (at byte {})",
            if p.as_os_str() == "-" {
                "standard input".to_string()
            } else {
                p.display().to_string()
            },
            e.utf8_error().valid_up_to()
        )
    })
}

pub fn run(cmd: NoteCommand) -> anyhow::Result<()> {
    match cmd {
        NoteCommand::Set(a) => {
            let text = match (&a.text, &a.file) {
                (Some(t), _) => t.clone(),
                (None, Some(p)) => note_file(p)?,
                (None, None) => unreachable!("clap requires one"),
            };
            let n = change(&a.db, &a.position, &text)?;
            print(&n, a.json)
        }
        NoteCommand::Show(a) => {
            a.position.resolve()?;
            let asked = reads::NoteShow {
                at: crate::source::at(&a.position),
            };
            print(&crate::source::open(&a.db)?.ask(&asked)?, a.json)
        }
        NoteCommand::Delete(a) => {
            let n = change(&a.db, &a.position, "")?;
            if a.json {
                return print_json(&n);
            }
            println!(
                "{}",
                if n.replaced == Some(true) {
                    "note deleted"
                } else {
                    "the position had no note"
                }
            );
            Ok(())
        }
    }
}
