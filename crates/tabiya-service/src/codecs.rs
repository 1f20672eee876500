//! Compact position codecs: a FEN to B32, CDB's 24 bytes, a CTG or Kvetka key, a Polyglot
//! hash, and back (all but the hash).
//!
//! What decoding gives back (see `docs/formats/conversions.md`): B32 keeps everything
//! (clocks included); CDB keeps no clocks (`0 1`); CTG and Kvetka keys hold the
//! **normalised** position — White to move, colour-flipped when Black was to move, files
//! mirrored when nobody may castle and the king stood on files a–d — with clocks `0 1`;
//! `black` undoes the flip, `mirrored` the mirror. A Polyglot key is a hash.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};
use tabiya_books::{ctg, kvetka, polyglot};

use crate::error::{Context, Error, ErrorKind, Result};

/// A position codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Codec {
    B32,
    Cdb,
    Ctg,
    Kvetka,
    Polyglot,
}

/// One encoded position.
#[derive(Debug, Clone, Serialize)]
pub struct Encoded {
    /// The bytes as lowercase hex (Polyglot: the 64-bit key as 16 hex digits).
    pub hex: String,
    /// CTG/Kvetka: how the position was normalised (colours flipped, files mirrored).
    pub flipped: Option<bool>,
    pub mirrored: Option<bool>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>> {
    let s = s.trim();
    let s = s.strip_prefix("0x").unwrap_or(s);
    if !s.len().is_multiple_of(2) {
        return Err(Error::bad_request(format!(
            "{s:?}: odd number of hex digits"
        )));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16).context(ErrorKind::BadRequest, || {
                format!("{s:?}: not hex at digit {i}")
            })
        })
        .collect()
}

fn parse_fen(s: &str) -> Result<(Fen, Chess)> {
    let fen: Fen = if s == "startpos" {
        Fen::from_position(&Chess::default(), EnPassantMode::Legal)
    } else {
        Fen::from_ascii(s.trim().as_bytes())
            .context(ErrorKind::BadRequest, || format!("invalid FEN {s:?}"))?
    };
    let mode = CastlingMode::detect(fen.as_setup());
    let pos: Chess = fen
        .clone()
        .into_position(mode)
        .context(ErrorKind::BadRequest, || format!("illegal position {s:?}"))?;
    Ok((fen, pos))
}

/// Encodes a FEN (`startpos` for the start).
pub fn encode(codec: Codec, fen: &str) -> Result<Encoded> {
    let (fen, pos) = parse_fen(fen)?;
    let plain = |hex: String| Encoded {
        hex,
        flipped: None,
        mirrored: None,
    };
    let bad = |e: &dyn std::fmt::Display| Error::bad_request(e.to_string());
    Ok(match codec {
        // B32 stores the FEN's en-passant square as written, clocks included.
        Codec::B32 => plain(hex(
            &tabiya_compact::encode_b32(fen.as_setup()).map_err(|e| bad(&e))?
        )),
        Codec::Cdb => plain(hex(&tabiya_compact::encode_cdb(&pos).map_err(|e| bad(&e))?)),
        Codec::Ctg => {
            let (k, t) = ctg::encode_key_with_transform(&pos).map_err(|e| bad(&e))?;
            Encoded {
                hex: hex(k.as_bytes()),
                flipped: Some(t.flipped),
                mirrored: Some(t.mirrored),
            }
        }
        Codec::Kvetka => {
            let (k, n) = kvetka::position_key(&pos).map_err(|e| bad(&e))?;
            Encoded {
                hex: hex(&k),
                flipped: Some(n.flipped),
                mirrored: Some(n.mirrored),
            }
        }
        Codec::Polyglot => plain(format!("{:016x}", polyglot::key(&pos))),
    })
}

/// Decodes hex back to a FEN. `black` and `mirrored` undo a CTG or Kvetka key's
/// normalisation.
pub fn decode(codec: Codec, s: &str, black: bool, mirrored: bool) -> Result<String> {
    let bytes = unhex(s)?;
    if (black || mirrored) && !matches!(codec, Codec::Ctg | Codec::Kvetka) {
        return Err(Error::bad_request(
            "--black and --mirrored are for CTG and Kvetka keys (normalised positions)",
        ));
    }
    let fen = match codec {
        Codec::B32 => {
            let setup = tabiya_compact::decode_b32(&bytes)
                .map_err(|e| Error::bad_request(format!("B32 {s}: {e}")))?;
            Fen::try_from_setup(setup)
                .map_err(|e| Error::bad_request(format!("B32 {s}: {e:?}")))?
                .to_string()
        }
        Codec::Cdb => {
            let pos = tabiya_compact::decode_cdb(&bytes)
                .map_err(|e| Error::bad_request(format!("CDB {s}: {e}")))?;
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        }
        Codec::Ctg => {
            let d = ctg::decode_key(&bytes)
                .context(ErrorKind::BadRequest, || format!("CTG key {s}"))?;
            let t = ctg::Transform {
                flipped: black,
                mirrored,
            };
            let pos = t
                .undo(&d.position)
                .context(ErrorKind::BadRequest, || format!("CTG key {s}"))?;
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        }
        Codec::Kvetka => {
            let normal = kvetka::decode_key(&bytes)
                .context(ErrorKind::BadRequest, || format!("Kvetka key {s}"))?;
            let n = kvetka::Normalisation {
                flipped: black,
                mirrored,
            };
            let pos = kvetka::transform(&normal, n)
                .context(ErrorKind::BadRequest, || format!("Kvetka key {s}"))?;
            Fen::from_position(&pos, EnPassantMode::Legal).to_string()
        }
        Codec::Polyglot => {
            return Err(Error::bad_request(
                "a Polyglot key is a 64-bit hash: it cannot be decoded into a position",
            ));
        }
    };
    Ok(fen)
}
