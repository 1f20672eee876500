//! A Polyglot book from games, byte-identical to `polyglot make-book`.

use tabiya_books::convert::write_polyglot;
use tabiya_books::polyglot::{self as pg, PolyglotBuildOptions};

use super::{BuildOptions, BuildReport, with_games};
use crate::books::games::count_for_polyglot;
use crate::books::open::book_error_kind;
use crate::error::{Error, Result};

pub(super) fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let po = PolyglotBuildOptions {
        max_ply: opts.max_ply.unwrap_or(1024),
        min_game: opts.min_game.unwrap_or(3),
        min_score: 0.0,
        only_white: opts.only_white,
        only_black: opts.only_black,
        uniform: opts.uniform,
    };
    // PGN games come counted by the parse workers; a database's are counted here.
    let ((book, r), summary) = with_games(opts, false, Some(po.max_ply), |games| {
        pg::build_counted(
            games.map(|mut g| match g.counted.take() {
                Some(c) => c,
                None => count_for_polyglot(&mut g, po.max_ply),
            }),
            &po,
        )
    })?;
    write_polyglot(&book, &opts.output).map_err(|e| Error::transparent(book_error_kind(&e), e))?;
    let mut keys = 0u64;
    let mut last = None;
    for e in book.entries() {
        if last != Some(e.key) {
            keys += 1;
            last = Some(e.key);
        }
    }
    Ok(BuildReport {
        files: vec![opts.output.clone()],
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
