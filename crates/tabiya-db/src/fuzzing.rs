//! The decoders of stored bytes, reachable without a store: what a damaged database file
//! would hand them. For the fuzz targets (`fuzz/`) only; compiled with the `fuzzing`
//! feature. Each function runs every decoder it names on the same bytes and drops the
//! answers: the question is only whether they return (an answer or an error) quietly.

use crate::game::{Dict, NameLookup};

/// Names for any id: a decoder asking for one gets text back.
struct AnyName;

impl NameLookup for AnyName {
    fn name(&self, _dict: Dict, id: u32) -> Option<String> {
        (id % 3 != 0).then(|| format!("n{id}"))
    }
}

/// A stored game (chess: tags, line, whole game, replay; Othello: its record).
pub fn stored_game(data: &[u8]) {
    use crate::chess;
    let _ = chess::decode_game(data, &AnyName);
    let _ = chess::decode_tags(data, &AnyName);
    let _ = chess::decode_line(data);
    let _ = chess::decode_line_start(data, 12);
    let (mut occs, mut plies) = (Vec::new(), Vec::new());
    let _ = chess::replay_record(data, None, &mut occs, &mut plies);
    let key = occs.get(occs.len() / 2).map_or(0, |o| o.key);
    let _ = chess::successor_keys_in_record(data, key);
    let _ = chess::stored::players_and_event(data);
    let _ = crate::chess::tags::extra_tags(data);
    let _ = crate::chess::tags::tag_part_ids(data);
    if let Ok(g) = crate::othello::StoredGame::decode(data) {
        let _ = g.to_record().squares();
    }
    let _ = crate::records::unpack(data, false, None);
}

/// The index's stored blocks and rows: T blocks and records, S blocks, long postings, a
/// run's directory, the amendments (patches, removed games), a gameset's id rows, a name
/// row. The first byte picks nothing: every decoder sees the same bytes.
pub fn index_blocks(data: &[u8]) {
    use crate::index;
    let _ = index::decode_t_block(data);
    let _ = index::find_in_t_block(data, u128::from_be_bytes([0x55; 16]));
    let _ = index::record::decode_record(data);
    let _ = index::decode_s_block(data);
    let _ = index::find_in_s_block(data, 0x5555);
    let n = data.first().map_or(0, |&b| u64::from(b));
    let _ = index::decode_external_postings(data, n);
    let _ = index::RunDir::decode(1, data);
    let _ = index::amend::Patch::decode(data);
    let _ = index::amend::decode_removed(data);
    let _ = crate::gamesets::IdSet::default().decode_row(n as u32, data);
    let _ = crate::names::decode_row(data);
}

/// The gameset language (`--where`, `where=`), parsed; a failure explained against the text.
pub fn criteria(text: &str) {
    if let Err(e) = crate::gamesets::criteria::parse(text) {
        let _ = e.explain(text);
    }
}

/// Seeds for the two targets above, made by the encoders from real games (PGN text): each
/// game's stored form, and the T blocks, S blocks, long postings, run directory, patches,
/// removed set and id rows of an index built from them. `(name, bytes)`; `scripts/fuzz`
/// writes them to the targets' corpora.
pub fn seeds(pgn: &[u8]) -> (Vec<(String, Vec<u8>)>, Vec<(String, Vec<u8>)>) {
    use crate::index::encoder::{Emitted, RunEncoder};
    use crate::index::record::{Occ, make_record};
    use crate::stats::GameFacts;

    struct Counting(std::collections::HashMap<(Dict, String), u32>);
    impl crate::game::Names for Counting {
        fn id(&mut self, dict: Dict, name: &str) -> u32 {
            let n = self.0.len() as u32;
            *self.0.entry((dict, name.to_string())).or_insert(n)
        }
    }
    let mut names = Counting(Default::default());
    let (mut stored, mut index) = (Vec::new(), Vec::new());
    let (mut occs, mut facts) = (Vec::new(), Vec::new());
    for (i, game) in tabiya_pgn::read_all(pgn)
        .filter_map(|g| g.ok()?.1.ok())
        .enumerate()
    {
        let mut out = Vec::new();
        crate::chess::encode_game(&game, &mut names, &mut out);
        stored.push((format!("game-{i}"), out));
        let moves: Vec<_> = game.main_line().cloned().collect();
        let mut game_occs = Vec::new();
        crate::chess::occurrences(&game.start, &moves, None, &mut game_occs);
        occs.extend(game_occs.iter().map(|o| Occ {
            key: o.key,
            game: i as u32,
            code: o.code,
            mover: o.mover,
        }));
        facts.push(crate::chess::facts(&game));
    }
    let fact = |g: u32| {
        facts
            .get(g as usize)
            .cloned()
            .unwrap_or_else(GameFacts::default)
    };
    let built = crate::index::build_sketched(&occs, &fact, None, Default::default(), None, None);
    let mut enc = RunEncoder::default();
    let mut blocks = Vec::new();
    let mut emit = |e: Emitted| blocks.push(e);
    for r in &built.records {
        enc.push_record(r, &mut emit);
    }
    for i in 0..built.singles.len() {
        enc.push_single(built.singles.get(i), &mut emit);
    }
    enc.finish(&mut emit);
    let (mut t_first, mut s_first) = (Vec::new(), Vec::new());
    for (i, b) in blocks.into_iter().enumerate() {
        match b {
            Emitted::TBlock(k, b) => {
                t_first.push(k);
                index.push((format!("t-block-{i}"), b));
            }
            Emitted::SBlock(p, b) => {
                s_first.push(p);
                index.push((format!("s-block-{i}"), b));
            }
            Emitted::Postings(_, b) => index.push((format!("postings-{i}"), b)),
        }
    }
    for (i, r) in built.records.iter().take(16).enumerate() {
        let mut out = Vec::new();
        let _ = crate::index::record::encode_record(r, &mut out);
        index.push((format!("t-record-{i}"), out));
        let one = make_record(r.key, &occs[..occs.len().min(64)], &fact);
        let patch = crate::index::amend::Patch {
            moves: one.moves.iter().map(|m| m.stats.clone()).collect(),
            top: Some(one.top),
        };
        index.push((format!("patch-{i}"), patch.encode()));
    }
    let dir = crate::index::RunDir {
        id: 1,
        t_first,
        s_first,
        t_records: built.records.len() as u64,
        s_entries: built.singles.len() as u64,
        implicit: built.implicit,
        games: facts.len() as u64,
        bytes: 0,
        complete: true,
        incomplete: built.records.iter().take(2).map(|r| r.key).collect(),
    };
    index.push(("run-dir".into(), dir.encode()));
    let ids: Vec<u32> = (0..facts.len() as u32).filter(|g| g % 3 != 1).collect();
    index.push(("removed".into(), crate::index::amend::encode_removed(&ids)));
    if let Some(row) = ids
        .iter()
        .copied()
        .collect::<crate::gamesets::IdSet>()
        .encode_row(0)
    {
        index.push(("id-row".into(), row));
    }
    (stored, index)
}
