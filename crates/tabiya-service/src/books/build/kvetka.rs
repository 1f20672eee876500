//! A Kvetka book from games: positions with their statistics, ECO comments, and links to
//! the games (`.ksf`), whose text stays in the PGN files (or in `dir/name.pgn`, written next
//! to the book, for standard input or a database).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Color, Position};
use tabiya_books::GameResult;
use tabiya_books::convert::kvetka_target;
use tabiya_books::kvetka::{self, GameFilter, KvetkaBookSpec, KvetkaGameInfo, KvetkaSource};

use super::{BuildOptions, BuildReport, threads};
use crate::books::eco::eco_comment;
use crate::books::games::{self, InputGame, ReadOptions, ReadSummary};
use crate::books::paths::{absolute, create_dir};
use crate::error::{Context, Error, ErrorKind, Result};

/// Where the `.ksf` of a Kvetka book built from standard input or a database points: the
/// games are written to `dir/name.pgn` next to the book.
fn kvetka_pgn_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.pgn"))
}

/// A PGN file as a `.ksf` source.
fn pgn_source(p: &Path) -> KvetkaSource {
    KvetkaSource {
        address: absolute(p).display().to_string(),
        source_type: 1,
        is_bad: false,
    }
}

/// The header's `max_move`: one byte, 0xFF for whole games.
fn max_move(max_ply: Option<u32>) -> Result<u8> {
    match max_ply {
        None => Ok(0xFF),
        Some(n) if n < 255 => Ok(n as u8),
        Some(n) => Err(Error::bad_request(format!(
            "--max-ply {n}: Kvetka's max_move is one byte (at most 254; leave it out for whole games)"
        ))),
    }
}

/// The games, what reading them found, and the files they are in.
struct Gathered {
    games: Vec<InputGame>,
    summary: ReadSummary,
    sources: Vec<KvetkaSource>,
}

/// The games of the database, exported to `dir/name.pgn` for the links.
fn gather_from_database(
    db: &Path,
    gameset: Option<&str>,
    dir: &Path,
    name: &str,
) -> Result<Gathered> {
    let pgn = kvetka_pgn_path(dir, name);
    let (games, summary) = games::read_database(db, Some(&pgn), true, gameset)?;
    Ok(Gathered {
        games,
        summary,
        sources: vec![pgn_source(&pgn)],
    })
}

/// The games of the PGN inputs. Standard input has no file to point to: it is copied to
/// `dir/name.pgn` first.
fn gather_from_pgn(opts: &BuildOptions, dir: &Path, name: &str) -> Result<Gathered> {
    let mut inputs = opts.inputs.clone();
    for p in inputs.iter_mut() {
        if p.as_os_str() == "-" {
            let copy = kvetka_pgn_path(dir, name);
            let mut input = tabiya_pgn::input::open(p)
                .map_err(|e| Error::transparent(ErrorKind::BadInput, e))?;
            let mut f = std::fs::File::create(&copy).context(ErrorKind::Io, || {
                format!("cannot create {}", copy.display())
            })?;
            std::io::copy(&mut input.reader, &mut f)
                .context(ErrorKind::Io, || format!("cannot write {}", copy.display()))?;
            *p = copy;
        }
    }
    let mut stream = games::read_pgn(
        &inputs,
        ReadOptions {
            threads: threads(opts),
            names: true,
            polyglot_max_ply: None,
        },
    )?;
    let games: Vec<InputGame> = stream.by_ref().collect();
    let summary = stream.summary().clone();
    summary.finish()?;
    Ok(Gathered {
        games,
        summary,
        sources: inputs.iter().map(|p| pgn_source(p)).collect(),
    })
}

/// What the `.ksf` says of each game, by (source, game number).
fn game_info(games: &[InputGame]) -> HashMap<(u32, u32), KvetkaGameInfo> {
    let mut info = HashMap::with_capacity(games.len());
    for g in games {
        let (white, black) = g.names.clone().unwrap_or_default();
        info.insert(
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
    info
}

pub(super) fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let k = &opts.kvetka;
    let (dir, name) =
        kvetka_target(&opts.output).map_err(|e| Error::transparent(ErrorKind::BadRequest, e))?;
    create_dir(&dir)?;
    let max_move = max_move(opts.max_ply)?;
    let Gathered {
        games,
        summary,
        sources,
    } = match &opts.db {
        Some(db) => gather_from_database(db, opts.gameset.as_deref(), &dir, &name)?,
        None => gather_from_pgn(opts, &dir, &name)?,
    };
    let filter = GameFilter {
        min_white_elo: k.min_white_elo,
        min_black_elo: k.min_black_elo,
        min_stronger_elo: k.min_stronger_elo,
        min_weaker_elo: k.min_weaker_elo,
        max_move,
    };
    let (mut positions, agg) =
        kvetka::aggregate_games(games.iter().map(|g| (g.number, &g.game)), &filter);
    // Positions seen in too few games, or with the other colour to move, are left out.
    let min_game = u64::from(opts.min_game.unwrap_or(1));
    let before = positions.len();
    positions.retain(|p| {
        let pos = &p.position.position;
        p.position
            .stats
            .as_ref()
            .is_some_and(|s| s.games >= min_game)
            && !(opts.only_white && pos.turn() != Color::White)
            && !(opts.only_black && pos.turn() != Color::Black)
    });
    let filtered = (before - positions.len()) as u64;
    let eco = |p: &Chess| eco_comment(p);
    let spec = KvetkaBookSpec {
        caption: k.caption.clone().unwrap_or_else(|| name.clone()),
        min_white_elo: k.min_white_elo,
        min_black_elo: k.min_black_elo,
        min_stronger_elo: k.min_stronger_elo,
        min_weaker_elo: k.min_weaker_elo,
        max_move,
        links: k.links,
        store_game_links: !k.no_game_links,
        write_ksf: !k.no_game_links,
        split_threshold: k.split_size.unwrap_or(kvetka::DEFAULT_SPLIT_THRESHOLD),
        sources,
        game_info: game_info(&games),
        eco: Some(&eco),
        ..KvetkaBookSpec::default()
    };
    let w = kvetka::write_book(&dir, &name, &spec, positions).context(ErrorKind::Io, || {
        format!("cannot write {}", opts.output.display())
    })?;
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
    if opts.db.is_some() || opts.inputs.iter().any(|p| p.as_os_str() == "-") {
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
