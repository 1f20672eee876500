//! Realistic PGN for scale benchmarks: a model of real games (opening tree by observed
//! frequency, real lengths, results, names) and games drawn from it, deterministically.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tabiya_gen::Model;

use crate::error::{Context, Error, ErrorKind, Result};

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenRequest {
    pub games: u64,
    /// The same seed and sources give the same bytes.
    pub seed: u64,
    /// Real games to learn from (none: the bundled sample).
    pub from: Vec<PathBuf>,
}

/// What was generated.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenSummary {
    pub games: u64,
    pub seed: u64,
    pub output: Option<PathBuf>,
    pub bytes: u64,
    pub learned_games: u64,
    pub tree_positions: usize,
    pub seconds: f64,
}

/// Learns from `req.from` (or the bundled sample) and writes `req.games` games to `out`,
/// calling `progress` with the number written so far.
pub fn generate(
    req: &GenRequest,
    out: impl Write,
    progress: impl FnMut(u64),
) -> Result<GenSummary> {
    let started = std::time::Instant::now();
    let mut model = Model::default();
    if req.from.is_empty() {
        let sample = zstd_sample()?;
        model
            .learn_pgn(sample)
            .context(ErrorKind::Io, || "reading the bundled sample".to_string())?;
    }
    for p in &req.from {
        let input = tabiya_pgn::input::open(p)
            .context(ErrorKind::BadInput, || format!("reading {}", p.display()))?;
        model
            .learn_pgn(input.reader)
            .context(ErrorKind::BadInput, || format!("reading {}", p.display()))?;
    }
    if model.games_learned() == 0 {
        return Err(Error::bad_input("no standard games to learn from"));
    }
    tabiya_gen::generate_with_progress(&model, req.games, req.seed, out, progress)
        .context(ErrorKind::Io, || "cannot write the games".to_string())?;
    Ok(GenSummary {
        games: req.games,
        seed: req.seed,
        output: None,
        bytes: 0,
        learned_games: model.games_learned(),
        tree_positions: model.tree_positions(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// [`generate`] into a file (zstd-compressed when it ends in `.zst`).
pub fn generate_to_file(
    req: &GenRequest,
    path: &Path,
    progress: impl FnMut(u64),
) -> Result<GenSummary> {
    let f = std::io::BufWriter::new(
        std::fs::File::create(path)
            .context(ErrorKind::Io, || format!("creating {}", path.display()))?,
    );
    let mut summary = if path.extension().is_some_and(|e| e == "zst") {
        let enc = tabiya_pgn::input::zstd_writer(f)
            .context(ErrorKind::Io, || format!("creating {}", path.display()))?;
        generate(req, enc, progress)?
    } else {
        generate(req, f, progress)?
    };
    summary.output = Some(path.to_path_buf());
    summary.bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(summary)
}

/// The bundled sample, decompressed as it is read.
fn zstd_sample() -> Result<impl std::io::Read> {
    let input = tabiya_pgn::input::from_reader(
        "bundled sample".to_string(),
        Some(crate::demo::SAMPLE.len() as u64),
        Box::new(crate::demo::SAMPLE),
    )
    .context(ErrorKind::Io, || "reading the bundled sample".to_string())?;
    Ok(input.reader)
}
