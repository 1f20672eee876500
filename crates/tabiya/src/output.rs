//! Shared output helpers: JSON printing, error reporting, progress bars that stay quiet when
//! stderr is not a terminal.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

/// Prints a value as pretty JSON on stdout, followed by a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints an error and its causes on stderr as `tabiya: error: ...`.
pub fn report_error(err: &anyhow::Error) {
    let mut msg = format!("tabiya: error: {err}");
    for cause in err.chain().skip(1) {
        msg.push_str(&format!("\n  caused by: {cause}"));
    }
    eprintln!("{msg}");
}

/// A progress bar on stderr when it is a terminal, hidden otherwise. `len` is the total in
/// bytes when known.
#[allow(dead_code)]
pub fn progress_bytes(len: Option<u64>, what: &str) -> ProgressBar {
    let pb = match len {
        Some(len) => ProgressBar::new(len),
        None => ProgressBar::no_length(),
    };
    if std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = if len.is_some() {
        "{spinner} {prefix} [{bar:30}] {bytes}/{total_bytes} {msg} ({eta})"
    } else {
        "{spinner} {prefix} {bytes} {msg}"
    };
    pb.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}
