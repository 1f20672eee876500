//! The command's side of an import handed over: every input opened and read here, as the
//! import on this machine would open it, and sent as the frames `wire.rs` describes. The
//! server is told only names (for its messages) and bytes.
//!
//! - PGN: the file as `tabiya_pgn::input::open` opens it (a FIFO waits for its writer, `-`
//!   is standard input: both are the caller's own streams); sent as it is, compressed or not.
//! - Parquet (a `.parquet` name or its magic bytes): a regular file only, as
//!   `tabiya_parquet::open` opens it; sent whole, the server keeps a copy to read it.
//! - WTHOR: each game file within `GameFile::limit`, and the names files it is read with
//!   (`tabiya_db::othello::names_file_of`, the import's own rule: `--jou`/`--trn`, else the
//!   ones beside it), each within `NameFile::limit`.
//!
//! A file that cannot be opened is announced with the import's own words for it
//! (`InputHead::unreadable`) and the import goes on with the others, as it would here.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tabiya_othello::wthor::{GameFile, NameFile, NameKind, WthorError};

use super::wire::{FAILED, ImportHeader, InputHead, InputKind, MAX_FRAME, NamesOf};
use crate::error::Result;
use crate::import::{ImportRequest, ImportStatus, is_wthor_games, kind_of_import};

/// How an input's bytes are read when its turn comes.
pub(super) enum Outgoing {
    /// Read as it goes; a failure is said as the I/O error says it.
    Stream(Box<dyn Read + Send>),
    /// Read whole within its bound (a WTHOR file); a failure is said in the reader's words.
    Whole(Box<dyn FnOnce() -> std::result::Result<Vec<u8>, String> + Send>),
    /// Could not be opened (the header says why): no bytes.
    Nothing,
}

/// The inputs of `req` opened, announced in a header for the database `db` of a server.
pub(super) fn open_inputs(db: &str, req: &ImportRequest) -> Result<(ImportHeader, Vec<Outgoing>)> {
    let files = crate::inputs::expand(&req.files)?;
    // A mix of kinds, or `--jou` without a game file, is refused here as it would be there.
    let given = ImportRequest {
        files: files.clone(),
        ..req.clone()
    };
    kind_of_import(Path::new(""), &given, None)?;
    let mut heads = Vec::with_capacity(files.len());
    let mut bytes = Vec::with_capacity(files.len());
    let mut names_files: Vec<(PathBuf, NameKind)> = Vec::new();
    for f in &files {
        let name = tabiya_pgn::pipeline::input_name(f);
        let mut head = InputHead {
            name,
            kind: InputKind::Pgn,
            size: None,
            unreadable: None,
            names: Vec::new(),
        };
        if is_wthor_games(f) {
            head.kind = InputKind::WthorGames;
            for kind in [NameKind::Players, NameKind::Tournaments] {
                head.names.push(
                    match tabiya_db::othello::names_file_of(f, &req.names, kind) {
                        Ok(p) => {
                            if !names_files.contains(&(p.clone(), kind)) {
                                names_files.push((p.clone(), kind));
                            }
                            NamesOf::File(p.display().to_string())
                        }
                        Err(e) => NamesOf::NotFound(e),
                    },
                );
            }
            bytes.push(wthor_whole(f, GameFile::limit(), &mut head));
        } else if f.as_os_str() != "-" && tabiya_parquet::is_parquet(f) {
            head.kind = InputKind::Parquet;
            bytes.push(match tabiya_parquet::open_file(f) {
                Ok((file, size)) => {
                    head.size = Some(size);
                    Outgoing::Stream(Box::new(file.take(size)))
                }
                Err(e) => {
                    head.unreadable = Some(e);
                    Outgoing::Nothing
                }
            });
        } else if f.as_os_str() == "-" {
            bytes.push(Outgoing::Stream(Box::new(io::stdin())));
        } else {
            bytes.push(match std::fs::File::open(f) {
                Ok(file) => {
                    head.size = file.metadata().ok().map(|m| m.len());
                    Outgoing::Stream(Box::new(file))
                }
                // In the words of `tabiya_pgn::input::open`.
                Err(e) => {
                    head.unreadable = Some(format!("{}: {e}", f.display()));
                    Outgoing::Nothing
                }
            });
        }
        heads.push(head);
    }
    for (path, kind) in names_files {
        let mut head = InputHead {
            name: path.display().to_string(),
            kind: match kind {
                NameKind::Players => InputKind::WthorPlayers,
                NameKind::Tournaments => InputKind::WthorTournaments,
            },
            size: None,
            unreadable: None,
            names: Vec::new(),
        };
        bytes.push(wthor_whole(&path, NameFile::limit(kind), &mut head));
        heads.push(head);
    }
    let header = ImportHeader {
        db: db.to_string(),
        keep_duplicates: req.keep_duplicates,
        structures: req.structures,
        batch: req.batch,
        memory_mib: req.memory_mib,
        max_ply: req.max_ply,
        inputs: heads,
    };
    Ok((header, bytes))
}

/// A WTHOR file opened within `limit` as its reader opens it (`tabiya_files`), read whole
/// when its turn comes; what goes wrong is said as the WTHOR reader says it.
fn wthor_whole(path: &Path, limit: tabiya_files::Limit, head: &mut InputHead) -> Outgoing {
    match tabiya_files::open_regular_within(path, &limit) {
        Ok((mut file, size)) => {
            head.size = Some(size);
            let path = path.to_path_buf();
            Outgoing::Whole(Box::new(move || {
                tabiya_files::read_exactly(&mut file, &path, size)
                    .map_err(|e| WthorError::from(e).to_string())
            }))
        }
        Err(e) => {
            head.unreadable = Some(WthorError::from(e).to_string());
            Outgoing::Nothing
        }
    }
}

/// The request's body: the header, then each input's frames, read from the inputs as the
/// server takes them (so memory holds a frame, or one WTHOR file); the sending's progress
/// is told to `on_status` (the server's own reports come once the body is sent).
pub(super) struct FrameBody<'a> {
    heads: Vec<InputHead>,
    inputs: VecDeque<Outgoing>,
    /// Index of the input being sent.
    at: usize,
    sent_of_input: u64,
    out: Vec<u8>,
    pos: usize,
    chunk: Vec<u8>,
    on_status: &'a mut dyn FnMut(&ImportStatus),
    started: Instant,
    told: Instant,
}

impl<'a> FrameBody<'a> {
    pub(super) fn new(
        header: Vec<u8>,
        heads: Vec<InputHead>,
        inputs: Vec<Outgoing>,
        on_status: &'a mut dyn FnMut(&ImportStatus),
    ) -> FrameBody<'a> {
        FrameBody {
            heads,
            inputs: inputs.into(),
            at: 0,
            sent_of_input: 0,
            out: header,
            pos: 0,
            chunk: vec![0; 256 << 10],
            on_status,
            started: Instant::now(),
            told: Instant::now(),
        }
    }

    fn frame(&mut self, bytes: &[u8]) {
        self.out
            .extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.out.extend_from_slice(bytes);
    }

    fn end_input(&mut self, failed: Option<String>) {
        if let Some(why) = failed {
            self.out.extend_from_slice(&FAILED.to_le_bytes());
            self.frame(why.as_bytes());
        }
        self.out.extend_from_slice(&0u32.to_le_bytes());
        self.inputs.pop_front();
        self.at += 1;
        self.sent_of_input = 0;
    }

    /// The next frames into `out`; false once every input is sent.
    fn fill(&mut self) -> io::Result<bool> {
        let Some(front) = self.inputs.front_mut() else {
            return Ok(false);
        };
        match front {
            Outgoing::Nothing => self.end_input(None),
            Outgoing::Whole(_) => {
                let Some(Outgoing::Whole(read)) = self.inputs.pop_front() else {
                    unreachable!("the front is a whole file");
                };
                match read() {
                    Ok(bytes) => self
                        .inputs
                        .push_front(Outgoing::Stream(Box::new(io::Cursor::new(bytes)))),
                    Err(why) => {
                        self.inputs.push_front(Outgoing::Nothing);
                        self.end_input(Some(why));
                    }
                }
            }
            Outgoing::Stream(reader) => {
                let want = self.chunk.len().min(MAX_FRAME as usize);
                match reader.read(&mut self.chunk[..want]) {
                    Ok(0) => self.end_input(None),
                    Ok(n) => {
                        let chunk = std::mem::take(&mut self.chunk);
                        self.frame(&chunk[..n]);
                        self.chunk = chunk;
                        self.sent_of_input += n as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => self.end_input(Some(e.to_string())),
                }
            }
        }
        self.tell();
        Ok(true)
    }

    /// The sending's progress, four times a second.
    fn tell(&mut self) {
        if self.told.elapsed() < Duration::from_millis(250) {
            return;
        }
        self.told = Instant::now();
        let Some(head) = self.heads.get(self.at) else {
            return;
        };
        let status = ImportStatus {
            file_index: self.at,
            file_name: Path::new(&head.name)
                .file_name()
                .map_or_else(|| head.name.clone(), |f| f.to_string_lossy().into_owned()),
            file_bytes: self.sent_of_input,
            file_size: head.size.unwrap_or(0),
            games: 0,
            imported: 0,
            games_per_second: 0.0,
            stage: Some(format!(
                "sending to the server ({:.0} s)",
                self.started.elapsed().as_secs_f64()
            )),
        };
        (self.on_status)(&status);
    }
}

impl Read for FrameBody<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.out.len() {
            self.out.clear();
            self.pos = 0;
            if !self.fill()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
