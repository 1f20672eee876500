//! The library face as the command line and the server use it: answers of both kinds, and
//! errors of the right kind for what a user can get wrong (a 400 is not a 500).

use std::path::{Path, PathBuf};

use tabiya_service::explore;
use tabiya_service::export::{self, Selection};
use tabiya_service::games::{self, GameSort, OthelloFilter};
use tabiya_service::import::{self, ImportProgress, ImportReport, ImportRequest};
use tabiya_service::{ChessPosition, Db, ErrorKind, Kind, OthelloPosition};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

fn import_into(dir: &Path, files: &[PathBuf]) -> ImportReport {
    let req = ImportRequest {
        files: files.to_vec(),
        ..ImportRequest::default()
    };
    import::import(dir, &req, &ImportProgress::default()).unwrap()
}

fn twic_db() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    import_into(dir.path(), &[shared("pgn/twic/twic0920.pgn")]);
    let db = Db::open(dir.path()).unwrap();
    (dir, db)
}

/// What a user can get wrong is a bad request, naming what was wrong.
#[test]
fn bad_positions_are_bad_requests() {
    for (fen, play, says) in [
        (Some("not a fen"), None, "invalid FEN"),
        (Some("8/8/8/8/8/8/8/8 w - - 0 1"), None, "illegal position"),
        (
            None,
            Some("e2e4,e2e4"),
            "move 1... \"e2e4\": not legal here (Black to move)",
        ),
        (
            None,
            Some("e4 Nf6 Ke2 Ke7x"),
            "move 2... \"Ke7x\": not a move",
        ),
        (None, Some("1. e4 xx"), "move 1... \"xx\": not a move"),
        (
            None,
            Some("1. e4 e5 2. Nf3 Nc6 3. Nd2"),
            "move 3. \"Nd2\": not legal",
        ),
    ] {
        let e = ChessPosition::resolve(fen, play).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BadRequest, "{fen:?} {play:?}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // Moves as a PGN writes them, as the page's paste box takes them.
    let numbered = ChessPosition::resolve(None, Some("1. e4 c5 2. Nf3 d6 3.d4 cxd4 4. Nxd4 *"));
    let plain = ChessPosition::resolve(None, Some("e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4"));
    assert_eq!(numbered.unwrap().fen, plain.unwrap().fen);
    let e = OthelloPosition::from_line("f5f5").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    assert!(e.to_string().contains("f5"), "{e}");
}

/// A database that is not there is not found; one of the other kind is a bad request.
#[test]
fn missing_databases_and_wrong_kinds() {
    let nowhere = tempfile::tempdir().unwrap();
    let e = Db::open(&nowhere.path().join("none")).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("no Tabiya database"), "{e}");

    let othello = tempfile::tempdir().unwrap();
    import_into(othello.path(), &[shared("wthor/WTH_1981.wtb")]);
    let db = Db::open(othello.path()).unwrap();
    assert_eq!(db.kind(), Kind::Othello);
    let start = ChessPosition::start();
    for e in [
        explore::chess(&db, &start, 8, &[]).err().unwrap(),
        games::chess(&db, &start, GameSort::Id, 0, 10)
            .err()
            .unwrap(),
        export::pgn(&db, &Selection::All, &mut Vec::new())
            .err()
            .unwrap(),
    ] {
        assert_eq!(e.kind(), ErrorKind::BadRequest, "{e}");
    }
    drop(db);
    // PGN into the Othello database, or WTHOR with PGN: refused before anything is read.
    let req = ImportRequest {
        files: vec![shared("pgn/twic/twic0920.pgn")],
        ..ImportRequest::default()
    };
    let e = import::import(othello.path(), &req, &ImportProgress::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    assert!(e.to_string().contains("is an Othello database"), "{e}");
    let mixed = ImportRequest {
        files: vec![
            shared("wthor/WTH_1981.wtb"),
            shared("pgn/twic/twic0920.pgn"),
        ],
        ..ImportRequest::default()
    };
    let e = import::import(nowhere.path(), &mixed, &ImportProgress::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    assert!(!Db::exists(nowhere.path()));
}

/// A damaged book is bad input that names the file; a missing one is not found.
#[test]
fn damaged_books_are_bad_input_naming_the_file() {
    let (_dir, db) = twic_db();
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("cut.bin");
    let book = std::fs::read(shared("polyglot/gm2001.bin")).unwrap();
    std::fs::write(&cut, &book[..1601]).unwrap();
    for (path, kind) in [
        (cut, ErrorKind::BadInput),
        (tmp.path().join("absent.bin"), ErrorKind::NotFound),
    ] {
        let e = explore::chess(&db, &ChessPosition::start(), 8, std::slice::from_ref(&path))
            .unwrap_err();
        assert_eq!(e.kind(), kind, "{e}");
        assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    }
}

/// The chess answer has the Lichess explorer's fields and the books' answers after them;
/// totals add up over the moves and the games that ended there; the game list of the
/// position holds as many games as the totals count.
#[test]
fn chess_answers_add_up() {
    let (_dir, db) = twic_db();
    let at = ChessPosition::resolve(None, Some("e4 c5")).unwrap();
    let book = shared("polyglot/gm2001.bin");
    let a = explore::chess(&db, &at, 8, std::slice::from_ref(&book)).unwrap();
    let v = serde_json::to_value(&a).unwrap();
    for f in [
        "white", "draws", "black", "moves", "topGames", "opening", "books",
    ] {
        assert!(v.get(f).is_some(), "{f} missing in {v}");
    }
    assert_eq!(v["books"][0]["file"], book.display().to_string());
    let e = &a.explore;
    let sum = |f: fn(&explore::MoveRow) -> u64| e.moves.iter().map(f).sum::<u64>();
    assert_eq!(
        e.white + e.draws + e.black + e.unknown,
        sum(|m| m.white) + sum(|m| m.draws) + sum(|m| m.black) + sum(|m| m.unknown) + e.ended
    );
    let page = games::chess(&db, &at, GameSort::Rating, 0, 5).unwrap();
    assert_eq!(page.total, e.white + e.draws + e.black + e.unknown);
    assert_eq!(page.games.len(), 5);
    // The best-rated games of the answer are the first of the list by rating.
    let top: Vec<&str> = e.top_games.iter().map(|g| g.id.as_str()).take(5).collect();
    let listed: Vec<&str> = page.games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(top, listed);
    // One game out as PGN: the game's own tags.
    let id: u32 = listed[0].parse().unwrap();
    let pgn = export::game_pgn(&db, id).unwrap();
    let w = &page.games[0].white.name;
    assert!(pgn.contains(&format!("[White \"{w}\"]")), "{pgn}");
    let e = export::game_pgn(&db, 999_999).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

/// Othello: the answer of the start position counts every game imported; a filter on a
/// year lists only that year's games.
#[test]
fn othello_answers_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    let files = [shared("wthor/WTH_1981.wtb"), shared("wthor/WTH_1982.wtb")];
    let report = import_into(dir.path(), &files);
    let ImportReport::Othello(s) = report else {
        panic!("an Othello import")
    };
    let db = Db::open(dir.path()).unwrap();
    let start = explore::othello(&db, &OthelloPosition::from_line("").unwrap(), 3).unwrap();
    assert_eq!(start.games, s.summary.imported);
    let filter = OthelloFilter {
        from: Some(1982),
        to: Some(1982),
        ..OthelloFilter::default()
    };
    let page = games::othello(&db, filter, GameSort::Date, 0, 1000).unwrap();
    let in_1982 = tabiya_othello_games(&files[1]);
    assert_eq!(page.total as usize, in_1982);
}

/// The games of a WTHOR file, read by the format's own reader.
fn tabiya_othello_games(path: &Path) -> usize {
    // The WTHOR header says how many records follow (bytes 4–7, little-endian).
    let bytes = std::fs::read(path).unwrap();
    u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize
}

/// One game as JSON (what `/api/game/{id}` gives) equals python-chess's reading of the same
/// PGN (`oracle/game_json.py`): tags, start, result, every move of the main line and of the
/// variations with SAN, UCI and FEN, comments and NAGs — on a hand-annotated game, real games
/// with variations and long comments, Chess960 and a game from a FEN.
#[test]
fn one_game_as_json_equals_python_chess() {
    let files = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tabiya/tests/fixtures/annotated.pgn"),
        shared("pgn/edge-cases/data_pgn_kasparov-deep-blue-1997.pgn"),
        shared("pgn/edge-cases/data_pgn_stockfish-learning.pgn"),
        shared("pgn/edge-cases/data_pgn_cutechess-fischerrandom.pgn"),
        shared("pgn/edge-cases/data_pgn_nepomniachtchi-liren-game1.pgn"),
        // A null move (ChessBase's Z0) in the main line: kept, and the moves after it.
        shared("pgn/edge-cases/data_pgn_anastasian-lewis.pgn"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let report = import_into(dir.path(), &files);
    let db = Db::open(dir.path()).unwrap();
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle/game_json.py"))
        .args(&files)
        .output()
        .expect("python3 with python-chess (the test command installs them)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<serde_json::Value> =
        serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout)
            .unwrap()
            .into_iter()
            .filter(|g| !g.is_null())
            .collect();
    let ImportReport::Chess(summary) = report else {
        panic!("a chess import")
    };
    assert_eq!(
        summary.imported as usize,
        want.len(),
        "the games python-chess reads"
    );
    let (mut variations, mut comments, mut nags) = (0, 0, 0);
    for (i, want) in want.iter().enumerate() {
        let id = i as u32 + 1;
        let mut got = serde_json::to_value(tabiya_service::game::game(&db, id).unwrap()).unwrap();
        assert_eq!(got["id"], id.to_string());
        got.as_object_mut().unwrap().remove("id");
        // python-chess joins the comments at one place with a space; so does this test.
        join_comments(&mut got);
        // The tags after the Seven Tag Roster in any order: the stored form keeps FEN, SetUp
        // and Variant as flags and writes them after the others (docs/formats/pgn.md).
        let mut want = want.clone();
        for g in [&mut got, &mut want] {
            let tags = g["tags"].as_array_mut().unwrap();
            let from = 7.min(tags.len());
            tags[from..].sort_by_key(|t| t["name"].as_str().unwrap().to_string());
        }
        let want = &want;
        count(want, &mut variations, &mut comments, &mut nags);
        assert_eq!(&got, want, "game {id}");
    }
    // Not vacuous: the games hold every kind of annotation.
    assert!(
        variations >= 4 && comments >= 100 && nags >= 4,
        "{variations} {comments} {nags}"
    );
}

fn join_comments(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            if let Some(serde_json::Value::Array(c)) = m.get_mut("comments") {
                let joined: Vec<&str> = c.iter().filter_map(|x| x.as_str()).collect();
                *c = vec![serde_json::Value::String(joined.join(" "))];
            }
            for (_, x) in m.iter_mut() {
                join_comments(x);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(join_comments),
        _ => {}
    }
}

fn count(v: &serde_json::Value, variations: &mut usize, comments: &mut usize, nags: &mut usize) {
    match v {
        serde_json::Value::Object(m) => {
            *variations += m
                .get("variations")
                .and_then(|x| x.as_array())
                .map_or(0, Vec::len);
            *comments += m
                .get("comments")
                .and_then(|x| x.as_array())
                .map_or(0, Vec::len);
            *nags += m.get("nags").and_then(|x| x.as_array()).map_or(0, Vec::len);
            for x in m.values() {
                count(x, variations, comments, nags);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| count(x, variations, comments, nags)),
        _ => {}
    }
}
