//! The checkpoint repository kept between the calls of one process and lent to each: a room of
//! its own so that the state (which keeps it) and the opening (which lends it) do not import
//! each other.

use git2::Repository;
use std::sync::{Arc, Mutex};

/// The checkpoint repository as this process opened it, kept between the calls that need it:
/// opening a repository reads three config files and checks its layout, a tenth of a one-file
/// edit's time.
#[derive(Clone, Default)]
pub(crate) struct Kept(Arc<Mutex<Option<Repository>>>);

impl Kept {
    /// Keeps a repository opened already (when the state was located).
    pub(crate) fn new(repository: Option<Repository>) -> Kept {
        Kept(Arc::new(Mutex::new(repository)))
    }

    /// Lends `repository` (taken from here or opened afresh); it comes back here when the loan
    /// is dropped.
    pub(crate) fn lend(&self, repository: Repository) -> Lent<'_> {
        Lent {
            repository: Some(repository),
            kept: self,
        }
    }

    /// The repository kept, if any, taken out for lending.
    pub(crate) fn take(&self) -> Option<Repository> {
        self.0.lock().ok()?.take()
    }

    fn put_back(&self, repository: Repository) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = Some(repository);
        }
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kept(..)")
    }
}

/// The checkpoint repository, lent: it goes back to the state's [`Kept`] when dropped.
pub struct Lent<'a> {
    repository: Option<Repository>,
    kept: &'a Kept,
}

impl std::ops::Deref for Lent<'_> {
    type Target = Repository;

    fn deref(&self) -> &Repository {
        self.repository
            .as_ref()
            .expect("a lent repository is held until dropped")
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(repository) = self.repository.take() {
            self.kept.put_back(repository);
        }
    }
}
