//! How a call runs without ever holding up the runtime: its work goes to a thread of its own
//! (the runtime has one thread, which also answers `ping`, `tools/list` and cancellations), a
//! writing call after waiting for its turn (the root's lock is per process), with its client's
//! cancellation and progress carried across, and what its batch left acted on once answered.

use crate::LancetServer;
use crate::call::Call;
use crate::progress::{self, BEAT, Reporter};
use crate::result::refusal;
use lancet::ErrorKind;
use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use std::sync::Arc;
use std::time::Instant;

/// What a writing call is, for its turn.
pub(crate) struct Turn {
    /// The tool's name.
    pub(crate) tool: &'static str,
    /// Whether its batch runs the tests (it is then pending its verdict for a while).
    pub(crate) tests: bool,
    /// Whether it may take long by its nature (tests, a rename): it reports progress from its
    /// first phase, not only once it has run a second.
    pub(crate) long: bool,
}

impl Turn {
    /// A writing tool's turn: long when it asked for the tests.
    pub(crate) fn writing(tool: &'static str, test: Option<bool>) -> Turn {
        let tests = test.unwrap_or(false);
        Turn {
            tool,
            tests,
            long: tests,
        }
    }
}

/// The writing call in flight, for a read that comes meanwhile.
pub(crate) struct InFlight {
    tool: &'static str,
    tests: bool,
    started: Instant,
}

impl InFlight {
    /// What a read made meanwhile must say: it shows the disk as the batch left it so far.
    pub(crate) fn note(&self) -> String {
        let tool = self.tool;
        let secs = self.started.elapsed().as_secs();
        if self.tests {
            format!(
                "a batch of this session ({tool}) is pending its test verdict (running for {secs} s): this read shows the file as it is on disk now, that batch's changes included if it wrote this file; if its tests fail, its changes are rolled back and its answer says so"
            )
        } else {
            format!(
                "a batch of this session ({tool}) is being written: this read shows the file as it is on disk now; read it again after that call's answer"
            )
        }
    }
}

impl LancetServer {
    /// Runs a writing tool's `work` on its turn (one writer at a time: a batch may touch
    /// several files), off the runtime, with the call and its result logged. The client's
    /// cancellation reaches the batch (it stops before its commit point); its progress goes
    /// back as notifications when it asked for them. A batch that stood although the call was
    /// cancelled is told in the session's next answer; a stop signal during its tests ends the
    /// server once the call is answered.
    pub(crate) async fn writer_turn<A>(
        &self,
        turn: Turn,
        args: A,
        context: RequestContext<RoleServer>,
        work: impl FnOnce(&LancetServer, &A, &Call) -> CallToolResult + Send + 'static,
    ) -> CallToolResult
    where
        A: std::fmt::Debug + Send + 'static,
    {
        let ct = context.ct.clone();
        let _turn = tokio::select! {
            held = self.writer.lock() => held,
            () = ct.cancelled() => return self.not_run(turn.tool, &args, "it was cancelled before its turn"),
            () = self.quit.cancelled() => return self.not_run(turn.tool, &args, "the server is stopping"),
        };
        let (relay, mut events) = progress::relay();
        let mut reporter = context
            .meta
            .get_progress_token()
            .map(|token| Reporter::new(context.peer.clone(), token, turn.long));
        let observer: Option<Arc<dyn lancet::Observer>> = match reporter {
            Some(_) => Some(Arc::new(relay)),
            None => None,
        };
        let call = Arc::new(Call::watched(lancet::Watch(observer)));
        self.set_in_flight(Some(InFlight {
            tool: turn.tool,
            tests: turn.tests,
            started: Instant::now(),
        }));
        let this = self.clone();
        let running = Arc::clone(&call);
        let tool = turn.tool;
        let job = tokio::task::spawn_blocking(move || {
            let result = work(&this, &args, &running);
            this.log_call(tool, &args, &result);
            result
        });
        tokio::pin!(job);
        // A call dropped unanswered (the runtime stopping: the client left) cancels its batch,
        // whose thread the runtime then waits for.
        let _unanswered = CancelOnDrop(call.cancel.clone());
        let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + BEAT, BEAT);
        let result = loop {
            tokio::select! {
                joined = &mut job => break joined.unwrap_or_else(|e| internal_error(&e)),
                () = ct.cancelled(), if !call.cancel.is_cancelled() => call.cancel.cancel(),
                Some(event) = events.recv(), if reporter.is_some() => {
                    if let Some(reporter) = reporter.as_mut() {
                        reporter.event(event).await;
                    }
                }
                _ = beat.tick(), if reporter.is_some() => {
                    if let Some(reporter) = reporter.as_mut() {
                        reporter.beat().await;
                    }
                }
            }
        };
        self.set_in_flight(None);
        let outcome = call.outcome();
        self.late
            .ended(context.id.clone(), turn.tool, outcome.stands, || {
                ct.is_cancelled()
            });
        if let Some(signal) = outcome.signal {
            self.stop(signal);
        }
        result
    }

    /// Runs a reading tool's `work` off the runtime, with the call and its result logged.
    pub(crate) async fn reader_turn<A>(
        &self,
        tool: &'static str,
        args: A,
        work: impl FnOnce(&LancetServer, &A) -> CallToolResult + Send + 'static,
    ) -> CallToolResult
    where
        A: std::fmt::Debug + Send + 'static,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let result = work(&this, &args);
            this.log_call(tool, &args, &result);
            result
        })
        .await
        .unwrap_or_else(|e| internal_error(&e))
    }

    /// The answer to a writing call that never ran (`why`), logged as such.
    fn not_run<A: std::fmt::Debug>(
        &self,
        tool: &'static str,
        args: &A,
        why: &str,
    ) -> CallToolResult {
        let result = refusal(
            ErrorKind::Cancelled,
            format!("the call did not run: {why}"),
            "Nothing was written.",
        );
        self.log_call(tool, args, &result);
        result
    }

    fn set_in_flight(&self, now: Option<InFlight>) {
        if let Ok(mut in_flight) = self.in_flight.lock() {
            *in_flight = now;
        }
    }

    /// What a read made now must say about a writing call in flight.
    pub(crate) fn in_flight_note(&self) -> Option<String> {
        self.in_flight.lock().ok()?.as_ref().map(InFlight::note)
    }
}

/// Raises a call's cancellation when dropped.
struct CancelOnDrop(lancet::Cancellation);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The answer to a call whose thread failed (a panic): lancet's own error, said as one.
fn internal_error(e: &tokio::task::JoinError) -> CallToolResult {
    refusal(
        ErrorKind::Io,
        format!("internal error in lancet: {e}"),
        "If files were being written, the next call recovers them from the journal. Please report this.",
    )
}
