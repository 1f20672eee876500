//! `tabiya names search|list` on pgnmentor's Kasparov and Judit Polgar files: names found
//! whatever the case and accents, then with a typo, each marked; lists paged. Expected names
//! read from the files by hand.

mod common;

use common::{json, run_ok, shared};

#[test]
fn names_are_found_with_typos_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/pgnmentor/Kasparov.pgn").display().to_string(),
        &shared("pgn/pgnmentor/PolgarJ.pgn").display().to_string(),
    ]);
    // The files spell Judit Polgar two ways (`Polgar, Judit` and `Polgar,Ju`), and her
    // sisters too: a prefix finds them all, none of them fuzzy.
    let hits = json(&["names", "search", "--db", &db, "polgar", "--json"]);
    let names: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    for n in [
        "Polgar, Judit",
        "Polgar,Ju",
        "Polgar, Sofia",
        "Polgar, Zsuzsa",
    ] {
        assert!(names.contains(&n), "{n}: {names:?}");
    }
    assert!(
        hits.as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("fuzzy").is_none())
    );
    // "kasprov" (an `a` dropped) is no prefix of any name: found with one typo, marked.
    let hits = json(&["names", "search", "--db", &db, "kasprov", "--json"]);
    let kasparov = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "Kasparov,G")
        .unwrap();
    assert_eq!(kasparov["fuzzy"], true);
    // A swap in each of two words, in any order.
    let hits = json(&["names", "search", "--db", &db, "juidt polgr", "--json"]);
    assert_eq!(hits[0]["name"], "Polgar, Judit", "{hits}");
    // Nothing for what is no name at all; a limit is a limit.
    let hits = json(&["names", "search", "--db", &db, "zzzzzzzz", "--json"]);
    assert_eq!(hits.as_array().unwrap().len(), 0);
    let hits = json(&[
        "names", "search", "--db", &db, "a", "--limit", "3", "--json",
    ]);
    assert_eq!(hits.as_array().unwrap().len(), 3);
    // Listed alphabetically (any case, accents), paged.
    let all = json(&["names", "list", "--db", &db, "--limit", "100000", "--json"]);
    let total = all["total"].as_u64().unwrap();
    assert!(total > 1000, "{total}");
    let list: Vec<String> = all["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_lowercase())
        .collect();
    assert_eq!(list.len() as u64, total);
    let page = json(&[
        "names", "list", "--db", &db, "--offset", "10", "--limit", "5", "--json",
    ]);
    assert_eq!(page["names"].as_array().unwrap().len(), 5);
    assert_eq!(page["names"][0], all["names"][10]);
    let events = json(&[
        "names", "search", "--db", &db, "--kind", "event", "linares", "--json",
    ]);
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"].as_str().unwrap().starts_with("Linares")),
        "{events}"
    );
}
