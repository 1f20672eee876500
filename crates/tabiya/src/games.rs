//! `tabiya games`: every game reaching a position by any move order (chess), or passing
//! the filters (Othello), sorted and paged; `--novelties`: each chess game's novelty.

use std::io::Write;

use anyhow::bail;
use clap::Args;
use tabiya_service::games::{GameRow, OthelloGames};
use tabiya_service::novelty::Report;
use tabiya_service::reads;
use tabiya_service::{Kind, OthelloPosition};

use crate::args::{ChessFilterArgs, DbSetArg, GamesSortArg, OthelloFilterArgs, PositionArg};
use crate::output::print_json;

#[derive(Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub db: DbSetArg,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub othello: OthelloFilterArgs,
    #[command(flatten)]
    pub chess: ChessFilterArgs,
    /// The order of the list: best rated first, newest first, as imported; chess also by
    /// ECO (A00 first, games without one last), length (longest first) or result (White's
    /// wins, draws, Black's wins, unfinished); ties in import order.
    #[arg(long, value_enum, default_value = "rating")]
    pub sort: GamesSortArg,
    /// Games listed at most.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Games of the list skipped first (the next page: --offset 20).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Each game's novelty (chess): the first move leading where no earlier game went, the
    /// last known move, the earlier games per ply (a lookup per ply of each game).
    #[arg(long)]
    pub novelties: bool,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: GamesArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let db = crate::source::open_set(&args.db)?;
    match db.kind()? {
        Kind::Othello => {
            if args.chess.is_given() {
                bail!(
                    "{} is an Othello database: --color, --since, --until, --speed and --rating-min/max are for chess databases (Othello: --from, --to)",
                    dir.display()
                );
            }
            if args.position.is_given() {
                bail!(
                    "{} is an Othello database: give the position with --moves (like f5d6c3)",
                    dir.display()
                );
            }
            let o = &args.othello;
            if let Some(line) = &o.moves {
                OthelloPosition::from_line(line)?;
            }
            let asked = reads::OthelloGames {
                moves: o.moves.clone(),
                player: o.player.clone(),
                tournament: o.tournament.clone(),
                from: o.from,
                to: o.to,
                players: o.players(),
                sort: args.sort.into(),
                offset: args.offset,
                limit: args.limit,
            };
            if args.novelties {
                bail!(
                    "{} is an Othello database: novelties are for chess games",
                    dir.display()
                );
            }
            let page = db.ask(&asked)?;
            if args.json {
                return print_json(&page);
            }
            print_othello(&page)
        }
        Kind::Chess => {
            let o = &args.othello;
            if o.moves.is_some()
                || o.tournament.is_some()
                || o.from.is_some()
                || o.to.is_some()
                || o.humans
                || o.programs
            {
                bail!(
                    "{} is a chess database: --moves, --tournament, --from, --to, --humans and --programs are for Othello databases (chess: --since, --until)",
                    dir.display()
                );
            }
            let at = args.position.resolve()?;
            let filter = args.chess.filter(o.player.as_deref())?;
            if args.novelties {
                let page = db.ask(&reads::ChessGamesNovelties {
                    at: crate::source::at(&args.position),
                    filter,
                    sort: args.sort.into(),
                    offset: args.offset,
                    limit: args.limit,
                })?;
                if args.json {
                    return print_json(&page);
                }
                let rows: Vec<(&GameRow, Option<&Report>)> = page
                    .games
                    .iter()
                    .map(|g| (&g.game, Some(&g.novelty)))
                    .collect();
                return print_chess(&at, page.total, &rows, args.offset);
            }
            let page = db.ask(&reads::ChessGames {
                at: crate::source::at(&args.position),
                filter,
                sort: args.sort.into(),
                offset: args.offset,
                limit: args.limit,
            })?;
            if args.json {
                return print_json(&page);
            }
            let rows: Vec<(&GameRow, Option<&Report>)> =
                page.games.iter().map(|g| (g, None)).collect();
            print_chess(&at, page.total, &rows, args.offset)
        }
    }
}

/// The games as a table under a header, each with the move it played here (SAN) and its
/// novelty when asked (`novelty 14. Nd5`).
fn print_chess(
    at: &tabiya_service::ChessPosition,
    total: u64,
    rows: &[(&GameRow, Option<&Report>)],
    offset: usize,
) -> anyhow::Result<()> {
    let mut w = std::io::stdout().lock();
    if rows.is_empty() {
        writeln!(
            w,
            "{total} games reach this position; none from {}",
            offset + 1
        )?;
        return Ok(());
    }
    writeln!(
        w,
        "{} games reach this position; showing {}–{}",
        total,
        offset + 1,
        offset + rows.len()
    )?;
    let player = |p: &tabiya_service::explore::Player| match p.rating {
        Some(r) => format!("{} ({r})", p.name),
        None => p.name.clone(),
    };
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|(g, novelty)| {
            [
                format!("#{}", g.id),
                player(&g.white),
                player(&g.black),
                g.result.clone(),
                g.date.clone(),
                g.event.clone(),
                [
                    g.uci
                        .as_deref()
                        .map(|u| at.san_of(u).unwrap_or_else(|| u.to_string()))
                        .unwrap_or_else(|| "(ended)".into()),
                    match novelty {
                        Some(r) => match &r.novelty {
                            Some(n) => format!("  novelty {}", n.text),
                            None => "  no novelty".to_string(),
                        },
                        None => String::new(),
                    },
                ]
                .concat(),
            ]
        })
        .collect();
    let head = ["game", "white", "black", "result", "date", "event", "move"];
    let mut width = head.map(|h| h.chars().count());
    for c in &cells {
        for (i, cell) in c.iter().enumerate() {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    let line = |cols: [&str; 7]| -> String {
        let mut s = String::new();
        for (i, c) in cols.iter().enumerate() {
            if i == 6 {
                s.push_str(c);
            } else {
                let pad = width[i] - c.chars().count();
                s.push_str(c);
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        s.trim_end().to_string()
    };
    writeln!(w, "{}", line(head))?;
    for c in &cells {
        writeln!(w, "{}", line(c.each_ref().map(String::as_str)))?;
    }
    Ok(())
}

fn print_othello(p: &OthelloGames) -> anyhow::Result<()> {
    let mut w = std::io::stdout().lock();
    writeln!(
        w,
        "{} games; showing {}–{}",
        p.total,
        p.offset + 1,
        p.offset + p.games.len()
    )?;
    for g in &p.games {
        writeln!(
            w,
            "#{:<7} {} {} - {} {}-{} (theoretical {}) {} {} {}",
            g.id,
            g.year,
            g.black.name,
            g.white.name,
            g.black_score,
            64 - g.black_score,
            g.theoretical_score,
            g.tournament.name,
            g.played.clone().unwrap_or_default(),
            g.moves
        )?;
    }
    Ok(())
}
