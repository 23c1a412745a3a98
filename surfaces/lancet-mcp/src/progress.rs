//! A call's progress, as `notifications/progress` to a client that sent a `progressToken`: the
//! batch's phases (staging, the gate, the writes, the test run, a rename's scan) and, while one
//! runs long, a beat every second, so a host that resets its timeout on progress
//! (`resetTimeoutOnProgress`) keeps waiting for a long test run instead of cancelling it.
//!
//! A call that may take long by its nature (tests, a rename) reports from its first phase; any
//! other reports only once it has run for a second, so a quick edit sends nothing.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// How long a call runs before every call reports, and how often a long phase beats.
pub(crate) const BEAT: Duration = Duration::from_secs(1);

/// The least time between two notifications of items done (a rename's files).
const ITEMS_EVERY: Duration = Duration::from_millis(250);

/// What the batch tells its observer, on the thread it runs on.
pub(crate) enum Event {
    /// A phase starts, with its count of items when known.
    Phase(String, Option<usize>),
    /// One more item of the phase is done.
    Done,
}

/// The batch's observer: hands each event to the call's [`Reporter`], asking for every batch
/// whatever its size (a host waits on each call).
pub(crate) struct Relay(UnboundedSender<Event>);

impl lancet::Observer for Relay {
    fn phase(&self, message: &str, len: Option<usize>) {
        let _ = self.0.send(Event::Phase(message.to_string(), len));
    }

    fn inc(&self) {
        let _ = self.0.send(Event::Done);
    }

    fn finish(&self) {}

    fn min_files(&self) -> usize {
        0
    }
}

/// A relay and the receiving end its reporter reads.
pub(crate) fn relay() -> (Relay, UnboundedReceiver<Event>) {
    let (send, receive) = unbounded_channel();
    (Relay(send), receive)
}

/// Sends one call's progress to its client.
pub(crate) struct Reporter {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    /// Whether the call reports from its first phase (tests, a rename).
    at_once: bool,
    started: Instant,
    /// The last notification's time, and how many were sent (the progress value: it only
    /// grows, as the protocol asks).
    sent_at: Option<Instant>,
    sent: u32,
    phase: String,
    done: usize,
    len: Option<usize>,
    phase_started: Instant,
}

impl Reporter {
    /// A reporter for the call whose request carried `token`.
    pub(crate) fn new(peer: Peer<RoleServer>, token: ProgressToken, at_once: bool) -> Reporter {
        let now = Instant::now();
        Reporter {
            peer,
            token,
            at_once,
            started: now,
            sent_at: None,
            sent: 0,
            phase: "starting".to_string(),
            done: 0,
            len: None,
            phase_started: now,
        }
    }

    /// Takes one event of the batch, and tells the client when it is time.
    pub(crate) async fn event(&mut self, event: Event) {
        match event {
            Event::Phase(message, len) => {
                self.phase = message;
                self.len = len;
                self.done = 0;
                self.phase_started = Instant::now();
                if self.reporting() {
                    self.send().await;
                }
            }
            Event::Done => {
                self.done += 1;
                let due = self.sent_at.is_none_or(|at| at.elapsed() >= ITEMS_EVERY);
                if self.reporting() && due {
                    self.send().await;
                }
            }
        }
    }

    /// Called every [`BEAT`]: a phase that runs long is said again, with how long it has run.
    pub(crate) async fn beat(&mut self) {
        let quiet = self.sent_at.is_none_or(|at| at.elapsed() >= BEAT);
        if self.started.elapsed() >= BEAT && quiet {
            self.send().await;
        }
    }

    fn reporting(&self) -> bool {
        self.at_once || self.started.elapsed() >= BEAT
    }

    async fn send(&mut self) {
        self.sent += 1;
        self.sent_at = Some(Instant::now());
        let mut message = self.phase.clone();
        if let Some(len) = self.len {
            message.push_str(&format!(" ({} of {len})", self.done));
        } else if self.done > 0 {
            message.push_str(&format!(" ({} done)", self.done));
        }
        let running = self.phase_started.elapsed();
        if running >= BEAT {
            message.push_str(&format!(", {} s", running.as_secs()));
        }
        let param = ProgressNotificationParam::new(self.token.clone(), f64::from(self.sent))
            .with_message(message);
        let _ = self.peer.notify_progress(param).await;
    }
}
