//! `tabiya explore`: what was played in a position — moves with their results, ratings and
//! years, the best games, the opening, and what books say beside the database.

use std::io::Write;
use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use tabiya_service::Kind;
use tabiya_service::analysis::WhiteScore;
use tabiya_service::explore::{self, ChessAnswer, OthelloExplore};
use tabiya_service::reads;

use crate::args::{ChessFilterArgs, DbSetArg, MovesArg, PositionArg};
use crate::output::print_json;

#[derive(Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub db: DbSetArg,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub othello: MovesArg,
    /// Number of top games to show.
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// Also show what an opening book (CTG, Polyglot, Kvetka) says of the position; repeatable.
    #[arg(long = "book", value_name = "FILE")]
    pub books: Vec<PathBuf>,
    /// Chess: count only the games of this player, by any spelling of theirs (any case)
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    #[command(flatten)]
    pub filter: ChessFilterArgs,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
    /// Chess: results over time instead — the position's games by year and each move's
    /// (with the filters).
    #[arg(long)]
    pub by_year: bool,
    /// Chess: the move orders by which the games reach the position instead, most frequent
    /// first (N of them, default 20).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20", conflicts_with = "by_year")]
    pub transpositions: Option<usize>,
    /// Chess: the pawn structures the position's games reach later instead, most frequent
    /// first (N of them, default 20), with their results; each counted once per game, when
    /// held for --held plies (with the filters; every game of the position is replayed).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20", conflicts_with_all = ["by_year", "transpositions"])]
    pub later_structures: Option<usize>,
    /// With --later-structures: the consecutive positions a structure must stand to count
    /// (1: every structure passed through; the default leaves out those of an exchange).
    #[arg(
        long,
        value_name = "PLIES",
        default_value_t = 4,
        requires = "later_structures"
    )]
    pub held: u32,
    /// Chess: mark the moves a repertoire (PGN with variations, or a book) plays or prepares
    /// for in the position, by any move order.
    #[arg(long, value_name = "FILE")]
    pub rep: Option<PathBuf>,
    /// The side the repertoire (--rep) is for: tells your moves from the replies prepared.
    #[arg(long, value_enum, requires = "rep")]
    pub rep_side: Option<crate::cards::SideArg>,
}

pub fn run(args: ExploreArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let db = crate::source::open_set(&args.db)?;
    match db.kind()? {
        Kind::Othello => {
            if args.player.is_some() || args.filter.is_given() {
                bail!(
                    "{} is an Othello database: --player and the other filters of explore are for chess databases (Othello: tabiya games --player)",
                    dir.display()
                );
            }
            if args.position.is_given() {
                bail!(
                    "{} is an Othello database: give the position with --moves (like f5d6c3)",
                    dir.display()
                );
            }
            args.othello.resolve()?;
            let e = db.ask(&reads::OthelloExplore {
                moves: args.othello.moves.clone().unwrap_or_default(),
                top: args.top,
            })?;
            if args.json {
                return print_json(&e);
            }
            print_othello(&e)
        }
        Kind::Chess => {
            if args.othello.moves.is_some() {
                bail!(
                    "{} is a chess database: --moves is for Othello; give the position with --play or --fen",
                    dir.display()
                );
            }
            let filter = args.filter.filter(args.player.as_deref())?;
            let at = args.position.resolve()?;
            let asked = crate::source::at(&args.position);
            if let Some(n) = args.transpositions {
                let r = db.ask(&reads::Routes {
                    at: asked,
                    limit: n,
                })?;
                if args.json {
                    return print_json(&r);
                }
                let mut out = std::io::stdout().lock();
                writeln!(
                    out,
                    "{} games reach the position by {} move orders{}",
                    r.games,
                    r.distinct,
                    r.by_asked
                        .map(|n| format!("; {n} by the one asked, {} by others", r.games - n))
                        .unwrap_or_default()
                )?;
                for route in &r.routes {
                    let from = route
                        .from_fen
                        .as_ref()
                        .map(|f| format!("[{f}] "))
                        .unwrap_or_default();
                    writeln!(out, "{:>8}  {from}{}", route.games, route.san.join(" "))?;
                }
                return Ok(());
            }
            if let Some(n) = args.later_structures {
                let l = db.ask(&reads::LaterStructures {
                    at: asked,
                    filter,
                    held: args.held,
                    limit: n,
                })?;
                if args.json {
                    return print_json(&l);
                }
                return print_later(&l);
            }
            if args.by_year {
                let y = db.ask(&reads::Years { at: asked, filter })?;
                if args.json {
                    return print_json(&y);
                }
                return print_years(&y);
            }
            let mut e = db
                .ask(&reads::Explore {
                    at: asked,
                    filter,
                    top: args.top,
                })?
                .with_books(&at, &args.books)?;
            if let Some(file) = &args.rep {
                let rep = tabiya_service::repertoire::Repertoire::open(file)?;
                e = e.with_repertoire(&rep, args.rep_side.map(Into::into), &at);
            }
            if args.json {
                return print_json(&e);
            }
            print_chess(&e)
        }
    }
}

/// The pawn structures reached later, a line each: games (share of the position's),
/// results, plies after the position, and the structure as `--pawns` takes it.
fn print_later(l: &explore::LaterStructures) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} games reach the position; {} pawn structures held {} plies or more after it{}",
        l.games,
        l.distinct,
        l.held,
        if l.structures.is_empty() {
            ""
        } else {
            ", the most frequent:"
        }
    )?;
    if l.structures.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{:>8} {:>6} {:>7} {:>7} {:>7} {:>7} {:>6}  pawns",
        "games", "share", "white", "draws", "black", "rating", "after"
    )?;
    let share = |n: u64| format!("{:.1}%", 100.0 * n as f64 / l.games.max(1) as f64);
    for s in &l.structures {
        writeln!(
            out,
            "{:>8} {:>6} {:>7} {:>7} {:>7} {:>7} {:>6}  {}",
            s.games,
            share(s.games),
            s.white,
            s.draws,
            s.black,
            s.average_rating.map_or("-".into(), |r| r.to_string()),
            s.average_plies,
            s.pawns
        )?;
    }
    Ok(())
}

/// Games and White's score by year, the position's and its main moves' (share of games).
fn print_years(y: &explore::PositionYears) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let moves: Vec<&explore::MoveYears> = y.moves.iter().take(5).collect();
    write!(out, "{:<6} {:>7} {:>7}", "year", "games", "score")?;
    for m in &moves {
        write!(out, " {:>8}", m.san)?;
    }
    writeln!(out)?;
    for yr in &y.years {
        let n = yr.white + yr.draws + yr.black;
        let score = if n == 0 {
            "-".to_string()
        } else {
            format!(
                "{:.1}%",
                100.0 * (yr.white as f64 + yr.draws as f64 / 2.0) / n as f64
            )
        };
        write!(out, "{:<6} {:>7} {:>7}", yr.year, n + yr.unknown, score)?;
        let all = n + yr.unknown;
        for m in &moves {
            let k = m
                .years
                .iter()
                .find(|x| x.year == yr.year)
                .map_or(0, |x| x.white + x.draws + x.black + x.unknown);
            write!(out, " {:>8}", pct(k, all))?;
        }
        writeln!(out)?;
    }
    if y.no_year > 0 {
        writeln!(out, "({} games without a year)", y.no_year)?;
    }
    Ok(())
}

fn pct(n: u64, total: u64) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / total as f64)
    }
}

pub fn print_chess(answer: &ChessAnswer) -> anyhow::Result<()> {
    let e = answer;
    let mut out = std::io::stdout().lock();
    let books = &e.books;
    let position_eval = &e.eval;
    let note = &e.note;
    let e = &e.explore;
    writeln!(out, "{}", e.fen)?;
    if let Some(o) = &e.opening {
        writeln!(out, "{} {}", o.eco, o.name)?;
    }
    if let Some(n) = note {
        for line in n.lines() {
            writeln!(out, "note: {line}")?;
        }
    }
    if let Some(a) = position_eval {
        writeln!(
            out,
            "eval {} at depth {} ({}){}",
            a.pvs.first().map_or("-".into(), |p| p.score.signed_text()),
            a.depth,
            a.engine,
            a.pvs
                .first()
                .map_or(String::new(), |p| format!(": {}", p.san.join(" ")))
        )?;
    }
    let evals = e.moves.iter().any(|m| m.eval.is_some());
    let total = e.white + e.draws + e.black;
    writeln!(
        out,
        "{} games: white {} / draws {} / black {}{}",
        total + e.unknown,
        pct(e.white, total),
        pct(e.draws, total),
        pct(e.black, total),
        if e.unknown > 0 {
            format!(" ({} without result)", e.unknown)
        } else {
            String::new()
        }
    )?;
    if let Some(n) = e.without_speed.filter(|&n| n > 0) {
        writeln!(
            out,
            "note: {n} games of the position have no time control (no TimeControl tag) and are left out by --speed"
        )?;
    }
    let rep = &answer.repertoire;
    let in_rep = |uci: &str| {
        rep.as_ref()
            .is_some_and(|r| r.moves.iter().any(|m| m.uci == uci))
    };
    if e.moves.is_empty() {
        writeln!(out, "no moves in the database from this position")?;
    } else {
        let reached = e.moves.iter().any(|m| m.reached.is_some());
        writeln!(
            out,
            "{:<8} {:>7}{} {:>7} {:>7} {:>7} {:>6} {:>6}{}  years",
            "move",
            "games",
            if reached { "  in all" } else { "" },
            "white",
            "draws",
            "black",
            "avg",
            "perf",
            if evals { "    eval" } else { "" }
        )?;
        for m in &e.moves {
            let n = m.white + m.draws + m.black;
            let years = match (m.first_year, m.last_year) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (Some(a), _) => a.to_string(),
                _ => String::new(),
            };
            let eval = match (evals, &m.eval) {
                (false, _) => String::new(),
                (true, None) => format!("{:>8}", "-"),
                (true, Some(v)) => format!(
                    "{:>8}",
                    WhiteScore {
                        cp: v.cp,
                        mate: v.mate
                    }
                    .signed_text()
                ),
            };
            let all = match (reached, &m.reached) {
                (false, _) => String::new(),
                (true, None) => format!("{:>8}", "-"),
                (true, Some(r)) => format!("{:>8}", r.games()),
            };
            writeln!(
                out,
                "{:<8} {:>7}{} {:>7} {:>7} {:>7} {:>6} {:>6}{}  {}",
                if in_rep(&m.uci) {
                    format!("{} *", m.san)
                } else {
                    m.san.clone()
                },
                n + m.unknown,
                all,
                pct(m.white, n),
                pct(m.draws, n),
                pct(m.black, n),
                m.average_rating.map_or("-".into(), |v| v.to_string()),
                m.performance.map_or("-".into(), |v| v.to_string()),
                eval,
                years
            )?;
        }
    }
    if let Some(r) = rep {
        let what = match r.yours {
            Some(true) => "your moves here",
            Some(false) => "the replies prepared here",
            None => "its moves here",
        };
        if r.moves.is_empty() {
            let why = if r.known {
                "no move"
            } else {
                "not this position"
            };
            writeln!(out, "repertoire {}: {why}", r.repertoire)?;
        } else {
            let moves: Vec<String> = r
                .moves
                .iter()
                .map(|m| {
                    if e.moves.iter().any(|row| row.uci == m.uci) {
                        m.san.clone()
                    } else {
                        format!("{} (no game)", m.san)
                    }
                })
                .collect();
            writeln!(
                out,
                "repertoire {} (* above), {what}: {}",
                r.repertoire,
                moves.join(", ")
            )?;
        }
    }
    if !e.top_games.is_empty() {
        writeln!(out, "top games:")?;
        for g in &e.top_games {
            let res = match g.winner {
                Some("white") => "1-0",
                Some("black") => "0-1",
                _ => "½-½",
            };
            writeln!(
                out,
                "  #{:<8} {} ({}) - {} ({}) {} {} {}",
                g.id,
                g.white.name,
                g.white.rating.map_or("?".into(), |r| r.to_string()),
                g.black.name,
                g.black.rating.map_or("?".into(), |r| r.to_string()),
                res,
                g.year.map_or(String::new(), |y| y.to_string()),
                // The move in SAN, as the table above names it.
                g.uci
                    .as_deref()
                    .map(|u| e
                        .moves
                        .iter()
                        .find(|m| m.uci == u)
                        .map_or(u, |m| m.san.as_str()))
                    .unwrap_or_default()
            )?;
        }
    }
    for b in books {
        if !b.probe.found {
            writeln!(out, "book {}: position not in the book", b.file)?;
            continue;
        }
        writeln!(out, "book {}:", b.file)?;
        for m in &b.probe.moves {
            let mut parts = Vec::new();
            if let Some(g) = m.games {
                parts.push(format!("{g} games"));
            }
            if let (Some(w), Some(d), Some(l)) = (m.wins, m.draws, m.losses) {
                parts.push(format!("+{w} ={d} -{l}"));
            }
            if let Some(w) = m.weight {
                parts.push(format!("weight {w}"));
            }
            if let Some(a) = m.annotation.filter(|a| *a != 0) {
                parts.push(format!("${a}"));
            }
            writeln!(out, "  {:<8} {}", m.san, parts.join(", "))?;
        }
    }
    Ok(())
}

fn avg(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1}"))
}

fn print_othello(e: &OthelloExplore) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}",
        if e.line.is_empty() {
            "start position".to_string()
        } else {
            e.line.clone()
        }
    )?;
    if let Some(o) = &e.opening {
        let also = if o.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also {})", o.aliases.join(", "))
        };
        writeln!(
            out,
            "opening: {}{also}, reached after move {}: {}",
            o.name, o.at_move, o.line
        )?;
    }
    writeln!(
        out,
        "{} games: black {} / draws {} / white {}; average black discs {}, theoretical {}",
        e.games,
        pct(e.black, e.games),
        pct(e.draws, e.games),
        pct(e.white, e.games),
        avg(e.average_black_discs),
        avg(e.average_theoretical_score)
    )?;
    if e.ended > 0 {
        writeln!(out, "{} games ended here", e.ended)?;
    }
    if e.moves.is_empty() {
        writeln!(out, "no moves in the database from this position")?;
    } else {
        writeln!(out, "{} to move", e.side_to_move)?;
        writeln!(
            out,
            "{:<6} {:>7} {:>8} {:>7} {:>7} {:>7} {:>6}  same as",
            "move", "games", "win", "black", "draws", "white", "discs"
        )?;
        for m in &e.moves {
            writeln!(
                out,
                "{:<6} {:>7} {:>7.1}% {:>7} {:>7} {:>7} {:>6}  {}",
                m.square,
                m.games,
                100.0 * m.win_rate,
                pct(m.black, m.games),
                pct(m.draws, m.games),
                pct(m.white, m.games),
                avg(m.average_black_discs),
                m.equivalent.join(" ")
            )?;
        }
    }
    if !e.top_games.is_empty() {
        writeln!(out, "newest games:")?;
        for g in &e.top_games {
            writeln!(
                out,
                "  #{:<7} {} {} - {} {}-{} {} {}",
                g.id,
                g.year,
                g.black.name,
                g.white.name,
                g.black_score,
                64 - g.black_score,
                g.tournament.name,
                g.played.clone().unwrap_or_default()
            )?;
        }
    }
    Ok(())
}
