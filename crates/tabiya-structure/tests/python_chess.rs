//! Material signatures and pawn structures judged against python-chess (the independent
//! oracle) on real games: for each query, the games in which one of the positions of the
//! main line (the first included) has that material, or exactly those pawns, are the same
//! games here (read and replayed with pgn-reader and shakmaty) as python-chess counts them.
//! Needs python3 with `chess`, which `scripts/test` installs.

#[path = "../../tabiya-compact/tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::Command;

use shakmaty::{Chess, Position};
use tabiya_structure::{Material, PawnStructure};

/// A query asked of a position.
type Hit = Box<dyn Fn(&Chess) -> bool>;

const ORACLE: &str = r#"
import chess, chess.pgn, json, sys
path, materials, structures = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def signature(b):
    side = lambda c: "K" + "".join(l * len(b.pieces(t, c)) for t, l in
        [(chess.QUEEN, "Q"), (chess.ROOK, "R"), (chess.BISHOP, "B"), (chess.KNIGHT, "N"), (chess.PAWN, "P")])
    return side(chess.WHITE) + "v" + side(chess.BLACK)
def pawns(b):
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = b.piece_at(chess.square(f, r))
            if p and p.piece_type == chess.PAWN:
                row += (str(empty) if empty else "") + p.symbol(); empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
found = {q: [] for q in materials + structures}
n = 0
with open(path, encoding="utf-8", errors="replace") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        if "FEN" in g.headers:
            continue
        b = g.board()
        seen = {signature(b), pawns(b)}
        for m in g.mainline_moves():
            b.push(m)
            seen.add(signature(b)); seen.add(pawns(b))
        for q in found:
            if q in seen:
                found[q].append(n)
        n += 1
print(json.dumps({"games": n, "found": found}))
"#;

#[test]
fn the_games_python_chess_counts() {
    let file = PathBuf::from(common::DATA).join("pgn/pgnmentor/Kasparov.pgn");
    let materials = [
        "KRPvKR",
        "KRvKR",
        "KQvKQ",
        "KRPPvKRP",
        "KBvKN",
        "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP",
    ];
    let structures = [
        "8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8",
        "8/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/8",
        "8/pp2pppp/3p4/8/4P3/8/PPP2PPP/8",
        "8/pp3ppp/4p3/8/3P4/8/PP3PPP/8",
    ];
    let o = Command::new("python3")
        .arg("-c")
        .arg(ORACLE)
        .arg(&file)
        .arg(serde_json_list(&materials))
        .arg(serde_json_list(&structures))
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout).into_owned();

    let games: Vec<common::RawGame> = common::read_games(&std::fs::read(&file).unwrap())
        .into_iter()
        .filter(|g| g.fen.is_none())
        .collect();
    assert!(
        said.contains(&format!("\"games\": {}", games.len())),
        "{said}"
    );
    let queries: Vec<(String, Hit)> = materials
        .iter()
        .map(|m| {
            let q = Material::parse(m).unwrap();
            (
                m.to_string(),
                Box::new(move |p: &Chess| q.matches(p.board())) as Hit,
            )
        })
        .chain(structures.iter().map(|s| {
            let q = PawnStructure::parse(s).unwrap();
            (
                s.to_string(),
                Box::new(move |p: &Chess| q.matches(p.board())) as Hit,
            )
        }))
        .collect();
    let mut telling = 0;
    for (text, hit) in &queries {
        let mut ours = Vec::new();
        for (i, g) in games.iter().enumerate() {
            let mut pos = Chess::default();
            let mut found = hit(&pos);
            for san in &g.sans {
                if found {
                    break;
                }
                let Ok(m) = san.san.to_move(&pos) else { break };
                pos.play_unchecked(m);
                found = hit(&pos);
            }
            if found {
                ours.push(i.to_string());
            }
        }
        let expected = format!("\"{text}\": [{}]", ours.join(", "));
        assert!(
            said.contains(&expected),
            "{text}: here games {ours:?}; python-chess: {said}"
        );
        eprintln!("{text}: {} games", ours.len());
        if !ours.is_empty() && ours.len() < games.len() {
            telling += 1;
        }
    }
    assert!(
        telling >= 7,
        "only {telling} of {} queries told games apart",
        queries.len()
    );
}

/// A JSON list of strings (the queries hold no character JSON escapes).
fn serde_json_list(items: &[&str]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
