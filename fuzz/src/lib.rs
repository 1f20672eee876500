//! What the fuzz targets share: one input cut into the parts of a multi-file format.

/// Cuts `data` into `n` parts: each part but the last is preceded by its length (`u32`,
/// little-endian; a length past the end takes what is left), the last takes the rest.
/// `scripts/fuzz` writes its multi-file seeds this way.
pub fn parts(mut data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    for _ in 1..n {
        let len = match data.split_first_chunk::<4>() {
            Some((len, rest)) => {
                data = rest;
                u32::from_le_bytes(*len) as usize
            }
            None => {
                data = &[];
                0
            }
        };
        let (part, rest) = data.split_at(len.min(data.len()));
        out.push(part);
        data = rest;
    }
    out.push(data);
    out
}

/// The text of `data` when it is UTF-8.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// `scripts/fuzz`'s hook for the targets whose seeds only the encoders can make (stored
/// games, index blocks): with `TABIYA_FUZZ_SEEDS=DIR` and `TABIYA_FUZZ_PGN=FILE[:FILE…]`
/// set, writes those seeds into `DIR` from the games of the PGN files and exits.
pub fn write_seeds_if_asked(index: bool) {
    let (Some(dir), Some(pgn)) = (
        std::env::var_os("TABIYA_FUZZ_SEEDS"),
        std::env::var("TABIYA_FUZZ_PGN").ok(),
    ) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("seed folder");
    let mut n = 0;
    for (f, file) in pgn.split(':').enumerate() {
        let bytes = std::fs::read(file).expect("PGN file");
        let (stored, blocks) = tabiya_db::fuzzing::seeds(&bytes);
        for (name, b) in if index { blocks } else { stored } {
            std::fs::write(dir.join(format!("{f}-{name}")), b).expect("seed file");
            n += 1;
        }
    }
    eprintln!("wrote {n} seeds to {}", dir.display());
    std::process::exit(0);
}
