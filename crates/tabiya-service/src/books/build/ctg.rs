//! A CTG book from games: the positions and moves with their statistics.

use tabiya_books::aggregate::{AggregateOptions, PerformanceSide, aggregate_with_report};
use tabiya_books::ctg::{self, CtgWriteOptions};

use super::{BuildOptions, BuildReport, with_games};
use crate::error::{Context, ErrorKind, Result};

pub(super) fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let ao = AggregateOptions {
        min_games: u64::from(opts.min_game.unwrap_or(1)),
        max_ply: opts.max_ply.unwrap_or(u32::MAX),
        only_white: opts.only_white,
        only_black: opts.only_black,
        include_non_standard_start: true,
        keep_leaves: true,
        performance_side: PerformanceSide::LastMover,
    };
    let ((positions, agg), summary) = with_games(opts, false, None, |games| {
        aggregate_with_report(games.map(|g| g.game), &ao)
    })?;
    let name = ctg::book_stem(&opts.output)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let w = ctg::write_book(
        &opts.output,
        positions,
        &CtgWriteOptions {
            games: Some(agg.games_used.min(u64::from(u32::MAX)) as u32),
            name,
            ..CtgWriteOptions::default()
        },
    )
    .context(ErrorKind::Io, || {
        format!("cannot write {}", opts.output.display())
    })?;
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
