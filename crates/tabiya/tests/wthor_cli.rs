//! `tabiya wthor` on the real shared files: check's JSON and exit status, the CSV export parsed
//! by Python's csv module and compared with the binary files read by the independent Python
//! oracle, `--json` rows compared with the oracle's rows.

use std::path::{Path, PathBuf};
use std::process::Command;

const WTHOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/wthor");
const WTHOR_NEW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/wthor-2022-2023"
);
const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../oracle/wthor_oracle.py");
const TINY_WTD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tabiya-othello/tests/fixtures/tiny.wtd"
);

fn tabiya() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tabiya"))
}

fn wtb(dir: &str, years: std::ops::RangeInclusive<u16>) -> Vec<PathBuf> {
    years
        .map(|y| Path::new(dir).join(format!("WTH_{y}.wtb")))
        .collect()
}

fn all_wtb() -> Vec<PathBuf> {
    let mut v = wtb(WTHOR, 1977..=2021);
    v.extend(wtb(WTHOR_NEW, 2022..=2023));
    v
}

fn python3() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn check_json_on_every_shared_file() {
    let out = tabiya()
        .args(["wthor", "check", "--json"])
        .args(all_wtb())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Figures counted by the independent Python oracle (oracle/wthor_oracle.py,
    // fixture tests/fixtures/oracle_summary.json).
    assert_eq!(v["games"], 129_703);
    assert_eq!(v["illegal"], 0);
    assert_eq!(v["unfinished"], 413);
    assert_eq!(v["scoreMismatches"], 0);
    assert_eq!(v["unknownIds"], 274);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 47);
    let y1981 = files
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("WTH_1981.wtb"))
        .unwrap();
    assert_eq!(y1981["games"], 153);
    assert_eq!(y1981["unfinished"], 3);
    let p = &y1981["problems"][0];
    assert_eq!(p["kind"], "unfinished");
    assert!(p["game"].is_u64() && p["offset"].is_u64());
    let y2023 = files.last().unwrap();
    assert!(
        y2023["jou"].as_str().unwrap().contains("wthor-2022-2023"),
        "names found beside the file"
    );
    let unknown = y2023["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "unknownId")
        .unwrap();
    assert!(["tournament", "black", "white"].contains(&unknown["field"].as_str().unwrap()));
}

#[test]
fn check_terminal_summary_and_exit_status() {
    let out = tabiya()
        .args(["wthor", "check"])
        .args(wtb(WTHOR, 1980..=1981))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("WTH_1981.wtb: 153 games, 0 illegal, 0 bad move bytes, 3 unfinished"),
        "{text}"
    );
    assert!(text.contains("total: 2 files, 313 games"), "{text}");
    // A file that cannot be read: non-zero exit, the rest still reported.
    let out = tabiya()
        .args(["wthor", "check", "--json", "/nonexistent/WTH_1900.wtb"])
        .arg(Path::new(WTHOR).join("WTH_1977.wtb"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 12);
    assert!(
        v["files"][0]["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/WTH_1900.wtb")
    );
    // Explicit name files.
    let out = tabiya()
        .args(["wthor", "check", "--json", "--jou"])
        .arg(Path::new(WTHOR).join("WTHOR.JOU"))
        .arg("--trn")
        .arg(Path::new(WTHOR).join("WTHOR.TRN"))
        .arg(Path::new(WTHOR_NEW).join("WTH_2022.wtb"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The 1977–2021 names lack the players added for 2022, so ids are unknown now.
    assert!(v["unknownIds"].as_u64().unwrap() > 0);
    // 10×10 files are refused by check.
    let out = tabiya()
        .args(["wthor", "check", TINY_WTD])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("10×10 games are not replayed"));
}

#[test]
fn csv_export_matches_the_oracle() {
    if !python3() {
        eprintln!("SKIPPED: python3 not found; the CSV is checked with Python's csv module");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, files) in [
        ("old.csv", wtb(WTHOR, 1977..=2021)),
        ("new.csv", wtb(WTHOR_NEW, 2022..=2023)),
    ] {
        let csv = dir.path().join(name);
        let out = tabiya()
            .args(["wthor", "csv", "-o"])
            .arg(&csv)
            .args(&files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let check = Command::new("python3")
            .arg(ORACLE)
            .arg("csvcheck")
            .arg(&csv)
            .args(&files)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
        if name == "old.csv" {
            assert_eq!(v["rows"], 127_475);
            // Names with commas or quotes, and non-ASCII names, exist: the quoting and the
            // encoding are exercised.
            assert!(v["rowsNeedingQuotes"].as_u64().unwrap() > 0, "{v}");
            assert!(v["rowsWithNonAscii"].as_u64().unwrap() > 0, "{v}");
        } else {
            assert_eq!(v["rows"], 1142 + 1086);
        }
    }
}

#[test]
fn csv_json_rows_match_the_oracle() {
    if !python3() {
        eprintln!("SKIPPED: python3 not found; the oracle is a Python script");
        return;
    }
    let files = [wtb(WTHOR, 1995..=1995), wtb(WTHOR_NEW, 2023..=2023)].concat();
    let out = tabiya()
        .args(["wthor", "csv", "--json"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let oracle = Command::new("python3")
        .arg(ORACLE)
        .arg("rows")
        .args(&files)
        .output()
        .unwrap();
    assert!(oracle.status.success());
    let theirs: serde_json::Value = serde_json::from_slice(&oracle.stdout).unwrap();
    assert_eq!(ours.as_array().unwrap().len(), 4968 + 1086);
    assert_eq!(ours, theirs);
}

#[test]
fn csv_to_stdout_has_bom_header_and_crlf() {
    let out = tabiya()
        .args(["wthor", "csv"])
        .arg(Path::new(WTHOR).join("WTH_1977.wtb"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("\u{feff}tournamentId,tournamentName,blackPlayerId,blackPlayerName,whitePlayerId,whitePlayerName,blackScore,blackTheoreticalScore,transcript,year\r\n"));
    assert_eq!(s.matches("\r\n").count(), 13);
    // First game of 1977 (hex dump of WTH_1977.wtb: tournament 1, players 346 and 843, 34/41).
    assert!(
        s.contains("\r\n1,World Championship,346,Inoue Hiroshi,843,Heiberg Thomas,34,41,f5d6c3f3"),
        "{s}"
    );
}

#[test]
fn csv_exports_ten_by_ten_and_info_shows_headers() {
    // tiny.wtd has no name files beside it: give the 8×8 ones (ids 0–5 exist there).
    let out = tabiya()
        .args(["wthor", "csv", "--json", "--jou"])
        .arg(Path::new(WTHOR).join("WTHOR.JOU"))
        .arg("--trn")
        .arg(Path::new(WTHOR).join("WTHOR.TRN"))
        .arg(TINY_WTD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["transcript"], "g6f7e4j10a1");
    assert_eq!(v[0]["year"], 1999);
    let out = tabiya()
        .args(["wthor", "info", "--json", TINY_WTD])
        .arg(Path::new(WTHOR).join("WTHOR.TRN"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["header"]["boardSize"], 10);
    assert_eq!(v[0]["header"]["reserved"], 7);
    assert_eq!(v[0]["kind"], "games 10x10");
    assert_eq!(v[1]["records"], 439);
}

#[test]
fn opening_command_names_lines() {
    let out = tabiya()
        .args(["wthor", "opening", "--json", "f5d6c3d3c4f4e6b3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "Leader's Tiger");
    assert_eq!(v["movesToName"], 7);
    let out = tabiya()
        .args(["wthor", "opening", "d3c5f6f5e6"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("Tiger after 5 moves")
    );
}
