//! The Lichess explorer's API, whole (issue 33), against a real `tabiya serve`: month-by-month
//! `history` (`/lichess`, `/player`, `/lichess/history`), `modes` and each game's `mode` and
//! `speed`, `since`/`until` read and refused as lila-openingexplorer reads them, each move's
//! `reached` with filters, and Chess960 start positions. The answers are asked through
//! `berserk`, the published Lichess client, where it has the call, and compared with counts
//! of python-chess (`oracle/lichess_explorer_oracle.py`), never with Tabiya's own output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::server::{Server, get};
use common::{oracle_json, run_ok, shared};
use serde_json::{Value, json};

/// Runs the berserk calls `calls` against `server`; their answers.
fn berserk(server: &Server, calls: &Value) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/berserk_explorer.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.url)
        .arg(calls.to_string())
        .output()
        .expect("python3 with berserk (the test command installs it)");
    assert!(
        out.status.success(),
        "{}{}\nserver: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        server.stderr()
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `{white, draws, black}` of an answer (or a move, or a month).
fn wdb(v: &Value) -> [u64; 3] {
    [
        v["white"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["black"].as_u64().unwrap(),
    ]
}

/// Each move of an answer: its results, and its `reached` with the games without a result.
fn moves_of(answer: &Value) -> Vec<(String, [u64; 3], [u64; 4])> {
    let mut out: Vec<_> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let r = &m["reached"];
            assert!(r.is_object(), "a move without reached: {m}");
            let [w, d, b] = wdb(r);
            (
                m["uci"].as_str().unwrap().to_string(),
                wdb(m),
                [w, d, b, r["unknown"].as_u64().unwrap()],
            )
        })
        .collect();
    out.sort();
    out
}

/// The oracle's moves in the same form (a move's results without its unknown games).
fn oracle_moves(o: &Value) -> Vec<(String, [u64; 3], [u64; 4])> {
    let mut out: Vec<_> = o["moves"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(uci, m)| {
            let [w, d, b] = wdb(&m["reached"]);
            (
                uci.clone(),
                wdb(&m["played"]),
                [w, d, b, m["reached"]["unknown"].as_u64().unwrap()],
            )
        })
        .collect();
    out.sort();
    out
}

/// The history the documentation promises from the oracle's months: from `since` (else the
/// first month with games) to the last month with games, every month between, zeros where
/// no game was played.
fn expected_history(o: &Value, since: Option<u32>) -> Vec<(String, [u64; 3])> {
    let months = o["history"].as_object().unwrap();
    let mut have: Vec<(u32, [u64; 3])> = months
        .iter()
        .map(|(m, r)| (m.parse().unwrap(), wdb(r)))
        .collect();
    have.sort();
    let Some(&(first, _)) = have.first() else {
        return Vec::new();
    };
    let last = have.last().unwrap().0;
    let mut at = since.map_or(first, |s| s.min(first));
    let mut out = Vec::new();
    while at <= last {
        let r = have
            .iter()
            .find(|(m, _)| *m == at)
            .map_or([0, 0, 0], |x| x.1);
        out.push((format!("{:04}-{:02}", at / 100, at % 100), r));
        at = if at % 100 == 12 {
            (at / 100 + 1) * 100 + 1
        } else {
            at + 1
        };
    }
    out
}

fn history_of(answer: &Value) -> Vec<(String, [u64; 3])> {
    answer["history"]
        .as_array()
        .unwrap_or_else(|| panic!("no history: {answer}"))
        .iter()
        .map(|h| (h["month"].as_str().unwrap().to_string(), wdb(h)))
        .collect()
}

/// The total of the oracle's answer as `[white, draws, black]`.
fn total(o: &Value) -> [u64; 3] {
    wdb(&o["total"])
}

/// Carlsen's games (pgnmentor) as a Lichess export would tag them: game i's Event is
/// "Rated Blitz game" (i % 3 = 0, time control 180+2), "Casual Rapid game" (i % 3 = 1,
/// 600+5) or left as it was (no time control); "Carlsen,Magnus" spelt "Carlsen,M" as in most
/// of the file, so that a player is one spelling for the oracle too.
fn lichess_like(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(shared("pgn/pgnmentor/Carlsen.pgn")).unwrap();
    let mut out = String::new();
    let mut i = 0;
    for line in text.lines() {
        if line.starts_with("[Event ") {
            match i % 3 {
                0 => out.push_str("[Event \"Rated Blitz game\"]\n[TimeControl \"180+2\"]\n"),
                1 => out.push_str("[Event \"Casual Rapid game\"]\n[TimeControl \"600+5\"]\n"),
                _ => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            i += 1;
            continue;
        }
        out.push_str(&line.replace("\"Carlsen,Magnus\"", "\"Carlsen,M\""));
        out.push('\n');
    }
    let path = dir.join("lichess-like.pgn");
    std::fs::write(&path, out).unwrap();
    path
}

/// A game's Event and TimeControl, from its PGN as the server exports it.
fn tags_of(server: &Server, id: &str) -> (String, String) {
    let pgn = get(&format!("{}masters/pgn/{id}", server.url)).text();
    let tag = |name: &str| {
        pgn.lines()
            .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
            .and_then(|v| v.strip_suffix("\"]"))
            .unwrap_or("")
            .to_string()
    };
    (tag("Event"), tag("TimeControl"))
}

/// Every game of an answer: recent, top, and each move's.
fn games_of(answer: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for k in ["recentGames", "topGames"] {
        out.extend(answer[k].as_array().into_iter().flatten().cloned());
    }
    for m in answer["moves"].as_array().into_iter().flatten() {
        if m["game"].is_object() {
            out.push(m["game"].clone());
        }
    }
    out
}

#[test]
fn history_modes_and_reached_with_filters_match_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = lichess_like(dir.path());
    let db = dir.path().join("db").display().to_string();
    run_ok(&["import", "--db", &db, &pgn.display().to_string()]);
    let player = "Carlsen,M";
    let q = |since: Option<u32>, until: Option<u32>, mode: Option<&str>, color: Option<&str>| {
        json!({"fen": null, "play": ["e2e4"], "chess960": false, "since": since, "until": until,
               "mode": mode, "player": color.map(|_| player), "color": color})
    };
    let spec = json!({"files": [pgn], "start_fen": null, "queries": [
        q(None, None, None, None),
        q(Some(200801), Some(201306), None, None),
        q(None, None, Some("rated"), Some("white")),
        q(None, None, Some("casual"), Some("white")),
        q(Some(200501), None, None, Some("white")),
    ]});
    let o = oracle_json("lichess_explorer_oracle.py", &[spec.to_string().as_str()]);
    let server = Server::start(&["--db", &db]);
    let answers = berserk(
        &server,
        &json!([
            {"call": "lichess", "args": {"play": ["e2e4"], "history": true, "moves": 50}},
            {"call": "lichess", "args": {"play": ["e2e4"], "history": true, "moves": 50,
                                         "since": "2008-01", "until": "2013-06"}},
            {"call": "player", "args": {"player": player, "color": "white", "play": ["e2e4"],
                                        "history": true, "since": "2005-01", "moves": 50}},
        ]),
    );

    // Without filters and with since/until: totals, moves, each move's reached (with the
    // filters: the same field, counted with them), the months.
    for (i, (a, since)) in [(&answers[0], None), (&answers[1], Some(200801))]
        .into_iter()
        .enumerate()
    {
        assert_eq!(wdb(a), total(&o[i]), "totals of query {i}");
        assert_eq!(moves_of(a), oracle_moves(&o[i]), "moves of query {i}");
        let h = history_of(a);
        assert_eq!(h, expected_history(&o[i], since), "history of query {i}");
        assert!(h.len() > 12, "months enough to mean something: {}", h.len());
    }
    // The player's, with since: the months from since on.
    let p = &answers[2];
    assert_eq!(wdb(p), total(&o[4]), "player totals");
    assert_eq!(moves_of(p), oracle_moves(&o[4]), "player moves");
    assert_eq!(history_of(p), expected_history(&o[4], Some(200501)));
    assert_eq!(history_of(p)[0].0, "2005-01", "from since");

    // /lichess/history: the months alone, as lila answers it (no moves, no games).
    let h = get(&format!(
        "{}lichess/history?play=e2e4&since=2008-01&until=2013-06",
        server.url
    ));
    assert_eq!(h.status, 200, "{}", h.text());
    let h = h.json();
    assert_eq!(history_of(&h), history_of(&answers[1]));
    assert_eq!(h["moves"], json!([]));
    assert_eq!(wdb(&h), total(&o[1]));
    assert!(h["opening"].is_object(), "the opening is named: {h}");

    // modes on /player: rated, casual, both (every game), each as the oracle counts them.
    let player_url = |extra: &str| {
        format!(
            "{}player?player=Carlsen%2CM&color=white&play=e2e4&moves=50&recentGames=8{extra}",
            server.url
        )
    };
    let ndjson = |url: &str| -> Value {
        let r = get(url);
        assert_eq!(r.status, 200, "{url}: {}", r.text());
        serde_json::from_str(r.text().lines().last().unwrap()).unwrap()
    };
    let rated = ndjson(&player_url("&modes=rated"));
    let casual = ndjson(&player_url("&modes=casual"));
    let both = ndjson(&player_url("&modes=rated,casual"));
    let none = ndjson(&player_url(""));
    assert_eq!(wdb(&rated), total(&o[2]), "rated");
    assert_eq!(moves_of(&rated), oracle_moves(&o[2]), "rated moves");
    assert_eq!(wdb(&casual), total(&o[3]), "casual");
    assert_eq!(moves_of(&casual), oracle_moves(&o[3]), "casual moves");
    assert_eq!(wdb(&both), wdb(&none), "both modes: every game");
    let (r, c) = (total(&o[2]), total(&o[3]));
    assert!(r.iter().sum::<u64>() > 0 && c.iter().sum::<u64>() > 0);
    assert!(
        r.iter().sum::<u64>() + c.iter().sum::<u64>() < wdb(&none).iter().sum::<u64>(),
        "games of neither mode are in neither"
    );
    // Each game's mode and speed, as its own tags say (the rule applied here by hand).
    let mut seen = [0; 3];
    for answer in [&rated, &casual, &none, &answers[0]] {
        for g in games_of(answer) {
            let (event, tc) = tags_of(&server, g["id"].as_str().unwrap());
            let (mode, speed) = match (event.as_str(), tc.as_str()) {
                ("Rated Blitz game", "180+2") => (json!("rated"), json!("blitz")),
                ("Casual Rapid game", "600+5") => (json!("casual"), json!("rapid")),
                (_, "") => (Value::Null, Value::Null),
                other => panic!("a tag the fixture never wrote: {other:?}"),
            };
            seen[if mode == "rated" {
                0
            } else if mode == "casual" {
                1
            } else {
                2
            }] += 1;
            assert_eq!(g["mode"], mode, "mode of {g}");
            assert_eq!(g["speed"], speed, "speed of {g}");
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "games of each kind seen: {seen:?}"
    );
    for g in games_of(&rated) {
        assert_eq!(g["mode"], "rated");
    }
    for g in games_of(&casual) {
        assert_eq!(g["mode"], "casual");
    }
}

/// A query value percent-encoded (every byte but letters and digits).
fn form_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn since_until_modes_and_variants_refused_as_lila_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    let server = Server::start(&["--db", &db]);
    let refused = |path: &str, why: &str| {
        let r = get(&format!("{}{path}", server.url));
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert!(r.content_type.starts_with("text/plain"), "{path}");
        assert_eq!(
            r.text(),
            format!("Failed to deserialize query string: {why}"),
            "{path}"
        );
    };
    // /lichess and /player: months, YYYY-MM or YYYY/MM, years 1952 to 3000.
    for bad in [
        "2019",
        "2019-13",
        "2019-00",
        "1951-12",
        "3001-01",
        "2019-05-01",
        "x",
        "2019-",
    ] {
        refused(&format!("lichess?since={bad}"), "invalid month");
        refused(&format!("lichess?until={bad}"), "invalid month");
        refused(
            &format!("player?player=x&color=white&since={bad}"),
            "invalid month",
        );
    }
    // /masters: years (lila's message is spelt so).
    for bad in ["2019-05", "1951", "3001", "x"] {
        refused(&format!("masters?since={bad}"), "invlaid year");
        refused(&format!("masters?until={bad}"), "invlaid year");
    }
    refused("player?player=x&color=white&modes=ranked", "invalid mode");
    let all = get(&format!("{}lichess?topGames=1", server.url)).json();
    let name = all["topGames"][0]["white"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let name: String = form_encode(&name);
    refused(
        "lichess?history=maybe",
        "unknown variant `maybe`, expected `no` or `yes`",
    );
    for ok in [
        "lichess?since=2012-06&until=2012/07",
        "lichess?since=1952-01&until=3000-12",
        "masters?since=1952&until=3000",
        format!("player?player={name}&color=white&modes=rated").as_str(),
        format!("player?player={name}&color=white&modes=rated,casual&since=2012-01").as_str(),
    ] {
        let r = get(&format!("{}{ok}", server.url));
        assert_eq!(r.status, 200, "{ok}: {}", r.text());
    }
    // The week of TWIC 920 is in June or July 2012: asked inside, every game of the start;
    // since after until: no game, as lila answers (nothing between them).
    let within = get(&format!(
        "{}lichess?since=2012-01&until=2012-12",
        server.url
    ))
    .json();
    assert_eq!(wdb(&within), wdb(&all));
    assert!(wdb(&all).iter().sum::<u64>() > 0);
    for empty in [
        "lichess?since=2013-01&until=2012-12",
        "masters?since=2013&until=2012",
        "lichess?since=2013-01",
        "masters?until=2011",
    ] {
        let r = get(&format!("{}{empty}", server.url));
        assert_eq!(r.status, 200, "{empty}: {}", r.text());
        assert_eq!(wdb(&r.json()), [0, 0, 0], "{empty}");
    }
    // Variants: chess, Chess960 and set-up positions only; the others refused by name.
    for v in [
        "crazyhouse",
        "atomic",
        "antichess",
        "kingOfTheHill",
        "threeCheck",
        "horde",
        "racingKings",
        "giveaway",
    ] {
        let r = get(&format!("{}lichess?variant={v}", server.url));
        assert_eq!(r.status, 400, "{v}");
        let t = r.text();
        assert!(
            t.starts_with("bad request: variant ")
                && t.contains("standard, chess960 or fromPosition"),
            "{v}: {t}"
        );
    }
    for v in ["standard", "chess960", "fromPosition"] {
        let r = get(&format!("{}lichess?variant={v}", server.url));
        assert_eq!(r.status, 200, "{v}: {}", r.text());
    }
}

/// The start position of a Chess960 game, with the games of TCEC's Chess960 events that
/// start from it; castling there is the king on f1 taking the rook on g1.
const START_960: &str = "nbbqrkrn/pppppppp/8/8/8/8/PPPPPPPP/NBBQRKRN w KQkq - 0 1";

#[test]
fn chess960_games_by_their_start_match_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    // The TCEC games, plain, for both readers.
    let pgn = dir.path().join("tcec.pgn");
    let text = zstd::decode_all(
        std::fs::File::open(shared("pgn/tcec/tcec-partial.nocomments.pgn.zst")).unwrap(),
    )
    .unwrap();
    std::fs::write(&pgn, text).unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&["import", "--db", &db, &pgn.display().to_string()]);
    let lines: [&[&str]; 3] = [&[], &["f1g1"], &["f1g1", "a8b6", "c2c4"]];
    let spec = json!({"files": [pgn], "start_fen": START_960, "queries":
        lines.iter().map(|l| json!({"fen": START_960, "play": l, "chess960": true})).collect::<Vec<_>>()});
    let o = oracle_json("lichess_explorer_oracle.py", &[spec.to_string().as_str()]);
    let server = Server::start(&["--db", &db]);
    let calls: Vec<Value> = lines
        .iter()
        .map(|l| {
            json!({"call": "lichess", "args": {"variant": "chess960", "position": START_960,
                   "play": l, "moves": 50, "history": true}})
        })
        .collect();
    let answers = berserk(&server, &json!(calls));
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(wdb(a), total(&o[i]), "totals after {:?}", lines[i]);
        assert!(total(&o[i]).iter().sum::<u64>() >= 4);
        assert_eq!(
            moves_of(a),
            oracle_moves(&o[i]),
            "moves after {:?}",
            lines[i]
        );
        assert_eq!(history_of(a), expected_history(&o[i], None));
    }
    // Castling written as the king taking its rook: f1g1 at the start, f8g8 for Black.
    let ucis = |a: &Value| -> Vec<String> {
        a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                format!(
                    "{} {}",
                    m["uci"].as_str().unwrap(),
                    m["san"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert!(
        ucis(&answers[0]).contains(&"f1g1 O-O".to_string()),
        "{:?}",
        ucis(&answers[0])
    );
    assert!(
        ucis(&answers[2]).contains(&"f8g8 O-O".to_string()),
        "{:?}",
        ucis(&answers[2])
    );
    // fromPosition: the same games from the same start.
    let r = get(&format!(
        "{}lichess?variant=fromPosition&fen={}&play=f1g1,a8b6,c2c4&moves=50",
        server.url,
        START_960.replace(' ', "%20").replace('/', "%2F")
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(moves_of(&r.json()), oracle_moves(&o[2]));
}
