//! `tabiya import | explore | games | export | stats`: the positional database.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use tabiya_db::NO_MOVE;
use tabiya_db::chess::openings;
use tabiya_db::chess::{code_to_move, position_key};
use tabiya_db::{Database, ImportOptions, ImportProgress, Kind};
use tabiya_db::{GameFacts, GameOutcome, Stats};
use tabiya_db::{GameSort, Snapshot};
use tabiya_service::ChessPosition;

use crate::args::{DbArg, PositionArg};
use crate::output::print_json;

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// PGN files (plain, .zst, .gz, .bz2), or - for standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Index positions up to this ply only (set when the database is created).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// Keep games equal to a stored game (same Seven Tag Roster and main line).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Games per transaction (each makes an index run; runs are merged at the end).
    /// Default: as many as --memory allows (chess), 50,000 (Othello).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: Option<u64>,
    /// Chess: memory for building the index of one transaction, in MiB (about 60 bytes a
    /// position). Default: a quarter of the machine's memory (or of the container's
    /// limit), 256 MiB to 16 GiB.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(64..))]
    pub memory: Option<u64>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub names: crate::othello_db::WthorNameArgs,
}

#[derive(Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub othello: crate::othello_db::MovesArg,
    /// Number of top games to show.
    #[arg(long, default_value_t = 8)]
    pub top: usize,
    /// Also show what an opening book (CTG, Polyglot, Kvetka) says of the position; repeatable.
    #[arg(long = "book", value_name = "FILE")]
    pub books: Vec<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SortArg {
    Rating,
    Date,
    Id,
}

#[derive(Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[command(flatten)]
    pub position: PositionArg,
    #[command(flatten)]
    pub othello: crate::othello_db::OthelloFilterArgs,
    #[arg(long, value_enum, default_value = "rating")]
    pub sort: SortArg,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArg,
    /// Export one game.
    #[arg(long, conflicts_with_all = ["fen", "play"])]
    pub game: Option<u32>,
    #[command(flatten)]
    pub position: PositionArg,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long)]
    pub json: bool,
}

fn open_db(arg: &DbArg) -> anyhow::Result<Database> {
    Ok(Database::open(&arg.dir())?)
}

pub fn import(args: ImportArgs) -> anyhow::Result<()> {
    if crate::othello_db::import_is_othello(&args)? {
        return crate::othello_db::import(&args);
    }
    let dir = args.db.dir();
    let db = Database::open_or_create(&dir, Kind::Chess, args.max_ply)?;
    let mut opts = ImportOptions {
        keep_duplicates: args.keep_duplicates,
        batch_games: args.batch.unwrap_or(0) as usize,
        ..Default::default()
    };
    if let Some(mib) = args.memory {
        opts.index_memory = mib << 20;
    }
    let progress = Arc::new(ImportProgress::default());
    let show = std::io::stderr().is_terminal();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let compacting = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = if show {
        let progress = progress.clone();
        let done = done.clone();
        let compacting = compacting.clone();
        let nfiles = args.files.len();
        Some(std::thread::spawn(move || {
            let bar = crate::output::progress_bytes(None, "import");
            let start = Instant::now();
            let mut last_file = usize::MAX;
            while !done.load(Ordering::Relaxed) {
                let fi = progress.reading.file_index.load(Ordering::Relaxed);
                if fi != last_file {
                    last_file = fi;
                    let size = progress.reading.file_size.load(Ordering::Relaxed);
                    let name = progress
                        .reading
                        .file_name
                        .lock()
                        .map(|n| n.clone())
                        .unwrap_or_default();
                    bar.set_length(size.max(1));
                    bar.set_prefix(format!("[{}/{}] {}", fi + 1, nfiles, short_name(&name)));
                }
                bar.set_position(progress.reading.file_bytes.load(Ordering::Relaxed));
                let games = progress.games.load(Ordering::Relaxed);
                let rate = games as f64 / start.elapsed().as_secs_f64().max(1e-3);
                // After the reading: the last index run is built and written, the runs
                // merged, the file compacted; say so rather than sit at 100 %.
                let stage = if compacting.load(Ordering::Relaxed) {
                    ", giving free pages back"
                } else if progress.merging.load(Ordering::Relaxed) {
                    ", merging index runs"
                } else if progress.indexing.load(Ordering::Relaxed) {
                    ", writing an index run"
                } else {
                    ""
                };
                bar.set_message(format!("{games} games, {rate:.0} games/s{stage}"));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        }))
    } else {
        None
    };
    let result = db.import(&args.files, &opts, &progress);
    // Merges free the pages of the runs they replace, and a big transaction leaves the
    // file larger than what it holds: give the free pages back.
    compacting.store(true, Ordering::Relaxed);
    let shrunk = if result.is_ok() {
        db.shrink_reopened().map(|_| ())
    } else {
        Ok(())
    };
    done.store(true, Ordering::Relaxed);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    let summary = result?;
    shrunk?;
    if args.json {
        print_json(&summary)?;
    } else {
        let mut out = std::io::stdout().lock();
        print_import_head(&mut out, &summary, "malformed or unsupported")?;
        if summary.warnings > 0 {
            writeln!(
                out,
                "  imported with warnings (e.g. a variation cut at an illegal move): {}",
                summary.warnings
            )?;
        }
        writeln!(
            out,
            "  database {}: {} games",
            dir.display(),
            summary.database_games
        )?;
        drop(out);
        for p in summary.problems.iter().take(20) {
            if p.game == 0 {
                eprintln!("{}: {}", p.file, p.reason);
            } else {
                eprintln!("{}:{}: game {}: {}", p.file, p.line, p.game, p.reason);
            }
        }
        if summary.problems.len() > 20 {
            eprintln!(
                "... and {} more (use --json to see all)",
                summary.problems.len() - 20
            );
        }
    }
    Ok(())
}

/// The first lines of an import's terminal summary (chess and Othello alike).
pub fn print_import_head(
    out: &mut impl Write,
    s: &tabiya_db::ImportSummary,
    skipped: &str,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "imported {} of {} games from {} file(s) in {:.2} s ({:.0} games/s)",
        s.imported,
        s.games,
        s.files.len(),
        s.seconds,
        s.games_per_second
    )?;
    writeln!(out, "  duplicates skipped: {}", s.duplicates)?;
    writeln!(out, "  {skipped}, skipped: {}", s.skipped)?;
    for (reason, n) in &s.skipped_by_reason {
        writeln!(out, "    {n:>6}  {reason}")?;
    }
    Ok(())
}

fn short_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string())
}

#[derive(Serialize)]
pub struct Player {
    pub name: String,
    pub rating: Option<u16>,
}

#[derive(Serialize)]
pub struct TopGame {
    pub id: String,
    pub uci: Option<String>,
    pub white: Player,
    pub black: Player,
    pub winner: Option<&'static str>,
    pub year: Option<u16>,
    pub month: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveJson {
    pub uci: String,
    pub san: String,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub average_rating: Option<u32>,
    pub performance: Option<i32>,
    pub first_year: Option<u16>,
    pub last_year: Option<u16>,
    /// Games with this move and no result (`*`), not counted in white/draws/black.
    pub unknown: u64,
}

#[derive(Serialize)]
pub struct OpeningJson {
    pub eco: String,
    pub name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExploreJson {
    pub fen: String,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// Games reaching the position with no result.
    pub unknown: u64,
    /// Games that ended in this position.
    pub ended: u64,
    pub average_rating: Option<u32>,
    pub moves: Vec<MoveJson>,
    pub top_games: Vec<TopGame>,
    pub opening: Option<OpeningJson>,
    /// Answers of the books given with `--book`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub books: Vec<BookAnswer>,
}

/// What one book says of the asked position.
#[derive(Serialize)]
pub struct BookAnswer {
    pub file: String,
    #[serde(flatten)]
    pub probe: tabiya_books::BookProbe,
}

fn winner(f: &GameFacts) -> Option<&'static str> {
    match f.outcome() {
        GameOutcome::FirstWins => Some("white"),
        GameOutcome::SecondWins => Some("black"),
        _ => None,
    }
}

fn top_game(
    snap: &Snapshot<'_>,
    pos: &Chess,
    mode: CastlingMode,
    id: u32,
    code: u16,
) -> anyhow::Result<TopGame> {
    let f = snap.facts(id)?;
    let tags = snap.chess_tags(id)?.unwrap_or_default();
    let tag = |n: &str| {
        tags.iter()
            .find(|(k, _)| k == n)
            .map_or("?", |(_, v)| v.as_str())
            .to_string()
    };
    let uci = code_to_move(pos, code).map(|m| UciMove::from_move(m, mode).to_string());
    Ok(TopGame {
        id: id.to_string(),
        uci,
        white: Player {
            name: tag("White"),
            rating: f.ratings[0],
        },
        black: Player {
            name: tag("Black"),
            rating: f.ratings[1],
        },
        winner: winner(&f),
        year: f.year,
        month: (f.date / 100 % 100 != 0)
            .then(|| format!("{}-{:02}", f.date / 10000, f.date / 100 % 100)),
    })
}

fn opening_for(
    snap: &Snapshot<'_>,
    r: &ChessPosition,
    top: &[(u32, u16)],
) -> anyhow::Result<Option<&'static openings::Opening>> {
    if let Some(o) = openings::last_named(&r.line) {
        return Ok(Some(o));
    }
    // Reached from a FEN: follow the best game's line to this position.
    let key = position_key(&r.pos);
    if let Some(&(id, _)) = top.first()
        && let Some(g) = snap.chess_game(id)?
    {
        let mut pos = g.start.clone();
        let mut line = vec![pos.clone()];
        for n in &g.moves {
            if position_key(&pos) == key {
                break;
            }
            pos.play_unchecked(n.mv);
            line.push(pos.clone());
        }
        if position_key(&pos) == key {
            return Ok(openings::last_named(&line));
        }
    }
    Ok(None)
}

pub fn explore_json(
    snap: &Snapshot<'_>,
    r: &ChessPosition,
    top_n: usize,
) -> anyhow::Result<ExploreJson> {
    let ps = snap.chess_position(&r.pos, top_n)?;
    let mut moves = Vec::new();
    let mut ended = 0;
    for (code, s) in &ps.moves {
        if *code == NO_MOVE {
            ended = s.games();
            continue;
        }
        let Some(m) = code_to_move(&r.pos, *code) else {
            continue;
        };
        moves.push(MoveJson {
            uci: UciMove::from_move(m, r.mode).to_string(),
            san: SanPlus::from_move(r.pos.clone(), m).to_string(),
            white: s.first,
            draws: s.draws,
            black: s.second,
            average_rating: s.average_rating(),
            performance: s.performance(),
            first_year: (s.min_year != 0).then_some(s.min_year),
            last_year: (s.max_year != 0).then_some(s.max_year),
            unknown: s.unknown,
        });
    }
    let mut top_games = Vec::new();
    for &(id, code) in &ps.top_games {
        top_games.push(top_game(snap, &r.pos, r.mode, id, code)?);
    }
    let opening = opening_for(snap, r, &ps.top_games)?.map(|o| OpeningJson {
        eco: o.eco.clone(),
        name: o.name.clone(),
    });
    let t: &Stats = &ps.totals;
    Ok(ExploreJson {
        fen: r.fen.clone(),
        white: t.first,
        draws: t.draws,
        black: t.second,
        unknown: t.unknown,
        ended,
        average_rating: t.average_rating(),
        moves,
        top_games,
        opening,
        books: Vec::new(),
    })
}

fn pct(n: u64, total: u64) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / total as f64)
    }
}

pub fn explore(args: ExploreArgs) -> anyhow::Result<()> {
    let db = open_db(&args.db)?;
    if db.kind() == Kind::Othello {
        return crate::othello_db::explore(&db, &args);
    }
    if args.othello.moves.is_some() {
        bail!(
            "{} is a chess database: --moves is for Othello; give the position with --play or --fen",
            args.db.dir().display()
        );
    }
    let r = args.position.resolve()?;
    let snap = db.snapshot()?;
    let mut e = explore_json(&snap, &r, args.top)?;
    for path in &args.books {
        let probe = crate::book::probe_any(path, &r.pos)?;
        e.books.push(BookAnswer {
            file: path.display().to_string(),
            probe,
        });
    }
    if args.json {
        return print_json(&e);
    }
    print_explore(&e)
}

pub fn print_explore(e: &ExploreJson) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", e.fen)?;
    if let Some(o) = &e.opening {
        writeln!(out, "{} {}", o.eco, o.name)?;
    }
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
    if e.moves.is_empty() {
        writeln!(out, "no moves in the database from this position")?;
    } else {
        writeln!(
            out,
            "{:<8} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}  years",
            "move", "games", "white", "draws", "black", "avg", "perf"
        )?;
        for m in &e.moves {
            let n = m.white + m.draws + m.black;
            let years = match (m.first_year, m.last_year) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (Some(a), _) => a.to_string(),
                _ => String::new(),
            };
            writeln!(
                out,
                "{:<8} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}  {}",
                m.san,
                n + m.unknown,
                pct(m.white, n),
                pct(m.draws, n),
                pct(m.black, n),
                m.average_rating.map_or("-".into(), |v| v.to_string()),
                m.performance.map_or("-".into(), |v| v.to_string()),
                years
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
                g.uci.clone().unwrap_or_default()
            )?;
        }
    }
    for b in &e.books {
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

#[derive(Serialize)]
pub struct GameRow {
    pub id: String,
    pub white: Player,
    pub black: Player,
    pub result: String,
    pub date: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// The move played in the asked position (UCI).
    pub uci: Option<String>,
}

#[derive(Serialize)]
pub struct GamesJson {
    pub total: u64,
    pub games: Vec<GameRow>,
}

pub fn games(args: GamesArgs) -> anyhow::Result<()> {
    let db = open_db(&args.db)?;
    if db.kind() == Kind::Othello {
        return crate::othello_db::games(&db, &args);
    }
    crate::othello_db::reject_for_chess(&args)?;
    let r = args.position.resolve()?;
    let snap = db.snapshot()?;
    let sort = match args.sort {
        SortArg::Rating => GameSort::Rating,
        SortArg::Date => GameSort::Date,
        SortArg::Id => GameSort::Id,
    };
    let (total, page) = snap.chess_position_games(&r.pos, sort, args.offset, args.limit)?;
    let mut rows = Vec::new();
    for (id, code) in page {
        let tags = snap
            .chess_tags(id)?
            .with_context(|| format!("game {id} is missing"))?;
        let f = snap.facts(id)?;
        let tag = |n: &str| {
            tags.iter()
                .find(|(k, _)| k == n)
                .map_or("?", |(_, v)| v.as_str())
                .to_string()
        };
        rows.push(GameRow {
            id: id.to_string(),
            white: Player {
                name: tag("White"),
                rating: f.ratings[0],
            },
            black: Player {
                name: tag("Black"),
                rating: f.ratings[1],
            },
            result: tag("Result"),
            date: tag("Date"),
            event: tag("Event"),
            site: tag("Site"),
            round: tag("Round"),
            uci: code_to_move(&r.pos, code).map(|m| UciMove::from_move(m, r.mode).to_string()),
        });
    }
    let out = GamesJson { total, games: rows };
    if args.json {
        return print_json(&out);
    }
    let mut w = std::io::stdout().lock();
    writeln!(
        w,
        "{} games reach this position; showing {}–{}",
        out.total,
        args.offset + 1,
        args.offset + out.games.len()
    )?;
    for g in &out.games {
        writeln!(
            w,
            "#{:<8} {} ({}) - {} ({}) {} {} {} {}",
            g.id,
            g.white.name,
            g.white.rating.map_or("?".into(), |r| r.to_string()),
            g.black.name,
            g.black.rating.map_or("?".into(), |r| r.to_string()),
            g.result,
            g.date,
            g.event,
            g.uci.clone().unwrap_or_default()
        )?;
    }
    Ok(())
}

pub fn export(args: ExportArgs) -> anyhow::Result<()> {
    let db = open_db(&args.db)?;
    if db.kind() == Kind::Othello {
        bail!(
            "{} is an Othello database: export it as WTHOR files with `tabiya wthor export --db {} -o OUTDIR`",
            args.db.dir().display(),
            args.db.dir().display()
        );
    }
    let snap = db.snapshot()?;
    let ids: Vec<u32> = if let Some(id) = args.game {
        vec![id]
    } else if args.position.is_given() {
        let r = args.position.resolve()?;
        let (_, page) = snap.chess_position_games(&r.pos, GameSort::Id, 0, usize::MAX)?;
        page.into_iter().map(|(id, _)| id).collect()
    } else {
        snap.all_game_ids()?
    };
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut text = String::new();
    for id in ids {
        let g = snap
            .chess_game(id)?
            .with_context(|| format!("no game {id} in {}", args.db.dir().display()))?;
        text.clear();
        tabiya_pgn::write_game(&g, &mut text);
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

pub fn stats(args: StatsArgs) -> anyhow::Result<()> {
    let db = open_db(&args.db)?;
    let s = tabiya_db::collect_stats(&db)?;
    if args.json {
        return print_json(&s);
    }
    let mut w = std::io::stdout().lock();
    writeln!(w, "database {} ({})", args.db.dir().display(), s.kind)?;
    writeln!(w, "games                {:>14}", s.games)?;
    writeln!(w, "positions counted    {:>14}", s.positions)?;
    writeln!(w, "distinct positions  ≈{:>14}", s.distinct_positions)?;
    writeln!(
        w,
        "  in the tree (≥{} games) {:>9}",
        s.promote_at, s.tree_positions
    )?;
    writeln!(w, "index runs           {:>14}", s.runs)?;
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
