//! A chess game's tags in its stored form: the Seven Tag Roster (without Result, kept as the
//! outcome) and Elo compactly through the dictionaries; anything not in canonical form, and
//! every other tag, verbatim.

use tabiya_pgn::model::{Game, parse_date};

use crate::codec::{DecodeError, Reader, put_str, put_varint};
use crate::game::{Dict, NameLookup, Names};
use crate::players::Players;
use crate::stats::GameOutcome;

/// True when `value` is exactly [`canonical_date`] of its parts (without building it).
fn is_canonical_date(value: &str, y: u16, m: u8, d: u8) -> bool {
    let v = value.as_bytes();
    if v.len() != 10 || v[4] != b'.' || v[7] != b'.' {
        return false;
    }
    fn part(b: &[u8], n: u32) -> bool {
        match n {
            0 => b.iter().all(|&c| c == b'?'),
            _ => {
                b.iter().all(u8::is_ascii_digit)
                    && b.iter().fold(0u32, |a, &c| a * 10 + (c - b'0') as u32) == n
            }
        }
    }
    part(&v[..4], y as u32) && part(&v[5..7], m as u32) && part(&v[8..], d as u32)
}

fn canonical_date(y: u16, m: u8, d: u8) -> String {
    let y = if y == 0 {
        "????".to_string()
    } else {
        format!("{y:04}")
    };
    let m = if m == 0 {
        "??".to_string()
    } else {
        format!("{m:02}")
    };
    let d = if d == 0 {
        "??".to_string()
    } else {
        format!("{d:02}")
    };
    format!("{y}.{m}.{d}")
}

/// The tags: the Seven Tag Roster (without Result, kept as the outcome) and Elo compactly
/// through the dictionaries; anything not in canonical form, and every other tag, verbatim.
pub fn encode_tags(game: &Game, names: &mut dyn Names, out: &mut Vec<u8>) {
    let _players = encode_tag_list(
        game.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        names,
        out,
    );
}

/// [`encode_tags`] from the tags, in file order; returns the ids of the players' names.
pub fn encode_tag_list<'a>(
    tags: impl IntoIterator<Item = (&'a str, &'a str)>,
    names: &mut dyn Names,
    out: &mut Vec<u8>,
) -> Players {
    let mut extras: Vec<(&str, &str)> = Vec::new();
    let mut seen = [false; 8];
    let mut slots: [u64; 8] = [0; 8]; // White Black Event Site Round Date WhiteElo BlackElo
    let mut setup = None;
    for (name, value) in tags {
        let slot = match name {
            "White" => 0,
            "Black" => 1,
            "Event" => 2,
            "Site" => 3,
            "Round" => 4,
            "Date" => 5,
            "WhiteElo" => 6,
            "BlackElo" => 7,
            "SetUp" => {
                setup = setup.or(Some(value));
                continue;
            }
            "Result" | "FEN" => continue,
            _ => {
                extras.push((name, value));
                continue;
            }
        };
        if seen[slot] {
            extras.push((name, value));
            continue;
        }
        seen[slot] = true;
        slots[slot] = match slot {
            0 | 1 => names.id(Dict::Player, value) as u64 + 1,
            2 => names.id(Dict::Event, value) as u64 + 1,
            3 => names.id(Dict::Site, value) as u64 + 1,
            4 => names.id(Dict::Round, value) as u64 + 1,
            5 => {
                let (y, m, d) = parse_date(value);
                if is_canonical_date(value, y, m, d) {
                    ((y as u64) << 9 | (m as u64) << 5 | d as u64) + 1
                } else {
                    extras.push((name, value));
                    0
                }
            }
            _ => match value.parse::<u16>() {
                // Canonical only: digits, no sign, no leading zero.
                Ok(v)
                    if value.bytes().all(|b| b.is_ascii_digit())
                        && (value == "0" || !value.starts_with('0'))
                        && v < u16::MAX =>
                {
                    v as u64 + 1
                }
                _ => {
                    extras.push((name, value));
                    0
                }
            },
        };
    }
    for v in slots {
        put_varint(out, v);
    }
    let players = [slots[0], slots[1]].map(|v| v.checked_sub(1).map(|id| id as u32));
    // FEN/SetUp tags are rebuilt from the start position; keep a non-standard SetUp value.
    if let Some(setup) = setup.filter(|s| *s != "1") {
        extras.push(("SetUp", setup));
    }
    put_varint(out, extras.len() as u64);
    for (name, value) in extras {
        put_varint(out, names.id(Dict::TagName, name) as u64);
        put_str(out, value);
        if name == "Annotator" {
            // Kept as written; its spelling joins the annotators' dictionary.
            names.id(Dict::Annotator, value);
        }
    }
    players
}

pub(crate) fn decode_tag_part(
    data: &[u8],
    names: &dyn NameLookup,
    outcome: GameOutcome,
    fen: Option<String>,
) -> Result<Vec<(String, String)>, DecodeError> {
    let mut r = Reader::new(data);
    let mut slots = [0u64; 8];
    for s in &mut slots {
        *s = r.varint("header")?;
    }
    let mut tags: Vec<(String, String)> = Vec::new();
    let name = |dict: Dict, v: u64, r: &Reader<'_>| -> Result<String, DecodeError> {
        names
            .name_checked(dict, (v - 1) as u32)
            .map_err(|cause| DecodeError {
                cause: Some(cause),
                ..r.bad("name id")
            })?
            .ok_or_else(|| r.bad("name id"))
    };
    // Seven Tag Roster order.
    if slots[2] != 0 {
        tags.push(("Event".into(), name(Dict::Event, slots[2], &r)?));
    }
    if slots[3] != 0 {
        tags.push(("Site".into(), name(Dict::Site, slots[3], &r)?));
    }
    if slots[5] != 0 {
        let v = slots[5] - 1;
        tags.push((
            "Date".into(),
            canonical_date((v >> 9) as u16, ((v >> 5) & 15) as u8, (v & 31) as u8),
        ));
    }
    if slots[4] != 0 {
        tags.push(("Round".into(), name(Dict::Round, slots[4], &r)?));
    }
    if slots[0] != 0 {
        tags.push(("White".into(), name(Dict::Player, slots[0], &r)?));
    }
    if slots[1] != 0 {
        tags.push(("Black".into(), name(Dict::Player, slots[1], &r)?));
    }
    let result = match outcome {
        GameOutcome::FirstWins => "1-0",
        GameOutcome::SecondWins => "0-1",
        GameOutcome::Draw => "1/2-1/2",
        GameOutcome::Unknown => "*",
    };
    tags.push(("Result".into(), result.into()));
    if slots[6] != 0 {
        tags.push(("WhiteElo".into(), (slots[6] - 1).to_string()));
    }
    if slots[7] != 0 {
        tags.push(("BlackElo".into(), (slots[7] - 1).to_string()));
    }
    let n_extra = r.varint("tag count")?;
    let mut setup_extra = false;
    for _ in 0..n_extra {
        let id = r.varint_u32("tag name")?;
        let tname = names
            .name_checked(Dict::TagName, id)
            .map_err(|cause| DecodeError {
                cause: Some(cause),
                ..r.bad("tag name id")
            })?
            .ok_or_else(|| r.bad("tag name id"))?;
        let value = r.str("tag value")?.to_string();
        setup_extra |= tname == "SetUp";
        tags.push((tname, value));
    }
    if let Some(fen) = fen {
        if !setup_extra {
            tags.push(("SetUp".into(), "1".into()));
        }
        tags.push(("FEN".into(), fen));
    }
    Ok(tags)
}

/// The dictionary ids a stored tag part refers to (players, event, site, round, the names
/// of other tags): what an edit of the game can reuse without reading a dictionary.
pub(crate) fn tag_part_ids(data: &[u8]) -> Result<Vec<(Dict, u32)>, DecodeError> {
    let mut r = Reader::new(data);
    let mut out = Vec::new();
    for dict in [
        Dict::Player,
        Dict::Player,
        Dict::Event,
        Dict::Site,
        Dict::Round,
    ] {
        let v = r.varint("header")?;
        if v != 0 {
            out.push((dict, u32::try_from(v - 1).map_err(|_| r.bad("name id"))?));
        }
    }
    for _ in 5..8 {
        r.varint("header")?;
    }
    let n_extra = r.varint("tag count")?;
    for _ in 0..n_extra {
        out.push((Dict::TagName, r.varint_u32("tag name")?));
        r.str("tag value")?;
    }
    Ok(out)
}

/// The tags of a stored tag part beyond the roster's slots: (tag name id, value as written).
pub(crate) fn extra_tags(data: &[u8]) -> Result<Vec<(u32, String)>, DecodeError> {
    let mut r = Reader::new(data);
    for _ in 0..8 {
        r.varint("header")?;
    }
    let n = r.varint("tag count")?;
    let mut out = Vec::with_capacity(n.min(64) as usize);
    for _ in 0..n {
        let id = r.varint_u32("tag name")?;
        out.push((id, r.str("tag value")?.to_string()));
    }
    Ok(out)
}
