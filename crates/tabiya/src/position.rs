//! `tabiya position encode | decode`: compact position codecs on the command line.
//!
//! * `encode --format b32|cdb|ctg|kvetka|polyglot FEN…` prints each position's bytes as
//!   lowercase hex (Polyglot: the 64-bit key as 16 hex digits).
//! * `decode --format b32|cdb|ctg|kvetka HEX…` prints each position's FEN.
//!
//! Several positions may be given; `-` reads them from standard input, one per line. With
//! `--json` the output is a list of `{input, output}` objects (`error` instead of `output`
//! for an input that could not be converted; the command then fails).
//!
//! What decoding gives back (see `docs/formats/conversions.md`):
//! * B32 keeps everything (clocks included): the FEN comes back exactly.
//! * CDB keeps no clocks: `0 1` is printed.
//! * CTG and Kvetka keys hold the **normalised** position — White to move, colour-flipped
//!   when Black was to move, files mirrored when nobody may castle and the king stood on
//!   files a–d — with clocks `0 1`. `--black` undoes the flip (the real side to move was
//!   Black), `--mirrored` undoes the mirror; with both flags the real position comes back
//!   when they describe how it was normalised (`encode --json` tells them).
//! * A Polyglot key is a hash: it cannot be decoded.

use std::io::{BufRead, Write};

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use tabiya_service::codecs::{self, Codec};

use crate::output::print_json;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CodecArg {
    B32,
    Cdb,
    Ctg,
    Kvetka,
    Polyglot,
}

impl From<CodecArg> for Codec {
    fn from(c: CodecArg) -> Codec {
        match c {
            CodecArg::B32 => Codec::B32,
            CodecArg::Cdb => Codec::Cdb,
            CodecArg::Ctg => Codec::Ctg,
            CodecArg::Kvetka => Codec::Kvetka,
            CodecArg::Polyglot => Codec::Polyglot,
        }
    }
}

#[derive(Subcommand)]
pub enum PositionCommand {
    /// Encode FEN positions; prints lowercase hex, one line each.
    Encode(EncodeArgs),
    /// Decode hex back to FEN (b32, cdb, ctg, kvetka).
    Decode(DecodeArgs),
}

#[derive(Args)]
pub struct EncodeArgs {
    /// The form: B32 (32 bytes), CDB's 24 bytes, or a book's key (CTG, Kvetka, Polyglot).
    #[arg(long, value_enum)]
    pub format: CodecArg,
    /// FEN positions (`startpos` for the start; `-` reads one FEN per line from standard
    /// input).
    #[arg(required = true, value_name = "FEN")]
    pub fens: Vec<String>,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DecodeArgs {
    /// The form the hex is in: B32 (32 bytes), CDB's 24 bytes, or a book's key.
    #[arg(long, value_enum)]
    pub format: CodecArg,
    /// Hex strings (`-` reads one per line from standard input).
    #[arg(required = true, value_name = "HEX")]
    pub hex: Vec<String>,
    /// CTG/Kvetka: Black was to move in the real position (undo the colour flip).
    #[arg(long)]
    pub black: bool,
    /// CTG/Kvetka: the real position was mirrored a↔h (undo the mirror).
    #[arg(long)]
    pub mirrored: bool,
    /// Print JSON instead of text (for programs).
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    input: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
    /// CTG/Kvetka encode: how the position was normalised.
    #[serde(skip_serializing_if = "Option::is_none")]
    flipped: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mirrored: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Line {
    /// An input that could not be converted, with the reason.
    fn failed(input: String, e: &anyhow::Error) -> Line {
        Line {
            input,
            output: None,
            flipped: None,
            mirrored: None,
            error: Some(format!("{e:#}")),
        }
    }
}

pub fn run(cmd: PositionCommand) -> anyhow::Result<()> {
    match cmd {
        PositionCommand::Encode(a) => encode(a),
        PositionCommand::Decode(a) => decode(a),
    }
}

/// The inputs, with `-` expanded to the lines of standard input.
fn inputs(args: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for a in args {
        if a == "-" {
            for line in std::io::stdin().lock().lines() {
                let line = line.context("reading standard input")?;
                let t = line.trim();
                if !t.is_empty() {
                    out.push(t.to_string());
                }
            }
        } else {
            out.push(a.clone());
        }
    }
    Ok(out)
}

fn encode(args: EncodeArgs) -> anyhow::Result<()> {
    let items = inputs(&args.fens)?;
    let mut lines = Vec::with_capacity(items.len());
    let mut failed = 0;
    for s in items {
        match codecs::encode(args.format.into(), &s) {
            Ok(e) => lines.push(Line {
                input: s,
                output: Some(e.hex),
                flipped: e.flipped,
                mirrored: e.mirrored,
                error: None,
            }),
            Err(e) => {
                failed += 1;
                lines.push(Line::failed(s, &e.into()));
            }
        }
    }
    emit(&lines, args.json, failed)
}

fn emit(lines: &[Line], json: bool, failed: usize) -> anyhow::Result<()> {
    if json {
        print_json(lines)?;
    } else {
        let mut out = std::io::stdout().lock();
        for l in lines {
            match (&l.output, &l.error) {
                (Some(o), _) => writeln!(out, "{o}")?,
                (None, Some(e)) => eprintln!("tabiya: {e}"),
                (None, None) => {}
            }
        }
    }
    if failed > 0 {
        let first = lines
            .iter()
            .find_map(|l| l.error.clone())
            .unwrap_or_default();
        bail!(
            "{failed} of {} input(s) could not be converted; first: {first}",
            lines.len()
        );
    }
    Ok(())
}

fn decode(args: DecodeArgs) -> anyhow::Result<()> {
    let items = inputs(&args.hex)?;
    let mut lines = Vec::with_capacity(items.len());
    let mut failed = 0;
    for s in items {
        match codecs::decode(args.format.into(), &s, args.black, args.mirrored) {
            Ok(f) => lines.push(Line {
                input: s,
                output: Some(f),
                flipped: None,
                mirrored: None,
                error: None,
            }),
            Err(e) => {
                failed += 1;
                lines.push(Line::failed(s, &e.into()));
            }
        }
    }
    emit(&lines, args.json, failed)
}
