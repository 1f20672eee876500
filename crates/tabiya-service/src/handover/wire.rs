//! What the hand-over sends and answers, for both sides.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::ErrorKind;
use crate::import::{ImportReport, ImportStatus};

/// What `tabiya import` sends.
#[derive(Serialize, Deserialize)]
pub struct ImportCall {
    pub db: String,
    pub files: Vec<PathBuf>,
    pub keep_duplicates: bool,
    pub batch: u64,
    pub memory_mib: Option<u64>,
    pub max_ply: Option<u32>,
    pub jou: Option<PathBuf>,
    pub trn: Option<PathBuf>,
}

/// One line of the answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ImportLine {
    Status(ImportStatus),
    Report(ImportReport),
    Error { message: String, kind: ErrorKind },
}

/// What `tabiya gameset create` sends (`POST /api/gamesets`).
#[derive(Serialize, Deserialize)]
pub struct CreateCall {
    pub name: String,
    #[serde(rename = "where")]
    pub criteria: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The repertoires the criteria follow, by the name they give: their PGN text.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub repertoires: std::collections::BTreeMap<String, String>,
}
