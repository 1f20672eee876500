//! Ctrl-C, SIGTERM and SIGHUP during a long command: the first asks the command to stop (an
//! analysis keeps what it found and reaps its engines; an import commits the games it read
//! whole), and says so; a second kills every engine at once and exits (130). Other commands
//! keep the default (they die at once; what they committed is safe).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Installs the handler; the flag is set on the first signal.
pub fn stop_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    on_first_signal(move || f.swap(true, Ordering::SeqCst), "stopping");
    flag
}

/// Installs the handler: a signal calls `raise` (which sets the command's stop flag and says
/// whether it was set already); the first says `what` the command does now.
pub fn on_first_signal(raise: impl Fn() -> bool + Send + 'static, what: &'static str) {
    let installed = ctrlc::set_handler(move || {
        if raise() {
            tabiya_service::engine::kill_all_engines();
            std::process::exit(130);
        }
        eprintln!("tabiya: {what} (again to stop at once)");
    });
    if let Err(e) = installed {
        eprintln!(
            "tabiya: warning: cannot catch Ctrl-C ({e}): engines are still killed with Tabiya"
        );
    }
}
