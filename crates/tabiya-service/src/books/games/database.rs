//! The games of a Tabiya database, for a book.

use std::io::{BufWriter, Write};
use std::path::Path;

use tabiya_books::{GameResult, SourceRef};

use super::reader::from_game;
use super::{InputGame, ReadSummary};
use crate::error::{Context, Error, ErrorKind, Result};

/// A database error passed on as it is (its message and causes), with its kind.
fn db_error(e: tabiya_db::Error) -> Error {
    Error::from(e)
}

/// Games of a Tabiya database, in id order, with the database's results, ratings and
/// years (only a gameset's when given). With `export`, every game's PGN text is also written to that file and each game's
/// `source` points into it (source file 0).
pub(crate) fn read_database(
    dir: &Path,
    export: Option<&Path>,
    names: bool,
    gameset: Option<&str>,
) -> Result<(Vec<InputGame>, ReadSummary)> {
    let db = tabiya_db::Database::open(dir).map_err(|e| {
        let kind = crate::error::kind_of_db_error(&e);
        Error::new(kind, format!("cannot open database {}", dir.display())).caused_by(e)
    })?;
    if db.kind() != tabiya_db::Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: books are built from chess games",
            dir.display()
        )));
    }
    let snap = db.snapshot().map_err(db_error)?;
    let ids: Vec<u32> = match gameset {
        Some(name) => snap.gameset(name).map_err(db_error)?.1.iter().collect(),
        None => snap.all_game_ids().map_err(db_error)?,
    };
    let mut out = Vec::with_capacity(ids.len());
    let mut summary = ReadSummary::default();
    let mut writer = match export {
        Some(p) => {
            let f = std::fs::File::create(p)
                .context(ErrorKind::Io, || format!("cannot create {}", p.display()))?;
            Some((BufWriter::new(f), p))
        }
        None => None,
    };
    let mut offset = 0u64;
    for (number, id) in ids.into_iter().enumerate() {
        summary.games += 1;
        let Some(game) = snap.chess_game(id).map_err(db_error)? else {
            summary.skipped += 1;
            continue;
        };
        // As from PGN: a game with a side passing is not a game of chess for a book.
        if !game.after_null.is_empty() {
            summary.skipped += 1;
            continue;
        }
        let facts = snap.facts(id).map_err(db_error)?;
        let mut g = from_game(&game, names);
        g.game.result = match facts.outcome() {
            tabiya_db::GameOutcome::FirstWins => GameResult::WhiteWins,
            tabiya_db::GameOutcome::SecondWins => GameResult::BlackWins,
            tabiya_db::GameOutcome::Draw => GameResult::Draw,
            tabiya_db::GameOutcome::Unknown => GameResult::Unknown,
        };
        g.game.white_elo = facts.ratings[0];
        g.game.black_elo = facts.ratings[1];
        g.game.year = facts.year;
        g.number = number as u32;
        if let Some((w, path)) = writer.as_mut() {
            let text = tabiya_pgn::game_to_string(&game);
            let text = text.trim_end();
            let cannot_write = || format!("cannot write {}", path.display());
            w.write_all(text.as_bytes())
                .context(ErrorKind::Io, cannot_write)?;
            w.write_all(b"\n\n").context(ErrorKind::Io, cannot_write)?;
            g.game.source = Some(SourceRef {
                file: 0,
                offset,
                length: text.len() as u64,
            });
            offset += text.len() as u64 + 2;
        }
        out.push(g);
    }
    if let Some((mut w, path)) = writer {
        w.flush()
            .context(ErrorKind::Io, || format!("cannot write {}", path.display()))?;
    }
    Ok((out, summary))
}
