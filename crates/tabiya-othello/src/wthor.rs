//! WTHOR, the French Othello Federation's game database: `.wtb` games (8×8), `.wtd` games
//! (10×10, read and written as records; not replayed), `.jou` players, `.trn` tournaments.
//!
//! All integers are little-endian. Every file starts with a 16-byte [`Header`]; every field is
//! kept raw, so writing a file back gives the same bytes. Bytes after the last whole record are
//! kept in `trailing` and written back too.
//!
//! Reading never panics and, past the header, never fails: damaged parts are reported in
//! `problems` ([`WthorError`] values naming the file, the game index and the byte offset) and
//! the rest of the file is read.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::square::Square;

/// Size of the header of every WTHOR file.
pub const HEADER_SIZE: usize = 16;
/// Size of a player name record in `.jou`.
pub const PLAYER_NAME_SIZE: usize = 20;
/// Size of a tournament name record in `.trn`.
pub const TOURNAMENT_NAME_SIZE: usize = 26;
/// Size of an 8×8 game record in `.wtb`.
pub const GAME_SIZE_8: usize = 68;
/// Size of a 10×10 game record in `.wtd`.
pub const GAME_SIZE_10: usize = 104;

/// An error or a problem found while reading WTHOR files. Offsets are byte offsets from the
/// start of the file; game indices count from 0.
#[derive(Debug, thiserror::Error)]
pub enum WthorError {
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is shorter than its header.
    #[error("{file}: {len} bytes, shorter than the 16-byte WTHOR header")]
    TooShort {
        /// The file.
        file: PathBuf,
        /// Its length.
        len: usize,
    },
    /// The header's board size (offset 12) is neither 0, 8 nor 10, so the record size is
    /// unknown.
    #[error("{file}: offset 12: board size {value} is not 0, 8 or 10; the record size is unknown")]
    BoardSize {
        /// The file.
        file: PathBuf,
        /// The raw byte.
        value: u8,
    },
    /// The last record is cut short; its bytes are kept as trailing bytes.
    #[error(
        "{file}: {what} {index} at offset {offset}: truncated record, {available} of {size} bytes"
    )]
    TruncatedRecord {
        /// The file.
        file: PathBuf,
        /// `game`, `player` or `tournament`.
        what: &'static str,
        /// Index of the incomplete record.
        index: usize,
        /// Its offset.
        offset: usize,
        /// Bytes present.
        available: usize,
        /// Record size.
        size: usize,
    },
    /// The header's count and the number of whole records differ.
    #[error(
        "{file}: header (offset {field_offset}) declares {declared} records, the file holds {actual}; {read} read"
    )]
    CountMismatch {
        /// The file.
        file: PathBuf,
        /// Offset of the count field (4 for games, 8 for names).
        field_offset: usize,
        /// The header's count.
        declared: u32,
        /// Whole records in the file.
        actual: usize,
        /// Records read (the smaller of the two); the rest is kept as trailing bytes.
        read: usize,
    },
    /// A move byte that names no square.
    #[error("{file}: game {game}: move {} at offset {offset}: byte {byte} is not a square", ply + 1)]
    BadMoveByte {
        /// The file.
        file: PathBuf,
        /// Game index.
        game: usize,
        /// 0-based move index.
        ply: usize,
        /// Offset of the byte in the file.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// A non-zero byte after the zero that ends the moves.
    #[error("{file}: game {game}: offset {offset}: byte {byte} after the end of the moves (move {})", ply + 1)]
    MoveAfterEnd {
        /// The file.
        file: PathBuf,
        /// Game index.
        game: usize,
        /// 0-based index of the byte among the move bytes.
        ply: usize,
        /// Offset in the file.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// A 10×10 game was given where only 8×8 games can be handled (replay, check).
    #[error("{file}: 10×10 games are not replayed: Tabiya's Othello rules are 8×8 only")]
    Unsupported10x10 {
        /// The file.
        file: PathBuf,
    },
    /// No .jou/.trn file was found beside a .wtb file.
    #[error("{dir}: no {what} file found beside the games (give it explicitly)")]
    NamesNotFound {
        /// The directory searched.
        dir: PathBuf,
        /// `.jou` or `.trn`.
        what: &'static str,
    },
    /// The file was refused before it was read: not a regular file (a FIFO, a device, a
    /// directory), larger than its format allows or than [`MAX_GAME_FILE_BYTES`], or cut
    /// short while it was read.
    #[error(transparent)]
    File(tabiya_files::FileError),
}

impl From<tabiya_files::FileError> for WthorError {
    /// The operating system's errors as [`WthorError::Io`], the refusals as they are.
    fn from(e: tabiya_files::FileError) -> WthorError {
        match e {
            tabiya_files::FileError::Io { path, source } => WthorError::Io { file: path, source },
            other => WthorError::File(other),
        }
    }
}

/// The most bytes of a game file (`.wtb`, `.wtd`) read: some 3.9 million 8×8 games, thirty
/// times every game WTHOR has gathered since 1977 (its count field would allow 292 GB).
pub const MAX_GAME_FILE_BYTES: u64 = 256 << 20;

/// The 16-byte header common to all WTHOR files, every field raw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// Offset 0: century of the creation date (20 for 20xx).
    pub created_century: u8,
    /// Offset 1: year within the century.
    pub created_year: u8,
    /// Offset 2: month.
    pub created_month: u8,
    /// Offset 3: day.
    pub created_day: u8,
    /// Offset 4: number of games (u32; `.wtb`/`.wtd`, 0 in `.jou`/`.trn`).
    pub games: u32,
    /// Offset 8: number of records (u16; `.jou`/`.trn`, 0 in game files).
    pub records: u16,
    /// Offset 10: year of the games (u16).
    pub year: u16,
    /// Offset 12: board size: 0 or 8 = 8×8, 10 = 10×10 (kept raw).
    pub board_size: u8,
    /// Offset 13: game type (1 = solitaire file).
    pub game_type: u8,
    /// Offset 14: depth of the theoretical score (empty squares).
    pub depth: u8,
    /// Offset 15: reserved.
    pub reserved: u8,
}

impl Header {
    /// Reads a header from 16 bytes.
    pub fn parse(b: &[u8; HEADER_SIZE]) -> Header {
        Header {
            created_century: b[0],
            created_year: b[1],
            created_month: b[2],
            created_day: b[3],
            games: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            records: u16::from_le_bytes([b[8], b[9]]),
            year: u16::from_le_bytes([b[10], b[11]]),
            board_size: b[12],
            game_type: b[13],
            depth: b[14],
            reserved: b[15],
        }
    }

    /// The 16 bytes of the header.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0] = self.created_century;
        b[1] = self.created_year;
        b[2] = self.created_month;
        b[3] = self.created_day;
        b[4..8].copy_from_slice(&self.games.to_le_bytes());
        b[8..10].copy_from_slice(&self.records.to_le_bytes());
        b[10..12].copy_from_slice(&self.year.to_le_bytes());
        b[12] = self.board_size;
        b[13] = self.game_type;
        b[14] = self.depth;
        b[15] = self.reserved;
        b
    }

    /// The creation date as `YYYY-MM-DD` (century × 100 + year).
    pub fn created(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}",
            self.created_century as u32 * 100 + self.created_year as u32,
            self.created_month,
            self.created_day
        )
    }

    /// The board size of a game file: 0 and 8 mean 8×8, 10 means 10×10.
    pub fn board(&self) -> Option<BoardSize> {
        match self.board_size {
            0 | 8 => Some(BoardSize::Eight),
            10 => Some(BoardSize::Ten),
            _ => None,
        }
    }
}

/// The board of a game file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BoardSize {
    /// 8×8 (`.wtb`): 68-byte records, 60 move bytes, squares column + 10 × row.
    #[serde(rename = "8x8")]
    Eight,
    /// 10×10 (`.wtd`): 104-byte records, 96 move bytes, squares column + 12 × row.
    #[serde(rename = "10x10")]
    Ten,
}

impl BoardSize {
    /// Bytes per game record.
    pub const fn record_size(self) -> usize {
        match self {
            BoardSize::Eight => GAME_SIZE_8,
            BoardSize::Ten => GAME_SIZE_10,
        }
    }

    /// Move bytes per record.
    pub const fn move_bytes(self) -> usize {
        self.record_size() - 8
    }

    /// Squares per side.
    pub const fn side(self) -> u8 {
        match self {
            BoardSize::Eight => 8,
            BoardSize::Ten => 10,
        }
    }

    /// The multiplier of the row in a move byte (10 for 8×8, 12 for 10×10).
    pub const fn row_factor(self) -> u8 {
        match self {
            BoardSize::Eight => 10,
            BoardSize::Ten => 12,
        }
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardSize::Eight => "8×8",
            BoardSize::Ten => "10×10",
        })
    }
}

/// A square on a board of either size, as decoded from a move byte: column and row from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coord {
    /// Column, 0 = a.
    pub column: u8,
    /// Row, 0 = row 1.
    pub row: u8,
}

impl Coord {
    /// Decodes a move byte for a board size (`column + factor × row`, both from 1).
    pub fn from_byte(byte: u8, size: BoardSize) -> Option<Coord> {
        let factor = size.row_factor();
        let (column, row) = (byte % factor, byte / factor);
        let n = size.side();
        if (1..=n).contains(&column) && (1..=n).contains(&row) {
            Some(Coord {
                column: column - 1,
                row: row - 1,
            })
        } else {
            None
        }
    }

    /// The move byte on a board size (no range check beyond the type's).
    pub fn to_byte(self, size: BoardSize) -> u8 {
        (self.column + 1) + size.row_factor() * (self.row + 1)
    }
}

impl fmt::Display for Coord {
    /// `f5`, or `j10` on 10×10.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.column) as char, self.row + 1)
    }
}

/// One game record, every byte kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Index of the tournament in the `.trn` file.
    pub tournament: u16,
    /// Index of the black player in the `.jou` file.
    pub black: u16,
    /// Index of the white player in the `.jou` file.
    pub white: u16,
    /// Black's discs at the end (empty squares to the winner), as stored.
    pub black_score: u8,
    /// Black's theoretical score (perfect play from `depth` empties), as stored.
    pub theoretical_score: u8,
    moves: [u8; GAME_SIZE_10 - 8],
    size: BoardSize,
}

impl GameRecord {
    /// A record from its fields; `moves` are raw move bytes (at most 60 or 96), zero-padded.
    pub fn new(
        size: BoardSize,
        tournament: u16,
        black: u16,
        white: u16,
        black_score: u8,
        theoretical_score: u8,
        move_bytes: &[u8],
    ) -> Option<GameRecord> {
        if move_bytes.len() > size.move_bytes() {
            return None;
        }
        let mut moves = [0u8; GAME_SIZE_10 - 8];
        moves[..move_bytes.len()].copy_from_slice(move_bytes);
        Some(GameRecord {
            tournament,
            black,
            white,
            black_score,
            theoretical_score,
            moves,
            size,
        })
    }

    /// An 8×8 record from squares.
    pub fn from_squares(
        tournament: u16,
        black: u16,
        white: u16,
        black_score: u8,
        theoretical_score: u8,
        squares: &[Square],
    ) -> Option<GameRecord> {
        let bytes: Vec<u8> = squares.iter().map(|s| s.to_wthor()).collect();
        GameRecord::new(
            BoardSize::Eight,
            tournament,
            black,
            white,
            black_score,
            theoretical_score,
            &bytes,
        )
    }

    fn parse(bytes: &[u8], size: BoardSize) -> GameRecord {
        let n = size.move_bytes();
        let mut moves = [0u8; GAME_SIZE_10 - 8];
        moves[..n].copy_from_slice(&bytes[8..8 + n]);
        GameRecord {
            tournament: u16::from_le_bytes([bytes[0], bytes[1]]),
            black: u16::from_le_bytes([bytes[2], bytes[3]]),
            white: u16::from_le_bytes([bytes[4], bytes[5]]),
            black_score: bytes[6],
            theoretical_score: bytes[7],
            moves,
            size,
        }
    }

    /// Appends the record's bytes.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.tournament.to_le_bytes());
        out.extend_from_slice(&self.black.to_le_bytes());
        out.extend_from_slice(&self.white.to_le_bytes());
        out.push(self.black_score);
        out.push(self.theoretical_score);
        out.extend_from_slice(self.move_bytes());
    }

    /// The board size of the record.
    pub fn board_size(&self) -> BoardSize {
        self.size
    }

    /// The raw move bytes (60 for 8×8, 96 for 10×10), zero padding included.
    pub fn move_bytes(&self) -> &[u8] {
        &self.moves[..self.size.move_bytes()]
    }

    /// Decodes the moves on either board size: the bytes up to the first zero. `Err` gives the
    /// 0-based index of the first bad byte and the byte: one that names no square, or a non-zero
    /// byte after the first zero.
    pub fn coords(&self) -> Result<Vec<Coord>, (usize, u8, bool)> {
        let bytes = self.move_bytes();
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        if let Some(i) = bytes[end..].iter().position(|&b| b != 0) {
            return Err((end + i, bytes[end + i], true));
        }
        bytes[..end]
            .iter()
            .enumerate()
            .map(|(i, &b)| Coord::from_byte(b, self.size).ok_or((i, b, false)))
            .collect()
    }

    /// Decodes the moves of an 8×8 game as squares (see [`GameRecord::coords`] for errors).
    /// For a 10×10 record, every move is reported as not a square.
    pub fn squares(&self) -> Result<Vec<Square>, (usize, u8, bool)> {
        if self.size != BoardSize::Eight {
            return Err((0, self.moves[0], false));
        }
        let coords = self.coords()?;
        Ok(coords
            .into_iter()
            .map(|c| Square::from_coords(c.column, c.row).expect("8×8 coordinates"))
            .collect())
    }

    /// Like [`GameRecord::squares`], with the error as a [`WthorError`] naming the file, game
    /// and offset (`record_offset` = offset of the record in the file).
    pub fn squares_in(
        &self,
        file: &Path,
        game: usize,
        record_offset: usize,
    ) -> Result<Vec<Square>, WthorError> {
        self.squares().map_err(|(ply, byte, after_end)| {
            let offset = record_offset + 8 + ply;
            if after_end {
                WthorError::MoveAfterEnd {
                    file: file.to_path_buf(),
                    game,
                    ply,
                    offset,
                    byte,
                }
            } else {
                WthorError::BadMoveByte {
                    file: file.to_path_buf(),
                    game,
                    ply,
                    offset,
                    byte,
                }
            }
        })
    }

    /// Like [`GameRecord::coords`], with the error as a [`WthorError`].
    pub fn coords_in(
        &self,
        file: &Path,
        game: usize,
        record_offset: usize,
    ) -> Result<Vec<Coord>, WthorError> {
        self.coords().map_err(|(ply, byte, after_end)| {
            let offset = record_offset + 8 + ply;
            if after_end {
                WthorError::MoveAfterEnd {
                    file: file.to_path_buf(),
                    game,
                    ply,
                    offset,
                    byte,
                }
            } else {
                WthorError::BadMoveByte {
                    file: file.to_path_buf(),
                    game,
                    ply,
                    offset,
                    byte,
                }
            }
        })
    }
}

/// A whole `.wtb` or `.wtd` file.
#[derive(Debug)]
pub struct GameFile {
    /// The file it was read from (for messages).
    pub path: PathBuf,
    /// The header, raw.
    pub header: Header,
    /// The board size (from the header: 0 and 8 → 8×8, 10 → 10×10).
    pub board: BoardSize,
    /// The records.
    pub games: Vec<GameRecord>,
    /// Bytes after the last record read (kept for writing back).
    pub trailing: Vec<u8>,
    /// Problems met while reading (truncation, count mismatch).
    pub problems: Vec<WthorError>,
}

impl GameFile {
    /// Reads a game file.
    /// Only a regular file of at most [`MAX_GAME_FILE_BYTES`] is read.
    pub fn read(path: impl AsRef<Path>) -> Result<GameFile, WthorError> {
        let path = path.as_ref();
        GameFile::parse(&read_file(path, &GameFile::limit())?, path)
    }

    /// The bound a game file is read within ([`MAX_GAME_FILE_BYTES`]): the reader of a
    /// file's bytes elsewhere (a hand-over sends them) keeps the same one.
    pub fn limit() -> tabiya_files::Limit {
        tabiya_files::Limit::new(MAX_GAME_FILE_BYTES, "read of a WTHOR game file")
    }

    /// Parses the bytes of a game file; `path` names it in messages. Fails only when the header
    /// is missing or its board size is unknown.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<GameFile, WthorError> {
        let header = read_header(bytes, path)?;
        let board = header.board().ok_or(WthorError::BoardSize {
            file: path.to_path_buf(),
            value: header.board_size,
        })?;
        let size = board.record_size();
        let body = &bytes[HEADER_SIZE..];
        let whole = body.len() / size;
        let read = whole.min(header.games as usize);
        let mut problems = Vec::new();
        if whole != header.games as usize {
            problems.push(WthorError::CountMismatch {
                file: path.to_path_buf(),
                field_offset: 4,
                declared: header.games,
                actual: whole,
                read,
            });
        }
        if read < header.games as usize && !body.len().is_multiple_of(size) {
            problems.push(WthorError::TruncatedRecord {
                file: path.to_path_buf(),
                what: "game",
                index: whole,
                offset: HEADER_SIZE + whole * size,
                available: body.len() % size,
                size,
            });
        }
        let games = body
            .chunks_exact(size)
            .take(read)
            .map(|r| GameRecord::parse(r, board))
            .collect();
        let trailing = body[read * size..].to_vec();
        Ok(GameFile {
            path: path.to_path_buf(),
            header,
            board,
            games,
            trailing,
            problems,
        })
    }

    /// The bytes of the file: header, records, trailing bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_SIZE + self.games.len() * self.board.record_size() + self.trailing.len(),
        );
        out.extend_from_slice(&self.header.to_bytes());
        for g in &self.games {
            g.write_to(&mut out);
        }
        out.extend_from_slice(&self.trailing);
        out
    }

    /// Writes the file.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), WthorError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|source| WthorError::Io {
            file: path.to_path_buf(),
            source,
        })
    }

    /// Byte offset of game `index` in the file.
    pub fn record_offset(&self, index: usize) -> usize {
        HEADER_SIZE + index * self.board.record_size()
    }

    /// The moves of game `index` as squares, with errors naming file, game and offset.
    pub fn squares(&self, index: usize) -> Result<Vec<Square>, WthorError> {
        if self.board != BoardSize::Eight {
            return Err(WthorError::Unsupported10x10 {
                file: self.path.clone(),
            });
        }
        self.games[index].squares_in(&self.path, index, self.record_offset(index))
    }
}

/// The bytes of a WTHOR file. Only a regular file is read, never waiting on a FIFO: a
/// directory, a device (`/dev/zero` never ends) or a FIFO is refused, saying what it is; so is
/// a file larger than `limit`.
fn read_file(path: &Path, limit: &tabiya_files::Limit) -> Result<Vec<u8>, WthorError> {
    Ok(tabiya_files::read_regular(path, limit)?)
}

fn read_header(bytes: &[u8], path: &Path) -> Result<Header, WthorError> {
    let head: &[u8; HEADER_SIZE] = bytes
        .get(..HEADER_SIZE)
        .and_then(|h| h.try_into().ok())
        .ok_or(WthorError::TooShort {
            file: path.to_path_buf(),
            len: bytes.len(),
        })?;
    Ok(Header::parse(head))
}

/// Which names a name file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NameKind {
    /// `.jou`: 20-byte player names.
    Players,
    /// `.trn`: 26-byte tournament names.
    Tournaments,
}

impl NameKind {
    /// Bytes per name.
    pub const fn record_size(self) -> usize {
        match self {
            NameKind::Players => PLAYER_NAME_SIZE,
            NameKind::Tournaments => TOURNAMENT_NAME_SIZE,
        }
    }

    /// The largest file of such names the format allows: the header and 65,535 names (its
    /// count is 16 bits; game records name players and tournaments by 16-bit indices).
    /// 1,310,716 bytes for `.jou`, 1,703,926 for `.trn`.
    pub const fn max_file_bytes(self) -> u64 {
        HEADER_SIZE as u64 + u16::MAX as u64 * self.record_size() as u64
    }

    /// The file's extension: `.jou` or `.trn`.
    pub const fn extension(self) -> &'static str {
        match self {
            NameKind::Players => ".jou",
            NameKind::Tournaments => ".trn",
        }
    }
}

/// A fixed-size name record, every byte kept (including bytes after the NUL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The raw bytes (20 or 26).
    pub raw: Vec<u8>,
}

impl Name {
    /// The name: the bytes before the first NUL, decoded as ISO-8859-1.
    pub fn text(&self) -> String {
        let end = self
            .raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.raw.len());
        self.raw[..end].iter().map(|&b| b as char).collect()
    }

    /// A name record for a text: ISO-8859-1, NUL-terminated, zero-padded. `None` when the text
    /// has a character outside ISO-8859-1 or a NUL, or does not fit (`size` − 1 characters).
    pub fn encode(text: &str, kind: NameKind) -> Option<Name> {
        let size = kind.record_size();
        let mut raw = Vec::with_capacity(size);
        for c in text.chars() {
            let code = c as u32;
            if code == 0 || code > 0xff {
                return None;
            }
            raw.push(code as u8);
        }
        if raw.len() >= size {
            return None;
        }
        raw.resize(size, 0);
        Some(Name { raw })
    }

    /// True for a player name containing "(" — the WTHOR convention for programs.
    pub fn is_program(&self) -> bool {
        self.text().contains('(')
    }
}

/// A `.jou` or `.trn` file.
#[derive(Debug)]
pub struct NameFile {
    /// The file it was read from.
    pub path: PathBuf,
    /// Players or tournaments.
    pub kind: NameKind,
    /// The header, raw.
    pub header: Header,
    /// The names, index = id used in game records.
    pub names: Vec<Name>,
    /// Bytes after the last name read.
    pub trailing: Vec<u8>,
    /// Problems met while reading.
    pub problems: Vec<WthorError>,
}

impl NameFile {
    /// Reads a `.jou` or `.trn` file: a regular file of at most [`NameKind::max_file_bytes`]
    /// (its header counts names in 16 bits).
    pub fn read(path: impl AsRef<Path>, kind: NameKind) -> Result<NameFile, WthorError> {
        let path = path.as_ref();
        NameFile::parse(&read_file(path, &NameFile::limit(kind))?, path, kind)
    }

    /// The bound a names file of `kind` is read within ([`NameKind::max_file_bytes`]).
    pub fn limit(kind: NameKind) -> tabiya_files::Limit {
        tabiya_files::Limit::new(
            kind.max_file_bytes(),
            format!(
                "a WTHOR {} file can be ({} names of {} bytes after its {HEADER_SIZE}-byte header)",
                kind.extension(),
                u16::MAX,
                kind.record_size()
            ),
        )
    }

    /// Parses the bytes of a name file. Fails only when the header is missing.
    pub fn parse(bytes: &[u8], path: &Path, kind: NameKind) -> Result<NameFile, WthorError> {
        let header = read_header(bytes, path)?;
        let size = kind.record_size();
        let body = &bytes[HEADER_SIZE..];
        let whole = body.len() / size;
        let declared = header.records as usize;
        let read = whole.min(declared);
        let mut problems = Vec::new();
        if whole != declared {
            problems.push(WthorError::CountMismatch {
                file: path.to_path_buf(),
                field_offset: 8,
                declared: header.records as u32,
                actual: whole,
                read,
            });
        }
        if read < declared && !body.len().is_multiple_of(size) {
            problems.push(WthorError::TruncatedRecord {
                file: path.to_path_buf(),
                what: match kind {
                    NameKind::Players => "player",
                    NameKind::Tournaments => "tournament",
                },
                index: whole,
                offset: HEADER_SIZE + whole * size,
                available: body.len() % size,
                size,
            });
        }
        let names = body
            .chunks_exact(size)
            .take(read)
            .map(|r| Name { raw: r.to_vec() })
            .collect();
        let trailing = body[read * size..].to_vec();
        Ok(NameFile {
            path: path.to_path_buf(),
            kind,
            header,
            names,
            trailing,
            problems,
        })
    }

    /// The bytes of the file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_SIZE + self.names.len() * self.kind.record_size());
        out.extend_from_slice(&self.header.to_bytes());
        for n in &self.names {
            out.extend_from_slice(&n.raw);
        }
        out.extend_from_slice(&self.trailing);
        out
    }

    /// Writes the file.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), WthorError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_bytes()).map_err(|source| WthorError::Io {
            file: path.to_path_buf(),
            source,
        })
    }

    /// The name of an id, decoded, or `None` if the id is out of range.
    pub fn name(&self, id: u16) -> Option<String> {
        self.names.get(id as usize).map(Name::text)
    }
}

/// Finds the `.jou` (players) or `.trn` (tournaments) file in a directory: `WTHOR.JOU` /
/// `WTHOR.TRN` in any letter case, else the only file with that extension.
pub fn find_names_file(dir: &Path, kind: NameKind) -> Result<PathBuf, WthorError> {
    let (want_name, ext, what) = match kind {
        NameKind::Players => ("wthor.jou", "jou", ".jou"),
        NameKind::Tournaments => ("wthor.trn", "trn", ".trn"),
    };
    let dir_shown = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let entries = std::fs::read_dir(dir_shown).map_err(|source| WthorError::Io {
        file: dir_shown.to_path_buf(),
        source,
    })?;
    let mut candidates = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
        if name == want_name {
            return Ok(path);
        }
        if path
            .extension()
            .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case(ext))
        {
            candidates.push(path);
        }
    }
    if candidates.len() == 1 {
        Ok(candidates.remove(0))
    } else {
        Err(WthorError::NamesNotFound {
            dir: dir_shown.to_path_buf(),
            what,
        })
    }
}

/// One game as the positional engine wants it: where it comes from, ids, scores and moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEntry {
    /// Index of the file in the list given to [`GameIter`].
    pub file_index: usize,
    /// Index of the game in its file.
    pub game_index: usize,
    /// The file's header (year of the games, depth, …).
    pub header: Header,
    /// Tournament id (`.trn` index).
    pub tournament: u16,
    /// Black player id (`.jou` index).
    pub black: u16,
    /// White player id.
    pub white: u16,
    /// Stored black score.
    pub black_score: u8,
    /// Stored theoretical black score.
    pub theoretical_score: u8,
    /// The moves as squares (passes implicit), or the error naming file, game and offset.
    pub moves: Result<Vec<Square>, String>,
}

/// Iterates over the games of several `.wtb` files in order. A file that cannot be read is
/// yielded as one `Err` and skipped; bad move bytes are reported inside [`GameEntry::moves`].
pub struct GameIter {
    paths: Vec<PathBuf>,
    file_index: usize,
    current: Option<GameFile>,
    game_index: usize,
}

impl GameIter {
    /// Games of these files, in order.
    pub fn new<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> GameIter {
        GameIter {
            paths: paths
                .into_iter()
                .map(|p| p.as_ref().to_path_buf())
                .collect(),
            file_index: 0,
            current: None,
            game_index: 0,
        }
    }
}

impl Iterator for GameIter {
    type Item = Result<GameEntry, WthorError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(file) = &self.current {
                if self.game_index < file.games.len() {
                    let i = self.game_index;
                    self.game_index += 1;
                    let g = &file.games[i];
                    return Some(Ok(GameEntry {
                        file_index: self.file_index - 1,
                        game_index: i,
                        header: file.header,
                        tournament: g.tournament,
                        black: g.black,
                        white: g.white,
                        black_score: g.black_score,
                        theoretical_score: g.theoretical_score,
                        moves: file.squares(i).map_err(|e| e.to_string()),
                    }));
                }
                self.current = None;
            }
            let path = self.paths.get(self.file_index)?.clone();
            self.file_index += 1;
            self.game_index = 0;
            match GameFile::read(&path) {
                Ok(f) if f.board == BoardSize::Ten => {
                    return Some(Err(WthorError::Unsupported10x10 { file: path }));
                }
                Ok(f) => self.current = Some(f),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let bytes = [
            20u8, 22, 6, 27, 0x40, 1, 0, 0, 0, 0, 0xe5, 0x07, 8, 0, 24, 0,
        ];
        let h = Header::parse(&bytes);
        assert_eq!(h.games, 0x140);
        assert_eq!(h.year, 2021);
        assert_eq!(h.created(), "2022-06-27");
        assert_eq!(h.to_bytes(), bytes);
    }

    #[test]
    fn coords_10x10() {
        // column + 12 × row: a1 = 13, j10 = 130.
        assert_eq!(
            Coord::from_byte(13, BoardSize::Ten),
            Some(Coord { column: 0, row: 0 })
        );
        assert_eq!(
            Coord::from_byte(130, BoardSize::Ten),
            Some(Coord { column: 9, row: 9 })
        );
        assert_eq!(Coord::from_byte(12, BoardSize::Ten), None);
        assert_eq!(Coord::from_byte(23, BoardSize::Ten), None, "column 11");
        assert_eq!(Coord { column: 9, row: 9 }.to_string(), "j10");
    }

    #[test]
    fn names_latin1() {
        let n = Name {
            raw: vec![b'R', 0xe9, b'm', b'i', 0, b'x', 0, 0],
        };
        assert_eq!(n.text(), "Rémi");
        let e = Name::encode("Rémi", NameKind::Players).unwrap();
        assert_eq!(e.raw.len(), 20);
        assert_eq!(&e.raw[..5], &[b'R', 0xe9, b'm', b'i', 0]);
        assert!(Name::encode("東京", NameKind::Players).is_none());
        assert!(Name::encode(&"x".repeat(20), NameKind::Players).is_none());
        assert!(Name::encode(&"x".repeat(19), NameKind::Players).is_some());
    }

    /// Only a regular file within its bound is read: a FIFO is refused at once (opening it
    /// would wait for a writer), a names file longer than 65,535 names and a game file past
    /// [`MAX_GAME_FILE_BYTES`] without a byte read (both sparse).
    #[test]
    fn files_refused_before_they_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.wtb");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = GameFile::read(&fifo).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is a FIFO (a named pipe), not a regular file",
                fifo.display()
            )
        );
        let sparse = |name: &str, len: u64| {
            let p = dir.path().join(name);
            std::fs::File::create(&p).unwrap().set_len(len).unwrap();
            p
        };
        for kind in [NameKind::Players, NameKind::Tournaments] {
            let at_most = sparse(&format!("ok{}", kind.extension()), kind.max_file_bytes());
            let f = NameFile::read(&at_most, kind).unwrap();
            assert_eq!(f.names.len(), 0, "the header (zeros) declares none");
            let over = sparse(
                &format!("big{}", kind.extension()),
                kind.max_file_bytes() + 1,
            );
            let e = NameFile::read(&over, kind).unwrap_err().to_string();
            assert!(
                e.contains("larger than")
                    && e.contains(&format!("65535 names of {}", kind.record_size())),
                "{e}"
            );
        }
        assert_eq!(NameKind::Players.max_file_bytes(), 1_310_716);
        let big = sparse("big.wtb", MAX_GAME_FILE_BYTES + 1);
        let e = GameFile::read(&big).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{} is 256.0 MiB (268435457 bytes), larger than the 256 MiB read of a WTHOR game file",
                big.display()
            )
        );
    }
}
