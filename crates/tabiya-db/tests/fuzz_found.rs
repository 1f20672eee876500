//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz`) found to crash a decoder or parser,
//! kept as they were found (`tests/data/fuzz/`), with the answer each must give now: an
//! error naming what was wrong, never a panic.

use tabiya_db::IdSet;

fn found(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/fuzz/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// `stored_game`: damaged stored bytes whose move decodes as White castling in the start
/// position (the rights are there, the way is not free) — shakmaty's board asserted when
/// the king was put on an occupied square.
#[test]
fn stored_game_castling_through_pieces_is_an_error() {
    let bytes = found("stored-castle-through-pieces");
    let e = tabiya_db::chess::decode_line(&bytes).unwrap_err();
    assert_eq!(e.what, "move: castling", "{e:?}");
}

/// `index_blocks`: a gameset's id row whose range, added to where the last one ended,
/// passes 2^64 — an overflow (a panic with overflow checks, a wrong set without).
#[test]
fn id_row_range_past_u64_is_an_error() {
    // Found: ids 10..=10 (0a 00), then a start of 2 (02) and a length of about 2^64 (a
    // ten-byte varint): the error after those 3 + 10 bytes.
    let e = IdSet::default()
        .decode_row(0, &found("id-row-range-overflow"))
        .unwrap_err();
    assert_eq!((e.what, e.offset), ("range length", 13));
    // By hand: ids 5..=5 (start 5, length 0: the next range starts at 6), then a start of
    // u64::MAX (the varint ff×9 01).
    let mut row = vec![0x05, 0x00];
    row.extend([0xff; 9]);
    row.extend([0x01, 0x00]);
    let e = IdSet::default().decode_row(0, &row).unwrap_err();
    assert_eq!((e.what, e.offset), ("range start", 12));
}

/// `gameset_criteria`: `material` with more than 255 queens overflowed the piece count.
#[test]
fn material_with_too_many_pieces_is_refused() {
    let text = String::from_utf8(found("criteria-material-many-queens")).unwrap();
    let e = tabiya_db::files_of(&text).unwrap_err();
    assert!(e.contains("material is queenless, pawnless"), "{e}");
    let text = format!("material {}vK", "Q".repeat(256));
    let e = tabiya_db::files_of(&text).unwrap_err();
    assert!(e.contains("material is queenless, pawnless"), "{e}");
    // 255 queens is still a material (a query no game meets, not an error).
    assert_eq!(
        tabiya_db::files_of(&format!("material {}vK", "Q".repeat(255))),
        Ok(vec![])
    );
}

/// `gameset_criteria`: fifty thousand `(` (or `not`) overflowed the stack (the parser
/// recurses once a level; a segmentation fault, not even a panic). 64 levels are read,
/// a 65th is refused.
#[test]
fn criteria_nested_too_deeply_are_refused() {
    let nested = |n: usize| format!("{}year = 1{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(tabiya_db::files_of(&nested(64)), Ok(vec![]));
    let e = tabiya_db::files_of(&nested(65)).unwrap_err();
    assert!(e.contains("nested too deeply"), "{e}");
    let e = tabiya_db::files_of(&nested(50_000)).unwrap_err();
    assert!(e.contains("nested too deeply"), "{e}");
    let nots = |n: usize| format!("{}year = 1", "not ".repeat(n));
    assert_eq!(tabiya_db::files_of(&nots(64)), Ok(vec![]));
    let e = tabiya_db::files_of(&nots(50_000)).unwrap_err();
    assert!(e.contains("nested too deeply"), "{e}");
}
