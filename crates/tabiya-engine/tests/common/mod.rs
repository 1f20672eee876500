//! What the engine tests share: the misbehaving fake engine, and a check that a process is
//! gone.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use tabiya_engine::EngineConfig;

/// `tests/fake_engine.py MODE EXTRA…` with short deadlines (2 s handshake, 1 s silence,
/// 1 s after `stop`).
pub fn fake(mode: &str, extra: &[&str]) -> EngineConfig {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake_engine.py");
    let mut c = EngineConfig::new("python3");
    c.args = [script.display().to_string(), mode.to_string()]
        .into_iter()
        .chain(extra.iter().map(|s| s.to_string()))
        .collect();
    c.handshake_timeout = Duration::from_secs(2);
    c.stall_timeout = Duration::from_secs(1);
    c.stop_timeout = Duration::from_secs(1);
    c
}

/// Reaped: no /proc entry at all (a zombie would still have one).
pub fn assert_gone(pid: u32) {
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "engine process {pid} is still there"
    );
}
