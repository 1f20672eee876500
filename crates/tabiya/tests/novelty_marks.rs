//! Novelties where they are shown: `annotate --novelties --no-engine` (the PGN it writes has
//! `$146` at the ply python-chess finds, read back by python-chess; its JSON has each game's
//! report), `games --json --novelties`, and `GET`/`POST /api/novelty` — every count against
//! `oracle/novelty_oracle.py` over the same PGN (TWIC 920), and bad requests answered with
//! their reason.

mod common;

use common::server::{Server, get, send};
use common::{json as run_json, run_ok, run_raw, shared};
use serde_json::Value;

fn oracle(args: &[&str]) -> Value {
    common::oracle_json("novelty_oracle.py", args)
}

/// The earlier games per ply of a report.
fn plies(report: &Value) -> Vec<u64> {
    report["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["earlier"].as_u64().unwrap())
        .collect()
}

fn want_plies(want: &Value) -> Vec<u64> {
    want["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// A report checked against the oracle's counts: every ply, the novelty, the last known.
fn check(got: &Value, want: &Value, what: &str) {
    let want_plies = want_plies(want);
    assert_eq!(got["start_earlier"], want["start"], "{what}: start");
    assert_eq!(plies(got), want_plies, "{what}: plies");
    let first_new = want_plies.iter().position(|&n| n == 0);
    assert_eq!(
        got["novelty"]["ply"].as_u64(),
        first_new.map(|i| i as u64 + 1),
        "{what}: novelty"
    );
    match first_new {
        Some(i) if i > 0 => {
            assert_eq!(got["last_known"]["ply"].as_u64(), Some(i as u64), "{what}");
            assert_eq!(got["last_known"]["earlier"], want_plies[i - 1], "{what}");
        }
        _ => assert!(got["last_known"].is_null(), "{what}"),
    }
}

/// TWIC 920 imported (every game stored: ids are the games' places in the file), its text
/// and where each game starts.
struct Twic {
    dir: tempfile::TempDir,
    db: String,
    pgn: String,
    text: String,
    starts: Vec<usize>,
}

impl Twic {
    fn import() -> Twic {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db").display().to_string();
        let pgn = shared("pgn/twic/twic0920.pgn").display().to_string();
        run_ok(&["import", "--db", &db, &pgn]);
        let text = std::fs::read_to_string(&pgn).unwrap();
        let mut starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
        let stats = run_json(&["stats", "--db", &db, "--json"]);
        assert_eq!(stats["games"].as_u64(), Some(starts.len() as u64));
        starts.push(text.len());
        Twic {
            dir,
            db,
            pgn,
            text,
            starts,
        }
    }

    /// The oracle's counts for stored games `ids`, each judged against the others.
    fn oracle_of(&self, ids: &[u32]) -> Vec<Value> {
        let games: String = ids
            .iter()
            .map(|&id| &self.text[self.starts[id as usize - 1]..self.starts[id as usize]])
            .collect();
        let file = self.dir.path().join(format!("games-{}.pgn", ids[0]));
        std::fs::write(&file, games).unwrap();
        let places: Vec<String> = ids.iter().map(u32::to_string).collect();
        let want = oracle(&[
            &self.pgn,
            file.to_str().unwrap(),
            "--places",
            &places.join(","),
        ]);
        want.as_array().unwrap().clone()
    }
}

#[test]
fn annotate_and_games_mark_the_novelties_python_chess_finds() {
    let t = Twic::import();
    let db = t.db.as_str();
    let line = "e2e4,c7c5,g1f3,d7d6";
    let out = t.dir.path().join("novelties.pgn");
    let r = run_json(&[
        "annotate",
        "--db",
        db,
        "--play",
        line,
        "--novelties",
        "--no-engine",
        "--json",
        "--pgn",
        out.to_str().unwrap(),
    ]);
    // No engine ran: its fields are absent.
    assert!(
        r.get("engine").is_none() && r.get("evaluated").is_none(),
        "{r}"
    );
    let reports = r["reports"].as_array().unwrap();
    assert_eq!(r["games"].as_u64(), Some(reports.len() as u64));
    assert!(
        reports.len() > 100,
        "{} games after 1. e4 c5 2. Nf3 d6",
        reports.len()
    );
    assert_eq!(
        r["novelties"]["judged"].as_u64(),
        Some(reports.len() as u64)
    );
    let ids: Vec<u32> = reports
        .iter()
        .map(|g| g["id"].as_str().unwrap().parse().unwrap())
        .collect();
    let want = t.oracle_of(&ids);
    let mut found = 0;
    for (g, w) in reports.iter().zip(&want) {
        assert!(g.get("judged").is_none(), "no engine judgement: {g}");
        check(&g["novelty"], w, &format!("game {}", g["id"]));
        found += g["novelty"]["novelty"].is_object() as u32;
    }
    assert!(found > 50, "{found} novelties");
    assert_eq!(r["novelties"]["withNovelty"], found);

    // The PGN, read back by python-chess: $146 on the novelty's ply and nowhere else, with
    // the comment naming the last known move and its earlier games.
    let marks = oracle(&["--nags", out.to_str().unwrap()]);
    let marks = marks.as_array().unwrap();
    assert_eq!(marks.len(), ids.len());
    for ((m, w), g) in marks.iter().zip(&want).zip(reports) {
        let want_plies = want_plies(w);
        let first_new = want_plies.iter().position(|&n| n == 0);
        let at: Vec<u64> = m["plies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        assert_eq!(
            at,
            first_new
                .map(|i| i as u64 + 1)
                .into_iter()
                .collect::<Vec<_>>(),
            "game {}: $146",
            g["id"]
        );
        if let Some(i) = first_new {
            let comment = m["comments"][0].as_str().unwrap();
            assert!(comment.starts_with("Novelty: no earlier game"), "{comment}");
            if i > 0 {
                let n = want_plies[i - 1];
                let known = g["novelty"]["last_known"]["text"].as_str().unwrap();
                let s = if n == 1 { "" } else { "s" };
                assert!(
                    comment.ends_with(&format!("last known {known} ({n} earlier game{s})")),
                    "{comment}"
                );
            }
        }
    }

    // The text report names each game's novelty.
    let text = String::from_utf8(
        run_ok(&[
            "annotate",
            "--db",
            db,
            "--play",
            line,
            "--novelties",
            "--no-engine",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        text.contains("games judged against the earlier games"),
        "{text}"
    );
    assert!(text.contains(" novelty "), "{text}");

    // games --json --novelties: each listed game with the same report.
    let page = run_json(&[
        "games",
        "--db",
        db,
        "--play",
        line,
        "--sort",
        "date",
        "--limit",
        "12",
        "--novelties",
        "--json",
    ]);
    let listed = page["games"].as_array().unwrap();
    assert_eq!(listed.len(), 12);
    assert_eq!(page["total"].as_u64(), Some(ids.len() as u64));
    for g in listed {
        let id: u32 = g["id"].as_str().unwrap().parse().unwrap();
        let i = ids.iter().position(|&x| x == id).unwrap();
        check(&g["novelty"], &want[i], &format!("listed game {id}"));
        assert!(g["white"]["name"].is_string(), "the row is all there: {g}");
    }
    let table =
        String::from_utf8(run_ok(&["games", "--db", db, "--play", line, "--novelties"]).stdout)
            .unwrap();
    assert!(table.contains("  novelty "), "{table}");

    // Bad requests: with their reasons, never a panic.
    let cases: [(&[&str], &str); 3] = [
        (
            &["annotate", "--db", db, "--all", "--no-engine"],
            "--no-engine leaves nothing to do",
        ),
        (
            &[
                "annotate",
                "--db",
                db,
                "--all",
                "--no-engine",
                "--novelties",
                "--depth",
                "5",
            ],
            "cannot be used with",
        ),
        (
            &[
                "annotate",
                "--db",
                db,
                "--game",
                "999999",
                "--novelties",
                "--no-engine",
            ],
            "no game 999999",
        ),
    ];
    for (args, wanted) in cases {
        let out = run_raw(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let othello = t.dir.path().join("o").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    for args in [
        &[
            "annotate",
            "--db",
            &othello,
            "--all",
            "--novelties",
            "--no-engine",
        ][..],
        &["games", "--db", &othello, "--novelties"][..],
    ] {
        let out = run_raw(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Othello"), "{args:?}: {err}");
    }
}

#[test]
fn the_novelty_api_answers_as_python_chess_counts() {
    let t = Twic::import();
    let othello = t.dir.path().join("o").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &othello,
        &shared("wthor/WTH_1981.wtb").display().to_string(),
    ]);
    let server = Server::start(&[
        "--db",
        &format!("chess={}", t.db),
        "--db",
        &format!("othello={othello}"),
        "--no-engine",
    ]);
    let u = |path: &str| format!("{}{path}", server.url);

    // Stored games.
    let ids = [5u32, 77, 1200];
    let want = t.oracle_of(&ids);
    for (&id, w) in ids.iter().zip(&want) {
        let r = get(&u(&format!("api/novelty?db=chess&id={id}")));
        assert_eq!(r.status, 200, "{}", r.text());
        let got = r.json();
        assert_eq!(got["id"], id);
        check(&got, w, &format!("game {id}"));
    }
    // Bad requests: a 4xx with the reason, never a 500.
    for (path, status, wanted) in [
        ("api/novelty?db=chess&id=999999", 404, "no game 999999"),
        ("api/novelty?db=chess&id=abc", 404, "no game \"abc\""),
        ("api/novelty?db=chess&id=-1", 404, "no game"),
        ("api/novelty?db=chess", 400, "id=N"),
        ("api/novelty?db=othello&id=1", 400, "Othello"),
        ("api/novelty?db=nope&id=1", 404, "no database"),
    ] {
        let r = get(&u(path));
        assert_eq!(r.status, status, "{path}: {}", r.text());
        let e = r.json();
        assert!(e["error"].as_str().unwrap().contains(wanted), "{path}: {e}");
    }

    // Games sent as PGN, not stored: the first three dated a year later (every game of the
    // database is then earlier), the second with no date (every game is).
    let sent = t.text[..t.starts[3]]
        .replace("[Date \"2012.", "[Date \"2013.")
        .replacen("[Date \"2013.", "[Date \"????.", 1);
    let file = t.dir.path().join("sent.pgn");
    std::fs::write(&file, &sent).unwrap();
    let want = oracle(&[&t.pgn, file.to_str().unwrap()]);
    let (status, got) = send("POST", &u("api/novelty?db=chess"), &sent);
    assert_eq!(status, 200, "{got}");
    let got = got.as_array().unwrap();
    assert_eq!(got.len(), 3);
    for (i, (g, w)) in got.iter().zip(want.as_array().unwrap()).enumerate() {
        assert_eq!(g["number"], i + 1);
        check(g, w, &format!("sent game {}", i + 1));
    }
    for (body, wanted) in [
        ("1. e4 e5 2. Kxe8 *", "illegal move"),
        ("", "holds no game"),
    ] {
        let (status, e) = send("POST", &u("api/novelty?db=chess"), body);
        assert_eq!(status, 400, "{body:?}: {e}");
        assert!(e["error"].as_str().unwrap().contains(wanted), "{e}");
    }
}
