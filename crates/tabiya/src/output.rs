//! Shared output helpers: JSON printing, error reporting, progress bars that stay quiet when
//! stderr is not a terminal.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tabiya_service::import::{self, ImportProgress, ImportStatus};

/// Prints a value as pretty JSON on stdout, followed by a newline (buffered: standard
/// output alone writes each line).
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
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
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// An import's bar: with the input's size known, how far through it (percentage, bytes)
/// and the time left; else the bytes read.
pub struct ImportBar {
    pub bar: ProgressBar,
    sized: Option<bool>,
}

impl ImportBar {
    pub fn new() -> ImportBar {
        ImportBar {
            bar: progress_bytes(None, "import"),
            sized: None,
        }
    }

    /// Draws an import's state.
    pub fn draw(&mut self, s: &ImportStatus, files: usize) {
        let sized = s.file_size > 0;
        if self.sized != Some(sized) {
            let template = if sized {
                "{spinner} {prefix} [{bar:30}] {percent:>3}% {bytes}/{total_bytes} {msg} (ETA {eta})"
            } else {
                "{spinner} {prefix} {bytes} {msg}"
            };
            self.bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            self.sized = Some(sized);
        }
        self.bar
            .set_prefix(format!("[{}/{}] {}", s.file_index + 1, files, s.file_name));
        if sized {
            self.bar.set_length(s.file_size);
        }
        self.bar.set_position(s.file_bytes);
        let stage = s
            .stage
            .as_deref()
            .map(|st| format!(", {st}"))
            .unwrap_or_default();
        self.bar.set_message(format!(
            "{} games, {:.0} games/s{stage}",
            s.games, s.games_per_second
        ));
    }

    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// An import's progress bar, drawn from its live counters on its own thread while stderr
/// is a terminal (nothing otherwise). Stop it with [`ImportTicker::finish`].
pub struct ImportTicker {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ImportTicker {
    pub fn start(progress: &Arc<ImportProgress>, files: usize) -> ImportTicker {
        let done = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let progress = Arc::clone(progress);
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut bar = ImportBar::new();
                let started = Instant::now();
                while !done.load(Ordering::Relaxed) {
                    bar.draw(&import::status(&progress, started), files);
                    std::thread::sleep(Duration::from_millis(100));
                }
                bar.finish_and_clear();
            })
        });
        ImportTicker { done, thread }
    }

    /// Stops and clears the bar.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A progress bar counting items on stderr when it is a terminal, hidden otherwise.
pub fn progress_count(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {prefix} [{bar:30}] {pos}/{len} {per_sec} (ETA {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_prefix(what.to_string());
    pb
}
