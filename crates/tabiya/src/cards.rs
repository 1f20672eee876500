//! `tabiya cards add | from-line | from-book | from-db | from-rep | list | show | delete | stats`:
//! flashcards — a position and the move(s) to know there — made by hand, from a line, a
//! book or the database's most played moves; `tabiya train` (train.rs) asks them.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use tabiya_service::books::BookFile;
use tabiya_service::cards::{self, AddReport, Card, CardList, Outcome, Side, WalkLimits};
use tabiya_service::handover::HandOff;
use tabiya_service::time::clock;
use tabiya_service::{Db, ErrorKind};

use crate::args::{DbArg, PositionArg};
use crate::output::print_json;

#[derive(Subcommand)]
pub enum CardsCommand {
    /// A card by hand: a position (--fen or --play; the start by default) and its move(s).
    Add(AddArgs),
    /// Cards from a line: each position where --side is to move, with the line's move.
    FromLine(FromLineArgs),
    /// Cards from an opening book (Polyglot, CTG, Kvetka), walked to --depth plies: the
    /// book's best move(s) for --side, every book move of the other side.
    FromBook(FromBookArgs),
    /// Cards from the database's most played moves, walked to --depth plies.
    FromDb(FromDbArgs),
    /// Cards from a repertoire (PGN with variations, or a book): one per position of
    /// --side's with the repertoire's move(s) there, by position (a transposition is one card).
    FromRep(FromRepArgs),
    /// The cards, due first.
    List(ListArgs),
    /// One card and its answers.
    Show(IdArgs),
    /// Delete a card and its answers.
    Delete(IdArgs),
    /// Cards, due, answers, success rate.
    Stats(StatsArgs),
}

/// A side of the board.
#[derive(Clone, Copy, ValueEnum)]
pub enum SideArg {
    White,
    Black,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::White => Side::White,
            SideArg::Black => Side::Black,
        }
    }
}

#[derive(Args)]
pub struct AddArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub position: PositionArg,
    /// A move to know there, SAN or UCI (repeatable: any of them is right).
    #[arg(long = "move", value_name = "MOVE", required = true)]
    pub moves: Vec<String>,
    /// A note shown after the card is answered (Markdown).
    #[arg(long)]
    pub note: Option<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FromLineArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// The line's first position as FEN (default: the standard start).
    #[arg(long)]
    pub fen: Option<String>,
    /// The line: moves in SAN or UCI, separated by commas or spaces.
    #[arg(long, required = true)]
    pub play: String,
    /// The side whose moves become cards.
    #[arg(long, value_enum)]
    pub side: SideArg,
    /// A note kept with every card of the line.
    #[arg(long)]
    pub note: Option<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

/// How far a walk goes.
#[derive(Args)]
pub struct WalkArgs {
    #[command(flatten)]
    pub position: PositionArg,
    /// The side whose moves become cards.
    #[arg(long, value_enum)]
    pub side: SideArg,
    /// Plies from the first position.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub depth: u32,
    /// How many of the best moves make a card of the side (any of them is then right).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=10))]
    pub best: u64,
    /// Stop after this many cards.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_cards: u64,
}

impl WalkArgs {
    fn limits(&self) -> WalkLimits {
        WalkLimits {
            depth: self.depth,
            best: self.best as usize,
            max_cards: self.max_cards as usize,
        }
    }
}

#[derive(Args)]
pub struct FromBookArgs {
    /// The book: Polyglot .bin, CTG .ctg, Kvetka .kob.
    pub book: PathBuf,
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FromRepArgs {
    /// The repertoire: a PGN file with variations (all its games), or a book.
    pub rep: PathBuf,
    #[command(flatten)]
    pub db: DbArg,
    /// The side whose moves become cards.
    #[arg(long, value_enum)]
    pub side: SideArg,
    /// Plies from the start.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub depth: u32,
    /// Stop after this many cards.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_cards: u64,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FromDbArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Moves played in fewer games are left out.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub min_games: u64,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Only the cards due now.
    #[arg(long)]
    pub due: bool,
    /// Only the cards of one side.
    #[arg(long, value_enum)]
    pub side: Option<SideArg>,
    /// At most this many.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct IdArgs {
    /// The card's id (`tabiya cards list` shows them).
    pub id: u32,
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

/// Opens the database to change its cards: a server holding it is named, with what to do.
fn open_to_change(db: &DbArg) -> anyhow::Result<Db> {
    let dir = db.dir();
    match Db::open(&dir) {
        Ok(db) => Ok(db),
        Err(e) if e.kind() == ErrorKind::InUse => match HandOff::find(&dir) {
            Some(server) => Err(anyhow::anyhow!(
                "{} is served by {}: its cards are answered through that server (tabiya train \
                 and the page's trainer work with it), but made and deleted only here: stop \
                 the server to change them",
                dir.display(),
                server.url()
            )),
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// The day of an ISO time (`2026-03-01T10:00:00Z` → `2026-03-01`).
pub(crate) fn day(iso: &str) -> &str {
    iso.get(..10).unwrap_or(iso)
}

fn moves_text(c: &Card) -> String {
    c.moves
        .iter()
        .map(|m| m.san.as_str())
        .collect::<Vec<_>>()
        .join(" or ")
}

fn card_line(c: &Card) -> String {
    let after = if c.line_text.is_empty() {
        String::new()
    } else {
        format!(" after {}", c.line_text)
    };
    format!(
        "#{:<4} {} to move{after}: {}",
        c.id,
        c.side.name(),
        moves_text(c)
    )
}

fn print_report(r: &AddReport, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(r);
    }
    let mut w = std::io::stdout().lock();
    for a in &r.cards {
        let what = match a.outcome {
            Outcome::Created => "new  ",
            Outcome::Extended => "added",
            Outcome::Unchanged => "known",
        };
        writeln!(w, "{what} {}", card_line(&a.card))?;
    }
    writeln!(
        w,
        "{} new card{}, {} with moves added, {} already known{}",
        r.created,
        if r.created == 1 { "" } else { "s" },
        r.extended,
        r.unchanged,
        if r.truncated {
            " (stopped at --max-cards)"
        } else {
            ""
        }
    )?;
    Ok(())
}

fn print_list(l: &CardList, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(l);
    }
    let mut w = std::io::stdout().lock();
    for c in &l.cards {
        let when = if c.is_due {
            "due now   ".to_string()
        } else {
            format!("{} ", day(&c.due))
        };
        writeln!(w, "{when} {}", card_line(c))?;
    }
    writeln!(
        w,
        "{} card{}, {} due now",
        l.total,
        if l.total == 1 { "" } else { "s" },
        l.due
    )?;
    Ok(())
}

fn print_card(c: &Card, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(c);
    }
    let mut w = std::io::stdout().lock();
    writeln!(w, "card {} ({}, made {})", c.id, c.source, day(&c.created))?;
    if !c.line_text.is_empty() {
        writeln!(w, "after {}", c.line_text)?;
    }
    write!(w, "{}", cards::diagram(&c.fen, c.side)?)?;
    writeln!(w, "{}", c.fen)?;
    writeln!(w, "{} to move: {}", c.side.name(), moves_text(c))?;
    if let Some(n) = &c.note {
        writeln!(w, "note: {n}")?;
    }
    let s = &c.schedule;
    writeln!(
        w,
        "due {}{}; interval {} day{}, E-Factor {:.2}, {} right in a row, {} answer{}, {} lapse{}",
        c.due,
        if c.is_due { " (due now)" } else { "" },
        s.interval_days,
        if s.interval_days == 1 { "" } else { "s" },
        s.easiness,
        s.repetitions,
        s.reviews,
        if s.reviews == 1 { "" } else { "s" },
        s.lapses,
        if s.lapses == 1 { "" } else { "s" },
    )?;
    for r in &c.history {
        writeln!(
            w,
            "  {} {:<8} {} grade {}{}",
            r.time,
            r.given,
            if r.correct { "right" } else { "wrong" },
            r.grade,
            if r.drill {
                " (same-day repetition)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

pub fn run(cmd: CardsCommand) -> anyhow::Result<()> {
    let now = clock()?;
    match cmd {
        CardsCommand::Add(a) => {
            let db = open_to_change(&a.db)?;
            let at = a.position.resolve()?;
            print_report(
                &cards::add(&db, &at, &a.moves, a.note.as_deref(), now)?,
                a.json,
            )
        }
        CardsCommand::FromLine(a) => {
            let db = open_to_change(&a.db)?;
            let line = tabiya_service::ChessPosition::resolve(a.fen.as_deref(), Some(&a.play))?;
            print_report(
                &cards::from_line(&db, &line, a.side.into(), a.note.as_deref(), now)?,
                a.json,
            )
        }
        CardsCommand::FromBook(a) => {
            let db = open_to_change(&a.db)?;
            let at = a.walk.position.resolve()?;
            let book = BookFile::new(&a.book);
            let r = cards::from_book(&db, &book, &at, a.walk.side.into(), a.walk.limits(), now)?;
            print_report(&r, a.json)
        }
        CardsCommand::FromRep(a) => {
            let db = open_to_change(&a.db)?;
            let rep = tabiya_service::repertoire::Repertoire::open(&a.rep)?;
            let r = cards::from_repertoire(
                &db,
                &rep,
                a.side.into(),
                a.depth,
                a.max_cards as usize,
                now,
            )?;
            print_report(&r, a.json)
        }
        CardsCommand::FromDb(a) => {
            let db = open_to_change(&a.db)?;
            let at = a.walk.position.resolve()?;
            let r = cards::from_db(
                &db,
                &at,
                a.walk.side.into(),
                a.walk.limits(),
                a.min_games,
                now,
            )?;
            print_report(&r, a.json)
        }
        CardsCommand::List(a) => {
            let db = a.db.open()?;
            let req = cards::ListRequest {
                due_only: a.due,
                side: a.side.map(Side::from),
                limit: a.limit,
            };
            print_list(&cards::list(&db, &req, now)?, a.json)
        }
        CardsCommand::Show(a) => print_card(
            &crate::source::open(&a.db)?.ask(&tabiya_service::reads::CardShow { id: a.id, now })?,
            a.json,
        ),
        CardsCommand::Delete(a) => {
            let c = cards::delete(&open_to_change(&a.db)?, a.id, now)?;
            if a.json {
                return print_json(&c);
            }
            println!("card {} deleted ({})", c.id, card_line(&c));
            Ok(())
        }
        CardsCommand::Stats(a) => {
            let s = crate::source::open(&a.db)?.ask(&tabiya_service::reads::CardStats { now })?;
            if a.json {
                return print_json(&s);
            }
            let mut w = std::io::stdout().lock();
            writeln!(w, "cards          {:>8}", s.cards)?;
            writeln!(w, "  new          {:>8}", s.new)?;
            writeln!(w, "  due now      {:>8}", s.due)?;
            writeln!(w, "  due today    {:>8}", s.due_today)?;
            writeln!(w, "answers        {:>8}", s.answers)?;
            writeln!(w, "  today        {:>8}", s.answers_today)?;
            writeln!(w, "  right        {:>8}", s.right)?;
            if let Some(r) = s.success_rate {
                writeln!(w, "success rate   {:>7.1}%", r * 100.0)?;
            }
            writeln!(w, "lapses         {:>8}", s.lapses)?;
            Ok(())
        }
    }
}
