//! What names mean: spellings of one player grouped at import (the examples), the
//! user's corrections with the games they touched and their undoing, the filters by any
//! spelling, and Scid's spelling file. Expected values are the issue's, or counted by hand
//! in the games written here.

mod common;

use common::{json, run_raw, shared};
use serde_json::Value;

/// A game between two players, in a year.
fn game(white: &str, black: &str, date: &str, result: &str, moves: &str) -> String {
    format!(
        "[Event \"Test\"]\n[Site \"Here\"]\n[Date \"{date}\"]\n[Round \"1\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n"
    )
}

/// The games: Robert Fischer spelt three ways (2 + 1 + 3 games), Bobby Fischer (2 games),
/// Judit Polgar given name first (1), Zsuzsa Polgar (1), and one game of
/// `Fischer, Robert James` dated 1930, before his birth.
fn fixture(dir: &std::path::Path) -> String {
    let mut pgn = String::new();
    let lines = [
        "1. e4 e5 2. Nf3 Nc6",
        "1. d4 d5 2. c4 e6",
        "1. c4 e5",
        "1. e4 c5 2. Nf3 d6",
    ];
    let mut n = 0;
    let mut add = |w: &str, b: &str, date: &str, r: &str| {
        pgn.push_str(&game(w, b, date, r, lines[n % lines.len()]));
        n += 1;
    };
    add("Robert Fischer", "Spassky, Boris", "1972.07.11", "1-0");
    add("Spassky, Boris", "Robert Fischer", "1972.07.13", "0-1");
    add("Fischer, R.", "Petrosian, Tigran", "1971.10.01", "1/2-1/2");
    add("Fischer, Robert J.", "Taimanov, Mark", "1971.05.16", "1-0");
    add("Larsen, Bent", "Fischer, Robert J.", "1971.07.06", "0-1");
    add("Fischer, Robert J.", "Larsen, Bent", "1971.07.08", "1-0");
    add("Bobby Fischer", "Club, Player", "1960.01.01", "1-0");
    add("Club, Player", "Bobby Fischer", "1960.01.02", "0-1");
    add("Judit Polgar", "Club, Player", "1990.01.01", "1-0");
    add("Polgar, Zsuzsa", "Club, Player", "1985.01.01", "1-0");

    add("Fischer, Robert James", "Club, Player", "1930.01.01", "1-0");
    // Two games annotated by Kasparov, spelt two ways.
    for (i, a) in ["Kasparov, G.", "Kasparov, Garry"].iter().enumerate() {
        pgn.push_str(&format!(
            "[Event \"Test\"]\n[Site \"Here\"]\n[Date \"1999.01.0{}\"]\n[Round \"1\"]\n[White \"Club, Player\"]\n[Black \"Club, Other\"]\n[Result \"*\"]\n[Annotator \"{a}\"]\n\n1. e4 *\n\n",
            i + 1
        ));
    }
    let path = dir.join("names.pgn");
    std::fs::write(&path, pgn).unwrap();
    let db = dir.join("db").display().to_string();
    json(&["import", "--json", "--db", &db, path.to_str().unwrap()]);
    db
}

fn entries(db: &str, filter: &str) -> Vec<Value> {
    json(&["names", "list", "--json", "--db", db, "--filter", filter])["entries"]
        .as_array()
        .unwrap()
        .clone()
}

fn entry<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name:?} in {list:?}"))
}

fn spellings(e: &Value) -> Vec<&str> {
    e["spellings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

fn games_of(db: &str, player: &str) -> u64 {
    json(&[
        "games", "--json", "--db", db, "--player", player, "--limit", "1",
    ])["total"]
        .as_u64()
        .unwrap()
}

#[test]
fn spellings_of_one_player_are_one_and_corrections_undo() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path());
    // "Robert Fischer", "Fischer, R." and "Fischer, Robert J." are one player; "Bobby
    // Fischer" another (the issue's example). Before the spelling file, the 1930 game's
    // "Fischer, Robert James" is the fullest spelling: the same player too.
    let list = entries(&db, "fischer");
    assert_eq!(list.len(), 2, "{list:?}");
    let robert = entry(&list, "Fischer, Robert James");
    assert_eq!(
        spellings(robert),
        [
            "Fischer, R.",
            "Fischer, Robert J.",
            "Fischer, Robert James",
            "Robert Fischer"
        ]
    );
    assert_eq!(robert["games"], 7);
    assert_eq!(entry(&list, "Bobby Fischer")["games"], 2);
    // Any spelling, any case, means all of his games.
    for name in [
        "Fischer, R.",
        "robert fischer",
        "Fischer, Robert J.",
        "FISCHER, ROBERT JAMES",
    ] {
        assert_eq!(games_of(&db, name), 7, "{name}");
    }
    assert_eq!(games_of(&db, "Bobby Fischer"), 2);
    let e4 = json(&[
        "explore",
        "--json",
        "--db",
        &db,
        "--player",
        "Fischer, R.",
        "--color",
        "white",
    ]);
    assert_eq!(
        e4["white"], 4,
        "as White he won 4 (Spassky, Taimanov, Larsen, the 1930 game) …"
    );
    assert_eq!(e4["draws"], 1, "… and drew Petrosian");
    assert_eq!(
        e4["black"].as_u64().unwrap() + e4["unknown"].as_u64().unwrap(),
        0
    );

    // Alias, reported with its games, undone by unalias.
    let before = json(&["names", "list", "--json", "--db", &db, "--limit", "1000"]);
    let r = json(&[
        "names",
        "alias",
        "--json",
        "--db",
        &db,
        "Bobby Fischer",
        "--to",
        "Fischer, R.",
    ]);
    assert_eq!(r["games"], 2, "Bobby Fischer's two games: {r}");
    assert_eq!(games_of(&db, "Fischer, R."), 9);
    assert_eq!(games_of(&db, "Bobby Fischer"), 9);
    let r = json(&["names", "unalias", "--json", "--db", &db, "Bobby Fischer"]);
    assert_eq!(r["games"], 2, "{r}");
    assert_eq!(
        json(&["names", "list", "--json", "--db", &db, "--limit", "1000"]),
        before
    );

    // Unalias of a spelling grouped by normalisation takes it out; alias puts it back.
    let r = json(&["names", "unalias", "--json", "--db", &db, "Fischer, R."]);
    assert_eq!(r["games"], 1, "the Petrosian game: {r}");
    assert_eq!(games_of(&db, "Robert Fischer"), 6);
    let r = json(&[
        "names",
        "alias",
        "--json",
        "--db",
        &db,
        "Fischer, R.",
        "--to",
        "Robert Fischer",
    ]);
    assert_eq!(r["games"], 1, "{r}");
    assert_eq!(games_of(&db, "Robert Fischer"), 7);

    // Merge and split.
    let r = json(&[
        "names",
        "merge",
        "--json",
        "--db",
        &db,
        "Larsen, Bent",
        "Taimanov, Mark",
    ]);
    assert_eq!(
        r["games"], 1,
        "Taimanov's one game now counts as Larsen's: {r}"
    );
    assert_eq!(games_of(&db, "Taimanov, Mark"), 3);
    let r = json(&[
        "names",
        "split",
        "--json",
        "--db",
        &db,
        "Larsen, Bent",
        "Taimanov, Mark",
    ]);
    assert_eq!(r["games"], 1, "{r}");
    assert_eq!(games_of(&db, "Taimanov, Mark"), 1);

    // Rename, and back.
    let r = json(&[
        "names",
        "rename",
        "--json",
        "--db",
        &db,
        "Spassky, Boris",
        "Spassky, Boris V",
    ]);
    assert_eq!(r["games"], 2, "{r}");
    assert_eq!(
        entry(&entries(&db, "spassky"), "Spassky, Boris V")["games"],
        2
    );
    json(&[
        "names",
        "rename",
        "--json",
        "--db",
        &db,
        "Spassky, Boris V",
        "Spassky, Boris",
    ]);
    assert_eq!(
        json(&["names", "list", "--json", "--db", &db, "--limit", "1000"]),
        before
    );

    // Deleting and editing games keeps the players' counts right.
    let bobby = json(&[
        "games",
        "--json",
        "--db",
        &db,
        "--player",
        "Bobby Fischer",
        "--sort",
        "id",
    ]);
    let ids: Vec<String> = bobby["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    json(&["delete", "--json", "--db", &db, "--game", &ids[0]]);
    assert_eq!(entry(&entries(&db, "fischer"), "Bobby Fischer")["games"], 1);
    // The other Bobby Fischer game (he had Black) becomes Robert Fischer's…
    json(&[
        "edit",
        "--json",
        "--db",
        &db,
        "--game",
        &ids[1],
        "--set",
        "Black=Robert Fischer",
    ]);
    let list = entries(&db, "fischer");
    assert_eq!(entry(&list, "Fischer, Robert James")["games"], 8);
    assert!(
        list.iter().all(|e| e["name"] != "Bobby Fischer"),
        "no game names him now"
    );
    // … then is spelt in a way no game spelt before: it finds its player all the same.
    json(&[
        "edit",
        "--json",
        "--db",
        &db,
        "--game",
        &ids[1],
        "--set",
        "Black=Fischer, Robert",
    ]);
    let list = entries(&db, "fischer");
    let robert = entry(&list, "Fischer, Robert James");
    assert_eq!(robert["games"], 8);
    assert!(spellings(robert).contains(&"Fischer, Robert"), "{robert}");
    assert_eq!(games_of(&db, "Fischer, Robert"), 8);

    // Annotators are grouped as players are, and written under their name on request.
    let annotators = json(&[
        "names",
        "list",
        "--json",
        "--db",
        &db,
        "--kind",
        "annotator",
    ]);
    let kasparov = entry(annotators["entries"].as_array().unwrap(), "Kasparov, Garry");
    assert_eq!(spellings(kasparov), ["Kasparov, G.", "Kasparov, Garry"]);
    let r = json(&[
        "names",
        "rename",
        "--json",
        "--kind",
        "annotator",
        "--db",
        &db,
        "Kasparov, G.",
        "Garry Kasparov",
    ]);
    assert_eq!(r["games"], 2, "{r}");
    let out = common::run_ok(&["export", "--db", &db, "--canonical-names"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("[Annotator \"Garry Kasparov\"]").count(), 2);
    let out = common::run_ok(&["export", "--db", &db]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("[Annotator \"Kasparov, G.\"]"));

    // Names that are nobody's are refused with a reason.
    let out = run_raw(&[
        "names",
        "alias",
        "--db",
        &db,
        "Nobody, At All",
        "--to",
        "Fischer, R.",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no player named"));
}

#[test]
fn scids_spelling_file_wins_and_keeps_to_lives() {
    let dir = tempfile::tempdir().unwrap();
    let db = fixture(dir.path());
    let ssp = shared("names/spelling.ssp.zst");
    let r = json(&[
        "names",
        "load-spelling",
        "--json",
        "--db",
        &db,
        ssp.to_str().unwrap(),
    ]);
    assert_eq!(
        r["names"]["players"], 380415,
        "the file's header: 380415 players"
    );
    // The file's lines (213747–213752):
    //   Fischer, Robert J #gm  USA [2785] 1943.03.09--2008.01.17
    //      = Fischer, Robert James
    //      = Fischer, R J
    // with `@PLAYER "., -_*"` (those characters ignored) and Robert1, Robert2, Raphael,
    // Reinhard… beside him. So `Fischer, Robert J.` is his; `Fischer, Robert James` is his
    // too but for the 1930 game, before his birth, which keeps its name as written;
    // `Fischer, R.` and `Robert Fischer` (`Fischer, Robert`) begin several players' names:
    // ambiguous, left alone.
    let list = entries(&db, "fischer");
    let robert = entry(&list, "Fischer, Robert J");
    assert_eq!(robert["source"], "spelling");
    assert_eq!(robert["games"], 3);
    assert_eq!(robert["info"]["birth"], "1943.03.09");
    assert_eq!(robert["info"]["death"], "2008.01.17");
    assert_eq!(robert["info"]["titles"], serde_json::json!(["GM"]));
    assert_eq!(entry(&list, "Fischer, Robert James")["games"], 1);
    assert_eq!(entry(&list, "Fischer, R.")["games"], 1);
    assert_eq!(entry(&list, "Robert Fischer")["games"], 2);
    assert_eq!(
        entry(&list, "Bobby Fischer")["games"],
        2,
        "still another player"
    );
    let ambiguous = json(&["names", "ambiguous", "--json", "--db", &db]);
    let left: Vec<&str> = ambiguous
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert!(
        left.contains(&"Fischer, R.") && left.contains(&"Robert Fischer"),
        "{left:?}"
    );
    assert_eq!(games_of(&db, "Fischer, Robert J"), 3);
    // The spelling itself means both: his games, and the 1930 one written so.
    assert_eq!(games_of(&db, "Fischer, Robert James"), 4);
    // The user settles an ambiguous one.
    let r = json(&[
        "names",
        "alias",
        "--json",
        "--db",
        &db,
        "Robert Fischer",
        "--to",
        "Fischer, Robert J",
    ]);
    assert_eq!(r["games"], 2, "{r}");
    assert_eq!(games_of(&db, "Fischer, Robert J"), 5);
    // "Judit Polgar" → "Polgar, Judit"; "Polgar, Zsuzsa" → "Polgar, Susan" (the file's).
    let polgars = entries(&db, "polgar");
    assert_eq!(
        spellings(entry(&polgars, "Polgar, Judit")),
        ["Judit Polgar"]
    );
    assert_eq!(
        spellings(entry(&polgars, "Polgar, Susan")),
        ["Polgar, Zsuzsa"]
    );
    assert_eq!(games_of(&db, "Polgar, Susan"), 1);
    // A card says what the file knows.
    let card = json(&["names", "show", "--json", "--db", &db, "Judit Polgar"]);
    assert_eq!(card["name"], "Polgar, Judit");
    assert_eq!(card["info"]["country"], "HUN");
    // Exported as written, or under the names they mean.
    let out = common::run_ok(&["export", "--db", &db]);
    let written = String::from_utf8_lossy(&out.stdout).to_string();
    for tag in [
        "[White \"Judit Polgar\"]",
        "[White \"Fischer, Robert J.\"]",
        "[White \"Polgar, Zsuzsa\"]",
    ] {
        assert!(written.contains(tag), "{tag}");
    }
    let out = common::run_ok(&["export", "--db", &db, "--canonical-names"]);
    let canonical = String::from_utf8_lossy(&out.stdout).to_string();
    for tag in [
        "[White \"Polgar, Judit\"]",
        "[White \"Fischer, Robert J\"]",
        "[White \"Polgar, Susan\"]",
    ] {
        assert!(canonical.contains(tag), "{tag}");
    }
    assert!(!canonical.contains("Judit Polgar") && !canonical.contains("Fischer, Robert J."));
    // The 1930 game, before his birth, keeps its name.
    let g1930 = canonical
        .split("\n\n[")
        .find(|g| g.contains("1930.01.01"))
        .unwrap();
    assert!(
        g1930.contains("[White \"Fischer, Robert James\"]"),
        "{g1930}"
    );
    // A file that is no spelling file is refused, naming it; the database is unchanged.
    let bad = dir.path().join("names.pgn");
    let out = run_raw(&["names", "load-spelling", "--db", &db, bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("names.pgn") && err.contains("not a Scid spelling file"),
        "{err}"
    );
    assert_eq!(games_of(&db, "Fischer, Robert J"), 5);
}

/// Ratings a game lacks, from a spelling file's `%Elo` history (a small file written here:
/// the shared one has no `%Elo` line). Scid's rule (docs/formats/ssp.md): with 4 ratings in
/// a year, month m (0–11) takes the rating m × 4 / 12; an unknown month is January.
#[test]
fn missing_ratings_are_filled_from_elo_histories() {
    let dir = tempfile::tempdir().unwrap();
    let ssp = dir.path().join("small.ssp");
    std::fs::write(
        &ssp,
        "@PLAYER \"., -_*\"\nSmith, John #GM USA [2600] 1950.01.01\n   %Elo 2001:2400,2410,2420,2430\n   = Smith, J\nBrown, Bob #IM ENG [2450] 1960\n   %Elo 2001:2300\n",
    )
    .unwrap();
    let mut pgn = String::new();
    let mut add = |w: &str, b: &str, date: &str, extra: &str| {
        pgn.push_str(&format!(
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"{date}\"]\n[Round \"1\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"1-0\"]\n{extra}\n1. e4 e5 1-0\n\n"
        ));
    };
    add("Smith, John", "Brown, Bob", "2001.05.01", "");
    add(
        "Smith, J.",
        "Brown, Bob",
        "2001.??.??",
        "[BlackElo \"2299\"]\n",
    );
    add("Smith, John", "Other, Guy", "1999.01.01", "");
    let file = dir.path().join("g.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.path().join("db").display().to_string();
    json(&["import", "--json", "--db", &db, file.to_str().unwrap()]);
    let out = run_raw(&["names", "fill-elo", "--db", &db]);
    assert!(!out.status.success(), "no spelling file yet");
    assert!(String::from_utf8_lossy(&out.stderr).contains("load-spelling"));
    json(&[
        "names",
        "load-spelling",
        "--json",
        "--db",
        &db,
        ssp.to_str().unwrap(),
    ]);
    let r = json(&["names", "fill-elo", "--json", "--db", &db]);
    // Game 1: May (m = 4 → 4 × 4 / 12 = 1: the 2nd list) 2410, Brown 2300; game 2:
    // January 2400 (its BlackElo kept); game 3: no list in 1999.
    assert_eq!(r["games"], 2, "{r}");
    assert_eq!(r["ratings"], 3, "{r}");
    let g = |id: &str| {
        let out = common::run_ok(&["export", "--db", &db, "--game", id]);
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(g("1").contains("[WhiteElo \"2410\"]") && g("1").contains("[BlackElo \"2300\"]"));
    assert!(g("2").contains("[WhiteElo \"2400\"]") && g("2").contains("[BlackElo \"2299\"]"));
    assert!(!g("3").contains("Elo"));
    // The statistics follow: both rated games, (2410 + 2300 + 2400 + 2299) / 4 = 2352.25.
    let e = json(&["explore", "--json", "--db", &db]);
    assert_eq!(e["averageRating"], 2352);
    // Run again: nothing left to fill.
    assert_eq!(
        json(&["names", "fill-elo", "--json", "--db", &db])["games"],
        0
    );
}
