//! Games back out: chess games as PGN (tags, moves, variations, comments, NAGs), an Othello
//! database as WTHOR files.

use std::io::Write;
use std::path::Path;

pub use tabiya_db::othello::{ExportedFile, WthorExport};

use crate::database::{Db, Kind};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::games::GameSort;
use crate::position::ChessPosition;

/// Which chess games to export.
#[derive(Debug, Clone)]
pub enum Selection {
    /// One game by id.
    Game(u32),
    /// Every game reaching a position, in id order.
    Position(Box<ChessPosition>),
    /// Every game, in id order.
    All,
    /// A gameset's games, in id order.
    Gameset(String),
    /// The games meeting criteria (`docs/gamesets.md`), in id order.
    Where(String),
}

/// The ids of the selected chess games, in id order (a game that is not there is an error).
pub fn game_ids(db: &Db, selection: &Selection) -> Result<Vec<u32>> {
    if db.kind() != Kind::Chess {
        return Err(Error::bad_request(format!(
            "{} is an Othello database: its games are exported as WTHOR files",
            db.dir().display()
        )));
    }
    let snap = db.inner.snapshot()?;
    Ok(match selection {
        Selection::Game(id) => {
            if snap.game_record(*id)?.is_none() {
                return Err(Error::not_found(format!(
                    "no game {id} in {}",
                    db.dir().display()
                )));
            }
            vec![*id]
        }
        Selection::Position(at) => {
            let (_, page) = snap.chess_position_games(&at.pos, GameSort::Id, 0, usize::MAX)?;
            page.into_iter().map(|(id, _)| id).collect()
        }
        Selection::All => snap.all_game_ids()?,
        Selection::Gameset(name) => snap.gameset(name)?.1.iter().collect(),
        Selection::Where(c) => snap.games_where(c)?.iter().collect(),
    })
}

/// Writes the selected games as PGN to `out`; returns how many.
pub fn pgn(db: &Db, selection: &Selection, out: &mut dyn Write) -> Result<u64> {
    pgn_named(db, selection, false, false, out)
}

/// [`pgn`], with the players, events, sites and annotators under their entries' names when
/// `canonical` (`tabiya names list`), else as each game wrote them; and with the positions'
/// notes as comments when `notes` (at the first move reaching each noted position).
pub fn pgn_named(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    out: &mut dyn Write,
) -> Result<u64> {
    let ids = game_ids(db, selection)?;
    let snap = db.inner.snapshot()?;
    let names = if canonical {
        Some(crate::entries::CanonicalNames::new(&snap)?)
    } else {
        None
    };
    let notes = if notes {
        crate::notes::all(&snap)?
    } else {
        Default::default()
    };
    write_games(
        ids.iter().map(|&id| {
            let mut g = snap.chess_game(id)?.ok_or_else(|| {
                Error::not_found(format!("no game {id} in {}", db.dir().display()))
            })?;
            if let Some(n) = &names {
                n.apply(&mut g, snap.facts(id)?.date);
            }
            crate::notes::annotate(&mut g, &notes);
            Ok(g)
        }),
        out,
    )
}

/// Writes games as PGN to `out`, one after the other; returns how many.
pub(crate) fn write_games(
    games: impl Iterator<Item = Result<tabiya_pgn::Game>>,
    out: &mut dyn Write,
) -> Result<u64> {
    let mut text = String::new();
    let mut n = 0;
    for g in games {
        text.clear();
        tabiya_pgn::write_game(&g?, &mut text);
        out.write_all(text.as_bytes())
            .context(ErrorKind::Io, || "cannot write the games".to_string())?;
        n += 1;
    }
    out.flush()
        .context(ErrorKind::Io, || "cannot write the games".to_string())?;
    Ok(n)
}

/// One chess game as PGN text.
pub fn game_pgn(db: &Db, id: u32) -> Result<String> {
    let mut out = Vec::new();
    pgn(db, &Selection::Game(id), &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Writes an Othello database back as WTHOR files in `dir`: `WTH_<year>.wtb` per year,
/// `WTHOR.JOU`, `WTHOR.TRN` (byte-identical to the files it was imported from).
pub fn wthor(db: &Db, dir: &Path) -> Result<WthorExport> {
    Ok(db.inner.export_wthor(dir)?)
}
