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

/// Writes the selected games as PGN to `out`; returns how many. Every game is written; when
/// the import would not read one back ([`Copied::refuse`]), the answer is an error naming
/// them, after the others are written.
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
    pgn_copied(db, selection, canonical, notes, out)?.whole()
}

/// [`pgn_named`], saying which games were written and which the import would refuse
/// rather than failing on them (for `db merge`, which counts them with the import's).
pub(crate) fn pgn_copied(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    out: &mut dyn Write,
) -> Result<Copied> {
    with_games(db, selection, canonical, notes, &mut |games| {
        write_games_copied(games, out)
    })
}

/// [`pgn_named`] as Parquet (`docs/formats/parquet.md`): each game's id (`GameId`), the
/// Seven Tag Roster and the Lichess database's columns (`Date` a `date32`, a date that is no
/// whole day kept as text in `tags`), the other tags in a `tags` map, the movetext as PGN
/// export writes it, on one line. Imported again, the games export as the same PGN; a game
/// the import would refuse is an error naming it, as for [`pgn`].
pub fn parquet_named(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    out: &mut (dyn Write + Send),
) -> Result<u64> {
    with_games(db, selection, canonical, notes, &mut |games| {
        write_parquet_copied(games, out)
    })?
    .whole()
}

/// Games one after the other, as they are read, with their ids.
type Games<'a> = dyn Iterator<Item = Result<(u32, tabiya_pgn::Game)>> + 'a;

/// What a copy of games wrote: every game given, and those of them the import would refuse
/// (`tabiya_pgn::refusal::text_refusal`: a tag line or the game past the bounds the import
/// keeps — a game stored before the bounds existed, a canonical name or a note too long),
/// which are lost to any database made from the copy.
#[derive(Debug, Default)]
pub(crate) struct Copied {
    /// The games written, in order.
    pub ids: Vec<u32>,
    /// The games the import would refuse, and why.
    pub unreadable: Vec<(u32, String)>,
}

impl Copied {
    fn check(&mut self, id: u32, text: &[u8]) {
        self.ids.push(id);
        if let Some(why) = tabiya_pgn::refusal::text_refusal(text) {
            self.unreadable.push((id, why));
        }
    }

    /// How many were written; an error naming the games the import would refuse, if any.
    pub fn whole(self) -> Result<u64> {
        if self.unreadable.is_empty() {
            return Ok(self.ids.len() as u64);
        }
        Err(Error::new(
            ErrorKind::BadRequest,
            format!(
                "{} of the {} games written would be refused by an import, so a database made from this copy would lack them: {}. Each is in the output all the same; mend it (`tabiya edit --game ID --set TAG=shorter` or `--unset TAG`) and copy again",
                self.unreadable.len(),
                self.ids.len(),
                list_games(&self.unreadable)
            ),
        ))
    }
}

/// Games and why, for a message: `game 7 (…); game 9 (…)`, the first 20 of them.
pub(crate) fn list_games(games: &[(u32, String)]) -> String {
    let mut s: Vec<String> = games
        .iter()
        .take(20)
        .map(|(id, why)| format!("game {id} ({why})"))
        .collect();
    if games.len() > 20 {
        s.push(format!("and {} more", games.len() - 20));
    }
    s.join("; ")
}

/// Calls `write` with the selected games, as [`pgn_named`] describes them; checks that it
/// wrote every one.
fn with_games(
    db: &Db,
    selection: &Selection,
    canonical: bool,
    notes: bool,
    write: &mut dyn FnMut(&mut Games<'_>) -> Result<Copied>,
) -> Result<Copied> {
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
    let copied = write(&mut ids.iter().map(|&id| {
        let mut g = snap
            .chess_game(id)?
            .ok_or_else(|| Error::not_found(format!("no game {id} in {}", db.dir().display())))?;
        if let Some(n) = &names {
            n.apply(&mut g, snap.facts(id)?.date);
        }
        crate::notes::annotate(&mut g, &notes);
        Ok((id, g))
    }))?;
    if copied.ids != ids {
        let missing: Vec<u32> = ids
            .iter()
            .filter(|id| !copied.ids.contains(id))
            .copied()
            .take(20)
            .collect();
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "{} games selected, {} written: games {missing:?} are missing",
                ids.len(),
                copied.ids.len()
            ),
        ));
    }
    Ok(copied)
}

/// Writes games as PGN to `out`, one after the other; returns how many (an error naming
/// the games the import would refuse, see [`Copied::whole`]).
pub(crate) fn write_games(
    games: impl Iterator<Item = Result<(u32, tabiya_pgn::Game)>>,
    out: &mut dyn Write,
) -> Result<u64> {
    write_games_copied(games, out)?.whole()
}

fn write_games_copied(
    games: impl Iterator<Item = Result<(u32, tabiya_pgn::Game)>>,
    out: &mut dyn Write,
) -> Result<Copied> {
    let mut text = String::new();
    let mut copied = Copied::default();
    for g in games {
        let (id, g) = g?;
        text.clear();
        tabiya_pgn::write_game(&g, &mut text);
        out.write_all(text.as_bytes())
            .context(ErrorKind::Io, || "cannot write the games".to_string())?;
        copied.check(id, text.as_bytes());
    }
    out.flush()
        .context(ErrorKind::Io, || "cannot write the games".to_string())?;
    Ok(copied)
}

/// Writes games as one Parquet file to `out`; returns how many (an error naming the games
/// the import would refuse, see [`Copied::whole`]: a row is read as the PGN text of its game).
pub(crate) fn write_parquet(
    games: impl Iterator<Item = Result<(u32, tabiya_pgn::Game)>>,
    out: &mut (dyn Write + Send),
) -> Result<u64> {
    write_parquet_copied(games, out)?.whole()
}

fn write_parquet_copied(
    games: impl Iterator<Item = Result<(u32, tabiya_pgn::Game)>>,
    out: &mut (dyn Write + Send),
) -> Result<Copied> {
    let failed = || "cannot write the games as Parquet".to_string();
    let mut w = tabiya_parquet::GameWriter::new(&mut *out).context(ErrorKind::Io, failed)?;
    let mut copied = Copied::default();
    let mut text = String::new();
    for g in games {
        let (id, g) = g?;
        w.write(id, &g).context(ErrorKind::Io, failed)?;
        text.clear();
        tabiya_pgn::write_game(&g, &mut text);
        copied.check(id, text.as_bytes());
    }
    let (n, _) = w.finish().context(ErrorKind::Io, failed)?;
    out.flush().context(ErrorKind::Io, failed)?;
    if n != copied.ids.len() as u64 {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "{} games given, {n} rows written: the Parquet file lacks games",
                copied.ids.len()
            ),
        ));
    }
    Ok(copied)
}

/// The game a set or a database names `id` (`MEMBER:ID` in a set, see
/// [`crate::dbset::ids`]) as PGN text.
pub fn game_pgn_named(db: &Db, id: &str) -> Result<String> {
    let (m, n) = crate::dbset::ids::parse(db, id)?;
    game_pgn(&db.member(m), n)
}

/// One chess game as PGN text (to show: a game the import would refuse is shown all the
/// same, so that it can be seen and mended).
pub fn game_pgn(db: &Db, id: u32) -> Result<String> {
    let mut out = Vec::new();
    pgn_copied(db, &Selection::Game(id), false, false, &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Writes an Othello database back as WTHOR files in `dir`: `WTH_<year>.wtb` per year,
/// `WTHOR.JOU`, `WTHOR.TRN` (byte-identical to the files it was imported from).
pub fn wthor(db: &Db, dir: &Path) -> Result<WthorExport> {
    Ok(db.inner()?.export_wthor(dir)?)
}
