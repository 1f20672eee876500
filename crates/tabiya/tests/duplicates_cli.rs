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

/// A small random generator (splitmix64), seeded: the same games every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Movetext of the first `plies` of `sans`, then `result`.
fn movetext(sans: &[String], plies: usize, result: &str) -> String {
    let mut s = String::new();
    for (i, san) in sans[..plies].iter().enumerate() {
        if i % 2 == 0 {
            s.push_str(&format!("{}. ", i / 2 + 1));
        }
        s.push_str(san);
        s.push(' ');
    }
    s + result
}

/// 100,000 games of `?` against `?` — one pairing, as real files have them — written here:
/// 98,600 distinct random games (legal moves, 20 to 60 plies, no two sharing their first 9
/// plies: by construction, not by chance), then copies of some, each kind in known
/// numbers:
///
/// - 500 with the same moves, the round and date written otherwise (`2001.??.??`): 500
///   sets of two, `same moves`;
/// - 300 cut to 10–19 plies, same event and date, result `*`: 300 sets of two, `one line
///   begins the other`;
/// - 100 games with both a same-moves copy and a cut one: 100 sets of three, both reasons;
/// - and no duplicates: 100 same moves on a date that cannot be the original's
///   (`2002.05.01`), 100 same moves with the other result (`0-1` for `1-0`), 100 cut to 9
///   plies (too short to be evidence), 100 cut to 12 plies under another event.
///
/// So: 900 sets, 1,000 copies. No time is asserted: `BENCHMARKS.md` times this (the pairing's
/// pairs compared one by one took 90 s at 20,000 games and did not end at 100,000).
#[test]
fn a_hundred_thousand_games_of_one_pairing() {
    use shakmaty::san::San;
    use shakmaty::{Chess, Position};

    const BASE: usize = 98_600;
    let mut rng = Rng(2024);
    let mut starts = std::collections::HashSet::new();
    let mut bases: Vec<Vec<String>> = Vec::with_capacity(BASE);
    while bases.len() < BASE {
        let want = 20 + rng.below(41);
        let mut pos = Chess::default();
        let (mut sans, mut line) = (Vec::new(), Vec::new());
        while sans.len() < want && !pos.is_game_over() {
            let moves = pos.legal_moves();
            let m = moves[rng.below(moves.len())];
            sans.push(San::from_move(&pos, m).to_string());
            line.push(m);
            pos.play_unchecked(m);
        }
        // At least 20 plies, and a 9-ply start of its own.
        if sans.len() >= 20 && starts.insert(line[..9].to_vec()) {
            bases.push(sans);
        }
    }
    let game = |round: &str, date: &str, event: &str, result: &str, text: String| {
        format!(
            "[Event \"{event}\"]\n[Site \"?\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"{result}\"]\n\n{text}\n\n"
        )
    };
    // Base game b: 1-0 (b even) or 1/2-1/2, dated 2001.05.01, event "?".
    let result_of = |b: usize| {
        if b.is_multiple_of(2) {
            "1-0"
        } else {
            "1/2-1/2"
        }
    };
    let mut pgn = String::with_capacity(16 << 20);
    for (b, sans) in bases.iter().enumerate() {
        let r = result_of(b);
        pgn += &game("1", "2001.05.01", "?", r, movetext(sans, sans.len(), r));
    }
    // The copies, in order, each with the base game it copies (ids: bases 1..=98,600,
    // then these from 98,601 in this order).
    let mut copies: Vec<usize> = Vec::new();
    let mut copy = |pgn: &mut String, b: usize, text: String| {
        *pgn += &text;
        copies.push(b);
    };
    // Base game b's moves, whole or its first `plies`, then `result`.
    let full = |b: usize, result: &str| movetext(&bases[b], bases[b].len(), result);
    let cut_to = |b: usize, plies: usize| movetext(&bases[b], plies, "*");
    let cut = |b: usize| 10 + b % 10;
    for b in 0..500 {
        let r = result_of(b);
        copy(&mut pgn, b, game("2", "2001.??.??", "?", r, full(b, r)));
    }
    for b in 500..800 {
        copy(
            &mut pgn,
            b,
            game("1", "2001.05.01", "?", "*", cut_to(b, cut(b))),
        );
    }
    for b in 800..900 {
        let r = result_of(b);
        copy(&mut pgn, b, game("2", "2001.??.??", "?", r, full(b, r)));
        copy(
            &mut pgn,
            b,
            game("1", "2001.05.01", "?", "*", cut_to(b, cut(b))),
        );
    }
    for b in 900..1000 {
        let r = result_of(b);
        copy(&mut pgn, b, game("2", "2002.05.01", "?", r, full(b, r)));
    }
    for b in (1000..1200).step_by(2) {
        // (even: 1-0) the same moves, 0-1
        copy(
            &mut pgn,
            b,
            game("2", "2001.05.01", "?", "0-1", full(b, "0-1")),
        );
    }
    for b in 1200..1300 {
        copy(&mut pgn, b, game("1", "2001.05.01", "?", "*", cut_to(b, 9)));
    }
    for b in 1300..1400 {
        copy(
            &mut pgn,
            b,
            game("1", "2001.05.01", "Other", "*", cut_to(b, 12)),
        );
    }
    assert_eq!(BASE + copies.len(), 100_000);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pairing.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.path().join("db").display().to_string();
    let imported = json(&["import", "--json", "--db", &db, file.to_str().unwrap()]);
    assert_eq!(imported["imported"], 100_000, "{}", imported["problems"]);

    // Expected sets by construction, kept copy first: the base (longer, or as long and
    // imported first), then its same-moves copy, then its cut copy.
    let id = |b: usize| b as u64 + 1;
    let copy_ids = |b: usize| -> Vec<u64> {
        (0..copies.len())
            .filter(|&c| copies[c] == b)
            .map(|c| (BASE + c) as u64 + 1)
            .collect()
    };
    let mut want: Vec<(Vec<u64>, &str)> = Vec::new();
    for b in 0..900 {
        let mut set = vec![id(b)];
        set.extend(copy_ids(b));
        let why = match b {
            0..500 => "same moves",
            500..800 => "one line begins the other",
            _ => "same moves, and one line begins the other",
        };
        want.push((set, why));
    }
    let d = json(&["duplicates", "--json", "--db", &db]);
    let got: Vec<(Vec<u64>, &str)> = d["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["games"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g["id"].as_u64().unwrap())
                    .collect(),
                s["why"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got.len(), 900);
    assert_eq!(got, want);
    assert_eq!(d["copies"], 1_000);
    assert_eq!(d["games_left"], 100_000);
}
