//! Games back out: chess games as PGN (tags, moves, variations, comments, NAGs) or as
//! Parquet (the same, a row a game), an Othello database as WTHOR files.

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
    let snap = db.inner()?.snapshot()?;
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
    with_games(db, selection, canonical, notes, &mut |games| {
        write_games(games, out)
    })
}

/// [`pgn_named`] as Parquet (`docs/formats/parquet.md`): the Seven Tag Roster and the Lichess
/// database's columns, the other tags in a `tags` map, the movetext as PGN export writes
/// it. Imported again, the games export as the same PGN.
pub fn parquet_named(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    out: &mut (dyn Write + Send),
) -> Result<u64> {
    with_games(db, selection, canonical, notes, &mut |games| {
        write_parquet(games, out)
    })
}

/// Games one after the other, as they are read.
type Games<'a> = dyn Iterator<Item = Result<tabiya_pgn::Game>> + 'a;

/// Calls `write` with the selected games, as [`pgn_named`] describes them.
fn with_games(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    write: &mut dyn FnMut(&mut Games<'_>) -> Result<u64>,
) -> Result<u64> {
    let ids = game_ids(db, selection)?;
    let snap = db.inner()?.snapshot()?;
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
    write(&mut ids.iter().map(|&id| {
        let mut g = snap
            .chess_game(id)?
            .ok_or_else(|| Error::not_found(format!("no game {id} in {}", db.dir().display())))?;
        if let Some(n) = &names {
            n.apply(&mut g, snap.facts(id)?.date);
        }
        crate::notes::annotate(&mut g, &notes);
        Ok(g)
    }))
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

/// Writes games as one Parquet file to `out`; returns how many.
pub(crate) fn write_parquet(
    games: impl Iterator<Item = Result<tabiya_pgn::Game>>,
    out: &mut (dyn Write + Send),
) -> Result<u64> {
    let failed = || "cannot write the games as Parquet".to_string();
    let mut w = tabiya_parquet::GameWriter::new(&mut *out).context(ErrorKind::Io, failed)?;
    for g in games {
        w.write(&g?).context(ErrorKind::Io, failed)?;
    }
    let (n, _) = w.finish().context(ErrorKind::Io, failed)?;
    out.flush().context(ErrorKind::Io, failed)?;
    Ok(n)
}

/// The game a set or a database names `id` (`MEMBER:ID` in a set, see
/// [`crate::dbset::ids`]) as PGN text.
pub fn game_pgn_named(db: &Db, id: &str) -> Result<String> {
    let (m, n) = crate::dbset::ids::parse(db, id)?;
    game_pgn(&db.member(m), n)
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
    Ok(db.inner()?.export_wthor(dir)?)
}
