//! The Kvetka position-key codec and move codes: every position of the shared PGN corpus,
//! and random positions from standard and Chess960 starts.

mod kvetka_support;

use kvetka_support::{Kind, ReplayStats, chess960_start, corpus_files, random_walk, replay_file};
use proptest::prelude::*;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Position, Role, fen::Fen};
use tabiya_books::kvetka::{
    KeyError, MoveCodeError, decode_key, decode_move, encode_move, encode_normalised, position_key,
    transform,
};

/// A castling right held by a rook with another rook of its colour further out on the same
/// side (Chess960 games can reach this): keys name the outermost rook, so such positions
/// cannot come back exactly.
fn inner_rook_right(pos: &Chess) -> bool {
    let board = pos.board();
    pos.castles().castling_rights().into_iter().any(|sq| {
        let color = if sq.rank() == shakmaty::Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let Some(king) = board.king_of(color) else {
            return false;
        };
        (board.rooks() & board.by_color(color) & Bitboard::from_rank(color.backrank()))
            .into_iter()
            .any(|r| {
                if sq.file() > king.file() {
                    r.file() > sq.file()
                } else {
                    r.file() < sq.file()
                }
            })
    })
}

/// Checks the key of `pos`: decode gives the normalised position, transforming it back gives
/// `pos` (placement, side to move, castling, legal en passant), and every legal move of the
/// normalised position survives encode/decode or is one the table cannot express.
fn check(pos: &Chess) -> Result<(), String> {
    let (key, norm) = position_key(pos).map_err(|e| e.to_string())?;
    let normal = decode_key(&key).map_err(|e| format!("decode: {e}"))?;
    let back = transform(&normal, norm).map_err(|e| e.to_string())?;
    if back != *pos {
        return Err(format!(
            "came back as {}",
            Fen::from_position(&back, EnPassantMode::Legal)
        ));
    }
    for m in normal.legal_moves() {
        match encode_move(&normal, m) {
            Ok(code) => {
                let d = decode_move(&normal, code).map_err(|e| e.to_string())?;
                if d != m {
                    return Err(format!("move {m:?} came back as {d:?}"));
                }
            }
            Err(MoveCodeError::Underpromotion) => {
                if !matches!(m.promotion(), Some(r) if r != Role::Queen) {
                    return Err(format!("{m:?} called an underpromotion"));
                }
            }
            Err(MoveCodeError::PieceNumber { role, number }) => {
                let limit = match role {
                    Role::Pawn => 8,
                    Role::Queen => 3,
                    _ => 2,
                };
                let count =
                    (normal.board().by_color(Color::White) & normal.board().by_role(role)).count();
                if number <= limit || count < number {
                    return Err(format!("{m:?}: bad piece number {number} of {count}"));
                }
            }
            Err(MoveCodeError::NotExpressible) => return Err(format!("{m:?} not expressible")),
        }
    }
    Ok(())
}

#[test]
fn corpus_positions_round_trip_through_keys() {
    let mut stats = ReplayStats::default();
    let mut checked = 0u64;
    let mut inner = 0u64;
    let mut too_long = 0u64;
    let mut failures = Vec::new();
    for path in corpus_files() {
        replay_file(&path, &mut stats, &mut |pos: &Chess, kind| {
            if kind == Kind::Chess960 && inner_rook_right(pos) {
                inner += 1;
                // The key still encodes (castling bit per side); it decodes to the outermost
                // rook, so the round trip differs exactly in the castling rights.
                let (key, norm) = position_key(pos).unwrap();
                let back = transform(&decode_key(&key).unwrap(), norm).unwrap();
                assert_eq!(back.board(), pos.board());
                assert_ne!(
                    back.castles().castling_rights(),
                    pos.castles().castling_rights()
                );
                // Probing such a position still works: its key is the same, and the normalised
                // board built from the real position keeps the real castling rook.
                assert!(transform(pos, norm).is_ok());
                return;
            }
            match check(pos) {
                Ok(()) => checked += 1,
                Err(e) if e.contains("176") => too_long += 1,
                Err(e) => failures.push(format!(
                    "{}: {e}",
                    Fen::from_position(pos, EnPassantMode::Legal)
                )),
            }
        });
    }
    println!(
        "{stats:?}; keys checked {checked}, inner-rook castling positions {inner}, too long \
         {too_long}"
    );
    assert!(
        failures.is_empty(),
        "{} failures: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    assert!(checked > 3_000_000);
    // python-chess finds 35 such positions in the TCEC Chess960 games.
    assert_eq!(inner, 35);
}

#[test]
fn too_many_promoted_pieces_is_an_error() {
    // Kings and queens take 6 bits, an empty square 1: 21 of them need 21 * 6 + 43 + 8 = 177
    // bits, one more than a key holds. (Checked at the setup level: legality is irrelevant.)
    let setup = "qqqqqqqk/qq6/8/8/8/8/QQQ5/QQQQQQQK w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_setup();
    assert_eq!(setup.board.occupied().count(), 21);
    assert_eq!(
        encode_normalised(&setup),
        Err(KeyError::TooLong { bits: 177 })
    );
    // 20 of them fit exactly: 120 + 44 + 8 = 172.
    let setup = "qqqqqqqk/qq6/8/8/8/8/QQ6/QQQQQQQK w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_setup();
    assert!(encode_normalised(&setup).is_ok());
}

#[test]
fn bad_keys_are_errors_with_offsets() {
    assert!(matches!(
        decode_key(&[0u8; 21]),
        Err(KeyError::Invalid { offset: 21, .. })
    ));
    // All zeros: 64 empty squares then ep 0, castling 0: no kings, an illegal position.
    assert!(matches!(
        decode_key(&[0u8; 22]),
        Err(KeyError::IllegalPosition(_))
    ));
    // All ones: the square codes run past 176 bits.
    assert!(matches!(
        decode_key(&[0xff; 22]),
        Err(KeyError::Invalid { .. })
    ));
    // A padding bit set after the start position's castling field (bit 175).
    let (mut key, _) = position_key(&Chess::default()).unwrap();
    key[21] |= 0x01;
    assert!(matches!(
        decode_key(&key),
        Err(KeyError::Invalid { offset: 21, .. })
    ));
    // A mirrored-away board: no castling rights, white king on d1.
    let pos: Chess = "4k3/8/8/8/8/8/8/3K4 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let (key, norm) = position_key(&pos).unwrap();
    assert!(norm.mirrored);
    let normal = decode_key(&key).unwrap();
    assert_eq!(
        Fen::from_position(&normal, EnPassantMode::Legal).to_string(),
        "3k4/8/8/8/8/8/8/4K3 w - - 0 1"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_positions_round_trip(
        start in prop_oneof![Just(None), (0u32..960).prop_map(Some)],
        choices in prop::collection::vec(any::<u16>(), 0..300),
    ) {
        let start = start.map(chess960_start).unwrap_or_default();
        for pos in random_walk(start, &choices) {
            if inner_rook_right(&pos) {
                continue;
            }
            match check(&pos) {
                Ok(()) => {}
                Err(e) if e.contains("176") => {}
                Err(e) => prop_assert!(false, "{}: {}", Fen::from_position(&pos, EnPassantMode::Legal), e),
            }
        }
    }

    #[test]
    fn random_key_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 22)) {
        if let Ok(pos) = decode_key(&bytes) {
            prop_assert_eq!(position_key(&pos).unwrap().0.to_vec(), bytes);
        }
    }
}
