//! Errors come with their kind; answers with today's JSON.

use std::path::{Path, PathBuf};

use super::*;
use crate::ErrorKind;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

#[test]
fn errors_have_their_kind() {
    let e = probe(&BookFile::new("/no/such/book.bin"), None, Some("e4")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.message(), "cannot open book /no/such/book.bin");
    assert!(std::error::Error::source(&e).is_some(), "the cause is kept");

    let ctg = BookFile::new(shared("ctg/simple.ctg"));
    let Err(e) = dump(&ctg, Some(Colour::White)) else {
        panic!("--color on a CTG book")
    };
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    let e = probe(&ctg, Some("not a fen"), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    let e = linked_games(&ctg, None, Some("e4"), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);

    let dir = tempfile::tempdir().unwrap();
    let mut opts = BuildOptions {
        format: BookFormat::Ctg,
        output: dir.path().join("b.ctg"),
        inputs: Vec::new(),
        db: None,
        gameset: None,
        min_game: None,
        max_ply: None,
        only_white: false,
        only_black: false,
        uniform: false,
        kvetka: KvetkaOptions::default(),
        threads: Some(1),
    };
    assert_eq!(build(&opts).unwrap_err().kind(), ErrorKind::BadRequest);
    opts.inputs = vec![dir.path().join("missing.pgn")];
    let e = build(&opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.message().contains("missing.pgn"), "{e}");
    opts.uniform = true;
    assert_eq!(build(&opts).unwrap_err().kind(), ErrorKind::BadRequest);

    let e = merge(
        &shared("ctg/simple.ctg"),
        &shared("polyglot/lasker-trap.bin"),
        &dir.path().join("m.bin"),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
}

/// A damaged book is reported, then its verdict is a bad input naming it.
#[test]
fn a_truncated_polyglot_book_fails_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.bin");
    let bytes = std::fs::read(shared("polyglot/lasker-trap.bin")).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let report = check(&BookFile::new(&cut)).unwrap();
    assert_eq!(report.problem_count(), 1);
    let e = report.verdict().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadInput);
    assert_eq!(
        e.message(),
        format!("1 problem(s) found in {}", cut.display())
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["truncatedBytes"], 13, "a whole entry less 3 bytes");
    assert_eq!(json["clean"], false);
}

/// The probe's JSON: the FEN and the format, then the probe's fields.
#[test]
fn probe_answer_json() {
    let p = probe(
        &BookFile::new(shared("polyglot/lasker-trap.bin")),
        None,
        Some("d4"),
    )
    .unwrap();
    let text = serde_json::to_string(&p).unwrap();
    assert!(
        text.starts_with(
            r#"{"fen":"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1","format":"polyglot","found":true,"#
        ),
        "{text}"
    );
}
