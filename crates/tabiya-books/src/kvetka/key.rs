//! Kvetka's 22-byte position key (seed 004, "Кодирование позиции").
//!
//! Normalisation, as the seed prescribes: a position with Black to move is stored with
//! colours swapped and ranks flipped (a1 ↔ a8), castling rights swapped with it; then, if
//! nobody has any castling right and the (new) white king stands on files a–d, files are
//! mirrored (a ↔ h), the en-passant file too. The key therefore names the normalised
//! position, always White to move; [`Normalisation`] says how to get back to the real board.
//!
//! Bit stream, most significant bit of byte 0 first: squares a1, a2, …, a8, b1, …, h8 as
//! `0` empty, `11c` pawn, `1011c` rook, `1010c` bishop, `1001c` knight, `10001c` queen,
//! `10000c` king (`c` = 1 black); 4 bits en passant (0 none, 1–8 = file a–h, written when a
//! white pawn stands beside the black pawn that has just moved two squares — pseudo-legal
//! adjacency, as the seed says); 4 bits castling rights (black O-O, black O-O-O, white O-O,
//! white O-O-O); zero bits up to 176.

use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Piece, Position, Rank,
    Role, Setup, Square,
};
use thiserror::Error;

/// Length of a Kvetka position key.
pub const KEY_LEN: usize = 22;

/// A Kvetka position key.
pub type KvetkaKey = [u8; KEY_LEN];

/// Errors of the key codec.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    /// The position needs more than 176 bits (many promoted pieces).
    #[error("position needs {bits} bits, a Kvetka key holds 176")]
    TooLong { bits: usize },
    /// The position is not one Kvetka can store (variant state, missing king …).
    #[error("position not representable as a Kvetka key: {0}")]
    NotRepresentable(String),
    /// The key bytes are malformed.
    #[error("invalid Kvetka key at byte offset {offset}: {reason}")]
    Invalid { offset: usize, reason: String },
    /// The key decodes to an illegal position.
    #[error("Kvetka key decodes to an illegal position: {0}")]
    IllegalPosition(String),
}

/// How a real position maps to the normalised board its key names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Normalisation {
    /// Black was to move: colours swapped and ranks flipped.
    pub flipped: bool,
    /// Files mirrored (a ↔ h) after the flip: no castling rights and the king of the side
    /// to move on files a–d.
    pub mirrored: bool,
}

impl Normalisation {
    /// Maps a square of the real board to the normalised board.
    pub fn to_normal(self, sq: Square) -> Square {
        let sq = if self.flipped { sq.flip_vertical() } else { sq };
        if self.mirrored {
            sq.flip_horizontal()
        } else {
            sq
        }
    }

    /// Maps a square of the normalised board back to the real board.
    pub fn to_real(self, sq: Square) -> Square {
        // Both maps are involutions and commute.
        self.to_normal(sq)
    }
}

/// Normalises a position: returns the White-to-move setup the key describes (clocks reset to
/// 0 and 1; en-passant square only with an adjacent capturing pawn) and the transformation.
pub fn normalise(pos: &Chess) -> (Setup, Normalisation) {
    let mut setup = pos.to_setup(EnPassantMode::PseudoLegal);
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    let mut norm = Normalisation::default();
    if setup.turn == Color::Black {
        setup.mirror();
        norm.flipped = true;
    }
    if setup.castling_rights.is_empty()
        && setup
            .board
            .king_of(Color::White)
            .is_some_and(|k| k.file() <= File::D)
    {
        setup.board.flip_horizontal();
        setup.ep_square = setup.ep_square.map(Square::flip_horizontal);
        norm.mirrored = true;
    }
    (setup, norm)
}

/// Applies a normalisation to a position, or undoes it (the map is its own inverse): the
/// position the key of `pos` names, or, given a decoded key and the real position's
/// [`Normalisation`], the real position (clocks are not kept by keys).
pub fn transform(pos: &Chess, norm: Normalisation) -> Result<Chess, KeyError> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    if norm.mirrored {
        if setup.castling_rights.any() {
            return Err(KeyError::NotRepresentable(
                "files can only be mirrored without castling rights".into(),
            ));
        }
        setup.board.flip_horizontal();
        setup.ep_square = setup.ep_square.map(Square::flip_horizontal);
    }
    if norm.flipped {
        setup.mirror();
    }
    let mode = CastlingMode::detect(&setup);
    Chess::from_setup(setup, mode).map_err(|e| KeyError::IllegalPosition(e.to_string()))
}

/// Bit buffer big enough for any board (64 six-bit codes plus 8 bits), most significant
/// bit first.
struct BitWriter {
    words: [u64; 7],
    len: usize,
}

impl BitWriter {
    fn push(&mut self, value: u32, width: usize) {
        let v = u64::from(value);
        let word = self.len / 64;
        let avail = 64 - self.len % 64;
        if width <= avail {
            self.words[word] |= v << (avail - width);
        } else {
            let rest = width - avail;
            self.words[word] |= v >> rest;
            self.words[word + 1] |= v << (64 - rest);
        }
        self.len += width;
    }

    fn key(&self) -> Result<KvetkaKey, KeyError> {
        if self.len > KEY_LEN * 8 {
            return Err(KeyError::TooLong { bits: self.len });
        }
        let mut out = [0u8; KEY_LEN];
        for (i, b) in out.iter_mut().enumerate() {
            *b = (self.words[i / 8] >> (56 - 8 * (i % 8))) as u8;
        }
        Ok(out)
    }
}

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

/// Squares in key order: a1, a2, …, a8, b1, …, h8.
pub(crate) fn key_square(i: usize) -> Square {
    Square::from_coords(File::new((i / 8) as u32), Rank::new((i % 8) as u32))
}

/// Castling bits in key order: black O-O, black O-O-O, white O-O, white O-O-O.
const CASTLING_ORDER: [(Color, bool); 4] = [
    (Color::Black, true),
    (Color::Black, false),
    (Color::White, true),
    (Color::White, false),
];

/// Encodes a normalised setup (White to move) as a key.
pub fn encode_normalised(setup: &Setup) -> Result<KvetkaKey, KeyError> {
    if setup.turn != Color::White {
        return Err(KeyError::NotRepresentable(
            "a normalised setup has White to move".into(),
        ));
    }
    let mut w = BitWriter {
        words: [0; 7],
        len: 0,
    };
    for i in 0..64 {
        match setup.board.piece_at(key_square(i)) {
            None => w.push(0, 1),
            Some(piece) => {
                let (code, width) = piece_code(piece);
                w.push(code, width);
            }
        }
    }
    let ep = match setup.ep_square {
        None => 0,
        Some(sq) => {
            if sq.rank() != Rank::Sixth {
                return Err(KeyError::NotRepresentable(format!(
                    "en-passant square {sq} with White to move"
                )));
            }
            sq.file().to_u32() + 1
        }
    };
    w.push(ep, 4);
    let mut castling = 0u32;
    for (i, &(color, king_side)) in CASTLING_ORDER.iter().enumerate() {
        let backrank = color.backrank();
        let Some(king) = setup.board.king_of(color) else {
            continue;
        };
        let has = (setup.castling_rights & Bitboard::from_rank(backrank))
            .into_iter()
            .any(|sq| {
                if king_side {
                    sq.file() > king.file()
                } else {
                    sq.file() < king.file()
                }
            });
        if has {
            castling |= 1 << (3 - i);
        }
    }
    w.push(castling, 4);
    w.key()
}

/// The key of a position and how the position was normalised.
pub fn position_key(pos: &Chess) -> Result<(KvetkaKey, Normalisation), KeyError> {
    let (setup, norm) = normalise(pos);
    Ok((encode_normalised(&setup)?, norm))
}

struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
}

impl BitReader<'_> {
    fn read(&mut self) -> Result<bool, KeyError> {
        if self.bit >= KEY_LEN * 8 {
            return Err(KeyError::Invalid {
                offset: KEY_LEN,
                reason: "bit stream runs past the end of the key".into(),
            });
        }
        let b = self.bytes[self.bit / 8] & (0x80 >> (self.bit % 8)) != 0;
        self.bit += 1;
        Ok(b)
    }
    fn read_n(&mut self, n: usize) -> Result<u32, KeyError> {
        let mut v = 0;
        for _ in 0..n {
            v = v << 1 | u32::from(self.read()?);
        }
        Ok(v)
    }
    fn offset(&self) -> usize {
        self.bit / 8
    }
}

/// Decodes a key into the normalised setup it names (White to move, clocks 0 and 1). Castling
/// bits name the outermost rook on that side of the king. Checks the structure only.
pub fn decode_key_setup(key: &[u8]) -> Result<Setup, KeyError> {
    if key.len() != KEY_LEN {
        return Err(KeyError::Invalid {
            offset: key.len().min(KEY_LEN),
            reason: format!("key is {} bytes long, expected 22", key.len()),
        });
    }
    let mut r = BitReader { bytes: key, bit: 0 };
    let mut setup = Setup::empty();
    for i in 0..64 {
        if !r.read()? {
            continue;
        }
        let role = if r.read()? {
            Role::Pawn
        } else if r.read()? {
            // 1 0 1 x
            if r.read()? { Role::Rook } else { Role::Bishop }
        } else if r.read()? {
            Role::Knight
        } else if r.read()? {
            Role::Queen
        } else {
            Role::King
        };
        let color = if r.read()? {
            Color::Black
        } else {
            Color::White
        };
        setup
            .board
            .set_piece_at(key_square(i), Piece { color, role });
    }
    let ep_offset = r.offset();
    let ep = r.read_n(4)?;
    match ep {
        0 => {}
        1..=8 => {
            setup.ep_square = Some(Square::from_coords(File::new(ep - 1), Rank::Sixth));
        }
        _ => {
            return Err(KeyError::Invalid {
                offset: ep_offset,
                reason: format!("en-passant field {ep} is not 0-8"),
            });
        }
    }
    let castling_offset = r.offset();
    let castling = r.read_n(4)?;
    for (i, &(color, king_side)) in CASTLING_ORDER.iter().enumerate() {
        if castling & (1 << (3 - i)) == 0 {
            continue;
        }
        let backrank = color.backrank();
        let king = setup.board.king_of(color).filter(|k| k.rank() == backrank);
        let rooks = setup.board.by_piece(Piece {
            color,
            role: Role::Rook,
        }) & Bitboard::from_rank(backrank);
        let rook = king.and_then(|king| {
            if king_side {
                rooks.last().filter(|r| r.file() > king.file())
            } else {
                rooks.first().filter(|r| r.file() < king.file())
            }
        });
        match rook {
            Some(rook) => setup.castling_rights.add(rook),
            None => {
                return Err(KeyError::Invalid {
                    offset: castling_offset,
                    reason: format!(
                        "{color} {} castling bit set without a king and rook for it",
                        if king_side { "O-O" } else { "O-O-O" }
                    ),
                });
            }
        }
    }
    while r.bit < KEY_LEN * 8 {
        let offset = r.offset();
        if r.read()? {
            return Err(KeyError::Invalid {
                offset,
                reason: "padding bits after the castling field must be zero".into(),
            });
        }
    }
    Ok(setup)
}

/// Decodes a key into the normalised position it names (White to move, standard or
/// Chess960 castling as the rights require), checking that the key is exactly the one
/// [`position_key`] gives for it (canonical en passant, mirroring and padding).
///
/// The real position is [`transform`]`(decoded, normalisation)` with the real position's
/// [`Normalisation`], which the key does not hold (it is the side to move, and whether the
/// files were mirrored).
pub fn decode_key(key: &[u8]) -> Result<Chess, KeyError> {
    let setup = decode_key_setup(key)?;
    let mode = CastlingMode::detect(&setup);
    let pos =
        Chess::from_setup(setup, mode).map_err(|e| KeyError::IllegalPosition(e.to_string()))?;
    let (again, norm) = position_key(&pos)?;
    if norm.mirrored {
        return Err(KeyError::Invalid {
            offset: 0,
            reason: "no castling rights and the white king on files a-d: a key is always \
                     stored with files mirrored so that it stands on e-h"
                .into(),
        });
    }
    if let Some(offset) = again.iter().zip(key).position(|(a, b)| a != b) {
        return Err(KeyError::Invalid {
            offset,
            reason: "not the canonical key of the position it names (en passant without an \
                     adjacent white pawn?)"
                .into(),
        });
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn start_position_matches_the_ctg_check_value() {
        // The format notes give the start position's CTG key as stored in the real file
        // simple.ctg: 56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f. CTG's key is one length
        // byte followed by the same square code in the same order (seed 000 and seed 004 give
        // identical tables); only the tail (en passant, castling) differs. So the first 164
        // bits of our key (the board) must equal CTG's bits 8..172.
        let ctg = hex("56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f");
        let (key, norm) = position_key(&Chess::default()).unwrap();
        assert_eq!(norm, Normalisation::default());
        // 164 board bits = 20 bytes + 4 bits.
        assert_eq!(&key[..20], &ctg[1..21]);
        assert_eq!(key[20] >> 4, ctg[21] >> 4);
    }
}
