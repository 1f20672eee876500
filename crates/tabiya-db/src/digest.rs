//! Duplicate digests: a 128-bit FNV-1a hash of a game's Seven Tag Roster and main line.

use shakmaty::Chess;
use tabiya_pgn::Game;

/// FNV-1a over 128 bits: the duplicate digest of a game (Seven Tag Roster, start position,
/// main line). Two games with equal digests are treated as the same game; a false match
/// needs about 2^64 games.
pub(crate) struct Fnv128(pub(crate) u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;

    pub(crate) fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u128;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn field(&mut self, b: &[u8]) {
        self.bytes(&(b.len() as u64).to_le_bytes());
        self.bytes(b);
    }
}

/// The duplicate digest of a game.
pub fn game_digest(game: &Game) -> u128 {
    digest_from(
        |name| game.tag(name),
        game.result_str(),
        &game.start,
        game.main_line().map(crate::chess::moves::move_code),
    )
}

/// [`game_digest`] from a lookup of the game's tags, its result string, start position and
/// the codes of its main line's moves.
pub(crate) fn digest_from<'a>(
    tag: impl Fn(&str) -> Option<&'a str>,
    result: &str,
    start: &Chess,
    codes: impl Iterator<Item = u16>,
) -> u128 {
    let mut h = Fnv128::new();
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        h.field(tag(name).unwrap_or("?").as_bytes());
    }
    h.field(result.as_bytes());
    if *start == Chess::default() {
        h.field(b"startpos");
    } else {
        let fen =
            shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal).to_string();
        h.field(fen.as_bytes());
    }
    for code in codes {
        h.bytes(&code.to_le_bytes());
    }
    h.0
}
