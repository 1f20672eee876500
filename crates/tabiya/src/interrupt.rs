//! Ctrl-C, SIGTERM and SIGHUP during a command that runs engines: the first asks the command
//! to stop (it keeps what it found, reaps its engines and says so); a second kills every
//! engine at once and exits. Commands that run no engine keep the default (they die at once;
//! what they committed is safe).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Installs the handler; the flag is set on the first signal.
pub fn stop_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    let installed = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            tabiya_service::engine::kill_all_engines();
            std::process::exit(130);
        }
        eprintln!("tabiya: stopping (again to stop at once)");
    });
    if let Err(e) = installed {
        eprintln!(
            "tabiya: warning: cannot catch Ctrl-C ({e}): engines are still killed with Tabiya"
        );
    }
    flag
}
