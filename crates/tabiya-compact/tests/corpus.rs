//! Every position of every standard or Chess960 game in shared/data/pgn round-trips through
//! B32 (full FEN with clocks) and CDB (placement, side to move, castling, legal en passant).

mod common;

use common::{Kind, ReplayStats, corpus_files, replay_file};
use shakmaty::{EnPassantMode, Position, fen::Fen};
use tabiya_compact::{B32Error, decode_b32, decode_cdb, encode_b32, encode_cdb};

#[test]
fn corpus_round_trips() {
    let mut stats = ReplayStats::default();
    let mut b32_checked = 0u64;
    let mut b32_out_of_range = 0u64;
    let mut cdb_checked = 0u64;
    let mut chess960_positions = 0u64;
    let mut inner_rook_rights = 0u64;
    let mut failures: Vec<String> = Vec::new();

    for path in corpus_files() {
        replay_file(&path, &mut stats, &mut |pos, kind| {
            if kind == Kind::Chess960 {
                chess960_positions += 1;
            }
            // B32 with the FEN as shakmaty writes it (legal en passant) and with the en-passant
            // square after every double step (FEN's original rule).
            for mode in [EnPassantMode::Legal, EnPassantMode::Always] {
                let setup = pos.to_setup(mode);
                let fen = Fen::try_from(setup.clone()).map(|f| f.to_string()).ok();
                if setup.halfmoves > 127 || setup.fullmoves.get() > 65535 {
                    match encode_b32(&setup) {
                        Err(B32Error::OutOfRange { .. }) => b32_out_of_range += 1,
                        other => {
                            failures.push(format!("{fen:?}: expected OutOfRange, got {other:?}"))
                        }
                    }
                    continue;
                }
                match encode_b32(&setup).map(|b| decode_b32(&b)) {
                    Ok(Ok(back)) => {
                        let back_fen = Fen::try_from(back.clone()).map(|f| f.to_string()).ok();
                        if back != setup || back_fen != fen {
                            failures.push(format!("B32 {fen:?} came back as {back_fen:?}"));
                        }
                        b32_checked += 1;
                    }
                    other => failures.push(format!("B32 {fen:?}: {other:?}")),
                }
            }
            // Castling rights held by a rook that is not the outermost on its side.
            let board = pos.board();
            for sq in pos.castles().castling_rights() {
                let color = if sq.rank() == shakmaty::Rank::First {
                    shakmaty::Color::White
                } else {
                    shakmaty::Color::Black
                };
                let king = board.king_of(color).unwrap();
                let outer = (board.rooks() & board.by_color(color) & color.backrank())
                    .into_iter()
                    .any(|r| {
                        if sq.file() > king.file() {
                            r.file() > sq.file()
                        } else {
                            r.file() < sq.file()
                        }
                    });
                if outer {
                    inner_rook_rights += 1;
                }
            }
            // CDB.
            match encode_cdb(pos).map(|b| decode_cdb(&b)) {
                Ok(Ok(back)) => {
                    let a = Fen::from_position(pos, EnPassantMode::Legal).to_string();
                    let b = Fen::from_position(&back, EnPassantMode::Legal).to_string();
                    // Clocks are not stored: compare the first four FEN fields.
                    let head = |s: &str| s.split(' ').take(4).collect::<Vec<_>>().join(" ");
                    if back != *pos || head(&a) != head(&b) {
                        failures.push(format!("CDB {a} came back as {b}"));
                    }
                    cdb_checked += 1;
                }
                other => failures.push(format!(
                    "CDB {}: {other:?}",
                    Fen::from_position(pos, EnPassantMode::Legal)
                )),
            }
        });
    }
    println!(
        "{stats:?}; B32 checked {b32_checked} (out of range {b32_out_of_range}), CDB checked \
         {cdb_checked}, Chess960 positions {chess960_positions}, inner-rook castling rights \
         {inner_rook_rights}"
    );
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    // The corpus is known: 2,245 TWIC + 13,463 pgnmentor + 27,608 TCEC games plus the edge
    // cases; two antichess and two crazyhouse games are skipped.
    assert!(stats.games > 43_000, "{stats:?}");
    assert_eq!(stats.skipped_variant, 4, "{stats:?}");
    assert!(stats.positions > 3_000_000, "{stats:?}");
    assert_eq!(cdb_checked, stats.positions);
    // python-chess found 35 positions with a castling right held by an inner rook in the
    // TCEC Chess960 games; each is counted once per castling right.
    assert!(inner_rook_rights >= 35, "{inner_rook_rights}");
}
