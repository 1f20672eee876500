//! A Polyglot book's lines by colour, as `polyglot dump-book` walks them.

use serde::{Serialize, Serializer};
use shakmaty::{CastlingMode, Color};
use tabiya_books::polyglot::{self, Dump, LineEnd, PolyglotReader};

use super::Colour;

/// The lines of each colour asked for (White first). Its JSON is the array of the colours'
/// lines; [`PolyglotDump::text`] is `dump-book`'s text.
pub struct PolyglotDump {
    name: String,
    pub colours: Vec<PolyglotLines>,
}

/// One colour's lines.
pub struct PolyglotLines {
    dump: Dump,
}

pub(super) fn dump(book: &PolyglotReader, name: String, colour: Option<Colour>) -> PolyglotDump {
    let colours = match colour {
        Some(Colour::White) => vec![Color::White],
        Some(Colour::Black) => vec![Color::Black],
        None => vec![Color::White, Color::Black],
    };
    PolyglotDump {
        name,
        colours: colours
            .into_iter()
            .map(|c| PolyglotLines {
                dump: polyglot::dump(book, c),
            })
            .collect(),
    }
}

impl PolyglotDump {
    /// The dump as `polyglot dump-book` writes it, colour after colour.
    pub fn text(&self) -> String {
        self.colours
            .iter()
            .map(|c| c.dump.to_text(&self.name))
            .collect()
    }
}

impl Serialize for PolyglotDump {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.colours.serialize(s)
    }
}

// The JSON of a colour's lines. Field order: alphabetical, as the `serde_json::Value` the
// command printed before had them.

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinesJson<'a> {
    colour: &'static str,
    lines: Vec<LineJson<'a>>,
    positions_on_lines: usize,
}

#[derive(Serialize)]
struct LineJson<'a> {
    end: EndJson,
    moves: Vec<MoveJson<'a>>,
    number: usize,
}

#[derive(Serialize)]
struct MoveJson<'a> {
    san: &'a str,
    share: Option<f64>,
    uci: String,
    weight: Option<u16>,
}

#[derive(Serialize)]
struct EndJson {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<usize>,
}

impl Serialize for PolyglotLines {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = &self.dump;
        LinesJson {
            colour: if d.colour == Color::White {
                "white"
            } else {
                "black"
            },
            lines: d
                .lines
                .iter()
                .map(|l| LineJson {
                    end: match l.end {
                        LineEnd::Leaf => EndJson {
                            kind: "leaf",
                            line: None,
                            ply: None,
                        },
                        LineEnd::Transposition { line, ply } => EndJson {
                            kind: "transposition",
                            line: Some(line),
                            ply: Some(ply),
                        },
                        LineEnd::Cycle { ply } => EndJson {
                            kind: "cycle",
                            line: None,
                            ply: Some(ply),
                        },
                    },
                    moves: l
                        .moves
                        .iter()
                        .map(|m| MoveJson {
                            san: &m.san,
                            share: m.probability,
                            uci: m.mv.to_uci(CastlingMode::Standard).to_string(),
                            weight: m.weight,
                        })
                        .collect(),
                    number: l.number,
                })
                .collect(),
            positions_on_lines: d.positions_on_lines,
        }
        .serialize(s)
    }
}
