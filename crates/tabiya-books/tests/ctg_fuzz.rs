//! Property tests: the key and move codecs round-trip on random legal positions, and the
//! reader never panics on random, mutated or truncated books.

use proptest::prelude::*;
use shakmaty::{Chess, EnPassantMode, Position, Role};
use tabiya_books::ctg::{
    CtgBook, CtgError, Transform, decode_key, decode_move, encode_key_with_transform, encode_move,
    normalise,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/ctg/");

/// No failure files are written into the source tree; failures print the minimal input.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}{name}")).unwrap()
}

/// A legal position reached by playing the chosen moves (indices into the legal-move list)
/// from the start; several games end early or reach promotions and en passant.
fn play(choices: &[u16]) -> Chess {
    let mut pos = Chess::default();
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        // Prefer pawn moves now and then to reach promotions and en-passant chances.
        let pawn: Vec<_> = moves.iter().filter(|m| m.role() == Role::Pawn).collect();
        let m = if c % 3 == 0 && !pawn.is_empty() {
            *pawn[usize::from(c / 3) % pawn.len()]
        } else {
            moves[usize::from(c) % moves.len()]
        };
        pos.play_unchecked(m);
    }
    pos
}

fn exercise(book: &CtgBook) {
    let _ = book.walk();
    for p in [Chess::default(), play(&[4, 7]), play(&[1, 2, 3])] {
        match book.probe(&p) {
            Ok(pr) => {
                let _ = pr.to_book_probe();
            }
            Err(e) => check_error(&e),
        }
    }
    for r in book.positions() {
        if let Err(e) = r {
            check_error(&e);
        }
    }
}

fn check_error(e: &CtgError) {
    let s = e.to_string();
    match e {
        CtgError::Page { .. } => assert!(s.contains(".ctg") && s.contains("page"), "{s}"),
        CtgError::Header { .. } => assert!(s.contains("<memory>."), "{s}"),
        _ => {}
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn key_round_trip(choices in proptest::collection::vec(any::<u16>(), 0..120)) {
        let pos = play(&choices);
        let (key, t) = encode_key_with_transform(&pos).unwrap();
        prop_assert_eq!(t, Transform::of(&pos));
        let decoded = decode_key(key.as_bytes()).unwrap();
        prop_assert!(decoded.canonical);
        prop_assert_eq!(decoded.len, key.len());
        let norm = normalise(&pos).unwrap();
        prop_assert_eq!(decoded.position.board(), norm.position.board());
        prop_assert_eq!(
            decoded.position.ep_square(EnPassantMode::Legal),
            norm.position.ep_square(EnPassantMode::Legal)
        );
        let real = t.undo(&decoded.position).unwrap();
        prop_assert_eq!(real.board(), pos.board());
        prop_assert_eq!(real.turn(), pos.turn());
        prop_assert_eq!(real.castles().castling_rights(), pos.castles().castling_rights());
        prop_assert_eq!(real.ep_square(EnPassantMode::Legal), pos.ep_square(EnPassantMode::Legal));
        // Every legal move that the table can express comes back from its code.
        for m in pos.legal_moves() {
            match encode_move(&pos, t, m) {
                Ok(code) => prop_assert_eq!(decode_move(&pos, t, code), Ok(m)),
                Err(e) => prop_assert!(
                    m.promotion().is_some_and(|r| r != Role::Queen)
                        || matches!(e, tabiya_books::ctg::MoveCodeError::NoCodeForPiece(..)),
                    "{:?} {:?}", m, e
                ),
            }
        }
    }

    #[test]
    fn decode_key_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        if let Ok(d) = decode_key(&bytes)
            && d.canonical
        {
            let k = tabiya_books::ctg::encode_key(&d.position).unwrap();
            prop_assert_eq!(k.as_bytes(), &bytes[..d.len]);
        }
    }

    #[test]
    fn random_files_never_panic(
        ctg in proptest::collection::vec(any::<u8>(), 0..9000),
        cto in proptest::collection::vec(any::<u8>(), 0..64),
        ctb in proptest::collection::vec(any::<u8>(), 0..24),
    ) {
        match CtgBook::from_bytes(ctg, cto, ctb) {
            Ok(book) => exercise(&book),
            Err(e) => check_error(&e),
        }
    }

    #[test]
    fn mutated_simple_book_never_panics(
        edits in proptest::collection::vec((0usize..8192, any::<u8>()), 1..12),
        cto_edits in proptest::collection::vec((0usize..20, any::<u8>()), 0..3),
    ) {
        let mut ctg = read("simple.ctg");
        for (at, v) in edits {
            // Most edits in the used part of the data page.
            let at = if at % 2 == 0 { 4096 + at % 240 } else { at };
            ctg[at] = v;
        }
        let mut cto = read("simple.cto");
        for (at, v) in cto_edits {
            cto[at] = v;
        }
        if let Ok(book) = CtgBook::from_bytes(ctg, cto, read("simple.ctb")) {
            exercise(&book);
        }
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn truncated_or_mutated_powerplay_never_panics(
        cut in 0usize..1_056_768,
        cto_cut in 0usize..3584,
        edits in proptest::collection::vec((4096usize..1_056_768, any::<u8>()), 0..40),
    ) {
        let mut ctg = read("PowerPlay17-Sicilienne.ctg");
        for (at, v) in edits {
            ctg[at] = v;
        }
        ctg.truncate(cut);
        let mut cto = read("PowerPlay17-Sicilienne.cto");
        if cto_cut % 2 == 0 {
            cto.truncate(cto_cut);
        }
        match CtgBook::from_bytes(ctg, cto, read("PowerPlay17-Sicilienne.ctb")) {
            Ok(book) => {
                let rep = book.walk();
                prop_assert!(rep.records <= 13_305 + 200);
                for p in &rep.problems {
                    prop_assert!(p.file.starts_with("<memory>.ct"), "{:?}", p);
                    if p.page.is_some() {
                        prop_assert_eq!(&p.file, "<memory>.ctg");
                        prop_assert!(p.offset >= 4096, "{:?}", p);
                    }
                }
                exercise(&book);
            }
            Err(e) => check_error(&e),
        }
    }
}

#[test]
fn truncated_ctg_names_file_page_and_offset() {
    let mut ctg = read("PowerPlay17-Sicilienne.ctg");
    // Cut inside data page 10's used part.
    ctg.truncate(11 * 4096 + 100);
    let book = CtgBook::from_bytes(
        ctg,
        read("PowerPlay17-Sicilienne.cto"),
        read("PowerPlay17-Sicilienne.ctb"),
    )
    .unwrap();
    let err = book.page(10).unwrap_err().to_string();
    assert!(
        err.contains("<memory>.ctg") && err.contains("data page 10") && err.contains("45058"),
        "{err}"
    );
    let rep = book.walk();
    assert!(!rep.is_clean());
    assert!(rep.problems.iter().any(|p| p.page == Some(10)));
    // Records of pages 0–9 still read, and their lookups still work.
    assert!(rep.records > 0);
}

#[test]
fn truncated_cto_is_an_error_naming_the_file() {
    let mut cto = read("PowerPlay17-Sicilienne.cto");
    cto.truncate(1000);
    let err = CtgBook::from_bytes(
        read("PowerPlay17-Sicilienne.ctg"),
        cto,
        read("PowerPlay17-Sicilienne.ctb"),
    )
    .err()
    .expect("error")
    .to_string();
    assert!(
        err.contains("<memory>.cto") && err.contains("892 slots"),
        "{err}"
    );
}

#[test]
fn unknown_move_codes_are_kept_not_fatal() {
    // simple.ctg: the start record holds e4 (0x5F) and d4 (0xE6). Replace d4 by 0x02, a
    // byte the code table does not name.
    let mut ctg = read("simple.ctg");
    let start = 4096 + 4 + 22 + 1 + 33; // second record of page 0
    assert_eq!(ctg[start + 22], 5); // move-list length byte: two moves
    assert_eq!(&ctg[start + 23..start + 27], &[0x5F, 0xE0, 0xE6, 0xE0]);
    ctg[start + 25] = 0x02;
    let book = CtgBook::from_bytes(ctg, read("simple.cto"), read("simple.ctb")).unwrap();
    let probe = book.probe(&Chess::default()).unwrap();
    let e = probe.entry.unwrap();
    assert_eq!(e.moves.len(), 1);
    assert_eq!(e.moves[0].uci, "e2e4");
    assert_eq!(e.unknown_moves.len(), 1);
    assert_eq!(e.unknown_moves[0].code, 0x02);
    assert_eq!(e.unknown_moves[0].annotation, 0xE0);
    let rep = book.walk();
    assert_eq!(rep.unknown_codes, 1);
    assert_eq!(rep.legal_moves, 2);
    assert!(rep.problems.iter().any(|p| p.what.contains("0x02")));
}
