//! Othello in the positional database: `tabiya import` of WTHOR `.wtb` files, `tabiya explore
//! --moves`, `tabiya games` with its filters, `tabiya wthor export`.
//!
//! `db.rs` parses the common arguments and hands Othello databases (and `.wtb` inputs) to the
//! functions here.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Args;
use tabiya_db::GameSort;
use tabiya_db::othello::{
    AskedPosition, GameFilter, NameSources, OthelloExplore, OthelloGames, PlayerKind,
    WthorImportSummary,
};
use tabiya_db::{Database, ImportOptions, ImportProgress, Kind};

use crate::args::DbArg;
use crate::db::{ExploreArgs, GamesArgs, ImportArgs, SortArg};
use crate::output::print_json;

/// `--jou`/`--trn` of `tabiya import` (WTHOR only).
#[derive(Args, Clone, Default)]
pub struct WthorNameArgs {
    /// WTHOR player names (.jou) for every .wtb file [default: WTHOR.JOU beside each file]
    #[arg(long, value_name = "FILE")]
    pub jou: Option<PathBuf>,
    /// WTHOR tournament names (.trn) for every .wtb file [default: WTHOR.TRN beside each file]
    #[arg(long, value_name = "FILE")]
    pub trn: Option<PathBuf>,
}

/// `--moves` of `tabiya explore` (Othello databases).
#[derive(Args, Clone, Default)]
pub struct MovesArg {
    /// Othello: the position after these moves from the start, like f5d6c3d3c4 (any of the 8
    /// orientations; "" or absent = the start position)
    #[arg(long, value_name = "LINE", conflicts_with_all = ["fen", "play"])]
    pub moves: Option<String>,
}

/// Filters of `tabiya games` on an Othello database.
#[derive(Args, Clone, Default)]
pub struct OthelloFilterArgs {
    /// Othello: games reaching the position after these moves (any orientation, any order)
    #[arg(long, value_name = "LINE", conflicts_with_all = ["fen", "play"])]
    pub moves: Option<String>,
    /// Othello: games of a player whose name contains this (case-insensitive)
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Othello: games of a tournament whose name contains this (case-insensitive)
    #[arg(long, value_name = "NAME")]
    pub tournament: Option<String>,
    /// Othello: games from this year on
    #[arg(long, value_name = "YEAR")]
    pub from: Option<u16>,
    /// Othello: games up to this year
    #[arg(long, value_name = "YEAR")]
    pub to: Option<u16>,
    /// Othello: games between two humans (no name contains "(")
    #[arg(long, conflicts_with = "programs")]
    pub humans: bool,
    /// Othello: games with at least one program (a name containing "(")
    #[arg(long)]
    pub programs: bool,
}

impl OthelloFilterArgs {
    fn is_given(&self) -> bool {
        self.moves.is_some()
            || self.player.is_some()
            || self.tournament.is_some()
            || self.from.is_some()
            || self.to.is_some()
            || self.humans
            || self.programs
    }
}

fn is_wthor_games(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wtb") || e.eq_ignore_ascii_case("wtd"))
}

/// Decides whether an import is an Othello one: `.wtb` inputs, or an existing Othello
/// database. Fails on a mix of kinds, with a message saying what to do.
pub fn import_is_othello(args: &ImportArgs) -> anyhow::Result<bool> {
    let dir = args.db.dir();
    let wthor: Vec<&PathBuf> = args.files.iter().filter(|f| is_wthor_games(f)).collect();
    let existing = if tabiya_store::Store::exists(&dir) {
        Some(Database::open(&dir)?.kind())
    } else {
        None
    };
    if !wthor.is_empty() && wthor.len() != args.files.len() {
        let other = args
            .files
            .iter()
            .find(|f| !is_wthor_games(f))
            .expect("a file that is not .wtb");
        bail!(
            "cannot import WTHOR files ({}) and other files ({}) together: an Othello database takes .wtb files, a chess database PGN",
            wthor[0].display(),
            other.display()
        );
    }
    match (existing, wthor.is_empty()) {
        (Some(Kind::Chess), false) => bail!(
            "{} is a chess database: WTHOR files ({}) can only go into an Othello database (use another --db)",
            dir.display(),
            wthor[0].display()
        ),
        (Some(Kind::Othello), true) => bail!(
            "{} is an Othello database: it takes WTHOR .wtb files, not {} (use another --db for chess)",
            dir.display(),
            args.files[0].display()
        ),
        (_, is_chess) => {
            if is_chess && (args.names.jou.is_some() || args.names.trn.is_some()) {
                bail!("--jou and --trn name the WTHOR names of .wtb files; no .wtb file was given");
            }
            Ok(!is_chess)
        }
    }
}

fn short_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string())
}

/// `tabiya import` of WTHOR files.
pub fn import(args: &ImportArgs) -> anyhow::Result<()> {
    if args.max_ply.is_some() {
        bail!("--max-ply is for chess databases: an Othello database indexes every position");
    }
    let dir = args.db.dir();
    let db = Database::open_or_create(&dir, Kind::Othello, None)?;
    let opts = ImportOptions {
        keep_duplicates: args.keep_duplicates,
        batch_games: args.batch.unwrap_or(0) as usize,
        ..Default::default()
    };
    let names = NameSources {
        jou: args.names.jou.clone(),
        trn: args.names.trn.clone(),
    };
    let progress = Arc::new(ImportProgress::default());
    let done = Arc::new(AtomicBool::new(false));
    let ticker = std::io::stderr().is_terminal().then(|| {
        let progress = progress.clone();
        let done = done.clone();
        let nfiles = args.files.len();
        std::thread::spawn(move || {
            let bar = crate::output::progress_bytes(None, "import");
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                let fi = progress.reading.file_index.load(Ordering::Relaxed);
                let name = progress
                    .reading
                    .file_name
                    .lock()
                    .map(|n| n.clone())
                    .unwrap_or_default();
                bar.set_prefix(format!("[{}/{}] {}", fi + 1, nfiles, short_name(&name)));
                bar.set_length(progress.reading.file_size.load(Ordering::Relaxed).max(1));
                bar.set_position(progress.reading.file_bytes.load(Ordering::Relaxed));
                let games = progress.games.load(Ordering::Relaxed);
                let rate = games as f64 / start.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!("{games} games, {rate:.0} games/s"));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        })
    });
    let result = db.import_wthor(&args.files, &names, &opts, &progress);
    done.store(true, Ordering::Relaxed);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    let summary = result?;
    db.shrink_reopened()?;
    if args.json {
        return print_json(&summary);
    }
    print_import(&summary, &dir)
}

fn print_import(s: &WthorImportSummary, dir: &Path) -> anyhow::Result<()> {
    let c = &s.summary;
    let mut out = std::io::stdout().lock();
    crate::db::print_import_head(&mut out, c, "illegal or undecodable")?;
    writeln!(
        out,
        "  unfinished games imported (result = stored adjudicated score): {}",
        s.unfinished
    )?;
    let n = &s.names;
    writeln!(
        out,
        "  names: {} players (+{}), {} tournaments (+{})",
        n.players, n.players_added, n.tournaments, n.tournaments_added
    )?;
    for ch in &n.changed {
        writeln!(
            out,
            "    {} {} renamed: {:?} -> {:?}",
            ch.kind, ch.id, ch.old, ch.new
        )?;
    }
    writeln!(
        out,
        "  database {}: {} games",
        dir.display(),
        c.database_games
    )?;
    drop(out);
    for p in c.problems.iter().take(20) {
        eprintln!(
            "{}",
            if p.reason.starts_with(&p.file) {
                p.reason.clone()
            } else {
                format!("{}: {}", p.file, p.reason)
            }
        );
    }
    if c.problems.len() > 20 {
        eprintln!(
            "... and {} more (use --json to see all)",
            c.problems.len() - 20
        );
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

fn avg(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1}"))
}

/// `tabiya explore` on an Othello database.
pub fn explore(db: &Database, args: &ExploreArgs) -> anyhow::Result<()> {
    if args.position.is_given() {
        bail!(
            "{} is an Othello database: give the position with --moves (like f5d6c3)",
            args.db.dir().display()
        );
    }
    let asked = AskedPosition::from_line(args.othello.moves.as_deref().unwrap_or(""))?;
    let snap = db.snapshot()?;
    let e = snap.othello_explore(&asked, args.top)?;
    if args.json {
        return print_json(&e);
    }
    print_explore(&e)
}

fn print_explore(e: &OthelloExplore) -> anyhow::Result<()> {
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

/// `tabiya games` on an Othello database.
pub fn games(db: &Database, args: &GamesArgs) -> anyhow::Result<()> {
    if args.position.is_given() {
        bail!(
            "{} is an Othello database: give the position with --moves (like f5d6c3)",
            args.db.dir().display()
        );
    }
    let o = &args.othello;
    let filter = GameFilter {
        position: o
            .moves
            .as_deref()
            .map(AskedPosition::from_line)
            .transpose()?,
        player: o.player.clone(),
        tournament: o.tournament.clone(),
        from: o.from,
        to: o.to,
        players: if o.humans {
            PlayerKind::Humans
        } else if o.programs {
            PlayerKind::Programs
        } else {
            PlayerKind::Any
        },
    };
    let sort = match args.sort {
        SortArg::Rating | SortArg::Date => GameSort::Date,
        SortArg::Id => GameSort::Id,
    };
    let snap = db.snapshot()?;
    let page = snap.othello_games(&filter, sort, args.offset, args.limit)?;
    if args.json {
        return print_json(&page);
    }
    print_games(&page)
}

fn print_games(p: &OthelloGames) -> anyhow::Result<()> {
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

/// Refuses the Othello-only filters on a chess database.
pub fn reject_for_chess(args: &GamesArgs) -> anyhow::Result<()> {
    if args.othello.is_given() {
        bail!(
            "{} is a chess database: --moves, --player, --tournament, --from, --to, --humans and --programs are for Othello databases",
            args.db.dir().display()
        );
    }
    Ok(())
}

/// `tabiya wthor export`: writes an Othello database back as WTHOR files.
pub fn export(db: &DbArg, output: &Path, json: bool) -> anyhow::Result<()> {
    let database = Database::open(&db.dir())?;
    let e = database.export_wthor(output)?;
    if json {
        return print_json(&e);
    }
    let mut w = std::io::stdout().lock();
    for f in &e.files {
        writeln!(
            w,
            "{:<40} {:>7} records {:>9} bytes",
            f.file, f.records, f.bytes
        )?;
    }
    writeln!(
        w,
        "{} games, {} players, {} tournaments written to {}",
        e.games,
        e.players,
        e.tournaments,
        output.display()
    )?;
    Ok(())
}
