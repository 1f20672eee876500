//! Reading Kvetka books: `.kob` files (one or many), the optional `.kin` index and the
//! optional `.ksf` sources.

use std::{
    collections::HashMap,
    fs,
    io::Write,
    path::{Path, PathBuf},
};

use shakmaty::{Chess, Move, Position, san::San};

use crate::{BookMove, BookPosition, BookProbe, BookProbeMove, BookStats};

use super::{
    KvetkaError,
    format::{BLOCK_SIZE, Cursor, KvetkaHeader, ParseError, RawElement, StringOrder},
    key::{KEY_LEN, KvetkaKey, Normalisation, decode_key, position_key, transform},
    ksf::{Ksf, KsfGame},
    moves::decode_move,
};

/// Options for opening a book.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Byte order of Unicode strings (Tabiya writes big-endian).
    pub string_order: StringOrder,
    /// Use the `.kin` index when present (otherwise scan the first key of every block).
    pub use_kin: bool,
    /// Read the `.ksf` sources when present.
    pub use_ksf: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            string_order: StringOrder::BigEndian,
            use_kin: true,
            use_ksf: true,
        }
    }
}

/// Where the block index came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSource {
    /// The `.kin` file.
    Kin,
    /// The first element of every block (no `.kin`, or not used).
    Scanned,
}

enum Data {
    Map(memmap2::Mmap),
    Bytes(Vec<u8>),
}

impl Data {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Map(m) => m,
            Data::Bytes(b) => b,
        }
    }
}

/// A `.kin` or `.ksf` file: beside the `.kob` on disk (read when present), given, or absent.
enum Extra {
    OnDisk,
    Bytes(Vec<u8>),
    Absent,
}

/// The most a `.ksf` sources file may be: some 20 million linked games at about 50 bytes
/// each; it is read and parsed whole (`docs/reliability.md`, *Files named by users*).
pub const MAX_KSF_BYTES: u64 = 1 << 30;

impl Extra {
    /// The file's bytes when it is to be used and exists: a regular file only, within
    /// `limit` (a name that exists but is a FIFO, a device or a directory is refused, not
    /// passed over).
    fn read(
        self,
        path: &Path,
        wanted: bool,
        limit: impl FnOnce() -> tabiya_files::Limit,
    ) -> Result<Option<Vec<u8>>, KvetkaError> {
        match self {
            _ if !wanted => Ok(None),
            Extra::OnDisk if fs::metadata(path).is_ok() => {
                Ok(Some(tabiya_files::read_regular(path, &limit())?))
            }
            Extra::Bytes(b) => Ok(Some(b)),
            Extra::OnDisk | Extra::Absent => Ok(None),
        }
    }
}

struct KobFile {
    path: PathBuf,
    data: Data,
}

/// Where an element was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementLocation {
    /// Index of the `.kob` file (0 for `name_0.kob`).
    pub file: usize,
    /// Byte offset of the element's length field in that file.
    pub offset: u64,
    /// Block number in the whole book.
    pub block: u32,
}

/// An element with its location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvetkaElement {
    pub raw: RawElement,
    pub location: ElementLocation,
}

/// An ECO comment `E98|name|variation` split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcoComment {
    pub eco: String,
    pub name: String,
    pub variation: Option<String>,
}

impl EcoComment {
    /// Parses `A41|Queen's Pawn` or `B33|Sicilian Defence|Pelikan, Bird Variation`;
    /// `None` when the comment is not in that form.
    pub fn parse(comment: &str) -> Option<EcoComment> {
        let mut parts = comment.splitn(3, '|');
        let eco = parts.next()?;
        let b = eco.as_bytes();
        if b.len() != 3
            || !(b'A'..=b'E').contains(&b[0])
            || !b[1].is_ascii_digit()
            || !b[2].is_ascii_digit()
        {
            return None;
        }
        let name = parts.next()?;
        Some(EcoComment {
            eco: eco.to_string(),
            name: name.to_string(),
            variation: parts.next().map(str::to_string),
        })
    }

    /// The comment text.
    pub fn to_comment(&self) -> String {
        match &self.variation {
            Some(v) => format!("{}|{}|{}", self.eco, self.name, v),
            None => format!("{}|{}", self.eco, self.name),
        }
    }
}

/// One stored move code of a probed position.
#[derive(Debug, Clone, PartialEq)]
pub struct KvetkaDetailMove {
    pub code: u8,
    /// The move on the real board, when the code decodes to a legal move.
    pub mv: Option<Move>,
    pub uci: Option<String>,
    pub san: Option<String>,
    /// Wins, draws and losses of the mover, read from the child element when it is stored.
    pub child_stats: Option<(u64, u64, u64)>,
    /// Why the code gives no move.
    pub problem: Option<String>,
}

/// Everything a probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct KvetkaProbeDetail {
    pub key: KvetkaKey,
    pub normalisation: Normalisation,
    pub element: Option<KvetkaElement>,
    pub moves: Vec<KvetkaDetailMove>,
    pub eco: Option<EcoComment>,
}

/// Where a game's text is, from the `.ksf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSource {
    /// Source type: 1 PGN, 2 web page, 3 CBH, 0 empty.
    pub source_type: u8,
    pub is_bad: bool,
    /// The address as stored.
    pub address: String,
    /// The file path for PGN and CBH sources, `%currentdir` replaced by the book's folder.
    pub path: Option<PathBuf>,
    /// Byte offset and length of the game's text (PGN) or record (CBH).
    pub offset: u64,
    pub length: u64,
    pub game: KsfGame,
}

/// An open Kvetka book.
pub struct KvetkaBook {
    dir: PathBuf,
    base: PathBuf,
    files: Vec<KobFile>,
    header: KvetkaHeader,
    header_len: usize,
    /// (file, offset) of every block.
    blocks: Vec<(usize, usize)>,
    /// (first key, block) for the blocks the index covers, sorted.
    index: Vec<(KvetkaKey, u32)>,
    index_source: IndexSource,
    kin_path: PathBuf,
    ksf: Option<Ksf>,
    options: ReadOptions,
}

impl std::fmt::Debug for KvetkaBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvetkaBook")
            .field("base", &self.base)
            .field(
                "files",
                &self.files.iter().map(|f| &f.path).collect::<Vec<_>>(),
            )
            .field("header", &self.header)
            .field("index_source", &self.index_source)
            .finish()
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> KvetkaError + '_ {
    move |source| KvetkaError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn corrupt(path: &Path, offset: u64, what: impl Into<String>) -> KvetkaError {
    KvetkaError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what: what.into(),
    }
}

fn parse_err(path: &Path, base: u64) -> impl FnOnce(ParseError) -> KvetkaError + '_ {
    move |e| corrupt(path, base + e.offset as u64, e.what)
}

/// A `.kob` file: a regular file only, never waiting on a FIFO
/// ([`tabiya_files::open_regular`]); read when under 1 MiB (exactly the size it had when
/// opened: one that shrinks meanwhile is an error), else mapped.
#[allow(unsafe_code)] // one memory map / FFI call, see the SAFETY comment below
fn load(path: &Path) -> Result<Data, KvetkaError> {
    let (mut file, len) = tabiya_files::open_regular(path)?;
    if len == 0 {
        return Ok(Data::Bytes(Vec::new()));
    }
    // Small files are read: a memory map is for large ones.
    if len < 1 << 20 {
        return Ok(Data::Bytes(tabiya_files::read_exactly(
            &mut file, path, len,
        )?));
    }
    // SAFETY: the book's files are opened read-only and are not expected to change while the
    // book is open (the same assumption every memory-mapped reader makes); a concurrent
    // truncation could fault.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err(path))?;
    Ok(Data::Map(map))
}

/// The `.kob` files of a book and its base path (`dir/name`, no extension).
fn book_files(path: &Path) -> Result<(PathBuf, Vec<PathBuf>), KvetkaError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    // Every `name_N.kob` that exists, whatever it is: one that is not a regular file is
    // refused when it is loaded rather than passed over.
    let numbered = |base: &Path| -> Vec<PathBuf> {
        let mut v = Vec::new();
        loop {
            let p = PathBuf::from(format!("{}_{}.kob", base.display(), v.len()));
            if fs::metadata(&p).is_err() {
                break v;
            }
            v.push(p);
        }
    };
    if let Some(stem) = name.strip_suffix(".kob") {
        if let Some((b, n)) = stem.rsplit_once('_')
            && !n.is_empty()
            && n.bytes().all(|c| c.is_ascii_digit())
        {
            let base = dir.join(b);
            if n != "0" {
                return Err(corrupt(
                    path,
                    0,
                    "only the first file (name_0.kob) of a numbered book has a header: open that one",
                ));
            }
            return Ok((base.clone(), numbered(&base)));
        }
        return Ok((dir.join(stem), vec![path.to_path_buf()]));
    }
    let base = match name
        .strip_suffix(".kin")
        .or_else(|| name.strip_suffix(".ksf"))
    {
        Some(stem) => dir.join(stem),
        None => path.to_path_buf(),
    };
    let files = numbered(&base);
    if files.is_empty() {
        return Err(KvetkaError::Io {
            path: PathBuf::from(format!("{}_0.kob", base.display())),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no .kob file"),
        });
    }
    Ok((base, files))
}

impl KvetkaBook {
    /// Opens a book. `path` may be the base name (`dir/name`), any of its files
    /// (`name_0.kob`, `name.kin`, `name.ksf`) or a single unnumbered `.kob` file.
    pub fn open(path: impl AsRef<Path>) -> Result<KvetkaBook, KvetkaError> {
        Self::open_with(path, ReadOptions::default())
    }

    /// Opens a book with options.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: ReadOptions,
    ) -> Result<KvetkaBook, KvetkaError> {
        let (base, paths) = book_files(path.as_ref())?;
        if paths.is_empty() {
            return Err(KvetkaError::Io {
                path: path.as_ref().to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no .kob file"),
            });
        }
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            let data = load(&p)?;
            files.push(KobFile { path: p, data });
        }
        Self::assemble(base, files, Extra::OnDisk, Extra::OnDisk, options)
    }

    /// A book from bytes in memory: the `.kob` file (one, unnumbered) and the `.kin` index
    /// and `.ksf` sources when given; file names in errors are `<memory>.kob` etc.
    pub fn from_bytes(
        kob: Vec<u8>,
        kin: Option<Vec<u8>>,
        ksf: Option<Vec<u8>>,
        options: ReadOptions,
    ) -> Result<KvetkaBook, KvetkaError> {
        let base = PathBuf::from("<memory>");
        let files = vec![KobFile {
            path: PathBuf::from("<memory>.kob"),
            data: Data::Bytes(kob),
        }];
        let extra = |b: Option<Vec<u8>>| b.map_or(Extra::Absent, Extra::Bytes);
        Self::assemble(base, files, extra(kin), extra(ksf), options)
    }

    /// The book from its `.kob` files, the `.kin` and `.ksf` read from disk or given.
    fn assemble(
        base: PathBuf,
        files: Vec<KobFile>,
        kin: Extra,
        ksf: Extra,
        options: ReadOptions,
    ) -> Result<KvetkaBook, KvetkaError> {
        let dir = base.parent().map(Path::to_path_buf).unwrap_or_default();
        let first = &files[0];
        let (header, header_len) = KvetkaHeader::parse(first.data.bytes(), options.string_order)
            .map_err(parse_err(&first.path, 0))?;

        let mut blocks = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let start = if i == 0 { header_len } else { 0 };
            let len = f.data.bytes().len();
            let body = len - start;
            if body % BLOCK_SIZE != 0 {
                let partial = start + body / BLOCK_SIZE * BLOCK_SIZE;
                return Err(corrupt(
                    &f.path,
                    partial as u64,
                    format!(
                        "file ends inside a block: {} bytes after the last whole block \
                         (truncated?)",
                        body % BLOCK_SIZE
                    ),
                ));
            }
            for b in 0..body / BLOCK_SIZE {
                blocks.push((i, start + b * BLOCK_SIZE));
            }
        }
        if blocks.len() as u64 != u64::from(header.block_count) {
            return Err(corrupt(
                &files[0].path,
                (header_len - 4) as u64,
                format!(
                    "header says {} blocks, the .kob file(s) hold {}",
                    header.block_count,
                    blocks.len()
                ),
            ));
        }

        let kin_path = PathBuf::from(format!("{}.kin", base.display()));
        let ksf_path = PathBuf::from(format!("{}.ksf", base.display()));
        let mut book = KvetkaBook {
            dir,
            base,
            files,
            header,
            header_len,
            blocks,
            index: Vec::new(),
            index_source: IndexSource::Scanned,
            kin_path,
            ksf: None,
            options,
        };
        // A `.kin` holds one key per block, nothing more.
        let kin_limit = || {
            tabiya_files::Limit::new(
                (book.blocks.len() * KEY_LEN) as u64,
                format!(
                    "a .kin index of {} blocks can be ({KEY_LEN} bytes a block)",
                    book.blocks.len()
                ),
            )
        };
        match kin.read(&book.kin_path, options.use_kin, kin_limit)? {
            Some(data) => {
                book.index = book.read_kin(&data)?;
                book.index_source = IndexSource::Kin;
            }
            None => book.index = book.scan_index()?,
        }
        let ksf_limit = || tabiya_files::Limit::new(MAX_KSF_BYTES, "read of a .ksf sources file");
        if let Some(data) = ksf.read(&ksf_path, options.use_ksf, ksf_limit)? {
            book.ksf =
                Some(Ksf::parse(&data, options.string_order).map_err(parse_err(&ksf_path, 0))?);
        }
        Ok(book)
    }

    fn read_kin(&self, data: &[u8]) -> Result<Vec<(KvetkaKey, u32)>, KvetkaError> {
        let path = &self.kin_path;
        let expected = self.blocks.len() * KEY_LEN;
        if data.len() != expected {
            return Err(corrupt(
                path,
                data.len().min(expected) as u64,
                format!(
                    ".kin holds {} bytes, {} blocks need {expected}",
                    data.len(),
                    self.blocks.len()
                ),
            ));
        }
        let mut index = Vec::with_capacity(self.blocks.len());
        for (i, chunk) in data.chunks_exact(KEY_LEN).enumerate() {
            let key: KvetkaKey = chunk.try_into().expect("22 bytes");
            if let Some((prev, _)) = index.last()
                && *prev > key
            {
                return Err(corrupt(
                    path,
                    (i * KEY_LEN) as u64,
                    format!(
                        "key of block {i} is smaller than the key of block {}",
                        i - 1
                    ),
                ));
            }
            index.push((key, i as u32));
        }
        Ok(index)
    }

    fn scan_index(&self) -> Result<Vec<(KvetkaKey, u32)>, KvetkaError> {
        let mut index = Vec::with_capacity(self.blocks.len());
        for b in 0..self.blocks.len() {
            let (file, off) = self.blocks[b];
            let path = &self.files[file].path;
            let (data, n) = self.block_bytes(b)?;
            if n > 2 {
                // The key follows the element's CompactInt length.
                let mut c = Cursor::new(&data[..n], 2);
                c.compact("element length")
                    .map_err(parse_err(path, off as u64))?;
                let key: KvetkaKey = c
                    .take(KEY_LEN, "element key")
                    .map_err(parse_err(path, off as u64))?
                    .try_into()
                    .expect("22 bytes");
                if let Some((prev, _)) = index.last()
                    && *prev > key
                {
                    return Err(corrupt(
                        path,
                        off as u64 + 2,
                        format!("first key of block {b} is smaller than the previous block's"),
                    ));
                }
                index.push((key, b as u32));
            }
        }
        Ok(index)
    }

    /// A block's bytes and its useful length `n`.
    fn block_bytes(&self, b: usize) -> Result<(&[u8], usize), KvetkaError> {
        let (file, off) = self.blocks[b];
        let f = &self.files[file];
        let data = &f.data.bytes()[off..off + BLOCK_SIZE];
        let n = usize::from(u16::from_be_bytes([data[0], data[1]]));
        if !(2..=BLOCK_SIZE).contains(&n) {
            return Err(corrupt(
                &f.path,
                off as u64,
                format!("block {b}: useful size n = {n}, must be 2..=2048"),
            ));
        }
        Ok((data, n))
    }

    /// Parses every element of block `b`.
    pub fn block_elements(&self, b: usize) -> Result<Vec<KvetkaElement>, KvetkaError> {
        if b >= self.blocks.len() {
            return Err(KvetkaError::Invalid(format!(
                "block {b} does not exist ({} blocks)",
                self.blocks.len()
            )));
        }
        let (file, off) = self.blocks[b];
        let path = &self.files[file].path;
        let (data, n) = self.block_bytes(b)?;
        let mut c = Cursor::new(data, 2);
        let mut out = Vec::new();
        while c.pos < n {
            let at = c.pos;
            let raw = RawElement::parse(
                &mut c,
                n,
                self.header.stores_links(),
                self.options.string_order,
            )
            .map_err(parse_err(path, off as u64))?;
            out.push(KvetkaElement {
                raw,
                location: ElementLocation {
                    file,
                    offset: (off + at) as u64,
                    block: b as u32,
                },
            });
        }
        Ok(out)
    }

    /// The header of the first `.kob` file.
    pub fn header(&self) -> &KvetkaHeader {
        &self.header
    }

    /// Length of the header in bytes.
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// The `.kob` files read, in order.
    pub fn kob_files(&self) -> Vec<&Path> {
        self.files.iter().map(|f| f.path.as_path()).collect()
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Where the block index came from.
    pub fn index_source(&self) -> IndexSource {
        self.index_source
    }

    /// The `.ksf` sources, when present.
    pub fn sources(&self) -> Option<&Ksf> {
        self.ksf.as_ref()
    }

    /// Finds the element of a key (binary search over the index, then a scan of one block
    /// that reads only each element's length and key until the key is reached).
    pub fn find(&self, key: &KvetkaKey) -> Result<Option<KvetkaElement>, KvetkaError> {
        let i = self.index.partition_point(|(k, _)| k <= key);
        if i == 0 {
            return Ok(None);
        }
        let block = self.index[i - 1].1 as usize;
        let (file, off) = self.blocks[block];
        let path = &self.files[file].path;
        let (data, n) = self.block_bytes(block)?;
        let mut c = Cursor::new(&data[..n], 2);
        while c.pos < n {
            let at = c.pos;
            let length = c
                .compact("element length")
                .map_err(parse_err(path, off as u64))?;
            let body = c.pos;
            let stored: &[u8] = c
                .take(KEY_LEN, "element key")
                .map_err(parse_err(path, off as u64))?;
            match stored.cmp(&key[..]) {
                std::cmp::Ordering::Less => {
                    let next = body as u64 + length;
                    if next > n as u64 {
                        return Err(corrupt(
                            path,
                            (off + at) as u64,
                            format!("element length {length} runs past the block's useful bytes"),
                        ));
                    }
                    c.pos = next as usize;
                }
                std::cmp::Ordering::Greater => return Ok(None),
                std::cmp::Ordering::Equal => {
                    c.pos = at;
                    let raw = RawElement::parse(
                        &mut c,
                        n,
                        self.header.stores_links(),
                        self.options.string_order,
                    )
                    .map_err(parse_err(path, off as u64))?;
                    return Ok(Some(KvetkaElement {
                        raw,
                        location: ElementLocation {
                            file,
                            offset: (off + at) as u64,
                            block: block as u32,
                        },
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Wins, draws and losses stored for a position (from its side to move).
    fn stats_of(&self, pos: &Chess) -> Result<Option<(u64, u64, u64)>, KvetkaError> {
        let Ok((key, _)) = position_key(pos) else {
            return Ok(None);
        };
        Ok(self
            .find(&key)?
            .map(|e| (e.raw.wins, e.raw.draws, e.raw.losses)))
    }

    /// Everything stored for a position: element, decoded moves (mapped to the real board)
    /// with their children's statistics, ECO comment.
    pub fn probe_detail(&self, pos: &Chess) -> Result<KvetkaProbeDetail, KvetkaError> {
        let (key, norm) = position_key(pos)?;
        let element = self.find(&key)?;
        let mut moves = Vec::new();
        let mut eco = None;
        if let Some(e) = &element {
            let normal = transform(pos, norm)?;
            for &code in &e.raw.moves {
                let decoded = decode_move(&normal, code)
                    .map_err(|e| e.to_string())
                    .and_then(|m| {
                        map_move(m, pos, norm)
                            .ok_or_else(|| "move does not map back to the real board".into())
                    });
                match decoded {
                    Ok(m) => {
                        let mut child = pos.clone();
                        child.play_unchecked(m);
                        let child_stats = self.stats_of(&child)?.map(|(w, d, l)| (l, d, w));
                        moves.push(KvetkaDetailMove {
                            code,
                            mv: Some(m),
                            uci: Some(m.to_uci(pos.castles().mode()).to_string()),
                            san: Some(San::from_move(pos, m).to_string()),
                            child_stats,
                            problem: None,
                        });
                    }
                    Err(problem) => moves.push(KvetkaDetailMove {
                        code,
                        mv: None,
                        uci: None,
                        san: None,
                        child_stats: None,
                        problem: Some(problem),
                    }),
                }
            }
            eco = e.raw.comment.as_deref().and_then(EcoComment::parse);
        }
        Ok(KvetkaProbeDetail {
            key,
            normalisation: norm,
            element,
            moves,
            eco,
        })
    }

    /// Probes a position: totals from the side to move (games = wins + draws + losses: Kvetka
    /// counts no games without a result), and each stored move with its child's statistics
    /// from the mover's side. Codes that give no legal move are left out (see
    /// [`KvetkaBook::probe_detail`]).
    pub fn probe(&self, pos: &Chess) -> Result<BookProbe, KvetkaError> {
        let d = self.probe_detail(pos)?;
        let Some(e) = &d.element else {
            return Ok(BookProbe::default());
        };
        let moves = d
            .moves
            .iter()
            .filter_map(|m| {
                Some(BookProbeMove {
                    uci: m.uci.clone()?,
                    san: m.san.clone()?,
                    games: m.child_stats.map(|(w, d, l)| w + d + l),
                    wins: m.child_stats.map(|s| s.0),
                    draws: m.child_stats.map(|s| s.1),
                    losses: m.child_stats.map(|s| s.2),
                    ..BookProbeMove::default()
                })
            })
            .collect();
        Ok(BookProbe {
            found: true,
            games: Some(e.raw.wins + e.raw.draws + e.raw.losses),
            wins: Some(e.raw.wins),
            draws: Some(e.raw.draws),
            losses: Some(e.raw.losses),
            moves,
            ..BookProbe::default()
        })
    }

    /// Calls `f` for every element in book order.
    pub fn for_each_element(
        &self,
        mut f: impl FnMut(KvetkaElement) -> Result<(), KvetkaError>,
    ) -> Result<(), KvetkaError> {
        for b in 0..self.blocks.len() {
            for e in self.block_elements(b)? {
                f(e)?;
            }
        }
        Ok(())
    }

    /// Every element as a [`BookPosition`] for conversion. Positions are the normalised ones
    /// the keys name (White to move; see `docs/formats/kvetka.md`); move statistics come from
    /// the child elements, from the mover's side. Codes that give no legal move are left out
    /// and counted in the second value.
    pub fn read_positions(&self) -> Result<(Vec<BookPosition>, u64), KvetkaError> {
        let mut elements = Vec::new();
        self.for_each_element(|e| {
            elements.push(e);
            Ok(())
        })?;
        let stats: HashMap<KvetkaKey, (u64, u64, u64)> = elements
            .iter()
            .map(|e| (e.raw.key, (e.raw.wins, e.raw.draws, e.raw.losses)))
            .collect();
        let mut out = Vec::with_capacity(elements.len());
        let mut bad_moves = 0u64;
        for e in &elements {
            let pos = decode_key(&e.raw.key).map_err(|err| {
                corrupt(
                    &self.files[e.location.file].path,
                    e.location.offset,
                    format!("element key: {err}"),
                )
            })?;
            let mut moves = Vec::with_capacity(e.raw.moves.len());
            for &code in &e.raw.moves {
                let Ok(m) = decode_move(&pos, code) else {
                    bad_moves += 1;
                    continue;
                };
                let mut child = pos.clone();
                child.play_unchecked(m);
                let child_stats = position_key(&child)
                    .ok()
                    .and_then(|(k, _)| stats.get(&k))
                    .map(|&(w, d, l)| BookStats {
                        games: w + d + l,
                        wins: l,
                        draws: d,
                        losses: w,
                        ..BookStats::default()
                    });
                moves.push(BookMove {
                    mv: m,
                    annotation: None,
                    weight: None,
                    learn: None,
                    stats: child_stats,
                    green: None,
                    red: None,
                    commentary: None,
                });
            }
            out.push(BookPosition {
                position: pos,
                stats: Some(BookStats {
                    games: e.raw.wins + e.raw.draws + e.raw.losses,
                    wins: e.raw.wins,
                    draws: e.raw.draws,
                    losses: e.raw.losses,
                    ..BookStats::default()
                }),
                recommendation: None,
                commentary: None,
                moves,
            });
        }
        Ok((out, bad_moves))
    }

    /// Where a linked game's text is: source path (PGN/CBH), byte offset and length.
    pub fn game_source(&self, link: super::GameLink) -> Result<GameSource, KvetkaError> {
        let ksf = self.ksf.as_ref().ok_or_else(|| {
            KvetkaError::Invalid(format!(
                "{}.ksf is missing: game sources are not available",
                self.base.display()
            ))
        })?;
        let source = ksf.sources.get(usize::from(link.source)).ok_or_else(|| {
            KvetkaError::Invalid(format!(
                "source {} does not exist ({} sources)",
                link.source,
                ksf.sources.len()
            ))
        })?;
        let game = source.games.get(link.game as usize).ok_or_else(|| {
            KvetkaError::Invalid(format!(
                "game {} of source {} does not exist ({} games)",
                link.game,
                link.source,
                source.games.len()
            ))
        })?;
        let path = matches!(source.source_type, 1 | 3).then(|| {
            match source.address.strip_prefix("%currentdir") {
                Some(rest) => self.dir.join(rest.trim_start_matches(['/', '\\'])),
                None => PathBuf::from(&source.address),
            }
        });
        Ok(GameSource {
            source_type: source.source_type,
            is_bad: source.is_bad != 0,
            address: source.address.clone(),
            path,
            offset: u64::from(game.address),
            length: u64::from(game.length),
            game: game.clone(),
        })
    }

    /// Checks the whole book: keys strictly increasing, the index agreeing with the blocks,
    /// keys decoding, move codes giving legal moves. Returns the problems found (the book is
    /// still readable when there are some).
    pub fn verify(&self) -> Result<Vec<String>, KvetkaError> {
        let mut problems = Vec::new();
        let mut prev: Option<KvetkaKey> = None;
        let mut first_keys: HashMap<u32, KvetkaKey> = HashMap::new();
        self.for_each_element(|e| {
            let path = &self.files[e.location.file].path;
            let at = format!("{} offset {}", path.display(), e.location.offset);
            if let Some(p) = prev
                && p >= e.raw.key
            {
                problems.push(format!("{at}: key not greater than the previous element's"));
            }
            prev = Some(e.raw.key);
            first_keys.entry(e.location.block).or_insert(e.raw.key);
            match decode_key(&e.raw.key) {
                Err(err) => problems.push(format!("{at}: {err}")),
                Ok(pos) => {
                    for &code in &e.raw.moves {
                        if let Err(err) = decode_move(&pos, code) {
                            problems.push(format!("{at}: {err}"));
                        }
                    }
                }
            }
            if !e.raw.unknown_tail.is_empty() {
                problems.push(format!(
                    "{at}: {} unknown bytes after the known fields (flags {:#04x}), kept raw",
                    e.raw.unknown_tail.len(),
                    e.raw.flags
                ));
            }
            Ok(())
        })?;
        if self.index_source == IndexSource::Kin {
            for (key, block) in &self.index {
                if let Some(first) = first_keys.get(block)
                    && first != key
                {
                    problems.push(format!(
                        "{}: key of block {block} differs from the block's first element",
                        self.kin_path.display()
                    ));
                }
            }
        }
        if self.header.element_type & !1 != 0 {
            problems.push(format!(
                "header element_type {:#04x} has unknown bits set (kept)",
                self.header.element_type
            ));
        }
        Ok(problems)
    }

    /// Writes a human-readable dump of the whole book.
    pub fn dump(&self, out: &mut dyn Write) -> Result<(), KvetkaError> {
        let w = |e: std::io::Error| KvetkaError::Io {
            path: PathBuf::from("<dump output>"),
            source: e,
        };
        let h = &self.header;
        writeln!(
            out,
            "book {} ({} file(s), {} blocks, index from {:?})",
            self.base.display(),
            self.files.len(),
            self.blocks.len(),
            self.index_source
        )
        .map_err(w)?;
        writeln!(
            out,
            "type {:#04x} caption {:?} min elo white {} black {} stronger {} weaker {} \
             max_move {} element_type {:#04x} links {} blocks {}",
            h.book_type,
            h.caption,
            h.min_white_elo,
            h.min_black_elo,
            h.min_stronger_elo,
            h.min_weaker_elo,
            h.max_move,
            h.element_type,
            h.links,
            h.block_count
        )
        .map_err(w)?;
        self.for_each_element(|e| {
            let r = &e.raw;
            let key: String = r.key.iter().map(|b| format!("{b:02x}")).collect();
            let pos = decode_key(&r.key);
            let fen = match &pos {
                Ok(p) => {
                    shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string()
                }
                Err(e) => format!("<{e}>"),
            };
            let moves: Vec<String> = r
                .moves
                .iter()
                .map(
                    |&c| match pos.as_ref().ok().map(|p| (p, decode_move(p, c))) {
                        Some((p, Ok(m))) => format!("{c:02x}:{}", San::from_move(p, m)),
                        _ => format!("{c:02x}:?"),
                    },
                )
                .collect();
            writeln!(
                out,
                "{} @{}:{} key {key} fen {fen} w/d/l {}/{}/{} moves [{}] flags {:#04x}{}{}{}{}",
                e.location.block,
                e.location.file,
                e.location.offset,
                r.wins,
                r.draws,
                r.losses,
                moves.join(" "),
                r.flags,
                r.some_game
                    .map(|g| format!(" some_game {}:{}", g.source, g.game))
                    .unwrap_or_default(),
                r.comment
                    .as_ref()
                    .map(|c| format!(" comment {c:?}"))
                    .unwrap_or_default(),
                r.last_games
                    .as_ref()
                    .map(|l| format!(
                        " last_games [{}]",
                        l.iter()
                            .map(|g| format!("{}:{}", g.source, g.game))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ))
                    .unwrap_or_default(),
                if r.unknown_tail.is_empty() {
                    String::new()
                } else {
                    format!(
                        " unknown {}",
                        r.unknown_tail
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect::<String>()
                    )
                }
            )
            .map_err(w)
        })
    }
}

/// Maps a legal move of one position to the corresponding move of `to_pos`, the two
/// positions being related by `norm` (either direction: the map is its own inverse). The
/// squares are transformed directly; the result is checked for legality in `to_pos`.
pub fn map_move(m: Move, to_pos: &Chess, norm: Normalisation) -> Option<Move> {
    let t = |sq| norm.to_real(sq);
    let mapped = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => Move::Normal {
            role,
            from: t(from),
            capture,
            to: t(to),
            promotion,
        },
        Move::EnPassant { from, to } => Move::EnPassant {
            from: t(from),
            to: t(to),
        },
        Move::Castle { king, rook } => Move::Castle {
            king: t(king),
            rook: t(rook),
        },
        Move::Put { .. } => return None,
    };
    to_pos.is_legal(mapped).then_some(mapped)
}
