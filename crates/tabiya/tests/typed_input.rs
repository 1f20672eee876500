//! What a user types at the command line, taken as they mean it or refused saying why: moves
//! written as a PGN writes them (`--play "1. e4 c5 2. Nf3"`, as the page's paste box takes
//! them), a word that is no move told from a move not legal here, a misspelt field of
//! `--where` named with the fields nearest it (a tag asked for as `tag NAME`), `--speed` in
//! any case, and a speed filter on games without time controls saying why it finds none.

mod common;

use common::{json, run_ok, run_raw, shared};
use serde_json::json;

const KASPAROV: &str = "pgn/pgnmentor/Kasparov.pgn";

fn fails(args: &[&str]) -> String {
    let o = run_raw(args);
    assert!(!o.status.success(), "{args:?} should fail");
    assert_eq!(o.status.code(), Some(1), "{args:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn moves_as_a_pgn_writes_them_and_fields_by_their_names() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    run_ok(&["import", "--db", d, shared(KASPAROV).to_str().unwrap()]);

    // The same position however the moves are written.
    let plain = json(&["explore", "--db", d, "--play", "e2e4,c7c5,g1f3", "--json"]);
    assert!(plain["white"].as_u64().unwrap() > 0, "{plain}");
    for typed in [
        "1. e4 c5 2. Nf3",
        "1.e4 c5 2.Nf3",
        "e4 c5 Nf3",
        "1. e4 c5!? 2. Nf3 {the Sicilian} *",
        "1. e4 ... c5 2. Nf3 1-0",
    ] {
        let got = json(&["explore", "--db", d, "--play", typed, "--json"]);
        assert_eq!(got, plain, "--play {typed:?}");
    }
    // A word that is no move, and a move not legal here, each said as what it is.
    let err = fails(&["explore", "--db", d, "--play", "1. e4 xx"]);
    assert!(err.contains("move 1... \"xx\": not a move"), "{err}");
    let err = fails(&["explore", "--db", d, "--play", "1. e4 e5 2. Ke3"]);
    assert!(
        err.contains("move 2. \"Ke3\": not legal here (White to move)"),
        "{err}"
    );

    // A misspelt field is an error naming the nearest; the tag itself is asked as `tag`.
    let err = fails(&["explore", "--db", d, "--where", "reslt = '1-0'"]);
    assert!(
        err.contains("unknown field reslt; did you mean result?"),
        "{err}"
    );
    let err = fails(&["games", "--db", d, "--where", "evnt ~ 'Linares'"]);
    assert!(err.contains("did you mean event?"), "{err}");
    let by_field = json(&["explore", "--db", d, "--where", "result = '1-0'", "--json"]);
    let by_tag = json(&[
        "explore",
        "--db",
        d,
        "--where",
        "tag Result = '1-0'",
        "--json",
    ]);
    assert_eq!(by_tag["white"], by_field["white"]);
    assert!(by_tag["white"].as_u64().unwrap() > 0);
    assert_eq!(by_tag["black"], json!(0));
    assert_eq!(by_tag["draws"], json!(0));

    // Kasparov's games have no TimeControl tag: a speed filter (any case) keeps none of them
    // and says how many it left out — every game of the position, or of those rated 2700+.
    let text = String::from_utf8_lossy(&std::fs::read(shared(KASPAROV)).unwrap()).into_owned();
    assert!(
        !text.contains("[TimeControl "),
        "the file has no time controls"
    );
    let all = &plain;
    let n = |a: &serde_json::Value| {
        ["white", "draws", "black", "unknown"]
            .iter()
            .map(|k| a[k].as_u64().unwrap())
            .sum::<u64>()
    };
    for speed in ["classical", "Classical", "BLITZ"] {
        let a = json(&[
            "explore",
            "--db",
            d,
            "--play",
            "e4 c5 Nf3",
            "--speed",
            speed,
            "--json",
        ]);
        assert_eq!(n(&a), 0, "{speed}");
        assert_eq!(a["withoutSpeed"].as_u64(), Some(n(all)), "{speed}");
    }
    let rated = json(&[
        "explore",
        "--db",
        d,
        "--play",
        "e4 c5 Nf3",
        "--rating-min",
        "2700",
        "--json",
    ]);
    let both = json(&[
        "explore",
        "--db",
        d,
        "--play",
        "e4 c5 Nf3",
        "--rating-min",
        "2700",
        "--speed",
        "rapid",
        "--json",
    ]);
    assert!(n(&rated) < n(all) && n(&rated) > 0);
    assert_eq!(both["withoutSpeed"].as_u64(), Some(n(&rated)));
    assert!(
        all.get("withoutSpeed").is_none(),
        "said only with a speed filter"
    );
    let o = run_ok(&[
        "explore",
        "--db",
        d,
        "--play",
        "e4 c5 Nf3",
        "--speed",
        "blitz",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(
            "note: {} games of the position have no time control",
            n(all)
        )),
        "{out}"
    );
}
