//! Every element of a Kvetka book: as Kvetka's text dump (streamed), or as positions.

use std::io::Write;

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use tabiya_books::convert::position_probe;
use tabiya_books::kvetka::{KvetkaBook, KvetkaElement};
use tabiya_books::{BookPosition, BookProbe};

use crate::books::linked::{GameLinkJson, kvetka_links};
use crate::error::{Context, ErrorKind, Result};

/// An open Kvetka book to dump.
pub struct KvetkaDump {
    pub(super) book: KvetkaBook,
    pub(super) name: String,
}

/// One element: its position (normalised) with what the book holds for it, where it is
/// stored, its comment and the games it links.
#[derive(Debug, Clone)]
pub struct KvetkaDumpPosition {
    pub fen: String,
    /// The element's key, in hex.
    pub key: String,
    /// Index of the `.kob` file, byte offset of the element in it, block number.
    pub file: usize,
    pub offset: u64,
    pub block: u32,
    pub comment: Option<String>,
    pub game_links: Vec<GameLinkJson>,
    pub probe: BookProbe,
}

impl KvetkaDump {
    /// Kvetka's text dump of every element, written as it is read (errors: `cannot dump
    /// BOOK`, caused by what failed, a write included).
    pub fn write_text(&self, out: &mut dyn Write) -> Result<()> {
        self.book
            .dump(out)
            .context(ErrorKind::BadInput, || format!("cannot dump {}", self.name))
    }

    /// Every element with its position, in file order: the book is read first (errors:
    /// `cannot read BOOK`), the positions are made as they are iterated.
    pub fn positions(&self) -> Result<impl Iterator<Item = KvetkaDumpPosition> + use<>> {
        let cannot_read = || format!("cannot read {}", self.name);
        let (positions, _) = self
            .book
            .read_positions()
            .context(ErrorKind::BadInput, cannot_read)?;
        let mut elements = Vec::with_capacity(positions.len());
        self.book
            .for_each_element(|e| {
                elements.push(e);
                Ok(())
            })
            .context(ErrorKind::BadInput, cannot_read)?;
        Ok(positions
            .into_iter()
            .zip(elements)
            .map(|(p, e)| dump_position(&p, e)))
    }
}

fn dump_position(p: &BookPosition, e: KvetkaElement) -> KvetkaDumpPosition {
    KvetkaDumpPosition {
        fen: Fen::from_position(&p.position, EnPassantMode::Legal).to_string(),
        key: e.raw.key.iter().map(|b| format!("{b:02x}")).collect(),
        file: e.location.file,
        offset: e.location.offset,
        block: e.location.block,
        game_links: kvetka_links(&e.raw.some_game, e.raw.last_games.as_deref())
            .into_iter()
            .map(|(kind, g)| GameLinkJson {
                game: g.game,
                kind,
                source: g.source,
            })
            .collect(),
        comment: e.raw.comment,
        probe: position_probe(p),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    #[serde(flatten)]
    probe: &'a BookProbe,
    fen: &'a str,
    key: &'a str,
    file: usize,
    offset: u64,
    block: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<&'a str>,
    #[serde(skip_serializing_if = "no_links")]
    game_links: &'a [GameLinkJson],
}

fn no_links(links: &&[GameLinkJson]) -> bool {
    links.is_empty()
}

/// The probe's fields with the element's: keys in alphabetical order at every level, as the
/// `serde_json::Value` the command printed before had them.
impl Serialize for KvetkaDumpPosition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(Json {
            probe: &self.probe,
            fen: &self.fen,
            key: &self.key,
            file: self.file,
            offset: self.offset,
            block: self.block,
            comment: self.comment.as_deref(),
            game_links: &self.game_links,
        })
        .map_err(S::Error::custom)?
        .serialize(s)
    }
}
