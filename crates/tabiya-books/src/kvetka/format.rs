//! Byte-level pieces of the `.kob` format: CompactInt, strings, the header and elements.

use super::key::{KEY_LEN, KvetkaKey};

/// Size of a `.kob` block.
pub const BLOCK_SIZE: usize = 2048;
/// Largest element, its length prefix included (three fit in a block after the 2-byte `n`).
pub const MAX_ELEMENT: usize = 682;
/// Longest comment in UTF-16 code units.
pub const MAX_COMMENT_CHARS: usize = 300;

/// `flags` bit 0: a comment follows.
pub const FLAG_COMMENT: u8 = 0x01;
/// `flags` bit 1: links to the games whose last stored position this is.
pub const FLAG_LAST_GAMES: u8 = 0x02;
/// `flags` bit 2: a link to one game through the position.
pub const FLAG_SOME_GAME: u8 = 0x04;
/// `element_type` bit 0: game links are stored.
pub const ELEMENT_TYPE_LINKS: u8 = 0x01;

/// Byte order of the UTF-16 code units of "Unicode strings".
///
/// The seed says every integer is big-endian but does not say it of string characters;
/// Tabiya writes big-endian and can read either.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StringOrder {
    #[default]
    BigEndian,
    LittleEndian,
}

/// A parse failure: byte offset (relative to the slice given) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub what: String,
}

pub type ParseResult<T> = Result<T, ParseError>;

fn err<T>(offset: usize, what: impl Into<String>) -> ParseResult<T> {
    Err(ParseError {
        offset,
        what: what.into(),
    })
}

/// A cursor over a byte slice whose errors carry offsets.
pub struct Cursor<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        Cursor { data, pos }
    }

    pub fn take(&mut self, n: usize, what: &str) -> ParseResult<&'a [u8]> {
        if self.data.len().saturating_sub(self.pos) < n {
            return err(
                self.pos,
                format!(
                    "{what}: needs {n} bytes, only {} left",
                    self.data.len().saturating_sub(self.pos)
                ),
            );
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self, what: &str) -> ParseResult<u8> {
        Ok(self.take(1, what)?[0])
    }
    pub fn u16(&mut self, what: &str) -> ParseResult<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn u32(&mut self, what: &str) -> ParseResult<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// CompactInt: base-128 digits, most significant first, bit 7 set on all but the last.
    pub fn compact(&mut self, what: &str) -> ParseResult<u64> {
        let start = self.pos;
        let mut v: u64 = 0;
        loop {
            let b = self.u8(what)?;
            if v > (u64::MAX >> 7) {
                return err(start, format!("{what}: CompactInt overflows 64 bits"));
            }
            v = (v << 7) | u64::from(b & 0x7f);
            if b < 0x80 {
                return Ok(v);
            }
        }
    }

    /// Unicode string: u32 length in UTF-16 code units, then 2 × length bytes.
    pub fn unicode(&mut self, order: StringOrder, what: &str) -> ParseResult<String> {
        let start = self.pos;
        let len = self.u32(what)? as usize;
        let Some(bytes) = len.checked_mul(2) else {
            return err(start, format!("{what}: length {len} too large"));
        };
        let raw = self.take(bytes, what).map_err(|mut e| {
            e.offset = start;
            e.what = format!("{what}: string of {len} characters runs past the end");
            e
        })?;
        let units: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| match order {
                StringOrder::BigEndian => u16::from_be_bytes([c[0], c[1]]),
                StringOrder::LittleEndian => u16::from_le_bytes([c[0], c[1]]),
            })
            .collect();
        Ok(String::from_utf16_lossy(&units))
    }

    /// ANSI string: u32 length in bytes, then the bytes (read as ISO-8859-1).
    pub fn ansi(&mut self, what: &str) -> ParseResult<String> {
        let start = self.pos;
        let len = self.u32(what)? as usize;
        let raw = self.take(len, what).map_err(|mut e| {
            e.offset = start;
            e.what = format!("{what}: string of {len} bytes runs past the end");
            e
        })?;
        Ok(raw.iter().map(|&b| char::from(b)).collect())
    }
}

/// Appends a CompactInt.
pub fn put_compact(out: &mut Vec<u8>, v: u64) {
    let mut digits = [0u8; 10];
    let mut n = 0;
    let mut v = v;
    loop {
        digits[n] = (v & 0x7f) as u8;
        n += 1;
        v >>= 7;
        if v == 0 {
            break;
        }
    }
    for i in (0..n).rev() {
        out.push(if i > 0 { digits[i] | 0x80 } else { digits[i] });
    }
}

/// Size of a CompactInt.
pub fn compact_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Appends a Unicode string (UTF-16, big-endian units unless told otherwise).
pub fn put_unicode(out: &mut Vec<u8>, s: &str, order: StringOrder) {
    let units: Vec<u16> = s.encode_utf16().collect();
    out.extend_from_slice(&(units.len() as u32).to_be_bytes());
    for u in units {
        out.extend_from_slice(&match order {
            StringOrder::BigEndian => u.to_be_bytes(),
            StringOrder::LittleEndian => u.to_le_bytes(),
        });
    }
}

/// Appends an ANSI string as ISO-8859-1; characters above U+00FF become `?`. Returns how
/// many were replaced.
pub fn put_ansi(out: &mut Vec<u8>, s: &str) -> usize {
    let mut replaced = 0;
    let bytes: Vec<u8> = s
        .chars()
        .map(|c| {
            u8::try_from(u32::from(c)).unwrap_or_else(|_| {
                replaced += 1;
                b'?'
            })
        })
        .collect();
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    replaced
}

/// The `.kob` header (first file only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvetkaHeader {
    /// `type`: 0x01 is the only value defined.
    pub book_type: u8,
    pub caption: String,
    /// Minimum Elo of White, Black, the stronger and the weaker player (0 = no filter).
    pub min_white_elo: u16,
    pub min_black_elo: u16,
    pub min_stronger_elo: u16,
    pub min_weaker_elo: u16,
    /// Half-moves of each game added (0xFF = all).
    pub max_move: u8,
    /// Bit 0: game links stored. Other bits are kept as read.
    pub element_type: u8,
    /// Non-zero: transitions between stored positions are searched when adding games.
    pub links: u8,
    /// Number of blocks in the whole book.
    pub block_count: u32,
}

impl KvetkaHeader {
    /// Parses the header; returns it and its length.
    pub fn parse(data: &[u8], order: StringOrder) -> ParseResult<(KvetkaHeader, usize)> {
        let mut c = Cursor::new(data, 0);
        let book_type = c.u8("header type")?;
        if book_type != 0x01 {
            return err(
                0,
                format!(
                    "book type {book_type:#04x} is not supported (only 0x01 is defined; 0x00, \
                     0x02 and 0x03 are reserved)"
                ),
            );
        }
        let caption = c.unicode(order, "header caption")?;
        let h = KvetkaHeader {
            book_type,
            caption,
            min_white_elo: c.u16("least_white_ELO")?,
            min_black_elo: c.u16("least_black_ELO")?,
            min_stronger_elo: c.u16("least_strong_ELO")?,
            min_weaker_elo: c.u16("least_weak_ELO")?,
            max_move: c.u8("max_move")?,
            element_type: c.u8("element_type")?,
            links: c.u8("links")?,
            block_count: c.u32("block_number")?,
        };
        Ok((h, c.pos))
    }

    pub fn serialize(&self, order: StringOrder) -> Vec<u8> {
        let mut out = vec![self.book_type];
        put_unicode(&mut out, &self.caption, order);
        for v in [
            self.min_white_elo,
            self.min_black_elo,
            self.min_stronger_elo,
            self.min_weaker_elo,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.push(self.max_move);
        out.push(self.element_type);
        out.push(self.links);
        out.extend_from_slice(&self.block_count.to_be_bytes());
        out
    }

    /// Whether elements carry game links (element_type bit 0).
    pub fn stores_links(&self) -> bool {
        self.element_type & ELEMENT_TYPE_LINKS != 0
    }
}

/// A game address (the seed's SourceType): source number in the `.ksf` and game number in
/// that source, both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameLink {
    pub source: u16,
    pub game: u32,
}

impl GameLink {
    fn parse(c: &mut Cursor<'_>) -> ParseResult<GameLink> {
        Ok(GameLink {
            source: c.u16("source_number")?,
            game: c.u32("game_in_source")?,
        })
    }
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.source.to_be_bytes());
        out.extend_from_slice(&self.game.to_be_bytes());
    }
}

/// One element as stored: every field, unknown trailing bytes kept raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawElement {
    pub key: KvetkaKey,
    /// Games won, drawn and lost by the side to move.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Move codes as stored.
    pub moves: Vec<u8>,
    /// Flags byte as stored (bits 3–7 unknown, kept).
    pub flags: u8,
    /// `some_source` (flags bit 2 with element_type bit 0).
    pub some_game: Option<GameLink>,
    /// Comment (flags bit 0).
    pub comment: Option<String>,
    /// Games whose last stored position this is (flags bit 1 with element_type bit 0).
    pub last_games: Option<Vec<GameLink>>,
    /// Bytes inside `length` after the known fields (unknown flags announce them).
    pub unknown_tail: Vec<u8>,
}

impl RawElement {
    /// Parses the element starting at `c.pos` (its length field). `limit` is the end of the
    /// block's useful bytes.
    pub fn parse(
        c: &mut Cursor<'_>,
        limit: usize,
        stores_links: bool,
        order: StringOrder,
    ) -> ParseResult<RawElement> {
        let start = c.pos;
        let length = c.compact("element length")?;
        let body_start = c.pos;
        let end = body_start as u64 + length;
        if end > limit as u64 {
            return err(
                start,
                format!(
                    "element length {length} runs past the block's useful bytes (ends at {})",
                    limit
                ),
            );
        }
        let end = end as usize;
        if end - start > MAX_ELEMENT {
            return err(
                start,
                format!("element of {} bytes, the format allows 682", end - start),
            );
        }
        let mut e = Cursor::new(&c.data[..end], body_start);
        let key: KvetkaKey = e
            .take(KEY_LEN, "element key")?
            .try_into()
            .expect("22 bytes");
        let wins = e.compact("wins")?;
        let draws = e.compact("draws")?;
        let losses = e.compact("loses")?;
        let move_number = e.u8("move_number")? as usize;
        let moves = e.take(move_number, "moves")?.to_vec();
        let flags = e.u8("flags")?;
        let some_game = if flags & FLAG_SOME_GAME != 0 && stores_links {
            Some(GameLink::parse(&mut e)?)
        } else {
            None
        };
        let comment = if flags & FLAG_COMMENT != 0 {
            Some(e.unicode(order, "comment")?)
        } else {
            None
        };
        let last_games = if flags & FLAG_LAST_GAMES != 0 && stores_links {
            let at = e.pos;
            let n = e.compact("game link count")?;
            if n.saturating_mul(6) > (end - e.pos) as u64 {
                return err(at, format!("{n} game links do not fit in the element"));
            }
            let mut v = Vec::with_capacity(n as usize);
            for _ in 0..n {
                v.push(GameLink::parse(&mut e)?);
            }
            Some(v)
        } else {
            None
        };
        let unknown_tail = c.data[e.pos..end].to_vec();
        c.pos = end;
        Ok(RawElement {
            key,
            wins,
            draws,
            losses,
            moves,
            flags,
            some_game,
            comment,
            last_games,
            unknown_tail,
        })
    }

    /// Serialises the element, length prefix included. Flags are derived from the optional
    /// fields (bits 3–7 are kept from `self.flags`).
    pub fn serialize(&self, stores_links: bool, order: StringOrder) -> Vec<u8> {
        let mut body = Vec::with_capacity(64);
        body.extend_from_slice(&self.key);
        put_compact(&mut body, self.wins);
        put_compact(&mut body, self.draws);
        put_compact(&mut body, self.losses);
        body.push(self.moves.len() as u8);
        body.extend_from_slice(&self.moves);
        let mut flags = self.flags & !(FLAG_COMMENT | FLAG_LAST_GAMES | FLAG_SOME_GAME);
        if self.comment.is_some() {
            flags |= FLAG_COMMENT;
        }
        if stores_links && self.last_games.is_some() {
            flags |= FLAG_LAST_GAMES;
        }
        if stores_links && self.some_game.is_some() {
            flags |= FLAG_SOME_GAME;
        }
        body.push(flags);
        if stores_links && let Some(g) = &self.some_game {
            g.put(&mut body);
        }
        if let Some(c) = &self.comment {
            put_unicode(&mut body, c, order);
        }
        if stores_links && let Some(list) = &self.last_games {
            put_compact(&mut body, list.len() as u64);
            for g in list {
                g.put(&mut body);
            }
        }
        body.extend_from_slice(&self.unknown_tail);
        let mut out = Vec::with_capacity(body.len() + 2);
        put_compact(&mut out, body.len() as u64);
        out.extend_from_slice(&body);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_int_from_the_seed_algorithm() {
        // result := (result shl 7) + (i and 127) until i < 128.
        for (bytes, v) in [
            (&[0x00][..], 0u64),
            (&[0x7f][..], 127),
            (&[0x81, 0x00][..], 128),
            (&[0x82, 0x01][..], 257),
            (&[0xff, 0x7f][..], 16383),
            (&[0x81, 0x80, 0x00][..], 16384),
        ] {
            assert_eq!(Cursor::new(bytes, 0).compact("t").unwrap(), v);
            let mut out = Vec::new();
            put_compact(&mut out, v);
            assert_eq!(out, bytes);
            assert_eq!(compact_len(v), bytes.len());
        }
        // Truncated and overflowing inputs are errors.
        assert!(Cursor::new(&[0x81], 0).compact("t").is_err());
        assert!(Cursor::new(&[0xff; 11], 0).compact("t").is_err());
    }
}
