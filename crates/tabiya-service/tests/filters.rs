//! The explorer's filters are exact: on the TCEC games (which carry TimeControl tags of every
//! class), the filtered answers and game lists equal what python-chess counts over the same
//! PGN with the filters as documented (`oracle/filtered_oracle.py`), for popular and rare
//! positions; and with no filter the exhaustive path gives the index's own answer.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tabiya_service::explore;
use tabiya_service::filter::{Colour, Filter};
use tabiya_service::games::{self, GameSort};
use tabiya_service::import::{self, ImportProgress, ImportRequest};
use tabiya_service::{ChessPosition, Db};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

fn oracle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/filtered_oracle.py")
}

/// Every other game of TCEC's as plain PGN (python-chess reads plain files; half the games
/// keep the oracle's run short) in `dir`.
fn tcec_pgn(dir: &Path) -> PathBuf {
    let all = dir.join("tcec-all.pgn");
    let status = Command::new("zstd")
        .arg("-qdf")
        .arg(shared("pgn/tcec/tcec-partial.nocomments.pgn.zst"))
        .arg("-o")
        .arg(&all)
        .status()
        .expect("zstd (the test command installs it)");
    assert!(status.success());
    let text = std::fs::read_to_string(&all).unwrap();
    let mut half = String::new();
    for (i, game) in text.split("\n[Event ").enumerate() {
        if i % 2 == 0 {
            if i > 0 {
                half.push_str("\n[Event ");
            }
            half.push_str(game);
        }
    }
    let path = dir.join("tcec.pgn");
    std::fs::write(&path, half).unwrap();
    path
}

/// The oracle's JSON form of a filter.
fn oracle_filter(f: &Filter) -> String {
    let month = |s: &Option<String>, end: bool| -> Value {
        match s {
            None => Value::Null,
            Some(s) => {
                let (y, m) = match s.split_once('-') {
                    Some((y, m)) => (y.parse::<u32>().unwrap(), m.parse::<u32>().unwrap()),
                    None => (s.parse::<u32>().unwrap(), if end { 12 } else { 0 }),
                };
                Value::from(y * 100 + m)
            }
        }
    };
    let mut ratings = Vec::new();
    if f.rating_min.is_some() || f.rating_max.is_some() {
        ratings.push(serde_json::json!([
            f.rating_min.unwrap_or(0),
            f.rating_max.unwrap_or(u16::MAX)
        ]));
    }
    serde_json::json!({
        "since": month(&f.since, false),
        "until": month(&f.until, true),
        "ratings": ratings,
        "speeds": f.speeds,
        "player": f.player,
        "color": f.colour.map(|c| match c { Colour::White => "white", Colour::Black => "black" }),
    })
    .to_string()
}

fn python(args: &[String]) -> Value {
    let out = Command::new("python3")
        .arg(oracle())
        .args(args)
        .output()
        .expect("python3 with python-chess (the test command installs them)");
    assert!(
        out.status.success(),
        "oracle: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn filtered_answers_equal_python_chess() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = tcec_pgn(dir.path());
    let db_dir = dir.path().join("db");
    let req = ImportRequest {
        files: vec![pgn.clone()],
        ..ImportRequest::default()
    };
    import::import(&db_dir, &req, &ImportProgress::default()).unwrap();
    let db = Db::open(&db_dir).unwrap();
    let lines = [
        "",
        "e2e4",
        "d2d4,d7d5,c2c4",
        "e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4,g8f6,b1c3,a7a6",
        "d2d4,g8f6,c2c4,e7e6,g1f3,d7d5,b1c3",
    ];
    let s = |v: &str| Some(v.to_string());
    let filters = [
        Filter {
            since: s("2020-01"),
            until: s("2021-06"),
            ..Filter::default()
        },
        Filter {
            speeds: vec!["bullet".into(), "blitz".into()],
            ..Filter::default()
        },
        Filter {
            speeds: vec!["rapid".into()],
            rating_min: Some(3400),
            ..Filter::default()
        },
        Filter {
            rating_min: Some(3500),
            rating_max: Some(3600),
            ..Filter::default()
        },
        Filter {
            player: s("stockfish_15_30m"),
            colour: Some(Colour::White),
            ..Filter::default()
        },
        Filter {
            since: s("2019"),
            speeds: vec!["classical".into()],
            player: s("KomodoDragon 3.3"),
            ..Filter::default()
        },
    ];
    let specs: Vec<String> = filters.iter().map(oracle_filter).collect();
    let mut args = vec![
        format!("[{}]", specs.join(",")),
        pgn.display().to_string(),
        "--".into(),
    ];
    args.extend(lines.iter().map(|l| l.to_string()));
    let all = python(&args);
    let mut checked = 0;
    for (f, want) in filters.iter().zip(all.as_array().unwrap()) {
        for l in lines {
            let w = &want[l];
            let at = ChessPosition::resolve(None, Some(l)).unwrap();
            let a = explore::chess_filtered(&db, &at, f, 8, Some(8), &[]).unwrap();
            let got = serde_json::to_value(&a).unwrap();
            for k in ["white", "draws", "black", "unknown"] {
                assert_eq!(got[k], w["total"][k], "{f:?} {l:?}: {k}");
            }
            let moves = got["moves"].as_array().unwrap();
            assert_eq!(
                moves.len(),
                w["moves"].as_object().unwrap().len(),
                "{f:?} {l:?}: moves"
            );
            for m in moves {
                let wm = &w["moves"][m["uci"].as_str().unwrap()];
                for k in ["white", "draws", "black", "unknown"] {
                    assert_eq!(m[k], wm[k], "{f:?} {l:?} {}: {k}", m["uci"]);
                }
            }
            let page = games::chess_filtered(&db, &at, f, GameSort::Date, 0, 5).unwrap();
            assert_eq!(
                page.total,
                w["games"].as_u64().unwrap(),
                "{f:?} {l:?}: games"
            );
            // Recent games are the newest of the filtered ones; top games among them too.
            let recent: Vec<&str> = got["recentGames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_str().unwrap())
                .collect();
            let listed: Vec<String> = page.games.iter().map(|g| g.id.clone()).collect();
            assert_eq!(
                recent[..recent.len().min(5)],
                listed[..listed.len().min(recent.len())],
                "{f:?} {l:?}"
            );
            checked += 1;
        }
        assert!(
            want[""]["games"].as_u64().unwrap() > 0,
            "{f:?} keeps some games at the start"
        );
    }
    assert_eq!(checked, filters.len() * lines.len());

    // No filter: the index answers, and asking for the newest games changes nothing else
    // (`tabiya-db`'s `explorer_lists_from_the_records_equal_every_game_looked_at` compares
    // the index's lists with every game looked at).
    for l in lines {
        let at = ChessPosition::resolve(None, Some(l)).unwrap();
        let fast = explore::chess(&db, &at, 8, &[]).unwrap();
        let slow = explore::chess_filtered(&db, &at, &Filter::default(), 8, Some(3), &[]).unwrap();
        let (mut a, mut b) = (
            serde_json::to_value(&fast.explore).unwrap(),
            serde_json::to_value(&slow.explore).unwrap(),
        );
        b.as_object_mut().unwrap().remove("recentGames");
        a.as_object_mut().unwrap().remove("recentGames");
        assert_eq!(a, b, "{l:?}");
    }
}

/// Bad filters are bad requests naming the parameter.
#[test]
fn bad_filters_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let req = ImportRequest {
        files: vec![shared("pgn/twic/twic0920.pgn")],
        ..ImportRequest::default()
    };
    import::import(dir.path(), &req, &ImportProgress::default()).unwrap();
    let db = Db::open(dir.path()).unwrap();
    let at = ChessPosition::start();
    let s = |v: &str| Some(v.to_string());
    for (f, says) in [
        (
            Filter {
                since: s("2020-13"),
                ..Filter::default()
            },
            "since",
        ),
        (
            Filter {
                since: s("2021"),
                until: s("2020"),
                ..Filter::default()
            },
            "after until",
        ),
        (
            Filter {
                rating_min: Some(2800),
                rating_max: Some(2000),
                ..Filter::default()
            },
            "ratingMin",
        ),
        (
            Filter {
                speeds: vec!["fast".into()],
                ..Filter::default()
            },
            "speed \"fast\"",
        ),
        (
            Filter {
                colour: Some(Colour::White),
                ..Filter::default()
            },
            "needs a player",
        ),
    ] {
        let e = explore::chess_filtered(&db, &at, &f, 8, None, &[]).unwrap_err();
        assert_eq!(e.kind(), tabiya_service::ErrorKind::BadRequest);
        assert!(e.to_string().contains(says), "{e}");
    }
}
