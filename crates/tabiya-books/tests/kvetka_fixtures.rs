//! A Kvetka book built byte by byte from the seed's text (seed 004), read by the library.
//!
//! Nothing here comes from the library's writer: every byte is derived in the comments from
//! the seed's definitions. The only helper packs a bit string written by hand into bytes.

use std::{fs, path::Path};

use shakmaty::{Chess, Position, san::San};
use tabiya_books::kvetka::{
    EcoComment, GameLink, IndexSource, KvetkaBook, KvetkaError, ReadOptions, decode_key,
    decode_move, position_key,
};

/// Packs a bit string ("1 0 1 ..." with spaces ignored), most significant bit first, into a
/// 22-byte key, zero-padded ("all extra bits must be zero").
fn key(bits: &str) -> [u8; 22] {
    let bits: Vec<u8> = bits.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(bits.len() <= 176);
    let mut out = [0u8; 22];
    for (i, b) in bits.iter().enumerate() {
        match b {
            b'1' => out[i / 8] |= 0x80 >> (i % 8),
            b'0' => {}
            _ => panic!("bad bit"),
        }
    }
    out
}

// Square codes (seed): 0 empty, 11c pawn, 1011c rook, 1010c bishop, 1001c knight,
// 10001c queen, 10000c king; c = 1 for black. Squares a1..a8, b1..b8, ... h8.
//
// Start position, file by file (rank 1 → 8):
//   a: R=10110 P=110 0 0 0 0 p=111 r=10111
//   b: N=10010 P=110 0 0 0 0 p=111 n=10011
//   c: B=10100 P=110 0 0 0 0 p=111 b=10101
//   d: Q=100010 P=110 0 0 0 0 p=111 q=100011
//   e: K=100000 P=110 0 0 0 0 p=111 k=100001
//   f: like c, g: like b, h: like a
// then en passant 0000 (no pawn just moved two squares), castling 1111 (black O-O,
// black O-O-O, white O-O, white O-O-O), zero padding.
const START_BITS: &str = "
    10110 110 0000 111 10111
    10010 110 0000 111 10011
    10100 110 0000 111 10101
    100010 110 0000 111 100011
    100000 110 0000 111 100001
    10100 110 0000 111 10101
    10010 110 0000 111 10011
    10110 110 0000 111 10111
    0000 1111";

// After 1.e4 Black is to move: the board is flipped (a1 <-> a8) and colours swapped. The
// black pieces become white pieces on ranks 1-2, the white ones black pieces on ranks 7-8,
// and White's e4 pawn becomes a black pawn on e5; e7 (flip of e2) is empty. Castling rights
// are swapped, still all four. No en passant: no pawn stands beside e4 (the seed's
// adjacency condition). File e: K P 0 0 p 0 0 k.
const AFTER_E4_BITS: &str = "
    10110 110 0000 111 10111
    10010 110 0000 111 10011
    10100 110 0000 111 10101
    100010 110 0000 111 100011
    100000 110 0 0 111 0 0 100001
    10100 110 0000 111 10101
    10010 110 0000 111 10011
    10110 110 0000 111 10111
    0000 1111";

fn be_u16(v: u16) -> [u8; 2] {
    v.to_be_bytes()
}
fn be_u32(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}
/// Unicode string: 4-byte length in characters, then 2 bytes per character (big-endian, the
/// seed's integer byte order; see docs/formats/kvetka.md).
fn unicode(s: &str) -> Vec<u8> {
    let mut v = be_u32(s.len() as u32).to_vec();
    for c in s.chars() {
        v.extend_from_slice(&[0, c as u8]);
    }
    v
}
/// ANSI string: 4-byte length, then the bytes.
fn ansi(s: &str) -> Vec<u8> {
    let mut v = be_u32(s.len() as u32).to_vec();
    v.extend_from_slice(s.as_bytes());
    v
}

struct Fixture {
    kob: Vec<u8>,
    kin: Vec<u8>,
    ksf: Vec<u8>,
    header_len: usize,
}

fn fixture() -> Fixture {
    let start_key = key(START_BITS);
    let e4_key = key(AFTER_E4_BITS);
    // Keys are compared bytewise: they first differ in file e, rank 5 (start: 0, after 1.e4:
    // the 1 of the black pawn), so the start position comes first.
    assert!(start_key < e4_key);

    // Header: type 0x01, caption "Test", least ELO white 2000, black 0, stronger 0,
    // weaker 2100, max_move 16, element_type 0x01 (game links stored), links 0, one block.
    let mut kob = vec![0x01];
    kob.extend(unicode("Test"));
    kob.extend(be_u16(2000));
    kob.extend(be_u16(0));
    kob.extend(be_u16(0));
    kob.extend(be_u16(2100));
    kob.extend([16, 0x01, 0x00]);
    kob.extend(be_u32(1));
    let header_len = kob.len();
    assert_eq!(header_len, 1 + 12 + 8 + 3 + 4);

    // Element 1: the start position.
    //   wins 3 (CompactInt 03), draws 200 = 1*128 + 72 (81 48), loses 1 (01)
    //   move_number 2: 0x11 = 5th pawn y+2 (pawns counted a2, b2, c2, d2, e2: e2-e4),
    //                  0x29 = 2nd knight x+7 y+2 (knights b1, g1: g1 to f3, one file left)
    //   flags 0x07: comment (bit 0), last-game links (bit 1), some_source (bit 2)
    //   some_source: source 0 (2 bytes), game 5 (4 bytes)
    //   comment "Start" (not ECO-shaped)
    //   links: count 2 (our reading: CompactInt count then 6-byte SourceTypes), (0,1), (0,2)
    let mut e1 = start_key.to_vec();
    e1.extend([0x03, 0x81, 0x48, 0x01]);
    e1.extend([2, 0x11, 0x29]);
    e1.push(0x07);
    e1.extend([0, 0, 0, 0, 0, 5]);
    e1.extend(unicode("Start"));
    e1.extend([2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2]);
    // length = 22 + 4 + 3 + 1 + 6 + (4 + 10) + 13 = 63, CompactInt 0x3F.
    assert_eq!(e1.len(), 63);
    e1.insert(0, 0x3F);

    // Element 2: after 1.e4.
    //   wins 1, draws 0, loses 4 (for Black, the side to move)
    //   moves 0x09 = 3rd pawn y+2 (normalised c2-c4 = real c7-c5), 0x11 (real e7-e5)
    //   flags 0x81: comment, plus bit 7, unknown: extra bytes at the end (DE AD BE) that a
    //   reader skips using length
    //   comment "B00|King's Pawn" (ECO form without variation)
    let mut e2 = e4_key.to_vec();
    e2.extend([0x01, 0x00, 0x04]);
    e2.extend([2, 0x09, 0x11]);
    e2.push(0x81);
    e2.extend(unicode("B00|King's Pawn"));
    e2.extend([0xDE, 0xAD, 0xBE]);
    // length = 22 + 3 + 3 + 1 + (4 + 30) + 3 = 66, CompactInt 0x42.
    assert_eq!(e2.len(), 66);
    e2.insert(0, 0x42);

    // Block: n = 2 + 64 + 67 = 133, the elements, then garbage (0xAA) to 2048 bytes.
    let mut block = be_u16(133).to_vec();
    block.extend(&e1);
    block.extend(&e2);
    assert_eq!(block.len(), 133);
    block.resize(2048, 0xAA);
    kob.extend(block);

    // .kin: the first key of the one block.
    let kin = start_key.to_vec();

    // .ksf: table of contents (512 bytes): 1 source at offset 512.
    let mut ksf = be_u32(1).to_vec();
    ksf.extend(be_u32(512));
    ksf.resize(512, 0);
    // Source: type 1 (PGN), is_bad 0, address "%currentdirgames.pgn", 6 games.
    ksf.extend([1, 0]);
    ksf.extend(unicode("%currentdirgames.pgn"));
    ksf.extend(be_u32(6));
    // Games 0-4: address 100*i, length 100, no names, no ratings, result 3 (unknown).
    for i in 0..5u32 {
        ksf.extend(be_u32(100 * i));
        ksf.extend(be_u32(100));
        ksf.extend(ansi(""));
        ksf.extend(ansi(""));
        ksf.extend(be_u16(0));
        ksf.extend(be_u16(0));
        ksf.push(3);
    }
    // Game 5: address 0x1234, length 0x56, "Ann" - "Bo", 2500 / 2400, result 1 (1-0).
    ksf.extend(be_u32(0x1234));
    ksf.extend(be_u32(0x56));
    ksf.extend(ansi("Ann"));
    ksf.extend(ansi("Bo"));
    ksf.extend(be_u16(2500));
    ksf.extend(be_u16(2400));
    ksf.push(1);

    Fixture {
        kob,
        kin,
        ksf,
        header_len,
    }
}

fn write_fixture(dir: &Path, f: &Fixture, with_kin: bool) {
    fs::write(dir.join("fix_0.kob"), &f.kob).unwrap();
    if with_kin {
        fs::write(dir.join("fix.kin"), &f.kin).unwrap();
    }
    fs::write(dir.join("fix.ksf"), &f.ksf).unwrap();
}

fn after_e4() -> Chess {
    let mut p = Chess::default();
    let m = San::from_ascii(b"e4").unwrap().to_move(&p).unwrap();
    p.play_unchecked(m);
    p
}

#[test]
fn keys_of_the_fixture_are_the_codec_keys() {
    let (k, norm) = position_key(&Chess::default()).unwrap();
    assert_eq!(k, key(START_BITS));
    assert!(!norm.flipped && !norm.mirrored);
    let (k, norm) = position_key(&after_e4()).unwrap();
    assert_eq!(k, key(AFTER_E4_BITS));
    assert!(norm.flipped && !norm.mirrored);
    // And they decode to the normalised boards.
    assert_eq!(decode_key(&key(START_BITS)).unwrap(), Chess::default());
    let e4n = decode_key(&key(AFTER_E4_BITS)).unwrap();
    assert_eq!(
        shakmaty::fen::Fen::from_position(&e4n, shakmaty::EnPassantMode::Legal).to_string(),
        "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn move_codes_from_the_seed_table() {
    let start = Chess::default();
    let uci = |pos: &Chess, code| {
        decode_move(pos, code)
            .unwrap()
            .to_uci(shakmaty::CastlingMode::Standard)
            .to_string()
    };
    assert_eq!(uci(&start, 0x11), "e2e4"); // 5th pawn y+2
    assert_eq!(uci(&start, 0x10), "e2e3"); // 5th pawn y+1
    assert_eq!(uci(&start, 0x00), "a2a3"); // 1st pawn y+1
    assert_eq!(uci(&start, 0x1D), "h2h4"); // 8th pawn y+2
    assert_eq!(uci(&start, 0x20), "b1c3"); // 1st knight x+1 y+2
    assert_eq!(uci(&start, 0x21), "b1a3"); // 1st knight x+7 y+2
    assert_eq!(uci(&start, 0x28), "g1h3"); // 2nd knight x+1 y+2
    assert_eq!(uci(&start, 0x29), "g1f3"); // 2nd knight x+7 y+2
    // 1st bishop x+7 y+1 is blocked in the start position: illegal.
    assert!(decode_move(&start, 0x37).is_err());
    // The table leaves out 0x3A and codes from 0xC6.
    assert!(decode_move(&start, 0x3A).is_err());
    assert!(decode_move(&start, 0xC6).is_err());
    // Castling codes in a position where both are legal.
    let pos: Chess = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    assert_eq!(uci(&pos, 0xC4), "e1g1");
    assert_eq!(uci(&pos, 0xC5), "e1c1");
    // Rooks: a1 is the 1st rook, h1 the 2nd; 0x4C + 6 = 1st rook y+7 (a1-a8 capture),
    // 0x66 = 2nd rook x+6 (h1 to f1, wrapping: file 7 + 6 = 13 = 5 = file f).
    assert_eq!(uci(&pos, 0x52), "a1a8");
    assert_eq!(uci(&pos, 0x66), "h1f1");
    // 0x63 = 2nd rook x+3 would be h1-c1 through the king: illegal.
    assert!(decode_move(&pos, 0x63).is_err());
    // King x+1: e1-f1 (0xBF), x+7: e1-d1 (0xC0).
    assert_eq!(uci(&pos, 0xBF), "e1f1");
    assert_eq!(uci(&pos, 0xC0), "e1d1");
}

#[test]
fn fixture_reads_with_index() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture();
    write_fixture(dir.path(), &f, true);
    let book = KvetkaBook::open(dir.path().join("fix")).unwrap();
    check_book(&book, dir.path());
    assert_eq!(book.index_source(), IndexSource::Kin);
    assert_eq!(book.header_len(), f.header_len);
    assert!(
        book.verify()
            .unwrap()
            .iter()
            .all(|p| p.contains("unknown bytes"))
    );
}

#[test]
fn fixture_reads_without_index() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), &fixture(), false);
    let book = KvetkaBook::open(dir.path().join("fix_0.kob")).unwrap();
    assert_eq!(book.index_source(), IndexSource::Scanned);
    check_book(&book, dir.path());
    // With the .kin present but not used.
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), &fixture(), true);
    let book = KvetkaBook::open_with(
        dir.path().join("fix.kin"),
        ReadOptions {
            use_kin: false,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(book.index_source(), IndexSource::Scanned);
    check_book(&book, dir.path());
}

fn check_book(book: &KvetkaBook, dir: &Path) {
    let h = book.header();
    assert_eq!(h.book_type, 1);
    assert_eq!(h.caption, "Test");
    assert_eq!(
        (
            h.min_white_elo,
            h.min_black_elo,
            h.min_stronger_elo,
            h.min_weaker_elo
        ),
        (2000, 0, 0, 2100)
    );
    assert_eq!(
        (h.max_move, h.element_type, h.links, h.block_count),
        (16, 1, 0, 1)
    );
    assert_eq!(book.block_count(), 1);

    // Start position: totals for White, move stats from the child (after 1.e4: Black won 1,
    // lost 4 -> for White, the mover: 4 wins, 0 draws, 1 loss). 1.Nf3 is not stored.
    let p = book.probe(&Chess::default()).unwrap();
    assert!(p.found);
    assert_eq!(
        (p.games, p.wins, p.draws, p.losses),
        (Some(204), Some(3), Some(200), Some(1))
    );
    assert_eq!(p.moves.len(), 2);
    assert_eq!(
        (p.moves[0].uci.as_str(), p.moves[0].san.as_str()),
        ("e2e4", "e4")
    );
    assert_eq!(
        (
            p.moves[0].games,
            p.moves[0].wins,
            p.moves[0].draws,
            p.moves[0].losses
        ),
        (Some(5), Some(4), Some(0), Some(1))
    );
    assert_eq!(
        (p.moves[1].uci.as_str(), p.moves[1].san.as_str()),
        ("g1f3", "Nf3")
    );
    assert_eq!(p.moves[1].wins, None);

    let d = book.probe_detail(&Chess::default()).unwrap();
    let e = d.element.unwrap();
    assert_eq!(e.raw.flags, 0x07);
    assert_eq!(e.raw.some_game, Some(GameLink { source: 0, game: 5 }));
    assert_eq!(
        e.raw.last_games,
        Some(vec![
            GameLink { source: 0, game: 1 },
            GameLink { source: 0, game: 2 }
        ])
    );
    assert_eq!(e.raw.comment.as_deref(), Some("Start"));
    assert_eq!(d.eco, None);
    assert_eq!(e.location.offset, element_offset(book.header_len(), 2));

    // After 1.e4: Black to move; the stored moves map back to c7-c5 and e7-e5.
    let p = book.probe(&after_e4()).unwrap();
    assert_eq!((p.wins, p.draws, p.losses), (Some(1), Some(0), Some(4)));
    let ucis: Vec<&str> = p.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, ["c7c5", "e7e5"]);
    let sans: Vec<&str> = p.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["c5", "e5"]);
    let d = book.probe_detail(&after_e4()).unwrap();
    let e = d.element.unwrap();
    assert_eq!(e.raw.flags, 0x81);
    assert_eq!(e.raw.unknown_tail, vec![0xDE, 0xAD, 0xBE]);
    assert_eq!(e.raw.some_game, None);
    assert_eq!(
        d.eco,
        Some(EcoComment {
            eco: "B00".into(),
            name: "King's Pawn".into(),
            variation: None
        })
    );
    assert_eq!(e.location.offset, element_offset(book.header_len(), 2 + 64));

    // A position not in the book.
    let mut p2 = Chess::default();
    let m = San::from_ascii(b"d4").unwrap().to_move(&p2).unwrap();
    p2.play_unchecked(m);
    assert!(!book.probe(&p2).unwrap().found);

    // The linked game's text.
    let src = book.game_source(GameLink { source: 0, game: 5 }).unwrap();
    assert_eq!(src.source_type, 1);
    assert_eq!(src.path.as_deref(), Some(dir.join("games.pgn").as_path()));
    assert_eq!((src.offset, src.length), (0x1234, 0x56));
    assert_eq!(
        (src.game.white.as_str(), src.game.black.as_str()),
        ("Ann", "Bo")
    );
    assert_eq!(
        (src.game.white_elo, src.game.black_elo, src.game.result),
        (2500, 2400, 1)
    );
    assert!(book.game_source(GameLink { source: 0, game: 6 }).is_err());
    assert!(book.game_source(GameLink { source: 1, game: 0 }).is_err());

    // Every element as a BookPosition (normalised positions).
    let (positions, bad) = book.read_positions().unwrap();
    assert_eq!(bad, 0);
    assert_eq!(positions.len(), 2);
    assert_eq!(positions[0].position, Chess::default());
    let s = positions[0].moves[0].stats.clone().unwrap();
    assert_eq!((s.wins, s.draws, s.losses), (4, 0, 1));

    let mut dump = Vec::new();
    book.dump(&mut dump).unwrap();
    let dump = String::from_utf8(dump).unwrap();
    assert!(dump.contains("caption \"Test\""), "{dump}");
    assert!(dump.contains("unknown deadbe"), "{dump}");
}

/// File offset of an element: header, then `at` bytes into the first block.
fn element_offset(header_len: usize, at: usize) -> u64 {
    (header_len + at) as u64
}

fn expect_corrupt(err: KvetkaError, file: &str, offset: u64) {
    match err {
        KvetkaError::Corrupt {
            path, offset: o, ..
        } => {
            assert!(path.ends_with(file), "{}", path.display());
            assert_eq!(o, offset);
        }
        other => panic!("expected a corruption error, got {other}"),
    }
}

#[test]
fn corrupt_and_truncated_inputs() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("fix");

    // Truncated inside the block: names the file and the offset where the partial block
    // starts (right after the header).
    write_fixture(dir.path(), &f, false);
    fs::write(dir.path().join("fix_0.kob"), &f.kob[..f.header_len + 100]).unwrap();
    expect_corrupt(
        KvetkaBook::open(&base).unwrap_err(),
        "fix_0.kob",
        f.header_len as u64,
    );

    // Truncated inside the header.
    fs::write(dir.path().join("fix_0.kob"), &f.kob[..10]).unwrap();
    let err = KvetkaBook::open(&base).unwrap_err();
    expect_corrupt(err, "fix_0.kob", 1);

    // Unsupported type byte.
    let mut bad = f.kob.clone();
    bad[0] = 0x02;
    fs::write(dir.path().join("fix_0.kob"), &bad).unwrap();
    expect_corrupt(KvetkaBook::open(&base).unwrap_err(), "fix_0.kob", 0);

    // block_number disagreeing with the file.
    let mut bad = f.kob.clone();
    bad[f.header_len - 1] = 2;
    fs::write(dir.path().join("fix_0.kob"), &bad).unwrap();
    expect_corrupt(
        KvetkaBook::open(&base).unwrap_err(),
        "fix_0.kob",
        f.header_len as u64 - 4,
    );

    // n larger than a block: reading the block fails at the block's offset.
    let mut bad = f.kob.clone();
    bad[f.header_len] = 0x09;
    fs::write(dir.path().join("fix_0.kob"), &bad).unwrap();
    expect_corrupt(
        KvetkaBook::open(&base).unwrap_err(),
        "fix_0.kob",
        f.header_len as u64,
    );

    // An element length running past n: found when the block is read.
    let mut bad = f.kob.clone();
    bad[f.header_len + 2 + 64] = 0x7F;
    fs::write(dir.path().join("fix_0.kob"), &bad).unwrap();
    let book = KvetkaBook::open(&base).unwrap();
    expect_corrupt(
        book.probe(&after_e4()).unwrap_err(),
        "fix_0.kob",
        (f.header_len + 2 + 64) as u64,
    );

    // .kin of the wrong size.
    fs::write(dir.path().join("fix_0.kob"), &f.kob).unwrap();
    fs::write(dir.path().join("fix.kin"), &f.kin[..21]).unwrap();
    expect_corrupt(KvetkaBook::open(&base).unwrap_err(), "fix.kin", 21);
    fs::remove_file(dir.path().join("fix.kin")).unwrap();

    // .ksf whose source address points past the end.
    let mut bad = f.ksf.clone();
    bad[4..8].copy_from_slice(&100_000u32.to_be_bytes());
    fs::write(dir.path().join("fix.ksf"), &bad).unwrap();
    expect_corrupt(KvetkaBook::open(&base).unwrap_err(), "fix.ksf", 4);

    // Every truncation of every file is an error or a readable book, never a panic.
    for cut in 0..f.kob.len() {
        fs::write(dir.path().join("fix_0.kob"), &f.kob[..cut]).unwrap();
        fs::write(dir.path().join("fix.ksf"), &f.ksf).unwrap();
        if let Ok(book) = KvetkaBook::open(&base) {
            let _ = book.probe(&Chess::default());
            let _ = book.verify();
        }
    }
    fs::write(dir.path().join("fix_0.kob"), &f.kob).unwrap();
    for cut in 0..f.ksf.len() {
        fs::write(dir.path().join("fix.ksf"), &f.ksf[..cut]).unwrap();
        assert!(KvetkaBook::open(&base).is_err(), "ksf cut at {cut}");
    }
}

#[test]
fn moves_decode_on_the_normalised_board() {
    // Consistency of the fixture's second element with the codec: 0x09 on the normalised
    // board after 1.e4 is c2-c4, which is c7-c5 on the real board.
    let n = decode_key(&key(AFTER_E4_BITS)).unwrap();
    let m = decode_move(&n, 0x09).unwrap();
    assert_eq!(
        m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
        "c2c4"
    );
    assert!(n.is_legal(m));
}

mod flips {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random byte changes anywhere in the fixture's files: opening, probing, verifying,
        /// dumping and listing give errors or answers, never a panic.
        #[test]
        fn random_corruption_never_panics(
            kob_flips in prop::collection::vec((0usize..2200, any::<u8>()), 0..6),
            kin_flips in prop::collection::vec((0usize..22, any::<u8>()), 0..2),
            ksf_flips in prop::collection::vec((0usize..700, any::<u8>()), 0..3),
        ) {
            let mut f = fixture();
            for (i, b) in kob_flips {
                let n = f.kob.len();
                f.kob[i % n] = b;
            }
            for (i, b) in kin_flips {
                f.kin[i] = b;
            }
            for (i, b) in ksf_flips {
                let n = f.ksf.len();
                f.ksf[i % n] = b;
            }
            let dir = tempfile::tempdir().unwrap();
            write_fixture(dir.path(), &f, true);
            if let Ok(book) = KvetkaBook::open(dir.path().join("fix")) {
                let _ = book.probe(&Chess::default());
                let _ = book.probe(&after_e4());
                let _ = book.verify();
                let _ = book.read_positions();
                let _ = book.dump(&mut Vec::new());
                let _ = book.game_source(GameLink { source: 0, game: 5 });
            }
        }
    }
}
