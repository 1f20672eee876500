//! The `.ksf` sources file: where the games behind a book live.
//!
//! Table of contents (a multiple of 512 bytes): u32 number of sources, one u32 file offset
//! per source, unused bytes (fewer than 512). Each source: u8 type (0 empty, 1 PGN, 2 web
//! page, 3 CBH), u8 is_bad, Unicode address, u32 number of games, then per game: u32
//! address, u32 length, ANSI white, ANSI black, u16 white Elo, u16 black Elo, u8 result
//! (0 = 0-1, 1 = 1-0, 2 = ½-½, 3 = unknown).

use crate::GameResult;

use super::format::{Cursor, ParseError, ParseResult, StringOrder, put_ansi, put_unicode};

/// Size unit of the table of contents.
pub const TOC_UNIT: usize = 512;

/// One game of a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KsfGame {
    /// `game_address`: byte offset in a PGN file (type 1); see the seed for types 2 and 3.
    pub address: u32,
    /// `game_length`: length of the game's record in bytes.
    pub length: u32,
    pub white: String,
    pub black: String,
    /// 0 = unknown.
    pub white_elo: u16,
    pub black_elo: u16,
    /// Raw result byte (0 = 0-1, 1 = 1-0, 2 = draw, 3 = unknown; other values kept).
    pub result: u8,
}

impl KsfGame {
    /// The result byte as a [`GameResult`] (unknown values give `Unknown`).
    pub fn game_result(&self) -> GameResult {
        match self.result {
            0 => GameResult::BlackWins,
            1 => GameResult::WhiteWins,
            2 => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }
}

/// The result byte of a [`GameResult`].
pub fn result_byte(r: GameResult) -> u8 {
    match r {
        GameResult::BlackWins => 0,
        GameResult::WhiteWins => 1,
        GameResult::Draw => 2,
        GameResult::Unknown => 3,
    }
}

/// One source of games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KsfSource {
    /// Byte offset of the source record in the `.ksf` file.
    pub offset: u32,
    /// 0 empty, 1 PGN, 2 web page, 3 CBH (other values kept).
    pub source_type: u8,
    /// Raw is_bad byte (non-zero: known to be unavailable).
    pub is_bad: u8,
    /// Path or URL; may start with `%currentdir`.
    pub address: String,
    pub games: Vec<KsfGame>,
}

/// A parsed `.ksf` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ksf {
    pub sources: Vec<KsfSource>,
}

impl Ksf {
    /// Parses a `.ksf` file. Errors carry the byte offset.
    pub fn parse(data: &[u8], order: StringOrder) -> ParseResult<Ksf> {
        let mut c = Cursor::new(data, 0);
        let n = c.u32("source_number")? as usize;
        if n.saturating_mul(4).saturating_add(4) > data.len() {
            return Err(ParseError {
                offset: 0,
                what: format!("{n} sources do not fit in a file of {} bytes", data.len()),
            });
        }
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            offsets.push(c.u32("source address")?);
        }
        let mut sources = Vec::with_capacity(n);
        for (i, &off) in offsets.iter().enumerate() {
            if off as usize >= data.len() {
                return Err(ParseError {
                    offset: 4 + 4 * i,
                    what: format!("source {i} address {off} is past the end of the file"),
                });
            }
            let mut c = Cursor::new(data, off as usize);
            let source_type = c.u8("source_type")?;
            let is_bad = c.u8("is_bad")?;
            let address = c.unicode(order, "source address")?;
            let games_at = c.pos;
            let games_number = c.u32("games_number")? as usize;
            // Each game takes at least 21 bytes.
            if games_number.saturating_mul(21) > data.len() - c.pos {
                return Err(ParseError {
                    offset: games_at,
                    what: format!("{games_number} games do not fit in the rest of the file"),
                });
            }
            let mut games = Vec::with_capacity(games_number);
            for _ in 0..games_number {
                games.push(KsfGame {
                    address: c.u32("game_address")?,
                    length: c.u32("game_length")?,
                    white: c.ansi("white")?,
                    black: c.ansi("black")?,
                    white_elo: c.u16("white_ELO")?,
                    black_elo: c.u16("black_ELO")?,
                    result: c.u8("game_result")?,
                });
            }
            sources.push(KsfSource {
                offset: off,
                source_type,
                is_bad,
                address,
                games,
            });
        }
        Ok(Ksf { sources })
    }

    /// Serialises the file; returns the bytes and how many name characters were replaced
    /// by `?` (ANSI strings are written as ISO-8859-1).
    pub fn serialize(&self, order: StringOrder) -> (Vec<u8>, usize) {
        let toc = (4 + 4 * self.sources.len()).div_ceil(TOC_UNIT) * TOC_UNIT;
        let mut body = Vec::new();
        let mut offsets = Vec::with_capacity(self.sources.len());
        let mut replaced = 0;
        for s in &self.sources {
            offsets.push((toc + body.len()) as u32);
            body.push(s.source_type);
            body.push(s.is_bad);
            put_unicode(&mut body, &s.address, order);
            body.extend_from_slice(&(s.games.len() as u32).to_be_bytes());
            for g in &s.games {
                body.extend_from_slice(&g.address.to_be_bytes());
                body.extend_from_slice(&g.length.to_be_bytes());
                replaced += put_ansi(&mut body, &g.white);
                replaced += put_ansi(&mut body, &g.black);
                body.extend_from_slice(&g.white_elo.to_be_bytes());
                body.extend_from_slice(&g.black_elo.to_be_bytes());
                body.push(g.result);
            }
        }
        let mut out = Vec::with_capacity(toc + body.len());
        out.extend_from_slice(&(self.sources.len() as u32).to_be_bytes());
        for o in offsets {
            out.extend_from_slice(&o.to_be_bytes());
        }
        out.resize(toc, 0);
        out.extend_from_slice(&body);
        (out, replaced)
    }
}
