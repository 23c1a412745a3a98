//! What the command line prints: a report (text or JSON, to the right stream) and the progress
//! bar of long batches.

use lancet::Report;
use std::io::{IsTerminal, Write};

/// Prints a report (JSON to stdout; text to stdout on success, stderr otherwise) and returns
/// its exit code. A closed pipe is not an error.
pub(super) fn emit(report: &Report, json: bool) -> u8 {
    let code = report.exit_code();
    if json {
        let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(text.as_bytes());
    } else if code == 0 {
        let stdout = std::io::stdout();
        let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = stdout
            .lock()
            .write_all(report.render_human(color).as_bytes());
    } else {
        let stderr = std::io::stderr();
        let color = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = stderr
            .lock()
            .write_all(report.render_human(color).as_bytes());
    }
    code
}

/// The CLI's observer: a progress bar on stderr (indicatif), for a person at a terminal.
pub(super) struct Bar(indicatif::ProgressBar);

impl Bar {
    pub(super) fn new() -> Bar {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Bar(bar)
    }
}

impl lancet::Observer for Bar {
    fn phase(&self, message: &str, len: Option<usize>) {
        let style = match len {
            Some(_) => {
                indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}")
            }
            None => indicatif::ProgressStyle::with_template("{spinner} {msg}"),
        };
        if let Ok(style) = style {
            self.0.set_style(style.progress_chars("=> "));
        }
        self.0.set_length(len.unwrap_or(0) as u64);
        self.0.set_position(0);
        self.0.set_message(message.to_string());
    }

    fn inc(&self) {
        self.0.inc(1);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
