//! The stored form of a chess game, lossless for what a PGN game holds: its tags (through the
//! name dictionaries, see [`super::tags`]), flags, start position, main line as move codes
//! ([`super::moves`]), and comments, NAGs and variations when it has any.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};
use tabiya_pgn::model::{Game, Node, NullSegment, Variation};

use super::facts::outcome;
use super::moves::{decode_move, encode_move};
use super::tags::{decode_tag_part, encode_tag_list};
use super::walk::walk;
use crate::codec::{DecodeError, Reader, put_str, put_varint, varint_bytes};
use crate::game::{NameLookup, Names, Occurrence};
use crate::players::Players;
use crate::speed::Speed;
use crate::stats::GameOutcome;

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

pub(crate) const F_FEN: u8 = 1;

pub(crate) const F_960: u8 = 2;

pub(crate) const F_ANNOTATED: u8 = 4;

/// The main line goes on past a null move (bits 3–4 hold the outcome).
pub(crate) const F_NULL: u8 = 32;

/// Encodes a game into its stored form: the tags ([`encode_tags`], length first, so a game's
/// header reads without its moves), then the body ([`encode_body`]).
pub fn encode_game(game: &Game, names: &mut dyn Names, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    encode_body(game, &mut body);
    assemble(game, names, &body, out);
}

/// The stored form from a body made earlier (by a parse thread) and the tags.
pub fn assemble(game: &Game, names: &mut dyn Names, body: &[u8], out: &mut Vec<u8>) {
    let _players = assemble_tags(
        game.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        names,
        body,
        out,
    );
}

/// [`assemble`] from a game's tags alone (the import keeps only them once the body is made).
/// Returns the ids of the players' names.
pub fn assemble_tags<'a>(
    game_tags: impl IntoIterator<Item = (&'a str, &'a str)>,
    names: &mut dyn Names,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Players {
    // The tags straight into `out`, their length put in front of them afterwards.
    let start = out.len();
    let players = encode_tag_list(game_tags, names, out);
    let (len, n) = varint_bytes((out.len() - start) as u64);
    out.splice(start..start, len[..n].iter().copied());
    out.extend_from_slice(body);
    players
}

/// Skips the tags of a stored game: the reader then stands at the body.
pub(crate) fn skip_tags<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], DecodeError> {
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
    let at = out.len();
    put_body_head(
        out,
        &game.start,
        game.castling_mode,
        game.has_annotations(),
        outcome(game),
        game.moves.len(),
    );
    if !game.after_null.is_empty() {
        out[at] |= F_NULL;
    }
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
    if !game.after_null.is_empty() {
        encode_after_null(game, out);
    }
}

/// The null moves of the main line and the moves after each (annotations included).
fn encode_after_null(game: &Game, out: &mut Vec<u8>) {
    put_varint(out, game.after_null.len() as u64);
    let mut pos = game.indexed_end();
    for null in &game.after_null {
        put_varint(out, null.nags.len() as u64);
        out.extend_from_slice(&null.nags);
        put_varint(out, null.comments.len() as u64);
        for c in &null.comments {
            put_str(out, c);
        }
        // The parser makes a null move only where one is possible (not in check); were it
        // not, no move after it could be kept.
        let Some(swapped) = tabiya_pgn::model::play_null(&pos) else {
            put_varint(out, 0);
            continue;
        };
        pos = swapped;
        put_varint(out, null.moves.len() as u64);
        for n in &null.moves {
            encode_move(&pos, &n.mv, out);
            encode_node_annotations(n, &pos, out);
            pos.play_unchecked(n.mv);
        }
    }
}

fn decode_after_null(r: &mut Reader<'_>, game: &mut Game) -> Result<(), DecodeError> {
    let n = r.varint("null move count")? as usize;
    if n > r.remaining().len() {
        return Err(r.bad("null move count"));
    }
    let mut pos = game.indexed_end();
    for _ in 0..n {
        let mut null = NullSegment::default();
        let nn = r.varint("NAG count")? as usize;
        null.nags = r.bytes(nn, "NAGs")?.to_vec();
        let nc = r.varint("comment count")?;
        for _ in 0..nc {
            null.comments.push(r.str("comment")?.to_string());
        }
        if let Some(swapped) = tabiya_pgn::model::play_null(&pos) {
            pos = swapped;
        }
        let nm = r.varint("moves after a null move")?;
        for _ in 0..nm {
            let m = decode_move(&pos, r)?;
            let mut node = Node::new(m);
            decode_node_annotations(r, &mut node, &pos)?;
            pos.play_unchecked(m);
            null.moves.push(node);
        }
        game.after_null.push(null);
    }
    Ok(())
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

/// Start position, castling mode and main line of a stored game (what a replay needs).
pub fn decode_line(
    data: &[u8],
) -> Result<(Chess, CastlingMode, Vec<Move>, GameOutcome), DecodeError> {
    let mut r = Reader::new(data);
    let (start, mode, moves, outcome, _) = decode_line_from(&mut r)?;
    Ok((start, mode, moves, outcome))
}

/// A stored game's main line read move by move ([`read_line`]): what a search that stops at
/// its first match decodes, and no more.
pub struct LineReader<'a> {
    r: Reader<'a>,
    left: usize,
}

impl LineReader<'_> {
    /// The move played from `pos` (the line's position so far), `None` past its end.
    pub fn next_move(&mut self, pos: &Chess) -> Result<Option<Move>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        decode_move(pos, &mut self.r).map(Some)
    }
}

/// A stored game's start position, castling mode and main line, the line read as it is
/// asked for.
pub fn read_line(data: &[u8]) -> Result<(Chess, CastlingMode, LineReader<'_>), DecodeError> {
    let mut r = Reader::new(data);
    skip_tags(&mut r)?;
    let (_, mode, start, left) = body_head(&mut r)?;
    Ok((start, mode, LineReader { r, left }))
}

/// [`decode_line`] of the first `plies` moves only (the rest is not decoded).
pub fn decode_line_start(
    data: &[u8],
    plies: usize,
) -> Result<(Chess, CastlingMode, Vec<Move>, GameOutcome), DecodeError> {
    let mut r = Reader::new(data);
    skip_tags(&mut r)?;
    let (start, mode, moves, outcome, _) = decode_body_line_to(&mut r, plies)?;
    Ok((start, mode, moves, outcome))
}

type Line = (Chess, CastlingMode, Vec<Move>, GameOutcome, u8);

fn decode_line_from(r: &mut Reader<'_>) -> Result<Line, DecodeError> {
    skip_tags(r)?;
    decode_body_line(r)
}

fn decode_body_line(r: &mut Reader<'_>) -> Result<Line, DecodeError> {
    decode_body_line_to(r, usize::MAX)
}

/// A stored body up to its moves: flags, castling mode, start position, and the number of
/// plies of the main line (checked against the bytes left).
pub(crate) fn body_head(
    r: &mut Reader<'_>,
) -> Result<(u8, CastlingMode, Chess, usize), DecodeError> {
    let flags = r.u8("game flags")?;
    let mode = if flags & F_960 != 0 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let start = if flags & F_FEN != 0 {
        let fen = r.str("start FEN")?;
        let fen = Fen::from_ascii(fen.as_bytes()).map_err(|_| r.bad("start FEN"))?;
        fen.into_position::<Chess>(mode)
            .map_err(|_| r.bad("start position"))?
    } else {
        Chess::default()
    };
    let n = r.varint("ply count")? as usize;
    if n > r.remaining().len() {
        return Err(r.bad("ply count"));
    }
    Ok((flags, mode, start, n))
}

fn decode_body_line_to(r: &mut Reader<'_>, plies: usize) -> Result<Line, DecodeError> {
    let (flags, mode, start, n) = body_head(r)?;
    let n = n.min(plies);
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
        after_null: Vec::new(),
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
                return Err(r.bad("annotated ply"));
            }
            while at < i {
                pos.play_unchecked(game.moves[at].mv);
                at += 1;
            }
            decode_node_annotations(&mut r, &mut game.moves[i], &pos)?;
        }
    }
    if flags & F_NULL != 0 {
        decode_after_null(&mut r, &mut game)?;
    }
    let fen =
        (flags & F_FEN != 0).then(|| Fen::from_position(&start, EnPassantMode::Legal).to_string());
    game.tags = decode_tag_part(tag_bytes, names, outcome, fen)?;
    Ok(game)
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

/// A stored game's ECO tag (the first tag whose name id is among `eco` with a value neither
/// empty nor `?`) and its main line's plies, read without resolving names or decoding moves
/// (what a game list sorted by ECO or length reads of each game).
pub(crate) fn eco_and_plies(
    data: &[u8],
    eco: &[u32],
) -> Result<(Option<String>, u32), DecodeError> {
    let mut r = Reader::new(data);
    let tags = skip_tags(&mut r)?;
    let (_, _, _, plies) = body_head(&mut r)?;
    let mut found = None;
    if !eco.is_empty() {
        let mut r = Reader::new(tags);
        for _ in 0..8 {
            r.varint("header")?;
        }
        let extras = r.varint("tag count")?;
        for _ in 0..extras {
            let id = r.varint_u32("tag name")?;
            let value = r.str("tag value")?;
            if eco.contains(&id) && !value.is_empty() && value != "?" {
                found = Some(value.to_string());
                break;
            }
        }
    }
    Ok((found, plies as u32))
}

/// A stored game's players' and event's name ids, read from its tags without resolving
/// names (what the statistics view counts).
pub(crate) fn players_and_event(data: &[u8]) -> Result<(Players, Option<u32>), DecodeError> {
    let tags = skip_tags(&mut Reader::new(data))?;
    let mut r = Reader::new(tags);
    let mut slots = [0u64; 3];
    for s in &mut slots {
        *s = r.varint("header")?;
    }
    let id = |v: u64| v.checked_sub(1).map(|id| id as u32);
    Ok(([id(slots[0]), id(slots[1])], id(slots[2])))
}

/// A stored game's time-control class (its `TimeControl` tag, whose tag-name id is
/// `time_control`) and its players' name ids, read from its tags without resolving names
/// (what a format-1 database lacks, see `crate::upgrade`).
pub(crate) fn time_control_and_players(
    data: &[u8],
    time_control: Option<u32>,
) -> Result<(Option<Speed>, Players), DecodeError> {
    let mut r = Reader::new(data);
    let tags = skip_tags(&mut r)?;
    let mut r = Reader::new(tags);
    let mut slots = [0u64; 8];
    for s in &mut slots {
        *s = r.varint("header")?;
    }
    let players = [slots[0], slots[1]].map(|v| v.checked_sub(1).map(|id| id as u32));
    let mut speed = None;
    let extras = r.varint("tag count")?;
    for _ in 0..extras {
        let id = r.varint_u32("tag name")?;
        let value = r.str("tag value")?;
        if Some(id) == time_control && speed.is_none() {
            speed = Speed::from_time_control(value);
        }
    }
    Ok((speed, players))
}
