//! Position notes: text (Markdown) kept with a position, by its key — so any move order
//! reaching the position finds it (CDB's textual annotations on positions). Writing a note
//! changes what answers show: it counts as a commit (the answers' generation moves).

use crate::{Database, Error, Result, Snapshot};

/// The table of notes: position key (16 bytes, big-endian) → the note, UTF-8.
pub const NOTES: &str = "notes";

/// Longest note kept, in bytes.
pub const NOTE_MAX: usize = 64 << 10;

impl Database {
    /// Keeps `text` as the note of a position (replacing any); an empty text deletes it.
    /// Returns whether a note was there before.
    pub fn set_note(&self, key: u128, text: &str) -> Result<bool> {
        let text = text.trim();
        if text.len() > NOTE_MAX {
            return Err(Error::Usage(format!(
                "a note of {} bytes: notes are kept up to {NOTE_MAX} bytes",
                text.len()
            )));
        }
        if text.contains('\0') {
            // `export --notes` writes a note into the games as a comment, and the import
            // refuses a game holding a NUL byte (`tabiya_pgn::refusal::text_refusal`).
            return Err(Error::Usage(
                "a note holding a NUL byte: exported with the games (export --notes), it would make them unreadable".into(),
            ));
        }
        let w = self.store.write()?;
        let had = w.with_table(NOTES, |t| {
            if text.is_empty() {
                t.remove(&key.to_be_bytes())
            } else {
                let had = t.get(&key.to_be_bytes())?.is_some();
                t.put(&key.to_be_bytes(), text.as_bytes())?;
                Ok(had)
            }
        })?;
        w.commit()?;
        self.committed();
        Ok(had)
    }
}

impl Snapshot<'_> {
    /// The note of a position, if it has one.
    pub fn note(&self, key: u128) -> Result<Option<String>> {
        Ok(self
            .read_tx()
            .table(NOTES)?
            .get(&key.to_be_bytes())?
            .map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// Every note, by position key.
    pub fn notes(&self) -> Result<Vec<(u128, String)>> {
        let mut out = Vec::new();
        self.read_tx().table(NOTES)?.scan(&[], None, |k, v| {
            if let Ok(k) = <[u8; 16]>::try_from(k) {
                out.push((
                    u128::from_be_bytes(k),
                    String::from_utf8_lossy(v).into_owned(),
                ));
            }
            true
        })?;
        Ok(out)
    }
}
