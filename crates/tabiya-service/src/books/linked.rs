//! The games a Kvetka book links to a position (`.ksf` sources), with their PGN text.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_books::convert::AnyBook;
use tabiya_books::kvetka::{EcoComment, GameLink};
use tabiya_pgn::input::Compression;

use super::open::{BookFile, missing_or, open};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::position::ChessPosition;

/// The games a Kvetka book links to a position. Field order: alphabetical, as the
/// `serde_json::Value` the command printed before had them.
#[derive(Debug, Clone, Serialize)]
pub struct LinkedGames {
    /// The element's ECO comment, when it has one.
    pub eco: Option<EcoJson>,
    pub fen: String,
    pub games: Vec<LinkedGame>,
}

/// An ECO comment: `B33|Sicilian Defense|Pelikan Variation`.
#[derive(Debug, Clone, Serialize)]
pub struct EcoJson {
    pub eco: String,
    pub name: String,
    pub variation: Option<String>,
}

/// One linked game with its text.
#[derive(Debug, Clone, Serialize)]
pub struct LinkedGame {
    pub black: String,
    pub game: u32,
    /// `someGame` (the element's game) or `lastGame` (a game that ends there).
    pub kind: &'static str,
    pub length: u64,
    pub offset: u64,
    pub path: Option<PathBuf>,
    pub pgn: String,
    pub result: &'static str,
    pub source: u16,
    pub white: String,
}

/// A game link of an element, as dumps list them.
#[derive(Debug, Clone, Serialize)]
pub struct GameLinkJson {
    pub game: u32,
    pub kind: &'static str,
    pub source: u16,
}

/// An element's game links: its game first, then the games that end there (each once).
pub(crate) fn kvetka_links(
    some: &Option<GameLink>,
    last: Option<&[GameLink]>,
) -> Vec<(&'static str, GameLink)> {
    let mut v: Vec<(&'static str, GameLink)> = Vec::new();
    if let Some(g) = some {
        v.push(("someGame", *g));
    }
    for g in last.unwrap_or(&[]) {
        if !v.iter().any(|(_, x)| x == g) {
            v.push(("lastGame", *g));
        }
    }
    v
}

/// `book game`: the games a Kvetka book links to a position (`fen`/`play` as for a probe),
/// or only the `index`-th of them (from 0, in the order they are listed).
pub fn linked_games(
    book: &BookFile,
    fen: Option<&str>,
    play: Option<&str>,
    index: Option<usize>,
) -> Result<LinkedGames> {
    let b = open(book)?;
    let name = book.name();
    let AnyBook::Kvetka(b) = &b else {
        return Err(Error::bad_request(format!(
            "{name}: `book game` needs a Kvetka book (.kob with its .ksf); {} books do not link games",
            b.format()
        )));
    };
    let r = ChessPosition::resolve(fen, play)?;
    let d = b
        .probe_detail(&r.pos)
        .context(ErrorKind::BadInput, || format!("cannot probe {name}"))?;
    let Some(e) = d.element else {
        return Err(Error::not_found(format!(
            "{name}: position not in the book: {}",
            r.fen
        )));
    };
    let links = kvetka_links(&e.raw.some_game, e.raw.last_games.as_deref());
    if links.is_empty() {
        return Err(Error::not_found(format!(
            "{name}: the book links no game to {}",
            r.fen
        )));
    }
    let chosen: Vec<(&'static str, GameLink)> = match index {
        Some(i) => vec![*links.get(i).ok_or_else(|| {
            Error::bad_request(format!(
                "--index {i}: the position has {} linked game(s)",
                links.len()
            ))
        })?],
        None => links,
    };
    let mut games = Vec::new();
    for (kind, link) in chosen {
        let src = b.game_source(link).context(ErrorKind::BadInput, || {
            format!("{name}: game {}:{}", link.source, link.game)
        })?;
        let Some(path) = src.path.clone() else {
            return Err(Error::bad_input(format!(
                "{name}: source {} is not a file ({:?}, type {})",
                link.source, src.address, src.source_type
            )));
        };
        let pgn = read_source(&path, src.offset, src.length)?;
        games.push(LinkedGame {
            kind,
            source: link.source,
            game: link.game,
            path: Some(path),
            offset: src.offset,
            length: src.length,
            white: src.game.white.clone(),
            black: src.game.black.clone(),
            result: match src.game.result {
                0 => "0-1",
                1 => "1-0",
                2 => "1/2-1/2",
                _ => "*",
            },
            pgn,
        });
    }
    Ok(LinkedGames {
        eco: e
            .raw
            .comment
            .as_deref()
            .and_then(EcoComment::parse)
            .map(|c| EcoJson {
                eco: c.eco,
                name: c.name,
                variation: c.variation,
            }),
        fen: r.fen,
        games,
    })
}

/// Reads `length` bytes at `offset` of a source file as read (decompressed for `.zst`,
/// `.gz`, `.bz2`). The file, named by the book, is a regular file only (never waited on as
/// a FIFO); the length the book gives is held to what a game may be
/// ([`tabiya_pgn::MAX_GAME_BYTES`]) and, for a plain file, to the file's own size, and the
/// bytes are read before they are kept: a damaged book allocates nothing by its word.
fn read_source(path: &Path, offset: u64, length: u64) -> Result<String> {
    let cannot_read = || format!("cannot read game source {}", path.display());
    let (mut file, size) = tabiya_files::open_regular(path)
        .map_err(|e| Error::new(missing_or(&e, ErrorKind::BadInput), cannot_read()).caused_by(e))?;
    let max = tabiya_pgn::MAX_GAME_BYTES as u64;
    if length > max {
        return Err(Error::bad_input(format!(
            "{}: the book gives a game of {length} bytes at byte offset {offset}, more than the {} a game may hold",
            path.display(),
            crate::inputs::size_text(max)
        )));
    }
    let sniffed = file
        .try_clone()
        .map_err(|e| Error::new(ErrorKind::Io, cannot_read()).caused_by(e))?;
    let input =
        tabiya_pgn::input::from_reader(path.display().to_string(), Some(size), Box::new(sniffed))
            .map_err(|e| Error::new(ErrorKind::BadInput, cannot_read()).caused_by(e))?;
    let mut buf = Vec::new();
    let (read, what) = if input.compression == Compression::None {
        if offset.checked_add(length).is_none_or(|end| end > size) {
            return Err(Error::bad_input(format!(
                "{}: no game of {length} bytes at byte offset {offset}: the file has {size} bytes",
                path.display()
            )));
        }
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| Error::transparent(ErrorKind::Io, e))?;
        (file.take(length).read_to_end(&mut buf), "")
    } else {
        let mut r = input.reader;
        std::io::copy(&mut (&mut r).take(offset), &mut std::io::sink())
            .map_err(|e| Error::transparent(ErrorKind::BadInput, e))?;
        (r.take(length).read_to_end(&mut buf), " (decompressed)")
    };
    let no_game = || {
        format!(
            "{}: no game of {length} bytes at byte offset {offset}{what}",
            path.display()
        )
    };
    read.context(ErrorKind::BadInput, no_game)?;
    if (buf.len() as u64) < length {
        return Err(Error::bad_input(format!(
            "{}: only {} bytes there",
            no_game(),
            buf.len()
        )));
    }
    Ok(tabiya_pgn::san::decode_text(&buf).into_owned())
}
