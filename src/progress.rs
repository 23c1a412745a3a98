//! Progress for large batches, reported to an [`Observer`] the caller supplies, so a person
//! watching a 40,000-site rename or a 2,000-file code mod sees it move. The library draws
//! nothing itself: the CLI's observer draws a bar on stderr, a library user may log, the MCP
//! server sends progress notifications, or pass none. Only batches of more than the observer's
//! [`Observer::min_files`] ([`PROGRESS_THRESHOLD`] unless it says) are reported.

use crate::report::Phase;
use crate::report::render::phase_words;
use std::fmt;
use std::sync::Arc;

/// Batches of at most this many files run silently, unless the observer asks for more.
pub const PROGRESS_THRESHOLD: usize = 200;

/// Whoever watches a long batch: told each phase as it starts and each item as it is done.
pub trait Observer: Send + Sync {
    /// A phase starts: `len` items when they are counted, or a spinner's worth of work.
    fn phase(&self, message: &str, len: Option<usize>);
    /// One more item of the current phase is done.
    fn inc(&self);
    /// The batch is over (the observer clears what it drew).
    fn finish(&self);
    /// Batches of at most this many files run silently: a bar is worth drawing only for large
    /// ones, while a host waiting on a call (its timeout reset by each notification) wants
    /// every phase of every batch (0).
    fn min_files(&self) -> usize {
        PROGRESS_THRESHOLD
    }
}

/// An optional observer in [`crate::ApplyOptions`] (cloneable, printable).
#[derive(Clone, Default)]
pub struct Watch(pub Option<Arc<dyn Observer>>);

impl fmt::Debug for Watch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Watch(observer)"
        } else {
            "Watch(none)"
        })
    }
}

/// The progress of one batch: reported to the observer when there is one and the batch is
/// large, a no-op otherwise.
pub struct Progress<'w>(Option<&'w dyn Observer>);

impl<'w> Progress<'w> {
    /// The progress of a batch of `files` files.
    pub fn new(watch: &'w Watch, files: usize) -> Progress<'w> {
        Progress(watch.0.as_deref().filter(|o| files > o.min_files()))
    }

    /// Starts a phase: the observer is told it in the report's words.
    pub fn phase(&self, phase: &Phase, len: Option<usize>) {
        if let Some(o) = self.0 {
            o.phase(&phase_words(phase), len);
        }
    }

    /// One more item of the current phase done.
    pub fn inc(&self) {
        if let Some(o) = self.0 {
            o.inc();
        }
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if let Some(o) = self.0 {
            o.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records what it is told; reports batches above `min`.
    struct Recorder {
        min: usize,
        phases: Mutex<Vec<String>>,
    }

    impl Observer for Recorder {
        fn phase(&self, message: &str, _: Option<usize>) {
            self.phases.lock().unwrap().push(message.to_string());
        }
        fn inc(&self) {}
        fn finish(&self) {}
        fn min_files(&self) -> usize {
            self.min
        }
    }

    #[test]
    fn an_observer_that_asks_for_every_batch_hears_small_ones() {
        for (min, heard) in [(PROGRESS_THRESHOLD, 0), (0, 1)] {
            let recorder = Arc::new(Recorder {
                min,
                phases: Mutex::default(),
            });
            let watch = Watch(Some(recorder.clone()));
            Progress::new(&watch, 1).phase(&Phase::Staging { operations: 1 }, None);
            let phases = recorder.phases.lock().unwrap();
            assert_eq!(phases.len(), heard, "min {min}");
            assert!(phases.iter().all(|p| p == "staging 1 operations"));
        }
    }
}
