//! `tabiya demo`: imports the bundled sample into a local database and shows what the
//! explorer says of a few well-known positions.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use tabiya_db::{Database, ImportOptions, ImportProgress, Kind, Source};

use crate::args::{DbArg, PositionArg};
use crate::db::{explore_json, print_explore};

/// The bundled sample: 2,500 TCEC games (CC BY-SA 3.0, see data/sample/SOURCE.md).
const SAMPLE: &[u8] = include_bytes!("../../../data/sample/tcec-sample.pgn.zst");

/// The bundled sample, zstd-compressed PGN.
pub fn sample() -> &'static [u8] {
    SAMPLE
}

#[derive(Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub db: DbArg,
    #[arg(long)]
    pub json: bool,
}

const POSITIONS: [(&str, &str); 6] = [
    ("the starting position", ""),
    ("1. e4", "e2e4"),
    ("the Sicilian Defence, 1. e4 c5", "e2e4,c7c5"),
    (
        "the Ruy Lopez, 1. e4 e5 2. Nf3 Nc6 3. Bb5",
        "e2e4,e7e5,g1f3,b8c6,f1b5",
    ),
    ("the Queen's Gambit, 1. d4 d5 2. c4", "d2d4,d7d5,c2c4"),
    (
        "1. Nf3 d5 2. d4 — by transposition the same position as 1. d4 d5 2. Nf3",
        "g1f3,d7d5,d2d4",
    ),
];

pub fn demo(args: DemoArgs) -> anyhow::Result<()> {
    let dir: PathBuf = args.db.dir();
    let db = Database::open_or_create(&dir, Kind::Chess, None)?;
    let source = Source::Reader {
        name: "bundled sample (2,500 TCEC games, CC BY-SA 3.0)".to_string(),
        size: Some(SAMPLE.len() as u64),
        reader: Box::new(SAMPLE),
    };
    let summary = db.import_sources(
        vec![source],
        &ImportOptions::default(),
        &ImportProgress::default(),
    )?;
    let snap = db.snapshot()?;
    let mut answers = Vec::new();
    for (label, play) in POSITIONS {
        let arg = PositionArg {
            fen: None,
            play: (!play.is_empty()).then(|| play.to_string()),
        };
        let r = arg.resolve()?;
        answers.push((label, play, explore_json(&snap, &r, 3)?));
    }
    if args.json {
        let v: Vec<serde_json::Value> = answers
            .iter()
            .map(|(label, play, e)| serde_json::json!({"position": label, "play": play, "explorer": e}))
            .collect();
        return crate::output::print_json(&serde_json::json!({"import": summary, "positions": v}));
    }
    {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "Imported {} games ({} already there) into {} in {:.2} s; it now holds {} games.\n",
            summary.imported,
            summary.duplicates,
            dir.display(),
            summary.seconds,
            summary.database_games
        )?;
    }
    for (label, play, e) in &answers {
        println!(
            "== {label}{}",
            if play.is_empty() {
                String::new()
            } else {
                format!("  (--play {play})")
            }
        );
        print_explore(e)?;
        println!();
    }
    println!(
        "Try: tabiya explore --db {} --play e2e4,e7e5   |   tabiya games --db {} --play e2e4,c7c5",
        dir.display(),
        dir.display()
    );
    Ok(())
}
