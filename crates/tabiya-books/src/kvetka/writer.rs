//! Writing Kvetka books from [`BookPosition`]s plus game references, and aggregating
//! [`BookGame`]s into such positions.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fs,
    io::Write,
    path::{Path, PathBuf},
};

use shakmaty::{Chess, Position};

use crate::{BookGame, BookMove, BookPosition, BookStats, GameResult, SourceRef};

use super::{
    KvetkaError,
    format::{
        BLOCK_SIZE, ELEMENT_TYPE_LINKS, GameLink, KvetkaHeader, MAX_COMMENT_CHARS, MAX_ELEMENT,
        RawElement, StringOrder,
    },
    key::{KvetkaKey, Normalisation, position_key, transform},
    ksf::{Ksf, KsfGame, KsfSource, result_byte},
    moves::{MoveCodeError, decode_move, encode_move},
    reader::map_move,
};

/// Kvetka's split threshold: a `.kob` file is split once it passes 20 MB.
pub const DEFAULT_SPLIT_THRESHOLD: u64 = 20 * 1024 * 1024;

/// A game referenced from a position: its number inside its source file (from 0, the `.ksf`
/// `game_in_source`) and where its text is (`SourceRef::file` is the source number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvetkaGameRef {
    pub game: u32,
    pub source: SourceRef,
}

/// One position to write with its game references.
#[derive(Debug, Clone)]
pub struct KvetkaPositionInput {
    pub position: BookPosition,
    /// One game through the position (`some_source`, flags bit 2).
    pub some_game: Option<KvetkaGameRef>,
    /// Games whose last stored position this is (flags bit 1).
    pub last_games: Vec<KvetkaGameRef>,
}

/// A source file of games for the `.ksf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvetkaSource {
    /// Full path (or URL); `%currentdir` stands for Kvetka's folder.
    pub address: String,
    /// 1 PGN, 2 web page, 3 CBH.
    pub source_type: u8,
    pub is_bad: bool,
}

/// What the `.ksf` tells about a game besides its address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KvetkaGameInfo {
    pub white: String,
    pub black: String,
    pub white_elo: u16,
    pub black_elo: u16,
    pub result: Option<GameResult>,
}

/// The ECO lookup a writer may use: position → (ECO code, name, variation).
pub type EcoLookup<'a> = dyn Fn(&Chess) -> Option<(String, String, Option<String>)> + 'a;

/// Everything about the book besides its positions.
pub struct KvetkaBookSpec<'a> {
    pub caption: String,
    pub min_white_elo: u16,
    pub min_black_elo: u16,
    pub min_stronger_elo: u16,
    pub min_weaker_elo: u16,
    /// Half-moves per game (0xFF = all). Written to the header; [`aggregate_games`] applies it.
    pub max_move: u8,
    /// Header `links`: when set, the writer adds every legal, expressible move between two
    /// stored positions (transpositions), as Kvetka does when adding games.
    pub links: bool,
    /// Header `element_type` bit 0: store game links in elements.
    pub store_game_links: bool,
    /// Sources by number (`SourceRef::file`); needed for a `.ksf`.
    pub sources: Vec<KvetkaSource>,
    /// Players, ratings and results of games, by (source, game number).
    pub game_info: HashMap<(u32, u32), KvetkaGameInfo>,
    /// ECO names for comments.
    pub eco: Option<&'a EcoLookup<'a>>,
    /// Files are split so none passes this size (at least one block each).
    pub split_threshold: u64,
    pub write_kin: bool,
    /// Write a `.ksf` (only when `store_game_links` and there are sources).
    pub write_ksf: bool,
    pub string_order: StringOrder,
}

impl Default for KvetkaBookSpec<'_> {
    fn default() -> Self {
        KvetkaBookSpec {
            caption: String::new(),
            min_white_elo: 0,
            min_black_elo: 0,
            min_stronger_elo: 0,
            min_weaker_elo: 0,
            max_move: 0xFF,
            links: false,
            store_game_links: true,
            sources: Vec::new(),
            game_info: HashMap::new(),
            eco: None,
            split_threshold: DEFAULT_SPLIT_THRESHOLD,
            write_kin: true,
            write_ksf: true,
            string_order: StringOrder::BigEndian,
        }
    }
}

/// What a write did, including everything it had to leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KvetkaWriteReport {
    pub positions_in: u64,
    pub elements: u64,
    /// Input positions that shared a key with an earlier one (mirror or colour-flipped
    /// twins, or repeats) and were merged into it.
    pub merged_positions: u64,
    /// Positions left out: no key (more than 176 bits) or not a legal position.
    pub positions_skipped: u64,
    pub moves_written: u64,
    /// Moves left out: underpromotions.
    pub moves_skipped_underpromotion: u64,
    /// Moves left out: 9th pawn, 3rd knight, bishop or rook, 4th queen.
    pub moves_skipped_piece_number: u64,
    /// Moves left out for any other reason (not legal in the position).
    pub moves_skipped_other: u64,
    /// Moves added by `links` (transpositions).
    pub links_added: u64,
    pub game_links_written: u64,
    /// Game links dropped so that elements stay within 682 bytes.
    pub game_links_trimmed: u64,
    /// `some_source` links dropped so that elements fit.
    pub some_game_dropped: u64,
    /// Game links dropped because the game's offset or length does not fit 32 bits, or its
    /// source number 16 bits.
    pub game_links_out_of_range: u64,
    pub comments_written: u64,
    /// Comments cut to 300 characters or to fit the element.
    pub comments_truncated: u64,
    /// Player-name characters written as `?` (ANSI strings are ISO-8859-1).
    pub name_chars_replaced: u64,
    pub blocks: u64,
    pub files: Vec<PathBuf>,
    pub bytes: u64,
}

impl KvetkaWriteReport {
    /// What the book could not hold, by name (the `lost` counts of `book build` and
    /// `book convert`; zero counts included). Game links and player names only concern
    /// books built from games.
    pub fn losses(&self) -> [(&'static str, u64); 9] {
        [
            ("underpromotions", self.moves_skipped_underpromotion),
            ("movesWithoutCode", self.moves_skipped_piece_number),
            ("illegalMoves", self.moves_skipped_other),
            ("positionsNotEncodable", self.positions_skipped),
            ("positionsMergedWithTwin", self.merged_positions),
            ("commentsTruncated", self.comments_truncated),
            (
                "gameLinksTrimmed",
                self.game_links_trimmed + self.some_game_dropped,
            ),
            ("gameLinksOutOfRange", self.game_links_out_of_range),
            ("nameCharactersReplaced", self.name_chars_replaced),
        ]
    }
}

struct Merged {
    /// First real position seen and its normalisation.
    real: Chess,
    normal: Chess,
    wins: u64,
    draws: u64,
    losses: u64,
    codes: Vec<u8>,
    some_game: Option<GameLink>,
    last_games: Vec<GameLink>,
    eco_candidates: Vec<Chess>,
}

fn link_of(
    r: &KvetkaGameRef,
    report: &mut KvetkaWriteReport,
    ksf_games: &mut BTreeMap<(u16, u32), (u32, u32)>,
) -> Option<GameLink> {
    let (Ok(source), Ok(address), Ok(length)) = (
        u16::try_from(r.source.file),
        u32::try_from(r.source.offset),
        u32::try_from(r.source.length),
    ) else {
        report.game_links_out_of_range += 1;
        return None;
    };
    ksf_games.insert((source, r.game), (address, length));
    Some(GameLink {
        source,
        game: r.game,
    })
}

/// Writes a book as `dir/name_0.kob`, `name_1.kob`, …, `name.kin` and `name.ksf`.
///
/// Positions are keyed (normalised), merged when keys coincide, their moves encoded on the
/// normalised board; moves the format cannot express are counted in the report, never
/// silently dropped. Stale `name_N.kob` files beyond the ones written are removed.
pub fn write_book(
    dir: &Path,
    name: &str,
    spec: &KvetkaBookSpec<'_>,
    positions: impl IntoIterator<Item = KvetkaPositionInput>,
) -> Result<KvetkaWriteReport, KvetkaError> {
    let mut report = KvetkaWriteReport::default();
    let mut entries = Entries::default();
    for input in positions {
        entries.add(&input, spec, &mut report);
    }
    let Entries {
        mut list,
        ksf_games,
        ..
    } = entries;
    list.sort_unstable_by_key(|e| e.0);
    if spec.links {
        add_transpositions(&mut list, &mut report);
    }
    let elements = list
        .iter()
        .map(|(key, m)| element_bytes(key, m, spec, &mut report))
        .collect::<Result<Vec<_>, _>>()?;
    report.elements = elements.len() as u64;
    let (blocks, first_keys) = pack_blocks(&elements, &list);
    report.blocks = blocks.len() as u64;
    let header = header(spec, blocks.len())?;

    fs::create_dir_all(dir).map_err(|source| KvetkaError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let base = dir.join(name);
    write_kobs(
        &base,
        header.serialize(spec.string_order),
        &blocks,
        spec,
        &mut report,
    )?;
    write_kin(&base, &first_keys, spec, &mut report)?;
    if spec.write_ksf && spec.store_game_links && !spec.sources.is_empty() {
        write_ksf(&base, spec, &ksf_games, &mut report)?;
    }
    Ok(report)
}

/// The positions merged by key, in the order first given, and the games they link (source
/// and game number to the game's offset and length).
#[derive(Default)]
struct Entries {
    list: Vec<(KvetkaKey, Merged)>,
    // Entries in a vector, found through a hash map and sorted by key at the end (a B-tree of
    // these large values spends its time moving them).
    slots: HashMap<KvetkaKey, usize>,
    ksf_games: BTreeMap<(u16, u32), (u32, u32)>,
}

impl Entries {
    /// Adds a position: a new entry, or merged into the entry of its key.
    fn add(
        &mut self,
        input: &KvetkaPositionInput,
        spec: &KvetkaBookSpec<'_>,
        report: &mut KvetkaWriteReport,
    ) {
        report.positions_in += 1;
        let pos = &input.position.position;
        let Ok((key, norm)) = position_key(pos) else {
            report.positions_skipped += 1;
            return;
        };
        let Ok(normal) = transform(pos, norm) else {
            report.positions_skipped += 1;
            return;
        };
        let some_game = input
            .some_game
            .as_ref()
            .and_then(|r| link_of(r, report, &mut self.ksf_games));
        let last_games: Vec<GameLink> = input
            .last_games
            .iter()
            .filter_map(|r| link_of(r, report, &mut self.ksf_games))
            .collect();
        let stats = input.position.stats.clone().unwrap_or_default();
        let entry = match self.slots.get(&key) {
            Some(&i) => {
                report.merged_positions += 1;
                let m = &mut self.list[i].1;
                m.wins += stats.wins;
                m.draws += stats.draws;
                m.losses += stats.losses;
                if m.some_game.is_none() {
                    m.some_game = some_game;
                }
                m.last_games.extend(last_games);
                if spec.eco.is_some()
                    && m.eco_candidates.len() < 4
                    && !m.eco_candidates.contains(pos)
                {
                    m.eco_candidates.push(pos.clone());
                }
                m
            }
            None => {
                self.slots.insert(key, self.list.len());
                self.list.push((
                    key,
                    Merged {
                        real: pos.clone(),
                        normal: normal.clone(),
                        wins: stats.wins,
                        draws: stats.draws,
                        losses: stats.losses,
                        codes: Vec::new(),
                        some_game,
                        last_games,
                        eco_candidates: Vec::new(),
                    },
                ));
                &mut self.list.last_mut().expect("just pushed").1
            }
        };
        add_moves(entry, &input.position.moves, &normal, norm, report);
    }
}

/// Adds the codes of a position's moves (on the normalised board) to its entry, each once;
/// moves the format cannot express are counted.
fn add_moves(
    entry: &mut Merged,
    moves: &[BookMove],
    normal: &Chess,
    norm: Normalisation,
    report: &mut KvetkaWriteReport,
) {
    for bm in moves {
        let Some(nm) = map_move(bm.mv, normal, norm) else {
            report.moves_skipped_other += 1;
            continue;
        };
        match encode_move(normal, nm) {
            Ok(code) => {
                if !entry.codes.contains(&code) {
                    entry.codes.push(code);
                }
            }
            Err(MoveCodeError::Underpromotion) => report.moves_skipped_underpromotion += 1,
            Err(MoveCodeError::PieceNumber { .. }) => report.moves_skipped_piece_number += 1,
            Err(MoveCodeError::NotExpressible) => report.moves_skipped_other += 1,
        }
    }
}

/// `links`: adds every legal move between two stored positions (transpositions).
fn add_transpositions(list: &mut [(KvetkaKey, Merged)], report: &mut KvetkaWriteReport) {
    let keys: HashSet<KvetkaKey> = list.iter().map(|(k, _)| *k).collect();
    for (_, m) in list.iter_mut() {
        for mv in m.normal.legal_moves() {
            let Ok(code) = encode_move(&m.normal, mv) else {
                continue;
            };
            if m.codes.contains(&code) {
                continue;
            }
            let mut child = m.normal.clone();
            child.play_unchecked(mv);
            if let Ok((k, _)) = position_key(&child)
                && keys.contains(&k)
            {
                m.codes.push(code);
                report.links_added += 1;
            }
        }
    }
}

/// The ECO comment of an entry (`code|name|variation`) from its first real position that
/// the lookup names, cut to 300 characters.
fn eco_comment(
    m: &Merged,
    spec: &KvetkaBookSpec<'_>,
    report: &mut KvetkaWriteReport,
) -> Option<String> {
    let comment = spec.eco.and_then(|eco| {
        std::iter::once(&m.real)
            .chain(m.eco_candidates.iter())
            .find_map(eco)
            .map(|(code, name, variation)| match variation {
                Some(v) => format!("{code}|{name}|{v}"),
                None => format!("{code}|{name}"),
            })
    });
    comment.map(|c| {
        let units: Vec<u16> = c.encode_utf16().collect();
        if units.len() > MAX_COMMENT_CHARS {
            report.comments_truncated += 1;
            String::from_utf16_lossy(&units[..MAX_COMMENT_CHARS])
        } else {
            c
        }
    })
}

/// An entry's element, serialised within the 682 bytes an element may take.
fn element_bytes(
    key: &KvetkaKey,
    m: &Merged,
    spec: &KvetkaBookSpec<'_>,
    report: &mut KvetkaWriteReport,
) -> Result<Vec<u8>, KvetkaError> {
    let stores_links = spec.store_game_links;
    let comment = eco_comment(m, spec, report);
    let mut codes = m.codes.clone();
    codes.truncate(255);
    report.moves_written += codes.len() as u64;
    let mut raw = RawElement {
        key: *key,
        wins: m.wins,
        draws: m.draws,
        losses: m.losses,
        moves: codes,
        flags: 0,
        some_game: if stores_links { m.some_game } else { None },
        comment,
        last_games: if stores_links && !m.last_games.is_empty() {
            Some(m.last_games.clone())
        } else {
            None
        },
        unknown_tail: Vec::new(),
    };
    let bytes = fit_element(&mut raw, stores_links, spec.string_order, report)?;
    if raw.comment.is_some() {
        report.comments_written += 1;
    }
    report.game_links_written +=
        raw.last_games.as_ref().map_or(0, |l| l.len() as u64) + u64::from(raw.some_game.is_some());
    Ok(bytes)
}

/// Serialises an element, dropping what does not fit 682 bytes: game links first, then its
/// game, then the comment's end.
fn fit_element(
    raw: &mut RawElement,
    stores_links: bool,
    order: StringOrder,
    report: &mut KvetkaWriteReport,
) -> Result<Vec<u8>, KvetkaError> {
    let mut bytes = raw.serialize(stores_links, order);
    if bytes.len() > MAX_ELEMENT
        && let Some(list) = raw.last_games.as_mut()
    {
        // Trim game links first: estimate how many to drop, then adjust.
        let excess = bytes.len() - MAX_ELEMENT;
        let drop = excess.div_ceil(6).min(list.len());
        list.truncate(list.len() - drop);
        report.game_links_trimmed += drop as u64;
        bytes = raw.serialize(stores_links, order);
        while bytes.len() > MAX_ELEMENT && raw.last_games.as_ref().is_some_and(|l| !l.is_empty()) {
            raw.last_games.as_mut().expect("checked").pop();
            report.game_links_trimmed += 1;
            bytes = raw.serialize(stores_links, order);
        }
        if raw.last_games.as_ref().is_some_and(|l| l.is_empty()) {
            raw.last_games = None;
            bytes = raw.serialize(stores_links, order);
        }
    }
    if bytes.len() > MAX_ELEMENT && raw.some_game.is_some() {
        raw.some_game = None;
        report.some_game_dropped += 1;
        bytes = raw.serialize(stores_links, order);
    }
    while bytes.len() > MAX_ELEMENT
        && let Some(c) = raw.comment.as_mut()
    {
        let units: Vec<u16> = c.encode_utf16().collect();
        let over = (bytes.len() - MAX_ELEMENT).div_ceil(2);
        if over >= units.len() {
            raw.comment = None;
        } else {
            *c = String::from_utf16_lossy(&units[..units.len() - over]);
        }
        report.comments_truncated += 1;
        bytes = raw.serialize(stores_links, order);
    }
    if bytes.len() > MAX_ELEMENT {
        return Err(KvetkaError::Invalid(format!(
            "element of {} bytes even without links and comment",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The elements packed into 2048-byte blocks in key order, and each block's first key (the
/// `.kin`).
fn pack_blocks(
    elements: &[Vec<u8>],
    list: &[(KvetkaKey, Merged)],
) -> (Vec<[u8; BLOCK_SIZE]>, Vec<KvetkaKey>) {
    let mut blocks: Vec<[u8; BLOCK_SIZE]> = Vec::new();
    let mut first_keys: Vec<KvetkaKey> = Vec::new();
    let mut current = [0u8; BLOCK_SIZE];
    let mut used = 2usize;
    for (bytes, (key, _)) in elements.iter().zip(list) {
        if used + bytes.len() > BLOCK_SIZE {
            current[..2].copy_from_slice(&(used as u16).to_be_bytes());
            blocks.push(current);
            current = [0u8; BLOCK_SIZE];
            used = 2;
        }
        if used == 2 {
            first_keys.push(*key);
        }
        current[used..used + bytes.len()].copy_from_slice(bytes);
        used += bytes.len();
    }
    if used > 2 {
        current[..2].copy_from_slice(&(used as u16).to_be_bytes());
        blocks.push(current);
    }
    (blocks, first_keys)
}

/// The `.kob` header.
fn header(spec: &KvetkaBookSpec<'_>, blocks: usize) -> Result<KvetkaHeader, KvetkaError> {
    Ok(KvetkaHeader {
        book_type: 1,
        caption: spec.caption.clone(),
        min_white_elo: spec.min_white_elo,
        min_black_elo: spec.min_black_elo,
        min_stronger_elo: spec.min_stronger_elo,
        min_weaker_elo: spec.min_weaker_elo,
        max_move: spec.max_move,
        element_type: if spec.store_game_links {
            ELEMENT_TYPE_LINKS
        } else {
            0
        },
        links: u8::from(spec.links),
        block_count: u32::try_from(blocks)
            .map_err(|_| KvetkaError::Invalid("more than 2^32 blocks".into()))?,
    })
}

/// `base_0.kob`, `base_1.kob`, …: the header then the blocks, a new file once one would pass
/// the split threshold; stale files of an earlier, longer book of the same name removed.
fn write_kobs(
    base: &Path,
    header_bytes: Vec<u8>,
    blocks: &[[u8; BLOCK_SIZE]],
    spec: &KvetkaBookSpec<'_>,
    report: &mut KvetkaWriteReport,
) -> Result<(), KvetkaError> {
    let kob = |i: usize| PathBuf::from(format!("{}_{i}.kob", base.display()));
    let mut file_index = 0usize;
    let mut buf: Vec<u8> = header_bytes;
    let mut blocks_in_file = 0usize;
    let flush = |i: usize, buf: &[u8], report: &mut KvetkaWriteReport| {
        let p = kob(i);
        write_file(&p, buf)?;
        report.bytes += buf.len() as u64;
        report.files.push(p);
        Ok::<(), KvetkaError>(())
    };
    for block in blocks {
        if blocks_in_file > 0 && (buf.len() + BLOCK_SIZE) as u64 > spec.split_threshold {
            flush(file_index, &buf, report)?;
            file_index += 1;
            buf.clear();
            blocks_in_file = 0;
        }
        buf.extend_from_slice(block);
        blocks_in_file += 1;
    }
    flush(file_index, &buf, report)?;
    let mut stale = file_index + 1;
    while kob(stale).is_file() {
        let p = kob(stale);
        fs::remove_file(&p).map_err(|source| KvetkaError::Io { path: p, source })?;
        stale += 1;
    }
    Ok(())
}

/// `base.kin`: the first key of every block (or, when not written, an old one removed).
fn write_kin(
    base: &Path,
    first_keys: &[KvetkaKey],
    spec: &KvetkaBookSpec<'_>,
    report: &mut KvetkaWriteReport,
) -> Result<(), KvetkaError> {
    let kin_path = PathBuf::from(format!("{}.kin", base.display()));
    if spec.write_kin {
        let kin: Vec<u8> = first_keys.iter().flatten().copied().collect();
        write_file(&kin_path, &kin)?;
        report.bytes += kin.len() as u64;
        report.files.push(kin_path);
    } else if kin_path.is_file() {
        fs::remove_file(&kin_path).map_err(|source| KvetkaError::Io {
            path: kin_path.clone(),
            source,
        })?;
    }
    Ok(())
}

/// `base.ksf`: every source with its games up to the highest one linked or described, each
/// with its offset and length (0 when not linked) and its players, ratings and result.
fn write_ksf(
    base: &Path,
    spec: &KvetkaBookSpec<'_>,
    ksf_games: &BTreeMap<(u16, u32), (u32, u32)>,
    report: &mut KvetkaWriteReport,
) -> Result<(), KvetkaError> {
    let mut ksf = Ksf::default();
    for (i, s) in spec.sources.iter().enumerate() {
        let i = i as u32;
        let max_game = ksf_games
            .range((i as u16, 0)..=(i as u16, u32::MAX))
            .map(|(&(_, g), _)| g)
            .chain(
                spec.game_info
                    .keys()
                    .filter(|(src, _)| *src == i)
                    .map(|&(_, g)| g),
            )
            .max();
        let count = max_game.map_or(0, |g| g as usize + 1);
        let mut games = Vec::with_capacity(count);
        for g in 0..count as u32 {
            let (address, length) = ksf_games.get(&(i as u16, g)).copied().unwrap_or((0, 0));
            let info = spec.game_info.get(&(i, g)).cloned().unwrap_or_default();
            games.push(KsfGame {
                address,
                length,
                white: info.white,
                black: info.black,
                white_elo: info.white_elo,
                black_elo: info.black_elo,
                result: result_byte(info.result.unwrap_or(GameResult::Unknown)),
            });
        }
        ksf.sources.push(KsfSource {
            offset: 0,
            source_type: s.source_type,
            is_bad: u8::from(s.is_bad),
            address: s.address.clone(),
            games,
        });
    }
    let (bytes, replaced) = ksf.serialize(spec.string_order);
    report.name_chars_replaced = replaced as u64;
    let p = PathBuf::from(format!("{}.ksf", base.display()));
    write_file(&p, &bytes)?;
    report.bytes += bytes.len() as u64;
    report.files.push(p);
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), KvetkaError> {
    let mut f = fs::File::create(path).map_err(|source| KvetkaError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    f.write_all(bytes).map_err(|source| KvetkaError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Which games go into a book and how much of each: the header's filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameFilter {
    /// Minimum Elo of White, Black, the stronger and the weaker player; 0 = no filter. A game
    /// without a rating fails every non-zero filter on that player.
    pub min_white_elo: u16,
    pub min_black_elo: u16,
    pub min_stronger_elo: u16,
    pub min_weaker_elo: u16,
    /// Half-moves of each game added (0xFF = all).
    pub max_move: u8,
}

impl Default for GameFilter {
    fn default() -> Self {
        GameFilter {
            min_white_elo: 0,
            min_black_elo: 0,
            min_stronger_elo: 0,
            min_weaker_elo: 0,
            max_move: 0xFF,
        }
    }
}

impl GameFilter {
    /// Whether a game passes the rating filters.
    pub fn accepts(&self, g: &BookGame) -> bool {
        let w = g.white_elo.unwrap_or(0);
        let b = g.black_elo.unwrap_or(0);
        w >= self.min_white_elo
            && b >= self.min_black_elo
            && w.max(b) >= self.min_stronger_elo
            && w.min(b) >= self.min_weaker_elo
    }
}

/// What [`aggregate_games`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AggregateReport {
    pub games_in: u64,
    pub games_filtered: u64,
    /// Games whose positions were added.
    pub games_added: u64,
    /// Positions (plies) visited.
    pub plies: u64,
    /// Positions without a key (more than 176 bits); the game is cut there.
    pub positions_without_key: u64,
}

struct Acc {
    real: Chess,
    norm: Normalisation,
    normal: Chess,
    stats: BookStats,
    codes: Vec<u8>,
    moves_unexpressible: Vec<shakmaty::Move>,
    some_game: Option<KvetkaGameRef>,
    last_games: Vec<KvetkaGameRef>,
}

/// Aggregates games into positions for [`write_book`]: each game that passes `filter`
/// contributes its first `max_move` half-moves; every position reached (start included)
/// counts the game once, with its result from the side to move; each move played is stored
/// in the position it is played from. `some_game` is the first game (in input order) through
/// the position; `last_games` lists the games whose last stored position it is.
///
/// Each game comes with its number inside its source file (the `.ksf` game number).
/// Positions are keyed as Kvetka keys them, so a position and its colour-flipped or mirrored
/// twin are one entry; the entry's position is the first real position seen.
pub fn aggregate_games<'g>(
    games: impl IntoIterator<Item = (u32, &'g BookGame)>,
    filter: &GameFilter,
) -> (Vec<KvetkaPositionInput>, AggregateReport) {
    let mut report = AggregateReport::default();
    let mut map: HashMap<KvetkaKey, usize> = HashMap::new();
    let mut accs: Vec<Acc> = Vec::new();
    for (number, game) in games {
        report.games_in += 1;
        if !filter.accepts(game) {
            report.games_filtered += 1;
            continue;
        }
        report.games_added += 1;
        let gref = game.source.clone().map(|source| KvetkaGameRef {
            game: number,
            source,
        });
        let limit = if filter.max_move == 0xFF {
            game.moves.len()
        } else {
            game.moves.len().min(usize::from(filter.max_move))
        };
        let mut pos = game.start.clone();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut last: Option<usize> = None;
        for ply in 0..=limit {
            report.plies += 1;
            let Ok((key, norm)) = position_key(&pos) else {
                report.positions_without_key += 1;
                break;
            };
            let idx = *map.entry(key).or_insert_with(|| {
                let normal = transform(&pos, norm).unwrap_or_else(|_| pos.clone());
                accs.push(Acc {
                    real: pos.clone(),
                    norm,
                    normal,
                    stats: BookStats::default(),
                    codes: Vec::new(),
                    moves_unexpressible: Vec::new(),
                    some_game: None,
                    last_games: Vec::new(),
                });
                accs.len() - 1
            });
            let acc = &mut accs[idx];
            if seen.insert(idx) {
                acc.stats.games += 1;
                let mover = pos.turn();
                match game.result {
                    GameResult::Draw => acc.stats.draws += 1,
                    GameResult::WhiteWins | GameResult::BlackWins => {
                        let white_won = game.result == GameResult::WhiteWins;
                        if white_won == mover.is_white() {
                            acc.stats.wins += 1;
                        } else {
                            acc.stats.losses += 1;
                        }
                    }
                    GameResult::Unknown => {}
                }
                if acc.some_game.is_none() {
                    acc.some_game = gref.clone();
                }
            }
            last = Some(idx);
            if ply == limit {
                break;
            }
            let m = game.moves[ply];
            if let Some(nm) = map_move(m, &acc.normal, norm) {
                match encode_move(&acc.normal, nm) {
                    Ok(code) => {
                        if !acc.codes.contains(&code) {
                            acc.codes.push(code);
                        }
                    }
                    Err(_) => {
                        // Kept as a move of the real position so the writer counts it.
                        if let Some(rm) = map_move(nm, &acc.real, acc.norm)
                            && !acc.moves_unexpressible.contains(&rm)
                        {
                            acc.moves_unexpressible.push(rm);
                        }
                    }
                }
            }
            pos.play_unchecked(m);
        }
        if let (Some(idx), Some(r)) = (last, gref) {
            accs[idx].last_games.push(r);
        }
    }
    let out = accs
        .into_iter()
        .map(|acc| {
            let mut moves: Vec<BookMove> = acc
                .codes
                .iter()
                .filter_map(|&c| decode_move(&acc.normal, c).ok())
                .filter_map(|nm| map_move(nm, &acc.real, acc.norm))
                .map(book_move)
                .collect();
            moves.extend(acc.moves_unexpressible.into_iter().map(book_move));
            KvetkaPositionInput {
                position: BookPosition {
                    position: acc.real,
                    stats: Some(acc.stats),
                    recommendation: None,
                    commentary: None,
                    moves,
                },
                some_game: acc.some_game,
                last_games: acc.last_games,
            }
        })
        .collect();
    (out, report)
}

fn book_move(mv: shakmaty::Move) -> BookMove {
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
}
