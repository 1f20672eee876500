//! What a book is: format, files, header fields, counts.

use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_books::convert::AnyBook;
use tabiya_books::ctg::{self, CtgBook};
use tabiya_books::kvetka::KvetkaBook;
use tabiya_books::polyglot::{self, PolyglotReader};

use super::open::{BookFile, open};
use crate::error::{Context, ErrorKind, Result};

/// What a book is, by format. Field order: alphabetical, as the `serde_json::Value` the
/// command printed before had them (the text output lists the fields in that order too).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum BookInfo {
    Polyglot(PolyglotInfo),
    Ctg(CtgInfo),
    Kvetka(KvetkaInfo),
}

/// A Polyglot book (`polyglot info-book` and more).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolyglotInfo {
    pub distinct_keys: u64,
    pub entries: u64,
    pub file: String,
    pub format: &'static str,
    pub illegal_moves: u64,
    pub isolated_positions: u64,
    pub lines_for_black: u64,
    pub lines_for_white: u64,
    pub nonzero_learn_entries: u64,
    pub positions_on_lines_black: u64,
    pub positions_on_lines_white: u64,
    pub reachable_entries: u64,
    pub reachable_positions: u64,
    pub unreachable_entries: u64,
    pub weight_max: u16,
    pub weight_total: u64,
    pub zero_weight_entries: u64,
}

/// A CTG book: its header fields and records.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CtgInfo {
    pub data_pages: u32,
    /// The `.ctg`, `.cto` and `.ctb`.
    pub files: Vec<String>,
    pub format: &'static str,
    pub games: u32,
    pub header_page_count: u32,
    pub header_record_count: u32,
    pub lower_bound: u32,
    pub records: u64,
    pub slots: u32,
    pub upper_bound: u32,
}

/// A Kvetka book: its header, elements and game sources.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KvetkaInfo {
    pub blocks: u32,
    pub caption: String,
    pub comments: u64,
    pub element_type: u8,
    pub elements: u64,
    /// The `.kob` files.
    pub files: Vec<PathBuf>,
    pub format: &'static str,
    /// Where the block index came from (`Kin` or `Scanned`).
    pub index: String,
    pub links: u8,
    pub max_move: u8,
    pub min_black_elo: u16,
    pub min_stronger_elo: u16,
    pub min_weaker_elo: u16,
    pub min_white_elo: u16,
    pub sources: Vec<KvetkaSourceInfo>,
}

/// One game source of a Kvetka book's `.ksf`.
#[derive(Debug, Clone, Serialize)]
pub struct KvetkaSourceInfo {
    pub address: String,
    pub bad: bool,
    pub games: usize,
    /// 0 empty, 1 PGN, 2 web page, 3 CBH.
    #[serde(rename = "type")]
    pub source_type: u8,
}

/// `book info`.
pub fn info(book: &BookFile) -> Result<BookInfo> {
    let name = book.name();
    Ok(match open(book)? {
        AnyBook::Polyglot(b) => BookInfo::Polyglot(polyglot_info(&b, name)),
        AnyBook::Ctg(b) => BookInfo::Ctg(ctg_info(&b, &book.path, &name)?),
        AnyBook::Kvetka(b) => BookInfo::Kvetka(kvetka_info(&b, &name)?),
    })
}

fn polyglot_info(b: &PolyglotReader, file: String) -> PolyglotInfo {
    let i = polyglot::info(b);
    PolyglotInfo {
        distinct_keys: i.distinct_keys,
        entries: i.entries,
        file,
        format: "polyglot",
        illegal_moves: i.illegal_moves,
        isolated_positions: i.isolated_positions,
        lines_for_black: i.lines_for_black,
        lines_for_white: i.lines_for_white,
        nonzero_learn_entries: i.nonzero_learn_entries,
        positions_on_lines_black: i.positions_on_lines_black,
        positions_on_lines_white: i.positions_on_lines_white,
        reachable_entries: i.reachable_entries,
        reachable_positions: i.reachable_positions,
        unreachable_entries: i.unreachable_entries,
        weight_max: i.weight_max,
        weight_total: i.weight_total,
        zero_weight_entries: i.zero_weight_entries,
    }
}

fn ctg_info(b: &CtgBook, path: &Path, name: &str) -> Result<CtgInfo> {
    let h = b.header();
    let mut records = 0u64;
    for r in b.records() {
        r.context(ErrorKind::BadInput, || format!("cannot read {name}"))?;
        records += 1;
    }
    Ok(CtgInfo {
        data_pages: h.data_pages,
        files: ctg::book_paths(path)
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        format: "ctg",
        games: h.games,
        header_page_count: h.page_count_field,
        header_record_count: h.record_count_field,
        lower_bound: h.lower_bound,
        records,
        slots: h.slots,
        upper_bound: h.upper_bound,
    })
}

fn kvetka_info(b: &KvetkaBook, name: &str) -> Result<KvetkaInfo> {
    let h = b.header();
    let mut elements = 0u64;
    let mut comments = 0u64;
    b.for_each_element(|e| {
        elements += 1;
        comments += u64::from(e.raw.comment.is_some());
        Ok(())
    })
    .context(ErrorKind::BadInput, || format!("cannot read {name}"))?;
    let sources = b
        .sources()
        .map(|k| {
            k.sources
                .iter()
                .map(|s| KvetkaSourceInfo {
                    address: s.address.clone(),
                    bad: s.is_bad != 0,
                    games: s.games.len(),
                    source_type: s.source_type,
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(KvetkaInfo {
        blocks: h.block_count,
        caption: h.caption.clone(),
        comments,
        element_type: h.element_type,
        elements,
        files: b.kob_files().into_iter().map(Path::to_path_buf).collect(),
        format: "kvetka",
        index: format!("{:?}", b.index_source()),
        links: h.links,
        max_move: h.max_move,
        min_black_elo: h.min_black_elo,
        min_stronger_elo: h.min_stronger_elo,
        min_weaker_elo: h.min_weaker_elo,
        min_white_elo: h.min_white_elo,
        sources,
    })
}
