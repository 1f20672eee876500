//! Compares the CTG reader field for field with the expected files written by an
//! independent Python reader (`/work/shared/data/ctg/*.expected*.jsonl`, see their `_meta`
//! line), and checks the whole-book facts of the format notes for PowerPlay17.

use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use tabiya_books::ctg::{
    CtgBook, Transform, decode_key, encode_key, encode_key_with_transform, normalise,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/ctg/");

fn lines(name: &str) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(format!("{DATA}{name}")).expect("expected file");
    let mut values: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let meta = values.remove(0);
    assert!(meta.get("_meta").is_some(), "first line is _meta");
    (meta["_meta"].clone(), values)
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned number: {v}"))
}

fn opt_u(v: &Value) -> Option<u64> {
    if v.is_null() { None } else { Some(u(v)) }
}

const LINE_FIELDS: &[&str] = &[
    "fen",
    "key",
    "hash",
    "probes",
    "color_flipped",
    "lr_mirrored",
    "found",
    "page",
    "total",
    "f1",
    "f2",
    "draws",
    "unk4",
    "rated_games",
    "rating_sum",
    "perf_games",
    "perf_sum",
    "recommendation",
    "unk1",
    "commentary",
    "stm_wins",
    "stm_losses",
    "moves",
    "line",
    "ply",
];
const MOVE_FIELDS: &[&str] = &[
    "code",
    "annotation",
    "uci",
    "san",
    "child_total",
    "mover_wins",
    "mover_losses",
    "draws",
    "child_recommendation",
    "child_commentary",
    "child_unk1",
    "child_rated_games",
    "child_avg_rating",
    "child_perf_games",
    "child_avg_perf",
];

fn check_book(stem: &str, expected: &str) -> usize {
    let book = CtgBook::open(format!("{DATA}{stem}.ctg")).expect("book opens");
    let (meta, lines) = lines(expected);
    assert_eq!(u64::from(book.games()), u(&meta["header_games_at_28"]));
    let bounds = meta["ctb_page_bounds"].as_array().expect("bounds");
    assert_eq!(u64::from(book.header().lower_bound), u(&bounds[0]));
    assert_eq!(u64::from(book.header().upper_bound), u(&bounds[1]));

    for line in &lines {
        let ctx = line["line"].as_str().expect("line").to_string();
        for k in line.as_object().expect("object").keys() {
            assert!(
                LINE_FIELDS.contains(&k.as_str()),
                "{ctx}: field {k} not checked"
            );
        }
        let fen: Fen = line["fen"]
            .as_str()
            .expect("fen")
            .parse()
            .expect("fen parses");
        let pos: Chess = fen.into_position(CastlingMode::Standard).expect("legal");

        // Key, hash, normalisation.
        let (key, t) = encode_key_with_transform(&pos).expect("encodes");
        assert_eq!(key.to_hex(), line["key"].as_str().unwrap(), "{ctx}: key");
        assert_eq!(u64::from(key.hash()), u(&line["hash"]), "{ctx}: hash");
        assert_eq!(
            t.flipped,
            line["color_flipped"].as_bool().unwrap(),
            "{ctx}: flipped"
        );
        assert_eq!(
            t.mirrored,
            line["lr_mirrored"].as_bool().unwrap(),
            "{ctx}: mirrored"
        );

        // The key decodes to the normalised position, and undoing the transform gives the
        // real position back.
        let decoded = decode_key(key.as_bytes()).expect("decodes");
        assert!(decoded.canonical, "{ctx}: canonical");
        let norm = normalise(&pos).expect("normalises");
        assert_eq!(
            decoded.position.board(),
            norm.position.board(),
            "{ctx}: board"
        );
        assert_eq!(
            decoded.position.castles().castling_rights(),
            norm.position.castles().castling_rights()
        );
        let real = t.undo(&decoded.position).expect("undo");
        assert_eq!(real.board(), pos.board(), "{ctx}: undo board");
        assert_eq!(real.turn(), pos.turn());
        assert_eq!(
            real.ep_square(EnPassantMode::Legal),
            pos.ep_square(EnPassantMode::Legal)
        );
        assert_eq!(
            real.castles().castling_rights(),
            pos.castles().castling_rights()
        );

        // Probe.
        let probe = book.probe(&pos).expect("probe");
        let probes: Vec<(u64, u64)> = line["probes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (u(&p[0]), u(&p[1])))
            .collect();
        let got: Vec<(u64, u64)> = probe
            .probes
            .iter()
            .map(|p| (u64::from(p.slot), u64::from(p.page.unwrap_or(0xFFFF_FFFF))))
            .collect();
        assert_eq!(got, probes, "{ctx}: probes");
        assert_eq!(
            probe.entry.is_some(),
            line["found"].as_bool().unwrap(),
            "{ctx}: found"
        );
        let Some(e) = &probe.entry else { continue };
        let tr = &e.trailer;
        assert_eq!(u64::from(e.page), u(&line["page"]), "{ctx}: page");
        assert_eq!(u64::from(tr.games), u(&line["total"]), "{ctx}: total");
        assert_eq!(u64::from(tr.wins), u(&line["f1"]), "{ctx}: f1");
        assert_eq!(u64::from(tr.losses), u(&line["f2"]), "{ctx}: f2");
        assert_eq!(u64::from(tr.wins), u(&line["stm_wins"]), "{ctx}: stm wins");
        assert_eq!(
            u64::from(tr.losses),
            u(&line["stm_losses"]),
            "{ctx}: stm losses"
        );
        assert_eq!(u64::from(tr.draws), u(&line["draws"]), "{ctx}: draws");
        let unk4: String = tr.unknown12.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(unk4, line["unk4"].as_str().unwrap(), "{ctx}: unk4");
        assert_eq!(u64::from(tr.rating_games), u(&line["rated_games"]), "{ctx}");
        assert_eq!(u64::from(tr.rating_sum), u(&line["rating_sum"]), "{ctx}");
        assert_eq!(
            u64::from(tr.performance_games),
            u(&line["perf_games"]),
            "{ctx}"
        );
        assert_eq!(u64::from(tr.performance_sum), u(&line["perf_sum"]), "{ctx}");
        assert_eq!(
            u64::from(tr.recommendation),
            u(&line["recommendation"]),
            "{ctx}"
        );
        assert_eq!(u64::from(tr.unknown31), u(&line["unk1"]), "{ctx}");
        assert_eq!(u64::from(tr.commentary), u(&line["commentary"]), "{ctx}");
        assert!(
            e.unknown_moves.is_empty(),
            "{ctx}: unknown moves {:?}",
            e.unknown_moves
        );

        let moves = line["moves"].as_array().unwrap();
        assert_eq!(e.moves.len(), moves.len(), "{ctx}: move count");
        let bp = probe.to_book_probe();
        assert!(bp.found);
        assert_eq!(bp.games, Some(u(&line["total"])));
        assert_eq!(bp.wins, Some(u(&line["stm_wins"])));
        assert_eq!(bp.losses, Some(u(&line["stm_losses"])));
        assert_eq!(bp.draws, Some(u(&line["draws"])));
        for ((m, x), b) in e.moves.iter().zip(moves).zip(&bp.moves) {
            for k in x.as_object().unwrap().keys() {
                assert!(
                    MOVE_FIELDS.contains(&k.as_str()),
                    "{ctx}: move field {k} not checked"
                );
            }
            let code = u8::from_str_radix(x["code"].as_str().unwrap().trim_start_matches("0x"), 16)
                .expect("hex code");
            let mctx = format!("{ctx} / {}", x["san"]);
            assert_eq!(m.code, code, "{mctx}: code");
            assert_eq!(
                u64::from(m.annotation),
                u(&x["annotation"]),
                "{mctx}: annotation"
            );
            assert_eq!(m.uci, x["uci"].as_str().unwrap(), "{mctx}: uci");
            assert_eq!(m.san, x["san"].as_str().unwrap(), "{mctx}: san");
            assert_eq!(b.uci, m.uci);
            assert_eq!(b.san, m.san);
            let c = m.child.expect("child found").trailer;
            assert_eq!(
                u64::from(c.games),
                u(&x["child_total"]),
                "{mctx}: child total"
            );
            assert_eq!(
                u64::from(c.losses),
                u(&x["mover_wins"]),
                "{mctx}: mover wins"
            );
            assert_eq!(
                u64::from(c.wins),
                u(&x["mover_losses"]),
                "{mctx}: mover losses"
            );
            assert_eq!(u64::from(c.draws), u(&x["draws"]), "{mctx}: draws");
            assert_eq!(
                u64::from(c.recommendation),
                u(&x["child_recommendation"]),
                "{mctx}"
            );
            assert_eq!(u64::from(c.commentary), u(&x["child_commentary"]), "{mctx}");
            assert_eq!(u64::from(c.unknown31), u(&x["child_unk1"]), "{mctx}");
            assert_eq!(
                u64::from(c.rating_games),
                u(&x["child_rated_games"]),
                "{mctx}"
            );
            assert_eq!(
                c.average_rating().map(u64::from),
                opt_u(&x["child_avg_rating"]),
                "{mctx}"
            );
            assert_eq!(
                u64::from(c.performance_games),
                u(&x["child_perf_games"]),
                "{mctx}"
            );
            assert_eq!(
                c.average_performance().map(u64::from),
                opt_u(&x["child_avg_perf"]),
                "{mctx}"
            );
            // The shared shape: mover's side.
            assert_eq!(b.games, Some(u(&x["child_total"])));
            assert_eq!(b.wins, Some(u(&x["mover_wins"])));
            assert_eq!(b.losses, Some(u(&x["mover_losses"])));
            assert_eq!(b.draws, Some(u(&x["draws"])));
            assert_eq!(
                b.average_rating.map(u64::from),
                opt_u(&x["child_avg_rating"])
            );
            assert_eq!(b.performance.map(|p| p as u64), opt_u(&x["child_avg_perf"]));
            assert_eq!(b.green, Some(u(&x["child_recommendation"]) & 0x80 != 0));
            assert_eq!(b.red, Some(u(&x["child_recommendation"]) & 0x40 != 0));
            assert_eq!(b.commentary.map(u64::from), Some(u(&x["child_commentary"])));
            assert_eq!(
                b.annotation.map(u64::from),
                Some(u(&x["annotation"]) & 0x1f).filter(|&n| n != 0)
            );
        }
    }
    lines.len()
}

#[test]
fn simple_matches_expected_file() {
    assert_eq!(check_book("simple", "simple.expected.jsonl"), 4);
}

#[test]
fn powerplay_matches_expected_file() {
    assert_eq!(
        check_book(
            "PowerPlay17-Sicilienne",
            "PowerPlay17-Sicilienne.expected_ply6.jsonl"
        ),
        28
    );
}

#[test]
fn start_position_check_values_from_the_notes() {
    let key = encode_key(&Chess::default()).unwrap();
    assert_eq!(key.to_hex(), "56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f");
    assert_eq!(key.len(), 22);
    assert_eq!(key.hash(), 0xEB7E_D3D7);
    // Exactly as stored in simple.ctg: first record of data page 0 is 1.e4 (22 bytes at
    // offset 4096 + 4), the second the start position.
    let ctg = std::fs::read(format!("{DATA}simple.ctg")).unwrap();
    let second = 4096 + 4 + 22 + 1 + 33;
    assert_eq!(&ctg[second..second + 22], key.as_bytes());
}

#[test]
fn powerplay_whole_book_facts() {
    let book = CtgBook::open(format!("{DATA}PowerPlay17-Sicilienne.ctb")).expect("opens by .ctb");
    let rep = book.walk();
    assert_eq!(rep.data_pages, 257);
    assert_eq!(rep.records, 13_305);
    assert_eq!(rep.header_games, 499);
    assert_eq!(rep.stored_moves, 13_406);
    assert_eq!(rep.legal_moves, 13_406);
    assert_eq!(rep.illegal_moves, 0);
    assert_eq!(rep.unknown_codes, 0);
    assert_eq!(rep.children_found, 13_406);
    assert_eq!(rep.children_missing, 0);
    assert_eq!(rep.found_via_cto, 13_305);
    assert_eq!(rep.not_found_via_cto, 0);
    assert_eq!(rep.undecodable_keys, 0);
    assert_eq!(rep.non_canonical_keys, 0);
    assert!(
        rep.is_clean(),
        "{:?}",
        &rep.problems[..rep.problems.len().min(5)]
    );
    // Records without castling bits and with en-passant bits, counted from the raw first
    // key bytes with a separate Python loop: every one of them decodes canonically, so the
    // mirror rule (king on e–h when stored) and the adjacency rule hold on real data.
    let (mut no_castling, mut ep) = (0, 0);
    for rp in book.positions() {
        let rp = rp.unwrap();
        assert!(rp.key_canonical);
        let first = rp.key.as_bytes()[0];
        if first & 0x40 == 0 {
            no_castling += 1;
            assert!(rp.position.position.castles().is_empty());
            let k = rp
                .position
                .position
                .board()
                .king_of(shakmaty::Color::White)
                .unwrap();
            assert!(k.file() >= shakmaty::File::E);
        }
        if first & 0x20 != 0 {
            ep += 1;
            assert!(
                rp.position
                    .position
                    .ep_square(EnPassantMode::Legal)
                    .is_some()
                    || rp.position.position.maybe_ep_square().is_some()
            );
        }
    }
    assert_eq!((no_castling, ep), (6263, 67));
    // The root record's total equals the header's game count.
    let root = book.probe(&Chess::default()).unwrap();
    assert_eq!(root.entry.unwrap().trailer.games, 499);
}

#[test]
fn simple_whole_book() {
    let book = CtgBook::open(format!("{DATA}simple")).expect("opens by stem");
    let rep = book.walk();
    assert_eq!(rep.data_pages, 1);
    assert_eq!(rep.records, 4);
    assert_eq!(rep.stored_moves, 3);
    assert_eq!(rep.children_found, 3);
    assert!(rep.is_clean(), "{:?}", rep.problems);
    // Every move of simple.ctg carries annotation byte 0xE0 (format notes).
    assert_eq!(rep.annotation_bytes.get(&0xE0), Some(&3));
}

#[test]
fn probing_mirrored_and_flipped_positions_of_the_book() {
    // Every record of PowerPlay17, probed as the real position with Black to move (colour
    // flip undone), finds the same record and the same moves.
    let book = CtgBook::open(format!("{DATA}PowerPlay17-Sicilienne.ctg")).unwrap();
    let mut checked = 0;
    for rp in book.positions() {
        let rp = rp.unwrap();
        let pos = &rp.position.position;
        for t in [
            Transform {
                flipped: true,
                mirrored: false,
            },
            Transform {
                flipped: false,
                mirrored: true,
            },
            Transform {
                flipped: true,
                mirrored: true,
            },
        ] {
            // Mirroring applies only without castling rights and with the king on e–h.
            if t.mirrored && !pos.castles().is_empty() {
                continue;
            }
            let real = t.undo(pos).unwrap();
            assert_eq!(Transform::of(&real), t);
            let probe = book.probe(&real).unwrap();
            let e = probe.entry.expect("found");
            assert_eq!(e.offset, rp.offset);
            assert_eq!(e.moves.len(), rp.position.moves.len());
            for (m, bm) in e.moves.iter().zip(&rp.position.moves) {
                // The real move is the normalised move mapped through the transform.
                let from = t.square(bm.mv.from().unwrap());
                assert_eq!(m.mv.from(), Some(from));
                assert_eq!(m.child.map(|c| c.trailer.mover_stats()), bm.stats);
            }
            checked += 1;
        }
    }
    assert!(checked > 13_305, "{checked}");
}
