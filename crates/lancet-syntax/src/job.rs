//! One file the gate checks, as the gate and the external checks both take it.

use crate::precheck::Prechecked;

/// One file to check: its path, its content before and after the batch, and the verdict of a
/// caller that already checked it.
pub(crate) struct Job<'a> {
    pub(crate) path: &'a str,
    pub(crate) before: Option<&'a [u8]>,
    pub(crate) after: &'a [u8],
    pub(crate) prechecked: Option<&'a Prechecked>,
}
