//! `tabiya stats`: what a database holds, what it costs on disk, and what its games are.

use std::io::Write;

use clap::Args;
use tabiya_service::database::DbStats;

use crate::args::DbArg;
use crate::output::print_json;

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let dir = args.db.dir();
    let s = crate::source::open(&args.db)?.ask(&tabiya_service::reads::Stats {})?;
    if args.json {
        return print_json(&s);
    }
    let mut w = std::io::stdout().lock();
    writeln!(w, "database {} ({})", dir.display(), s.kind)?;
    storage(&mut w, &s)?;
    games(&mut w, &s)?;
    names(&mut w, &s)?;
    Ok(())
}

/// `n` as a share of `total`, in parentheses.
fn share(n: u64, total: u64) -> String {
    if total == 0 {
        String::new()
    } else {
        format!("({:.1}%)", n as f64 * 100.0 / total as f64)
    }
}

/// A bar of `#` for `n` out of `max`, at most 40 long.
fn bar(n: u64, max: u64) -> String {
    if max == 0 {
        return String::new();
    }
    let len = (n * 40).div_ceil(max) as usize;
    "#".repeat(len)
}

fn storage(w: &mut impl Write, s: &DbStats) -> std::io::Result<()> {
    writeln!(w, "games                {:>14}", s.games)?;
    writeln!(w, "positions counted    {:>14}", s.positions)?;
    let k = &s.position_kinds;
    for (name, n) in [
        ("in T records", k.tree),
        ("single (S)", k.single),
        ("implicit", k.implicit),
    ] {
        writeln!(w, "  {name:<18} {n:>14}  {}", share(n, s.positions))?;
    }
    writeln!(w, "distinct positions  ≈{:>14}", s.distinct_positions)?;
    writeln!(
        w,
        "  in the tree (≥{} games) {:>9}",
        s.promote_at, s.tree_positions
    )?;
    writeln!(w, "index runs           {:>14}", s.runs)?;
    writeln!(w, "notes                {:>14}", s.notes)?;
    writeln!(w, "flashcards           {:>14}", s.cards)?;
    writeln!(w, "gamesets             {:>14}", s.gamesets.len())?;
    for g in &s.gamesets {
        writeln!(w, "  {:<18} {:>14}  {}", g.name, g.games, g.criteria)?;
    }
    writeln!(
        w,
        "players / events / sites {:>6} / {} / {}",
        s.players, s.events, s.sites
    )?;
    writeln!(
        w,
        "bytes on disk        {:>14}  ({:.0} per game)",
        s.file_bytes, s.bytes_per_game
    )?;
    for p in &s.parts {
        writeln!(
            w,
            "  {:<10} {:>14}  ({:.0} per game)",
            p.name, p.bytes, p.bytes_per_game
        )?;
    }
    Ok(())
}

fn games(w: &mut impl Write, s: &DbStats) -> std::io::Result<()> {
    let r = &s.results;
    let results: [(&str, u64); 4] = if s.kind == "chess" {
        [
            ("1-0", r.white),
            ("1/2-1/2", r.draws),
            ("0-1", r.black),
            ("*", r.unknown),
        ]
    } else {
        [
            ("black won", r.black),
            ("draw", r.draws),
            ("white won", r.white),
            ("no result", r.unknown),
        ]
    };
    writeln!(w, "games by result")?;
    for (name, n) in results {
        writeln!(w, "  {name:<10} {n:>12}  {}", share(n, s.games))?;
    }
    writeln!(w, "games by year ({} without a year)", s.no_year)?;
    for row in s.years.chunks(5) {
        let cells: Vec<String> = row
            .iter()
            .map(|y| format!("{}: {:<8}", y.year, y.games))
            .collect();
        writeln!(w, "  {}", cells.join(" ").trim_end())?;
    }
    if let Some(t) = &s.speeds {
        writeln!(w, "games by time control ({} unknown)", t.unknown)?;
        for c in t.classes.iter().filter(|c| c.games > 0) {
            writeln!(
                w,
                "  {:<15} {:>12}  {}",
                c.speed,
                c.games,
                share(c.games, s.games)
            )?;
        }
    }
    if let Some(r) = &s.ratings {
        writeln!(
            w,
            "ratings ({} counted; games rated by both {}, one {}, none {})",
            r.ratings, r.games_both_rated, r.games_one_rated, r.games_unrated
        )?;
        let max = r.bins.iter().map(|b| b.ratings).max().unwrap_or(0);
        for b in &r.bins {
            writeln!(
                w,
                "  {:>4}-{:<4} {:>10}  {}",
                b.from,
                b.from + r.bin_width - 1,
                b.ratings,
                bar(b.ratings, max)
            )?;
        }
    }
    Ok(())
}

fn names(w: &mut impl Write, s: &DbStats) -> std::io::Result<()> {
    if let Some(openings) = &s.top_openings {
        writeln!(w, "named openings most reached (games, any move order)")?;
        for o in openings {
            writeln!(w, "  {:>10}  {} {} ({})", o.games, o.eco, o.name, o.line)?;
        }
    }
    writeln!(w, "players with the most games")?;
    for p in &s.top_players {
        writeln!(w, "  {:>10}  {}", p.games, p.name)?;
    }
    let events = if s.kind == "chess" {
        "events"
    } else {
        "tournaments"
    };
    writeln!(w, "{events} with the most games")?;
    for e in &s.top_events {
        writeln!(w, "  {:>10}  {}", e.games, e.name)?;
    }
    Ok(())
}
