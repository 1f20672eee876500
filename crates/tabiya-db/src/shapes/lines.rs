//! Search lines: each game's main line as from–to codes, kept with the square index, so
//! that a structure search replays a game without decompressing its record or decoding its
//! moves. A stored game's moves are numbered among the mover's pieces and their targets
//! (`chess::moves`): a byte a move, but each needs the attacks of the moving piece, and the
//! record holds the game's tags and comments too. A search replays every game it may match
//! as far as its first match (hundreds of thousands at ten million games): two bytes a move
//! that need no attack to read make that replay several times cheaper.
//!
//! A square segment (see [`super::squares`]) built with lines says so in its head; its
//! games' lines are kept in blocks of [`BLOCK_GAMES`] consecutive ids:
//!
//! | `shapes` key | value |
//! |---|---|
//! | `L`, segment's first id (u32 BE), block (u16 BE) | per game of the block, its number of moves plus one (u16 LE; 0: no line, the game is read from its record), then every game's codes (u16 LE each) |
//!
//! A code is the move's code in the position index ([`move_code`]: from square, to square —
//! a castling king's rook's —, promotion role, castling flag). A game without a line: one
//! not starting from the standard position, a Chess960 game, a line longer than 65,534
//! moves, a game not stored.

use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square};
use tabiya_store::{ReadTx, TableRef};

use super::SHAPES;
use crate::Result;
use crate::chess::moves::{move_code, plain_move};
use crate::codec::DecodeError;

/// Games a block of lines holds.
pub const BLOCK_GAMES: u32 = 32;

const LINES: u8 = b'L';

/// The key of a block of lines of the segment starting at `first`.
pub(crate) fn block_key(first: u32, block: u32) -> [u8; 7] {
    let mut k = [LINES; 7];
    k[1..5].copy_from_slice(&first.to_be_bytes());
    k[5..].copy_from_slice(&(block as u16).to_be_bytes());
    k
}

/// The keys of every block of the segment starting at `first`: from its first up to (not
/// including) the next segment's.
pub(crate) fn block_keys(first: u32) -> ([u8; 7], [u8; 7]) {
    let mut to = block_key(first, 0);
    to[5..].copy_from_slice(&[u8::MAX; 2]);
    (block_key(first, 0), to)
}

/// The line of a game starting at `start` in `mode` with these moves, when it can have
/// one (see the module).
pub fn line_of(start: &Chess, mode: CastlingMode, moves: &[Move]) -> Option<Vec<u16>> {
    let standard = mode == CastlingMode::Standard
        && start.to_setup(EnPassantMode::Always)
            == Chess::default().to_setup(EnPassantMode::Always);
    (standard && moves.len() < usize::from(u16::MAX)).then(|| moves.iter().map(move_code).collect())
}

/// The move a code stands for in `pos`: an error (what is wrong) when it cannot be one of
/// the mover's (a damaged line); legality beyond that was checked when the game was stored.
pub fn decode(pos: &Chess, code: u16) -> std::result::Result<Move, &'static str> {
    let bad = |what: &'static str| what;
    let from = Square::new(u32::from(code & 63));
    let to = Square::new(u32::from(code >> 6 & 63));
    let board = pos.board();
    let us = board.by_color(pos.turn());
    let Some(role) = board.role_at(from).filter(|_| us.contains(from)) else {
        return Err(bad("search line: no piece of the mover"));
    };
    if code & 1 << 15 != 0 {
        let castle = Move::Castle {
            king: from,
            rook: to,
        };
        if !pos.is_legal(castle) {
            return Err(bad("search line: castling"));
        }
        return Ok(castle);
    }
    if us.contains(to) || board.kings().contains(to) {
        return Err(bad("search line: a piece taken that cannot be"));
    }
    let last_rank = Bitboard::from_rank(match pos.turn() {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    });
    let promotion = match code >> 12 & 7 {
        0 => None,
        r => Some(Role::try_from(r as u8).map_err(|_| bad("search line: promotion"))?),
    };
    let promotes = role == Role::Pawn && last_rank.contains(to);
    if promotes != promotion.is_some() || matches!(promotion, Some(Role::Pawn | Role::King)) {
        return Err(bad("search line: promotion"));
    }
    let m = plain_move(board, role, from, to, promotion);
    if m.is_en_passant() && pos.maybe_ep_square() != Some(to) {
        return Err(bad("search line: en passant"));
    }
    Ok(m)
}

/// Encodes a block of lines (`None`: a game without one).
pub(crate) fn encode_block(lines: &[Option<Vec<u16>>]) -> Vec<u8> {
    let moves: usize = lines.iter().flatten().map(Vec::len).sum();
    let mut out = Vec::with_capacity(2 * (lines.len() + moves));
    for l in lines {
        let n = l.as_ref().map_or(0, |l| l.len() as u16 + 1);
        out.extend_from_slice(&n.to_le_bytes());
    }
    for c in lines.iter().flatten().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
    out
}

/// The codes of the `slot`-th game of a block of `games` games: none when it has no line,
/// an error when the block is not one of that many.
fn block_line(
    block: &[u8],
    games: usize,
    slot: usize,
) -> std::result::Result<Option<&[u8]>, DecodeError> {
    let short = |offset: usize| DecodeError {
        what: "search lines: a block cut short",
        offset,
        cause: None,
    };
    let count = |i: usize| -> std::result::Result<usize, DecodeError> {
        block
            .get(2 * i..2 * i + 2)
            .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
            .ok_or_else(|| short(2 * i))
    };
    let mut at = 2 * games;
    for i in 0..slot {
        at += 2 * count(i)?.saturating_sub(1);
    }
    match count(slot)? {
        0 => Ok(None),
        n => block
            .get(at..at + 2 * (n - 1))
            .map(Some)
            .ok_or_else(|| short(at)),
    }
}

/// Blocks a run of lines may skip between two games asked for: past that, a new cursor is
/// cheaper than reading the blocks between.
const RUN_GAP: u32 = 8;

/// Reads games' lines: the segments that keep them.
pub struct LineReader {
    table: TableRef,
    /// Segments with lines: (first id, one past the last).
    segments: Vec<(u32, u32)>,
}

impl LineReader {
    /// A reader of the lines of `segments`: the square segments that keep them (first id, one
    /// past the last; `squares::line_segments`).
    pub fn new(read: &ReadTx, segments: Vec<(u32, u32)>) -> Result<LineReader> {
        Ok(LineReader {
            table: read.table(SHAPES)?,
            segments,
        })
    }

    /// `f(i, codes)` for each game `ids[i]` (ascending) a segment keeps a line for, its codes
    /// two bytes each (see the module); returns the indices of the others (to be read from
    /// their records), ascending. The blocks are read in key order, one cursor for each run
    /// of nearby blocks (no lookup from the root for each game: a search asks hundreds of
    /// thousands). Stops at `f`'s first error.
    pub fn each_line(
        &self,
        ids: &[u32],
        mut f: impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<Vec<usize>> {
        let mut missing = Vec::new();
        let mut i = 0;
        let mut seg = 0;
        while i < ids.len() {
            seg += self.segments[seg..].partition_point(|s| s.1 <= ids[i]);
            let Some(&(first, end)) = self.segments.get(seg).filter(|s| s.0 <= ids[i]) else {
                missing.push(i);
                i += 1;
                continue;
            };
            // A run: the following games of this segment whose blocks are near each other.
            let block_of = |id: u32| (id - first) / BLOCK_GAMES;
            let mut j = i + 1;
            while j < ids.len()
                && ids[j] < end
                && block_of(ids[j]) <= block_of(ids[j - 1]) + RUN_GAP
            {
                j += 1;
            }
            let (b0, b1) = (block_of(ids[i]), block_of(ids[j - 1]));
            let mut at = i;
            let mut failed = None;
            // (A segment has at most 2,048 blocks: the key past the last fits.)
            let to = block_key(first, b1 + 1);
            self.table.scan(&block_key(first, b0), Some(&to), |k, v| {
                let Some(block) = k
                    .get(5..7)
                    .map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])))
                else {
                    return true;
                };
                // Games of blocks not written (none of their games has a line).
                while at < j && block_of(ids[at]) < block {
                    missing.push(at);
                    at += 1;
                }
                let start = first + block * BLOCK_GAMES;
                let games = (end - start).min(BLOCK_GAMES) as usize;
                while at < j && block_of(ids[at]) == block {
                    let slot = (ids[at] - start) as usize;
                    let step = match block_line(v, games, slot) {
                        Ok(Some(codes)) => f(at, codes),
                        Ok(None) => {
                            missing.push(at);
                            Ok(())
                        }
                        Err(e) => Err(crate::Error::Corrupt(format!("game {}: {e}", ids[at]))),
                    };
                    if let Err(e) = step {
                        failed = Some(e);
                        return false;
                    }
                    at += 1;
                }
                at < j
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
            missing.extend(at..j);
            i = j;
        }
        Ok(missing)
    }

    /// The codes of game `id`'s line, or none (see [`LineReader::each_line`]).
    pub fn line(&self, id: u32) -> Result<Option<Vec<u8>>> {
        let mut out = None;
        self.each_line(&[id], |_, codes| {
            out = Some(codes.to_vec());
            Ok(())
        })?;
        Ok(out)
    }
}

/// A line's moves, read one after another from the position they are played in.
pub struct LineMoves<'a> {
    codes: &'a [u8],
    at: usize,
}

impl<'a> LineMoves<'a> {
    pub fn new(codes: &'a [u8]) -> LineMoves<'a> {
        LineMoves { codes, at: 0 }
    }

    /// The move played from `pos` (the line's position so far), `None` past its end.
    pub fn next_move(&mut self, pos: &Chess) -> std::result::Result<Option<Move>, DecodeError> {
        let Some(c) = self.codes.get(self.at..self.at + 2) else {
            return Ok(None);
        };
        let m = decode(pos, u16::from_le_bytes([c[0], c[1]])).map_err(|what| DecodeError {
            what,
            offset: self.at,
            cause: None,
        })?;
        self.at += 2;
        Ok(Some(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::stored::decode_line;
    use crate::records::Records;

    /// TWIC 920 and Chess960 games imported with the structure index: every game from the
    /// standard position has a line, and its moves read from the line are the record's,
    /// promotions, castling and en passant included; a Chess960 game has none.
    #[test]
    fn every_line_reads_as_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let data =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn");
        let files = [
            data.join("twic/twic0920.pgn"),
            data.join("edge-cases/data_pgn_cutechess-fischerrandom.pgn"),
        ];
        let db = super::super::imported_with_structures(dir.path(), &files);
        let read = db.store.read().unwrap();
        let segments = super::super::squares::read_square_segments(&read).unwrap();
        assert!(!segments.is_empty() && segments.iter().all(|s| s.lines));
        let lines =
            LineReader::new(&read, super::super::squares::line_segments(&read).unwrap()).unwrap();
        let (mut games, mut without, mut moves) = (0, 0, 0);
        let (mut promotions, mut castles, mut ep) = (0, 0, 0);
        Records::new(&read)
            .unwrap()
            .scan(|id, raw| {
                let (start, mode, line, _) = decode_line(raw).unwrap();
                let codes = lines.line(id).unwrap();
                assert_eq!(
                    codes.is_some(),
                    line_of(&start, mode, &line).is_some(),
                    "game {id}"
                );
                let Some(codes) = codes else {
                    without += 1;
                    return Ok(true);
                };
                games += 1;
                let mut read = LineMoves::new(&codes);
                let mut pos = start;
                for m in &line {
                    assert_eq!(read.next_move(&pos).unwrap().as_ref(), Some(m), "game {id}");
                    promotions += usize::from(m.is_promotion());
                    castles += usize::from(m.is_castle());
                    ep += usize::from(m.is_en_passant());
                    pos.play_unchecked(*m);
                    moves += 1;
                }
                assert_eq!(read.next_move(&pos).unwrap(), None, "game {id}");
                Ok(true)
            })
            .unwrap();
        assert!(games > 2000 && moves > 100_000, "{games} {moves}");
        // Read in runs for many games at once (all, every third): the same lines.
        let ids: Vec<u32> = Records::new(&read).unwrap().ids().unwrap();
        for step in [1, 3] {
            let asked: Vec<u32> = ids.iter().copied().step_by(step).collect();
            let mut got: Vec<Option<Vec<u8>>> = vec![None; asked.len()];
            let missing = lines
                .each_line(&asked, |i, codes| {
                    got[i] = Some(codes.to_vec());
                    Ok(())
                })
                .unwrap();
            for (i, id) in asked.iter().enumerate() {
                assert_eq!(got[i], lines.line(*id).unwrap(), "game {id}");
                assert_eq!(
                    got[i].is_none(),
                    missing.binary_search(&i).is_ok(),
                    "game {id}"
                );
            }
        }
        // The Chess960 games (each from its own set-up position) are read from records.
        assert!(without >= 2, "{without}");
        assert!(
            promotions > 0 && castles > 1000 && ep > 0,
            "{promotions} {castles} {ep}"
        );
    }

    /// A block gives each game its own codes back, and a block cut short is an error.
    #[test]
    fn a_block_gives_each_game_its_codes() {
        let lines = vec![Some(vec![1u16, 2, 3]), None, Some(vec![]), Some(vec![7])];
        let block = encode_block(&lines);
        for (slot, l) in lines.iter().enumerate() {
            let want: Option<Vec<u8>> = l
                .as_ref()
                .map(|l| l.iter().flat_map(|c| c.to_le_bytes()).collect());
            assert_eq!(
                block_line(&block, 4, slot).unwrap().map(<[u8]>::to_vec),
                want
            );
        }
        assert!(block_line(&block[..block.len() - 1], 4, 3).is_err());
        assert!(block_line(&block[..3], 4, 0).is_err());
    }

    /// A code that cannot be one of the mover's moves is an error, never a move.
    #[test]
    fn a_damaged_code_is_refused() {
        let pos = Chess::default();
        let code = |from: Square, to: Square, flags: u16| from as u16 | (to as u16) << 6 | flags;
        assert!(decode(&pos, code(Square::E2, Square::E4, 0)).is_ok());
        // A black piece, an empty square, a piece of one's own taken, a promotion on e4.
        assert!(decode(&pos, code(Square::E7, Square::E5, 0)).is_err());
        assert!(decode(&pos, code(Square::E4, Square::E5, 0)).is_err());
        assert!(decode(&pos, code(Square::D1, Square::D2, 0)).is_err());
        assert!(decode(&pos, code(Square::E2, Square::E4, 5 << 12)).is_err());
        // Castling through the pieces, a king taking its rook without the castling flag.
        assert!(decode(&pos, code(Square::E1, Square::H1, 1 << 15)).is_err());
        assert!(decode(&pos, code(Square::E1, Square::H1, 0)).is_err());
        // En passant with none to take.
        let fen: shakmaty::fen::Fen = "4k3/8/8/3Pp3/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let p: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        assert!(decode(&p, code(Square::D5, Square::E6, 0)).is_err());
    }
}
