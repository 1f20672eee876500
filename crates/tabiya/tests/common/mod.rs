//! Helpers shared by the command-line tests: the binary, the shared data, running commands.

#![allow(dead_code)]

pub mod bounded;
pub mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_tabiya");

/// A file or folder of `../shared/data`.
pub fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel)
}

/// Runs `tabiya` with `args`, whatever its exit status.
pub fn run_raw(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run tabiya")
}

/// Runs `tabiya` with `args` and fails the test (with its output) unless it succeeds.
pub fn run_ok(args: &[&str]) -> Output {
    let out = run_raw(args);
    assert!(
        out.status.success(),
        "tabiya {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

/// Runs `tabiya` with `args` (it must succeed) and parses its standard output as JSON.
pub fn json(args: &[&str]) -> Value {
    let out = run_ok(args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "tabiya {args:?}: bad JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Runs `oracle/SCRIPT` (python-chess) with `args` (it must succeed) and parses its standard
/// output as JSON.
pub fn oracle_json(script: &str, args: &[&str]) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../oracle")
        .join(script);
    let out = Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 with python-chess");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The engine (Stockfish) processes whose parent is `pid`.
pub fn engines_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let ppid: u32 = after
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if ppid == pid && stat.contains("(stockfish)") {
            out.push(p);
        }
    }
    out
}
