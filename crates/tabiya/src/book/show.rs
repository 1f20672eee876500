//! `tabiya book probe | dump | check | info | game`: the answers of `tabiya_service::books`
//! printed.

use std::io::Write;

use serde_json::Value;
use tabiya_service::books::{
    self, BookDump, BookFormat, BookProbe, CheckReport, Colour, CtgCheck, CtgDumpPosition,
    KvetkaCheck, PolyglotCheck,
};

use super::{CheckArgs, ColourArg, DumpArgs, GameArgs, InfoArgs, ProbeArgs};
use crate::output::print_json;

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

pub fn probe(args: ProbeArgs) -> anyhow::Result<()> {
    let p = books::probe(
        &args.book.file(),
        args.position.fen.as_deref(),
        args.position.play.as_deref(),
    )?;
    if args.json {
        return print_json(&p);
    }
    print_probe(&p.fen, p.format, &p.probe)
}

fn print_probe(fen: &str, format: BookFormat, p: &BookProbe) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{fen}")?;
    if !p.found {
        writeln!(out, "not in the book")?;
        return Ok(());
    }
    if let Some(g) = p.games {
        let mut parts = vec![format!(
            "{g} games: +{} ={} -{} for the side to move",
            opt(p.wins),
            opt(p.draws),
            opt(p.losses)
        )];
        if let Some(r) = p.average_rating {
            parts.push(format!("average rating {r}"));
        }
        if let Some(r) = p.performance {
            parts.push(format!("performance {r}"));
        }
        if let Some(r) = p.recommendation.filter(|&r| r != 0) {
            parts.push(format!("recommendation {r:#04x}"));
        }
        if let Some(c) = p.commentary.filter(|&c| c != 0) {
            parts.push(format!("commentary ${c}"));
        }
        writeln!(out, "{}", parts.join("; "))?;
    }
    if p.moves.is_empty() {
        writeln!(out, "no moves")?;
        return Ok(());
    }
    match format {
        BookFormat::Polyglot => {
            let total: u64 = p
                .moves
                .iter()
                .map(|m| u64::from(m.weight.unwrap_or(0)))
                .sum();
            writeln!(
                out,
                "{:<8} {:<6} {:>7} {:>7} {:>10}",
                "move", "uci", "weight", "share", "learn"
            )?;
            for m in &p.moves {
                let w = m.weight.unwrap_or(0);
                let share = if total > 0 {
                    format!("{:.1}%", 100.0 * f64::from(w) / total as f64)
                } else {
                    "-".into()
                };
                writeln!(
                    out,
                    "{:<8} {:<6} {:>7} {:>7} {:>10}",
                    m.san,
                    m.uci,
                    w,
                    share,
                    opt(m.learn)
                )?;
            }
        }
        _ => {
            writeln!(
                out,
                "{:<8} {:<6} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}  notes",
                "move", "uci", "games", "win", "draw", "loss", "avg", "perf"
            )?;
            for m in &p.moves {
                let mut notes = Vec::new();
                if let Some(a) = m.annotation {
                    notes.push(format!("${a}"));
                }
                if m.green == Some(true) {
                    notes.push("green".into());
                }
                if m.red == Some(true) {
                    notes.push("red".into());
                }
                if let Some(c) = m.commentary.filter(|&c| c != 0) {
                    notes.push(format!("comment ${c}"));
                }
                writeln!(
                    out,
                    "{:<8} {:<6} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}  {}",
                    m.san,
                    m.uci,
                    opt(m.games),
                    opt(m.wins),
                    opt(m.draws),
                    opt(m.losses),
                    opt(m.average_rating),
                    opt(m.performance),
                    notes.join(" ")
                )?;
            }
        }
    }
    Ok(())
}

pub fn dump(args: DumpArgs) -> anyhow::Result<()> {
    let colour = args.color.map(|c| match c {
        ColourArg::White => Colour::White,
        ColourArg::Black => Colour::Black,
    });
    let dump = books::dump(&args.book.file(), colour)?;
    if let BookDump::Polyglot(d) = &dump
        && args.json
    {
        return print_json(d);
    }
    let mut out = std::io::stdout().lock();
    match dump {
        BookDump::Polyglot(d) => out.write_all(d.text().as_bytes())?,
        BookDump::Ctg(d) => {
            // Streamed: one position at a time, a JSON array with one position a line.
            if args.json {
                write!(out, "[")?;
            }
            for (i, p) in d.positions().enumerate() {
                let p = p?;
                if args.json {
                    let sep = if i > 0 { "," } else { "" };
                    write!(out, "{sep}\n  {}", serde_json::to_string(&p)?)?;
                } else {
                    writeln!(out, "{}", position_line(&p))?;
                }
            }
            if args.json {
                writeln!(out, "\n]")?;
            }
        }
        BookDump::Kvetka(d) => {
            if !args.json {
                return Ok(d.write_text(&mut out)?);
            }
            write!(out, "[")?;
            for (i, p) in d.positions()?.enumerate() {
                let sep = if i > 0 { "," } else { "" };
                write!(out, "{sep}\n  {}", serde_json::to_string(&p)?)?;
            }
            writeln!(out, "\n]")?;
        }
    }
    Ok(())
}

fn position_line(d: &CtgDumpPosition) -> String {
    let p = &d.probe;
    let moves: Vec<String> = p
        .moves
        .iter()
        .map(|m| match m.games {
            Some(g) => format!("{}({g})", m.san),
            None => m.san.clone(),
        })
        .collect();
    format!(
        "{} | {} games +{} ={} -{} | {}",
        d.fen,
        opt(p.games),
        opt(p.wins),
        opt(p.draws),
        opt(p.losses),
        moves.join(" ")
    )
}

/// Prints the report, then fails (exit status 1) when the book has problems.
pub fn check(args: CheckArgs) -> anyhow::Result<()> {
    let report = books::check(&args.book.file())?;
    if args.json {
        print_json(&report)?;
    } else {
        match &report {
            CheckReport::Ctg(c) => print_ctg_check(c)?,
            CheckReport::Kvetka(c) => print_kvetka_check(c)?,
            CheckReport::Polyglot(c) => print_polyglot_check(c)?,
        }
    }
    Ok(report.verdict()?)
}

fn print_ctg_check(w: &CtgCheck) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: ChessBase CTG, {} data pages, {} slots ({} used), {} records, {} games in the header",
        w.name, w.data_pages, w.slots, w.slots_used, w.records, w.header_games
    )?;
    writeln!(
        out,
        "records found through the .cto: {} (elsewhere {}, not found {}); duplicate keys {}, undecodable {}, non-canonical {}",
        w.found_via_cto,
        w.found_elsewhere,
        w.not_found_via_cto,
        w.duplicate_keys,
        w.undecodable_keys,
        w.non_canonical_keys
    )?;
    writeln!(
        out,
        "moves: {} stored, {} legal, {} illegal, {} unknown codes; children found {}, missing {}",
        w.stored_moves,
        w.legal_moves,
        w.illegal_moves,
        w.unknown_codes,
        w.children_found,
        w.children_missing
    )?;
    for p in &w.problems {
        writeln!(
            out,
            "{}: {}byte offset {}: {}",
            p.file,
            p.page
                .map(|p| format!("data page {p}, "))
                .unwrap_or_default(),
            p.offset,
            p.what
        )?;
    }
    if w.clean {
        writeln!(out, "ok")?;
    }
    Ok(())
}

fn print_kvetka_check(c: &KvetkaCheck) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: Kvetka, {} file(s), {} blocks, {} elements, index from {}",
        c.name,
        c.files.len(),
        c.blocks,
        c.elements,
        c.index
    )?;
    for p in &c.problems {
        writeln!(out, "{p}")?;
    }
    if c.clean {
        writeln!(out, "ok")?;
    }
    Ok(())
}

fn print_polyglot_check(c: &PolyglotCheck) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: Polyglot, {} entries, {} distinct keys",
        c.name, c.entries, c.distinct_keys
    )?;
    for p in &c.problems {
        writeln!(out, "{p}")?;
    }
    writeln!(
        out,
        "reachable from the start: {} positions, {} entries; unreachable entries: {} (kept, never found by playing moves); illegal moves: {}",
        c.reachable_positions, c.reachable_entries, c.unreachable_entries, c.illegal_moves
    )?;
    if c.clean {
        writeln!(out, "ok")?;
    }
    Ok(())
}

/// The JSON, or its fields one a line.
pub fn info(args: InfoArgs) -> anyhow::Result<()> {
    let info = books::info(&args.book.file())?;
    if args.json {
        return print_json(&info);
    }
    let mut out = std::io::stdout().lock();
    if let Value::Object(m) = serde_json::to_value(&info)? {
        for (k, val) in m {
            let shown = match val {
                Value::String(s) => s,
                other => other.to_string(),
            };
            writeln!(out, "{k:<24} {shown}")?;
        }
    }
    Ok(())
}

/// The JSON, or the PGN text of each game.
pub fn game(args: GameArgs) -> anyhow::Result<()> {
    let linked = books::linked_games(
        &args.book.file(),
        args.position.fen.as_deref(),
        args.position.play.as_deref(),
        args.index,
    )?;
    if args.json {
        return print_json(&linked);
    }
    let mut out = std::io::stdout().lock();
    for (i, g) in linked.games.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", g.pgn.trim_end())?;
    }
    Ok(())
}
