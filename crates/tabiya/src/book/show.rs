//! `tabiya book probe | dump | check | info | game`.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};
use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode};
use tabiya_books::convert::{AnyBook, BookFormat, position_probe};
use tabiya_books::kvetka::{EcoComment, GameLink};
use tabiya_books::polyglot::{self, Entry, EntrySource, LineEnd, PolyglotBook};
use tabiya_books::{BookProbe, ctg};

use super::{CheckArgs, ColourArg, DumpArgs, GameArgs, InfoArgs, ProbeArgs};
use crate::output::print_json;

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The probe answer with the position's FEN and the book's format.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProbeJson<'a> {
    fen: String,
    format: BookFormat,
    #[serde(flatten)]
    probe: &'a BookProbe,
}

pub fn probe(args: ProbeArgs) -> anyhow::Result<()> {
    let book = args.book.open()?;
    let r = args.position.resolve()?;
    let p = book
        .probe(&r.pos)
        .with_context(|| format!("cannot probe {}", args.book.book.display()))?;
    if args.json {
        return print_json(&ProbeJson {
            fen: r.fen.clone(),
            format: book.format(),
            probe: &p,
        });
    }
    print_probe(&r.fen, book.format(), &p)
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
    let book = args.book.open()?;
    let name = args.book.book.display().to_string();
    match &book {
        AnyBook::Polyglot(b) => {
            let colours = match args.color {
                Some(ColourArg::White) => vec![Color::White],
                Some(ColourArg::Black) => vec![Color::Black],
                None => vec![Color::White, Color::Black],
            };
            let dumps: Vec<polyglot::Dump> =
                colours.iter().map(|&c| polyglot::dump(b, c)).collect();
            if args.json {
                let v: Vec<Value> = dumps.iter().map(dump_json).collect();
                return print_json(&v);
            }
            let mut out = std::io::stdout().lock();
            for d in &dumps {
                out.write_all(d.to_text(&name).as_bytes())?;
            }
            Ok(())
        }
        AnyBook::Ctg(b) => {
            if args.color.is_some() {
                bail!("--color is for Polyglot books: a CTG dump lists every stored position");
            }
            let mut out = std::io::stdout().lock();
            let mut first = true;
            if args.json {
                write!(out, "[")?;
            }
            for rp in b.positions() {
                let rp = rp.with_context(|| format!("cannot read {name}"))?;
                let probe = position_probe(&rp.position);
                if args.json {
                    let mut v = serde_json::to_value(&probe)?;
                    if let Value::Object(m) = &mut v {
                        m.insert("fen".into(), json!(fen_of(&rp.position.position)));
                        m.insert("key".into(), json!(rp.key.to_hex()));
                        m.insert("page".into(), json!(rp.page));
                        m.insert("offset".into(), json!(rp.offset));
                        m.insert(
                            "unknownMoves".into(),
                            json!(rp.unknown_moves.iter().map(|u| json!({"code": u.code, "annotation": u.annotation, "error": u.error.to_string()})).collect::<Vec<_>>()),
                        );
                    }
                    if !first {
                        write!(out, ",")?;
                    }
                    write!(out, "\n  {}", serde_json::to_string(&v)?)?;
                } else {
                    writeln!(
                        out,
                        "{}",
                        position_line(&fen_of(&rp.position.position), &probe)
                    )?;
                }
                first = false;
            }
            if args.json {
                writeln!(out, "\n]")?;
            }
            Ok(())
        }
        AnyBook::Kvetka(b) => {
            if args.color.is_some() {
                bail!("--color is for Polyglot books: a Kvetka dump lists every stored position");
            }
            if !args.json {
                let mut out = std::io::stdout().lock();
                return b
                    .dump(&mut out)
                    .with_context(|| format!("cannot dump {name}"));
            }
            let mut out = std::io::stdout().lock();
            write!(out, "[")?;
            let mut first = true;
            let (positions, _) = b
                .read_positions()
                .with_context(|| format!("cannot read {name}"))?;
            let mut elements = Vec::with_capacity(positions.len());
            b.for_each_element(|e| {
                elements.push(e);
                Ok(())
            })
            .with_context(|| format!("cannot read {name}"))?;
            for (p, e) in positions.iter().zip(&elements) {
                let mut v = serde_json::to_value(position_probe(p))?;
                if let Value::Object(m) = &mut v {
                    m.insert("fen".into(), json!(fen_of(&p.position)));
                    m.insert("key".into(), json!(hex(&e.raw.key)));
                    m.insert("file".into(), json!(e.location.file));
                    m.insert("offset".into(), json!(e.location.offset));
                    m.insert("block".into(), json!(e.location.block));
                    if let Some(c) = &e.raw.comment {
                        m.insert("comment".into(), json!(c));
                    }
                    let links: Vec<Value> = kvetka_links(
                        &e.raw.some_game,
                        e.raw.last_games.as_deref(),
                    )
                    .iter()
                    .map(|(kind, g)| json!({"kind": kind, "source": g.source, "game": g.game}))
                    .collect();
                    if !links.is_empty() {
                        m.insert("gameLinks".into(), json!(links));
                    }
                }
                if !first {
                    write!(out, ",")?;
                }
                write!(out, "\n  {}", serde_json::to_string(&v)?)?;
                first = false;
            }
            writeln!(out, "\n]")?;
            Ok(())
        }
    }
}

fn position_line(fen: &str, p: &BookProbe) -> String {
    let moves: Vec<String> = p
        .moves
        .iter()
        .map(|m| match m.games {
            Some(g) => format!("{}({g})", m.san),
            None => m.san.clone(),
        })
        .collect();
    format!(
        "{fen} | {} games +{} ={} -{} | {}",
        opt(p.games),
        opt(p.wins),
        opt(p.draws),
        opt(p.losses),
        moves.join(" ")
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn dump_json(d: &polyglot::Dump) -> Value {
    let colour = if d.colour == Color::White {
        "white"
    } else {
        "black"
    };
    let lines: Vec<Value> = d
        .lines
        .iter()
        .map(|l| {
            let moves: Vec<Value> = l
                .moves
                .iter()
                .map(|m| json!({"san": m.san, "uci": m.mv.to_uci(shakmaty::CastlingMode::Standard).to_string(), "weight": m.weight, "share": m.probability}))
                .collect();
            let end = match l.end {
                LineEnd::Leaf => json!({"kind": "leaf"}),
                LineEnd::Transposition { line, ply } => json!({"kind": "transposition", "line": line, "ply": ply}),
                LineEnd::Cycle { ply } => json!({"kind": "cycle", "ply": ply}),
            };
            json!({"number": l.number, "moves": moves, "end": end})
        })
        .collect();
    json!({"colour": colour, "positionsOnLines": d.positions_on_lines, "lines": lines})
}

fn kvetka_links(
    some: &Option<GameLink>,
    last: Option<&[GameLink]>,
) -> Vec<(&'static str, GameLink)> {
    let mut v: Vec<(&'static str, GameLink)> = Vec::new();
    if let Some(g) = some {
        v.push(("someGame", *g));
    }
    for g in last.unwrap_or(&[]) {
        if !v.iter().any(|(_, x)| x == g) {
            v.push(("lastGame", *g));
        }
    }
    v
}

/// Exit status 1 after the report has been printed.
fn fail_after(problems: u64, what: &str) -> anyhow::Result<()> {
    if problems > 0 {
        bail!("{problems} problem(s) found in {what}");
    }
    Ok(())
}

pub fn check(args: CheckArgs) -> anyhow::Result<()> {
    let path = &args.book.book;
    let name = path.display().to_string();
    let format = match args.book.book_format {
        Some(f) => f.into(),
        None => BookFormat::detect(path).with_context(|| format!("cannot open book {name}"))?,
    };
    if format == BookFormat::Polyglot {
        return check_polyglot(path, args.json);
    }
    let book = args.book.open()?;
    match &book {
        AnyBook::Ctg(b) => {
            let w = b.walk();
            if args.json {
                print_json(&json!({
                    "format": "ctg",
                    "clean": w.is_clean(),
                    "dataPages": w.data_pages, "slots": w.slots, "slotsUsed": w.slots_used,
                    "records": w.records, "headerGames": w.header_games,
                    "foundViaCto": w.found_via_cto, "foundElsewhere": w.found_elsewhere,
                    "notFoundViaCto": w.not_found_via_cto, "duplicateKeys": w.duplicate_keys,
                    "undecodableKeys": w.undecodable_keys, "nonCanonicalKeys": w.non_canonical_keys,
                    "storedMoves": w.stored_moves, "legalMoves": w.legal_moves,
                    "illegalMoves": w.illegal_moves, "unknownCodes": w.unknown_codes,
                    "childrenFound": w.children_found, "childrenMissing": w.children_missing,
                    "annotationBytes": w.annotation_bytes.iter().map(|(k, v)| (format!("{k:#04x}"), *v)).collect::<BTreeMap<_, _>>(),
                    "recommendationBytes": w.recommendation_bytes.iter().map(|(k, v)| (format!("{k:#04x}"), *v)).collect::<BTreeMap<_, _>>(),
                    "problemCount": w.problem_count,
                    "problems": w.problems.iter().map(|p| json!({"file": p.file, "page": p.page, "offset": p.offset, "what": p.what})).collect::<Vec<_>>(),
                }))?;
            } else {
                let mut out = std::io::stdout().lock();
                writeln!(
                    out,
                    "{name}: ChessBase CTG, {} data pages, {} slots ({} used), {} records, {} games in the header",
                    w.data_pages, w.slots, w.slots_used, w.records, w.header_games
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
                if w.is_clean() {
                    writeln!(out, "ok")?;
                }
            }
            fail_after(w.problem_count, &name)
        }
        AnyBook::Kvetka(b) => {
            let problems = b.verify().with_context(|| format!("cannot read {name}"))?;
            let mut elements = 0u64;
            b.for_each_element(|_| {
                elements += 1;
                Ok(())
            })?;
            if args.json {
                print_json(&json!({
                    "format": "kvetka", "clean": problems.is_empty(), "blocks": b.block_count(),
                    "elements": elements, "files": b.kob_files(), "index": format!("{:?}", b.index_source()),
                    "problems": problems,
                }))?;
            } else {
                let mut out = std::io::stdout().lock();
                writeln!(
                    out,
                    "{name}: Kvetka, {} file(s), {} blocks, {elements} elements, index from {:?}",
                    b.kob_files().len(),
                    b.block_count(),
                    b.index_source()
                )?;
                for p in &problems {
                    writeln!(out, "{p}")?;
                }
                if problems.is_empty() {
                    writeln!(out, "ok")?;
                }
            }
            fail_after(problems.len() as u64, &name)
        }
        AnyBook::Polyglot(_) => check_polyglot(path, args.json),
    }
}

/// Polyglot check on the raw bytes: size, order (every entry out of order, not just the
/// first), then on a sorted copy illegal moves and entries unreachable from the start.
fn check_polyglot(path: &Path, json_out: bool) -> anyhow::Result<()> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {name}"))?;
    let mut problems: Vec<String> = Vec::new();
    let trailing = bytes.len() % polyglot::ENTRY_SIZE;
    if trailing != 0 {
        problems.push(format!(
            "{name}: truncated: {} bytes is not a multiple of 16; the last {trailing} byte(s) from offset {} are not a whole entry",
            bytes.len(),
            bytes.len() - trailing
        ));
    }
    let entries: Vec<Entry> = bytes
        .chunks_exact(polyglot::ENTRY_SIZE)
        .map(|c| Entry::from_bytes(c.try_into().expect("16 bytes")))
        .collect();
    let mut unsorted = 0u64;
    for (i, w) in entries.windows(2).enumerate() {
        if w[1].key < w[0].key {
            unsorted += 1;
            if unsorted <= 20 {
                problems.push(format!(
                    "{name}: byte offset {}: key {:016x} is smaller than the key {:016x} before it (binary search will miss entries)",
                    (i + 1) * polyglot::ENTRY_SIZE,
                    w[1].key,
                    w[0].key
                ));
            }
        }
    }
    let mut sorted = entries.clone();
    sorted.sort_by_key(|e| e.key);
    let book = PolyglotBook::from_entries(&name, sorted).context("sorting the entries")?;
    let info = polyglot::info(&book);
    // Illegal moves of reachable positions, with where they are.
    let mut illegal: Vec<String> = Vec::new();
    let mut walk = polyglot::read_positions(&book, &[Chess::default()]);
    let reachable: Vec<Chess> = walk.by_ref().map(|p| p.position).collect();
    for pos in &reachable {
        for pe in book.probe_entries(pos) {
            if let Err(e) = &pe.mv {
                illegal.push(format!("{}: position {}: {e}", name, fen_of(pos)));
            }
        }
    }
    let fatal = u64::from(trailing != 0) + unsorted + info.illegal_moves;
    if json_out {
        print_json(&json!({
            "format": "polyglot",
            "clean": fatal == 0,
            "entries": info.entries,
            "truncatedBytes": trailing,
            "unsortedEntries": unsorted,
            "illegalMoves": info.illegal_moves,
            "reachablePositions": info.reachable_positions,
            "reachableEntries": info.reachable_entries,
            "unreachableEntries": info.unreachable_entries,
            "zeroWeightEntries": info.zero_weight_entries,
            "problems": problems.iter().chain(illegal.iter().take(100)).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "{name}: Polyglot, {} entries, {} distinct keys",
            info.entries, info.distinct_keys
        )?;
        for p in problems.iter().chain(illegal.iter().take(100)) {
            writeln!(out, "{p}")?;
        }
        writeln!(
            out,
            "reachable from the start: {} positions, {} entries; unreachable entries: {} (kept, never found by playing moves); illegal moves: {}",
            info.reachable_positions,
            info.reachable_entries,
            info.unreachable_entries,
            info.illegal_moves
        )?;
        if fatal == 0 {
            writeln!(out, "ok")?;
        }
    }
    fail_after(fatal, &name)
}

pub fn info(args: InfoArgs) -> anyhow::Result<()> {
    let book = args.book.open()?;
    let name = args.book.book.display().to_string();
    let v = match &book {
        AnyBook::Polyglot(b) => {
            let i = polyglot::info(b);
            json!({
                "format": "polyglot", "file": name,
                "entries": i.entries, "distinctKeys": i.distinct_keys,
                "zeroWeightEntries": i.zero_weight_entries, "nonzeroLearnEntries": i.nonzero_learn_entries,
                "weightTotal": i.weight_total, "weightMax": i.weight_max,
                "reachablePositions": i.reachable_positions, "reachableEntries": i.reachable_entries,
                "unreachableEntries": i.unreachable_entries, "illegalMoves": i.illegal_moves,
                "linesForWhite": i.lines_for_white, "linesForBlack": i.lines_for_black,
                "positionsOnLinesWhite": i.positions_on_lines_white, "positionsOnLinesBlack": i.positions_on_lines_black,
                "isolatedPositions": i.isolated_positions,
            })
        }
        AnyBook::Ctg(b) => {
            let h = b.header();
            let mut records = 0u64;
            for r in b.records() {
                r.with_context(|| format!("cannot read {name}"))?;
                records += 1;
            }
            let files: Vec<String> = ctg::book_paths(&args.book.book)
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            json!({
                "format": "ctg", "files": files,
                "games": h.games, "dataPages": h.data_pages, "records": records,
                "headerPageCount": h.page_count_field, "headerRecordCount": h.record_count_field,
                "slots": h.slots, "lowerBound": h.lower_bound, "upperBound": h.upper_bound,
            })
        }
        AnyBook::Kvetka(b) => {
            let h = b.header();
            let mut elements = 0u64;
            let mut comments = 0u64;
            b.for_each_element(|e| {
                elements += 1;
                comments += u64::from(e.raw.comment.is_some());
                Ok(())
            })
            .with_context(|| format!("cannot read {name}"))?;
            let sources: Vec<Value> = b
                .sources()
                .map(|k| k.sources.iter().map(|s| json!({"type": s.source_type, "bad": s.is_bad != 0, "address": s.address, "games": s.games.len()})).collect())
                .unwrap_or_default();
            json!({
                "format": "kvetka", "files": b.kob_files(), "caption": h.caption,
                "minWhiteElo": h.min_white_elo, "minBlackElo": h.min_black_elo,
                "minStrongerElo": h.min_stronger_elo, "minWeakerElo": h.min_weaker_elo,
                "maxMove": h.max_move, "elementType": h.element_type, "links": h.links,
                "blocks": h.block_count, "elements": elements, "comments": comments,
                "index": format!("{:?}", b.index_source()), "sources": sources,
            })
        }
    };
    if args.json {
        return print_json(&v);
    }
    let mut out = std::io::stdout().lock();
    if let Value::Object(m) = &v {
        for (k, val) in m {
            let shown = match val {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            writeln!(out, "{k:<24} {shown}")?;
        }
    }
    Ok(())
}

/// One linked game with its text.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinkedGame {
    kind: &'static str,
    source: u16,
    game: u32,
    path: Option<PathBuf>,
    offset: u64,
    length: u64,
    white: String,
    black: String,
    result: &'static str,
    pgn: String,
}

/// Reads `length` bytes at `offset` of a source file as read (decompressed for `.zst`,
/// `.gz`, `.bz2`).
fn read_source(path: &Path, offset: u64, length: u64) -> anyhow::Result<String> {
    let input = tabiya_pgn::input::open(path)
        .with_context(|| format!("cannot read game source {}", path.display()))?;
    let mut buf = vec![0u8; length as usize];
    if input.compression == tabiya_pgn::input::Compression::None {
        let mut f = std::fs::File::open(path)
            .with_context(|| format!("cannot read game source {}", path.display()))?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf).with_context(|| {
            format!(
                "{}: no game of {length} bytes at byte offset {offset}",
                path.display()
            )
        })?;
    } else {
        let mut r = input.reader;
        std::io::copy(&mut (&mut r).take(offset), &mut std::io::sink())?;
        r.read_exact(&mut buf).with_context(|| {
            format!(
                "{}: no game of {length} bytes at byte offset {offset} (decompressed)",
                path.display()
            )
        })?;
    }
    Ok(tabiya_pgn::san::decode_text(&buf).into_owned())
}

pub fn game(args: GameArgs) -> anyhow::Result<()> {
    let book = args.book.open()?;
    let name = args.book.book.display().to_string();
    let AnyBook::Kvetka(b) = &book else {
        bail!(
            "{name}: `book game` needs a Kvetka book (.kob with its .ksf); {} books do not link games",
            book.format()
        );
    };
    let r = args.position.resolve()?;
    let d = b
        .probe_detail(&r.pos)
        .with_context(|| format!("cannot probe {name}"))?;
    let Some(e) = d.element else {
        bail!("{name}: position not in the book: {}", r.fen);
    };
    let links = kvetka_links(&e.raw.some_game, e.raw.last_games.as_deref());
    if links.is_empty() {
        bail!("{name}: the book links no game to {}", r.fen);
    }
    let chosen: Vec<(&'static str, GameLink)> = match args.index {
        Some(i) => vec![*links.get(i).with_context(|| {
            format!(
                "--index {i}: the position has {} linked game(s)",
                links.len()
            )
        })?],
        None => links,
    };
    let mut games = Vec::new();
    for (kind, link) in chosen {
        let src = b
            .game_source(link)
            .with_context(|| format!("{name}: game {}:{}", link.source, link.game))?;
        let Some(path) = src.path.clone() else {
            bail!(
                "{name}: source {} is not a file ({:?}, type {})",
                link.source,
                src.address,
                src.source_type
            );
        };
        let pgn = read_source(&path, src.offset, src.length)?;
        games.push(LinkedGame {
            kind,
            source: link.source,
            game: link.game,
            path: Some(path),
            offset: src.offset,
            length: src.length,
            white: src.game.white.clone(),
            black: src.game.black.clone(),
            result: match src.game.result {
                0 => "0-1",
                1 => "1-0",
                2 => "1/2-1/2",
                _ => "*",
            },
            pgn,
        });
    }
    if args.json {
        return print_json(&json!({
            "fen": r.fen,
            "eco": e.raw.comment.as_deref().and_then(EcoComment::parse).map(|c| json!({"eco": c.eco, "name": c.name, "variation": c.variation})),
            "games": games,
        }));
    }
    let mut out = std::io::stdout().lock();
    for (i, g) in games.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", g.pgn.trim_end())?;
    }
    Ok(())
}
