use std::path::{Path, PathBuf};

use tabiya_pgn::{Splitter, parse_game};

use super::*;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

/// Every shared PGN file the reader is checked on.
fn shared_pgn() -> Vec<PathBuf> {
    let mut files = vec![
        shared("pgn/twic/twic0920.pgn"),
        shared("pgn/tcec/tcec-partial.nocomments.pgn.zst"),
    ];
    for dir in ["pgn/pgnmentor", "pgn/edge-cases"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(shared(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

/// Every game of a file: its bytes and first line.
fn for_each_game(path: &Path, mut f: impl FnMut(&[u8], u64)) {
    let input = tabiya_pgn::input::open(path).unwrap();
    for chunk in Splitter::new(input.reader) {
        let chunk = chunk.unwrap();
        for span in &chunk.games {
            f(chunk.game_bytes(span), span.line);
        }
    }
}

fn read_game(bytes: &[u8], line: u64, names: bool) -> Result<InputGame, (u64, String)> {
    GameReader::new(names, None).read(bytes, line)
}

fn read_for_polyglot(bytes: &[u8], line: u64, max_ply: u32) -> Result<InputGame, (u64, String)> {
    GameReader::new(false, Some(max_ply)).read(bytes, line)
}

/// The reader accepts, rejects and reads exactly what `parse_game` does (but for games with
/// a null move, which books leave out); and the direct path takes most games.
fn same_as_parse_game(path: &Path) -> (usize, usize) {
    let (mut n, mut direct) = (0, 0);
    for_each_game(path, |bytes, line| {
        let read = read_game(bytes, line, true);
        let full = parse_game(bytes, line);
        let at = format!("{} line {line}", path.display());
        match (&read, &full) {
            (Ok(r), Ok(f)) => {
                let f = from_game(f, true);
                assert_eq!(r.game.start, f.game.start, "{at}");
                assert_eq!(r.game.standard_start, f.game.standard_start, "{at}");
                assert_eq!(r.game.moves, f.game.moves, "{at}");
                assert_eq!(r.game.result, f.game.result, "{at}");
                assert_eq!(r.tag_result, f.tag_result, "{at}");
                assert_eq!(r.game.white_elo, f.game.white_elo, "{at}");
                assert_eq!(r.game.black_elo, f.game.black_elo, "{at}");
                assert_eq!(r.game.year, f.game.year, "{at}");
                assert_eq!(r.names, f.names, "{at}");
                assert_eq!(r.counted, None, "{at}");
            }
            (Err(r), Err(f)) => assert_eq!(r, &(f.line, f.reason.clone()), "{at}"),
            // A game with a null move: the database keeps it, books leave it out.
            (Err((_, reason)), Ok(f)) if !f.after_null.is_empty() => {
                assert!(reason.contains("null move"), "{at}: {reason}")
            }
            _ => panic!(
                "{at}: reader {:?} vs parse_game {:?}",
                read.as_ref().err(),
                full.as_ref().err()
            ),
        }
        let mut v = BookVisitor::new(true, None);
        direct += usize::from(visit_plain(bytes, &mut v).is_some());
        n += 1;
    });
    (n, direct)
}

#[test]
fn reader_agrees_with_parse_game_on_the_shared_pgn() {
    let (mut total, mut direct) = (0, 0);
    for f in &shared_pgn() {
        let (n, d) = same_as_parse_game(f);
        total += n;
        direct += d;
    }
    // twic 2,245 + TCEC 27,608 + pgnmentor 13,163 + the edge cases.
    assert!(total > 43_000, "{total} games");
    assert!(
        direct * 10 > total * 9,
        "direct path took {direct} of {total}"
    );
}

/// For a Polyglot build, every game of the shared PGN: the moves counted as the game is
/// read equal a replay of the game read whole (`count_game`); games from another start
/// (the Chess960 ones) are skipped.
#[test]
fn moves_counted_while_parsing_equal_a_replay() {
    let (mut n, mut other_starts) = (0, 0);
    let skipped = Some(CountedGame::NonStandardStart);
    for f in &shared_pgn() {
        for_each_game(f, |bytes, line| {
            let at = format!("{} line {line}", f.display());
            for max_ply in [1024, 7] {
                let counted = read_for_polyglot(bytes, line, max_ply);
                match (counted, read_game(bytes, line, false)) {
                    (Ok(c), Ok(mut plain)) => {
                        let replayed = count_for_polyglot(&mut plain, max_ply);
                        other_starts += usize::from(c.counted == skipped);
                        assert_eq!(c.counted, Some(replayed), "{at}");
                        assert!(c.game.moves.is_empty(), "{at}");
                        assert_eq!(c.tag_result, plain.tag_result, "{at}");
                    }
                    // Unreadable moves: only a game from another start is taken.
                    (Ok(c), Err(_)) => assert_eq!(c.counted, skipped, "{at}"),
                    (Err(c), Err(plain)) => assert_eq!(c, plain, "{at}"),
                    (Err(c), Ok(_)) => panic!("{at}: refused for Polyglot: {c:?}"),
                }
            }
            n += 1;
        });
    }
    assert!(n > 43_000, "{n} games");
    assert!(other_starts > 0, "no game from another start");
}

#[test]
fn polyglot_mode_skips_other_starts_unread() {
    // Read by the direct path, by the full parser (a comment), by the tag reader (an escape
    // in a tag): the moves, illegal from that position, are never read.
    for text in [
        &b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 1-0"[..],
        b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[Round \"1\"]\n\n1. e4 Kd7 2. Nf3 1-0",
        b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 {c} Kd7 2. Nf3 1-0",
        b"[Event \"a \\\" b\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 2. Nf3 1-0",
    ] {
        let g = read_for_polyglot(text, 1, 1024).unwrap();
        assert_eq!(
            g.counted,
            Some(CountedGame::NonStandardStart),
            "{}",
            String::from_utf8_lossy(text)
        );
        assert!(!g.game.standard_start);
        // As `make-book` skips it: the result is the tag's alone (none here), the
        // termination marker unread.
        assert_eq!(g.game.result, GameResult::Unknown);
    }
    // Without a Polyglot build, the unreadable game is refused.
    assert!(
        read_game(
            b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 2. Nf3 1-0",
            1,
            false
        )
        .is_err()
    );
    // A FEN tag holding the standard start is read and counted.
    let text =
        b"[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. e4 e5 1-0";
    let g = read_for_polyglot(text, 1, 1024).unwrap();
    assert!(matches!(g.counted, Some(CountedGame::Counted { ref moves, .. }) if moves.len() == 2));
    // A bad FEN is the full parser's error.
    let text = b"[FEN \"not a fen\"]\n\n1. e4 e5 1-0";
    assert_eq!(read_for_polyglot(text, 3, 1024).unwrap_err(), {
        let e = parse_game(text, 3).unwrap_err();
        (e.line, e.reason)
    });
}

#[test]
fn results_as_the_database_and_as_make_book() {
    let g = read_game(b"[Result \"*\"]\n\n1. e4 e5 1-0", 1, false).unwrap();
    assert_eq!(g.game.result, GameResult::Unknown, "the tag wins");
    assert_eq!(g.tag_result, GameResult::Unknown);
    let g = read_game(b"[Event \"x\"]\n\n1. e4 e5 0-1", 1, false).unwrap();
    assert_eq!(
        g.game.result,
        GameResult::BlackWins,
        "no tag: the termination marker"
    );
    assert_eq!(
        g.tag_result,
        GameResult::Unknown,
        "make-book reads the tag only"
    );
    let g = read_game(b"[Result \" 1-0 \"]\n\n1. e4 *", 1, false).unwrap();
    assert_eq!(
        g.game.result,
        GameResult::WhiteWins,
        "the database trims the tag"
    );
    assert_eq!(g.tag_result, GameResult::Unknown, "make-book does not");
    // The first of repeated tags counts.
    let g = read_game(
        b"[Result \"0-1\"]\n[Result \"1-0\"]\n[WhiteElo \"2500\"]\n[WhiteElo \"2600\"]\n[Date \"????.??.??\"]\n[EventDate \"1999.01.01\"]\n\n1. e4 *",
        1,
        false,
    )
    .unwrap();
    assert_eq!(g.game.result, GameResult::BlackWins);
    assert_eq!(g.tag_result, GameResult::BlackWins);
    assert_eq!(g.game.white_elo, Some(2500));
    assert_eq!(g.game.year, Some(1999), "no year in Date: EventDate's");
    let g = read_game(
        b"[EventDate \"2000.12.28\"]\n[Date \"2001.01.02\"]\n\n1. e4 *",
        1,
        false,
    )
    .unwrap();
    assert_eq!(g.game.year, Some(2001), "Date's year first");
    assert!(read_game(b"[Result \"1-0\"]\n\n1. e4 e4 1-0", 1, false).is_err());
}
