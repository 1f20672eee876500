//! Reading moves and start positions: SAN (with a quick resolver for the common cases) and
//! UCI as python-chess accepts them, text in UTF-8 or Latin-1, the start position of a
//! game's `FEN` and `Variant` tags. Shared by the full parser and the direct path.

use std::borrow::Cow;

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, Move, Position, Rank, Role, Square, attacks};

/// Decodes PGN text: UTF-8 when valid, otherwise ISO-8859-1 (common in older files).
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// How a game's variant is handled.
fn castling_mode_for_variant(variant: Option<&str>) -> Result<Option<CastlingMode>, String> {
    let Some(v) = variant else { return Ok(None) };
    let v = v.trim().to_ascii_lowercase();
    match v.as_str() {
        "" | "standard" | "chess" | "normal" | "from position" | "from_position" | "classical" => {
            Ok(None)
        }
        "chess960" | "chess 960" | "chess-960" | "fischerandom" | "fischerrandom"
        | "fischer random" | "frc" | "960" => Ok(Some(CastlingMode::Chess960)),
        _ => Err(format!(
            "unsupported variant {v:?} (only standard chess and Chess960 are indexed)"
        )),
    }
}

/// SAN to move without generating every legal move, for the common case (not castling,
/// not en passant): candidates are the pseudo-legal origins of the piece for the target
/// square, filtered by the SAN's file and rank; one is legal when no enemy piece (the
/// captured one excepted) attacks the mover's king once it has moved. Returns the move only
/// when exactly one candidate is legal — what `San::to_move` returns then; `None` leaves every
/// other case (castling, en passant, errors, ambiguity, UCI tokens) to it.
pub fn fast_san(pos: &Chess, san: &San) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    } = *san
    else {
        return None;
    };
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    if ours.contains(to) {
        return None;
    }
    let captured = if theirs.contains(to) {
        board.role_at(to)
    } else {
        None
    };
    if capture != captured.is_some() || captured == Some(Role::King) {
        return None;
    }
    if role != Role::Pawn && promotion.is_some() {
        return None;
    }
    let mine = ours & board.by_role(role);
    let from_set: Bitboard = match role {
        Role::Knight => attacks::knight_attacks(to) & mine,
        Role::Bishop => attacks::bishop_attacks(to, occupied) & mine,
        Role::Rook => attacks::rook_attacks(to, occupied) & mine,
        Role::Queen => attacks::queen_attacks(to, occupied) & mine,
        Role::King => attacks::king_attacks(to) & mine,
        Role::Pawn => {
            let last_rank = if us == Color::White {
                Rank::Eighth
            } else {
                Rank::First
            };
            if (to.rank() == last_rank) != promotion.is_some() || promotion == Some(Role::King) {
                return None;
            }
            if capture {
                attacks::pawn_attacks(!us, to) & mine
            } else {
                let (step, start) = if us == Color::White {
                    (-8, Rank::Second)
                } else {
                    (8, Rank::Seventh)
                };
                let mut set = Bitboard::EMPTY;
                if let Some(one) = to.offset(step) {
                    if mine.contains(one) {
                        set.add(one);
                    } else if !occupied.contains(one)
                        && let Some(two) = one.offset(step)
                        && mine.contains(two)
                        && two.rank() == start
                    {
                        set.add(two);
                    }
                }
                set
            }
        }
    };
    let king = board.king_of(us)?;
    let to_bb = Bitboard::from_square(to);
    let mut found = None;
    for from in from_set {
        if file.is_some_and(|f| f != from.file()) || rank.is_some_and(|r| r != from.rank()) {
            continue;
        }
        let after = (occupied ^ Bitboard::from_square(from)) | to_bb;
        let king_after = if role == Role::King { to } else { king };
        if (board.attacks_to(king_after, !us, after) & !to_bb).any() {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(Move::Normal {
            role,
            from,
            capture: captured,
            to,
            promotion,
        });
    }
    found
}

/// The position a game starts from, and its castling notation, from its `FEN` and `Variant`
/// tags.
pub fn start_position(tags: &[(String, String)]) -> Result<(Chess, CastlingMode), String> {
    let tag = |n: &str| tags.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    start_position_from(tag("FEN"), tag("Variant"))
}

/// [`start_position`] from the values of the first `FEN` and `Variant` tags.
pub fn start_position_from(
    fen: Option<&str>,
    variant: Option<&str>,
) -> Result<(Chess, CastlingMode), String> {
    let forced = castling_mode_for_variant(variant)?;
    match fen {
        None => Ok((Chess::default(), forced.unwrap_or(CastlingMode::Standard))),
        Some(fen) => {
            let fen = Fen::from_ascii(fen.trim().as_bytes())
                .map_err(|e| format!("invalid FEN tag {fen:?}: {e}"))?;
            let first = forced.unwrap_or(CastlingMode::Standard);
            match fen.clone().into_position::<Chess>(first) {
                Ok(p) => Ok((p, first)),
                Err(e) if forced.is_none() => {
                    match fen.into_position::<Chess>(CastlingMode::Chess960) {
                        Ok(p) => Ok((p, CastlingMode::Chess960)),
                        Err(_) => Err(format!("illegal position in FEN tag: {e}")),
                    }
                }
                Err(e) => Err(format!("illegal position in FEN tag: {e}")),
            }
        }
    }
}

/// Converts a SAN (or UCI, as python-chess accepts) token to a legal move.
pub fn san_to_move(pos: &Chess, san: San) -> Result<Move, String> {
    if san == San::Null {
        return Err(
            "null move (Z0 or --): not a legal chess move, so the game cannot be indexed"
                .to_string(),
        );
    }
    if let Some(m) = fast_san(pos, &san) {
        return Ok(m);
    }
    match san.to_move(pos) {
        Ok(m) => Ok(m),
        Err(err) => {
            if let San::Normal {
                file: Some(file),
                rank: Some(rank),
                to,
                promotion,
                ..
            } = san
            {
                let uci = UciMove::Normal {
                    from: Square::from_coords(file, rank),
                    to,
                    promotion,
                };
                if let Ok(m) = uci.to_move(pos) {
                    return Ok(m);
                }
            }
            let what = match err {
                shakmaty::san::SanError::IllegalSan => "illegal move",
                shakmaty::san::SanError::AmbiguousSan => "ambiguous move",
            };
            Err(format!("{what} {san}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shakmaty::san::SanPlus;

    use super::*;
    use crate::{Splitter, parse_game};

    /// Every move of every shared game: the fast SAN path agrees with shakmaty's
    /// `San::to_move` for every SAN of the move (as written, without and with full disambiguation, with the
    /// wrong capture mark), or steps aside; and it is taken for most of them.
    #[test]
    fn fast_san_agrees_with_shakmaty_on_every_shared_move() {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pgn/");
        let mut files: Vec<PathBuf> = vec![
            format!("{shared}twic/twic0920.pgn").into(),
            format!("{shared}tcec/tcec-partial.nocomments.pgn.zst").into(),
        ];
        let mut v: Vec<PathBuf> = std::fs::read_dir(format!("{shared}pgnmentor"))
            .expect("shared data")
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        files.extend(v);
        let (mut fast, mut total) = (0u64, 0u64);
        for f in &files {
            let input = crate::input::open(f).unwrap();
            for chunk in Splitter::new(input.reader) {
                let chunk = chunk.unwrap();
                for span in &chunk.games {
                    let Ok(game) = parse_game(chunk.game_bytes(span), span.line) else {
                        continue;
                    };
                    let mut pos = game.start.clone();
                    for m in game.main_line() {
                        let san = SanPlus::from_move(pos.clone(), *m).san;
                        let mut tries = vec![san];
                        if let San::Normal {
                            role,
                            file,
                            rank,
                            capture,
                            to,
                            promotion,
                        } = san
                        {
                            tries.push(San::Normal {
                                role,
                                file: None,
                                rank: None,
                                capture,
                                to,
                                promotion,
                            });
                            tries.push(San::Normal {
                                role,
                                file: Some(m.from().unwrap().file()),
                                rank: Some(m.from().unwrap().rank()),
                                capture,
                                to,
                                promotion,
                            });
                            tries.push(San::Normal {
                                role,
                                file,
                                rank,
                                capture: !capture,
                                to,
                                promotion,
                            });
                        }
                        for t in tries {
                            total += 1;
                            if let Some(fm) = fast_san(&pos, &t) {
                                fast += 1;
                                assert_eq!(
                                    Ok(fm),
                                    t.to_move(&pos),
                                    "{} line {}: {t}",
                                    f.display(),
                                    span.line
                                );
                            }
                        }
                        pos.play_unchecked(*m);
                    }
                }
            }
        }
        assert!(fast * 2 > total, "fast path taken for {fast} of {total}");
    }
}
