//! A whole command's refusal in its four parts (a rename's, a signature change's, a move's):
//! the status, the stable kind, the detail and what to send next, as each refusal's words give
//! them to the report.

use crate::report::Status;
use lancet_core::kinds::ErrorKind;

/// A refusal's status, stable kind, detail and what to send next.
pub(super) type RefusalWords = (Status, ErrorKind, String, String);

/// A refusal of the whole command (a rename, a signature change, a move): nothing is written.
pub(super) fn refused(kind: ErrorKind, detail: String, next: &str) -> RefusalWords {
    (Status::Refused, kind, detail, next.to_string())
}
