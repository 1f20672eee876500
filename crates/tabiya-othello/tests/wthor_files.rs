//! WTHOR files: the real shared files round-trip byte for byte, `check()` agrees with the
//! independent Python oracle, damaged files are reported (file, game, offset) without panics,
//! and the hand-built 10×10 fixture reads and writes back.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use tabiya_othello::check::{CheckOptions, Problem, check};
use tabiya_othello::wthor::{BoardSize, GameFile, GameIter, NameFile, NameKind, WthorError};

const WTHOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/wthor");
const WTHOR_NEW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/wthor-2022-2023"
);
const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../oracle/wthor_oracle.py");
const ORACLE_SUMMARY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/oracle_summary.json"
);
const TINY_WTD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.wtd");

fn wtb_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = (1977..=2021)
        .map(|y| Path::new(WTHOR).join(format!("WTH_{y}.wtb")))
        .collect();
    v.extend((2022..=2023).map(|y| Path::new(WTHOR_NEW).join(format!("WTH_{y}.wtb"))));
    v
}

fn python3() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_shared_file_round_trips_byte_for_byte() {
    let mut games_1977_2021 = 0;
    for path in wtb_files() {
        let bytes = std::fs::read(&path).unwrap();
        let f = GameFile::parse(&bytes, &path).unwrap();
        assert!(
            f.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            f.problems
        );
        assert!(f.trailing.is_empty());
        assert_eq!(f.board, BoardSize::Eight);
        assert_eq!(f.games.len(), f.header.games as usize);
        assert_eq!(f.to_bytes(), bytes, "{}", path.display());
        // Every real file: depth 24 (format notes), year matching the name.
        assert_eq!(f.header.depth, 24);
        let year: u16 = path.file_stem().unwrap().to_str().unwrap()[4..]
            .parse()
            .unwrap();
        assert_eq!(f.header.year, year);
        if year <= 2021 {
            games_1977_2021 += f.games.len();
        }
    }
    // shared/README.md: 127,475 games in 1977–2021.
    assert_eq!(games_1977_2021, 127_475);
    for dir in [WTHOR, WTHOR_NEW] {
        for (name, kind) in [
            ("WTHOR.JOU", NameKind::Players),
            ("WTHOR.TRN", NameKind::Tournaments),
        ] {
            let path = Path::new(dir).join(name);
            let bytes = std::fs::read(&path).unwrap();
            let f = NameFile::parse(&bytes, &path, kind).unwrap();
            assert!(
                f.problems.is_empty(),
                "{}: {:?}",
                path.display(),
                f.problems
            );
            assert_eq!(f.to_bytes(), bytes, "{}", path.display());
        }
    }
}

#[test]
fn names_decode_as_latin1() {
    let jou = NameFile::read(Path::new(WTHOR).join("WTHOR.JOU"), NameKind::Players).unwrap();
    assert_eq!(
        jou.name(0).as_deref(),
        Some("???"),
        "format notes: player 0 is ???"
    );
    // From the hex dump of the file: record 1 at offset 36 is "Tastet Marc".
    assert_eq!(jou.name(1).as_deref(), Some("Tastet Marc"));
    assert!(jou.names.iter().any(|n| n.is_program()));
    let trn = NameFile::read(Path::new(WTHOR).join("WTHOR.TRN"), NameKind::Tournaments).unwrap();
    assert_eq!(trn.name(1).as_deref(), Some("World Championship"));
    // Tournament names contain é/è (ISO-8859-1 bytes 0xE9/0xE8, format notes).
    let with_accent = trn
        .names
        .iter()
        .filter(|n| n.raw.iter().any(|&b| b == 0xe9 || b == 0xe8))
        .count();
    assert!(with_accent > 0);
    assert!(trn.names.iter().any(|n| n.text().contains('é')));
    // The newer files: names only appended.
    let jou2 = NameFile::read(Path::new(WTHOR_NEW).join("WTHOR.JOU"), NameKind::Players).unwrap();
    assert!(jou2.names.len() > jou.names.len());
}

fn oracle_summary() -> Vec<serde_json_lite::Value> {
    serde_json_lite::parse(&std::fs::read_to_string(ORACLE_SUMMARY).unwrap())
}

/// A tiny JSON reader for the oracle's output (arrays, objects, integers, strings), so the
/// tests need no JSON dependency.
mod serde_json_lite {
    #[derive(Debug, Clone, PartialEq)]
    pub enum Value {
        Num(i64),
        Str(String),
        Arr(Vec<Value>),
        Obj(Vec<(String, Value)>),
    }
    impl Value {
        pub fn get(&self, k: &str) -> &Value {
            match self {
                Value::Obj(kv) => {
                    &kv.iter()
                        .find(|(key, _)| key == k)
                        .unwrap_or_else(|| panic!("no {k}"))
                        .1
                }
                _ => panic!("not an object"),
            }
        }
        pub fn num(&self) -> i64 {
            match self {
                Value::Num(n) => *n,
                _ => panic!("not a number"),
            }
        }
        pub fn str(&self) -> &str {
            match self {
                Value::Str(s) => s,
                _ => panic!("not a string"),
            }
        }
        pub fn nums(&self) -> Vec<usize> {
            match self {
                Value::Arr(v) => v.iter().map(|x| x.num() as usize).collect(),
                _ => panic!("not an array"),
            }
        }
    }
    pub fn parse(s: &str) -> Vec<Value> {
        let b = s.as_bytes();
        let mut i = 0;
        match value(b, &mut i) {
            Value::Arr(v) => v,
            _ => panic!("top level is not an array"),
        }
    }
    fn ws(b: &[u8], i: &mut usize) {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    fn value(b: &[u8], i: &mut usize) -> Value {
        ws(b, i);
        match b[*i] {
            b'[' => {
                *i += 1;
                let mut v = vec![];
                loop {
                    ws(b, i);
                    if b[*i] == b']' {
                        *i += 1;
                        return Value::Arr(v);
                    }
                    v.push(value(b, i));
                    ws(b, i);
                    if b[*i] == b',' {
                        *i += 1;
                    }
                }
            }
            b'{' => {
                *i += 1;
                let mut v = vec![];
                loop {
                    ws(b, i);
                    if b[*i] == b'}' {
                        *i += 1;
                        return Value::Obj(v);
                    }
                    let k = match value(b, i) {
                        Value::Str(s) => s,
                        _ => panic!("key"),
                    };
                    ws(b, i);
                    assert_eq!(b[*i], b':');
                    *i += 1;
                    let x = value(b, i);
                    v.push((k, x));
                    ws(b, i);
                    if b[*i] == b',' {
                        *i += 1;
                    }
                }
            }
            b'"' => {
                *i += 1;
                let start = *i;
                while b[*i] != b'"' {
                    assert_ne!(b[*i], b'\\', "escapes not needed for the oracle summary");
                    *i += 1;
                }
                let s = String::from_utf8(b[start..*i].to_vec()).unwrap();
                *i += 1;
                Value::Str(s)
            }
            _ => {
                let start = *i;
                while *i < b.len() && (b[*i] == b'-' || b[*i].is_ascii_digit()) {
                    *i += 1;
                }
                Value::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
            }
        }
    }
}

#[test]
fn check_agrees_with_the_python_oracle_on_every_file() {
    let files = wtb_files();
    let report = check(&files, &CheckOptions::default());
    let oracle = oracle_summary();
    assert_eq!(report.files.len(), oracle.len());
    for (f, o) in report.files.iter().zip(&oracle) {
        assert!(
            f.file.ends_with(o.get("file").str()),
            "{} vs {}",
            f.file,
            o.get("file").str()
        );
        assert_eq!(f.error, None);
        assert!(f.read_problems.is_empty(), "{:?}", f.read_problems);
        assert_eq!(f.games as i64, o.get("games").num(), "{}", f.file);
        let games_with = |pred: &dyn Fn(&Problem) -> bool| -> Vec<usize> {
            let mut v: Vec<usize> = f
                .problems
                .iter()
                .filter(|p| pred(&p.problem))
                .map(|p| p.game)
                .collect();
            v.dedup();
            v
        };
        assert_eq!(
            games_with(&|p| matches!(p, Problem::BadMoveByte { .. })),
            o.get("bad").nums(),
            "{}",
            f.file
        );
        assert_eq!(
            games_with(&|p| matches!(p, Problem::IllegalMove { .. })),
            o.get("illegal").nums(),
            "{}",
            f.file
        );
        assert_eq!(
            games_with(&|p| matches!(p, Problem::Unfinished { .. })),
            o.get("unfinished").nums(),
            "{}",
            f.file
        );
        assert_eq!(
            games_with(&|p| matches!(p, Problem::ScoreMismatch { .. })),
            o.get("score_mismatch").nums(),
            "{}",
            f.file
        );
        assert_eq!(
            games_with(&|p| matches!(p, Problem::UnknownId { .. })),
            o.get("unknown_ids").nums(),
            "{}",
            f.file
        );
        assert_eq!(
            f.games_with_passes as i64,
            o.get("with_pass").num(),
            "{}",
            f.file
        );
    }
    // The figures (counted by the oracle; see tests/fixtures/README.md):
    assert_eq!(report.games, 129_703);
    assert_eq!(
        report.unfinished, 413,
        "the 413 early-stopped games of the format notes"
    );
    assert_eq!(report.illegal, 0);
    assert_eq!(report.bad_move_bytes, 0);
    assert_eq!(report.score_mismatches, 0);
    // WTH_2023.wtb uses ids that its WTHOR.JOU/TRN (made 2023-01-31) do not have yet.
    assert_eq!(report.unknown_ids, 274);
    assert_eq!(report.files.last().unwrap().unknown_ids, 274);
    assert_eq!(
        report.games_with_passes, 75_210,
        "more than half the games contain a pass"
    );
    // Every unfinished game is from 1981–2000 (format notes).
    for f in &report.files {
        if f.unfinished > 0 {
            assert!((1981..=2000).contains(&f.year.unwrap()), "{}", f.file);
        }
    }
}

#[test]
fn oracle_fixture_is_the_oracles_output() {
    if !python3() {
        eprintln!("SKIPPED: python3 not found; cannot re-run the oracle");
        return;
    }
    let some: Vec<PathBuf> = wtb_files()
        .into_iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            ["1977", "1981", "1983", "2021", "2023"]
                .iter()
                .any(|y| s.contains(&format!("WTH_{y}")))
        })
        .collect();
    let out = Command::new("python3")
        .arg(ORACLE)
        .arg("summary")
        .args(&some)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let live = serde_json_lite::parse(&String::from_utf8(out.stdout).unwrap());
    let fixture = oracle_summary();
    for l in &live {
        let name = l.get("file").str();
        let f = fixture
            .iter()
            .find(|f| f.get("file").str() == name)
            .unwrap();
        assert_eq!(l, f, "{name}");
    }
}

#[test]
fn game_iterator_yields_every_game() {
    let mut n = 0;
    let mut moves = 0;
    for entry in GameIter::new(wtb_files()) {
        let e = entry.unwrap();
        let m = e.moves.unwrap();
        assert_eq!(
            m.first().map(|s| s.to_string()).as_deref(),
            Some("f5"),
            "format notes: every game starts f5"
        );
        moves += m.len();
        n += 1;
    }
    assert_eq!(n, 129_703);
    assert!(moves > 129_703 * 55);
}

fn temp_with(bytes: &[u8], name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    // Name files beside it, so check() finds them.
    for n in ["WTHOR.JOU", "WTHOR.TRN"] {
        std::fs::copy(Path::new(WTHOR).join(n), dir.path().join(n)).unwrap();
    }
    (dir, path)
}

#[test]
fn truncated_file_reports_file_game_offset_and_reads_the_rest() {
    let bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
    assert_eq!(bytes.len(), 16 + 12 * 68);
    let cut = &bytes[..bytes.len() - 10];
    let (_dir, path) = temp_with(cut, "cut.wtb");
    let f = GameFile::read(&path).unwrap();
    assert_eq!(f.games.len(), 11);
    assert_eq!(f.trailing.len(), 58);
    assert_eq!(
        f.to_bytes(),
        cut,
        "a damaged file still writes back as it was"
    );
    let msgs: Vec<String> = f.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].contains("cut.wtb")
            && msgs[0].contains("declares 12")
            && msgs[0].contains("holds 11"),
        "{}",
        msgs[0]
    );
    // Game 11 starts at 16 + 11 × 68 = 764.
    assert!(
        msgs[1].contains("cut.wtb: game 11 at offset 764: truncated record, 58 of 68 bytes"),
        "{}",
        msgs[1]
    );
    let report = check(&[&path], &CheckOptions::default());
    assert_eq!(report.games, 11);
    assert_eq!(report.unreadable_files, 0);
    assert_eq!(report.files[0].read_problems.len(), 2);
}

#[test]
fn bad_move_bytes_name_game_and_offset() {
    let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
    // Game 3, move 6 (index 5): offset 16 + 3 × 68 + 8 + 5 = 233.
    bytes[233] = 99;
    // Game 7: a non-zero byte after the zero padding is impossible in a 60-move game, so make
    // game 7 end early: zero its move 40 (offset 16 + 7×68 + 8 + 39 = 539) and keep the rest.
    bytes[539] = 0;
    let (_dir, path) = temp_with(&bytes, "bad.wtb");
    let f = GameFile::read(&path).unwrap();
    let e = f.squares(3).unwrap_err();
    assert!(
        matches!(
            e,
            WthorError::BadMoveByte {
                game: 3,
                ply: 5,
                offset: 233,
                byte: 99,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("bad.wtb: game 3: move 6 at offset 233: byte 99 is not a square"),
        "{e}"
    );
    let e = f.squares(7).unwrap_err();
    assert!(
        matches!(
            e,
            WthorError::MoveAfterEnd {
                game: 7,
                ply: 40,
                offset: 540,
                ..
            }
        ),
        "{e}"
    );
    // The other games still decode.
    for i in [0, 1, 2, 4, 5, 6, 8, 9, 10, 11] {
        f.squares(i).unwrap();
    }
    let report = check(&[&path], &CheckOptions::default());
    assert_eq!(report.bad_move_bytes, 2);
    assert_eq!(report.games, 12);
    let bad: Vec<usize> = report.files[0]
        .problems
        .iter()
        .filter(|p| matches!(p.problem, Problem::BadMoveByte { .. }))
        .map(|p| p.game)
        .collect();
    assert_eq!(bad, [3, 7]);
}

#[test]
fn illegal_move_is_reported() {
    let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
    // Game 0 starts f5 (56); make its first move a1 (11), which flips nothing.
    assert_eq!(bytes[16 + 8], 56);
    bytes[16 + 8] = 11;
    let (_dir, path) = temp_with(&bytes, "illegal.wtb");
    let report = check(&[&path], &CheckOptions::default());
    assert_eq!(report.illegal, 1);
    let p = &report.files[0].problems[0];
    assert_eq!(p.game, 0);
    assert!(
        matches!(&p.problem, Problem::IllegalMove { mv: 1, square, offset: 24, .. } if square == "a1"),
        "{:?}",
        p.problem
    );
}

#[test]
fn header_damage_is_an_error_not_a_panic() {
    let (_d, p) = temp_with(&[20, 1, 2], "short.wtb");
    assert!(matches!(
        GameFile::read(&p),
        Err(WthorError::TooShort { len: 3, .. })
    ));
    let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
    bytes[12] = 9;
    let (_d2, p2) = temp_with(&bytes, "size9.wtb");
    let e = GameFile::read(&p2).unwrap_err();
    assert!(
        e.to_string().contains("size9.wtb: offset 12: board size 9"),
        "{e}"
    );
    let report = check(
        &[&p, &p2, &PathBuf::from("/nonexistent/WTH_1.wtb")],
        &CheckOptions::default(),
    );
    assert_eq!(report.unreadable_files, 3);
    // A huge declared count reads what is there.
    let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
    bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let f = GameFile::parse(&bytes, Path::new("huge.wtb")).unwrap();
    assert_eq!(f.games.len(), 12);
    assert_eq!(f.to_bytes(), bytes);
}

#[test]
fn extra_bytes_are_kept() {
    let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1978.wtb")).unwrap();
    bytes.extend_from_slice(&[1, 2, 3]);
    let f = GameFile::parse(&bytes, Path::new("x.wtb")).unwrap();
    assert_eq!(f.trailing, [1, 2, 3]);
    assert!(f.problems.is_empty());
    assert_eq!(f.to_bytes(), bytes);
    let mut more = bytes.clone();
    more.extend_from_slice(&[0u8; 65]);
    let f = GameFile::parse(&more, Path::new("x.wtb")).unwrap();
    assert_eq!(f.games.len(), 8);
    assert_eq!(f.problems.len(), 1, "one more whole record than declared");
    assert_eq!(f.to_bytes(), more);
    // A name file cut in the middle of a name.
    let jou = std::fs::read(Path::new(WTHOR).join("WTHOR.JOU")).unwrap();
    let cut = &jou[..jou.len() - 7];
    let f = NameFile::parse(cut, Path::new("cut.jou"), NameKind::Players).unwrap();
    assert_eq!(f.names.len(), 3883);
    assert_eq!(f.to_bytes(), cut);
    assert!(
        f.problems.iter().any(|p| p
            .to_string()
            .contains("cut.jou: player 3883 at offset 77676")),
        "{:?}",
        f.problems
    );
}

#[test]
fn ten_by_ten_fixture_reads_and_writes_back() {
    let bytes = std::fs::read(TINY_WTD).unwrap();
    let f = GameFile::parse(&bytes, Path::new(TINY_WTD)).unwrap();
    assert_eq!(f.board, BoardSize::Ten);
    assert!(f.problems.is_empty());
    assert_eq!(f.games.len(), 2);
    assert_eq!(f.header.reserved, 7);
    assert_eq!(f.header.depth, 22);
    assert_eq!(f.header.created(), "2024-03-05");
    let g = &f.games[0];
    assert_eq!(
        (
            g.tournament,
            g.black,
            g.white,
            g.black_score,
            g.theoretical_score
        ),
        (1, 2, 3, 60, 58)
    );
    let coords: Vec<String> = g.coords().unwrap().iter().map(|c| c.to_string()).collect();
    // make_tiny_wtd.py: g6 f7 e4 j10 a1.
    assert_eq!(coords, ["g6", "f7", "e4", "j10", "a1"]);
    assert!(f.games[1].coords().unwrap().is_empty());
    assert_eq!(f.to_bytes(), bytes);
    // Replay and check refuse 10×10 with a clear error.
    assert!(matches!(
        f.squares(0),
        Err(WthorError::Unsupported10x10 { .. })
    ));
    let report = check(&[TINY_WTD], &CheckOptions::default());
    assert_eq!(report.unreadable_files, 1);
    assert!(
        report.files[0]
            .error
            .as_ref()
            .unwrap()
            .contains("10×10 games are not replayed")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let p = Path::new("random.wtb");
        if let Ok(f) = GameFile::parse(&bytes, p) {
            prop_assert_eq!(f.to_bytes(), bytes.clone());
            for i in 0..f.games.len() {
                let _ = f.squares(i);
                let _ = f.games[i].coords();
            }
        }
        for kind in [NameKind::Players, NameKind::Tournaments] {
            if let Ok(f) = NameFile::parse(&bytes, p, kind) {
                prop_assert_eq!(f.to_bytes(), bytes.clone());
                for n in &f.names { let _ = n.text(); }
            }
        }
    }

    #[test]
    fn damaged_real_records_never_panic(offset in 16usize..832, byte in any::<u8>()) {
        let mut bytes = std::fs::read(Path::new(WTHOR).join("WTH_1977.wtb")).unwrap();
        bytes[offset] = byte;
        let f = GameFile::parse(&bytes, Path::new("d.wtb")).unwrap();
        for i in 0..f.games.len() {
            if let Ok(m) = f.squares(i) {
                let _ = tabiya_othello::replay_game(&m);
            }
        }
        prop_assert_eq!(f.to_bytes(), bytes);
    }
}
