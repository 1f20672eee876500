use super::build::{Built, sort_range};
use super::encoder::{Emitted, RunEncoder};
use super::record::{Elsewhere, SEntry, TRecord};
use super::*;
use crate::stats::{GameFacts, GameOutcome};

fn facts(g: u32) -> GameFacts {
    GameFacts {
        speed: None,
        outcome: Some(if g.is_multiple_of(3) {
            GameOutcome::FirstWins
        } else if g % 3 == 1 {
            GameOutcome::Draw
        } else {
            GameOutcome::SecondWins
        }),
        ratings: [Some(2000 + 2 * g as u16), Some(2100)],
        year: Some(2000),
        date: 20000101,
        values: None,
    }
}

fn encode_all(recs: &[TRecord], singles: &[SEntry]) -> Vec<Emitted> {
    let mut enc = RunEncoder::default();
    let mut emitted = Vec::new();
    for r in recs {
        enc.push_record(r, &mut |e| emitted.push(e));
    }
    for s in singles {
        enc.push_single(*s, &mut |e| emitted.push(e));
    }
    enc.finish(&mut |e| emitted.push(e));
    emitted
}

#[test]
fn build_splits_by_threshold_and_blocks_round_trip() {
    let mut occs = Vec::new();
    for g in 0..20u32 {
        occs.push(Occ {
            key: 42,
            game: g,
            code: (g % 2) as u16,
            mover: 0,
        });
        occs.push(Occ {
            key: (g as u128 % 5) << 100 | (g as u128 % 2),
            game: g,
            code: 1,
            mover: 1,
        });
    }
    let Built {
        records: recs,
        singles,
        sketch: hll,
        ..
    } = build(&occs, &facts, None);
    let singles = singles.to_vec();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].n_postings, 20);
    assert_eq!(recs[0].totals().games(), 20);
    assert_eq!(recs[0].top.len(), TOP_GAMES);
    assert_eq!(recs[0].top[0].game, 19); // highest rated
    assert_eq!(singles.len(), 20);
    assert_eq!(hll.estimate(), 11);
    let mut got_s = Vec::new();
    for e in &encode_all(&recs, &singles) {
        match e {
            Emitted::TBlock(first, b) => {
                assert_eq!(*first, 42);
                let rec = find_in_t_block(b, 42).unwrap().unwrap();
                assert_eq!(rec.moves, recs[0].moves);
                assert!(find_in_t_block(b, 41).unwrap().is_none());
            }
            Emitted::SBlock(_, b) => got_s.extend(decode_s_block(b).unwrap()),
            Emitted::Postings(..) => unreachable!("20 postings are inline"),
        }
    }
    assert_eq!(got_s, singles);
}

#[test]
fn s_blocks_fit_pages_and_never_split_a_prefix() {
    // Pseudo-random prefixes with some repeated, as a big run would have.
    let mut singles: Vec<SEntry> = (0..200_000u64)
        .map(|i| {
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            SEntry {
                prefix: ((x >> 32) as u32) & !0xF,
                game: (x as u32) % 1_000_000,
                pred: x & 1 == 1,
            }
        })
        .collect();
    singles.sort_unstable();
    let emitted = encode_all(&[], &singles);
    let mut got = Vec::new();
    let mut firsts = Vec::new();
    for e in &emitted {
        if let Emitted::SBlock(first, b) = e {
            assert!(b.len() <= BLOCK_BYTES, "block of {} bytes", b.len());
            let d = decode_s_block(b).unwrap();
            assert_eq!(d[0].prefix, *first);
            firsts.push(*first);
            got.extend(d);
        }
    }
    assert_eq!(got, singles);
    // No prefix spans two blocks.
    for w in firsts.windows(2) {
        assert!(w[0] < w[1]);
    }
    // Rice coding costs about log2(mean gap) + 1.5 bits a gap; games take 20 bits here.
    let bits = 8.0
        * emitted
            .iter()
            .map(|e| {
                if let Emitted::SBlock(_, b) = e {
                    b.len()
                } else {
                    0
                }
            })
            .sum::<usize>() as f64
        / singles.len() as f64;
    let bound = ((1u64 << 32) as f64 / 200_000.0).log2() + 2.0 + 21.0;
    assert!(
        bits < bound,
        "{bits} bits per entry, expected under {bound}"
    );
}

#[test]
fn every_other_rare_position_is_implicit() {
    // Game 1: positions 1..=6 (plies 0..=5), all rare. Game 2: positions 100, 3, 101 —
    // position 3 is shared but still rare. Position 50 is in 8 games (a T record) at ply 0.
    let mut occs = Vec::new();
    let mut plies = Vec::new();
    for (k, ply) in [(1u128, 0u16), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5)] {
        occs.push(Occ {
            key: k << 96 | k,
            game: 1,
            code: 0,
            mover: 0,
        });
        plies.push(ply);
    }
    for (k, ply) in [(100u128, 0u16), (3, 1), (101, 3)] {
        occs.push(Occ {
            key: k << 96 | k,
            game: 2,
            code: 0,
            mover: 0,
        });
        plies.push(ply);
    }
    for g in 10..18 {
        occs.push(Occ {
            key: 50u128 << 96 | 50,
            game: g,
            code: 0,
            mover: 0,
        });
        plies.push(0);
        occs.push(Occ {
            key: (g as u128 + 1000) << 96,
            game: g,
            code: 0,
            mover: 0,
        });
        plies.push(1);
    }
    let b = build(&occs, &facts, Some(&plies));
    assert_eq!(b.records.len(), 1);
    let has = |k: u128, g: u32| {
        b.singles
            .iter()
            .find(|e| e.prefix == k as u32 && e.game == g)
    };
    // Game 1 from the end: 6 explicit, 5 implicit, 4 explicit (pred), 3 implicit, 2
    // explicit (pred), 1 implicit.
    assert!(has(6, 1).unwrap().pred);
    assert!(has(5, 1).is_none());
    assert!(has(4, 1).unwrap().pred);
    assert!(has(3, 1).is_none());
    assert!(has(2, 1).unwrap().pred);
    assert!(has(1, 1).is_none());
    // Game 2: 101 is two plies after 3 (a repetition was skipped): 3 stays explicit.
    assert!(!has(101, 2).unwrap().pred);
    assert!(has(3, 2).unwrap().pred);
    assert!(has(100, 2).is_none());
    // After a T position nothing is implicit; the T position itself never is.
    for g in 10..18 {
        assert!(!has(g as u128 + 1000, g).unwrap().pred);
    }
    assert_eq!(b.implicit, 4);
}

#[test]
fn build_groups_equal_keys_even_when_they_share_48_bits() {
    // Keys of many sizes of group, spread over the 16-bit ranges, and pairs of keys that
    // differ only in their low 80 bits (the part the build's sort does not look at).
    let mut occs = Vec::new();
    let mut game = 0u32;
    let mut push = |key: u128, copies: u32, occs: &mut Vec<Occ>| {
        for _ in 0..copies {
            occs.push(Occ {
                key,
                game,
                code: (game % 3) as u16,
                mover: 0,
            });
            game += 1;
        }
    };
    for i in 0..3_000u64 {
        let key = (i as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
        push(key, (i % 13) as u32 + 1, &mut occs);
        if i % 50 == 0 {
            // Near twins: the same top 80 bits, or the same top 48 bits.
            push(key ^ 1, 9, &mut occs);
            push(key ^ (1 << 47), (i % 9) as u32 + 1, &mut occs);
            push(key ^ (1 << 79), 8 + (i % 3) as u32, &mut occs);
        }
    }
    // Interleave, as games of a batch would.
    let n = occs.len();
    let mut shuffled: Vec<Occ> = (0..n).map(|i| occs[(i * 7919) % n]).collect();
    for (i, o) in shuffled.iter_mut().enumerate() {
        o.game = i as u32;
    }
    let b = build(&shuffled, &facts, None);
    let mut by_key: std::collections::BTreeMap<u128, Vec<u32>> = std::collections::BTreeMap::new();
    for o in &shuffled {
        by_key.entry(o.key).or_default().push(o.game);
    }
    let expect: Vec<(u128, u64)> = by_key
        .iter()
        .filter(|(_, g)| g.len() >= PROMOTE_AT)
        .map(|(k, g)| (*k, g.len() as u64))
        .collect();
    let got: Vec<(u128, u64)> = b.records.iter().map(|r| (r.key, r.n_postings)).collect();
    assert_eq!(got, expect);
    let mut singles_expect: Vec<SEntry> = by_key
        .iter()
        .filter(|(_, g)| g.len() < PROMOTE_AT)
        .flat_map(|(k, g)| {
            g.iter().map(|&game| SEntry {
                prefix: prefix(*k),
                game,
                pred: false,
            })
        })
        .collect();
    singles_expect.sort_unstable();
    assert_eq!(b.singles.to_vec(), singles_expect);
    let twins = b
        .records
        .iter()
        .filter(|r| {
            b.records
                .iter()
                .any(|o| o.key != r.key && o.key >> 48 == r.key >> 48)
        })
        .count();
    assert!(twins >= 40, "{twins} records with a near twin");
    let far_twins = b
        .records
        .iter()
        .filter(|r| {
            b.records
                .iter()
                .any(|o| o.key >> 48 != r.key >> 48 && o.key >> 80 == r.key >> 80)
        })
        .count();
    assert!(
        far_twins >= 40,
        "{far_twins} records with a twin sharing 48 bits"
    );
}

#[test]
fn lookups_from_checkpoints_find_what_a_full_decode_finds() {
    let mut singles: Vec<SEntry> = (0..5_000u64)
        .map(|i| {
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            // Few distinct prefixes, so groups straddle checkpoints.
            SEntry {
                prefix: ((x >> 40) as u32) % 700,
                game: (x as u32) % 50_000,
                pred: x & 2 == 2,
            }
        })
        .collect();
    singles.sort_unstable();
    let b = encode_s_block(&singles);
    let all = decode_s_block(&b).unwrap();
    assert_eq!(all, singles);
    for want in 0..710u32 {
        let expect: Vec<SEntry> = all.iter().filter(|e| e.prefix == want).copied().collect();
        assert_eq!(find_in_s_block(&b, want).unwrap(), expect, "prefix {want}");
    }
}

#[test]
fn big_key_ranges_sort_like_a_plain_sort() {
    // Ranges above the bucket threshold (a million games make ~1,200 entries a range),
    // with values spread over all top bytes, crowded into a few, and all in one.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut scratch = Vec::new();
    for (len, top_bits) in [(512, 64), (1_300, 64), (5_000, 58), (2_000, 52), (700, 0)] {
        let mut v: Vec<u64> = (0..len)
            .map(|_| {
                if top_bits == 0 {
                    next() >> 8
                } else {
                    next() >> (64 - top_bits) << (64 - top_bits) | next() & 0xFFFF
                }
            })
            .collect();
        let mut expect = v.clone();
        expect.sort_unstable();
        sort_range(&mut v, &mut scratch);
        assert_eq!(v, expect, "{len} values, {top_bits} top bits");
    }
}

#[test]
fn corrupt_s_block_is_an_error() {
    let singles: Vec<SEntry> = (0..100)
        .map(|i| SEntry {
            prefix: i * 1000,
            game: i,
            pred: false,
        })
        .collect();
    let b = encode_s_block(&singles);
    for cut in [1, 5, b.len() / 2] {
        assert!(decode_s_block(&b[..cut]).is_err());
    }
}

/// Facts whose dates differ: game `g` is dated 2000-01-(1 + g % 7), rated 2000 + 2g.
fn dated(g: u32) -> GameFacts {
    GameFacts {
        date: 20000101 + g % 7,
        ..facts(g)
    }
}

/// Twenty games of one position: games 0–18 play move 1 or 2, game 7 alone plays move 9.
fn twenty() -> Vec<Occ> {
    (0..20u32)
        .map(|g| Occ {
            key: 42,
            game: g,
            code: if g == 7 { 9 } else { 1 + (g % 2) as u16 },
            mover: 0,
        })
        .collect()
}

#[test]
fn records_keep_their_best_newest_and_single_games_through_their_blocks() {
    let rec = record::make_record(42, &twenty(), &dated);
    // Best: highest rated first (2000 + 2g): 19, 18, … 5.
    let best: Vec<u32> = rec.top.iter().map(|p| p.game).collect();
    assert_eq!(best, (5..20).rev().collect::<Vec<u32>>());
    // Newest: dated 7th (games 6 and 13), then 6th (5, 12, 19): lower ids first.
    let newest: Vec<u32> = rec
        .recent
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| p.game)
        .collect();
    assert_eq!(newest, [6, 13, 5, 12]);
    let slot9 = rec.moves.iter().position(|m| m.code == 9).unwrap() as u8;
    assert_eq!(rec.singles, Some(vec![(slot9, 7)]));
    let emitted = encode_all(std::slice::from_ref(&rec), &[]);
    let Emitted::TBlock(_, block) = &emitted[0] else {
        panic!("a T block first");
    };
    assert_eq!(find_in_t_block(block, 42).unwrap().unwrap(), rec);
}

#[test]
fn records_without_the_lists_read_as_before_and_merge_within_what_they_know() {
    let occs = twenty();
    let new = record::make_record(42, &occs[..10], &dated);
    // As a record written before the lists were kept: 8 best games, no newest, no singles.
    let mut old = record::make_record(42, &occs[10..], &dated);
    let postings = old.postings.clone().unwrap();
    old.top = (12..20)
        .rev()
        .map(|g| *postings.iter().find(|p| p.game == g).unwrap())
        .collect();
    old.recent = None;
    old.singles = None;
    let mut bytes = Vec::new();
    record::encode_record(&old, &mut bytes);
    let mut r = crate::codec::Reader::new(&bytes);
    let len = r.varint("length").unwrap() as usize;
    let body = r.bytes(len, "body").unwrap();
    // Key, then the move count with no flag: the layout of earlier versions.
    assert_eq!(body[16] as usize, old.moves.len());
    assert_eq!(record::decode_record(body).unwrap(), old);

    let merged = record::merge_records(42, vec![new, old], &|g| dated(g).rank(), false);
    assert_eq!(merged.n_postings, 20);
    // Only 8 best known of the old part: the merged record tells 8, the right ones.
    let best: Vec<u32> = merged.top.iter().map(|p| p.game).collect();
    assert_eq!(best, (12..20).rev().collect::<Vec<u32>>());
    assert_eq!(
        merged.recent, None,
        "the old part's newest games are not known"
    );
    let slot9 = merged.moves.iter().position(|m| m.code == 9).unwrap() as u8;
    assert_eq!(merged.singles, Some(vec![(slot9, 7)]), "from the postings");
}

#[test]
fn whole_moves_go_through_blocks_and_merges_keep_only_what_every_part_says() {
    let occs = twenty();
    let mut a = record::make_record(42, &occs[..11], &dated);
    let mut b = record::make_record(42, &occs[11..], &dated);
    let slot = |r: &TRecord, code: u16| r.moves.iter().position(|m| m.code == code).unwrap();
    // Move 1 is the whole of where it leads in both parts, move 2 in the first only.
    a.whole = a.moves.iter().map(|m| m.code == 1 || m.code == 2).collect();
    b.whole = b.moves.iter().map(|m| m.code == 1).collect();
    assert_ne!(slot(&a, 1), slot(&b, 1), "the parts' moves in other orders");
    for rec in [&a, &b] {
        let emitted = encode_all(std::slice::from_ref(rec), &[]);
        let Emitted::TBlock(_, block) = &emitted[0] else {
            panic!("a T block first");
        };
        assert_eq!(find_in_t_block(block, 42).unwrap().unwrap(), *rec);
    }
    // A record whose every flag is off writes none (the layout before they were kept).
    let mut none = b.clone();
    none.whole = vec![false; none.moves.len()];
    let emitted = encode_all(std::slice::from_ref(&none), &[]);
    let Emitted::TBlock(_, block) = &emitted[0] else {
        panic!("a T block first");
    };
    assert!(
        find_in_t_block(block, 42)
            .unwrap()
            .unwrap()
            .whole
            .is_empty()
    );

    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    let want: Vec<bool> = merged.moves.iter().map(|m| m.code == 1).collect();
    assert_eq!(merged.whole, want, "move 1 alone is whole in both parts");
    assert_eq!(
        merged.elsewhere, None,
        "no part says where its other moves lead"
    );
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), false);
    assert!(merged.whole.is_empty(), "not every part's record: none");
    // A part that does not play a move and says no game of its run reaches where it leads
    // adds nothing to it: move 9 (game 7, in the first part only) stays whole then.
    a.whole = a.moves.iter().map(|_| true).collect();
    b.whole = b.moves.iter().map(|_| true).collect();
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    let want: Vec<bool> = merged.moves.iter().map(|m| m.code != 9).collect();
    assert_eq!(
        merged.whole, want,
        "the second part may reach where 9 leads"
    );
    let el = |code: u16, games: Option<&[u32]>| Elsewhere {
        code,
        games: games.map(<[u32]>::to_vec),
    };
    // The second part's run reaches where 9 and 30 lead by other orders.
    b.elsewhere = Some(vec![el(9, Some(&[100])), el(30, Some(&[101]))]);
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    assert_eq!(
        merged.whole, want,
        "9 is reached elsewhere in the second part"
    );
    assert_eq!(merged.elsewhere, None, "the first part does not say");
    // Only where 30 leads (a move neither part plays).
    b.elsewhere = Some(vec![el(30, Some(&[101]))]);
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    assert!(merged.whole.iter().all(|&w| w) && merged.moves.len() == 3);
    assert_eq!(merged.elsewhere, None, "the first part does not say");
    a.elsewhere = Some(vec![el(31, None)]);
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    assert!(merged.whole.iter().all(|&w| w));
    assert_eq!(
        merged.elsewhere,
        Some(vec![el(30, Some(&[101])), el(31, None)]),
        "both parts' lists"
    );
    // The games of a move listed by both parts are joined; a move the other part plays
    // stays listed, and is not whole.
    b.elsewhere = Some(vec![el(9, Some(&[102, 104])), el(30, Some(&[101]))]);
    a.elsewhere = Some(vec![el(30, Some(&[103])), el(31, None)]);
    let merged = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    assert_eq!(
        merged.elsewhere,
        Some(vec![
            el(9, Some(&[102, 104])),
            el(30, Some(&[101, 103])),
            el(31, None)
        ])
    );
    assert_eq!(
        merged.whole, want,
        "the second part reaches where 9 leads another way"
    );
    // More games than a record lists: the move is listed without them.
    let many_a: Vec<u32> = (200..220).collect();
    let many_b: Vec<u32> = (300..320).collect();
    let mut a2 = a.clone();
    a2.elsewhere = Some(vec![el(30, Some(&many_a))]);
    let mut b2 = b.clone();
    b2.elsewhere = Some(vec![el(30, Some(&many_b))]);
    let crowded = record::merge_records(42, vec![a2.clone(), b2], &|g| dated(g).rank(), true);
    assert_eq!(crowded.elsewhere, Some(vec![el(30, None)]));
    let not_whole =
        record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), false);
    assert_eq!(
        not_whole.elsewhere, None,
        "not every part's record: not known"
    );
    // Closed: an empty list, and each list through a block as it was.
    b.elsewhere = Some(Vec::new());
    a.elsewhere = Some(Vec::new());
    let closed = record::merge_records(42, vec![a.clone(), b.clone()], &|g| dated(g).rank(), true);
    assert_eq!(closed.elsewhere, Some(Vec::new()));
    for rec in [&a, &a2, &merged, &crowded, &closed] {
        let emitted = encode_all(std::slice::from_ref(rec), &[]);
        let Emitted::TBlock(_, block) = &emitted[0] else {
            panic!("a T block first");
        };
        assert_eq!(find_in_t_block(block, 42).unwrap().unwrap(), *rec);
    }
}
