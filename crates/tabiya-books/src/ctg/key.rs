//! Position keys: White-to-move normalisation, the Huffman board code, and the hash.
//!
//! A CTG book stores only positions with White to move. A position with Black to move is
//! *flipped* first (ranks reversed, colours swapped, castling rights swapped). Then, if
//! nobody has a castling right and the (now White) king stands on files a–d, the board is
//! *mirrored* (files a↔h, the en-passant file too). [`Transform`] records which of the two
//! was applied; both are involutions on squares, so the same square map takes real squares
//! to normalised ones and back.

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, FromSetup,
    Piece, Position, Rank, Role, Setup, Square,
};

use super::error::{CtgError, Result};

/// Longest key the format can express (the low 5 bits of the first byte).
pub const MAX_KEY_LEN: usize = 31;

/// Flag in the key's first byte: the en-passant file is present.
pub const KEY_FLAG_EN_PASSANT: u8 = 0x20;
/// Flag in the key's first byte: the castling bits are present.
pub const KEY_FLAG_CASTLING: u8 = 0x40;

/// The bytes of one position key, first (length/flags) byte included, exactly as stored in
/// a record.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CtgKey {
    len: u8,
    bytes: [u8; 32],
}

impl CtgKey {
    /// Wraps raw key bytes; checks only that the length in the first byte matches the slice.
    pub fn from_bytes(bytes: &[u8]) -> Result<CtgKey> {
        let first = *bytes.first().ok_or_else(|| CtgError::key(0, "empty key"))?;
        let len = usize::from(first & 0x1f);
        if len < 2 {
            return Err(CtgError::key(
                0,
                format!("key length {len} in first byte is below 2"),
            ));
        }
        if bytes.len() != len {
            return Err(CtgError::key(
                0,
                format!("first byte says {len} bytes, {} given", bytes.len()),
            ));
        }
        let mut out = [0u8; 32];
        out[..len].copy_from_slice(bytes);
        Ok(CtgKey {
            len: len as u8,
            bytes: out,
        })
    }

    /// The key bytes, first byte included.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Length in bytes (the low 5 bits of the first byte).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// The seed's 32-bit hash of these bytes, used to find the `.cto` slot.
    pub fn hash(&self) -> u32 {
        ctg_hash(self.as_bytes())
    }

    /// Lower-case hex of the bytes.
    pub fn to_hex(&self) -> String {
        self.as_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for CtgKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CtgKey({})", self.to_hex())
    }
}

const HASH_TABLE: [u32; 64] = [
    0x3100d2bf, 0x3118e3de, 0x34ab1372, 0x2807a847, 0x1633f566, 0x2143b359, 0x26d56488, 0x3b9e6f59,
    0x37755656, 0x3089ca7b, 0x18e92d85, 0x0cd0e9d8, 0x1a9e3b54, 0x3eaa902f, 0x0d9bfaae, 0x2f32b45b,
    0x31ed6102, 0x3d3c8398, 0x146660e3, 0x0f8d4b76, 0x02c77a5f, 0x146c8799, 0x1c47f51f, 0x249f8f36,
    0x24772043, 0x1fbc1e4d, 0x1e86b3fa, 0x37df36a6, 0x16ed30e4, 0x02c3148e, 0x216e5929, 0x0636b34e,
    0x317f9f56, 0x15f09d70, 0x131026fb, 0x38c784b1, 0x29ac3305, 0x2b485dc5, 0x3c049ddc, 0x35a9fbcd,
    0x31d5373b, 0x2b246799, 0x0a2923d3, 0x08a96e9d, 0x30031a9f, 0x08f525b5, 0x33611c06, 0x2409db98,
    0x0ca4feb2, 0x1000b71e, 0x30566e32, 0x39447d31, 0x194e3752, 0x08233a95, 0x0f38fe36, 0x29c7cd57,
    0x0f7b3a39, 0x328e8a16, 0x1e7d1388, 0x0fba78f5, 0x274c7e7c, 0x1e8be65c, 0x2fa0b0bb, 0x1eb6c371,
];

/// The seed's `gen_hash` over key bytes (first byte included), with 32-bit wrapping sums.
/// Only the low 6 bits of the running index matter, so it is kept as a `u32`.
pub fn ctg_hash(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0;
    let mut tmp: u32 = 0;
    for &ch in bytes {
        let ch = u32::from(ch);
        tmp = tmp.wrapping_add(((0x0f - (ch & 0x0f)) << 2) + 1);
        hash = hash.wrapping_add(HASH_TABLE[(tmp & 0x3f) as usize]);
        tmp = tmp.wrapping_add(((0xf0 - (ch & 0xf0)) >> 2) + 1);
        hash = hash.wrapping_add(HASH_TABLE[(tmp & 0x3f) as usize]);
    }
    hash
}

/// Which normalisation steps turned a real position into the stored White-to-move one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Transform {
    /// Black was to move: ranks reversed, colours and castling rights swapped.
    pub flipped: bool,
    /// Files mirrored a↔h (no castling rights, king of the side to move on files a–d).
    pub mirrored: bool,
}

impl Transform {
    /// No change: the position already is White to move and not to be mirrored.
    pub const IDENTITY: Transform = Transform {
        flipped: false,
        mirrored: false,
    };

    /// The normalisation a position needs.
    pub fn of(pos: &Chess) -> Transform {
        let turn = pos.turn();
        let mirrored = pos.castles().is_empty()
            && pos
                .board()
                .king_of(turn)
                .is_some_and(|k| k.file() <= File::D);
        Transform {
            flipped: turn == Color::Black,
            mirrored,
        }
    }

    /// Maps a square between the real and the normalised board (either direction: the map
    /// is its own inverse).
    #[inline]
    pub fn square(self, sq: Square) -> Square {
        let sq = if self.flipped { sq.flip_vertical() } else { sq };
        if self.mirrored {
            sq.flip_horizontal()
        } else {
            sq
        }
    }

    /// Maps a piece between the real and the normalised board (colours swap when flipped).
    #[inline]
    pub fn piece(self, piece: Piece) -> Piece {
        if self.flipped {
            Piece {
                color: !piece.color,
                role: piece.role,
            }
        } else {
            piece
        }
    }

    /// Real position → normalised position (White to move). Move counters are kept.
    pub fn apply(self, pos: &Chess) -> Result<Chess> {
        let mut setup = pos.to_setup(EnPassantMode::Always);
        if self.flipped {
            setup.mirror();
        }
        if self.mirrored {
            mirror_files(&mut setup);
        }
        to_chess(setup)
    }

    /// Normalised position → real position: undoes the mirror first, then the flip. Use it
    /// on a decoded key when the caller knows which side was to move and whether the board
    /// was mirrored.
    pub fn undo(self, normalised: &Chess) -> Result<Chess> {
        let mut setup = normalised.to_setup(EnPassantMode::Always);
        if self.mirrored {
            mirror_files(&mut setup);
        }
        if self.flipped {
            setup.mirror();
        }
        to_chess(setup)
    }
}

fn mirror_files(setup: &mut Setup) {
    setup.board.flip_horizontal();
    setup.promoted = setup.promoted.flip_horizontal();
    setup.castling_rights = setup.castling_rights.flip_horizontal();
    setup.ep_square = setup.ep_square.map(Square::flip_horizontal);
}

fn to_chess(setup: Setup) -> Result<Chess> {
    Chess::from_setup(setup, CastlingMode::Standard)
        .map_err(|e| CtgError::Unencodable(format!("transformed position is not legal: {e}")))
}

/// A real position brought to the stored form.
#[derive(Clone, Debug)]
pub struct Normalised {
    /// The position as the book stores it: White to move, perhaps mirrored.
    pub position: Chess,
    /// How it was obtained from the real position.
    pub transform: Transform,
}

/// Brings a position to the stored White-to-move form.
pub fn normalise(pos: &Chess) -> Result<Normalised> {
    let transform = Transform::of(pos);
    Ok(Normalised {
        position: transform.apply(pos)?,
        transform,
    })
}

/// Squares in key order: a1, a2 … a8, b1 … h8.
#[inline]
pub(crate) fn key_order_square(i: u32) -> Square {
    Square::from_coords(File::new(i / 8), Rank::new(i % 8))
}

/// Position of a square in key order (files a→h, ranks 1→8 within a file).
#[inline]
pub(crate) fn key_order_index(sq: Square) -> u32 {
    sq.file().to_u32() * 8 + sq.rank().to_u32()
}

struct BitWriter {
    bytes: [u8; 64],
    bit: usize,
}

impl BitWriter {
    #[inline]
    fn push(&mut self, value: u32, count: usize) {
        for i in (0..count).rev() {
            if (value >> i) & 1 == 1 {
                self.bytes[self.bit / 8] |= 0x80 >> (self.bit % 8);
            }
            self.bit += 1;
        }
    }
}

/// (code, bit count) of a piece in the board stream, colour bit included.
#[inline]
fn piece_code(piece: Piece) -> (u32, usize) {
    let c = u32::from(piece.color == Color::Black);
    match piece.role {
        Role::Pawn => (0b110 | c, 3),
        Role::Rook => (0b10110 | c, 5),
        Role::Bishop => (0b10100 | c, 5),
        Role::Knight => (0b10010 | c, 5),
        Role::Queen => (0b100010 | c, 6),
        Role::King => (0b100000 | c, 6),
    }
}

/// Encodes the parts of a normalised position: `piece_at` gives the piece on each
/// normalised square, `castling` is the 4 key bits (black O-O, black O-O-O, white O-O,
/// white O-O-O from most to least significant), `ep_file` the en-passant file (0 = a).
pub(crate) fn encode_parts(
    piece_at: impl Fn(Square) -> Option<Piece>,
    castling: u8,
    ep_file: Option<u8>,
) -> Result<CtgKey> {
    let mut w = BitWriter {
        bytes: [0; 64],
        bit: 8,
    };
    for i in 0..64 {
        match piece_at(key_order_square(i)) {
            None => w.push(0, 1),
            Some(p) => {
                let (code, n) = piece_code(p);
                w.push(code, n);
            }
        }
    }
    let has_c = castling & 0x0f != 0;
    let tail = if ep_file.is_some() { 3 } else { 0 } + if has_c { 4 } else { 0 };
    if tail == 0 {
        // At least one zero bit, up to the byte boundary.
        w.bit += 8 - w.bit % 8;
    } else {
        w.bit += (8 - (w.bit + tail) % 8) % 8;
        if let Some(f) = ep_file {
            w.push(u32::from(f & 7), 3);
        }
        if has_c {
            w.push(u32::from(castling & 0x0f), 4);
        }
    }
    let len = w.bit / 8;
    if len > MAX_KEY_LEN {
        return Err(CtgError::Unencodable(format!(
            "key would be {len} bytes, the format allows {MAX_KEY_LEN}"
        )));
    }
    let mut flags = 0;
    if ep_file.is_some() {
        flags |= KEY_FLAG_EN_PASSANT;
    }
    if has_c {
        flags |= KEY_FLAG_CASTLING;
    }
    w.bytes[0] = len as u8 | flags;
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(&w.bytes[..32]);
    Ok(CtgKey {
        len: len as u8,
        bytes,
    })
}

/// Checks that castling rights are the standard corner rooks with kings on e1/e8.
fn castling_bits(pos: &Chess, t: Transform) -> Result<u8> {
    let castles = pos.castles();
    if castles.is_empty() {
        return Ok(0);
    }
    let mut bits = 0u8;
    for color in [Color::White, Color::Black] {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !castles.has(color, side) {
                continue;
            }
            let back = color.fold_wb(Rank::First, Rank::Eighth);
            let rook_file = if side.is_king_side() {
                File::H
            } else {
                File::A
            };
            if castles.rook(color, side) != Some(Square::from_coords(rook_file, back))
                || pos.board().king_of(color) != Some(Square::from_coords(File::E, back))
            {
                return Err(CtgError::Unencodable(format!(
                    "{color:?} {side:?} castling right with a non-standard king or rook"
                )));
            }
            // In the key, "white" is the side to move.
            let key_white = (color == Color::White) != t.flipped;
            let bit = match (key_white, side) {
                (false, CastlingSide::KingSide) => 8,
                (false, CastlingSide::QueenSide) => 4,
                (true, CastlingSide::KingSide) => 2,
                (true, CastlingSide::QueenSide) => 1,
            };
            bits |= bit;
        }
    }
    Ok(bits)
}

/// Encodes any legal position to its CTG key (normalising it first).
pub fn encode_key(pos: &Chess) -> Result<CtgKey> {
    encode_key_with_transform(pos).map(|(k, _)| k)
}

/// Encodes a position and tells how it was normalised.
pub fn encode_key_with_transform(pos: &Chess) -> Result<(CtgKey, Transform)> {
    let t = Transform::of(pos);
    Ok((encode_with(pos, t)?, t))
}

/// Encodes a position with a given transform (which must be [`Transform::of`] the position).
pub(crate) fn encode_with(pos: &Chess, t: Transform) -> Result<CtgKey> {
    let castling = castling_bits(pos, t)?;
    // Adjacency rule: a pawn of the side to move stands beside the pawn that just moved two
    // squares — exactly shakmaty's pseudo-legal en-passant square.
    let ep_file = pos
        .ep_square(EnPassantMode::PseudoLegal)
        .map(|sq| t.square(sq).file().to_u32() as u8);
    let board = pos.board();
    encode_parts(
        |sq| board.piece_at(t.square(sq)).map(|p| t.piece(p)),
        castling,
        ep_file,
    )
}

/// A decoded key.
#[derive(Clone, Debug)]
pub struct DecodedKey {
    /// The stored position: White to move, possibly colour-flipped and/or mirrored from the
    /// real game (which cannot be known from the key). Half-move clock 0, move number 1.
    /// Use [`Transform::undo`] to get the real position back when the side to move and the
    /// mirroring are known.
    pub position: Chess,
    /// Length of the key in bytes (first byte included).
    pub len: usize,
    /// Castling bits as stored (black O-O, black O-O-O, white O-O, white O-O-O; MSB first).
    pub castling: u8,
    /// En-passant file stored in the key (0 = a), if any.
    pub ep_file: Option<u8>,
    /// True when re-encoding the position gives exactly these bytes (minimal padding, zero
    /// padding bits, en-passant bits only under the adjacency rule, board not needing a
    /// mirror).
    pub canonical: bool,
}

struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
    end: usize,
}

impl BitReader<'_> {
    #[inline]
    fn bit(&mut self) -> Result<u32> {
        if self.bit >= self.end {
            return Err(CtgError::key(
                self.bit / 8,
                "board code runs past the end of the key",
            ));
        }
        let b = (self.bytes[self.bit / 8] >> (7 - self.bit % 8)) & 1;
        self.bit += 1;
        Ok(u32::from(b))
    }
}

/// Decodes key bytes (first byte first; bytes after the key's length are ignored) back to
/// the normalised White-to-move position.
pub fn decode_key(bytes: &[u8]) -> Result<DecodedKey> {
    let first = *bytes.first().ok_or_else(|| CtgError::key(0, "empty key"))?;
    if first & 0x80 != 0 {
        return Err(CtgError::key(
            0,
            format!("unknown flag 0x80 in first byte {first:#04x}"),
        ));
    }
    let len = usize::from(first & 0x1f);
    if len < 2 {
        return Err(CtgError::key(0, format!("key length {len} is below 2")));
    }
    if bytes.len() < len {
        return Err(CtgError::key(
            bytes.len(),
            format!("key says {len} bytes, only {} present", bytes.len()),
        ));
    }
    let key = &bytes[..len];
    let has_ep = first & KEY_FLAG_EN_PASSANT != 0;
    let has_c = first & KEY_FLAG_CASTLING != 0;
    let tail = if has_ep { 3 } else { 0 } + if has_c { 4 } else { 0 };
    let end = len * 8 - tail;
    let mut r = BitReader {
        bytes: key,
        bit: 8,
        end,
    };
    let mut board = Board::empty();
    for i in 0..64 {
        if r.bit()? == 0 {
            continue;
        }
        let role = if r.bit()? == 1 {
            Role::Pawn
        } else if r.bit()? == 1 {
            if r.bit()? == 1 {
                Role::Rook
            } else {
                Role::Bishop
            }
        } else if r.bit()? == 1 {
            Role::Knight
        } else if r.bit()? == 1 {
            Role::Queen
        } else {
            Role::King
        };
        let color = if r.bit()? == 1 {
            Color::Black
        } else {
            Color::White
        };
        board.set_piece_at(key_order_square(i), Piece { color, role });
    }
    let last = key[len - 1];
    let castling = if has_c { last & 0x0f } else { 0 };
    let ep_file = has_ep.then(|| (last >> if has_c { 4 } else { 0 }) & 7);
    if has_c && castling == 0 {
        return Err(CtgError::key(
            len - 1,
            "castling flag set but no castling bit",
        ));
    }
    let mut rights = Bitboard::EMPTY;
    for (bit, sq) in [
        (8, Square::H8),
        (4, Square::A8),
        (2, Square::H1),
        (1, Square::A1),
    ] {
        if castling & bit != 0 {
            rights.add(sq);
        }
    }
    let mut setup = Setup::empty();
    setup.board = board.clone();
    setup.turn = Color::White;
    setup.castling_rights = rights;
    setup.ep_square = ep_file.map(|f| Square::from_coords(File::new(u32::from(f)), Rank::Sixth));
    let position = Chess::from_setup(setup, CastlingMode::Standard)
        .map_err(|e| CtgError::key(0, format!("key holds no legal position: {e}")))?;
    let canonical = Transform::of(&position) == Transform::IDENTITY
        && encode_with(&position, Transform::IDENTITY).is_ok_and(|k| k.as_bytes() == key);
    Ok(DecodedKey {
        position,
        len,
        castling,
        ep_file,
        canonical,
    })
}
