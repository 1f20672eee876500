//! The opening table: every line is legal, names are found in every orientation and by
//! transposition, the deepest name on a line wins.

use tabiya_othello::openings::{openings, table_errors};
use tabiya_othello::{
    ALL_SYMMETRIES, Replay, Square, deepest_opening, opening_name, parse_transcript,
};

fn board_after(moves: &[Square]) -> tabiya_othello::Board {
    let mut r = Replay::new(moves).without_canonical();
    for p in r.by_ref() {
        p.unwrap();
    }
    *r.board()
}

#[test]
fn table_loads_without_errors() {
    assert_eq!(table_errors(), &[] as &[String]);
    // 77 lines of Gatliff's catalogue + 3 Japanese names (counted in data/openings.txt), of
    // which the Rabbit line (兔基本形) is Gatliff's Rose-Birth line move for move.
    assert_eq!(openings().len(), 79);
    let rose_birth = openings().iter().find(|o| o.name == "Rose-Birth").unwrap();
    assert_eq!(rose_birth.aliases, ["Rabbit", "Usagi"]);
}

#[test]
fn names_from_the_brief_are_present() {
    for name in [
        "Tiger",
        "Rose",
        "Buffalo",
        "Cow",
        "Heath",
        "Cat",
        "Snake",
        "Rabbit",
        "Leader's Tiger",
        "Aubrey",
        "Brightwell",
        "Stephenson",
        "Ganglion",
        "Chimney",
        "Cow Bat",
        "Heath-Bat",
        "Mimura",
        "Tamenori",
        "No-Kung",
        "Parallel Opening",
        "Perpendicular Opening",
        "Diagonal Opening",
        "Horse",
        "Ox",
        "Swallow",
        "Iwasaki Variation",
        "Inoue",
    ] {
        assert!(
            openings()
                .iter()
                .any(|o| o.name == name || o.aliases.contains(&name)),
            "{name} missing"
        );
    }
    let snake = openings().iter().find(|o| o.name == "Snake").unwrap();
    assert_eq!(snake.aliases, ["Peasant"]);
}

#[test]
fn every_orientation_matches() {
    // The 4 symmetries that keep the start position (identity, half turn, both diagonals);
    // the other 4 swap the colours of the centre and would need another start position.
    let start = tabiya_othello::Board::start();
    let keep: Vec<_> = ALL_SYMMETRIES
        .into_iter()
        .filter(|s| s.apply_board(&start) == start)
        .collect();
    assert_eq!(keep.len(), 4);
    for o in openings() {
        for &s in &keep {
            let moves: Vec<Square> = o.moves.iter().map(|&m| s.apply_square(m)).collect();
            let found = opening_name(&board_after(&moves))
                .unwrap_or_else(|| panic!("{} under {s}", o.name));
            assert_eq!(found.name, o.name);
        }
    }
}

#[test]
fn lines_in_other_orientations_from_public_lists() {
    // Lines as written in other orientations by a public program's opening table (the BASIC
    // "OpeningBook" list, which writes each line from c4, d3 and e6).
    for (line, name) in [
        ("d3c5f6f5e6", "Tiger"),
        ("e6f4c3c4d3", "Tiger"),
        ("e6f6f5d6c5", "Cow"),
        ("d3c5d6e3f5", "Horse"),
        ("e6f4c3c4d3d6f5", "Leader's Tiger"),
        ("d3c3c4c5b3", "Snake"),
        ("e6f6f5d6c3", "Buffalo"),
    ] {
        let moves = parse_transcript(line).unwrap();
        assert_eq!(
            opening_name(&board_after(&moves)).map(|o| o.name),
            Some(name),
            "{line}"
        );
    }
}

#[test]
fn transpositions_match() {
    // Move orders that reach the same board as a named line (found and confirmed with the
    // independent Python referee in oracle/wthor_oracle.py (at the workspace root), which plays on a list board).
    for (line, name) in [
        ("f5d6c4d3c3", "Tiger"),
        ("f5f4e3f6e6", "Cow"),
        ("e6f6f5f4e3", "Cow"),
        ("f5d6c4f4f6d3c3g5", "No-Kung"),
        ("e6d6c3d3c4f4f5", "Leader's Tiger"),
        ("f5f4e3d6c4d3e6f3", "Sheep"),
    ] {
        let moves = parse_transcript(line).unwrap();
        assert_eq!(
            opening_name(&board_after(&moves)).map(|o| o.name),
            Some(name),
            "{line}"
        );
    }
}

#[test]
fn deepest_name_on_a_line() {
    // Tiger, then Leader's Tiger two moves later, then nothing deeper.
    let line = parse_transcript("f5d6c3d3c4f4e6b3e2").unwrap();
    let (n, o) = deepest_opening(&line).unwrap();
    assert_eq!((n, o.name), (7, "Leader's Tiger"));
    let line = parse_transcript("f5d6c3d3c4").unwrap();
    assert_eq!(deepest_opening(&line).unwrap().1.name, "Tiger");
    let line = parse_transcript("f5").unwrap();
    assert!(deepest_opening(&line).is_none());
}
