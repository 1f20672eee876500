//! Read commands on a database that a server holds.
//!
//! A database is opened by one process at a time. While `tabiya serve` holds one, the read
//! commands (`explore`, `games`, `export`, `stats`, `names …`, `search`, `gameset list|show|
//! games|export`, `note show`, `novelty`, `prepare`, `duplicates`, `cards show|stats`) still
//! answer: each
//! question is a [`Read`] — its arguments, a name, and the library function that answers it
//! — and a [`Source`] answers it either from the database opened here or, when a server
//! holds the database, by sending it to that server with the server's secret
//! (`POST /api/admin/read`, see [`answer`]). The server calls the same function on the
//! handle it serves from and sends the typed answer back, so the command prints the same
//! text and the same JSON either way. Nothing the user names as a file (a book, a
//! repertoire, an output file) goes to the server: the command reads and writes those
//! itself, around the answer.

pub mod calls;
pub mod export;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::database::Db;
use crate::error::{Error, ErrorKind, Result};
use crate::handover::HandOff;

pub use calls::*;

/// The path a server takes read questions on (with its secret, as `Authorization: Bearer`).
pub const READ_PATH: &str = "/api/admin/read";

/// One read question: its arguments (sent as JSON), its name (how a server tells which it
/// is), and the function that answers it.
pub trait Read: Serialize + DeserializeOwned {
    /// The question's name on the wire.
    const NAME: &'static str;
    /// The answer, as `--json` prints it and as it travels back.
    type Answer: Serialize + DeserializeOwned;
    /// The answer from a database opened in this process.
    fn answer(&self, db: &Db) -> Result<Self::Answer>;
}

/// Where a read command's answers come from.
pub enum Source {
    /// The database, opened by this process.
    Local(Db),
    /// The server that holds the database.
    Served(HandOff),
}

impl Source {
    /// Opens the database in `dir` to read it; when a server holds it, the server answers.
    pub fn open(dir: &std::path::Path) -> Result<Source> {
        match Db::open(dir) {
            Ok(db) => Ok(Source::Local(db)),
            Err(e) if e.kind() == ErrorKind::InUse => match HandOff::find(dir) {
                Some(server) => Ok(Source::Served(server)),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// The answer to `question`, from the database or from the server that holds it.
    pub fn ask<R: Read>(&self, question: &R) -> Result<R::Answer> {
        match self {
            Source::Local(db) => question.answer(db),
            Source::Served(server) => {
                let body = serde_json::to_vec(question)?;
                let bytes = crate::handover::hand_over_read(server, R::NAME, body)?;
                serde_json::from_slice(&bytes).map_err(|e| {
                    Error::new(
                        ErrorKind::Io,
                        format!(
                            "the server at {} answered {} in a form this command does not read ({e}): is it an older or newer tabiya?",
                            server.url(),
                            R::NAME
                        ),
                    )
                })
            }
        }
    }

    /// What the database holds.
    pub fn kind(&self) -> Result<crate::Kind> {
        match self {
            Source::Local(db) => Ok(db.kind()),
            Source::Served(_) => self.ask(&KindOf {}),
        }
    }

    /// The server answering, when one does.
    pub fn server(&self) -> Option<&HandOff> {
        match self {
            Source::Local(_) => None,
            Source::Served(s) => Some(s),
        }
    }
}

/// A server's side: the answer to the question named `name` with arguments `body` (JSON),
/// as JSON. An unknown name or arguments that do not read are a bad request.
pub fn answer(db: &Db, name: &str, body: &[u8]) -> Result<Vec<u8>> {
    fn run<R: Read>(db: &Db, body: &[u8]) -> Result<Vec<u8>> {
        let question: R = serde_json::from_slice(body).map_err(|e| {
            Error::bad_request(format!("the arguments of {} do not read: {e}", R::NAME))
        })?;
        Ok(serde_json::to_vec(&question.answer(db)?)?)
    }
    match name {
        KindOf::NAME => run::<KindOf>(db, body),
        Explore::NAME => run::<Explore>(db, body),
        Years::NAME => run::<Years>(db, body),
        Routes::NAME => run::<Routes>(db, body),
        LaterStructures::NAME => run::<LaterStructures>(db, body),
        OthelloExplore::NAME => run::<OthelloExplore>(db, body),
        ChessGames::NAME => run::<ChessGames>(db, body),
        ChessGamesNovelties::NAME => run::<ChessGamesNovelties>(db, body),
        OthelloGames::NAME => run::<OthelloGames>(db, body),
        Stats::NAME => run::<Stats>(db, body),
        NamesSearch::NAME => run::<NamesSearch>(db, body),
        PlayerCard::NAME => run::<PlayerCard>(db, body),
        NameEntries::NAME => run::<NameEntries>(db, body),
        AmbiguousNames::NAME => run::<AmbiguousNames>(db, body),
        Search::NAME => run::<Search>(db, body),
        GamesetList::NAME => run::<GamesetList>(db, body),
        GamesetShow::NAME => run::<GamesetShow>(db, body),
        GamesetGames::NAME => run::<GamesetGames>(db, body),
        NoteShow::NAME => run::<NoteShow>(db, body),
        Novelties::NAME => run::<Novelties>(db, body),
        Prepare::NAME => run::<Prepare>(db, body),
        Duplicates::NAME => run::<Duplicates>(db, body),
        CardShow::NAME => run::<CardShow>(db, body),
        CardStats::NAME => run::<CardStats>(db, body),
        _ => Err(Error::bad_request(format!(
            "{name:?} is not a question this server answers (an older or newer tabiya?)"
        ))),
    }
}
