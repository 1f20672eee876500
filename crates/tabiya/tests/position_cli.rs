//! End-to-end tests of `tabiya position encode | decode`: exact values derived by hand from
//! the format notes and format pages, Polyglot keys against python-chess, and round trips of
//! a few thousand positions of the shared games through the binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

const BIN: &str = env!("CARGO_BIN_EXE_tabiya");

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

/// Runs tabiya with `input` on standard input; returns (success, stdout, stderr).
fn run_stdin(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabiya");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn one(args: &[&str]) -> String {
    let (ok, out, err) = run_stdin(args, "");
    assert!(ok, "tabiya {args:?}: {err}");
    out.trim().to_string()
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[test]
fn hand_derived_values() {
    // The notes: the start position's CTG key exactly as stored in simple.ctg.
    let ctg_start = "56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f";
    assert_eq!(
        one(&["position", "encode", "--format", "ctg", "startpos"]),
        ctg_start
    );
    // The notes: Polyglot start key and after 1.e4.
    assert_eq!(
        one(&["position", "encode", "--format", "polyglot", "startpos"]),
        "463b96181691fc9c"
    );
    assert_eq!(
        one(&[
            "position",
            "encode",
            "--format",
            "polyglot",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        ]),
        "823c9b50fd114196"
    );
    // Kvetka's key uses CTG's square code without the length byte: the 164 board bits of
    // the CTG key (its bits 8..172), then 4 bits of en passant (0: none), 4 castling bits
    // (all four rights: 1111), zero padding to 176 bits.
    let bits: String = (0..ctg_start.len() / 2)
        .map(|i| {
            format!(
                "{:08b}",
                u8::from_str_radix(&ctg_start[2 * i..2 * i + 2], 16).unwrap()
            )
        })
        .collect();
    let mut kv_bits = bits[8..172].to_string();
    kv_bits.push_str("0000");
    kv_bits.push_str("1111");
    while kv_bits.len() < 176 {
        kv_bits.push('0');
    }
    let kv_hex: String = (0..22)
        .map(|i| {
            format!(
                "{:02x}",
                u8::from_str_radix(&kv_bits[8 * i..8 * i + 8], 2).unwrap()
            )
        })
        .collect();
    assert_eq!(
        one(&["position", "encode", "--format", "kvetka", "startpos"]),
        kv_hex
    );
    // B32 start (docs/formats/b32.md, derived nibble by nibble there): ranks 8..1, then the
    // hidden word in the first 32 empty squares: White to move, KQkq (4 × 1), no en passant,
    // half-move 0, full-move 1.
    assert_eq!(
        one(&["position", "encode", "--format", "b32", "startpos"]),
        "ecdfadce99999999088880000000000000000000000000081111111164572546"
    );
    // CDB start (docs/formats/cdb.md): occupancy bytes per file a..h, rank 1 in the top bit:
    // ranks 1, 2, 7, 8 occupied = 11000011 = c3. Then nibbles in bitmap order a1, a2, a7,
    // a8, b1, …: a1 a rook with a castling right (6); a2 White's first pawn off its
    // double-step rank, marked (7) to say White is to move; a7 a black pawn (8); a8 a black
    // castling rook (8 | 6 = e); b1 knight 1, b2 pawn 0, b7 black pawn 8, b8 black knight 9.
    let cdb = one(&["position", "encode", "--format", "cdb", "startpos"]);
    assert_eq!(&cdb[..16], "c3c3c3c3c3c3c3c3");
    assert_eq!(&cdb[16..24], "678e1089");
    // Decoding the normalised key of 1.e4: White to move, colours flipped; --black gives the
    // real position back.
    let e4 = "56b60f7960f3a60f58b078e0c721a60f5960f3b60f7f";
    assert_eq!(
        one(&["position", "decode", "--format", "ctg", e4]),
        "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(
        one(&["position", "decode", "--format", "ctg", "--black", e4]),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    // Errors: Polyglot keys are hashes; bad hex names the input.
    let (ok, _, err) = run_stdin(
        &[
            "position",
            "decode",
            "--format",
            "polyglot",
            "463b96181691fc9c",
        ],
        "",
    );
    assert!(!ok && err.contains("hash"), "{err}");
    let (ok, _, err) = run_stdin(&["position", "decode", "--format", "b32", "zz"], "");
    assert!(!ok && err.contains("zz"), "{err}");
    let (ok, _, err) = run_stdin(&["position", "decode", "--format", "ctg", "56b6"], "");
    assert!(!ok && err.contains("56b6"), "{err}");
}

/// Every `step`-th position of every game of the shared PGN (FENs with legal en passant).
fn sample(step: usize, standard_only: bool) -> Vec<Chess> {
    let mut files = vec![
        shared("pgn/twic/twic0920.pgn"),
        shared("pgn/tcec/tcec-partial.nocomments.pgn.zst"),
    ];
    let mut v: Vec<PathBuf> = std::fs::read_dir(shared("pgn/pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    files.extend(v);
    let mut out = Vec::new();
    let mut n = 0usize;
    for f in files {
        let input = tabiya_pgn::input::open(&f).unwrap();
        for item in tabiya_pgn::read_all(input.reader) {
            let (_, game) = item.unwrap();
            let Ok(game) = game else { continue };
            if standard_only && game.castling_mode != shakmaty::CastlingMode::Standard {
                continue;
            }
            let mut pos = game.start.clone();
            for m in game.main_line() {
                pos.play_unchecked(*m);
                n += 1;
                if n.is_multiple_of(step) {
                    out.push(pos.clone());
                }
            }
        }
    }
    out
}

fn encode_all(format: &str, fens: &[String]) -> Vec<Value> {
    let (ok, out, err) = run_stdin(
        &["position", "encode", "--format", format, "--json", "-"],
        &fens.join("\n"),
    );
    assert!(ok, "{format}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap().clone();
    assert_eq!(list.len(), fens.len());
    list
}

fn decode_all(format: &str, hex: &[String], flags: &[&str]) -> Vec<String> {
    let mut args = vec!["position", "decode", "--format", format];
    args.extend_from_slice(flags);
    args.push("-");
    let (ok, out, err) = run_stdin(&args, &hex.join("\n"));
    assert!(ok, "{format} {flags:?}: {err}");
    out.lines().map(str::to_string).collect()
}

#[test]
fn sampled_positions_round_trip_through_the_binary() {
    // B32 and CDB: every kind of game (Chess960 included); B32 with clocks.
    let all = sample(1200, false);
    assert!(all.len() > 4000, "{} positions", all.len());
    let fens: Vec<String> = all.iter().map(fen).collect();
    let b32: Vec<String> = encode_all("b32", &fens)
        .iter()
        .map(|v| v["output"].as_str().unwrap().to_string())
        .collect();
    assert!(b32.iter().all(|h| h.len() == 64));
    assert_eq!(
        decode_all("b32", &b32, &[]),
        fens,
        "B32 keeps the whole FEN"
    );
    let cdb: Vec<String> = encode_all("cdb", &fens)
        .iter()
        .map(|v| v["output"].as_str().unwrap().to_string())
        .collect();
    assert!(cdb.iter().all(|h| h.len() == 48));
    let no_clocks: Vec<String> = all
        .iter()
        .map(|p| {
            let f = fen(p);
            let parts: Vec<&str> = f.split(' ').collect();
            format!("{} {} {} {} 0 1", parts[0], parts[1], parts[2], parts[3])
        })
        .collect();
    assert_eq!(
        decode_all("cdb", &cdb, &[]),
        no_clocks,
        "CDB keeps all but the clocks"
    );

    // CTG and Kvetka keys: standard chess; decode with the flags encode reports gives the
    // real position (clocks 0 1).
    let std_pos = sample(1000, true);
    let fens: Vec<String> = std_pos.iter().map(fen).collect();
    let expect: Vec<String> = fens
        .iter()
        .map(|f| {
            let parts: Vec<&str> = f.split(' ').collect();
            format!("{} {} {} {} 0 1", parts[0], parts[1], parts[2], parts[3])
        })
        .collect();
    for format in ["ctg", "kvetka"] {
        let enc = encode_all(format, &fens);
        for flipped in [false, true] {
            for mirrored in [false, true] {
                let idx: Vec<usize> = (0..enc.len())
                    .filter(|&i| {
                        enc[i]["flipped"] == Value::Bool(flipped)
                            && enc[i]["mirrored"] == Value::Bool(mirrored)
                    })
                    .collect();
                if idx.is_empty() {
                    continue;
                }
                let hex: Vec<String> = idx
                    .iter()
                    .map(|&i| enc[i]["output"].as_str().unwrap().to_string())
                    .collect();
                let mut flags = Vec::new();
                if flipped {
                    flags.push("--black");
                }
                if mirrored {
                    flags.push("--mirrored");
                }
                let got = decode_all(format, &hex, &flags);
                let want: Vec<String> = idx.iter().map(|&i| expect[i].clone()).collect();
                assert_eq!(got, want, "{format} flipped {flipped} mirrored {mirrored}");
            }
        }
        assert!(
            enc.iter().any(|v| v["mirrored"] == Value::Bool(true)),
            "{format}: some mirrored positions in the sample"
        );
    }
}

#[test]
fn polyglot_keys_equal_python_chess() {
    let ok = Command::new("python3")
        .args(["-c", "import chess.polyglot"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED: python3 with python-chess is not installed");
        return;
    }
    let pos = sample(2500, true);
    let fens: Vec<String> = pos
        .iter()
        .map(|p| Fen::from_position(p, EnPassantMode::Always).to_string())
        .collect();
    let ours: Vec<String> = encode_all("polyglot", &fens)
        .iter()
        .map(|v| v["output"].as_str().unwrap().to_string())
        .collect();
    let script = "import sys, chess, chess.polyglot\nfor l in sys.stdin:\n    l = l.strip()\n    if l: print('%016x' % chess.polyglot.zobrist_hash(chess.Board(l)))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = fens.join("\n");
    let w = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    w.join().unwrap().unwrap();
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(ours.len() > 1000);
    assert_eq!(ours, theirs);
}

#[test]
fn bad_inputs_are_named_and_the_rest_still_converts() {
    // The start position in B32: 32 bytes, 64 hex digits (checked in `hand_derived_values`).
    let start = one(&["position", "encode", "--format", "b32", "startpos"]);
    let input = format!("{start}\nzz\n{}\n", &start[..10]);
    let (ok, out, err) = run_stdin(
        &["position", "decode", "--format", "b32", "--json", "-"],
        &input,
    );
    assert!(!ok, "a bad line makes the exit status non-zero");
    assert!(err.contains("2 of 3"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = v.as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0]["output"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert!(lines[0].get("error").is_none());
    for (line, input) in lines[1..].iter().zip(["zz", &start[..10]]) {
        assert_eq!(line["input"], input);
        assert!(line.get("output").is_none(), "{line}");
        assert!(
            line["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{line}"
        );
    }
}
