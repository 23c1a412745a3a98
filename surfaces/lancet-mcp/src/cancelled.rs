//! Calls cancelled after their commit point. A client that cancels a call drops its answer, so a
//! batch that stood anyway (its cancellation came after the writes began, or after the test
//! verdict) would go unnoticed: the next answer of the session says so instead.
//!
//! A cancellation meets the call either while it runs (the call sees it when it ends) or after
//! its answer left (the client dropped it all the same): both are checked under one lock, so
//! each batch that stood is told once.

use rmcp::model::RequestId;
use std::collections::VecDeque;
use std::sync::Mutex;

/// How many answered writing calls a late cancellation may still name.
const REMEMBERED: usize = 64;

/// The writing calls a cancellation may still name, and the notes for the next answer.
#[derive(Default)]
pub(crate) struct LateCancels {
    inner: Mutex<Inner>,
}

/// An answered call whose batch stands.
struct Standing {
    id: RequestId,
    /// The call: its tool and request.
    call: String,
    /// What stands.
    stands: String,
}

#[derive(Default)]
struct Inner {
    /// Answered calls whose batch stands, the newest last.
    standing: VecDeque<Standing>,
    /// What the next answer tells the model.
    notes: Vec<String>,
}

impl LateCancels {
    /// A writing call (`what`, request `id`) ends with its batch standing (`stands`);
    /// `cancelled` says whether its client cancelled it meanwhile (read under the lock).
    pub(crate) fn ended(
        &self,
        id: RequestId,
        what: &str,
        stands: Option<String>,
        cancelled: impl FnOnce() -> bool,
    ) {
        let Some(stands) = stands else {
            return;
        };
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let call = format!("{what} (request {id})");
        if cancelled() {
            inner.notes.push(note(&call, &stands));
            return;
        }
        inner.standing.push_back(Standing { id, call, stands });
        if inner.standing.len() > REMEMBERED {
            inner.standing.pop_front();
        }
    }

    /// The client cancelled request `id`: if its answer already left with a batch standing,
    /// the next answer says so.
    pub(crate) fn cancelled(&self, id: &RequestId) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if let Some(at) = inner.standing.iter().position(|s| &s.id == id)
            && let Some(Standing { call, stands, .. }) = inner.standing.remove(at)
        {
            inner.notes.push(note(&call, &stands));
        }
    }

    /// The notes the next answer carries, once.
    pub(crate) fn take_notes(&self) -> Vec<String> {
        self.inner
            .lock()
            .map(|mut inner| std::mem::take(&mut inner.notes))
            .unwrap_or_default()
    }
}

fn note(call: &str, stands: &str) -> String {
    format!(
        "your call {call} was cancelled after its commit point, so its answer never reached you: its changes stand ({stands}). Read the files again before editing them; undo puts the batch back if it should not stand."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    #[test]
    fn a_batch_that_stands_is_told_once_whichever_comes_first() {
        let late = LateCancels::default();
        // Cancelled while it ran: told by its end.
        late.ended(id(1), "edit", Some("batch a1: a.py".into()), || true);
        // Cancelled after its answer left: told by the cancellation.
        late.ended(id(2), "apply_patch", Some("batch b2: b.py".into()), || {
            false
        });
        assert_eq!(late.take_notes().len(), 1);
        late.cancelled(&id(2));
        late.cancelled(&id(2));
        let notes = late.take_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("apply_patch (request 2)") && notes[0].contains("batch b2: b.py")
        );
        assert!(late.take_notes().is_empty());
        // A refused call (nothing stands) and an unknown id say nothing.
        late.ended(id(3), "edit", None, || true);
        late.cancelled(&id(9));
        assert!(late.take_notes().is_empty());
    }
}
