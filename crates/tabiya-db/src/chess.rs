//! The chess game kind: position keys, move codes, the positions a game counts, and the
//! compact stored form of a game (lossless for what a PGN game holds).

use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist128;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Piece, Position, Role,
    Square, attacks,
};
use tabiya_pgn::model::{Game, Node, Variation, parse_date, parse_elo, year_of};

use crate::codec::{DecodeError, Reader, put_str, put_varint, varint_bytes};
use crate::stats::{GameFacts, GameOutcome};

/// Move code of "no move": the game ended in this position.
pub const NO_MOVE: u16 = 0xFFFF;

/// The index key of a position: 128-bit Zobrist hash of piece placement, side to move,
/// castling rights, and the en-passant square only when an en-passant capture is legal.
pub fn position_key(pos: &Chess) -> u128 {
    pos.zobrist_hash::<Zobrist128>(EnPassantMode::Legal).0
}

fn role_bits(r: Role) -> u16 {
    r as u16
}

/// A 16-bit move code: from square (bits 0–5), to square (6–11), promotion role (12–14),
/// castling flag (15; then `to` is the rook's square, which also covers Chess960).
pub fn move_code(m: &Move) -> u16 {
    match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => from as u16 | (to as u16) << 6 | promotion.map_or(0, role_bits) << 12,
        Move::EnPassant { from, to } => from as u16 | (to as u16) << 6,
        Move::Castle { king, rook } => king as u16 | (rook as u16) << 6 | 1 << 15,
        Move::Put { to, role } => (to as u16) << 6 | role_bits(role) << 12 | 0x3f,
    }
}

/// The legal move of `pos` with this code.
pub fn code_to_move(pos: &Chess, code: u16) -> Option<Move> {
    if code == NO_MOVE {
        return None;
    }
    pos.legal_moves().into_iter().find(|m| move_code(m) == code)
}

/// The squares the piece on `from` may go to, which move codes count in ascending order,
/// and whether they are promotions (then each square counts four times: queen, rook,
/// bishop, knight). Castling is the king going to its rook. Pseudo-legal: stored games were
/// checked when imported.
fn target_squares(pos: &Chess, from: Square, ep: Option<Square>) -> (Bitboard, bool) {
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return (Bitboard::EMPTY, false);
    };
    let us = board.by_color(piece.color);
    let occupied = board.occupied();
    match piece.role {
        Role::Pawn => {
            let forward: i32 = if piece.color == Color::White { 8 } else { -8 };
            let mut t = Bitboard::EMPTY;
            if let Some(one) = from.offset(forward)
                && !occupied.contains(one)
            {
                t |= Bitboard::from_square(one);
                let start_rank = if piece.color == Color::White {
                    shakmaty::Rank::Second
                } else {
                    shakmaty::Rank::Seventh
                };
                if from.rank() == start_rank
                    && let Some(two) = one.offset(forward)
                    && !occupied.contains(two)
                {
                    t |= Bitboard::from_square(two);
                }
            }
            let mut capturable = board.by_color(!piece.color);
            if let Some(ep) = ep {
                capturable |= Bitboard::from_square(ep);
            }
            let seventh = if piece.color == Color::White {
                shakmaty::Rank::Seventh
            } else {
                shakmaty::Rank::Second
            };
            (
                t | (attacks::pawn_attacks(piece.color, from) & capturable),
                from.rank() == seventh,
            )
        }
        Role::King => (
            (attacks::king_attacks(from) & !us)
                | (pos.castles().castling_rights() & us & board.rooks()),
            false,
        ),
        role => (
            attacks::attacks(
                from,
                Piece {
                    color: piece.color,
                    role,
                },
                occupied,
            ) & !us,
            false,
        ),
    }
}

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Appends a move's code: one byte, the index of the moving piece among the mover's pieces
/// (ascending square) in the high nibble and the index of its target (see
/// [`target_squares`]) in the low nibble; a target index of 15 or more is written as 15 and
/// a second byte with the rest. Both directions count bits: no move generation, so replays
/// are fast.
pub fn encode_move(pos: &Chess, m: &Move, out: &mut Vec<u8>) {
    encode_move_ep(pos, m, pos.ep_square(EnPassantMode::Legal), out);
}

/// [`encode_move`] given the position's en-passant square (when a capture there is legal),
/// for a caller that knows it already.
pub fn encode_move_ep(pos: &Chess, m: &Move, ep: Option<Square>, out: &mut Vec<u8>) {
    let (from, to, promo) = match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { to, .. } => (to, to, None),
    };
    let us = pos.us();
    let piece_idx = (us & Bitboard((1u64 << from as u32) - 1)).count() as u8;
    let (squares, promoting) = target_squares(pos, from, ep);
    let below = (squares & Bitboard((1u64 << to as u32) - 1)).count();
    let t = match (
        squares.contains(to),
        promoting,
        promo.and_then(|r| PROMOTIONS.iter().position(|&p| p == r)),
    ) {
        (true, false, None) => below,
        (true, true, Some(p)) => below * 4 + p,
        // Not a move of this piece: the first target (never for a checked game).
        _ => 0,
    };
    if t < 15 {
        out.push(piece_idx << 4 | t as u8);
    } else {
        out.push(piece_idx << 4 | 15);
        out.push((t - 15) as u8);
    }
}

/// Reads one move code (see [`encode_move`]).
pub fn decode_move(pos: &Chess, r: &mut Reader<'_>) -> Result<Move, DecodeError> {
    decode_move_ep(pos, pos.ep_square(EnPassantMode::Legal), r)
}

/// [`decode_move`] given the position's en-passant square (see [`encode_move_ep`]).
fn decode_move_ep(
    pos: &Chess,
    ep: Option<Square>,
    r: &mut Reader<'_>,
) -> Result<Move, DecodeError> {
    let b = r.u8("move")?;
    let piece_idx = (b >> 4) as usize;
    let mut t = (b & 15) as usize;
    if t == 15 {
        t += r.u8("move")? as usize;
    }
    let Some(from) = pos.us().into_iter().nth(piece_idx) else {
        return Err(bad("move piece", r));
    };
    let (squares, promoting) = target_squares(pos, from, ep);
    let (nth, promotion) = if promoting {
        (t / 4, Some(PROMOTIONS[t % 4]))
    } else {
        (t, None)
    };
    let mut left = squares.0;
    for _ in 0..nth.min(64) {
        left &= left.wrapping_sub(1);
    }
    if left == 0 {
        return Err(bad("move target", r));
    }
    let to = Square::new(left.trailing_zeros());
    let board = pos.board();
    let role = board.role_at(from).expect("piece on from");
    if role == Role::King && board.by_color(pos.turn()).contains(to) {
        return Ok(Move::Castle {
            king: from,
            rook: to,
        });
    }
    if role == Role::Pawn && from.file() != to.file() && !board.occupied().contains(to) {
        return Ok(Move::EnPassant { from, to });
    }
    Ok(Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion,
    })
}

/// The key of the position after `m`, from the key of the position before it, without
/// hashing the whole board again. `before_ep`/`after_ep` are the positions' en-passant
/// squares when an en-passant capture is legal (the only case the key includes them).
pub fn next_key(
    before: &Chess,
    after: &Chess,
    m: Move,
    key: u128,
    before_ep: Option<Square>,
    after_ep: Option<Square>,
) -> u128 {
    next_key_from(
        before.turn(),
        before.castles(),
        after,
        m,
        key,
        before_ep,
        after_ep,
    )
}

/// [`next_key`] from what it needs of the position before the move: side to move and
/// castling rights.
pub fn next_key_from(
    turn: Color,
    castles_before: &shakmaty::Castles,
    after: &Chess,
    m: Move,
    key: u128,
    before_ep: Option<Square>,
    after_ep: Option<Square>,
) -> u128 {
    use shakmaty::zobrist::ZobristValue;
    let mut k = Zobrist128(key);
    k ^= Zobrist128::zobrist_for_white_turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            k ^= Zobrist128::zobrist_for_piece(from, role.of(turn));
            k ^= Zobrist128::zobrist_for_piece(to, promotion.unwrap_or(role).of(turn));
            if let Some(c) = capture {
                k ^= Zobrist128::zobrist_for_piece(to, c.of(!turn));
            }
        }
        Move::EnPassant { from, to } => {
            k ^= Zobrist128::zobrist_for_piece(from, Role::Pawn.of(turn));
            k ^= Zobrist128::zobrist_for_piece(to, Role::Pawn.of(turn));
            k ^= Zobrist128::zobrist_for_piece(
                Square::from_coords(to.file(), from.rank()),
                Role::Pawn.of(!turn),
            );
        }
        Move::Castle { king, rook } => {
            let side = if rook > king {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            k ^= Zobrist128::zobrist_for_piece(king, Role::King.of(turn));
            k ^= Zobrist128::zobrist_for_piece(side.king_to(turn), Role::King.of(turn));
            k ^= Zobrist128::zobrist_for_piece(rook, Role::Rook.of(turn));
            k ^= Zobrist128::zobrist_for_piece(side.rook_to(turn), Role::Rook.of(turn));
        }
        Move::Put { .. } => return position_key(after),
    }
    let (cb, ca) = (castles_before, after.castles());
    if cb.castling_rights() != ca.castling_rights() {
        for color in Color::ALL {
            for side in shakmaty::CastlingSide::ALL {
                if cb.has(color, side) != ca.has(color, side) {
                    k ^= Zobrist128::zobrist_for_castling_right(color, side);
                }
            }
        }
    }
    if let Some(sq) = before_ep {
        k ^= Zobrist128::zobrist_for_en_passant_file(sq.file());
    }
    if let Some(sq) = after_ep {
        k ^= Zobrist128::zobrist_for_en_passant_file(sq.file());
    }
    k.0
}

/// One counted position of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub key: u128,
    /// The move played from this position ([`NO_MOVE`] at the end of the game or the ply cap).
    pub code: u16,
    /// Side to move: 0 White, 1 Black.
    pub mover: u8,
}

/// The positions a game counts: every main-line position up to `max_ply` (inclusive), each
/// once at its first occurrence, with the move played there.
pub fn occurrences(start: &Chess, moves: &[Move], max_ply: Option<u32>, out: &mut Vec<Occurrence>) {
    occurrences_with_plies(start, moves, max_ply, out, None);
}

/// [`occurrences`], also giving the ply of each position (positions repeated later in the
/// game are skipped, so consecutive entries are not always consecutive plies).
pub fn occurrences_with_plies(
    start: &Chess,
    moves: &[Move],
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: Option<&mut Vec<u16>>,
) {
    walk(
        start,
        moves.iter().copied(),
        moves.len(),
        max_ply,
        out,
        plies,
        None,
    );
}

/// One pass over a game's main line: the counted positions (up to the ply cap) and, when
/// asked, the move codes of every move (the stored form's main line).
fn walk(
    start: &Chess,
    moves: impl Iterator<Item = Move>,
    len: usize,
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: Option<&mut Vec<u16>>,
    mut codes: Option<&mut Vec<u8>>,
) {
    let limit = max_ply.map_or(len, |m| (m as usize).min(len));
    // The move played at the cap is counted too (it is that position's move).
    let end = if codes.is_some() {
        len
    } else {
        (limit + 1).min(len)
    };
    let mut next = moves.take(end);
    let mut scratch = Vec::new();
    let plies = plies.unwrap_or(&mut scratch);
    let result: Result<Chess, DecodeError> =
        count_positions(start.clone(), limit, None, out, plies, |pos, ep| {
            Ok(next.next().inspect(|m| {
                if let Some(c) = codes.as_deref_mut() {
                    encode_move_ep(pos, m, ep, c);
                }
            }))
        });
    debug_assert!(result.is_ok(), "moves from a list never fail");
}

/// The counted positions of a line given move by move: `next_move` returns the move played
/// from a position (`None` at the end); positions after `limit` plies are not counted (the
/// moves are still asked for, so a caller can encode the whole line). With `stop_at`, it
/// returns as soon as that position is counted. Returns the position it stopped at.
fn count_positions(
    mut pos: Chess,
    limit: usize,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
    mut next_move: impl FnMut(&Chess, Option<Square>) -> Result<Option<Move>, DecodeError>,
) -> Result<Chess, DecodeError> {
    out.clear();
    plies.clear();
    let mut walk = Walk::new(&pos, limit, out);
    loop {
        if let Some((_, Some(reach))) = stop_at
            && !reach.possible(&pos)
        {
            return Ok(pos);
        }
        let m = next_move(&pos, walk.ep())?;
        let code = m.as_ref().map_or(NO_MOVE, move_code);
        if walk.count(pos.turn(), code, out, plies) && stop_at.is_some_and(|(k, _)| k == walk.key())
        {
            return Ok(pos);
        }
        let Some(m) = m else { return Ok(pos) };
        let before = walk.leave(&pos, m, out);
        pos.play_unchecked(m);
        walk.arrive(&before, &pos, m);
        debug_assert_eq!(walk.key(), position_key(&pos));
    }
}

/// The counting walk along a line, one position at a time: the current position's key and
/// en-passant square, its ply, and where the positions that can still repeat begin. A caller
/// that plays the moves itself (the importer's direct path) drives it with
/// [`Walk::count`], [`Walk::leave`] and [`Walk::arrive`]; [`count_positions`] does the same.
pub struct Walk {
    key: u128,
    ep: Option<Square>,
    /// First entry of `out` the current position may repeat (positions before the last
    /// irreversible move cannot).
    window_start: usize,
    ply: usize,
    limit: usize,
}

/// What [`Walk::arrive`] needs of the position a move left.
pub struct Left {
    turn: Color,
    castles: shakmaty::Castles,
}

impl Walk {
    /// A walk from `pos`, counting up to `limit` plies, appending to `out` (which may hold
    /// other games' positions before this one's).
    pub fn new(pos: &Chess, limit: usize, out: &[Occurrence]) -> Walk {
        Walk {
            key: position_key(pos),
            ep: pos.ep_square(EnPassantMode::Legal),
            window_start: out.len(),
            ply: 0,
            limit,
        }
    }

    /// The current position's key.
    pub fn key(&self) -> u128 {
        self.key
    }

    /// The current position's en-passant square when a capture there is legal.
    pub fn ep(&self) -> Option<Square> {
        self.ep
    }

    /// Counts the current position (`turn` to move, `code` the move played from it or
    /// [`NO_MOVE`]) unless it is past the ply cap or already counted in this game. Returns
    /// whether it was counted.
    pub fn count(
        &mut self,
        turn: Color,
        code: u16,
        out: &mut Vec<Occurrence>,
        plies: &mut Vec<u16>,
    ) -> bool {
        if self.ply > self.limit || out[self.window_start..].iter().any(|o| o.key == self.key) {
            return false;
        }
        out.push(Occurrence {
            key: self.key,
            code,
            mover: if turn == Color::White { 0 } else { 1 },
        });
        plies.push(self.ply.min(u16::MAX as usize) as u16);
        true
    }

    /// `m` is about to be played from `pos`, counted or not (`out` as it is then).
    pub fn leave(&mut self, pos: &Chess, m: Move, out: &[Occurrence]) -> Left {
        if pos.is_irreversible(m) {
            self.window_start = out.len();
        }
        Left {
            turn: pos.turn(),
            castles: pos.castles().clone(),
        }
    }

    /// `after` is the position `m` led to.
    pub fn arrive(&mut self, before: &Left, after: &Chess, m: Move) {
        let after_ep = after.ep_square(EnPassantMode::Legal);
        self.key = next_key_from(
            before.turn,
            &before.castles,
            after,
            m,
            self.key,
            self.ep,
            after_ep,
        );
        self.ep = after_ep;
        self.ply += 1;
    }
}

/// The counted positions (and plies) of a stored game, decoding its moves as it goes: one
/// pass, no list of moves. The same as [`decode_line`] then [`occurrences_with_plies`].
pub fn replay_record(
    data: &[u8],
    max_ply: Option<u32>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<(), DecodeError> {
    replay_record_until(data, max_ply, None, out, plies)
}

/// [`replay_record`] that stops once the position `stop_at` is counted (it is then the last
/// occurrence given), or, given its [`Reach`], once the game can no longer reach it: how a
/// query checks that a game reaches a position without replaying the rest of it.
pub fn replay_record_until(
    data: &[u8],
    max_ply: Option<u32>,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<(), DecodeError> {
    replay_record_to(data, max_ply, stop_at, out, plies).map(|_| ())
}

/// [`replay_record_until`], returning the position the replay stopped at.
fn replay_record_to(
    data: &[u8],
    max_ply: Option<u32>,
    stop_at: Option<(u128, Option<&Reach>)>,
    out: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) -> Result<Chess, DecodeError> {
    let mut r = Reader::new(data);
    let (pos, n) = record_start(&mut r)?;
    let limit = max_ply.map_or(n, |m| (m as usize).min(n));
    // The move played at the cap is counted too (it is that position's move).
    let mut left = (limit + 1).min(n);
    count_positions(pos, limit, stop_at, out, plies, |pos, ep| {
        if left == 0 {
            return Ok(None);
        }
        left -= 1;
        decode_move_ep(pos, ep, &mut r).map(Some)
    })
}

/// Reads a stored game up to its moves: the start position and the number of plies.
fn record_start(r: &mut Reader) -> Result<(Chess, usize), DecodeError> {
    skip_tags(r)?;
    let flags = r.u8("game flags")?;
    let mode = if flags & F_960 != 0 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let pos = if flags & F_FEN != 0 {
        let fen = r.str("start FEN")?;
        let fen = Fen::from_ascii(fen.as_bytes()).map_err(|_| bad("start FEN", r))?;
        fen.into_position::<Chess>(mode)
            .map_err(|_| bad("start position", r))?
    } else {
        Chess::default()
    };
    let n = r.varint("ply count")? as usize;
    if n > r.remaining().len() {
        return Err(bad("ply count", r));
    }
    Ok((pos, n))
}

/// The keys of the positions one legal move after position `key` in a stored game (its
/// first occurrence), or `None` when the game never reaches it.
pub fn successor_keys_in_record(data: &[u8], key: u128) -> Result<Option<Vec<u128>>, DecodeError> {
    let (mut occs, mut plies) = (Vec::new(), Vec::new());
    let at = replay_record_to(data, None, Some((key, None)), &mut occs, &mut plies)?;
    Ok(occs
        .last()
        .filter(|o| o.key == key)
        .map(|_| successor_keys(&at)))
}

/// The stored form's dictionary-free part ([`encode_body`]) and the counted positions with
/// their plies, in one pass over the game.
pub fn prepare(
    game: &Game,
    max_ply: Option<u32>,
    body: &mut Vec<u8>,
    occs: &mut Vec<Occurrence>,
    plies: &mut Vec<u16>,
) {
    encode_body_head(game, body);
    walk(
        &game.start,
        game.main_line().copied(),
        game.moves.len(),
        max_ply,
        occs,
        Some(plies),
        Some(body),
    );
    encode_body_tail(game, body);
}

/// What a game must still have to reach a position later: men are never added (a side's
/// count only falls, promotions included), a pawn on its own second rank has never moved (no
/// pawn can arrive there), and castling rights, once lost, never come back. A replay looking
/// for a position stops at the first position failing this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    white: u32,
    black: u32,
    /// White pawns on the second rank, black pawns on the seventh.
    home_white: Bitboard,
    home_black: Bitboard,
    castling: Bitboard,
}

impl Reach {
    pub fn of(pos: &Chess) -> Reach {
        let b = pos.board();
        Reach {
            white: b.white().count() as u32,
            black: b.black().count() as u32,
            home_white: b.pawns() & b.white() & Bitboard::from_rank(shakmaty::Rank::Second),
            home_black: b.pawns() & b.black() & Bitboard::from_rank(shakmaty::Rank::Seventh),
            castling: pos.castles().castling_rights(),
        }
    }

    /// False when no continuation of `pos` can reach the position.
    pub fn possible(&self, pos: &Chess) -> bool {
        let b = pos.board();
        b.white().count() as u32 >= self.white
            && b.black().count() as u32 >= self.black
            && self.home_white.is_subset(b.pawns() & b.white())
            && self.home_black.is_subset(b.pawns() & b.black())
            && self.castling.is_subset(pos.castles().castling_rights())
    }
}

/// Keys of the positions one legal move away (for finding positions the index keeps only
/// through their successor, see `run::build`).
pub fn successor_keys(pos: &Chess) -> Vec<u128> {
    let key = position_key(pos);
    let ep = pos.ep_square(EnPassantMode::Legal);
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut p = pos.clone();
            p.play_unchecked(m);
            let after_ep = p.ep_square(EnPassantMode::Legal);
            next_key_from(pos.turn(), pos.castles(), &p, m, key, ep, after_ep)
        })
        .collect()
}

/// What the index needs to know about a chess game.
pub fn facts(game: &Game) -> GameFacts {
    facts_from(|name| game.tag(name), game.outcome())
}

/// [`facts`] from a lookup of the game's tags (first occurrence) and its outcome.
pub fn facts_from<'a>(
    tag: impl Fn(&str) -> Option<&'a str>,
    outcome: Option<KnownOutcome>,
) -> GameFacts {
    let date = tag("Date");
    let (y, m, d) = date.map(parse_date).unwrap_or((0, 0, 0));
    let year = year_of(date, tag("EventDate"));
    let y = if y == 0 { year.unwrap_or(0) } else { y };
    GameFacts {
        outcome: Some(index_outcome(outcome)),
        ratings: [
            tag("WhiteElo").and_then(parse_elo),
            tag("BlackElo").and_then(parse_elo),
        ],
        year,
        date: y as u32 * 10000 + m as u32 * 100 + d as u32,
        values: None,
    }
}

/// A chess game's result as the index counts it.
fn outcome(game: &Game) -> GameOutcome {
    index_outcome(game.outcome())
}

/// [`outcome`] from the game's result.
pub fn index_outcome(outcome: Option<KnownOutcome>) -> GameOutcome {
    match outcome {
        Some(KnownOutcome::Decisive {
            winner: Color::White,
        }) => GameOutcome::FirstWins,
        Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => GameOutcome::SecondWins,
        Some(KnownOutcome::Draw) => GameOutcome::Draw,
        None => GameOutcome::Unknown,
    }
}

/// Dictionaries of the stored game form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Dict {
    Player = 0,
    Event = 1,
    Site = 2,
    Round = 3,
    TagName = 4,
}

impl Dict {
    pub const ALL: [Dict; 5] = [
        Dict::Player,
        Dict::Event,
        Dict::Site,
        Dict::Round,
        Dict::TagName,
    ];
}

/// Assigns and resolves dictionary ids.
pub trait Names {
    fn id(&mut self, dict: Dict, name: &str) -> u32;
}

/// Resolves dictionary ids back to names.
pub trait NameLookup {
    fn name(&self, dict: Dict, id: u32) -> Option<String>;
}

const F_FEN: u8 = 1;
const F_960: u8 = 2;
const F_ANNOTATED: u8 = 4;

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

/// Encodes a game into its stored form: the tags ([`encode_tags`], length first, so a game's
/// header reads without its moves), then the body ([`encode_body`]).
pub fn encode_game(game: &Game, names: &mut dyn Names, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    encode_body(game, &mut body);
    assemble(game, names, &body, out);
}

/// The stored form from a body made earlier (by a parse thread) and the tags.
pub fn assemble(game: &Game, names: &mut dyn Names, body: &[u8], out: &mut Vec<u8>) {
    assemble_tags(
        game.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        names,
        body,
        out,
    );
}

/// [`assemble`] from a game's tags alone (the import keeps only them once the body is made).
pub fn assemble_tags<'a>(
    game_tags: impl IntoIterator<Item = (&'a str, &'a str)>,
    names: &mut dyn Names,
    body: &[u8],
    out: &mut Vec<u8>,
) {
    // The tags straight into `out`, their length put in front of them afterwards.
    let start = out.len();
    encode_tag_list(game_tags, names, out);
    let (len, n) = varint_bytes((out.len() - start) as u64);
    out.splice(start..start, len[..n].iter().copied());
    out.extend_from_slice(body);
}

/// Skips the tags of a stored game: the reader then stands at the body.
fn skip_tags<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], DecodeError> {
    let n = r.varint("tags length")? as usize;
    r.bytes(n, "tags")
}

/// The part of the stored form that needs no dictionary (so parse threads can make it):
/// flags, start position, main line as move codes ([`encode_move`]), and the annotations (comments, NAGs, variations) when there are any.
pub fn encode_body(game: &Game, out: &mut Vec<u8>) {
    encode_body_head(game, out);
    let mut pos = game.start.clone();
    for node in &game.moves {
        encode_move(&pos, &node.mv, out);
        pos.play_unchecked(node.mv);
    }
    encode_body_tail(game, out);
}

/// Flags, start position, ply count.
fn encode_body_head(game: &Game, out: &mut Vec<u8>) {
    put_body_head(
        out,
        &game.start,
        game.castling_mode,
        game.has_annotations(),
        outcome(game),
        game.moves.len(),
    );
}

/// [`encode_body_head`] from its parts: the game's start, castling notation, whether it has
/// annotations, its outcome and its number of plies.
pub fn put_body_head(
    out: &mut Vec<u8>,
    start: &Chess,
    mode: CastlingMode,
    annotated: bool,
    outcome: GameOutcome,
    plies: usize,
) {
    let standard = *start == Chess::default();
    let mut flags = 0u8;
    if !standard {
        flags |= F_FEN;
    }
    if mode == CastlingMode::Chess960 {
        flags |= F_960;
    }
    if annotated {
        flags |= F_ANNOTATED;
    }
    flags |= outcome.to_bits() << 3;
    out.push(flags);
    if !standard {
        let fen = Fen::from_position(start, EnPassantMode::Legal).to_string();
        put_str(out, &fen);
    }
    put_varint(out, plies as u64);
}

/// Annotations (comments, NAGs, variations), when the game has any.
fn encode_body_tail(game: &Game, out: &mut Vec<u8>) {
    if game.has_annotations() {
        put_varint(out, game.comments.len() as u64);
        for c in &game.comments {
            put_str(out, c);
        }
        // Sparse list of annotated main-line plies.
        let annotated_plies: Vec<usize> = game
            .moves
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                !n.nags.is_empty() || !n.comments.is_empty() || !n.variations.is_empty()
            })
            .map(|(i, _)| i)
            .collect();
        put_varint(out, annotated_plies.len() as u64);
        let mut pos = game.start.clone();
        let mut at = 0;
        let mut last = 0;
        for i in annotated_plies {
            while at < i {
                pos.play_unchecked(game.moves[at].mv);
                at += 1;
            }
            put_varint(out, (i - last) as u64);
            last = i;
            encode_node_annotations(&game.moves[i], &pos, out);
        }
    }
}

/// The tags: the Seven Tag Roster (without Result, kept as the outcome) and Elo compactly
/// through the dictionaries; anything not in canonical form, and every other tag, verbatim.
pub fn encode_tags(game: &Game, names: &mut dyn Names, out: &mut Vec<u8>) {
    encode_tag_list(
        game.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        names,
        out,
    );
}

/// [`encode_tags`] from the tags, in file order.
pub fn encode_tag_list<'a>(
    tags: impl IntoIterator<Item = (&'a str, &'a str)>,
    names: &mut dyn Names,
    out: &mut Vec<u8>,
) {
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
    // FEN/SetUp tags are rebuilt from the start position; keep a non-standard SetUp value.
    if let Some(setup) = setup.filter(|s| *s != "1") {
        extras.push(("SetUp", setup));
    }
    put_varint(out, extras.len() as u64);
    for (name, value) in extras {
        put_varint(out, names.id(Dict::TagName, name) as u64);
        put_str(out, value);
    }
}

fn encode_node_annotations(node: &Node, before: &Chess, out: &mut Vec<u8>) {
    put_varint(out, node.nags.len() as u64);
    out.extend_from_slice(&node.nags);
    put_varint(out, node.comments.len() as u64);
    for c in &node.comments {
        put_str(out, c);
    }
    put_varint(out, node.variations.len() as u64);
    for v in &node.variations {
        put_varint(out, v.comments.len() as u64);
        for c in &v.comments {
            put_str(out, c);
        }
        put_varint(out, v.moves.len() as u64);
        let mut pos = before.clone();
        for n in &v.moves {
            encode_move(&pos, &n.mv, out);
            encode_node_annotations(n, &pos, out);
            pos.play_unchecked(n.mv);
        }
    }
}

fn bad(what: &'static str, r: &Reader<'_>) -> DecodeError {
    DecodeError {
        what,
        offset: r.pos(),
    }
}

/// Start position, castling mode and main line of a stored game (what a replay needs).
pub fn decode_line(
    data: &[u8],
) -> Result<(Chess, CastlingMode, Vec<Move>, GameOutcome), DecodeError> {
    let mut r = Reader::new(data);
    let (start, mode, moves, outcome, _) = decode_line_from(&mut r)?;
    Ok((start, mode, moves, outcome))
}

type Line = (Chess, CastlingMode, Vec<Move>, GameOutcome, u8);

fn decode_line_from(r: &mut Reader<'_>) -> Result<Line, DecodeError> {
    skip_tags(r)?;
    decode_body_line(r)
}

fn decode_body_line(r: &mut Reader<'_>) -> Result<Line, DecodeError> {
    let flags = r.u8("game flags")?;
    let mode = if flags & F_960 != 0 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let start = if flags & F_FEN != 0 {
        let fen = r.str("start FEN")?;
        let fen = Fen::from_ascii(fen.as_bytes()).map_err(|_| bad("start FEN", r))?;
        fen.into_position::<Chess>(mode)
            .map_err(|_| bad("start position", r))?
    } else {
        Chess::default()
    };
    let n = r.varint("ply count")? as usize;
    if n > r.remaining().len() {
        return Err(bad("ply count", r));
    }
    let mut moves = Vec::with_capacity(n);
    let mut pos = start.clone();
    for _ in 0..n {
        let m = decode_move(&pos, r)?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok((
        start,
        mode,
        moves,
        GameOutcome::from_bits(flags >> 3),
        flags,
    ))
}

/// The tags of a stored game (the Seven Tag Roster and every other tag), without decoding
/// its moves.
pub fn decode_tags(
    data: &[u8],
    names: &dyn NameLookup,
) -> Result<Vec<(String, String)>, DecodeError> {
    let mut r = Reader::new(data);
    let tags = skip_tags(&mut r)?;
    let flags = r.u8("game flags")?;
    let fen = if flags & F_FEN != 0 {
        Some(r.str("start FEN")?.to_string())
    } else {
        None
    };
    decode_tag_part(tags, names, GameOutcome::from_bits(flags >> 3), fen)
}

/// Decodes a stored game back into a whole [`Game`].
pub fn decode_game(data: &[u8], names: &dyn NameLookup) -> Result<Game, DecodeError> {
    let mut r = Reader::new(data);
    let tag_bytes = skip_tags(&mut r)?;
    let (start, mode, moves, outcome, flags) = decode_body_line(&mut r)?;
    let mut game = Game {
        tags: Vec::new(),
        start: start.clone(),
        castling_mode: mode,
        comments: Vec::new(),
        moves: moves.into_iter().map(Node::new).collect(),
        termination: None,
        warnings: Vec::new(),
    };
    if flags & F_ANNOTATED != 0 {
        let nc = r.varint("comment count")?;
        for _ in 0..nc {
            game.comments.push(r.str("comment")?.to_string());
        }
        let na = r.varint("annotation count")?;
        let mut pos = start.clone();
        let mut at = 0usize;
        let mut i = 0usize;
        for _ in 0..na {
            i += r.varint("annotated ply")? as usize;
            if i >= game.moves.len() {
                return Err(bad("annotated ply", &r));
            }
            while at < i {
                pos.play_unchecked(game.moves[at].mv);
                at += 1;
            }
            decode_node_annotations(&mut r, &mut game.moves[i], &pos)?;
        }
    }
    let fen =
        (flags & F_FEN != 0).then(|| Fen::from_position(&start, EnPassantMode::Legal).to_string());
    game.tags = decode_tag_part(tag_bytes, names, outcome, fen)?;
    Ok(game)
}

fn decode_tag_part(
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
            .name(dict, (v - 1) as u32)
            .ok_or_else(|| bad("name id", r))
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
            .name(Dict::TagName, id)
            .ok_or_else(|| bad("tag name id", &r))?;
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

fn decode_node_annotations(
    r: &mut Reader<'_>,
    node: &mut Node,
    before: &Chess,
) -> Result<(), DecodeError> {
    let nn = r.varint("NAG count")? as usize;
    node.nags = r.bytes(nn, "NAGs")?.to_vec();
    let nc = r.varint("comment count")?;
    for _ in 0..nc {
        node.comments.push(r.str("comment")?.to_string());
    }
    let nv = r.varint("variation count")?;
    for _ in 0..nv {
        let mut v = Variation::default();
        let nc = r.varint("comment count")?;
        for _ in 0..nc {
            v.comments.push(r.str("comment")?.to_string());
        }
        let nm = r.varint("variation length")?;
        let mut pos = before.clone();
        for _ in 0..nm {
            let m = decode_move(&pos, r)?;
            let mut n = Node::new(m);
            decode_node_annotations(r, &mut n, &pos)?;
            pos.play_unchecked(m);
            v.moves.push(n);
        }
        node.variations.push(v);
    }
    Ok(())
}

/// Square name helper for messages.
pub fn square_name(sq: Square) -> String {
    sq.to_string()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use tabiya_pgn::parse_game;

    use super::*;

    #[derive(Default)]
    struct MemNames(HashMap<(Dict, String), u32>, HashMap<(Dict, u32), String>);

    impl Names for MemNames {
        fn id(&mut self, dict: Dict, name: &str) -> u32 {
            let n = self.0.len() as u32;
            let id = *self.0.entry((dict, name.to_string())).or_insert(n);
            self.1.insert((dict, id), name.to_string());
            id
        }
    }

    impl NameLookup for MemNames {
        fn name(&self, dict: Dict, id: u32) -> Option<String> {
            self.1.get(&(dict, id)).cloned()
        }
    }

    #[test]
    fn game_round_trips_through_stored_form() {
        let pgn = "[Event \"E\"]\n[Site \"S\"]\n[Date \"1997.??.??\"]\n[Round \"?\"]\n[White \"W, X\"]\n[Black \"B\"]\n[Result \"0-1\"]\n[WhiteElo \"?\"]\n[BlackElo \"2700\"]\n[ECO \"B20\"]\n\n{c} 1. e4 $1 c5 (1... e5 {x} 2. Nf3 (2. f4)) 2. Nf3 {y} 0-1";
        let g = parse_game(pgn.as_bytes(), 1).unwrap();
        let mut names = MemNames::default();
        let mut out = Vec::new();
        encode_game(&g, &mut names, &mut out);
        let back = decode_game(&out, &names).unwrap();
        let mut a = g.tags.clone();
        let mut b = back.tags.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert_eq!(back.moves, g.moves);
        assert_eq!(back.comments, g.comments);
    }

    #[test]
    fn one_pass_preparation_equals_the_separate_steps() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/pgn/twic/twic0920.pgn"
        );
        let text = std::fs::read(path).expect("shared data");
        for item in tabiya_pgn::read_all(text.as_slice()).take(300) {
            let g = item.unwrap().1.unwrap();
            for cap in [None, Some(7)] {
                let (mut body, mut occs, mut plies) = (Vec::new(), Vec::new(), Vec::new());
                prepare(&g, cap, &mut body, &mut occs, &mut plies);
                let mut body2 = Vec::new();
                encode_body(&g, &mut body2);
                assert_eq!(body, body2);
                let moves: Vec<Move> = g.main_line().copied().collect();
                let (mut occs2, mut plies2) = (Vec::new(), Vec::new());
                occurrences_with_plies(&g.start, &moves, cap, &mut occs2, Some(&mut plies2));
                assert_eq!(occs, occs2);
                assert_eq!(plies, plies2);
                // Replaying the stored form gives them too.
                let mut stored = Vec::new();
                stored.push(0);
                stored.extend_from_slice(&body);
                let (mut occs3, mut plies3) = (Vec::new(), Vec::new());
                replay_record(&stored, cap, &mut occs3, &mut plies3).unwrap();
                assert_eq!(occs, occs3);
                assert_eq!(plies, plies3);
            }
        }
    }

    #[test]
    fn occurrences_count_first_occurrence_and_final_position() {
        // 1. Nf3 Nf6 2. Ng1 Ng8 returns to the start: the start position counts once.
        let g = parse_game(b"1. Nf3 Nf6 2. Ng1 Ng8 3. e4 *", 1).unwrap();
        let moves: Vec<Move> = g.main_line().copied().collect();
        let mut occ = Vec::new();
        occurrences(&g.start, &moves, None, &mut occ);
        // Positions: start, after Nf3, after Nf6, after Ng1, (start again: skipped), after e4.
        assert_eq!(occ.len(), 5);
        assert_eq!(occ[0].code, move_code(&moves[0]));
        assert_eq!(occ[4].code, NO_MOVE);
        occurrences(&g.start, &moves, Some(2), &mut occ);
        assert_eq!(occ.len(), 3);
        assert_eq!(occ[2].code, move_code(&moves[2]));
    }

    /// The move codes as first defined: a walk over the piece's targets in order (ascending
    /// square, a promotion square four times: queen, rook, bishop, knight), counting until
    /// the move's own. Kept to check that counting bits gives the same bytes: stored games
    /// depend on it.
    fn targets_reference(
        pos: &Chess,
        from: Square,
        mut f: impl FnMut(Square, Option<Role>) -> bool,
    ) {
        let (squares, promoting) = target_squares(pos, from, pos.ep_square(EnPassantMode::Legal));
        for to in squares {
            if promoting {
                for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    if !f(to, Some(r)) {
                        return;
                    }
                }
            } else if !f(to, None) {
                return;
            }
        }
    }

    fn encode_move_reference(pos: &Chess, m: &Move, out: &mut Vec<u8>) {
        let (from, to, promo) = match *m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion),
            Move::EnPassant { from, to } => (from, to, None),
            Move::Castle { king, rook } => (king, rook, None),
            Move::Put { to, .. } => (to, to, None),
        };
        let piece_idx = (pos.us() & Bitboard((1u64 << from as u32) - 1)).count() as u8;
        let mut idx = 0usize;
        let mut found = None;
        targets_reference(pos, from, |sq, r| {
            if sq == to && r == promo {
                found = Some(idx);
                return false;
            }
            idx += 1;
            true
        });
        let t = found.unwrap_or(0);
        if t < 15 {
            out.push(piece_idx << 4 | t as u8);
        } else {
            out.push(piece_idx << 4 | 15);
            out.push((t - 15) as u8);
        }
    }

    /// Every legal move of every position of TWIC 920's games (and of the round-trip test's
    /// special positions) gets the same code as the reference walk gives.
    #[test]
    fn move_codes_equal_the_reference_walk() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/pgn/twic/twic0920.pgn"
        );
        let data = std::fs::read(path).unwrap();
        let mut checked = 0usize;
        let mut check = |pos: &Chess| {
            for m in pos.legal_moves() {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                encode_move(pos, &m, &mut a);
                encode_move_reference(pos, &m, &mut b);
                assert_eq!(
                    a,
                    b,
                    "{} {m}",
                    shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal)
                );
                checked += 1;
            }
        };
        for f in [
            "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
            "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
            "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
            "1k6/8/8/8/8/8/8/Q2QK2Q w - - 0 1",
        ] {
            let setup = Fen::from_ascii(f.as_bytes()).unwrap();
            let mode = CastlingMode::detect(setup.as_setup());
            check(&setup.into_position(mode).unwrap());
        }
        for item in tabiya_pgn::read_all(data.as_slice()) {
            let game = item.unwrap().1.unwrap();
            let mut pos = game.start.clone();
            for m in game.main_line() {
                check(&pos);
                pos.play_unchecked(*m);
            }
        }
        assert!(checked > 5_000_000, "{checked} moves checked");
    }

    #[test]
    fn move_codes_round_trip_every_legal_move() {
        // Positions with castling (both sides), en passant, promotions and underpromotions,
        // and a Chess960 start.
        let fens = [
            "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
            "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
            "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
            "1k6/8/8/8/8/8/8/Q2QK2Q w - - 0 1",
        ];
        for f in fens {
            let setup = Fen::from_ascii(f.as_bytes()).unwrap();
            let mode = CastlingMode::detect(setup.as_setup());
            let pos: Chess = setup.into_position(mode).unwrap();
            for m in pos.legal_moves() {
                let mut out = Vec::new();
                encode_move(&pos, &m, &mut out);
                let mut r = Reader::new(&out);
                assert_eq!(decode_move(&pos, &mut r).unwrap(), m, "{f} {m}");
                assert!(r.is_empty());
            }
        }
    }

    #[test]
    fn incremental_keys_equal_full_keys_on_real_games() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/pgn/twic/twic0920.pgn"
        );
        let text = std::fs::read(path).expect("shared data");
        let mut checked = 0;
        for item in tabiya_pgn::read_all(text.as_slice()).take(400) {
            let g = item.unwrap().1.unwrap();
            let mut pos = g.start.clone();
            for n in &g.moves {
                let key = position_key(&pos);
                let ep = pos.ep_square(EnPassantMode::Legal);
                // Every legal move, not only the one played.
                for m in pos.legal_moves() {
                    let mut p = pos.clone();
                    p.play_unchecked(m);
                    assert_eq!(
                        next_key(&pos, &p, m, key, ep, p.ep_square(EnPassantMode::Legal)),
                        position_key(&p),
                        "{m}"
                    );
                    checked += 1;
                }
                pos.play_unchecked(n.mv);
            }
        }
        assert!(checked > 500_000);
        // Chess960 castling, en passant and promotions.
        for f in [
            "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1",
            "r3k2r/pPpp1ppp/5q2/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 10",
            "1r2k2r/8/8/8/8/8/8/R3KR2 w KQk - 0 1",
        ] {
            let setup = Fen::from_ascii(f.as_bytes()).unwrap();
            let pos: Chess = setup
                .clone()
                .into_position(CastlingMode::detect(setup.as_setup()))
                .unwrap();
            let key = position_key(&pos);
            let ep = pos.ep_square(EnPassantMode::Legal);
            for m in pos.legal_moves() {
                let mut p = pos.clone();
                p.play_unchecked(m);
                assert_eq!(
                    next_key(&pos, &p, m, key, ep, p.ep_square(EnPassantMode::Legal)),
                    position_key(&p),
                    "{f} {m}"
                );
            }
        }
    }

    #[test]
    fn en_passant_only_when_legal() {
        // After 1. e4 the e3 square is not capturable: same key as the position without ep.
        let a: Chess =
            Fen::from_ascii(b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
        let b: Chess =
            Fen::from_ascii(b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
        assert_eq!(position_key(&a), position_key(&b));
    }
}
