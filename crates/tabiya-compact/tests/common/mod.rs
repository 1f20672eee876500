//! Test support shared by the codec tests of `tabiya-compact` and `tabiya-books` (which
//! includes this file by path): read and replay the games of the shared PGN corpus with
//! pgn-reader + shakmaty, independently of Tabiya's own PGN reading and aggregation.

#![allow(dead_code)]

use std::{fs::File, io::Read, ops::ControlFlow, path::PathBuf};

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

pub const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

/// One game as read: its tags of interest and main-line SAN moves.
#[derive(Debug, Default)]
pub struct RawGame {
    pub fen: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub white_elo: Option<u16>,
    pub black_elo: Option<u16>,
    pub variant: Option<String>,
    pub result: Option<String>,
    pub sans: Vec<SanPlus>,
}

struct Collect;

impl Visitor for Collect {
    type Tags = RawGame;
    type Movetext = RawGame;
    type Output = RawGame;

    fn begin_tags(&mut self) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(RawGame::default())
    }
    fn tag(&mut self, tags: &mut RawGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<RawGame> {
        let v = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match name {
            b"FEN" => tags.fen = Some(v),
            b"Variant" => tags.variant = Some(v),
            b"Result" => tags.result = Some(v),
            b"White" => tags.white = Some(v),
            b"Black" => tags.black = Some(v),
            b"WhiteElo" => tags.white_elo = v.trim().parse().ok(),
            b"BlackElo" => tags.black_elo = v.trim().parse().ok(),
            _ => {}
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: RawGame) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(tags)
    }
    fn san(&mut self, g: &mut RawGame, san: SanPlus) -> ControlFlow<RawGame> {
        g.sans.push(san);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, g: RawGame) -> RawGame {
        g
    }
}

/// How a game's variant tag is classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Standard,
    Chess960,
    Other,
}

pub fn classify(variant: Option<&str>) -> Kind {
    let v: String = variant
        .unwrap_or("")
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    match v.as_str() {
        "" | "normal" | "standard" | "chess" => Kind::Standard,
        "chess960" | "fischerandom" | "fischerrandom" | "960" => Kind::Chess960,
        _ => Kind::Other,
    }
}

/// The corpus files: every PGN under shared/data/pgn (the TCEC file is zstd-compressed).
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["pgn/twic", "pgn/pgnmentor", "pgn/edge-cases", "pgn/tcec"] {
        let dir = PathBuf::from(DATA).join(dir);
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.to_string_lossy();
                n.ends_with(".pgn") || n.ends_with(".pgn.zst")
            })
            .collect();
        entries.sort();
        files.extend(entries);
    }
    files
}

pub fn read_bytes(path: &PathBuf) -> Vec<u8> {
    let mut raw = Vec::new();
    File::open(path).unwrap().read_to_end(&mut raw).unwrap();
    if path.to_string_lossy().ends_with(".zst") {
        zstd::decode_all(&raw[..]).unwrap()
    } else {
        raw
    }
}

/// Counts of what the replay saw.
#[derive(Debug, Default)]
pub struct ReplayStats {
    pub games: u64,
    pub skipped_variant: u64,
    pub bad_start: u64,
    /// Games whose main line stopped at an illegal or unparsable move (replayed up to it).
    pub stopped_early: u64,
    pub positions: u64,
}

/// Replays every standard and Chess960 game of the file, calling `f` for each position
/// (the start included).
pub fn replay_file(path: &PathBuf, stats: &mut ReplayStats, f: &mut dyn FnMut(&Chess, Kind)) {
    let bytes = read_bytes(path);
    let mut reader = Reader::new(&bytes[..]);
    while let Some(game) = reader.read_game(&mut Collect).unwrap() {
        stats.games += 1;
        let kind = classify(game.variant.as_deref());
        if kind == Kind::Other {
            stats.skipped_variant += 1;
            continue;
        }
        let start: Option<Chess> = match &game.fen {
            None => Some(Chess::default()),
            Some(fen) => fen.parse::<Fen>().ok().and_then(|fen| {
                let mode = if kind == Kind::Chess960 {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
                fen.clone()
                    .into_position(mode)
                    .ok()
                    .or_else(|| fen.into_position(CastlingMode::Chess960).ok())
            }),
        };
        let Some(mut pos) = start else {
            stats.bad_start += 1;
            continue;
        };
        stats.positions += 1;
        f(&pos, kind);
        for san in &game.sans {
            match san.san.to_move(&pos) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    stats.positions += 1;
                    f(&pos, kind);
                }
                Err(_) => {
                    stats.stopped_early += 1;
                    break;
                }
            }
        }
    }
}

/// The Chess960 start position number `n` (0..960, Scharnagl's numbering; 518 is the
/// standard start).
pub fn chess960_start(n: u32) -> Chess {
    let mut files: [Option<char>; 8] = [None; 8];
    let mut n = n % 960;
    files[(2 * (n % 4) + 1) as usize] = Some('b');
    n /= 4;
    files[(2 * (n % 4)) as usize] = Some('b');
    n /= 4;
    let place = |files: &mut [Option<char>; 8], k: u32, c: char| {
        let idx = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_none())
            .nth(k as usize)
            .unwrap()
            .0;
        files[idx] = Some(c);
    };
    place(&mut files, n % 6, 'q');
    n /= 6;
    let pairs = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = pairs[n as usize];
    // Place the second knight first so the first index is unaffected.
    place(&mut files, b, 'n');
    place(&mut files, a, 'n');
    place(&mut files, 0, 'r');
    place(&mut files, 0, 'k');
    place(&mut files, 0, 'r');
    let back: String = files.iter().map(|f| f.unwrap()).collect();
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1",
        back,
        back.to_ascii_uppercase()
    );
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Chess960)
        .unwrap()
}

/// Plays moves chosen by `choices` (each picks among the legal moves) from `start`.
pub fn random_walk(start: Chess, choices: &[u16]) -> Vec<Chess> {
    let mut out = vec![start.clone()];
    let mut pos = start;
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[c as usize % moves.len()];
        pos.play_unchecked(m);
        out.push(pos.clone());
    }
    out
}

/// Reads every game of a PGN text (no variants expected).
pub fn read_games(bytes: &[u8]) -> Vec<RawGame> {
    let mut reader = Reader::new(bytes);
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut Collect).unwrap() {
        out.push(g);
    }
    out
}

/// Byte offsets of the games of a PGN text: each game starts at an `[Event ` tag at the start
/// of a line.
pub fn game_offsets(bytes: &[u8]) -> Vec<u64> {
    let mut v = Vec::new();
    let needle = b"[Event ";
    for i in 0..bytes.len().saturating_sub(needle.len()) {
        if (i == 0 || bytes[i - 1] == b'\n') && &bytes[i..i + needle.len()] == needle {
            v.push(i as u64);
        }
    }
    v
}

/// Replays a game from the standard start: the positions (start included) and the moves.
pub fn replay(game: &RawGame) -> Option<(Vec<Chess>, Vec<shakmaty::Move>)> {
    let mut pos = match &game.fen {
        None => Chess::default(),
        Some(fen) => fen
            .parse::<Fen>()
            .ok()?
            .into_position(CastlingMode::Standard)
            .ok()?,
    };
    let mut positions = vec![pos.clone()];
    let mut moves = Vec::new();
    for san in &game.sans {
        let Ok(m) = san.san.to_move(&pos) else { break };
        pos.play_unchecked(m);
        positions.push(pos.clone());
        moves.push(m);
    }
    Some((positions, moves))
}
