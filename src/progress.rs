//! Progress on stderr for large batches, so a person watching a 40,000-site rename or a
//! 2,000-file code mod sees it move. Shown only when asked (`ApplyOptions::progress`: the CLI
//! sets it when stderr is a terminal and `--quiet`/`--json` are off) and the batch has more than
//! [`PROGRESS_THRESHOLD`] files; otherwise every call is a no-op.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Batches of at most this many files run silently.
pub const PROGRESS_THRESHOLD: usize = 200;

/// A progress line that is either drawn or absent.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A progress line for `files` files, drawn only if `enabled` and the batch is large.
    pub fn new(enabled: bool, files: usize) -> Progress {
        if !enabled || files <= PROGRESS_THRESHOLD {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress(Some(bar))
    }

    /// Starts a phase: a counted bar when `len` is known, a spinner otherwise.
    pub fn phase(&self, message: &str, len: Option<usize>) {
        let Some(bar) = &self.0 else { return };
        let style = match len {
            Some(_) => ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}"),
            None => ProgressStyle::with_template("{spinner} {msg}"),
        };
        if let Ok(style) = style {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_length(len.unwrap_or(0) as u64);
        bar.set_position(0);
        bar.set_message(message.to_string());
    }

    /// One more item of the current phase done.
    pub fn inc(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
