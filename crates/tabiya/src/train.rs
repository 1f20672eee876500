//! `tabiya train`: the due flashcards asked in the terminal — the board drawn in Unicode
//! from the side to move, the answer typed in SAN or UCI, the verdict, the right move(s)
//! after a wrong one, the note, the next review. Each answer is kept as it is given, so `q`,
//! end of input or a kill loses nothing answered. Cards graded below 4 come back at the end
//! of the session until they score 4 (SM-2's step 7). A database a `tabiya serve` holds is
//! trained through that server.

use std::io::{BufRead, Write};

use clap::Args;
use tabiya_service::cards::{self, CardList, ListRequest, Side, Verdict};
use tabiya_service::handover::{HandOff, hand_over_answer, served_cards};
use tabiya_service::time::clock;
use tabiya_service::{Db, ErrorKind};

use crate::args::DbArg;
use crate::cards::{SideArg, day};

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Ask at most this many cards.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Only the cards of one side.
    #[arg(long, value_enum)]
    pub side: Option<SideArg>,
}

/// Where the cards are: here, or in a server that holds the database.
enum Deck {
    Here(Db),
    Served(HandOff),
}

impl Deck {
    fn open(db: &DbArg) -> anyhow::Result<Deck> {
        let dir = db.dir();
        match Db::open(&dir) {
            Ok(db) => Ok(Deck::Here(db)),
            Err(e) if e.kind() == ErrorKind::InUse => match HandOff::find(&dir) {
                Some(server) => {
                    eprintln!(
                        "{} is served by {}: the answers go to the server",
                        dir.display(),
                        server.url()
                    );
                    Ok(Deck::Served(server))
                }
                None => Err(e.into()),
            },
            Err(e) => Err(e.into()),
        }
    }

    fn due(&self, side: Option<Side>, limit: Option<usize>) -> tabiya_service::Result<CardList> {
        let req = ListRequest {
            due_only: true,
            side,
            limit,
        };
        match self {
            Deck::Here(db) => cards::list(db, &req, clock()?),
            Deck::Served(server) => served_cards(server, &req),
        }
    }

    fn answer(&self, id: u32, given: &str) -> tabiya_service::Result<Verdict> {
        match self {
            Deck::Here(db) => cards::answer(db, id, given, None, clock()?),
            Deck::Served(server) => hand_over_answer(server, id, given),
        }
    }
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn print_verdict(w: &mut impl Write, v: &Verdict) -> std::io::Result<()> {
    let others: Vec<&str> = v
        .expected
        .iter()
        .filter(|m| m.uci != v.played.uci)
        .map(|m| m.san.as_str())
        .collect();
    let all: Vec<&str> = v.expected.iter().map(|m| m.san.as_str()).collect();
    if v.correct {
        write!(w, "✓ Right: {}", v.played.san)?;
        if !others.is_empty() {
            write!(w, " (also right: {})", others.join(", "))?;
        }
        writeln!(w, ".")?;
    } else {
        writeln!(
            w,
            "✗ Wrong: you played {}; the move is {}.",
            v.played.san,
            all.join(" or ")
        )?;
    }
    let c = &v.card;
    let date = day(&c.due);
    if v.drill {
        write!(w, "Repeated today: the schedule stays (next review {date})")?;
    } else if v.correct {
        write!(
            w,
            "Next review in {} ({date})",
            plural(c.schedule.interval_days as usize, "day")
        )?;
    } else {
        write!(w, "A lapse: next review tomorrow ({date})")?;
    }
    if c.schedule.again {
        write!(w, "; asked again today (graded {})", v.grade)?;
    }
    writeln!(w, ".")?;
    if let Some(n) = &c.note {
        writeln!(w, "Note: {n}")?;
    }
    Ok(())
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let deck = Deck::open(&args.db)?;
    let side = args.side.map(Side::from);
    let limit = args.limit.map(|n| n as usize);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let (mut asked, mut right) = (0usize, 0usize);
    let mut round = 0;
    let mut quit = false;
    'session: while !quit {
        let left = limit.map(|l| l.saturating_sub(asked));
        if left == Some(0) {
            break;
        }
        let due = deck.due(side, left)?;
        if due.cards.is_empty() {
            if round == 0 {
                writeln!(
                    out,
                    "No card is due ({} in all). `tabiya cards list` shows when they are.",
                    plural(due.total, "card")
                )?;
            }
            break;
        }
        if round == 0 {
            writeln!(
                out,
                "{} due of {}. Answer in SAN (Nf3) or UCI (g1f3), with ! if it was easy or ? if \
                 hard; q quits (every answer is kept).",
                plural(due.due, "card"),
                due.total
            )?;
        } else {
            writeln!(
                out,
                "\nAgain, until each scores 4 or more: {}.",
                plural(due.cards.len(), "card")
            )?;
        }
        round += 1;
        let n = due.cards.len();
        for (i, card) in due.cards.iter().enumerate() {
            let after = if card.line_text.is_empty() {
                String::new()
            } else {
                format!(" · after {}", card.line_text)
            };
            writeln!(
                out,
                "\nCard {}/{n} · #{} · {} to move{after}",
                i + 1,
                card.id,
                card.side.name()
            )?;
            write!(out, "{}", cards::diagram(&card.fen, card.side)?)?;
            loop {
                write!(out, "Your move: ")?;
                out.flush()?;
                let mut line = String::new();
                if input.read_line(&mut line)? == 0 {
                    writeln!(out)?;
                    quit = true;
                    break 'session;
                }
                let t = line.trim();
                if t.is_empty() {
                    continue;
                }
                if t.eq_ignore_ascii_case("q") || t.eq_ignore_ascii_case("quit") {
                    quit = true;
                    break 'session;
                }
                match deck.answer(card.id, t) {
                    Ok(v) => {
                        asked += 1;
                        right += usize::from(v.correct);
                        print_verdict(&mut out, &v)?;
                        break;
                    }
                    Err(e) if e.kind() == ErrorKind::BadRequest => {
                        writeln!(out, "{}: try again (q quits)", e.message())?;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
    let due = deck.due(side, None)?;
    writeln!(
        out,
        "\n{}{}: {} right, {} wrong. {} due now of {}.",
        if quit { "Stopped after " } else { "" },
        plural(asked, "answer"),
        right,
        asked - right,
        plural(due.due, "card"),
        due.total
    )?;
    Ok(())
}
