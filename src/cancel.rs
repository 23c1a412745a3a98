//! Cancelling a batch in flight: a flag the caller raises (the MCP server, when its client sends
//! `notifications/cancelled`), checked by the pipeline before each phase that leads to a write and
//! polled by a test run as it polls the stop signals. A batch cancelled before its commit point
//! writes nothing, or is rolled back; after it, the batch stands and the caller says so.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cancellation flag shared between a caller and the batch it runs: cloning shares it, and
/// once raised it stays raised.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(Arc<AtomicBool>);

impl Cancellation {
    /// Asks the batch to stop before its commit point.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether the caller asked the batch to stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::Cancellation;

    #[test]
    fn a_clone_shares_the_flag_and_it_stays_raised() {
        let flag = Cancellation::default();
        let held = flag.clone();
        assert!(!held.is_cancelled());
        flag.cancel();
        assert!(held.is_cancelled());
        flag.cancel();
        assert!(held.is_cancelled());
    }
}
