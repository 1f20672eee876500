//! `tabiya duplicates`: near-duplicates found by what they are (same players after names,
//! same moves; or the same date and event with one line beginning the other), not by chance
//! (a miniature two other players played too, a rematch with the same opening), and removed
//! keeping the longer, better annotated copy. The games are written here and the expected
//! sets read off them by hand.

mod common;

use common::json;

fn game(tags: &[(&str, &str)], moves: &str) -> String {
    let mut s = String::new();
    for (k, v) in tags {
        s.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    s.push('\n');
    s.push_str(moves);
    s.push_str("\n\n");
    s
}

const RUY: &str =
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O";
const MATE: &str = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#";

#[test]
fn near_duplicates_are_found_and_the_better_copy_kept() {
    fn t<'a>(
        e: &'a str,
        d: &'a str,
        r: &'a str,
        w: &'a str,
        b: &'a str,
        res: &'a str,
    ) -> Vec<(&'static str, &'a str)> {
        vec![
            ("Event", e),
            ("Site", "?"),
            ("Date", d),
            ("Round", r),
            ("White", w),
            ("Black", b),
            ("Result", res),
        ]
    }
    let mut pgn = String::new();
    // 1, 2: the same game, the second with its round and date written otherwise and the
    // players spelt otherwise, and a comment: the second is kept (better annotated).
    pgn += &game(
        &t("Open", "2001.05.01", "3", "Smith, John", "Brown, Bob", "*"),
        &format!("{RUY} *"),
    );
    let annotated = RUY.replacen("3. Bb5", "3. Bb5 {the Spanish}", 1);
    pgn += &game(
        &t("Open", "2001.??.??", "3.1", "Smith, J.", "Brown, B.", "*"),
        &format!("{annotated} *"),
    );
    // 3, 4: cut short, then in full, same date and event: the full one is kept.
    let full = format!("{RUY} 9. h3 Bb7 10. d4 Re8");
    pgn += &game(
        &t("Cup", "2002.02.02", "1", "Jones, Amy", "Black, Ann", "1-0"),
        &format!("{RUY} 1-0"),
    );
    pgn += &game(
        &t("Cup", "2002.02.02", "1", "Jones, Amy", "Black, Ann", "1-0"),
        &format!("{full} 1-0"),
    );
    // 5: a rematch a year later with the same opening, cut at the same move: another game.
    pgn += &game(
        &t("Cup", "2003.02.02", "1", "Jones, Amy", "Black, Ann", "0-1"),
        &format!("{RUY} 0-1"),
    );
    // 6, 7: the same miniature by two other pairs of players: two games.
    pgn += &game(
        &t("Club", "2004.01.01", "1", "Kid, One", "Kid, Two", "1-0"),
        &format!("{MATE} 1-0"),
    );
    pgn += &game(
        &t("Club", "2004.01.01", "2", "Kid, Three", "Kid, Four", "1-0"),
        &format!("{MATE} 1-0"),
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dups.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.path().join("db").display().to_string();
    json(&["import", "--json", "--db", &db, file.to_str().unwrap()]);

    let d = json(&["duplicates", "--json", "--db", &db]);
    let sets: Vec<Vec<u64>> = d["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_u64().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(sets, vec![vec![2, 1], vec![4, 3]], "{d}");
    assert_eq!(d["sets"][0]["why"], "same moves");
    assert_eq!(d["sets"][1]["why"], "one line begins the other");
    assert_eq!(d["copies"], 2);
    assert_eq!(d["removed"], 0);

    let d = json(&["duplicates", "--json", "--db", &db, "--remove"]);
    assert_eq!(d["removed"], 2);
    assert_eq!(d["games_left"], 5);
    let left = json(&["games", "--json", "--db", &db, "--sort", "id"]);
    let ids: Vec<&str> = left["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["2", "4", "5", "6", "7"]);
    // Counted as the games left: 1. e4 by all five.
    let e = json(&["explore", "--json", "--db", &db]);
    assert_eq!(e["moves"][0]["uci"], "e2e4");
    let n = |k: &str| e["moves"][0][k].as_u64().unwrap();
    assert_eq!(n("white") + n("draws") + n("black") + n("unknown"), 5);
    assert_eq!(n("unknown"), 1, "game 2 has no result");
    assert_eq!(json(&["duplicates", "--json", "--db", &db])["copies"], 0);
}
