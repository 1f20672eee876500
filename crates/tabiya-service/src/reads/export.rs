//! `tabiya export` as a read question: the games chosen, written as PGN or Parquet into a
//! writer — the command's file or standard output, or (when a server holds the database)
//! the server's answer, which the command copies into its own file.
//!
//! The server's answer is a stream of frames, as the import's hand-over sends its files
//! (`handover/wire.rs`):
//!
//! ```text
//! u32 n (1..=MAX_FRAME), then n bytes       some of the bytes written
//! u32 0, then u64 games                     the end: the number of games written
//! u32 FAILED, u32 n, n bytes of JSON        the export failed: {"error", "kind"}
//! ```

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::calls::At;
use crate::database::Db;
use crate::error::{Error, ErrorKind, Result};
use crate::export::Selection;
use crate::handover::wire::{FAILED, MAX_FRAME};

/// Which games an export writes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Chosen {
    /// One game by id.
    Game(u32),
    /// Every game reaching a position.
    Position(At),
    /// Every game.
    All,
    /// A gameset's games.
    Gameset(String),
    /// The games meeting criteria.
    Where(String),
}

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExportFormat {
    Pgn,
    Parquet,
}

/// `tabiya export`: which games, in which format, with what.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Export {
    pub chosen: Chosen,
    pub format: ExportFormat,
    /// The stored evaluations written into the games (`annotate`'s comments).
    pub evals: bool,
    /// Players' and events' names as the names dictionary has them.
    pub canonical_names: bool,
    /// Position notes written as comments.
    pub notes: bool,
}

/// The name of the export question on the wire.
pub const NAME: &str = "export";

impl Export {
    /// Writes the chosen games of `db` into `out`; the number written.
    pub fn write(&self, db: &Db, out: &mut (dyn Write + Send)) -> Result<u64> {
        let selection = match &self.chosen {
            Chosen::Game(id) => Selection::Game(*id),
            Chosen::Position(at) => Selection::Position(Box::new(at.resolve()?)),
            Chosen::All => Selection::All,
            Chosen::Gameset(name) => Selection::Gameset(name.clone()),
            Chosen::Where(c) => Selection::Where(c.clone()),
        };
        match (self.format, self.evals) {
            (ExportFormat::Parquet, true) => {
                let ids = crate::export::game_ids(db, &selection)?;
                crate::annotate::write_parquet(db, &ids, out)
            }
            (ExportFormat::Parquet, false) => {
                crate::export::parquet_named(db, &selection, self.canonical_names, self.notes, out)
            }
            (ExportFormat::Pgn, true) => {
                let ids = crate::export::game_ids(db, &selection)?;
                crate::annotate::write_pgn(db, &ids, out)
            }
            (ExportFormat::Pgn, false) => {
                crate::export::pgn_named(db, &selection, self.canonical_names, self.notes, out)
            }
        }
    }
}

/// A writer that cuts what it is given into frames and hands each to `send` (the server's
/// side of an export answered to a command). `send` failing (the command went away) ends
/// the export with an error.
pub struct FrameWriter<F: FnMut(Vec<u8>) -> bool> {
    buf: Vec<u8>,
    send: F,
}

impl<F: FnMut(Vec<u8>) -> bool> FrameWriter<F> {
    pub fn new(send: F) -> Self {
        FrameWriter {
            buf: Vec::with_capacity(64 << 10),
            send,
        }
    }

    fn frame(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut f = Vec::with_capacity(4 + self.buf.len());
        f.extend_from_slice(&(self.buf.len() as u32).to_le_bytes());
        f.append(&mut self.buf);
        if (self.send)(f) {
            Ok(())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the command asking for the export went away",
            ))
        }
    }

    /// The export's end: the last bytes, then the end frame with the number of games, or
    /// the error frame.
    pub fn finish(mut self, result: Result<u64>) -> bool {
        let end = match result {
            Ok(games) => self.frame().map(|()| {
                let mut f = 0u32.to_le_bytes().to_vec();
                f.extend_from_slice(&games.to_le_bytes());
                f
            }),
            Err(e) => Ok(failed_frame(&e)),
        };
        match end {
            Ok(f) => (self.send)(f),
            Err(_) => false,
        }
    }
}

/// The frame that says an export failed, and why.
pub fn failed_frame(e: &Error) -> Vec<u8> {
    let json = serde_json::to_vec(&serde_json::json!({ "error": e.to_string(), "kind": e.kind() }))
        .unwrap_or_default();
    let mut f = FAILED.to_le_bytes().to_vec();
    f.extend_from_slice(&(json.len() as u32).to_le_bytes());
    f.extend_from_slice(&json);
    f
}

impl<F: FnMut(Vec<u8>) -> bool> Write for FrameWriter<F> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let room = MAX_FRAME as usize - self.buf.len();
        let n = data.len().min(room);
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() >= 64 << 10 {
            self.frame()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The command's side: reads the server's frames from `answer`, writes their bytes into
/// `out`; the number of games written, or the server's error.
pub fn read_frames(answer: &mut dyn std::io::Read, out: &mut dyn Write) -> Result<u64> {
    let cut = |e: std::io::Error| {
        Error::new(
            ErrorKind::Io,
            format!("the server's export ended early ({e}): what was written is incomplete"),
        )
    };
    let mut word = [0u8; 4];
    let mut buf = Vec::new();
    loop {
        answer.read_exact(&mut word).map_err(cut)?;
        match u32::from_le_bytes(word) {
            0 => {
                let mut games = [0u8; 8];
                answer.read_exact(&mut games).map_err(cut)?;
                return Ok(u64::from_le_bytes(games));
            }
            FAILED => {
                answer.read_exact(&mut word).map_err(cut)?;
                let n = u32::from_le_bytes(word).min(MAX_FRAME) as usize;
                buf.resize(n, 0);
                answer.read_exact(&mut buf).map_err(cut)?;
                #[derive(Deserialize)]
                struct Failed {
                    error: String,
                    kind: ErrorKind,
                }
                let f: Failed = serde_json::from_slice(&buf).map_err(|e| {
                    Error::new(ErrorKind::Io, format!("the server's export failed: {e}"))
                })?;
                return Err(Error::new(f.kind, f.error));
            }
            n if n > MAX_FRAME => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!(
                        "the server's export sent a frame of {n} bytes, more than the {MAX_FRAME} a frame holds"
                    ),
                ));
            }
            n => {
                buf.resize(n as usize, 0);
                answer.read_exact(&mut buf).map_err(cut)?;
                out.write_all(&buf)?;
            }
        }
    }
}

impl super::Source {
    /// Writes the chosen games into `out`, from the database or through the server that
    /// holds it; the number of games written.
    pub fn export(&self, export: &Export, out: &mut (dyn Write + Send)) -> Result<u64> {
        match self {
            super::Source::Local(db) => export.write(db, out),
            super::Source::Served(server) => {
                let body = serde_json::to_vec(export)?;
                let mut answer = crate::handover::hand_over_read_stream(server, NAME, body)?;
                read_frames(&mut answer, out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_the_bytes_the_count_and_an_error() {
        let mut sent = Vec::new();
        let mut w = FrameWriter::new(|f| {
            sent.extend_from_slice(&f);
            true
        });
        let big = vec![7u8; (MAX_FRAME as usize) + 10];
        w.write_all(b"[Event \"x\"]\n").unwrap();
        w.write_all(&big).unwrap();
        assert!(w.finish(Ok(3)));
        let mut out = Vec::new();
        assert_eq!(read_frames(&mut &sent[..], &mut out).unwrap(), 3);
        assert_eq!(&out[..12], b"[Event \"x\"]\n");
        assert_eq!(out.len(), 12 + big.len());

        let mut sent = Vec::new();
        let mut w = FrameWriter::new(|f| {
            sent.extend_from_slice(&f);
            true
        });
        w.write_all(b"abc").unwrap();
        assert!(w.finish(Err(Error::not_found("no gameset \"x\""))));
        let mut out = Vec::new();
        let e = read_frames(&mut &sent[..], &mut out).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.to_string().contains("no gameset"));
        // Cut short: an error, never a count.
        let cut = &sent[..2];
        assert!(read_frames(&mut &cut[..], &mut Vec::new()).is_err());
    }
}
