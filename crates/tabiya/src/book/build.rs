//! `tabiya book build | convert | merge`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use serde_json::json;
use shakmaty::{Color, Position};
use tabiya_books::GameResult;
use tabiya_books::aggregate::{AggregateOptions, PerformanceSide, aggregate_with_report};
use tabiya_books::convert::{self, BookFormat, ConvertOptions, kvetka_target, write_polyglot};
use tabiya_books::ctg::{self, CtgWriteOptions};
use tabiya_books::kvetka::{self, GameFilter, KvetkaBookSpec, KvetkaGameInfo, KvetkaSource};
use tabiya_books::polyglot::{self, PolyglotBuildOptions, PolyglotReader};

use super::games::{self, InputGame, ReadOptions, ReadSummary};
use super::{ConvertArgs, FormatArg, MergeArgs, eco_comment};
use crate::output::print_json;

#[derive(Args)]
pub struct BuildArgs {
    /// Book format to write.
    #[arg(long, value_enum)]
    pub format: FormatArg,
    /// Output: a Polyglot `.bin`; a CTG stem or `.ctg` (writes `.ctg/.cto/.ctb/.ini`); a
    /// Kvetka `dir/name` (writes `name_0.kob`, … `name.kin`, `name.ksf`).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// PGN files (plain, .zst, .gz, .bz2; `-` for standard input).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Build from the games of this Tabiya database instead of PGN files.
    #[arg(long = "db", value_name = "DIR", conflicts_with = "inputs")]
    pub db: Option<PathBuf>,
    /// Leave out positions and moves seen in fewer games (default 3 for Polyglot, as
    /// `polyglot make-book`; 1 for CTG and Kvetka, so the book agrees with the database).
    #[arg(long, value_name = "N")]
    pub min_game: Option<u32>,
    /// Count only the first N half-moves of each game (Polyglot default 1024; CTG and
    /// Kvetka: whole games; Kvetka at most 254).
    #[arg(long, value_name = "N")]
    pub max_ply: Option<u32>,
    /// Keep only positions with White to move.
    #[arg(long, conflicts_with = "only_black")]
    pub only_white: bool,
    /// Keep only positions with Black to move.
    #[arg(long)]
    pub only_black: bool,
    /// Polyglot: every move gets weight 1.
    #[arg(long)]
    pub uniform: bool,
    /// Kvetka: the book's caption (default: its name).
    #[arg(long)]
    pub caption: Option<String>,
    /// Kvetka: only games whose White is rated at least N (written to the book's header).
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_white_elo: u16,
    /// Kvetka: only games whose Black is rated at least N.
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_black_elo: u16,
    /// Kvetka: only games whose stronger player is rated at least N.
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_stronger_elo: u16,
    /// Kvetka: only games whose weaker player is rated at least N (unrated games fail every
    /// non-zero Elo filter).
    #[arg(long, value_name = "ELO", default_value_t = 0)]
    pub min_weaker_elo: u16,
    /// Kvetka: set the header's `links` flag and add every legal move between two stored
    /// positions (transpositions), as Kvetka does when adding games.
    #[arg(long)]
    pub links: bool,
    /// Kvetka: store no game references in elements (`element_type` bit 0 clear; no `.ksf`).
    #[arg(long)]
    pub no_game_links: bool,
    /// Kvetka: split `.kob` files so none passes this many bytes (default 20 MB, at least one
    /// 2048-byte block per file).
    #[arg(long, value_name = "BYTES")]
    pub split_size: Option<u64>,
    /// Parse threads (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[arg(long)]
    pub json: bool,
}

impl BuildArgs {
    /// Whether any Kvetka-only option was given.
    fn kvetka_options(&self) -> bool {
        self.min_white_elo != 0
            || self.min_black_elo != 0
            || self.min_stronger_elo != 0
            || self.min_weaker_elo != 0
            || self.links
            || self.no_game_links
            || self.split_size.is_some()
            || self.caption.is_some()
    }
}

/// What a build did.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct BuildReport {
    format: Option<BookFormat>,
    files: Vec<PathBuf>,
    /// Games found in the inputs, skipped as unreadable, and counted.
    games: u64,
    games_skipped: u64,
    games_used: u64,
    /// Polyglot: games not from the standard start (skipped, as make-book cannot replay
    /// them).
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped_non_standard_start: Option<u64>,
    positions: u64,
    moves: u64,
    /// What the format could not hold, counted (CTG and Kvetka).
    lost: std::collections::BTreeMap<&'static str, u64>,
    problems: Vec<games::Problem>,
    seconds: f64,
    games_per_second: f64,
}

impl BuildReport {
    fn lose(&mut self, what: &'static str, n: u64) {
        if n > 0 {
            *self.lost.entry(what).or_default() += n;
        }
    }
}

fn threads(args: &BuildArgs) -> usize {
    args.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

fn create_parent(p: &Path) -> anyhow::Result<()> {
    if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    Ok(())
}

fn finish_inputs(summary: &ReadSummary) -> anyhow::Result<()> {
    if let Some(e) = summary.file_errors.first() {
        bail!("{e}");
    }
    Ok(())
}

pub fn build(args: BuildArgs) -> anyhow::Result<()> {
    let format: BookFormat = args.format.into();
    if args.inputs.is_empty() && args.db.is_none() {
        bail!("give PGN files (or - for standard input), or --db DIR");
    }
    if args.uniform && format != BookFormat::Polyglot {
        bail!("--uniform is a Polyglot option (weights); {format} books hold statistics");
    }
    if args.kvetka_options() && format != BookFormat::Kvetka {
        bail!(
            "--min-*-elo, --links, --no-game-links, --split-size and --caption are Kvetka options; \
             not for {format} books"
        );
    }
    create_parent(&args.output)?;
    let started = Instant::now();
    let mut report = match format {
        BookFormat::Polyglot => build_polyglot(&args)?,
        BookFormat::Ctg => build_ctg(&args)?,
        BookFormat::Kvetka => build_kvetka(&args)?,
    };
    report.format = Some(format);
    report.seconds = started.elapsed().as_secs_f64();
    report.games_per_second = if report.seconds > 0.0 {
        report.games as f64 / report.seconds
    } else {
        0.0
    };
    if args.json {
        return print_json(&report);
    }
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "{} book: {} games read ({} skipped), {} used; {} positions, {} moves; {:.2} s",
        format,
        report.games,
        report.games_skipped,
        report.games_used,
        report.positions,
        report.moves,
        report.seconds
    )?;
    if let Some(n) = report.skipped_non_standard_start.filter(|&n| n > 0) {
        writeln!(
            err,
            "  {n} games from a FEN start skipped (polyglot make-book replays every game from the standard start)"
        )?;
    }
    for (k, v) in &report.lost {
        writeln!(err, "  not held by the format: {k}: {v}")?;
    }
    for p in &report.problems {
        writeln!(err, "  skipped: {} line {}: {}", p.file, p.line, p.reason)?;
    }
    for f in &report.files {
        writeln!(err, "  wrote {}", f.display())?;
    }
    Ok(())
}

/// Games of the inputs (PGN or database) streamed to `f` in input order.
fn with_games<R>(
    args: &BuildArgs,
    names: bool,
    polyglot_max_ply: Option<u32>,
    f: impl FnOnce(&mut dyn Iterator<Item = InputGame>) -> R,
) -> anyhow::Result<(R, ReadSummary)> {
    if let Some(dir) = &args.db {
        let (games, summary) = games::read_database(dir, None, names)?;
        let r = f(&mut games.into_iter());
        return Ok((r, summary));
    }
    let mut stream = games::read_pgn(
        &args.inputs,
        ReadOptions {
            threads: threads(args),
            names,
            polyglot_max_ply,
        },
    )?;
    let r = f(&mut stream);
    let summary = stream.summary().clone();
    finish_inputs(&summary)?;
    Ok((r, summary))
}

fn build_polyglot(args: &BuildArgs) -> anyhow::Result<BuildReport> {
    let opts = PolyglotBuildOptions {
        max_ply: args.max_ply.unwrap_or(1024),
        min_game: args.min_game.unwrap_or(3),
        min_score: 0.0,
        only_white: args.only_white,
        only_black: args.only_black,
        uniform: args.uniform,
    };
    let ((book, r), summary) = with_games(args, false, Some(opts.max_ply), |games| {
        polyglot::build_counted(
            games.map(|mut g| match g.counted.take() {
                Some(c) => c,
                None => games::count_for_polyglot(&mut g, opts.max_ply),
            }),
            &opts,
        )
    })?;
    write_polyglot(&book, &args.output)?;
    let mut keys = 0u64;
    let mut last = None;
    for e in book.entries() {
        if last != Some(e.key) {
            keys += 1;
            last = Some(e.key);
        }
    }
    Ok(BuildReport {
        files: vec![args.output.clone()],
        games: summary.games,
        games_skipped: summary.skipped + r.skipped_illegal,
        games_used: r.games_used,
        skipped_non_standard_start: Some(r.skipped_non_standard_start),
        positions: keys,
        moves: r.entries,
        problems: summary.problems,
        ..BuildReport::default()
    })
}

fn build_ctg(args: &BuildArgs) -> anyhow::Result<BuildReport> {
    let opts = AggregateOptions {
        min_games: u64::from(args.min_game.unwrap_or(1)),
        max_ply: args.max_ply.unwrap_or(u32::MAX),
        only_white: args.only_white,
        only_black: args.only_black,
        include_non_standard_start: true,
        keep_leaves: true,
        performance_side: PerformanceSide::LastMover,
    };
    let ((positions, agg), summary) = with_games(args, false, None, |games| {
        aggregate_with_report(games.map(|g| g.game), &opts)
    })?;
    let name = ctg::book_stem(&args.output)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let w = ctg::write_book(
        &args.output,
        positions,
        &CtgWriteOptions {
            games: Some(agg.games_used.min(u64::from(u32::MAX)) as u32),
            name,
            ..CtgWriteOptions::default()
        },
    )
    .with_context(|| format!("cannot write {}", args.output.display()))?;
    let mut report = BuildReport {
        files: w.files.clone(),
        games: summary.games,
        games_skipped: summary.skipped,
        games_used: agg.games_used,
        positions: w.records_written,
        moves: w.moves_written,
        problems: summary.problems,
        ..BuildReport::default()
    };
    report.lose("gamesCutAtIllegalMove", agg.illegal_games);
    for (what, n) in w.losses() {
        report.lose(what, n);
    }
    Ok(report)
}

/// Where the `.ksf` of a Kvetka book built from standard input or a database points: the
/// games are written to `dir/name.pgn` next to the book.
fn kvetka_pgn_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.pgn"))
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

fn build_kvetka(args: &BuildArgs) -> anyhow::Result<BuildReport> {
    let (dir, name) = kvetka_target(&args.output)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let max_move = match args.max_ply {
        None => 0xFF,
        Some(n) if n < 255 => n as u8,
        Some(n) => bail!(
            "--max-ply {n}: Kvetka's max_move is one byte (at most 254; leave it out for whole games)"
        ),
    };
    // Games and their sources.
    let (games, summary, sources): (Vec<InputGame>, ReadSummary, Vec<KvetkaSource>) =
        if let Some(db) = &args.db {
            let pgn = kvetka_pgn_path(&dir, &name);
            let (games, summary) = games::read_database(db, Some(&pgn), true)?;
            let source = KvetkaSource {
                address: absolute(&pgn).display().to_string(),
                source_type: 1,
                is_bad: false,
            };
            (games, summary, vec![source])
        } else {
            // Standard input has no file to point to: it is copied next to the book first.
            let mut inputs = args.inputs.clone();
            for p in inputs.iter_mut() {
                if p.as_os_str() == "-" {
                    let copy = kvetka_pgn_path(&dir, &name);
                    let mut input = tabiya_pgn::input::open(p)?;
                    let mut f = std::fs::File::create(&copy)
                        .with_context(|| format!("cannot create {}", copy.display()))?;
                    std::io::copy(&mut input.reader, &mut f)
                        .with_context(|| format!("cannot write {}", copy.display()))?;
                    *p = copy;
                }
            }
            let mut stream = games::read_pgn(
                &inputs,
                ReadOptions {
                    threads: threads(args),
                    names: true,
                    polyglot_max_ply: None,
                },
            )?;
            let games: Vec<InputGame> = stream.by_ref().collect();
            let summary = stream.summary().clone();
            finish_inputs(&summary)?;
            let sources = inputs
                .iter()
                .map(|p| KvetkaSource {
                    address: absolute(p).display().to_string(),
                    source_type: 1,
                    is_bad: false,
                })
                .collect();
            (games, summary, sources)
        };
    let mut game_info: HashMap<(u32, u32), KvetkaGameInfo> = HashMap::with_capacity(games.len());
    for g in &games {
        let (white, black) = g.names.clone().unwrap_or_default();
        game_info.insert(
            (g.file, g.number),
            KvetkaGameInfo {
                white,
                black,
                white_elo: g.game.white_elo.unwrap_or(0),
                black_elo: g.game.black_elo.unwrap_or(0),
                result: Some(g.game.result),
            },
        );
    }
    let filter = GameFilter {
        min_white_elo: args.min_white_elo,
        min_black_elo: args.min_black_elo,
        min_stronger_elo: args.min_stronger_elo,
        min_weaker_elo: args.min_weaker_elo,
        max_move,
    };
    let (mut inputs, agg) =
        kvetka::aggregate_games(games.iter().map(|g| (g.number, &g.game)), &filter);
    let min_game = u64::from(args.min_game.unwrap_or(1));
    let before = inputs.len();
    inputs.retain(|p| {
        let pos = &p.position.position;
        p.position
            .stats
            .as_ref()
            .is_some_and(|s| s.games >= min_game)
            && !(args.only_white && pos.turn() != Color::White)
            && !(args.only_black && pos.turn() != Color::Black)
    });
    let filtered = (before - inputs.len()) as u64;
    let eco = |p: &shakmaty::Chess| eco_comment(p);
    let spec = KvetkaBookSpec {
        caption: args.caption.clone().unwrap_or_else(|| name.clone()),
        min_white_elo: args.min_white_elo,
        min_black_elo: args.min_black_elo,
        min_stronger_elo: args.min_stronger_elo,
        min_weaker_elo: args.min_weaker_elo,
        max_move,
        links: args.links,
        store_game_links: !args.no_game_links,
        write_ksf: !args.no_game_links,
        split_threshold: args.split_size.unwrap_or(kvetka::DEFAULT_SPLIT_THRESHOLD),
        sources,
        game_info,
        eco: Some(&eco),
        ..KvetkaBookSpec::default()
    };
    let w = kvetka::write_book(&dir, &name, &spec, inputs)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let unknown_results = games
        .iter()
        .filter(|g| g.game.result == GameResult::Unknown)
        .count() as u64;
    let mut report = BuildReport {
        files: w.files.clone(),
        games: summary.games,
        games_skipped: summary.skipped,
        games_used: agg.games_added,
        positions: w.elements,
        moves: w.moves_written,
        problems: summary.problems,
        ..BuildReport::default()
    };
    if args.db.is_some() || args.inputs.iter().any(|p| p.as_os_str() == "-") {
        report.files.push(kvetka_pgn_path(&dir, &name));
    }
    report.lose("positionsBelowMinGameOrOtherColour", filtered);
    report.lose("gamesBelowMinElo", agg.games_filtered);
    report.lose("gamesWithoutResult", unknown_results);
    report.lose("positionsWithoutKey", agg.positions_without_key);
    for (what, n) in w.losses() {
        report.lose(what, n);
    }
    Ok(report)
}

pub fn convert(args: ConvertArgs) -> anyhow::Result<()> {
    let book = args.book.open()?;
    let format: BookFormat = match args.format {
        Some(f) => f.into(),
        None => BookFormat::from_extension(&args.output).with_context(|| {
            format!(
                "{}: cannot tell the target format from the extension; give --format",
                args.output.display()
            )
        })?,
    };
    create_parent(&args.output)?;
    let caption = args
        .output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let eco = |p: &shakmaty::Chess| eco_comment(p);
    let opts = ConvertOptions {
        format,
        polyglot_min_game: args.min_game,
        kvetka_caption: caption,
        eco: Some(&eco),
        ..ConvertOptions::default()
    };
    let report = convert::convert(&book, &args.output, &opts).with_context(|| {
        format!(
            "cannot convert {} to {}",
            args.book.book.display(),
            args.output.display()
        )
    })?;
    if args.json {
        return print_json(&report);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} → {}: read {} positions ({} moves) of {} records; wrote {} positions, {} moves",
        book.format(),
        format,
        report.read.positions,
        report.read.moves,
        report.read.records,
        report.positions_written,
        report.moves_written
    )?;
    if report.lost.is_empty() {
        writeln!(out, "nothing lost")?;
    }
    for (k, v) in &report.lost {
        writeln!(out, "  not carried over: {k}: {v}")?;
    }
    for f in &report.files {
        writeln!(out, "  wrote {}", f.display())?;
    }
    Ok(())
}

pub fn merge(args: MergeArgs) -> anyhow::Result<()> {
    for p in [&args.first, &args.second] {
        let f =
            BookFormat::detect(p).with_context(|| format!("cannot open book {}", p.display()))?;
        if f != BookFormat::Polyglot {
            bail!(
                "{}: merge works on Polyglot books; this is a {f} book (convert it first)",
                p.display()
            );
        }
    }
    let a = PolyglotReader::open(&args.first)
        .with_context(|| format!("cannot open book {}", args.first.display()))?;
    let b = PolyglotReader::open(&args.second)
        .with_context(|| format!("cannot open book {}", args.second.display()))?;
    let merged = polyglot::merge(&a, &b);
    create_parent(&args.output)?;
    write_polyglot(&merged, &args.output)?;
    use polyglot::EntrySource;
    let v = json!({
        "first": args.first, "firstEntries": a.len(),
        "second": args.second, "secondEntries": b.len(),
        "output": args.output, "entries": merged.entries().len(),
    });
    if args.json {
        return print_json(&v);
    }
    println!(
        "merged {} ({} entries) and {} ({} entries) into {} ({} entries)",
        args.first.display(),
        a.len(),
        args.second.display(),
        b.len(),
        args.output.display(),
        merged.entries().len()
    );
    Ok(())
}
