//! The server's side of an import handed over: the stream `wire.rs` describes read, and
//! each input made what the import reads — no file is opened by a name the request gives.
//!
//! - PGN: a `Source::Reader` of its frames (compression told from its first bytes).
//! - Parquet: its frames kept in a file of the database's directory (Parquet is read from
//!   its end), created anew and unlinked at once — it is gone when its handle is, whatever
//!   happens — then read as `tabiya_parquet::open` reads a file, its Hive partitions told
//!   by the command's name.
//! - WTHOR: each file received whole within the bound its reader keeps (256 MiB a game
//!   file, the format's most for a names file); a stream longer than that is refused,
//!   naming the input.
//!
//! The import's pipeline reads its inputs one after another, from one thread: each input's
//! reader first skips what is left of the inputs before it (one abandoned after an error),
//! so that an input is never read from another's bytes. Before the import answers, the
//! rest of the body is read (and dropped), so the command, which reads the answer once it
//! has sent everything, always gets it.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tabiya_db::othello::WthorReceived;
use tabiya_othello::wthor::{GameFile, NameFile, NameKind};
use tabiya_pgn::pipeline::{RowChunks, Source};

use super::wire::{FAILED, ImportHeader, InputKind, MAX_FRAME, NamesOf};
use crate::database::{Db, Kind};
use crate::error::{Error, Result};
use crate::import::{
    ImportProgress, ImportReport, ImportRequest, Inputs, import_into_from, kind_into,
};

/// The header's JSON read (unknown fields refused: an older command's request named paths)
/// and checked: a WTHOR game file names two names files, each one that is sent.
pub fn parse_header(json: &[u8]) -> Result<ImportHeader> {
    let header: ImportHeader = serde_json::from_slice(json)
        .map_err(|e| Error::bad_request(format!("the import's header: {e}")))?;
    for input in &header.inputs {
        if let Some(limit) = bound(input.kind)
            && let Some(size) = input.size
            && let Err(e) = limit.check(Path::new(&input.name), size)
        {
            return Err(Error::bad_input(e.to_string()));
        }
        if input.kind == InputKind::WthorGames {
            if input.names.len() != 2 {
                return Err(Error::bad_request(format!(
                    "the import's header: the WTHOR file {} names {} names files, not 2",
                    input.name,
                    input.names.len()
                )));
            }
            for n in &input.names {
                if let NamesOf::File(f) = n
                    && !header
                        .inputs
                        .iter()
                        .any(|i| &i.name == f && names_kind(i.kind).is_some())
                {
                    return Err(Error::bad_request(format!(
                        "the import's header: the names file {f} of {} is not sent",
                        input.name
                    )));
                }
            }
        }
    }
    Ok(header)
}

/// The most bytes an input of `kind` may have: a WTHOR file's reader's bound.
fn bound(kind: InputKind) -> Option<tabiya_files::Limit> {
    match kind {
        InputKind::WthorGames => Some(GameFile::limit()),
        InputKind::WthorPlayers => Some(NameFile::limit(NameKind::Players)),
        InputKind::WthorTournaments => Some(NameFile::limit(NameKind::Tournaments)),
        InputKind::Pgn | InputKind::Parquet => None,
    }
}

fn names_kind(kind: InputKind) -> Option<NameKind> {
    match kind {
        InputKind::WthorPlayers => Some(NameKind::Players),
        InputKind::WthorTournaments => Some(NameKind::Tournaments),
        _ => None,
    }
}

/// Imports what `body` (the stream after the header) holds into `db`, as [`import_into`]
/// imports files (see the module); the rest of `body` is read before this returns.
///
/// [`import_into`]: crate::import::import_into
pub fn import_received(
    db: &Db,
    header: ImportHeader,
    body: Box<dyn Read + Send>,
    progress: &ImportProgress,
) -> Result<ImportReport> {
    let frames = Arc::new(Mutex::new(Frames::new(body, &header)));
    let result = import_frames(db, header, &frames, progress);
    // The command reads the answer once it has sent everything: what it still sends is
    // read and dropped.
    if let Ok(mut f) = frames.lock() {
        let _ = io::copy(&mut f.body, &mut io::sink());
    }
    result
}

fn import_frames(
    db: &Db,
    header: ImportHeader,
    frames: &Arc<Mutex<Frames>>,
    progress: &ImportProgress,
) -> Result<ImportReport> {
    let req = ImportRequest {
        files: header
            .inputs
            .iter()
            .filter(|i| names_kind(i.kind).is_none())
            .map(|i| PathBuf::from(&i.name))
            .collect(),
        max_ply: header.max_ply,
        keep_duplicates: header.keep_duplicates,
        structures: header.structures,
        batch: header.batch,
        memory_mib: header.memory_mib,
        names: Default::default(),
    };
    match kind_into(db, &req)? {
        Kind::Chess => {
            if let Some(n) = header.inputs.iter().find(|i| names_kind(i.kind).is_some()) {
                return Err(Error::bad_request(format!(
                    "{} names WTHOR players or tournaments: a chess import takes none",
                    n.name
                )));
            }
            let sources = header
                .inputs
                .iter()
                .enumerate()
                .map(|(i, input)| source(db.dir(), frames, i, &input.name, input.kind))
                .collect();
            import_into_from(db, &req, Inputs::Chess(sources), progress)
        }
        Kind::Othello => {
            let mut received = receive_wthor(&header, frames)?;
            import_into_from(db, &req, Inputs::Othello(&mut received), progress)
        }
    }
}

/// The source of chess input `i`.
fn source(
    dir: &Path,
    frames: &Arc<Mutex<Frames>>,
    i: usize,
    name: &str,
    kind: InputKind,
) -> Source {
    if kind == InputKind::Parquet {
        let (frames, dir, name) = (Arc::clone(frames), dir.to_path_buf(), name.to_string());
        return Source::Rows {
            name: name.clone(),
            open: Box::new(move || {
                let (file, size) = spool(&dir, &frames, i)?;
                tabiya_parquet::open_from(file, size, Path::new(&name))
                    .map(|g| Box::new(g) as Box<dyn RowChunks>)
            }),
        };
    }
    let size = frames.lock().ok().and_then(|f| f.sizes[i]);
    Source::Reader {
        name: name.to_string(),
        size,
        reader: Box::new(InputReader {
            frames: Arc::clone(frames),
            input: i,
        }),
    }
}

/// Parquet input `i` kept in a file of `dir` (unlinked at once: see the module), and its
/// size; or why not, as the import says it.
fn spool(
    dir: &Path,
    frames: &Mutex<Frames>,
    i: usize,
) -> std::result::Result<(std::fs::File, u64), String> {
    let mut f = frames
        .lock()
        .map_err(|_| "cannot read: the stream was lost".to_string())?;
    f.seek(i).map_err(|e| format!("cannot read: {e}"))?;
    if let Some(why) = f.unreadable[i].clone() {
        return Err(why);
    }
    let mut file = spool_file(dir)
        .map_err(|e| format!("cannot keep a copy to read in {}: {e}", dir.display()))?;
    let mut buf = vec![0u8; 256 << 10];
    let mut size = 0u64;
    loop {
        let n = f
            .read_current(&mut buf)
            .map_err(|e| format!("cannot read: {}", e.text()))?;
        if n == 0 {
            break;
        }
        file.write_all(&buf[..n])
            .map_err(|e| format!("cannot keep a copy to read in {}: {e}", dir.display()))?;
        size += n as u64;
    }
    use std::io::Seek;
    file.rewind()
        .map_err(|e| format!("cannot read the copy kept: {e}"))?;
    Ok((file, size))
}

/// A new file in `dir`, created (never one that exists) and unlinked at once.
fn spool_file(dir: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!(
            ".handover-{}-{}-{nanos}.parquet",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The WTHOR files of the stream, each whole within its bound.
fn receive_wthor(header: &ImportHeader, frames: &Mutex<Frames>) -> Result<WthorReceived> {
    let mut out = WthorReceived::default();
    let mut f = frames
        .lock()
        .map_err(|_| Error::bad_input("the import's stream was lost"))?;
    for (i, input) in header.inputs.iter().enumerate() {
        let bytes = f.whole(i, &input.name, input.kind)?;
        match input.kind {
            InputKind::WthorGames => {
                out.files.push(PathBuf::from(&input.name));
                out.games.push(bytes);
                let names = |n: &NamesOf| match n {
                    NamesOf::File(f) => Ok(PathBuf::from(f)),
                    NamesOf::NotFound(why) => Err(why.clone()),
                };
                out.names_of
                    .push([names(&input.names[0]), names(&input.names[1])]);
            }
            kind => {
                let Some(names) = names_kind(kind) else {
                    return Err(Error::bad_request(format!(
                        "{} is not a WTHOR file: an Othello import takes WTHOR files only",
                        input.name
                    )));
                };
                out.names.push((PathBuf::from(&input.name), names, bytes));
            }
        }
    }
    Ok(out)
}

/// Why reading an input's frames failed.
enum Failed {
    /// The command could not read on, and said why (the input ends there).
    Reported(String),
    /// The stream itself is broken: cut short, or not frames (every input after fails too).
    Broken(String),
}

impl Failed {
    fn text(&self) -> &str {
        match self {
            Failed::Reported(s) | Failed::Broken(s) => s,
        }
    }
}

/// The stream of frames after the header, read one input after another.
struct Frames {
    body: Box<dyn Read + Send>,
    names: Vec<String>,
    sizes: Vec<Option<u64>>,
    unreadable: Vec<Option<String>>,
    /// The input whose frames come next, whether its end was read, bytes left of the
    /// frame being read.
    input: usize,
    ended: bool,
    left: u32,
    broken: Option<String>,
}

impl Frames {
    fn new(body: Box<dyn Read + Send>, header: &ImportHeader) -> Frames {
        Frames {
            body,
            names: header.inputs.iter().map(|i| i.name.clone()).collect(),
            sizes: header.inputs.iter().map(|i| i.size).collect(),
            unreadable: header.inputs.iter().map(|i| i.unreadable.clone()).collect(),
            input: 0,
            ended: false,
            left: 0,
            broken: None,
        }
    }

    fn name(&self) -> &str {
        self.names
            .get(self.input)
            .map_or("the import", String::as_str)
    }

    fn broken(&mut self, why: String) -> Failed {
        self.broken = Some(why.clone());
        Failed::Broken(why)
    }

    fn u32(&mut self) -> std::result::Result<u32, Failed> {
        let mut b = [0u8; 4];
        match self.body.read_exact(&mut b) {
            Ok(()) => Ok(u32::from_le_bytes(b)),
            Err(e) => {
                let why = if e.kind() == io::ErrorKind::UnexpectedEof {
                    format!("the command's stream ended before {} did", self.name())
                } else {
                    format!("the command's stream broke off in {}: {e}", self.name())
                };
                Err(self.broken(why))
            }
        }
    }

    /// Moves on to input `i`, skipping what is left of those before it; false when `i`
    /// was passed already.
    fn seek(&mut self, i: usize) -> std::result::Result<bool, String> {
        let mut sink = [0u8; 64 << 10];
        while self.input < i {
            while !self.ended {
                match self.read_current(&mut sink) {
                    Ok(_) | Err(Failed::Reported(_)) => {}
                    Err(Failed::Broken(why)) => return Err(why),
                }
            }
            self.input += 1;
            self.ended = false;
            self.left = 0;
        }
        Ok(self.input == i)
    }

    /// Bytes of the current input, 0 at its end.
    fn read_current(&mut self, buf: &mut [u8]) -> std::result::Result<usize, Failed> {
        if let Some(why) = &self.broken {
            return Err(Failed::Broken(why.clone()));
        }
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        while self.left == 0 {
            match self.u32()? {
                0 => {
                    self.ended = true;
                    return Ok(0);
                }
                FAILED => {
                    let len = self.u32()?;
                    if len > MAX_FRAME {
                        return Err(
                            self.broken(format!("a reason of {len} bytes for {}", self.name()))
                        );
                    }
                    let mut why = vec![0u8; len as usize];
                    if let Err(e) = self.body.read_exact(&mut why) {
                        return Err(self.broken(format!(
                            "the command's stream broke off in {}: {e}",
                            self.name()
                        )));
                    }
                    // The input's end follows.
                    if self.u32()? != 0 {
                        return Err(
                            self.broken(format!("{} goes on after its reader failed", self.name()))
                        );
                    }
                    self.ended = true;
                    return Err(Failed::Reported(String::from_utf8_lossy(&why).into_owned()));
                }
                n if n > MAX_FRAME => {
                    return Err(self.broken(format!(
                        "a frame of {n} bytes in {}: the stream is not Tabiya's hand-over",
                        self.name()
                    )));
                }
                n => self.left = n,
            }
        }
        let want = buf.len().min(self.left as usize);
        loop {
            return match self.body.read(&mut buf[..want]) {
                Ok(0) => Err(self.broken(format!(
                    "the command's stream ended in the middle of {}",
                    self.name()
                ))),
                Ok(n) => {
                    self.left -= n as u32;
                    Ok(n)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(self.broken(format!(
                    "the command's stream broke off in {}: {e}",
                    self.name()
                ))),
            };
        }
    }

    /// Input `i` (a WTHOR file) whole: its bytes, or why the command could not read it; an
    /// input past its kind's bound, or a broken stream, fails the import.
    fn whole(
        &mut self,
        i: usize,
        name: &str,
        kind: InputKind,
    ) -> Result<std::result::Result<Vec<u8>, String>> {
        self.seek(i).map_err(Error::bad_input)?;
        if let Some(why) = self.unreadable[i].clone() {
            return Ok(Err(why));
        }
        let limit = bound(kind);
        let mut out = Vec::new();
        let mut buf = vec![0u8; 256 << 10];
        loop {
            match self.read_current(&mut buf) {
                Ok(0) => return Ok(Ok(out)),
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    if let Some(limit) = &limit
                        && let Err(e) = limit.check(Path::new(name), out.len() as u64)
                    {
                        return Err(Error::bad_input(format!(
                            "{e}: refused as it was received (more was sent than such a file can hold)"
                        )));
                    }
                }
                Err(Failed::Reported(why)) => return Ok(Err(why)),
                Err(Failed::Broken(why)) => return Err(Error::bad_input(why)),
            }
        }
    }
}

/// The reader of chess input `i` (see the module).
struct InputReader {
    frames: Arc<Mutex<Frames>>,
    input: usize,
}

impl Read for InputReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut f = self
            .frames
            .lock()
            .map_err(|_| io::Error::other("the stream was lost"))?;
        if !f.seek(self.input).map_err(io::Error::other)? {
            return Ok(0);
        }
        if let Some(why) = f.unreadable[self.input].clone() {
            return Err(io::Error::other(why));
        }
        f.read_current(buf)
            .map_err(|e| io::Error::other(e.text().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handover::wire::InputHead;

    fn head(names: &[&str]) -> ImportHeader {
        ImportHeader {
            db: "d".into(),
            keep_duplicates: false,
            structures: false,
            batch: 0,
            memory_mib: None,
            max_ply: None,
            inputs: names
                .iter()
                .map(|n| InputHead {
                    name: n.to_string(),
                    kind: InputKind::Pgn,
                    size: None,
                    unreadable: None,
                    names: Vec::new(),
                })
                .collect(),
        }
    }

    fn frame(out: &mut Vec<u8>, bytes: &[u8]) {
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    }

    /// An input left part way (its reader dropped after an error) is skipped by the next
    /// one's reader; a reason the command sent fails its input only; a stream cut short
    /// fails what is left.
    #[test]
    fn each_input_reads_its_own_frames_whatever_the_one_before_did() {
        let mut body = Vec::new();
        frame(&mut body, b"first part ");
        frame(&mut body, b"first rest");
        body.extend_from_slice(&0u32.to_le_bytes());
        body.extend_from_slice(&FAILED.to_le_bytes());
        frame(&mut body, b"x.pgn: Input/output error");
        body.extend_from_slice(&0u32.to_le_bytes());
        frame(&mut body, b"third");
        body.extend_from_slice(&0u32.to_le_bytes());
        frame(&mut body, b"cut");
        let header = head(&["a", "b", "c", "d"]);
        let frames = Arc::new(Mutex::new(Frames::new(
            Box::new(io::Cursor::new(body)),
            &header,
        )));
        let reader = |i| InputReader {
            frames: Arc::clone(&frames),
            input: i,
        };
        let mut a = reader(0);
        let mut buf = [0u8; 5];
        a.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"first");
        drop(a);
        let e = reader(1).read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "x.pgn: Input/output error");
        let mut third = String::new();
        reader(2).read_to_string(&mut third).unwrap();
        assert_eq!(third, "third");
        // An input passed already reads as ended.
        assert_eq!(reader(0).read(&mut buf).unwrap(), 0);
        let mut d = Vec::new();
        let e = reader(3).read_to_end(&mut d).unwrap_err();
        assert_eq!(d, b"cut");
        assert_eq!(e.to_string(), "the command's stream ended before d did");
    }

    /// A WTHOR file longer than its kind's bound is refused as it comes, naming it.
    #[test]
    fn a_wthor_stream_past_its_bound_is_refused() {
        let mut header = head(&["WTHOR.JOU"]);
        header.inputs[0].kind = InputKind::WthorPlayers;
        let max = NameKind::Players.max_file_bytes() as usize;
        let mut body = Vec::new();
        for _ in 0..=max / (1 << 20) {
            frame(&mut body, &vec![0u8; 1 << 20]);
        }
        body.extend_from_slice(&0u32.to_le_bytes());
        let frames = Mutex::new(Frames::new(Box::new(io::Cursor::new(body)), &header));
        let e = receive_wthor(&header, &frames).unwrap_err().to_string();
        assert!(e.starts_with("WTHOR.JOU is "), "{e}");
        assert!(e.contains("refused as it was received"), "{e}");
    }
}
