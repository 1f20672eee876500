//! A CTG book's page walk, checked against its `.cto`.

use std::collections::BTreeMap;

use serde::Serialize;
use tabiya_books::ctg::CtgBook;

/// What the walk of a CTG book found. Field order: alphabetical, as the `serde_json::Value`
/// the command printed before had them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CtgCheck {
    /// The book, as messages name it.
    #[serde(skip)]
    pub name: String,
    /// How often each annotation byte (`0x..`) occurs.
    pub annotation_bytes: BTreeMap<String, u64>,
    pub children_found: u64,
    pub children_missing: u64,
    pub clean: bool,
    pub data_pages: u32,
    pub duplicate_keys: u64,
    pub format: &'static str,
    pub found_elsewhere: u64,
    pub found_via_cto: u64,
    pub header_games: u32,
    pub illegal_moves: u64,
    pub legal_moves: u64,
    pub non_canonical_keys: u64,
    pub not_found_via_cto: u64,
    pub problem_count: u64,
    pub problems: Vec<CtgCheckProblem>,
    /// How often each recommendation byte (`0x..`) occurs.
    pub recommendation_bytes: BTreeMap<String, u64>,
    pub records: u64,
    pub slots: u32,
    pub slots_used: u32,
    pub stored_moves: u64,
    pub undecodable_keys: u64,
    pub unknown_codes: u64,
}

/// A problem with the file, data page and byte offset where it is.
#[derive(Debug, Clone, Serialize)]
pub struct CtgCheckProblem {
    pub file: String,
    pub offset: u64,
    pub page: Option<u32>,
    pub what: String,
}

fn byte_counts(counts: &BTreeMap<u8, u64>) -> BTreeMap<String, u64> {
    counts
        .iter()
        .map(|(k, v)| (format!("{k:#04x}"), *v))
        .collect()
}

pub(super) fn check(b: &CtgBook, name: String) -> CtgCheck {
    let w = b.walk();
    CtgCheck {
        name,
        annotation_bytes: byte_counts(&w.annotation_bytes),
        children_found: w.children_found,
        children_missing: w.children_missing,
        clean: w.is_clean(),
        data_pages: w.data_pages,
        duplicate_keys: w.duplicate_keys,
        format: "ctg",
        found_elsewhere: w.found_elsewhere,
        found_via_cto: w.found_via_cto,
        header_games: w.header_games,
        illegal_moves: w.illegal_moves,
        legal_moves: w.legal_moves,
        non_canonical_keys: w.non_canonical_keys,
        not_found_via_cto: w.not_found_via_cto,
        problem_count: w.problem_count,
        problems: w
            .problems
            .into_iter()
            .map(|p| CtgCheckProblem {
                file: p.file,
                offset: p.offset,
                page: p.page,
                what: p.what,
            })
            .collect(),
        recommendation_bytes: byte_counts(&w.recommendation_bytes),
        records: w.records,
        slots: w.slots,
        slots_used: w.slots_used,
        stored_moves: w.stored_moves,
        undecodable_keys: w.undecodable_keys,
        unknown_codes: w.unknown_codes,
    }
}
