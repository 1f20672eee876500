//! Cross-checks SAN and UCI of every PowerPlay17 book move with python-chess: each record is
//! probed as stored (White to move) and as the colour-flipped real position (Black to move),
//! and python-chess must find each UCI move legal in the FEN and print the same SAN.
//! Skips with a message when python3 or python-chess is missing.

use std::io::Write;
use std::process::Command;

use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};
use tabiya_books::ctg::{CtgBook, Transform};

const BOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/ctg/PowerPlay17-Sicilienne.ctg"
);

const SCRIPT: &str = r#"
import sys, chess
bad = 0
n = 0
for line in open(sys.argv[1]):
    fen, uci, san, nlegal = line.rstrip("\n").split("\t")
    board = chess.Board(fen)
    n += 1
    if board.legal_moves.count() != int(nlegal):
        bad += 1; print("legal count", fen, nlegal); continue
    move = chess.Move.from_uci(uci)
    if move not in board.legal_moves:
        bad += 1; print("illegal", fen, uci); continue
    if board.san(move) != san:
        bad += 1; print("san", fen, uci, san, board.san(move))
print("checked", n, "bad", bad)
sys.exit(1 if bad else 0)
"#;

#[test]
fn san_and_uci_agree_with_python_chess() {
    let ok = Command::new("python3")
        .args(["-c", "import chess"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: python3 with python-chess is not available");
        return;
    }
    let book = CtgBook::open(BOOK).unwrap();
    let mut tmp = tempfile::NamedTempFile::new().unwrap();
    let mut lines = 0;
    for rp in book.positions() {
        let rp = rp.unwrap();
        for t in [
            Transform::IDENTITY,
            Transform {
                flipped: true,
                mirrored: false,
            },
        ] {
            let real = t.undo(&rp.position.position).unwrap();
            let fen = Fen::from_position(&real, EnPassantMode::Legal);
            let probe = book.probe(&real).unwrap();
            let nlegal = real.legal_moves().len();
            for m in probe.entry.unwrap().moves {
                writeln!(tmp, "{fen}\t{}\t{}\t{nlegal}", m.uci, m.san).unwrap();
                lines += 1;
            }
        }
    }
    assert_eq!(lines, 2 * 13_406);
    tmp.flush().unwrap();
    let out = Command::new("python3")
        .args(["-c", SCRIPT, tmp.path().to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("checked {lines} bad 0")),
        "{stdout}"
    );
}
