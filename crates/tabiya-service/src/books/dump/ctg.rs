//! Every record of a CTG book, read as it is iterated.

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use tabiya_books::BookProbe;
use tabiya_books::convert::position_probe;
use tabiya_books::ctg::{CtgBook, RecordPosition};

use crate::error::{Context, ErrorKind, Result};

/// An open CTG book to dump.
pub struct CtgDump {
    pub(super) book: CtgBook,
    pub(super) name: String,
}

/// One record: the position (normalised, White to move) with what the book holds for it,
/// where the record is, and the stored moves that give no legal move.
#[derive(Debug, Clone)]
pub struct CtgDumpPosition {
    pub fen: String,
    /// The record's key, in hex.
    pub key: String,
    pub page: u32,
    /// Byte offset in the `.ctg`.
    pub offset: u64,
    pub unknown_moves: Vec<UnknownMoveJson>,
    pub probe: BookProbe,
}

/// A stored move that is not a known code or not legal.
#[derive(Debug, Clone, Serialize)]
pub struct UnknownMoveJson {
    pub annotation: u8,
    pub code: u8,
    pub error: String,
}

impl CtgDump {
    /// Every record in file order (errors: `cannot read BOOK`).
    pub fn positions(&self) -> impl Iterator<Item = Result<CtgDumpPosition>> + '_ {
        self.book.positions().map(|rp| {
            let rp = rp.context(ErrorKind::BadInput, || format!("cannot read {}", self.name))?;
            Ok(dump_position(&rp))
        })
    }
}

fn dump_position(rp: &RecordPosition) -> CtgDumpPosition {
    CtgDumpPosition {
        fen: Fen::from_position(&rp.position.position, EnPassantMode::Legal).to_string(),
        key: rp.key.to_hex(),
        page: rp.page,
        offset: rp.offset,
        unknown_moves: rp
            .unknown_moves
            .iter()
            .map(|u| UnknownMoveJson {
                annotation: u.annotation,
                code: u.code,
                error: u.error.to_string(),
            })
            .collect(),
        probe: position_probe(&rp.position),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    #[serde(flatten)]
    probe: &'a BookProbe,
    fen: &'a str,
    key: &'a str,
    page: u32,
    offset: u64,
    unknown_moves: &'a [UnknownMoveJson],
}

/// The probe's fields with the record's: keys in alphabetical order at every level, as the
/// `serde_json::Value` the command printed before had them.
impl Serialize for CtgDumpPosition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(Json {
            probe: &self.probe,
            fen: &self.fen,
            key: &self.key,
            page: self.page,
            offset: self.offset,
            unknown_moves: &self.unknown_moves,
        })
        .map_err(S::Error::custom)?
        .serialize(s)
    }
}
