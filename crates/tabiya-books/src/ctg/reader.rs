//! Reading a `.ctg/.cto/.ctb` trio: pages, records, the `.cto` lookup, probes and the walk.

use std::collections::{BTreeMap, HashSet};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::error::{CtgError, Result};
use super::key::{CtgKey, Transform, decode_key, encode_with};
use super::moves::{MoveCodeError, annotation_nag, decode_move};
use crate::{BookMove, BookPosition, BookProbe, BookProbeMove, BookStats};

/// Size of a `.ctg` page (the header page and every data page).
pub const PAGE_SIZE: usize = 4096;
/// Size of the statistics trailer that ends every record.
pub const TRAILER_LEN: usize = 33;
/// `.cto` slot value meaning "no page".
pub const EMPTY_SLOT: u32 = 0xFFFF_FFFF;

enum Data {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Map(m) => m,
            Data::Owned(v) => v,
        }
    }
}

/// One of the trio mapped: a regular file only, never waiting on a FIFO
/// ([`tabiya_files::open_regular`]); mapped, not read, so no size bound is needed.
#[allow(unsafe_code)] // one memory map / FFI call, see the SAFETY comment below
fn read_file(path: &Path) -> Result<Data> {
    let io = |source| CtgError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = tabiya_files::open_regular(path)?;
    if len == 0 {
        return Ok(Data::Owned(Vec::new()));
    }
    // SAFETY: the book files are opened read-only and only read through the map. If another
    // process truncates them while mapped, reads may fault; that is the usual memory-map
    // contract, accepted for opening books that are not written while being read.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    Ok(Data::Map(map))
}

#[inline]
fn be(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b))
}

/// The 33-byte statistics trailer of a record, every byte kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Trailer {
    /// Games with this position (offset 0, 3 bytes).
    pub games: u32,
    /// Wins of the side to move in the stored (normalised) record (offset 3).
    pub wins: u32,
    /// Losses of that side (offset 6).
    pub losses: u32,
    /// Draws (offset 9).
    pub draws: u32,
    /// Offset 12, 4 bytes, unknown: in most records 10 × score of the side to move with
    /// draws and games without result counted half.
    pub unknown12: [u8; 4],
    /// Games with a first rating (offset 16, 3 bytes).
    pub rating_games: u32,
    /// Sum of those ratings (offset 19, 4 bytes).
    pub rating_sum: u32,
    /// Games with a second rating, "performance" (offset 23, 3 bytes).
    pub performance_games: u32,
    /// Sum of those (offset 26, 4 bytes).
    pub performance_sum: u32,
    /// Recommendation flags (offset 30): `0x80` green, `0x40` red, other bits unknown.
    pub recommendation: u8,
    /// Offset 31, unknown.
    pub unknown31: u8,
    /// Commentary NAG (offset 32).
    pub commentary: u8,
}

impl Trailer {
    /// Parses the 33 bytes.
    pub fn parse(b: &[u8; TRAILER_LEN]) -> Trailer {
        Trailer {
            games: be(&b[0..3]),
            wins: be(&b[3..6]),
            losses: be(&b[6..9]),
            draws: be(&b[9..12]),
            unknown12: [b[12], b[13], b[14], b[15]],
            rating_games: be(&b[16..19]),
            rating_sum: be(&b[19..23]),
            performance_games: be(&b[23..26]),
            performance_sum: be(&b[26..30]),
            recommendation: b[30],
            unknown31: b[31],
            commentary: b[32],
        }
    }

    /// The 33 bytes. 3-byte fields keep their low 24 bits.
    pub fn to_bytes(&self) -> [u8; TRAILER_LEN] {
        let mut b = [0u8; TRAILER_LEN];
        let put3 = |b: &mut [u8], v: u32| b.copy_from_slice(&v.to_be_bytes()[1..]);
        put3(&mut b[0..3], self.games);
        put3(&mut b[3..6], self.wins);
        put3(&mut b[6..9], self.losses);
        put3(&mut b[9..12], self.draws);
        b[12..16].copy_from_slice(&self.unknown12);
        put3(&mut b[16..19], self.rating_games);
        b[19..23].copy_from_slice(&self.rating_sum.to_be_bytes());
        put3(&mut b[23..26], self.performance_games);
        b[26..30].copy_from_slice(&self.performance_sum.to_be_bytes());
        b[30] = self.recommendation;
        b[31] = self.unknown31;
        b[32] = self.commentary;
        b
    }

    /// `rating_sum / rating_games` rounded down, `None` without rated games.
    pub fn average_rating(&self) -> Option<u32> {
        (self.rating_games > 0).then(|| self.rating_sum / self.rating_games)
    }

    /// `performance_sum / performance_games` rounded down, `None` without such games.
    pub fn average_performance(&self) -> Option<u32> {
        (self.performance_games > 0).then(|| self.performance_sum / self.performance_games)
    }

    /// Recommendation bit `0x80`.
    pub fn green(&self) -> bool {
        self.recommendation & 0x80 != 0
    }

    /// Recommendation bit `0x40`.
    pub fn red(&self) -> bool {
        self.recommendation & 0x40 != 0
    }

    /// Statistics from the side to move of this record.
    pub fn stats(&self) -> BookStats {
        BookStats {
            games: u64::from(self.games),
            wins: u64::from(self.wins),
            draws: u64::from(self.draws),
            losses: u64::from(self.losses),
            rating_games: u64::from(self.rating_games),
            rating_sum: u64::from(self.rating_sum),
            performance_games: u64::from(self.performance_games),
            performance_sum: u64::from(self.performance_sum),
        }
    }

    /// Statistics of the move that led to this record, from the mover's side: wins and
    /// losses swap; the rating sums are this record's as stored.
    pub fn mover_stats(&self) -> BookStats {
        BookStats {
            wins: u64::from(self.losses),
            losses: u64::from(self.wins),
            ..self.stats()
        }
    }
}

/// A record as stored on a data page.
#[derive(Clone, Copy, Debug)]
pub struct RawRecord<'a> {
    /// Data page number (as in the `.cto`).
    pub page: u32,
    /// Byte offset of the record in the `.ctg` file.
    pub offset: u64,
    /// Key bytes, first byte included.
    pub key: &'a [u8],
    /// (move code, annotation) pairs.
    pub moves: &'a [u8],
    /// Raw trailer bytes.
    pub trailer_bytes: &'a [u8; TRAILER_LEN],
}

impl RawRecord<'_> {
    /// Parsed trailer.
    pub fn trailer(&self) -> Trailer {
        Trailer::parse(self.trailer_bytes)
    }

    /// (code, annotation byte) pairs.
    pub fn move_pairs(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.moves.chunks_exact(2).map(|c| (c[0], c[1]))
    }
}

/// One data page: its header and the records in its used part.
#[derive(Clone, Copy, Debug)]
pub struct Page<'a> {
    pub number: u32,
    /// Record count from the page header.
    pub count: u16,
    /// Bytes used from the page header (the 4 header bytes included).
    pub used: u16,
    bytes: &'a [u8],
    file: &'a str,
}

impl<'a> Page<'a> {
    fn err(&self, rel: usize, what: impl Into<String>) -> CtgError {
        CtgError::Page {
            file: self.file.to_string(),
            page: self.number,
            offset: (u64::from(self.number) + 1) * PAGE_SIZE as u64 + rel as u64,
            what: what.into(),
        }
    }

    /// Parses the record starting at `rel` (offset within the page); returns it and the
    /// offset of the next record.
    fn record_at(&self, rel: usize) -> Result<(RawRecord<'a>, usize)> {
        let b = self.bytes;
        let first = b[rel];
        let klen = usize::from(first & 0x1f);
        if klen < 2 {
            return Err(self.err(
                rel,
                format!("record key length {klen} (first byte {first:#04x})"),
            ));
        }
        let mpos = rel + klen;
        if mpos >= b.len() {
            return Err(self.err(rel, "record key runs past the used part of the page"));
        }
        let mlen = usize::from(b[mpos]);
        if mlen == 0 || mlen % 2 == 0 {
            return Err(self.err(
                mpos,
                format!("move-list length byte {mlen} is not 2 × moves + 1"),
            ));
        }
        let tpos = mpos + mlen;
        let end = tpos + TRAILER_LEN;
        if end > b.len() {
            return Err(self.err(
                rel,
                format!(
                    "record of {} bytes runs past the used part of the page ({} bytes)",
                    end - rel,
                    b.len()
                ),
            ));
        }
        let trailer_bytes: &[u8; TRAILER_LEN] = b[tpos..end].try_into().expect("33-byte slice");
        Ok((
            RawRecord {
                page: self.number,
                offset: (u64::from(self.number) + 1) * PAGE_SIZE as u64 + rel as u64,
                key: &b[rel..mpos],
                moves: &b[mpos + 1..tpos],
                trailer_bytes,
            },
            end,
        ))
    }

    /// The records of the page, in stored order. Stops at the first malformed record (the
    /// error names the page and offset). A count that disagrees with the records found is
    /// reported as an error after the last record.
    pub fn records(&self) -> PageRecords<'a> {
        PageRecords {
            page: *self,
            rel: 4,
            seen: 0,
            done: false,
        }
    }

    /// Finds a record by its key bytes.
    pub fn find(&self, key: &[u8]) -> Result<Option<RawRecord<'a>>> {
        let b = self.bytes;
        let mut rel = 4;
        while rel < b.len() {
            let klen = usize::from(b[rel] & 0x1f);
            if klen == key.len() && b.get(rel..rel + klen) == Some(key) {
                return self.record_at(rel).map(|(r, _)| Some(r));
            }
            let mpos = rel + klen;
            if klen < 2 || mpos >= b.len() {
                return Err(self.err(rel, "malformed record while searching the page"));
            }
            rel = mpos + usize::from(b[mpos]) + TRAILER_LEN;
        }
        if rel != b.len() {
            return Err(self.err(rel, "last record runs past the used part of the page"));
        }
        Ok(None)
    }
}

/// Iterator over the records of a [`Page`].
pub struct PageRecords<'a> {
    page: Page<'a>,
    rel: usize,
    seen: u32,
    done: bool,
}

impl<'a> Iterator for PageRecords<'a> {
    type Item = Result<RawRecord<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.rel >= self.page.bytes.len() {
            self.done = true;
            if self.seen != u32::from(self.page.count) {
                return Some(Err(self.page.err(
                    2,
                    format!(
                        "page header counts {} records, {} found",
                        self.page.count, self.seen
                    ),
                )));
            }
            return None;
        }
        match self.page.record_at(self.rel) {
            Ok((r, next)) => {
                self.rel = next;
                self.seen += 1;
                Some(Ok(r))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// What the `.ctg` header page and the `.cto`/`.ctb` headers hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtgHeader {
    /// Number of games (u32 at offset 28 of the header page).
    pub games: u32,
    /// u32 at offset 16: in both real books the number of data pages.
    pub page_count_field: u32,
    /// u32 at offset 24: records in `simple.ctg`; 13,321 for 13,305 records in PowerPlay17.
    pub record_count_field: u32,
    /// The first 32 bytes of the header page, raw.
    pub head: [u8; 32],
    /// 32 bytes at offset 1024, unknown, raw.
    pub block_1024: [u8; 32],
    /// 32 bytes at offset 2048, unknown, raw.
    pub block_2048: [u8; 32],
    /// Data pages in the file (its length / 4096 − 1, a partial last page counted).
    pub data_pages: u32,
    /// The 16 `.cto` header bytes, raw.
    pub cto_head: [u8; 16],
    /// Number of `.cto` slots (u32 at offset 4 of the `.cto`).
    pub slots: u32,
    /// Lower page bound (u32 at offset 4 of the `.ctb`).
    pub lower_bound: u32,
    /// Upper page bound (u32 at offset 8 of the `.ctb`).
    pub upper_bound: u32,
    /// The `.ctb` bytes, raw (12-byte head and the bitmap-like rest).
    pub ctb: Vec<u8>,
}

/// One `.cto` slot visited by the lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotProbe {
    /// Slot index c = (hash & n) + n.
    pub slot: u32,
    /// Page stored in the slot (`None` for `0xFFFFFFFF` or a slot past the table).
    pub page: Option<u32>,
}

/// An opened CTG book.
pub struct CtgBook {
    ctg: Data,
    cto: Data,
    names: [String; 3],
    header: CtgHeader,
}

/// The stem of a book path: a `.ctg/.cto/.ctb/.ini` extension (any case) is removed,
/// anything else is kept (`my.book` stays `my.book`).
pub fn book_stem(path: &Path) -> PathBuf {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("ctg" | "cto" | "ctb" | "ini") => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

/// Finds the three files of a book from any one of them or from the stem (lower-case
/// extensions first, then upper-case ones).
pub fn book_paths(path: &Path) -> [PathBuf; 3] {
    let stem = book_stem(path);
    ["ctg", "cto", "ctb"].map(|e| {
        let mut lower = stem.clone().into_os_string();
        lower.push(".");
        lower.push(e);
        let lower = PathBuf::from(lower);
        if lower.exists() {
            return lower;
        }
        let mut upper = stem.clone().into_os_string();
        upper.push(".");
        upper.push(e.to_ascii_uppercase());
        let upper = PathBuf::from(upper);
        if upper.exists() { upper } else { lower }
    })
}

impl CtgBook {
    /// Opens a book given any of its `.ctg/.cto/.ctb/.ini` paths or its stem. The files are
    /// memory-mapped.
    pub fn open(path: impl AsRef<Path>) -> Result<CtgBook> {
        let [ctg, cto, ctb] = book_paths(path.as_ref());
        let names = [&ctg, &cto, &ctb].map(|p| p.display().to_string());
        let ctb_data = read_file(&ctb)?;
        CtgBook::build(read_file(&ctg)?, read_file(&cto)?, &ctb_data, names)
    }

    /// A book from bytes in memory (file names in errors are `<memory>.ctg` etc.).
    pub fn from_bytes(ctg: Vec<u8>, cto: Vec<u8>, ctb: Vec<u8>) -> Result<CtgBook> {
        let names = ["<memory>.ctg", "<memory>.cto", "<memory>.ctb"].map(String::from);
        CtgBook::build(Data::Owned(ctg), Data::Owned(cto), &ctb, names)
    }

    fn build(ctg: Data, cto: Data, ctb: &[u8], names: [String; 3]) -> Result<CtgBook> {
        let header_err = |i: usize, what: String| CtgError::Header {
            file: names[i].clone(),
            what,
        };
        if ctg.len() < PAGE_SIZE {
            return Err(header_err(
                0,
                format!(
                    "{} bytes, shorter than the 4096-byte header page",
                    ctg.len()
                ),
            ));
        }
        if cto.len() < 16 {
            return Err(header_err(
                1,
                format!("{} bytes, shorter than the 16-byte header", cto.len()),
            ));
        }
        if ctb.len() < 12 {
            return Err(header_err(
                2,
                format!("{} bytes, shorter than the 12-byte header", ctb.len()),
            ));
        }
        let slots = be(&cto[4..8]);
        let held = (cto.len() - 16) / 4;
        if slots as usize > held {
            return Err(header_err(
                1,
                format!(
                    "header at offset 4 claims {slots} slots, the file holds {held} (truncated at offset {})",
                    cto.len()
                ),
            ));
        }
        let data_pages = u32::try_from(ctg.len().div_ceil(PAGE_SIZE) - 1)
            .map_err(|_| header_err(0, "more than 2^32 pages".into()))?;
        let arr32 = |o: usize| -> [u8; 32] { ctg[o..o + 32].try_into().expect("32 bytes") };
        let header = CtgHeader {
            games: be(&ctg[28..32]),
            page_count_field: be(&ctg[16..20]),
            record_count_field: be(&ctg[24..28]),
            head: arr32(0),
            block_1024: arr32(1024),
            block_2048: arr32(2048),
            data_pages,
            cto_head: cto[..16].try_into().expect("16 bytes"),
            slots,
            lower_bound: be(&ctb[4..8]),
            upper_bound: be(&ctb[8..12]),
            ctb: ctb.to_vec(),
        };
        Ok(CtgBook {
            ctg,
            cto,
            names,
            header,
        })
    }

    /// Headers of the three files.
    pub fn header(&self) -> &CtgHeader {
        &self.header
    }

    /// Number of games from the header page (offset 28).
    pub fn games(&self) -> u32 {
        self.header.games
    }

    /// Number of data pages.
    pub fn data_pages(&self) -> u32 {
        self.header.data_pages
    }

    /// Page stored in `.cto` slot `slot` (`None`: empty or past the table).
    pub fn slot(&self, slot: u32) -> Option<u32> {
        if slot >= self.header.slots {
            return None;
        }
        let o = 16 + 4 * slot as usize;
        let v = be(&self.cto[o..o + 4]);
        (v != EMPTY_SLOT).then_some(v)
    }

    /// Data page `number` (0 = the page after the header page).
    pub fn page(&self, number: u32) -> Result<Page<'_>> {
        let start = (number as usize + 1) * PAGE_SIZE;
        let err = |rel: usize, what: String| CtgError::Page {
            file: self.names[0].clone(),
            page: number,
            offset: start as u64 + rel as u64,
            what,
        };
        if number >= self.header.data_pages {
            return Err(err(
                0,
                format!(
                    "page past the end of the file ({} data pages)",
                    self.header.data_pages
                ),
            ));
        }
        let avail = &self.ctg[start..self.ctg.len().min(start + PAGE_SIZE)];
        if avail.len() < 4 {
            return Err(err(0, format!("page truncated to {} bytes", avail.len())));
        }
        let count = u16::from_be_bytes([avail[0], avail[1]]);
        let used = u16::from_be_bytes([avail[2], avail[3]]);
        if usize::from(used) < 4 || usize::from(used) > PAGE_SIZE {
            return Err(err(2, format!("bytes used {used} outside 4..=4096")));
        }
        if usize::from(used) > avail.len() {
            return Err(err(
                2,
                format!(
                    "bytes used {used} but the file ends after {} bytes of the page",
                    avail.len()
                ),
            ));
        }
        Ok(Page {
            number,
            count,
            used,
            bytes: &avail[..usize::from(used)],
            file: &self.names[0],
        })
    }

    /// The lookup of the format notes: for n = 0, 1, 3, 7 …, c = (hash & n) + n; skip c below
    /// the lower bound; search the page of slot c; stop when found or once c ≥ the upper
    /// bound. `trace`, when given, receives every slot visited.
    pub fn lookup(
        &self,
        key: &[u8],
        mut trace: Option<&mut Vec<SlotProbe>>,
    ) -> Result<Option<RawRecord<'_>>> {
        let hash = super::key::ctg_hash(key);
        let mut n: u32 = 0;
        while n < 0x7fff_ffff {
            let c = (hash & n) + n;
            if c >= self.header.lower_bound {
                let page = self.slot(c);
                if let Some(t) = trace.as_deref_mut() {
                    t.push(SlotProbe { slot: c, page });
                }
                if let Some(p) = page {
                    if p >= self.header.data_pages {
                        return Err(CtgError::Header {
                            file: self.names[1].clone(),
                            what: format!(
                                "slot {c} at offset {} names page {p}, the book has {} data pages",
                                16 + 4 * u64::from(c),
                                self.header.data_pages
                            ),
                        });
                    }
                    if let Some(r) = self.page(p)?.find(key)? {
                        return Ok(Some(r));
                    }
                }
                if c >= self.header.upper_bound {
                    break;
                }
            }
            n = 2 * n + 1;
        }
        Ok(None)
    }

    /// Finds the record of a key.
    pub fn find(&self, key: &CtgKey) -> Result<Option<RawRecord<'_>>> {
        self.lookup(key.as_bytes(), None)
    }

    /// Probes a real position (either side to move, mirrored or not).
    pub fn probe(&self, pos: &Chess) -> Result<CtgProbe> {
        let transform = Transform::of(pos);
        let key = encode_with(pos, transform)?;
        let mut probes = Vec::new();
        let record = self.lookup(key.as_bytes(), Some(&mut probes))?;
        let entry = match record {
            None => None,
            Some(r) => Some(self.entry(pos, transform, &r)?),
        };
        Ok(CtgProbe {
            hash: key.hash(),
            key,
            transform,
            probes,
            entry,
        })
    }

    /// Decodes a record's moves on the real position `pos` (normalised by `t`).
    fn entry(&self, pos: &Chess, t: Transform, r: &RawRecord<'_>) -> Result<CtgEntry> {
        let mut moves = Vec::new();
        let mut unknown_moves = Vec::new();
        for (code, annotation) in r.move_pairs() {
            match decode_move(pos, t, code) {
                Ok(mv) => {
                    let child_pos = pos.clone().play_unchecked_owned(mv);
                    let child = self.find(&super::key::encode_key(&child_pos)?)?;
                    moves.push(CtgMove {
                        code,
                        annotation,
                        uci: UciMove::from_standard(mv).to_string(),
                        san: SanPlus::from_move(pos.clone(), mv).to_string(),
                        mv,
                        child: child.map(|c| ChildRecord {
                            page: c.page,
                            offset: c.offset,
                            trailer: c.trailer(),
                        }),
                    });
                }
                Err(error) => unknown_moves.push(UnknownMove {
                    code,
                    annotation,
                    error,
                }),
            }
        }
        Ok(CtgEntry {
            page: r.page,
            offset: r.offset,
            trailer: r.trailer(),
            moves,
            unknown_moves,
        })
    }

    /// Every record of every data page, in file order. A malformed page yields one error and
    /// the iteration goes on with the next page.
    pub fn records(&self) -> impl Iterator<Item = Result<RawRecord<'_>>> + '_ {
        (0..self.header.data_pages).flat_map(move |p| {
            let it: Box<dyn Iterator<Item = Result<RawRecord<'_>>>> = match self.page(p) {
                Ok(page) => Box::new(page.records()),
                Err(e) => Box::new(std::iter::once(Err(e))),
            };
            it
        })
    }

    /// Every record as a [`RecordPosition`] (its key decoded, its moves decoded on the
    /// normalised board with the children's statistics). Records whose key cannot be decoded
    /// give an error naming page and offset; iteration goes on.
    pub fn positions(&self) -> impl Iterator<Item = Result<RecordPosition>> + '_ {
        self.records().map(move |r| {
            let r = r?;
            self.record_position(&r).map(|(rp, _)| rp)
        })
    }

    fn record_error(&self, r: &RawRecord<'_>, what: String) -> CtgError {
        CtgError::Page {
            file: self.names[0].clone(),
            page: r.page,
            offset: r.offset,
            what,
        }
    }

    /// Decodes one record; the second value lists (code, child found) for legal moves.
    fn record_position(&self, r: &RawRecord<'_>) -> Result<(RecordPosition, Vec<bool>)> {
        let decoded = decode_key(r.key).map_err(|e| self.record_error(r, e.to_string()))?;
        let pos = decoded.position;
        let entry = self.entry(&pos, Transform::IDENTITY, r)?;
        let trailer = entry.trailer;
        let found: Vec<bool> = entry.moves.iter().map(|m| m.child.is_some()).collect();
        Ok((
            RecordPosition {
                page: r.page,
                offset: r.offset,
                key: CtgKey::from_bytes(r.key).map_err(|e| self.record_error(r, e.to_string()))?,
                key_canonical: decoded.canonical,
                trailer,
                position: entry.to_book_position(pos),
                unknown_moves: entry.unknown_moves,
            },
            found,
        ))
    }

    /// Reads every record as a shared [`BookPosition`] (see [`CtgBook::positions`]); stops
    /// at the first error.
    pub fn book_positions(&self) -> Result<Vec<BookPosition>> {
        self.positions().map(|r| r.map(|rp| rp.position)).collect()
    }

    /// Scans every data page and checks every record: key decodes, the `.cto` lookup finds
    /// it on its own page, every move decodes to a legal move whose child is found.
    pub fn walk(&self) -> WalkReport {
        let h = &self.header;
        let mut rep = WalkReport {
            data_pages: h.data_pages,
            header_games: h.games,
            header_page_count: h.page_count_field,
            header_record_count: h.record_count_field,
            slots: h.slots,
            ..WalkReport::default()
        };
        let part = self.ctg.len() % PAGE_SIZE;
        if part != 0 {
            // Cut short: the last page is in part (what it holds may still read).
            rep.problem(WalkProblem {
                file: self.names[0].clone(),
                page: Some(h.data_pages - 1),
                offset: self.ctg.len() as u64,
                what: format!(
                    "truncated: {} bytes, not a whole number of {PAGE_SIZE}-byte pages (data page {} has {part} bytes)",
                    self.ctg.len(),
                    h.data_pages - 1
                ),
            });
        }
        for c in 0..h.slots {
            if let Some(p) = self.slot(c) {
                rep.slots_used += 1;
                if p >= h.data_pages {
                    rep.problem(WalkProblem {
                        file: self.names[1].clone(),
                        page: None,
                        offset: 16 + 4 * u64::from(c),
                        what: format!("slot {c} names page {p} past the data pages"),
                    });
                }
            }
        }
        let mut keys = HashSet::new();
        for r in self.records() {
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    let (page, offset) = match &e {
                        CtgError::Page { page, offset, .. } => (Some(*page), *offset),
                        _ => (None, 0),
                    };
                    rep.problem(WalkProblem {
                        file: self.names[0].clone(),
                        page,
                        offset,
                        what: e.to_string(),
                    });
                    continue;
                }
            };
            rep.records += 1;
            rep.stored_moves += (r.moves.len() / 2) as u64;
            let here = |what: String| WalkProblem {
                file: self.names[0].clone(),
                page: Some(r.page),
                offset: r.offset,
                what,
            };
            if !keys.insert(r.key) {
                rep.duplicate_keys += 1;
                rep.problem(here("key stored twice".into()));
            }
            for (_, ann) in r.move_pairs() {
                *rep.annotation_bytes.entry(ann).or_default() += 1;
            }
            let t = r.trailer();
            *rep.recommendation_bytes
                .entry(t.recommendation)
                .or_default() += 1;
            if t.wins + t.losses + t.draws > t.games {
                rep.problem(here(format!(
                    "wins {} + losses {} + draws {} exceed games {}",
                    t.wins, t.losses, t.draws, t.games
                )));
            }
            match self.lookup(r.key, None) {
                Ok(Some(found)) if found.page == r.page && found.offset == r.offset => {
                    rep.found_via_cto += 1;
                }
                Ok(Some(found)) => {
                    rep.found_elsewhere += 1;
                    rep.problem(here(format!(
                        "lookup finds the key at page {} offset {} instead",
                        found.page, found.offset
                    )));
                }
                Ok(None) => {
                    rep.not_found_via_cto += 1;
                    rep.problem(here("key not found through the .cto lookup".into()));
                }
                Err(e) => {
                    rep.not_found_via_cto += 1;
                    rep.problem(here(format!("lookup failed: {e}")));
                }
            }
            match self.record_position(&r) {
                Err(e) => {
                    rep.undecodable_keys += 1;
                    rep.problem(here(e.to_string()));
                }
                Ok((rp, found)) => {
                    if !rp.key_canonical {
                        rep.non_canonical_keys += 1;
                        rep.problem(here("key decodes but re-encodes differently".into()));
                    }
                    rep.legal_moves += found.len() as u64;
                    for (i, f) in found.iter().enumerate() {
                        if *f {
                            rep.children_found += 1;
                        } else {
                            rep.children_missing += 1;
                            let m = &rp.position.moves[i];
                            rep.problem(here(format!(
                                "child after {} not found",
                                UciMove::from_standard(m.mv)
                            )));
                        }
                    }
                    for u in &rp.unknown_moves {
                        match u.error {
                            MoveCodeError::UnknownCode(_) => rep.unknown_codes += 1,
                            _ => rep.illegal_moves += 1,
                        }
                        rep.problem(here(u.error.to_string()));
                    }
                }
            }
        }
        rep
    }
}

/// One record decoded: the shared [`BookPosition`] plus where it lives and what could not
/// be represented.
#[derive(Clone, Debug)]
pub struct RecordPosition {
    pub page: u32,
    /// Byte offset in the `.ctg`.
    pub offset: u64,
    pub key: CtgKey,
    /// See [`super::key::DecodedKey::canonical`].
    pub key_canonical: bool,
    pub trailer: Trailer,
    /// The normalised position (White to move), its totals, and its legal moves with the
    /// children's statistics from the mover's side. Annotation = the raw byte when not 0.
    pub position: BookPosition,
    /// Stored moves that are unknown codes or illegal; left out of `position.moves`.
    pub unknown_moves: Vec<UnknownMove>,
}

/// The child record a move leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildRecord {
    pub page: u32,
    pub offset: u64,
    /// The child's trailer; its wins/losses are from the child's side to move, i.e. the
    /// mover's opponent (see [`Trailer::mover_stats`]).
    pub trailer: Trailer,
}

/// A decoded book move.
#[derive(Clone, Debug, PartialEq)]
pub struct CtgMove {
    /// Stored move code.
    pub code: u8,
    /// Stored annotation byte, raw (NAG in the low 5 bits, see [`annotation_nag`]).
    pub annotation: u8,
    /// The move on the real board.
    pub mv: Move,
    /// Standard UCI on the real board (castling `e1g1`).
    pub uci: String,
    /// SAN with check suffix on the real board.
    pub san: String,
    /// The position after the move, if the book has it.
    pub child: Option<ChildRecord>,
}

/// A stored move that is not a known code or not legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownMove {
    pub code: u8,
    pub annotation: u8,
    pub error: MoveCodeError,
}

/// A found record.
#[derive(Clone, Debug, PartialEq)]
pub struct CtgEntry {
    pub page: u32,
    /// Byte offset in the `.ctg`.
    pub offset: u64,
    /// Totals of the position; wins/losses are of the side to move.
    pub trailer: Trailer,
    pub moves: Vec<CtgMove>,
    pub unknown_moves: Vec<UnknownMove>,
}

impl CtgEntry {
    /// The record in the shared model: totals from the side to move, recommendation and
    /// commentary as stored, each move with its annotation byte (left out when 0) and the
    /// statistics of its child record from the mover's side.
    pub fn to_book_position(&self, position: Chess) -> BookPosition {
        let moves = self
            .moves
            .iter()
            .map(|m| BookMove {
                mv: m.mv,
                annotation: (m.annotation != 0).then_some(m.annotation),
                weight: None,
                learn: None,
                stats: m.child.map(|c| c.trailer.mover_stats()),
                green: m.child.map(|c| c.trailer.green()),
                red: m.child.map(|c| c.trailer.red()),
                commentary: m.child.map(|c| c.trailer.commentary),
            })
            .collect();
        BookPosition {
            position,
            stats: Some(self.trailer.stats()),
            recommendation: Some(self.trailer.recommendation),
            commentary: Some(self.trailer.commentary),
            moves,
        }
    }
}

/// Answer of [`CtgBook::probe`].
#[derive(Clone, Debug, PartialEq)]
pub struct CtgProbe {
    pub key: CtgKey,
    pub hash: u32,
    pub transform: Transform,
    /// Slots visited by the lookup, in order.
    pub probes: Vec<SlotProbe>,
    /// The record, if the book has the position.
    pub entry: Option<CtgEntry>,
}

impl CtgProbe {
    /// The shared probe shape. Position totals from the side to move; each move's
    /// statistics from its child record seen from the mover's side; `annotation` is the NAG
    /// (low 5 bits), left out when 0.
    pub fn to_book_probe(&self) -> BookProbe {
        let Some(e) = &self.entry else {
            return BookProbe::default();
        };
        let t = &e.trailer;
        BookProbe {
            found: true,
            games: Some(u64::from(t.games)),
            wins: Some(u64::from(t.wins)),
            draws: Some(u64::from(t.draws)),
            losses: Some(u64::from(t.losses)),
            average_rating: t.average_rating(),
            performance: t.average_performance().map(|p| p as i32),
            recommendation: Some(t.recommendation),
            commentary: Some(t.commentary),
            moves: e
                .moves
                .iter()
                .map(|m| {
                    let c = m.child.map(|c| c.trailer);
                    BookProbeMove {
                        uci: m.uci.clone(),
                        san: m.san.clone(),
                        annotation: annotation_nag(m.annotation),
                        games: c.map(|c| u64::from(c.games)),
                        wins: c.map(|c| u64::from(c.losses)),
                        draws: c.map(|c| u64::from(c.draws)),
                        losses: c.map(|c| u64::from(c.wins)),
                        average_rating: c.and_then(|c| c.average_rating()),
                        performance: c.and_then(|c| c.average_performance()).map(|p| p as i32),
                        green: c.map(|c| c.green()),
                        red: c.map(|c| c.red()),
                        commentary: c.map(|c| c.commentary),
                        weight: None,
                        learn: None,
                    }
                })
                .collect(),
        }
    }
}

/// A problem found by [`CtgBook::walk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkProblem {
    /// The file `offset` refers to.
    pub file: String,
    /// Data page, when the problem is on one.
    pub page: Option<u32>,
    /// Byte offset in `file`.
    pub offset: u64,
    pub what: String,
}

/// Most problems kept in a [`WalkReport`]; the rest are only counted.
pub const MAX_WALK_PROBLEMS: usize = 10_000;

/// Result of [`CtgBook::walk`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalkReport {
    pub data_pages: u32,
    pub slots: u32,
    /// Slots holding a page.
    pub slots_used: u32,
    pub records: u64,
    /// Games from the header page (offset 28).
    pub header_games: u32,
    /// u32 at header offset 16 (data pages in real books).
    pub header_page_count: u32,
    /// u32 at header offset 24 (about the record count; unknown).
    pub header_record_count: u32,
    /// Records the `.cto` lookup finds at their own page and offset.
    pub found_via_cto: u64,
    /// Records whose key the lookup finds elsewhere (a duplicate) .
    pub found_elsewhere: u64,
    /// Records the lookup does not find.
    pub not_found_via_cto: u64,
    pub duplicate_keys: u64,
    pub undecodable_keys: u64,
    pub non_canonical_keys: u64,
    /// (code, annotation) pairs stored.
    pub stored_moves: u64,
    pub legal_moves: u64,
    /// Known codes that give no legal move.
    pub illegal_moves: u64,
    /// Bytes not in the code table.
    pub unknown_codes: u64,
    pub children_found: u64,
    pub children_missing: u64,
    /// How often each annotation byte occurs.
    pub annotation_bytes: BTreeMap<u8, u64>,
    /// How often each recommendation byte occurs.
    pub recommendation_bytes: BTreeMap<u8, u64>,
    /// Problems with page and offset (at most [`MAX_WALK_PROBLEMS`]).
    pub problems: Vec<WalkProblem>,
    /// Problems found in all, kept or not.
    pub problem_count: u64,
}

impl WalkReport {
    fn problem(&mut self, p: WalkProblem) {
        self.problem_count += 1;
        if self.problems.len() < MAX_WALK_PROBLEMS {
            self.problems.push(p);
        }
    }

    /// True when nothing at all was wrong.
    pub fn is_clean(&self) -> bool {
        self.problem_count == 0
    }
}

trait PlayOwned {
    fn play_unchecked_owned(self, m: Move) -> Self;
}

impl PlayOwned for Chess {
    fn play_unchecked_owned(mut self, m: Move) -> Chess {
        self.play_unchecked(m);
        self
    }
}
