//! A real, published Lichess client — the Python library `berserk` (PyPI), which nobody here
//! wrote — pointed at `tabiya serve` with `explorer_url`, gets from `get_masters_games`,
//! `get_lichess_games`, `stream_player_games` and `get_otb_master_game` the statistics and
//! games `tabiya explore --json` and `tabiya export` give. The test command installs berserk.

mod common;

use std::path::Path;
use std::process::Command;

use common::server::Server;
use common::{json, run_ok, shared};

#[test]
fn berserk_gets_what_the_command_line_says() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    let e4 = json(&[
        "explore", "--json", "--db", &db, "--play", "e2e4", "--top", "15",
    ]);
    let sicilian = json(&["explore", "--json", "--db", &db, "--play", "e2e4,c7c5"]);
    let game = e4["topGames"][0]["id"].as_str().unwrap().to_string();
    let player = e4["topGames"][0]["white"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    // The player's games as White, every one: the start position's totals, counted from the
    // game list (the command line has no player filter of its own).
    let all = json(&["games", "--json", "--db", &db, "--limit", "100000"]);
    let mut white = serde_json::json!({"white": 0, "draws": 0, "black": 0});
    for g in all["games"].as_array().unwrap() {
        if g["white"]["name"] == player.as_str() {
            let k = match g["result"].as_str().unwrap() {
                "1-0" => "white",
                "0-1" => "black",
                "1/2-1/2" => "draws",
                _ => continue,
            };
            white[k] = (white[k].as_u64().unwrap() + 1).into();
        }
    }
    let pgn = String::from_utf8(run_ok(&["export", "--db", &db, "--game", &game]).stdout).unwrap();
    let expected = serde_json::json!({
        "e4": e4, "sicilian": sicilian, "player": player, "player_white": white,
        "game": game, "game_pgn": pgn,
    });
    let exp = dir.path().join("expected.json");
    std::fs::write(&exp, expected.to_string()).unwrap();

    let server = Server::start(&["--db", &db]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/berserk_client.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.url)
        .arg(&exp)
        .output()
        .expect("python3 with berserk (the test command installs it)");
    assert!(
        out.status.success(),
        "{}{}\nserver: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        server.stderr()
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
}
