//! Player-name parsing, compatibility and clustering, on the product owner's examples.

use tabiya_names::{PersonName, cluster, compatible, parse};

fn p(surname: &str, given: &[&str]) -> PersonName {
    PersonName {
        surname: surname.into(),
        given: given.iter().map(|g| g.to_string()).collect(),
    }
}

fn parsed(name: &str) -> PersonName {
    parse(name).unwrap_or_else(|| panic!("{name:?} should parse"))
}

#[test]
fn comma_means_surname_first() {
    assert_eq!(parsed("Polgar,Ju"), p("polgar", &["ju"]));
    assert_eq!(parsed("Polgar, Judit"), p("polgar", &["judit"]));
    assert_eq!(parsed("Polgar,J"), p("polgar", &["j"]));
    assert_eq!(parsed("Kasparov,G"), p("kasparov", &["g"]));
    assert_eq!(parsed("Kasparov, Garry"), p("kasparov", &["garry"]));
    assert_eq!(parsed("Carlsen, Magnus"), p("carlsen", &["magnus"]));
    assert_eq!(parsed("Anand,V"), p("anand", &["v"]));
    assert_eq!(parsed("van Wely, Loek"), p("van wely", &["loek"]));
    assert_eq!(parsed("Nakamura, Hi"), p("nakamura", &["hi"]));
    assert_eq!(
        parsed("Fischer, Robert James"),
        p("fischer", &["robert", "james"])
    );
    assert_eq!(parsed("Fischer,R"), p("fischer", &["r"]));
    assert_eq!(parsed("Fischer, R."), p("fischer", &["r"]));
    assert_eq!(parsed("Fischer, Robert J."), p("fischer", &["robert", "j"]));
    assert_eq!(parsed("Fischer, R.J."), p("fischer", &["r", "j"]));
    assert_eq!(parsed("Fischer, RJ"), p("fischer", &["r", "j"]));
    assert_eq!(parsed("Ding, Liren"), p("ding", &["liren"]));
}

#[test]
fn without_comma() {
    assert_eq!(parsed("Robert Fischer"), p("fischer", &["robert"]));
    assert_eq!(parsed("Bobby Fischer"), p("fischer", &["bobby"]));
    assert_eq!(parsed("Loek van Wely"), p("van wely", &["loek"]));
    assert_eq!(parsed("Fischer R"), p("fischer", &["r"]));
    assert_eq!(parsed("Fischer R."), p("fischer", &["r"]));
    assert_eq!(parsed("Speelman JS"), p("speelman", &["j", "s"]));
    assert_eq!(parsed("Speelman J S"), p("speelman", &["j", "s"]));
    assert_eq!(parsed("J. S. Speelman"), p("speelman", &["j", "s"]));
    assert_eq!(parsed("Kasparov"), p("kasparov", &[]));
    // No magic for Chinese order: the last word is the surname, as for every other name.
    assert_eq!(parsed("Ding Liren"), p("liren", &["ding"]));
    // Digits: an engine, kept whole as a surname.
    assert_eq!(parsed("Stockfish 16"), p("stockfish 16", &[]));
    // Accents and case.
    assert_eq!(parsed("Judit POLGÁR"), p("polgar", &["judit"]));
    assert_eq!(parsed("Hübner, Robert"), p("hubner", &["robert"]));
    // Bracketed text.
    assert_eq!(parsed("Polgar, Judit (GM)"), p("polgar", &["judit"]));
    // All capitals: only single letters are initials.
    assert_eq!(parsed("KASPAROV G"), p("kasparov", &["g"]));
    assert_eq!(parsed("WANG YU"), p("yu", &["wang"]));
}

#[test]
fn not_persons() {
    for name in ["", "  ", "?", "-", "NN", "N.N.", "N N", "nn", "(GM)"] {
        assert_eq!(parse(name), None, "{name:?}");
    }
}

#[test]
fn compatibility() {
    let c = |a: &str, b: &str| compatible(&parsed(a), &parsed(b));
    assert!(c("Robert Fischer", "Fischer, R."));
    assert!(c("Robert Fischer", "Fischer, Robert J."));
    assert!(c("Fischer, R.", "Fischer, Robert J."));
    assert!(c("Fischer R", "Fischer, Robert James"));
    assert!(c("Nakamura, Hi", "Nakamura, Hikaru"));
    assert!(c("Polgar,Ju", "Polgar, Judit"));
    assert!(c("Polgar,J", "Polgar,Ju"));
    assert!(c("van Wely, Loek", "Loek van Wely"));
    assert!(c("Kasparov", "Kasparov, Garry"));
    assert!(!c("Bobby Fischer", "Robert Fischer"));
    assert!(!c("Bobby Fischer", "Fischer, R."));
    assert!(!c("Polgar, Judit", "Polgar, Sofia"));
    assert!(!c("Fischer, Robert J", "Fischer, Robert K"));
    assert!(!c("Ding Liren", "Ding, Liren"));
}

/// The cluster of the name at `i`, as the list of its members' names.
fn members<'a>(names: &[(&'a str, u64)], c: &tabiya_names::Clustering, i: usize) -> Vec<&'a str> {
    let k = c.cluster_of[i].expect("a person");
    c.clusters[k].members.iter().map(|&m| names[m].0).collect()
}

#[test]
fn fischer_cluster_and_bobby_apart() {
    let names = [
        ("Robert Fischer", 3),
        ("Fischer, R.", 10),
        ("Fischer, Robert J.", 40),
        ("Bobby Fischer", 7),
        ("Fischer,R", 2),
        ("Fischer R", 1),
        ("Fischer, Robert James", 5),
    ];
    let c = cluster(&names);
    assert_eq!(
        members(&names, &c, 0),
        [
            "Robert Fischer",
            "Fischer, R.",
            "Fischer, Robert J.",
            "Fischer,R",
            "Fischer R",
            "Fischer, Robert James"
        ]
    );
    assert_eq!(members(&names, &c, 3), ["Bobby Fischer"]);
    assert_eq!(c.clusters.len(), 2);
    assert!(c.ambiguous.is_empty());
    let k = c.cluster_of[0].unwrap();
    // The fullest form ("Robert James") wins over the most played one ("Robert J.").
    assert_eq!(c.clusters[k].canonical, "Fischer, Robert James");
    assert_eq!(c.clusters[k].games, 61);
    assert_eq!(
        c.clusters[c.cluster_of[3].unwrap()].canonical,
        "Fischer, Bobby"
    );
}

#[test]
fn canonical_is_the_most_played_spelling_of_the_fullest_form() {
    let names = [
        ("Polgar,Ju", 50),
        ("Polgar, Judit", 30),
        ("Judit Polgár", 90),
        ("Polgar,J", 10),
        ("POLGAR, Judit", 1),
    ];
    let c = cluster(&names);
    assert_eq!(c.clusters.len(), 1);
    assert_eq!(c.clusters[0].canonical, "Polgár, Judit");
    assert_eq!(c.clusters[0].members, [0, 1, 2, 3, 4]);
    assert_eq!(c.clusters[0].games, 181);
}

#[test]
fn real_pgn_spellings() {
    let names = [
        ("Kasparov,G", 1),
        ("Kasparov, Garry", 1),
        ("Carlsen, Magnus", 1),
        ("Anand,V", 1),
        ("van Wely, Loek", 1),
        ("Loek van Wely", 1),
        ("Nakamura, Hi", 1),
        ("Nakamura, Hikaru", 1),
        ("Ding Liren", 1),
        ("Ding, Liren", 1),
        ("?", 1),
        ("NN", 1),
        ("Stockfish 16", 1),
        ("", 1),
    ];
    let c = cluster(&names);
    assert_eq!(c.not_persons, [10, 11, 13]);
    assert_eq!(c.cluster_of[0], c.cluster_of[1]);
    assert_eq!(c.cluster_of[4], c.cluster_of[5]);
    assert_eq!(c.cluster_of[6], c.cluster_of[7]);
    assert_ne!(c.cluster_of[8], c.cluster_of[9]);
    let canon: Vec<&str> = c.clusters.iter().map(|c| c.canonical.as_str()).collect();
    assert_eq!(
        canon,
        [
            "Anand, V",
            "Carlsen, Magnus",
            "Ding, Liren",
            "Kasparov, Garry",
            "Liren, Ding",
            "Nakamura, Hikaru",
            "Stockfish 16",
            "van Wely, Loek"
        ]
    );
}

#[test]
fn ambiguous_initial_stays_alone() {
    let names = [
        ("Fischer, Robert", 5),
        ("Fischer, Rudolf", 5),
        ("Fischer, R", 9),
        ("Fischer,R.", 1),
        ("Fischer", 2),
    ];
    let c = cluster(&names);
    assert_eq!(members(&names, &c, 0), ["Fischer, Robert"]);
    assert_eq!(members(&names, &c, 1), ["Fischer, Rudolf"]);
    // "Fischer, R" and "Fischer,R." parse the same: one (ambiguous) cluster.
    assert_eq!(members(&names, &c, 2), ["Fischer, R", "Fischer,R."]);
    let robert = c.cluster_of[0].unwrap();
    let rudolf = c.cluster_of[1].unwrap();
    let mut both = vec![robert, rudolf];
    both.sort();
    let amb: Vec<(usize, Vec<usize>)> = c
        .ambiguous
        .iter()
        .map(|a| (a.name, a.candidates.clone()))
        .collect();
    // The bare surname fits the same two persons.
    assert_eq!(amb, [(2, both.clone()), (3, both.clone()), (4, both)]);
    assert_eq!(c.ambiguous[0].cluster, c.cluster_of[2].unwrap());
}

#[test]
fn compatible_partial_forms_merge() {
    // Neither is fuller than the other, but they agree: one person.
    let names = [
        ("Fischer, Robert J", 1),
        ("Fischer, R James", 1),
        ("Fischer, R", 1),
    ];
    let c = cluster(&names);
    assert_eq!(c.clusters.len(), 1);
    assert!(c.ambiguous.is_empty());
}

#[test]
fn deterministic() {
    let names = [
        ("Fischer, Robert", 5),
        ("Bobby Fischer", 1),
        ("Fischer, R", 9),
        ("Tal, M", 1),
        ("Mikhail Tal", 3),
    ];
    let a = cluster(&names);
    for _ in 0..5 {
        assert_eq!(cluster(&names), a);
    }
    let mut rev = names;
    rev.reverse();
    let b = cluster(&rev);
    let ca: Vec<&String> = a.clusters.iter().map(|c| &c.canonical).collect();
    let cb: Vec<&String> = b.clusters.iter().map(|c| &c.canonical).collect();
    assert_eq!(ca, cb);
}
