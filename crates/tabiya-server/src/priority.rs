//! Background work that must not slow the answers: imports through the server and answers
//! computed again after them run on threads of lowered scheduling priority.

/// Lowers the scheduling priority of the calling thread to nice 10 (threads it starts
/// afterwards inherit it), through `renice` on its thread id. Where that cannot be done
/// (no `/proc`, no `renice`), nothing changes.
pub fn lower_this_threads_priority() {
    let Some(tid) = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|t| t.to_string_lossy().into_owned()))
    else {
        return;
    };
    let _ = std::process::Command::new("renice")
        .args(["-n", "10", "-p", &tid])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}
