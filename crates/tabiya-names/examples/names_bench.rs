//! Loads Scid's spelling file and clusters its player names, printing counts and times.
//!
//! `cargo run -p tabiya-names --release --example names_bench [-- PATH.ssp[.zst]]`
//! (default: /work/shared/data/names/spelling.ssp.zst).

use std::collections::HashSet;
use std::io::Read;
use std::time::Instant;

use tabiya_names::ssp::{Correction, Section, Spelling};

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/work/shared/data/names/spelling.ssp.zst".into());
    let t = Instant::now();
    let mut bytes = Vec::new();
    let file = std::fs::File::open(&path).expect("open");
    if path.ends_with(".zst") {
        zstd::Decoder::new(file)
            .expect("zstd")
            .read_to_end(&mut bytes)
            .expect("read");
    } else {
        std::io::BufReader::new(file)
            .read_to_end(&mut bytes)
            .expect("read");
    }
    println!("decompress {:>9} bytes: {:?}", bytes.len(), t.elapsed());

    let t = Instant::now();
    let s = Spelling::read(&bytes[..]).expect("parse");
    println!("Spelling::read: {:?}", t.elapsed());
    for sec in Section::ALL {
        println!(
            "  {sec:?}: {} correct names, {} spellings",
            s.len(sec),
            s.spellings(sec)
        );
    }
    println!("  warnings: {}", s.warnings().len());

    // Every alias of the player section, as written, and reversed to "Given Surname".
    let text = String::from_utf8_lossy(&bytes);
    let (start, end) = (
        text.find("\n@PLAYER").unwrap_or(0),
        text.find("\n@SITE").unwrap_or(text.len()),
    );
    let player_lines = text[start..end]
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim());
    let spellings: Vec<&str> = player_lines
        .filter(|l| !l.is_empty() && !l.starts_with('%') && !l.starts_with('@'))
        .map(|l| l.trim_start_matches('=').trim())
        .collect();
    let reversed: Vec<String> = spellings
        .iter()
        .filter_map(|n| {
            n.split_once(", ")
                .map(|(sur, given)| format!("{given} {sur}"))
        })
        .collect();
    let t = Instant::now();
    let (mut fixed, mut amb) = (0, 0);
    for n in reversed
        .iter()
        .map(String::as_str)
        .chain(spellings.iter().copied())
    {
        match s.correct(Section::Player, n) {
            Correction::Corrected { .. } => fixed += 1,
            Correction::Ambiguous(_) => amb += 1,
            _ => {}
        }
    }
    let lookups = reversed.len() + spellings.len();
    println!(
        "correct() x {lookups}: {:?} ({fixed} corrected, {amb} ambiguous)",
        t.elapsed()
    );

    // A name dictionary: the spellings, their "Given Surname" forms and "Surname, I" forms.
    let initials: Vec<String> = spellings
        .iter()
        .filter_map(|n| {
            n.split_once(", ")
                .and_then(|(sur, g)| g.chars().next().map(|c| format!("{sur}, {c}.")))
        })
        .collect();
    let mut seen = HashSet::new();
    let dict: Vec<(&str, u64)> = spellings
        .iter()
        .copied()
        .chain(reversed.iter().map(String::as_str))
        .chain(initials.iter().map(String::as_str))
        .filter(|n| seen.insert(*n))
        .enumerate()
        .map(|(i, n)| (n, (i % 97) as u64))
        .collect();
    parse_only(&dict[..500_000.min(dict.len())]);
    for n in [500_000, dict.len()] {
        let part = &dict[..n.min(dict.len())];
        let t = Instant::now();
        let c = tabiya_names::cluster(part);
        println!(
            "cluster({} names): {:?} -> {} persons, {} ambiguous, {} not persons",
            part.len(),
            t.elapsed(),
            c.clusters.len(),
            c.ambiguous.len(),
            c.not_persons.len()
        );
    }
}

/// Times `parse` alone.
fn parse_only(dict: &[(&str, u64)]) {
    let t = Instant::now();
    let n = dict
        .iter()
        .filter(|d| tabiya_names::parse(d.0).is_some())
        .count();
    println!("parse x {}: {:?} ({n})", dict.len(), t.elapsed());
}
