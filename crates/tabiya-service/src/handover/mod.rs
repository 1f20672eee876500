//! The hand-over: a database is opened by one process at a time, so while `tabiya serve`
//! holds one, a command on the same machine hands its change to the server. The server
//! writes a serve file (`serve.json`) into each database directory it serves — its address,
//! a secret and its process id, readable by its owner only — and the command finds it
//! ([`HandOff::find`]) and sends its change with the secret (`client.rs`). What goes over
//! the wire is defined once, here (`wire.rs`), for both sides. An import goes as bytes,
//! never as paths: the command opens and reads its files (`outgoing.rs`), the server makes
//! what it receives the import's inputs (`incoming.rs`) and opens no file a request names.

mod client;
pub mod incoming;
mod outgoing;
pub mod wire;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use client::{
    hand_over_answer, hand_over_delete, hand_over_edit, hand_over_gameset,
    hand_over_gameset_delete, hand_over_import, hand_over_note, hand_over_read,
    hand_over_read_stream, served_cards,
};

/// The file a server writes into each database directory it serves.
pub const SERVE_FILE: &str = "serve.json";

/// What the serve file says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServeFile {
    pub url: String,
    /// The server's secret (`Authorization: Bearer`).
    pub token: String,
    pub pid: u32,
    /// The database's name at that server.
    pub db: String,
}

/// Whether process `pid` is running (on Linux, told by /proc; elsewhere assumed).
pub fn process_alive(pid: u32) -> bool {
    let proc_fs = Path::new("/proc/self");
    !proc_fs.exists() || Path::new("/proc").join(pid.to_string()).exists()
}

/// A server that serves a database directory: the serve file it wrote, if any.
pub struct HandOff {
    pub(crate) url: String,
    pub(crate) token: String,
    pub(crate) db: String,
}

impl HandOff {
    /// The server serving `dir`, if one says so (its serve file is there and readable).
    ///
    /// A serve file left by a server that is gone (killed, or the machine stopped) is stale:
    /// it is removed, and no server is found, rather than blamed.
    pub fn find(dir: &Path) -> Option<HandOff> {
        let path = dir.join(SERVE_FILE);
        let bytes = std::fs::read(&path).ok()?;
        let f: ServeFile = serde_json::from_slice(&bytes).ok()?;
        if !process_alive(f.pid) {
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(HandOff {
            url: f.url,
            token: f.token,
            db: f.db,
        })
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.url
    }
}
