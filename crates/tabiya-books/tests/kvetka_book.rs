//! Kvetka books written and read back: a book of the real TWIC games with the test's own
//! counts, the library's aggregator against those counts, splitting and concatenation,
//! reading without `.kin`, and property round trips.

mod kvetka_support;

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fs,
    path::{Path, PathBuf},
};

use kvetka_support::{DATA, RawGame, game_offsets, random_walk, read_games, replay};
use proptest::prelude::*;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role, fen::Fen};
use tabiya_books::{
    BookGame, BookMove, BookPosition, BookStats, GameResult, SourceRef,
    kvetka::{
        GameFilter, GameLink, IndexSource, KvetkaBook, KvetkaBookSpec, KvetkaGameInfo,
        KvetkaGameRef, KvetkaKey, KvetkaPositionInput, KvetkaSource, ReadOptions, aggregate_games,
        position_key, write_book,
    },
};

const TWIC: &str = "pgn/twic/twic0920.pgn";
const MAX_PLY: usize = 40;

fn twic_path() -> PathBuf {
    PathBuf::from(DATA).join(TWIC)
}

/// The test's own aggregation of one game set.
#[derive(Default)]
struct Expected {
    /// By key: one real position, w/d/l from the side to move, moves (as child keys) with the
    /// real move that produced them, some_game, last_games.
    entries: BTreeMap<KvetkaKey, Entry>,
    underpromotions: u64,
    /// Moves of a kind the mover has more of than the codes cover (3rd knight ...).
    crowded_moves: u64,
}

struct Entry {
    real: Chess,
    wins: u64,
    draws: u64,
    losses: u64,
    moves: Vec<(KvetkaKey, Move, Chess)>,
    crowded: bool,
    some_game: Option<u32>,
    last_games: Vec<u32>,
}

fn result_of(g: &RawGame) -> GameResult {
    match g.result.as_deref() {
        Some("1-0") => GameResult::WhiteWins,
        Some("0-1") => GameResult::BlackWins,
        Some("1/2-1/2") => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

fn codes_for(role: Role) -> usize {
    match role {
        Role::Pawn => 8,
        Role::Knight | Role::Bishop | Role::Rook => 2,
        Role::Queen => 3,
        Role::King => 1,
    }
}

fn expected_from(games: &[(Vec<Chess>, Vec<Move>, GameResult)], max_ply: usize) -> Expected {
    let mut exp = Expected::default();
    let mut odd: HashSet<(KvetkaKey, KvetkaKey)> = HashSet::new();
    for (gi, (positions, moves, result)) in games.iter().enumerate() {
        let last = positions.len().min(max_ply + 1) - 1;
        let mut seen = HashSet::new();
        let mut last_key = None;
        for (ply, pos) in positions.iter().enumerate().take(last + 1) {
            let (key, _) = position_key(pos).unwrap();
            let e = exp.entries.entry(key).or_insert_with(|| Entry {
                real: pos.clone(),
                wins: 0,
                draws: 0,
                losses: 0,
                moves: Vec::new(),
                crowded: false,
                some_game: None,
                last_games: Vec::new(),
            });
            if seen.insert(key) {
                let mover = pos.turn();
                match result {
                    GameResult::Draw => e.draws += 1,
                    GameResult::WhiteWins => {
                        if mover == Color::White {
                            e.wins += 1
                        } else {
                            e.losses += 1
                        }
                    }
                    GameResult::BlackWins => {
                        if mover == Color::Black {
                            e.wins += 1
                        } else {
                            e.losses += 1
                        }
                    }
                    GameResult::Unknown => {}
                }
                if e.some_game.is_none() {
                    e.some_game = Some(gi as u32);
                }
            }
            last_key = Some(key);
            if ply < last {
                let m = moves[ply];
                let mut child = pos.clone();
                child.play_unchecked(m);
                let (ck, _) = position_key(&child).unwrap();
                if e.moves.iter().any(|(k, _, _)| *k == ck) {
                    continue;
                }
                if matches!(m.promotion(), Some(r) if r != Role::Queen) {
                    if odd.insert((key, ck)) {
                        exp.underpromotions += 1;
                    }
                    continue;
                }
                let count =
                    (pos.board().by_color(pos.turn()) & pos.board().by_role(m.role())).count();
                if count > codes_for(m.role()) {
                    exp.crowded_moves += 1;
                    e.crowded = true;
                    continue;
                }
                e.moves.push((ck, m, pos.clone()));
            }
        }
        if let Some(k) = last_key {
            exp.entries.get_mut(&k).unwrap().last_games.push(gi as u32);
        }
    }
    exp
}

struct Twic {
    raw: Vec<RawGame>,
    replayed: Vec<(Vec<Chess>, Vec<Move>, GameResult)>,
    offsets: Vec<u64>,
    lengths: Vec<u64>,
    bytes: Vec<u8>,
}

fn twic() -> Twic {
    let bytes = fs::read(twic_path()).unwrap();
    let raw = read_games(&bytes);
    let offsets = game_offsets(&bytes);
    assert_eq!(raw.len(), 2245, "TWIC 920 holds 2,245 games");
    assert_eq!(offsets.len(), raw.len());
    let lengths = offsets
        .iter()
        .enumerate()
        .map(|(i, &o)| offsets.get(i + 1).copied().unwrap_or(bytes.len() as u64) - o)
        .collect();
    let replayed = raw
        .iter()
        .map(|g| {
            let (p, m) = replay(g).unwrap();
            (p, m, result_of(g))
        })
        .collect();
    Twic {
        raw,
        replayed,
        offsets,
        lengths,
        bytes,
    }
}

fn source_ref(t: &Twic, gi: u32) -> KvetkaGameRef {
    KvetkaGameRef {
        game: gi,
        source: SourceRef {
            file: 0,
            offset: t.offsets[gi as usize],
            length: t.lengths[gi as usize],
        },
    }
}

/// ECO names from the shared tables (lichess chess-openings, CC0): position after the line's
/// moves → (eco, name, variation), name and variation split at ": ".
fn eco_table() -> HashMap<String, (String, String, Option<String>)> {
    let mut map = HashMap::new();
    for f in ["a", "b", "c", "d", "e"] {
        let text = fs::read_to_string(PathBuf::from(DATA).join(format!("eco/{f}.tsv"))).unwrap();
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let mut pos = Chess::default();
            for tok in cols[2].split_whitespace() {
                if tok.ends_with('.') {
                    continue;
                }
                let m = tok
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                pos.play_unchecked(m);
            }
            let (name, var) = match cols[1].split_once(": ") {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (cols[1].to_string(), None),
            };
            map.insert(fen_key(&pos), (cols[0].to_string(), name, var));
        }
    }
    map
}

fn fen_key(pos: &Chess) -> String {
    let f = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    f.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

fn inputs_from(t: &Twic, exp: &Expected) -> Vec<KvetkaPositionInput> {
    exp.entries
        .values()
        .map(|e| KvetkaPositionInput {
            position: BookPosition {
                position: e.real.clone(),
                stats: Some(BookStats {
                    games: e.wins + e.draws + e.losses,
                    wins: e.wins,
                    draws: e.draws,
                    losses: e.losses,
                    ..BookStats::default()
                }),
                recommendation: None,
                commentary: None,
                // Moves are given in the position they were played from; when that position
                // is a twin of `real` (same key), map through the child instead: the writer
                // takes moves of `real`, so only moves played from `real` itself are given,
                // and twins' moves are found through their child keys below.
                moves: e
                    .moves
                    .iter()
                    .filter_map(|(ck, m, from)| {
                        if from == &e.real {
                            Some(*m)
                        } else {
                            e.real.legal_moves().into_iter().find(|x| {
                                let mut c = e.real.clone();
                                c.play_unchecked(*x);
                                position_key(&c).unwrap().0 == *ck
                            })
                        }
                    })
                    .map(|mv| BookMove {
                        mv,
                        annotation: None,
                        weight: None,
                        learn: None,
                        stats: None,
                        green: None,
                        red: None,
                        commentary: None,
                    })
                    .collect(),
            },
            some_game: e.some_game.map(|g| source_ref(t, g)),
            last_games: e.last_games.iter().map(|&g| source_ref(t, g)).collect(),
        })
        .collect()
}

fn spec<'a>(t: &Twic, eco: Option<&'a tabiya_books::kvetka::EcoLookup<'a>>) -> KvetkaBookSpec<'a> {
    KvetkaBookSpec {
        caption: "TWIC 920".into(),
        max_move: MAX_PLY as u8,
        sources: vec![KvetkaSource {
            address: twic_path().to_string_lossy().into_owned(),
            source_type: 1,
            is_bad: false,
        }],
        game_info: t
            .raw
            .iter()
            .enumerate()
            .map(|(i, g)| {
                (
                    (0, i as u32),
                    KvetkaGameInfo {
                        white: g.white.clone().unwrap_or_default(),
                        black: g.black.clone().unwrap_or_default(),
                        white_elo: g.white_elo.unwrap_or(0),
                        black_elo: g.black_elo.unwrap_or(0),
                        result: Some(result_of(g)),
                    },
                )
            })
            .collect(),
        eco,
        ..KvetkaBookSpec::default()
    }
}

/// Checks every expected position against the book.
fn check_against(book: &KvetkaBook, t: &Twic, exp: &Expected, trimmed: bool) {
    let mut checked_links = 0;
    for (key, e) in &exp.entries {
        let p = book.probe(&e.real).unwrap();
        assert!(p.found, "{}", fen_key(&e.real));
        assert_eq!(
            (p.wins, p.draws, p.losses),
            (Some(e.wins), Some(e.draws), Some(e.losses)),
            "{}",
            fen_key(&e.real)
        );
        // Moves: the set of child keys.
        let got: HashSet<KvetkaKey> = p
            .moves
            .iter()
            .map(|m| {
                let mv = shakmaty::uci::UciMove::from_ascii(m.uci.as_bytes())
                    .unwrap()
                    .to_move(&e.real)
                    .unwrap();
                let mut c = e.real.clone();
                c.play_unchecked(mv);
                position_key(&c).unwrap().0
            })
            .collect();
        let want: HashSet<KvetkaKey> = e.moves.iter().map(|(k, _, _)| *k).collect();
        if !e.crowded {
            assert_eq!(got, want, "{}", fen_key(&e.real));
        }
        // Move stats come from the children, from the mover's side.
        for m in &p.moves {
            let mv = shakmaty::uci::UciMove::from_ascii(m.uci.as_bytes())
                .unwrap()
                .to_move(&e.real)
                .unwrap();
            let mut c = e.real.clone();
            c.play_unchecked(mv);
            let ck = position_key(&c).unwrap().0;
            if let Some(child) = exp.entries.get(&ck) {
                assert_eq!(
                    (m.wins, m.draws, m.losses),
                    (Some(child.losses), Some(child.draws), Some(child.wins))
                );
            }
        }
        let d = book.probe_detail(&e.real).unwrap();
        assert_eq!(d.key, *key);
        let el = d.element.unwrap();
        assert_eq!(
            el.raw.some_game,
            e.some_game.map(|g| GameLink { source: 0, game: g })
        );
        let links: Vec<u32> = el
            .raw
            .last_games
            .clone()
            .unwrap_or_default()
            .iter()
            .map(|l| l.game)
            .collect();
        if trimmed {
            assert!(e.last_games.starts_with(&links));
        } else {
            assert_eq!(links, e.last_games);
        }
        // The first linked game's text starts at the stored offset and is the game's.
        if let Some(g) = e.some_game
            && checked_links < 200
        {
            checked_links += 1;
            let src = book.game_source(GameLink { source: 0, game: g }).unwrap();
            assert_eq!(src.path.as_deref(), Some(twic_path().as_path()));
            let text = &t.bytes[src.offset as usize..(src.offset + src.length) as usize];
            assert!(text.starts_with(b"[Event "));
            let white = t.raw[g as usize].white.clone().unwrap();
            assert_eq!(src.game.white, white);
            let needle = format!("[White \"{white}\"]");
            assert!(String::from_utf8_lossy(text).contains(&needle));
        }
    }
}

#[test]
fn twic_book_written_and_read_back() {
    let t = twic();
    let exp = expected_from(&t.replayed, MAX_PLY);
    let eco = eco_table();
    let lookup = |p: &Chess| eco.get(&fen_key(p)).cloned();
    let dir = tempfile::tempdir().unwrap();
    let report = write_book(
        dir.path(),
        "twic",
        &spec(&t, Some(&lookup)),
        inputs_from(&t, &exp),
    )
    .unwrap();
    println!("{report:?}");
    assert_eq!(report.elements, exp.entries.len() as u64);
    assert_eq!(report.positions_skipped, 0);
    assert_eq!(report.moves_skipped_underpromotion, 0);
    assert_eq!(report.moves_skipped_other, 0);
    assert!(report.comments_written > 100, "{report:?}");
    let book = KvetkaBook::open(dir.path().join("twic")).unwrap();
    assert_eq!(book.index_source(), IndexSource::Kin);
    assert!(book.verify().unwrap().is_empty());
    check_against(&book, &t, &exp, report.game_links_trimmed > 0);

    // The same files handed over as bytes (`from_bytes`, what the fuzz target reads) give
    // the same book, its .kin and .ksf used.
    let read = |name: &str| fs::read(dir.path().join(name)).unwrap();
    let memory = KvetkaBook::from_bytes(
        read("twic_0.kob"),
        Some(read("twic.kin")),
        Some(read("twic.ksf")),
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(memory.index_source(), IndexSource::Kin);
    assert!(memory.sources().is_some());
    check_against(&memory, &t, &exp, report.game_links_trimmed > 0);
    // A .kin of the wrong length is named as the in-memory book's.
    let err = KvetkaBook::from_bytes(
        read("twic_0.kob"),
        Some(vec![0; 5]),
        None,
        ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("<memory>.kin") && err.contains(".kin holds 5 bytes"),
        "{err}"
    );

    // ECO comments where the tables name the position.
    let mut after = Chess::default();
    for san in [
        "e4", "c5", "Nf3", "Nc6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "e5",
    ] {
        let m = san
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&after)
            .unwrap();
        after.play_unchecked(m);
    }
    if book.probe(&after).unwrap().found {
        let d = book.probe_detail(&after).unwrap();
        let eco = d.eco.expect("ECO comment");
        assert_eq!(eco.eco, "B33");
        assert_eq!(eco.name, "Sicilian Defense");
    }

    // Without the .kin the book reads the same.
    fs::remove_file(dir.path().join("twic.kin")).unwrap();
    let book = KvetkaBook::open(dir.path().join("twic")).unwrap();
    assert_eq!(book.index_source(), IndexSource::Scanned);
    check_against(&book, &t, &exp, report.game_links_trimmed > 0);

    // The library's own aggregator agrees with the test's counts.
    let games: Vec<BookGame> = t
        .replayed
        .iter()
        .enumerate()
        .map(|(i, (p, m, r))| BookGame {
            start: p[0].clone(),
            standard_start: true,
            moves: m.clone(),
            result: *r,
            white_elo: t.raw[i].white_elo,
            black_elo: t.raw[i].black_elo,
            year: None,
            source: Some(source_ref(&t, i as u32).source),
        })
        .collect();
    let filter = GameFilter {
        max_move: MAX_PLY as u8,
        ..GameFilter::default()
    };
    let (inputs, agg) = aggregate_games(
        games.iter().enumerate().map(|(i, g)| (i as u32, g)),
        &filter,
    );
    assert_eq!(agg.games_added, 2245);
    let dir2 = tempfile::tempdir().unwrap();
    let report2 = write_book(dir2.path(), "agg", &spec(&t, None), inputs).unwrap();
    assert_eq!(report2.elements, exp.entries.len() as u64);
    assert_eq!(report2.moves_skipped_underpromotion, exp.underpromotions);
    let book2 = KvetkaBook::open(dir2.path().join("agg")).unwrap();
    check_against(&book2, &t, &exp, report2.game_links_trimmed > 0);

    // Rating filters: only games where both players have at least 2600.
    let strong = GameFilter {
        min_weaker_elo: 2600,
        max_move: MAX_PLY as u8,
        ..GameFilter::default()
    };
    let (_, agg) = aggregate_games(
        games.iter().enumerate().map(|(i, g)| (i as u32, g)),
        &strong,
    );
    let expected_strong = t
        .raw
        .iter()
        .filter(|g| g.white_elo.unwrap_or(0) >= 2600 && g.black_elo.unwrap_or(0) >= 2600)
        .count() as u64;
    assert_eq!(agg.games_added, expected_strong);
    assert_eq!(agg.games_filtered, 2245 - expected_strong);
}

fn concat(files: &[PathBuf], to: &Path) {
    let mut all = Vec::new();
    for f in files {
        all.extend(fs::read(f).unwrap());
    }
    fs::write(to, all).unwrap();
}

#[test]
fn split_books_and_concatenation() {
    let t = twic();
    // The first 300 games, whole, so that the book has many blocks.
    let exp = expected_from(&t.replayed[..300], 0xFF);
    let dir = tempfile::tempdir().unwrap();
    let threshold = 8 * 2048;
    let s = KvetkaBookSpec {
        split_threshold: threshold,
        ..spec(&t, None)
    };
    let report = write_book(dir.path(), "split", &s, inputs_from(&t, &exp)).unwrap();
    let kobs: Vec<PathBuf> = report
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "kob"))
        .cloned()
        .collect();
    assert!(kobs.len() > 5, "{} files", kobs.len());
    for (i, f) in kobs.iter().enumerate() {
        assert!(f.ends_with(format!("split_{i}.kob")));
        let len = fs::metadata(f).unwrap().len();
        assert!(len <= threshold, "{} is {len} bytes", f.display());
        if i > 0 {
            assert_eq!(len % 2048, 0, "only whole blocks after the header file");
        }
    }
    let book = KvetkaBook::open(dir.path().join("split")).unwrap();
    assert_eq!(book.kob_files().len(), kobs.len());
    check_against(&book, &t, &exp, report.game_links_trimmed > 0);

    // All files concatenated into one book.
    let cat = tempfile::tempdir().unwrap();
    concat(&kobs, &cat.path().join("whole.kob"));
    fs::copy(dir.path().join("split.kin"), cat.path().join("whole.kin")).unwrap();
    fs::copy(dir.path().join("split.ksf"), cat.path().join("whole.ksf")).unwrap();
    let book = KvetkaBook::open(cat.path().join("whole.kob")).unwrap();
    assert_eq!(book.kob_files().len(), 1);
    check_against(&book, &t, &exp, report.game_links_trimmed > 0);

    // Consecutive files 1..=3 concatenated, the rest renumbered.
    let part = tempfile::tempdir().unwrap();
    fs::copy(&kobs[0], part.path().join("part_0.kob")).unwrap();
    concat(&kobs[1..4], &part.path().join("part_1.kob"));
    for (i, f) in kobs[4..].iter().enumerate() {
        fs::copy(f, part.path().join(format!("part_{}.kob", i + 2))).unwrap();
    }
    fs::copy(dir.path().join("split.ksf"), part.path().join("part.ksf")).unwrap();
    let book = KvetkaBook::open(part.path().join("part")).unwrap();
    assert_eq!(book.kob_files().len(), kobs.len() - 2);
    assert_eq!(book.index_source(), IndexSource::Scanned);
    check_against(&book, &t, &exp, report.game_links_trimmed > 0);

    // A missing middle file is an error naming the first file's block count.
    fs::remove_file(part.path().join("part_1.kob")).unwrap();
    assert!(KvetkaBook::open(part.path().join("part")).is_err());

    // Rewriting with a larger threshold removes the now stale numbered files.
    let s = KvetkaBookSpec {
        split_threshold: 1 << 30,
        ..spec(&t, None)
    };
    write_book(dir.path(), "split", &s, inputs_from(&t, &exp)).unwrap();
    assert!(!dir.path().join("split_1.kob").exists());
    let book = KvetkaBook::open(dir.path().join("split")).unwrap();
    check_against(&book, &t, &exp, false);
}

#[test]
fn element_size_limit_trims_game_links() {
    // One position reached by 500 games: the links cannot all fit in 682 bytes.
    let refs: Vec<KvetkaGameRef> = (0..500)
        .map(|g| KvetkaGameRef {
            game: g,
            source: SourceRef {
                file: 0,
                offset: u64::from(g) * 1000,
                length: 1000,
            },
        })
        .collect();
    let input = KvetkaPositionInput {
        position: BookPosition {
            position: Chess::default(),
            stats: Some(BookStats {
                games: 500,
                wins: 200,
                draws: 100,
                losses: 200,
                ..BookStats::default()
            }),
            recommendation: None,
            commentary: None,
            moves: Vec::new(),
        },
        some_game: Some(refs[0].clone()),
        last_games: refs,
    };
    let dir = tempfile::tempdir().unwrap();
    let s = KvetkaBookSpec {
        sources: vec![KvetkaSource {
            address: "/x.pgn".into(),
            source_type: 1,
            is_bad: false,
        }],
        ..KvetkaBookSpec::default()
    };
    let report = write_book(dir.path(), "big", &s, vec![input]).unwrap();
    // Whatever is kept, kept + trimmed = 500 and the element fits.
    let book = KvetkaBook::open(dir.path().join("big")).unwrap();
    let e = book
        .probe_detail(&Chess::default())
        .unwrap()
        .element
        .unwrap();
    let kept = e.raw.last_games.unwrap().len() as u64;
    assert_eq!(kept + report.game_links_trimmed, 500);
    assert!(report.game_links_trimmed > 0);
    // Element: length(2) + key 22 + wins 2 + draws 1 + losses 2 + move_number 1 + flags 1
    // + some_source 6 + count (1 byte below 128) + 6 per link <= 682 → at most 107 links
    // (2 + 35 + 1 + 6 * 107 = 680; 108 links make 686).
    assert_eq!(kept, 107);
    assert_eq!(e.raw.some_game, Some(GameLink { source: 0, game: 0 }));
}

#[test]
fn underpromotions_and_crowded_pieces_are_counted() {
    // White to move can promote on b8 in four ways; only the queen promotion has a code.
    let pos: Chess = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    // Three white knights: the one on h1 is the 3rd in key order (b1, c1 before it).
    let knights: Chess = "4k3/8/8/8/8/8/8/1NN1K2N w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mk = |pos: &Chess, moves: Vec<Move>| KvetkaPositionInput {
        position: BookPosition {
            position: pos.clone(),
            stats: None,
            recommendation: None,
            commentary: None,
            moves: moves
                .into_iter()
                .map(|mv| BookMove {
                    mv,
                    annotation: None,
                    weight: None,
                    learn: None,
                    stats: None,
                    green: None,
                    red: None,
                    commentary: None,
                })
                .collect(),
        },
        some_game: None,
        last_games: Vec::new(),
    };
    let promos: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.promotion().is_some())
        .collect();
    assert_eq!(promos.len(), 4);
    let h1_moves: Vec<Move> = knights
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == Some(shakmaty::Square::H1))
        .collect();
    let b1_moves: Vec<Move> = knights
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == Some(shakmaty::Square::B1))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let report = write_book(
        dir.path(),
        "odd",
        &KvetkaBookSpec::default(),
        vec![
            mk(&pos, promos),
            mk(&knights, [h1_moves.clone(), b1_moves.clone()].concat()),
        ],
    )
    .unwrap();
    assert_eq!(report.moves_skipped_underpromotion, 3);
    assert_eq!(report.moves_skipped_piece_number, h1_moves.len() as u64);
    let book = KvetkaBook::open(dir.path().join("odd")).unwrap();
    let p = book.probe(&pos).unwrap();
    assert_eq!(p.moves.len(), 1);
    assert_eq!(p.moves[0].uci, "b7b8q");
    // The knights position has no castling rights and its king on e1: not mirrored, so
    // b1 is the 1st knight and its moves are all kept.
    let p = book.probe(&knights).unwrap();
    assert_eq!(p.moves.len(), b1_moves.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random games from the start: every position written with random totals and the move
    /// played from it reads back with the sums over its key.
    #[test]
    fn random_positions_round_trip(
        walks in prop::collection::vec(prop::collection::vec(any::<u16>(), 0..120), 1..6),
        seed in any::<u64>(),
    ) {
        let mut expected: HashMap<KvetkaKey, (u64, u64, u64, HashSet<KvetkaKey>, Chess)> = HashMap::new();
        let mut inputs = Vec::new();
        let mut n = seed;
        let mut next = || { n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (n >> 33) % 50 };
        for w in &walks {
            let positions = random_walk(Chess::default(), w);
            for (i, pos) in positions.iter().enumerate() {
                let (key, _) = position_key(pos).unwrap();
                let (wi, d, l) = (next(), next(), next());
                let mut moves = Vec::new();
                let e = expected.entry(key).or_insert_with(|| (0, 0, 0, HashSet::new(), pos.clone()));
                e.0 += wi; e.1 += d; e.2 += l;
                if let Some(child) = positions.get(i + 1) {
                    let mv = pos.legal_moves().into_iter().find(|m| {
                        let mut c = pos.clone(); c.play_unchecked(*m); c == *child
                    }).unwrap();
                    let expressible = !matches!(mv.promotion(), Some(r) if r != Role::Queen)
                        && (pos.board().by_color(pos.turn()) & pos.board().by_role(mv.role())).count() <= codes_for(mv.role());
                    if expressible {
                        e.3.insert(position_key(child).unwrap().0);
                        moves.push(BookMove { mv, annotation: None, weight: None, learn: None, stats: None, green: None, red: None, commentary: None });
                    }
                }
                inputs.push(KvetkaPositionInput {
                    position: BookPosition { position: pos.clone(), stats: Some(BookStats { games: wi + d + l, wins: wi, draws: d, losses: l, ..BookStats::default() }), recommendation: None, commentary: None, moves },
                    some_game: None,
                    last_games: Vec::new(),
                });
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let report = write_book(dir.path(), "p", &KvetkaBookSpec { split_threshold: 4 * 2048, ..KvetkaBookSpec::default() }, inputs).unwrap();
        prop_assert_eq!(report.elements, expected.len() as u64);
        let book = KvetkaBook::open(dir.path().join("p")).unwrap();
        prop_assert!(book.verify().unwrap().is_empty());
        for (w, d, l, children, pos) in expected.values() {
            let p = book.probe(pos).unwrap();
            prop_assert!(p.found);
            prop_assert_eq!((p.wins, p.draws, p.losses), (Some(*w), Some(*d), Some(*l)));
            let got: HashSet<KvetkaKey> = p.moves.iter().map(|m| {
                let mv = shakmaty::uci::UciMove::from_ascii(m.uci.as_bytes()).unwrap().to_move(pos).unwrap();
                let mut c = pos.clone(); c.play_unchecked(mv); position_key(&c).unwrap().0
            }).collect();
            prop_assert_eq!(&got, children);
        }
        let (all, bad) = book.read_positions().unwrap();
        prop_assert_eq!(bad, 0);
        prop_assert_eq!(all.len(), expected.len());
    }
}

#[test]
fn links_flag_adds_transpositions() {
    // Game A: 1.e4 e5 2.Nf3; game B: 1.Nf3 e5 (and no further move given). With `links`, the
    // writer adds 2.e4 to the position after 1.Nf3 e5, which leads to A's final position.
    let play = |sans: &[&str]| {
        let mut p = Chess::default();
        let mut out = vec![p.clone()];
        for s in sans {
            let m = s
                .parse::<shakmaty::san::San>()
                .unwrap()
                .to_move(&p)
                .unwrap();
            p.play_unchecked(m);
            out.push(p.clone());
        }
        out
    };
    let a = play(&["e4", "e5", "Nf3"]);
    let b = play(&["Nf3", "e5"]);
    let input = |pos: &Chess, next: Option<&Chess>| KvetkaPositionInput {
        position: BookPosition {
            position: pos.clone(),
            stats: Some(BookStats {
                games: 1,
                wins: 1,
                ..BookStats::default()
            }),
            recommendation: None,
            commentary: None,
            moves: next
                .map(|n| {
                    let mv = pos
                        .legal_moves()
                        .into_iter()
                        .find(|m| {
                            let mut c = pos.clone();
                            c.play_unchecked(*m);
                            c == *n
                        })
                        .unwrap();
                    BookMove {
                        mv,
                        annotation: None,
                        weight: None,
                        learn: None,
                        stats: None,
                        green: None,
                        red: None,
                        commentary: None,
                    }
                })
                .into_iter()
                .collect(),
        },
        some_game: None,
        last_games: Vec::new(),
    };
    let mut inputs = Vec::new();
    for line in [&a, &b] {
        for (i, p) in line.iter().enumerate() {
            inputs.push(input(p, line.get(i + 1)));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let s = KvetkaBookSpec {
        links: true,
        ..KvetkaBookSpec::default()
    };
    let report = write_book(dir.path(), "links", &s, inputs.clone()).unwrap();
    // The start position appears in both lines: merged once.
    assert_eq!(report.merged_positions, 1);
    assert_eq!(report.links_added, 1);
    let book = KvetkaBook::open(dir.path().join("links")).unwrap();
    assert_eq!(book.header().links, 1);
    let p = book.probe(&b[2]).unwrap();
    let ucis: Vec<&str> = p.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, ["e2e4"]);
    // The start position holds both first moves, its stats summed over the two inputs.
    let p = book.probe(&a[0]).unwrap();
    assert_eq!(p.wins, Some(2));
    let mut ucis: Vec<&str> = p.moves.iter().map(|m| m.uci.as_str()).collect();
    ucis.sort();
    assert_eq!(ucis, ["e2e4", "g1f3"]);
    // Without `links` the transposition is not added.
    let report = write_book(dir.path(), "nolinks", &KvetkaBookSpec::default(), inputs).unwrap();
    assert_eq!(report.links_added, 0);
    let book = KvetkaBook::open(dir.path().join("nolinks")).unwrap();
    assert!(book.probe(&b[2]).unwrap().moves.is_empty());
}
