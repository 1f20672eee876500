//! Running `tabiya` on hostile input: with a time limit (a regression fails instead of
//! hanging the suite) and its peak memory measured (the kernel's maximum resident set of
//! the child, read by Python's `resource.getrusage` once it is reaped).

use std::path::Path;
use std::process::Command;

/// What a bounded run gave.
pub struct Bounded {
    pub code: i64,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident memory of the child, in bytes.
    pub peak_rss: u64,
}

const WRAPPER: &str = r#"
import json, resource, subprocess, sys
limit = float(sys.argv[1])
try:
    p = subprocess.run(sys.argv[2:], capture_output=True, timeout=limit)
except subprocess.TimeoutExpired:
    print(json.dumps({"timeout": True}))
    sys.exit(0)
print(json.dumps({
    "code": p.returncode,
    "stdout": p.stdout.decode("utf-8", "replace"),
    "stderr": p.stderr.decode("utf-8", "replace"),
    "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
}))
"#;

/// Runs `tabiya ARGS` in `dir`, killed after `seconds` (the test then fails, saying so).
pub fn run_bounded(dir: &Path, seconds: u32, args: &[&str]) -> Bounded {
    let out = Command::new("python3")
        .current_dir(dir)
        .args(["-c", WRAPPER, &seconds.to_string(), super::BIN])
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "wrapper: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v.get("timeout").is_none(),
        "tabiya {args:?} still running after {seconds} s: killed"
    );
    Bounded {
        code: v["code"].as_i64().unwrap(),
        stdout: v["stdout"].as_str().unwrap().to_string(),
        stderr: v["stderr"].as_str().unwrap().to_string(),
        peak_rss: v["maxrss_kib"].as_u64().unwrap() * 1024,
    }
}
