//! What the command line prints: a report (text or JSON, to the right stream) and the progress
//! bar of long batches.

use lancet::{ErrorKind, Report, Status};
use std::io::{IsTerminal, Write};

/// Prints a report, text or JSON, and returns its exit code. The report is the command's
/// output whatever it says, so it goes to stdout, refusals included (the exit code tells them
/// apart); stderr carries only what lancet says about its own invocation (a bad flag or flag
/// value, a root it cannot open, an environment failure) and progress. `--json` keeps even
/// those reports on stdout, where a script reads them. A closed pipe is not an error.
pub(super) fn emit(report: &Report, json: bool) -> u8 {
    if json {
        let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    } else if about_the_invocation(report) {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = std::io::stderr()
            .lock()
            .write_all(report.render_human(color).as_bytes());
    } else {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = std::io::stdout()
            .lock()
            .write_all(report.render_human(color).as_bytes());
    }
    report.exit_code()
}

/// Prints a report as [`emit`] does, but nothing for a success with `-q` (the exit code says
/// it): every writing command takes `-q` (apply, rename, mod, undo); failures still print.
pub(super) fn emit_unless_quiet(report: &Report, json: bool, quiet: bool) -> u8 {
    if quiet && report.exit_code() == 0 && !json {
        return 0;
    }
    emit(report, json)
}

/// Whether a report is about how lancet was called or where it runs (exit 2 for the command
/// line rather than the edit, exit 4), not about the edit: those go to stderr in words.
fn about_the_invocation(report: &Report) -> bool {
    let kind = report.error.as_ref().map(|e| e.kind);
    match report.status {
        Status::Error => true,
        Status::Malformed => kind.is_some_and(|k| k != ErrorKind::Malformed),
        _ => false,
    }
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
