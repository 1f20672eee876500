//! `tabiya repertoire check | games`: a repertoire (PGN with variations, or a book) and a
//! side against a database — its gaps, badly scoring moves, rare lines and contradictions;
//! where games left it and how they scored.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use tabiya_service::repertoire::{
    self, CheckOptions, CheckReport, GamesOptions, GamesReport, Repertoire,
};

use crate::args::{ChessFilterArgs, DbArg};
use crate::cards::SideArg;
use crate::output::print_json;

#[derive(Subcommand)]
pub enum RepertoireCommand {
    /// The gaps (positions the opponents reach most often where the repertoire has no
    /// answer, all move orders summed), moves that score badly, lines so rare they could
    /// be pruned, and positions answered differently in two places.
    Check(CheckArgs),
    /// Where games left the repertoire (ply, move, who deviated) and how they scored.
    Games(GamesArgs),
}

#[derive(Args)]
pub struct RepArg {
    /// The repertoire: a PGN file with variations (all its games), or a book (Polyglot .bin,
    /// CTG .ctg, Kvetka .kob).
    #[arg(long, value_name = "FILE")]
    pub rep: PathBuf,
    /// The side the repertoire is for.
    #[arg(long, value_enum)]
    pub side: SideArg,
}

/// A probability: `0.01` or `1%`.
pub fn share(s: &str) -> Result<f64, String> {
    let (text, scale) = match s.trim().strip_suffix('%') {
        Some(p) => (p, 100.0),
        None => (s.trim(), 1.0),
    };
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: give a probability such as 0.01 or 1%"))?;
    let v = v / scale;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s:?}: a probability is from 0 to 1 (0% to 100%)"))
    }
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub rep: RepArg,
    /// Gaps less likely than this are not shown, and positions less likely are not
    /// followed (0.01 or 1%).
    #[arg(long, default_value = "1%", value_parser = share)]
    pub min_share: f64,
    /// Plies from the start examined.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub depth: u32,
    /// A move scores badly only over at least this many games with a result …
    #[arg(long, default_value_t = 10)]
    pub min_games: u64,
    /// … scoring at least this much under its position (0.05 or 5%).
    #[arg(long, default_value = "5%", value_parser = share)]
    pub bad_margin: f64,
    /// A prepared opponent move less likely than this is a rare line (0.001 or 0.1%).
    #[arg(long, default_value = "0.1%", value_parser = share)]
    pub rare: f64,
    /// Gaps listed at most.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Count only the games of this player (any spelling).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    #[command(flatten)]
    pub filter: ChessFilterArgs,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub rep: RepArg,
    /// Only this player's games with the repertoire's side (any spelling).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Only the games of this gameset (tabiya gameset).
    #[arg(long, value_name = "NAME")]
    pub gameset: Option<String>,
    /// Only the games meeting these criteria (docs/gamesets.md).
    #[arg(long = "where", value_name = "CRITERIA")]
    pub criteria: Option<String>,
    /// Games listed one by one at most (all are counted).
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: RepertoireCommand) -> anyhow::Result<()> {
    match cmd {
        RepertoireCommand::Check(a) => {
            let db = a.db.open()?;
            let rep = Repertoire::open(&a.rep.rep)?;
            let options = CheckOptions {
                depth: a.depth,
                min_share: a.min_share,
                min_games: a.min_games,
                bad_margin: a.bad_margin,
                rare: a.rare,
                limit: a.limit,
                filter: a.filter.filter(a.player.as_deref())?,
                ..CheckOptions::new(a.rep.side.into())
            };
            let r = repertoire::check(&db, &rep, &options)?;
            if a.json {
                return print_json(&r);
            }
            print_check(&r)
        }
        RepertoireCommand::Games(a) => {
            let db = a.db.open()?;
            let rep = Repertoire::open(&a.rep.rep)?;
            let r = repertoire::games(
                &db,
                &rep,
                &GamesOptions {
                    side: a.rep.side.into(),
                    player: a.player,
                    gameset: a.gameset,
                    criteria: a.criteria,
                    limit: a.limit,
                },
            )?;
            if a.json {
                return print_json(&r);
            }
            print_games(&r)
        }
    }
}

fn pct(p: f64) -> String {
    format!("{:.1}%", 100.0 * p)
}

fn opt_pct(p: Option<f64>) -> String {
    p.map_or("-".into(), pct)
}

fn print_check(r: &CheckReport) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for w in &r.warnings {
        writeln!(out, "warning: {w}")?;
    }
    writeln!(
        out,
        "{} for {}: {} positions, {} of yours answered; {} games in the start position",
        r.repertoire, r.side, r.positions, r.own_positions, r.games
    )?;
    writeln!(
        out,
        "gaps to ply {} at least {} likely: {} (together {}){}",
        r.depth,
        pct(r.min_share),
        r.gap_count,
        pct(r.gap_probability),
        if r.gap_count > r.gaps.len() {
            format!(", the first {}", r.gaps.len())
        } else {
            String::new()
        }
    )?;
    for g in &r.gaps {
        let answers: Vec<String> = g
            .candidates
            .iter()
            .map(|c| format!("{} {} scoring {}", c.san, pct(c.share), opt_pct(c.score)))
            .collect();
        writeln!(
            out,
            "  {:>6}  {:>7} games  {}",
            pct(g.probability),
            g.games,
            if g.line.is_empty() {
                "(start)"
            } else {
                &g.line
            }
        )?;
        writeln!(out, "          answers played: {}", answers.join(", "))?;
    }
    if !r.bad_moves.is_empty() {
        writeln!(out, "moves scoring badly:")?;
        for b in &r.bad_moves {
            let best = b.best.as_ref().map_or(String::new(), |c| {
                format!(
                    "; {} scores {} in {} games",
                    c.san,
                    opt_pct(c.score),
                    c.games
                )
            });
            writeln!(
                out,
                "  {}  scores {} in {} games, the position {}{best}",
                b.line,
                pct(b.score),
                b.games,
                pct(b.position_score)
            )?;
        }
    }
    if !r.rare_lines.is_empty() {
        writeln!(out, "rare lines (could be pruned):")?;
        for l in &r.rare_lines {
            writeln!(
                out,
                "  {:>7}  {:>5} games  {}  ({} positions below)",
                pct(l.probability),
                l.games,
                l.line,
                l.positions_below
            )?;
        }
    }
    if !r.inconsistent.is_empty() {
        writeln!(out, "positions answered differently in two places:")?;
        for i in &r.inconsistent {
            writeln!(out, "  {}", i.fen)?;
            for a in &i.answers {
                writeln!(out, "    {}  ->  {}", a.line, a.moves.join(", "))?;
            }
        }
    }
    Ok(())
}

/// Departures the table shows.
const DEPARTURES: usize = 30;

fn print_games(r: &GamesReport) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let line = |name: &str, s: &repertoire::Score| {
        format!(
            "  {name:<9} {:>6} games  +{} ={} -{}  score {}",
            s.games,
            s.wins,
            s.draws,
            s.losses,
            opt_pct(s.score)
        )
    };
    writeln!(
        out,
        "{} for {}: {} games",
        r.repertoire, r.side, r.all.games
    )?;
    writeln!(out, "{}", line("you left", &r.you))?;
    writeln!(out, "{}", line("opponent", &r.opponent))?;
    writeln!(out, "{}", line("line end", &r.end))?;
    writeln!(out, "{}", line("stayed", &r.stayed))?;
    if !r.departures.is_empty() {
        writeln!(out, "where the games left it, most games first:")?;
        for d in r.departures.iter().take(DEPARTURES) {
            let expected = if d.expected.is_empty() {
                String::new()
            } else {
                format!(" (repertoire: {})", d.expected.join(", "))
            };
            writeln!(
                out,
                "  {:>5} games  score {:>6}  {:<8} {}{expected}",
                d.score.games,
                opt_pct(d.score.score),
                d.who,
                d.line
            )?;
        }
    }
    if r.departures.len() > DEPARTURES {
        writeln!(
            out,
            "  … and {} more (--json gives them all)",
            r.departures.len() - DEPARTURES
        )?;
    }
    if !r.games.is_empty() {
        writeln!(out, "games:")?;
        for g in &r.games {
            let left = match (&g.left_with, g.who) {
                (Some(m), Some(who)) => format!("left with {m} ({who})"),
                _ => "stayed in the repertoire".into(),
            };
            writeln!(
                out,
                "  #{:<7} {} - {} {} {}  {left}{}",
                g.id,
                g.white,
                g.black,
                g.result,
                g.date,
                if g.came_back {
                    ", after coming back by transposition"
                } else {
                    ""
                }
            )?;
        }
    }
    Ok(())
}
