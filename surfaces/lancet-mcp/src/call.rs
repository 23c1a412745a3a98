//! One writing call's link to the batch it runs, across the thread it runs on: its cancellation
//! (raised when the client sends `notifications/cancelled`), where its progress goes, and what
//! the batch left that the server must act on once the call is answered.

use lancet::{Applied, Status};
use std::sync::Mutex;

/// What a writing call hands the batch it runs, and what it learns back.
#[derive(Default)]
pub(crate) struct Call {
    /// Raised when the client cancels the call: the batch stops before its commit point.
    pub(crate) cancel: lancet::Cancellation,
    /// Who hears the batch's phases (none unless the client asked for progress).
    pub(crate) progress: lancet::Watch,
    outcome: Mutex<Outcome>,
}

/// What a batch left that matters after its answer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The batch stands (written, its checkpoint taken): what it is, in a few words.
    pub(crate) stands: Option<String>,
    /// A stop signal lancet received during the batch's tests (it was rolled back): the
    /// server answers, then exits.
    pub(crate) signal: Option<String>,
}

impl Call {
    /// A call whose batch's phases go to `progress`.
    pub(crate) fn watched(progress: lancet::Watch) -> Call {
        Call {
            progress,
            ..Call::default()
        }
    }

    /// Notes what `applied` left: whether its batch stands, and a stop signal its tests met.
    pub(crate) fn record(&self, applied: &Applied) {
        let report = &applied.report;
        let written = matches!(report.status, Status::Applied | Status::Partial);
        let stands = written.then(|| {
            let files: Vec<&str> = report
                .files
                .iter()
                .map(|f| f.to.as_deref().unwrap_or(&f.path))
                .collect();
            match &report.checkpoint {
                Some(id) => format!("batch {id}: {}", files.join(", ")),
                None => files.join(", "),
            }
        });
        let signal = report.test.as_ref().and_then(|t| t.interrupted_by.clone());
        if let Ok(mut outcome) = self.outcome.lock() {
            *outcome = Outcome { stands, signal };
        }
    }

    /// What the batch left (nothing, for a call refused before it ran one).
    pub(crate) fn outcome(&self) -> Outcome {
        self.outcome.lock().map(|o| o.clone()).unwrap_or_default()
    }
}
