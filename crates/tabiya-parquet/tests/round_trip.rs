//! Games written as Parquet and read back are the same games: the PGN text each row becomes
//! parses to a game that PGN export writes exactly as the original — tags (their order, odd
//! values, escapes), comments, variations, NAGs, positions set up, null moves.

use std::path::Path;

use tabiya_pgn::pipeline::RowChunks;
use tabiya_pgn::{Game, game_to_string, parse_game, read_all};

const TRICKY: &str = r#"[Event "Annotated \"test\" game"]
[Site "Somewhere"]
[Date "2024.05.01"]
[Round "1"]
[White "Doe, John"]
[Black "Roe, Richard"]
[Result "1-0"]
[WhiteElo "2400"]
[BlackElo "2350"]
[UTCDate "2024.05.01"]
[UTCTime "08:09:10"]
[WhiteRatingDiff "+7"]
[BlackRatingDiff "-7"]
[ECO "C50"]
[Annotator "Tabiya tests"]

{The game starts.} 1. e4 { [%clk 0:03:00] } e5 { [%eval 0.2] [%clk 0:03:00] } 2. Nf3 Nc6 (2... d6 {Philidor} 3. d4 (3. Bc4 Be7) 3... exd4 $6) 3. Bc4 $1 1-0

[Event "Odd tags"]
[Date "2012.??.??"]
[Result "*"]
[ECO "A00"]
[WhiteElo "?"]
[WhiteRatingDiff "5"]
[Opening "Polish"]
[ECO "A01"]
[UTCTime "25:00:00"]
[BlackElo "40000"]
[SetUp "1"]
[FEN "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 40"]

40. exd6 {en passant} Kd7 41. Kd2 Kxd6 *

[Event "Null move"]
[Result "1/2-1/2"]

1. e4 e5 2. -- Nf6 3. Nc3 1/2-1/2
"#;

fn games_of(text: &[u8]) -> Vec<Game> {
    read_all(text)
        .filter_map(|r| r.ok().and_then(|(_, g)| g.ok()))
        .collect()
}

/// Writes `games` as Parquet, reads the file back; the games each row parses to.
fn through_parquet(games: &[Game], dir: &Path) -> Vec<Game> {
    let path = dir.join("games.parquet");
    let mut w = tabiya_parquet::GameWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    for (id, g) in (1..).zip(games) {
        w.write(id, g).unwrap();
    }
    let (n, _) = w.finish().unwrap();
    assert_eq!(n, games.len() as u64);
    assert!(tabiya_parquet::is_parquet(&path));
    let mut rows = tabiya_parquet::open(&path).unwrap();
    assert_eq!(rows.rows(), n);
    let mut back = Vec::new();
    while let Some(chunk) = rows.next_chunk().unwrap() {
        for span in &chunk.games {
            assert_eq!(span.line, back.len() as u64 + 1, "rows are numbered from 1");
            let text = chunk.game_bytes(span);
            back.push(parse_game(text, span.line).unwrap_or_else(|e| {
                panic!(
                    "row {}: {e:?}\n{}",
                    span.line,
                    String::from_utf8_lossy(text)
                )
            }));
        }
    }
    assert_eq!(rows.bytes(), rows.size().unwrap());
    back
}

#[test]
fn tricky_games_come_back_the_same() {
    let games = games_of(TRICKY.as_bytes());
    assert_eq!(games.len(), 3);
    let dir = tempfile::tempdir().unwrap();
    let back = through_parquet(&games, dir.path());
    for (a, b) in games.iter().zip(&back) {
        assert_eq!(game_to_string(a), game_to_string(b));
    }
}

/// Every kind of `Date` — a whole day, partial, unknown, no day at all, none — and a comment
/// holding line ends come back exactly: the tags as the game had them (not only as PGN
/// export writes them: a missing `Date` stays missing, not `?`), the comment's text.
#[test]
fn dates_and_comments_come_back_exactly() {
    let mut text = String::new();
    for date in [
        Some("2024.03.17"),
        Some("1990.??.??"),
        Some("????.??.??"),
        Some("2023.02.30"),
        Some("0000.01.01"),
        Some("2024.3.17"),
        Some("?"),
        None,
    ] {
        text.push_str("[Event \"e\"]\n");
        if let Some(d) = date {
            text.push_str(&format!("[Date \"{d}\"]\n"));
        }
        text.push_str("[Result \"*\"]\n[Annotator \"x\"]\n[WhiteElo \"2400\"]\n\n");
        text.push_str("1. e4 {two\nlines} e5 (1... c5 {and\r\nthree\nlines}) 2. Nf3 *\n\n");
    }
    let games = games_of(text.as_bytes());
    assert_eq!(games.len(), 8);
    assert_eq!(games[0].moves[0].comments, ["two\nlines"]);
    let dir = tempfile::tempdir().unwrap();
    let back = through_parquet(&games, dir.path());
    for (a, b) in games.iter().zip(&back) {
        assert_eq!(a.tags, b.tags);
        assert_eq!(game_to_string(a), game_to_string(b));
    }
}

#[test]
fn shared_games_come_back_the_same() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn");
    let mut games = Vec::new();
    for f in ["edge-cases", "pgnmentor"] {
        let mut files: Vec<_> = std::fs::read_dir(shared.join(f))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for p in files.iter().take(4) {
            games.extend(games_of(&std::fs::read(p).unwrap()));
        }
    }
    assert!(games.len() > 1000, "{}", games.len());
    let dir = tempfile::tempdir().unwrap();
    let back = through_parquet(&games, dir.path());
    assert_eq!(back.len(), games.len());
    for (a, b) in games.iter().zip(&back) {
        assert_eq!(game_to_string(a), game_to_string(b));
    }
}
