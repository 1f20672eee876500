//! Where a read command's answers come from: the database opened here, or — while a
//! `tabiya serve` holds it — that server, asked the same question (`tabiya_service::reads`).

use tabiya_service::Db;
use tabiya_service::reads::{At, Source};

use crate::args::{DbArg, DbSetArg, PositionArg};

/// The database of `--db`, or the server that holds it.
pub fn open(arg: &DbArg) -> anyhow::Result<Source> {
    Ok(Source::open(&arg.dir())?)
}

/// The database of `--db`, the server that holds it, or several databases as one set
/// (opened here: a set's members cannot be asked through their servers).
pub fn open_set(arg: &DbSetArg) -> anyhow::Result<Source> {
    if arg.dbs.len() <= 1 {
        return Ok(Source::open(&arg.dir())?);
    }
    Ok(Source::Local(Db::open_set(&arg.dbs)?))
}

/// The position of `--fen`/`--play` as a question carries it.
pub fn at(p: &PositionArg) -> At {
    At {
        fen: p.fen.clone(),
        play: p.play.clone(),
    }
}
