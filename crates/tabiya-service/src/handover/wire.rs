//! What the hand-over sends and answers, for both sides.
//!
//! An import goes as one stream of bytes (`POST /api/admin/import`,
//! `Content-Type: application/octet-stream`), never as paths: the command opens and reads
//! every file, the server reads only what it is sent.
//!
//! ```text
//! u32 length, then the header's JSON (ImportHeader: the options; each input's name as the
//!     user gave it, its kind, its size)
//! for each input, in the header's order, its frames:
//!     u32 n (1..=MAX_FRAME), then n bytes           some of its bytes
//!     u32 0                                         its end
//!     u32 FAILED, u32 n, n bytes of UTF-8           the command could not read on (why); its end
//! ```
//!
//! Every length is little-endian. An input the command could not open at all says why in
//! the header (`unreadable`) and has no frame but its end: the server reports it where the
//! import on this machine would have, in the same words.

use serde::{Deserialize, Serialize};

use crate::error::ErrorKind;
use crate::import::{ImportReport, ImportStatus};

/// The most bytes a header may have (its JSON): the names of many thousands of files.
pub const MAX_HEADER: u32 = 16 << 20;
/// The most bytes one frame holds.
pub const MAX_FRAME: u32 = 1 << 20;
/// The length that says the command could not read an input on: its reason follows.
pub const FAILED: u32 = u32::MAX;

/// What `tabiya import` sends first: the import's options and its inputs. Unknown fields
/// are refused (an older command's request, which named paths, is not taken for one).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportHeader {
    pub db: String,
    pub keep_duplicates: bool,
    #[serde(default)]
    pub structures: bool,
    pub batch: u64,
    pub memory_mib: Option<u64>,
    pub max_ply: Option<u32>,
    pub inputs: Vec<InputHead>,
}

/// One input of an import, as the header announces it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InputHead {
    /// The name the user gave it (`<stdin>` for standard input): every message gives it.
    pub name: String,
    pub kind: InputKind,
    /// Its size in bytes, when the command knows it (not for a pipe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Why the command could not open it, in the words the import gives (no bytes follow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// A WTHOR game file's names files: its players' (`.jou`), then its tournaments'
    /// (`.trn`), each sent as an input of its own and named here, or why none was found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<NamesOf>,
}

/// What an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InputKind {
    /// PGN text, plain or compressed (told from its first bytes).
    Pgn,
    /// A Parquet file of games.
    Parquet,
    /// A WTHOR game file (`.wtb`, `.wtd`).
    WthorGames,
    /// A WTHOR players' names file (`.jou`).
    WthorPlayers,
    /// A WTHOR tournaments' names file (`.trn`).
    WthorTournaments,
}

/// A WTHOR game file's names file of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NamesOf {
    /// The names file, by the name of the input that holds it.
    File(String),
    /// Why none was found.
    NotFound(String),
}

/// The header as it is sent: its length, then its JSON.
pub fn header_bytes(header: &ImportHeader) -> serde_json::Result<Vec<u8>> {
    let json = serde_json::to_vec(header)?;
    let mut out = Vec::with_capacity(4 + json.len());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    Ok(out)
}

/// One line of the answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ImportLine {
    Status(ImportStatus),
    Report(Box<ImportReport>),
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
