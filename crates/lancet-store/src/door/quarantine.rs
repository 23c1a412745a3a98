//! The door's way for the quarantine (the facade's `quarantine.rs`) to make a repository a test
//! planted inert: a rename that never replaces an entry, and a directory's mode (a directory
//! the tests made unlistable, opened for the walk and put back). Both through the root's
//! handle; nothing else of the quarantine changes the tree.

use super::swap::rename_with;
use cap_std::fs::{Permissions, PermissionsExt};
use lancet_core::Root;
use std::io;

/// A change the quarantine makes to the tree, by paths relative to the root (`""` or `.`: the
/// root itself).
#[derive(Debug, Clone, Copy)]
pub enum TreeChange<'a> {
    /// A directory's permission bits (never through a link).
    Mode {
        /// The directory.
        path: &'a str,
        /// The bits.
        mode: u32,
    },
    /// A rename that never replaces an entry (`RENAME_NOREPLACE`): `AlreadyExists` when `to`
    /// is taken.
    SetAside {
        /// What is set aside.
        from: &'a str,
        /// Its new name.
        to: &'a str,
    },
}

/// Makes one change of the quarantine's, through the root's handle.
pub fn change_tree(root: &Root, change: TreeChange<'_>) -> io::Result<()> {
    match change {
        TreeChange::Mode { path, mode } => {
            let path = if path.is_empty() { "." } else { path };
            if !root.dir().symlink_metadata(path)?.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            root.dir()
                .set_permissions(path, Permissions::from_mode(mode))
        }
        TreeChange::SetAside { from, to } => {
            rename_with(root.dir(), from, root.dir(), to, libc::RENAME_NOREPLACE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_name_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("src/.git/objects")).unwrap();
        std::fs::create_dir_all(tmp.path().join("src/.git.q/keep")).unwrap();
        let root = Root::new(tmp.path()).unwrap();
        let taken = change_tree(
            &root,
            TreeChange::SetAside {
                from: "src/.git",
                to: "src/.git.q",
            },
        );
        assert_eq!(taken.unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        change_tree(
            &root,
            TreeChange::SetAside {
                from: "src/.git",
                to: "src/.git.q2",
            },
        )
        .unwrap();
        assert!(tmp.path().join("src/.git.q2/objects").is_dir());
        assert!(tmp.path().join("src/.git.q/keep").is_dir());
    }
}
