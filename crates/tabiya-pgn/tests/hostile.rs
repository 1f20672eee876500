//! Damaged and hostile PGN text, game by game: what the parser makes of it, with the exact
//! error expected. (Files, compression and the import: `crates/tabiya/tests/hostile_input.rs`.)

use tabiya_pgn::{Game, GameError, Splitter, parse_game};

/// Pseudo-random bytes from a fixed seed (the same every run).
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u8
        })
        .collect()
}

/// Every game the splitter cuts from `bytes`, parsed.
fn games(bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let mut out = Vec::new();
    for chunk in Splitter::new(bytes) {
        let chunk = chunk.unwrap();
        for span in &chunk.games {
            out.push(match span.refusal() {
                Some(e) => Err(e),
                None => parse_game(chunk.game_bytes(span), span.line),
            });
        }
    }
    out
}

/// Runs `f` on a thread with the 2 MiB stack of the import's parse threads.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no stack overflow, no panic")
}

/// Random bytes are no game: every piece the splitter cuts is refused as not PGN.
#[test]
fn random_bytes_are_not_games() {
    let bytes = noise(300_000, 17);
    let parsed = games(&bytes);
    assert!(!parsed.is_empty());
    for p in &parsed {
        let e = p.as_ref().map(|_| ()).unwrap_err();
        assert!(e.is_not_a_game(), "{e}");
        assert!(
            e.reason.starts_with("not a PGN game: ")
                && e.reason
                    .ends_with(" bytes of text without a tag pair or a move"),
            "{e}"
        );
    }
}

/// What is a game: a tag pair or a move. A comment alone, a result alone, are not.
#[test]
fn a_game_needs_a_tag_or_a_move() {
    for text in ["{just a comment} *", "*", "1-0", "{a} {b}"] {
        let e = parse_game(text.as_bytes(), 7).unwrap_err();
        assert_eq!(
            e,
            GameError {
                line: 7,
                reason: format!(
                    "not a PGN game: {} bytes of text without a tag pair or a move",
                    text.len()
                )
            }
        );
    }
    assert_eq!(parse_game(b"[Event \"x\"]\n\n*", 1).unwrap().tags.len(), 1);
    assert_eq!(parse_game(b"1. e4 *", 1).unwrap().moves.len(), 1);
    assert_eq!(parse_game(b"1. e4 {c} *", 1).unwrap().moves.len(), 1);
}

/// A NUL byte refuses the game, naming its line and its place in the game.
#[test]
fn a_nul_byte_refuses_the_game() {
    // Line 1 the tag, 2 empty, 3 the moves; the NUL is byte 21 of the game (counted by hand:
    // 12 bytes of tag and LF, 1 LF, then "1. e4 e5" is 8 bytes → 21).
    let text = b"[Event \"a\"]\n\n1. e4 e5\x00 2. Nf3 *";
    assert_eq!(
        parse_game(text, 40).unwrap_err(),
        GameError {
            line: 42,
            reason: "NUL byte at byte 21 of the game: not PGN text (a damaged or binary file?); game refused".into()
        }
    );
    // In a tag value (the direct path would have taken it).
    let e = parse_game(b"[White \"A\x00B\"]\n\n1. e4 *", 1).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.reason.starts_with("NUL byte at byte 9 of the game"),
        "{e}"
    );
}

/// Variations nested 10,000 deep, on the stack of a parse thread: the first 256 levels
/// kept, the deeper ones dropped with one warning (no recursion without bound in whatever
/// walks the game later).
#[test]
fn variations_nested_ten_thousand_deep() {
    let depth = 10_000;
    let mut text = String::from("1. e4 e5 ");
    for _ in 0..depth {
        text.push_str("(1... c5 ");
    }
    text.push_str(&")".repeat(depth));
    text.push_str(" 2. Nf3 *");
    let (moves, nested, warnings) = on_small_stack(move || {
        let g = parse_game(text.as_bytes(), 1).unwrap();
        let mut nested = 0;
        let mut node = &g.moves[1];
        while let Some(v) = node.variations.first() {
            nested += 1;
            node = &v.moves[0];
        }
        let text = tabiya_pgn::game_to_string(&g);
        assert_eq!(parse_game(text.as_bytes(), 1).unwrap().moves, g.moves);
        (g.moves.len(), nested, g.warnings)
    });
    assert_eq!((moves, nested), (3, 256));
    assert_eq!(
        warnings,
        ["variation nested more than 256 deep dropped".to_string()]
    );
}

/// Ten megabytes of comments in one game: read whole. A tag of one megabyte: the game is
/// refused, naming the line (by both paths: with a comment, and plain).
#[test]
fn a_ten_megabyte_comment_and_a_megabyte_tag() {
    let comment = "x".repeat(10 << 20);
    let text = format!("[Event \"e\"]\n\n1. e4 {{{comment}}} e5 *\n");
    let g = parse_game(text.as_bytes(), 1).unwrap();
    assert_eq!(g.moves[0].comments, [comment]);
    assert_eq!(g.moves.len(), 2);
    let tag = "y".repeat(1 << 20);
    for movetext in ["1. e4 {c} e5 *", "1. e4 e5 *"] {
        // Line 3 the long tag: 1 MiB and the 9 bytes of `[Site "` (7) and `"]` (2).
        let text = format!("[Event \"e\"]\n\n[Site \"{tag}\"]\n\n{movetext}\n");
        assert_eq!(
            tabiya_pgn::GameParser::new()
                .parse(text.as_bytes(), 1)
                .unwrap_err(),
            GameError {
                line: 3,
                reason:
                    "tag line of 1048585 bytes, longer than the 8 KiB a tag may hold; game refused"
                        .into()
            }
        );
    }
}

/// A legal game of a million plies (knights out and back): every move read.
#[test]
fn a_million_move_game() {
    let mut text = String::from("[Event \"long\"]\n\n");
    for n in 0..250_000 {
        let m = 2 * n + 1;
        text.push_str(&format!("{m}. Nf3 Nf6 {}. Ng1 Ng8 ", m + 1));
    }
    text.push('*');
    let g = parse_game(text.as_bytes(), 1).unwrap();
    assert_eq!(g.moves.len(), 1_000_000);
    assert_eq!(g.moves.last().unwrap().mv.to_string(), "Nf6-g8");
}

/// Player names that are not UTF-8 are read as ISO-8859-1, byte for byte; valid UTF-8
/// stays as it is.
#[test]
fn names_in_latin1_and_invalid_utf8() {
    let g = parse_game(
        b"[White \"M\xfcller, J\xf6rg\"]\n[Black \"\xff\xfe\xc3\"]\n[Site \"Z\xc3\xbcrich\"]\n\n1. e4 *",
        1,
    )
    .unwrap();
    assert_eq!(g.tag("White"), Some("Müller, Jörg"));
    assert_eq!(g.tag("Black"), Some("\u{ff}\u{fe}\u{c3}"));
    assert_eq!(g.tag("Site"), Some("Zürich"));
}

/// CRLF and lone-CR line ends: the same games as with LF, comments included.
#[test]
fn crlf_and_lone_cr_read_as_lf() {
    let lf = "[Event \"a\"]\n[White \"W\"]\n\n1. e4 {two\nlines} e5 ; to the end\n2. Nf3 *\n\n[Event \"b\"]\n\n1. d4 (1. c4\nc5) d5 *\n";
    let want: Vec<Game> = games(lf.as_bytes())
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(want.len(), 2);
    assert_eq!(want[0].moves[0].comments, ["two\nlines"]);
    for other in [lf.replace('\n', "\r\n"), lf.replace('\n', "\r")] {
        let got: Vec<Game> = games(other.as_bytes())
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                (&g.tags, &g.moves, &g.comments),
                (&w.tags, &w.moves, &w.comments)
            );
        }
    }
}
